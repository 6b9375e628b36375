# shellcheck shell=bash
# comments
ipt -A INPUT -m comment --comment "allow ssh" -p tcp --dport 22 -j ACCEPT
ipt -A INPUT -s 10.0.0.0/8 -m comment --comment private -j ACCEPT
ipt -A OUTPUT -m comment --comment x -j ACCEPT
ipt -A OUTPUT -m comment --comment one -m comment --comment two -j DROP
ipt -D OUTPUT -m comment --comment x -j ACCEPT
