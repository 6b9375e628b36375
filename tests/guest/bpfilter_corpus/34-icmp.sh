# shellcheck shell=bash
# icmp types and codes
ipt -A INPUT -p icmp --icmp-type echo-request -j ACCEPT
ipt -A INPUT -p icmp --icmp-type 0 -j ACCEPT
ipt -A INPUT -p icmp --icmp-type 3/3 -j ACCEPT
ipt -A INPUT -p icmp --icmp-type destination-unreachable -j ACCEPT
ipt -A INPUT -p icmp --icmp-type any -j ACCEPT
ipt -A INPUT -p icmp ! --icmp-type 8 -j DROP
ipt -A INPUT -p icmp --icmp-type 11/1 -j ACCEPT
ipt -A INPUT -p icmp --icmp-type port-unreachable -j DROP
ipt -A INPUT -p icmp --icmp-type 255 -j DROP
ipt -A INPUT -p icmp -m icmp --icmp-type time-exceeded -j ACCEPT
ipt_x -A INPUT -p icmp --icmp-type nonsense -j DROP
