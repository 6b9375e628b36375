# shellcheck shell=bash
# source and destination prefixes
ipt -A INPUT -s 0.0.0.0/0 -j ACCEPT
ipt -A INPUT -s 128.0.0.0/1 -j ACCEPT
ipt -A INPUT -s 10.0.0.0/8 -j ACCEPT
ipt -A INPUT -s 172.16.0.0/12 -j ACCEPT
ipt -A INPUT -d 192.168.0.0/16 -j ACCEPT
ipt -A INPUT -d 192.168.1.0/24 -j ACCEPT
ipt -A INPUT -d 192.168.1.4/31 -j ACCEPT
ipt -A INPUT -s 192.168.1.9/32 -d 192.168.1.10 -j ACCEPT
ipt -A INPUT -s 10.1.2.3/8 -j DROP
ipt -A INPUT -d 255.255.255.255 -j DROP
ipt_x -A INPUT -s 10.0.0.0/33 -j DROP
