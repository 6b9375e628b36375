# shellcheck shell=bash
# list and zero in one command
ipt -A INPUT -c 7 700 -j ACCEPT
ipt -A FORWARD -c 8 800 -j DROP
ipt -L -Z -n -v -x
ipt -L -n -v -x
ipt -A OUTPUT -c 9 900 -j ACCEPT
ipt -L OUTPUT -Z -n -v -x
