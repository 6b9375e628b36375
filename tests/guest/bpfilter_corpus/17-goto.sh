# shellcheck shell=bash
# goto a user chain
ipt -N g1
ipt -N g2
ipt -A INPUT -s 10.0.0.0/8 -g g1
ipt -A g1 -p tcp -g g2
ipt -A g1 -j DROP
ipt -A g2 -j ACCEPT
ipt -A OUTPUT -g g2
