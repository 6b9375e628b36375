# shellcheck shell=bash
# jump to a user chain that returns
ipt -N web
ipt -A INPUT -p tcp -j web
ipt -A web -p tcp --dport 80 -j ACCEPT
ipt -A web -p tcp --dport 443 -j ACCEPT
ipt -A web -j RETURN
ipt -A INPUT -j DROP
