# shellcheck shell=bash
# -C for existing and missing rules
ipt -A INPUT -p tcp --dport 22 -j ACCEPT
ipt -A INPUT -s 10.0.0.0/8 -m comment --comment c -j DROP
ipt -C INPUT -p tcp --dport 22 -j ACCEPT
ipt -C INPUT -s 10.0.0.0/8 -m comment --comment c -j DROP
ipt_x -C INPUT -p tcp --dport 23 -j ACCEPT
ipt_x -C INPUT -p tcp --dport 22 -j DROP
ipt_x -C OUTPUT -j ACCEPT
ipt_x -C missing -j ACCEPT
