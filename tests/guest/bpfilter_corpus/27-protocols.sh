# shellcheck shell=bash
# protocol numbers and names
ipt -A INPUT -p tcp -j ACCEPT
ipt -A INPUT -p udp -j ACCEPT
ipt -A INPUT -p icmp -j ACCEPT
ipt -A INPUT -p 47 -j ACCEPT
ipt -A INPUT -p sctp -j ACCEPT
ipt -A INPUT -p all -j ACCEPT
ipt -A INPUT ! -p tcp -j DROP
ipt -A INPUT -p 255 -j DROP
ipt -A INPUT -p esp -j DROP
ipt_x -A INPUT -p nosuchproto -j DROP
