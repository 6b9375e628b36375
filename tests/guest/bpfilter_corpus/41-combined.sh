# shellcheck shell=bash
# every supported match in one rule
ipt -N svc
ipt -A INPUT -s 10.0.0.0/8 ! -d 10.1.0.0/16 -i eth+ -p tcp -m tcp --sport 1024:65535 --dport 443 --tcp-flags SYN,ACK SYN -m comment --comment "all of it" -j svc
ipt -A INPUT -s 192.168.0.0/24 -i eth1 -p tcp -m multiport --dports 80,443 -m comment --comment web -g svc
ipt -A OUTPUT ! -o lo -d 1.2.3.4 -p udp --sport 53 -m multiport ! --dports 1:100 -j DROP
ipt -A FORWARD -i br0 -o eth0 -p icmp --icmp-type 8/0 -f -m comment --comment frag -j DROP
ipt -A svc -j ACCEPT
