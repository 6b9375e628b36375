# shellcheck shell=bash
# fragment flag and its inversion
ipt -A INPUT -f -j DROP
ipt -A INPUT ! -f -j ACCEPT
ipt -A FORWARD -f -s 10.0.0.0/8 -j DROP
ipt -A FORWARD -p udp -f -j DROP
