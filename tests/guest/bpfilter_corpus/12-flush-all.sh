# shellcheck shell=bash
# flush everything, then delete the chains
ipt -N a
ipt -N b
ipt -A INPUT -j a
ipt -A a -j b
ipt -A b -j ACCEPT
ipt -A FORWARD -j DROP
ipt -P FORWARD DROP
ipt -F
ipt -X
ipt -S
