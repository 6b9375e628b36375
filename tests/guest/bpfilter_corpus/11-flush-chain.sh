# shellcheck shell=bash
# flush one chain
ipt -A INPUT -j ACCEPT
ipt -A INPUT -s 1.2.3.4 -j DROP
ipt -A OUTPUT -j ACCEPT
ipt -N user
ipt -A user -j DROP
ipt -F INPUT
ipt -F user
ipt_x -F missing
