# shellcheck shell=bash
# inverted tcp ports and ranges
ipt -A INPUT -p tcp ! --dport 22 -j DROP
ipt -A INPUT -p tcp ! --sport 1:1023 -j ACCEPT
ipt -A INPUT -p tcp ! --sport 53 ! --dport 53 -j ACCEPT
ipt -A INPUT ! -p tcp -j DROP
ipt -A INPUT -p tcp -m tcp ! --dport 100:200 -j RETURN
