# shellcheck shell=bash
# a loop no hook reaches is accepted, until a hook reaches it
ipt -N L1
ipt -N L2
ipt -A L1 -j L2
ipt -A L2 -j L1
ipt_x -A OUTPUT -j L1
ipt -D L2 -j L1
ipt -A OUTPUT -j L1
