# shellcheck shell=bash
# zero one chain, then all
ipt -A INPUT -c 10 1000 -j ACCEPT
ipt -A INPUT -c 20 2000 -s 1.2.3.4 -j DROP
ipt -A OUTPUT -c 30 3000 -j ACCEPT
ipt -N user
ipt -A user -c 40 4000 -j RETURN
ipt -L -n -v -x
ipt -Z INPUT
ipt -L -n -v -x
ipt -Z
