# shellcheck shell=bash
# tcp flag masks
ipt -A INPUT -p tcp --tcp-flags SYN,ACK,FIN,RST SYN -j ACCEPT
ipt -A INPUT -p tcp --tcp-flags ALL NONE -j DROP
ipt -A INPUT -p tcp --tcp-flags ALL ALL -j DROP
ipt -A INPUT -p tcp --tcp-flags ALL FIN,PSH,URG -j DROP
ipt -A INPUT -p tcp --tcp-flags SYN,FIN SYN,FIN -j DROP
ipt -A INPUT -p tcp ! --tcp-flags ACK ACK -j DROP
ipt -A INPUT -p tcp --tcp-flags NONE NONE -j ACCEPT
ipt -A INPUT -p tcp --dport 80 --tcp-flags RST RST -j DROP
ipt_x -A INPUT -p tcp --tcp-flags BOGUS SYN -j DROP
