# shellcheck shell=bash
# one rule per base chain, every verdict
ipt -A INPUT -j ACCEPT
ipt -A FORWARD -j DROP
ipt -A OUTPUT -j ACCEPT
ipt -A INPUT -j DROP
ipt -A OUTPUT -j RETURN
