# shellcheck shell=bash
# loops through gotos and self jumps
ipt -N G1
ipt -N G2
ipt -A FORWARD -j G1
ipt -A G1 -g G2
ipt_x -A G2 -g G1
ipt_x -A G1 -j G1
ipt -A G2 -j DROP
