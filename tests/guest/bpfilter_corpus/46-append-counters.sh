# shellcheck shell=bash
# -c on append, insert and replace
ipt -A INPUT -c 10 20 -j ACCEPT
ipt -I INPUT -c 1 2 -s 1.2.3.4 -j DROP
ipt -A OUTPUT --set-counters 100 200 -j ACCEPT
ipt -R INPUT 2 -c 30 40 -j DROP
ipt -A FORWARD -c 0 0 -j DROP
ipt -A FORWARD -c 18446744073709551615 1 -j DROP
