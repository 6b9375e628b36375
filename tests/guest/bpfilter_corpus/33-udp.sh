# shellcheck shell=bash
# udp ports, ranges and inversions
ipt -A INPUT -p udp --dport 53 -j ACCEPT
ipt -A INPUT -p udp --sport 67:68 --dport 67:68 -j ACCEPT
ipt -A INPUT -p udp ! --dport 123 -j DROP
ipt -A INPUT -p udp ! --sport 1024: -j DROP
ipt -A INPUT -p udp -m udp --dport domain -j ACCEPT
ipt -A OUTPUT -p udp --dport :100 -j DROP
ipt_x -A INPUT -p udp --syn -j DROP
