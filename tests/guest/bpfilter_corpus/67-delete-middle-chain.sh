# shellcheck shell=bash
# delete the chain in the middle of a jump chain
ipt -N a
ipt -N b
ipt -N c
ipt -A INPUT -j a
ipt -A a -j b
ipt -A b -j c
ipt -A c -j ACCEPT
ipt -F b
ipt -D a -j b
ipt -X b
ipt -A a -j c
