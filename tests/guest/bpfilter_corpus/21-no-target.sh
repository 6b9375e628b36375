# shellcheck shell=bash
# rules without a target
ipt -A INPUT
ipt -A INPUT -s 1.2.3.4
ipt -A INPUT -p tcp --dport 80
ipt -A OUTPUT -c 5 50
ipt -N user
ipt -A user
