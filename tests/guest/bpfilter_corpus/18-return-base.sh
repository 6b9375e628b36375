# shellcheck shell=bash
# RETURN in base chains
ipt -A INPUT -s 1.2.3.4 -j RETURN
ipt -A INPUT -j DROP
ipt -A FORWARD -j RETURN
ipt -I OUTPUT -j RETURN
