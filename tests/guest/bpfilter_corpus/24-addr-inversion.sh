# shellcheck shell=bash
# inverted addresses
ipt -A INPUT ! -s 10.0.0.0/8 -j DROP
ipt -A INPUT ! -d 192.168.0.1 -j DROP
ipt -A INPUT ! -s 1.2.3.4 ! -d 5.6.7.0/24 -j ACCEPT
ipt -A OUTPUT ! -d 0.0.0.0/0 -j DROP
ipt -D INPUT ! -d 192.168.0.1 -j DROP
