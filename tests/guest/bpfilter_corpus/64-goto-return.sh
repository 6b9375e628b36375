# shellcheck shell=bash
# goto from a called chain, returning to the base chain
ipt -N outer
ipt -N inner
ipt -N last
ipt -A INPUT -j outer
ipt -A INPUT -j DROP
ipt -A outer -p tcp -g inner
ipt -A outer -j RETURN
ipt -A inner -j last
ipt -A inner -j RETURN
ipt -A last -p tcp --dport 1 -j ACCEPT
