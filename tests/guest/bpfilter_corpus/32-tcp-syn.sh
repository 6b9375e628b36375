# shellcheck shell=bash
# --syn and its inversion
ipt -A INPUT -p tcp --syn -j ACCEPT
ipt -A INPUT -p tcp ! --syn -j DROP
ipt -A INPUT -p tcp --syn --dport 25 -j DROP
ipt -D INPUT -p tcp --tcp-flags FIN,SYN,RST,ACK SYN -j ACCEPT
ipt -C INPUT -p tcp ! --syn -j DROP
