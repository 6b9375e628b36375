# shellcheck shell=bash
# delete by specification
ipt -A INPUT -s 1.2.3.4 -j DROP
ipt -A INPUT -p tcp --dport 22 -j ACCEPT
ipt -A INPUT -s 1.2.3.4 -j DROP
ipt -A INPUT -p udp --dport 53 -j ACCEPT
ipt -D INPUT -s 1.2.3.4 -j DROP
ipt -D INPUT -p tcp --dport 22 -j ACCEPT
ipt_x -D INPUT -p tcp --dport 22 -j ACCEPT
ipt_x -D INPUT -p udp --dport 53 -j DROP
ipt -D INPUT -s 1.2.3.4/32 -j DROP
