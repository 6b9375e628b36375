# shellcheck shell=bash
# user-space refusals before any kernel call
ipt_x -A INPUT -p tcp --dport 1:2:3 -j ACCEPT
ipt_x -A INPUT -m multiport --dports 80 -j ACCEPT
ipt_x -A INPUT --icmp-type 8 -j ACCEPT
ipt_x -A INPUT -s 300.1.1.1 -j DROP
ipt_x -A INPUT -j
ipt_x -Q INPUT
ipt -A INPUT -j ACCEPT
