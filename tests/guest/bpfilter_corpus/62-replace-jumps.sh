# shellcheck shell=bash
# replace jumps and gotos, then delete the old target chain
ipt -N one
ipt -N two
ipt -A INPUT -j one
ipt -A INPUT -g two
ipt -R INPUT 1 -j two
ipt -R INPUT 2 -j one
ipt -R INPUT 2 -j ACCEPT
ipt -X one
ipt -R INPUT 1 -g two
