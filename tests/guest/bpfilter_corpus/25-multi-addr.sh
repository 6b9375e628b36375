# shellcheck shell=bash
# address lists expand to several rules
ipt -A INPUT -s 1.1.1.1,2.2.2.2 -d 3.3.3.3,4.4.4.0/24 -j ACCEPT
ipt -A OUTPUT -d 9.9.9.9,8.8.8.8,7.7.7.7 -j DROP
ipt -D INPUT -s 1.1.1.1,2.2.2.2 -d 3.3.3.3 -j ACCEPT
ipt -C INPUT -s 2.2.2.2 -d 4.4.4.0/24 -j ACCEPT
ipt -I INPUT 2 -s 5.5.5.5,6.6.6.6 -j DROP
