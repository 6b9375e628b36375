# shellcheck shell=bash
# a chain of five nested jumps
for c in c1 c2 c3 c4 c5; do ipt -N $c; done
ipt -A INPUT -j c1
ipt -A c1 -s 10.0.0.0/8 -j c2
ipt -A c2 -p tcp -j c3
ipt -A c3 -p tcp --dport 22 -j c4
ipt -A c4 -i eth0 -j c5
ipt -A c5 -j ACCEPT
ipt -A c3 -j RETURN
ipt -A c1 -j DROP
