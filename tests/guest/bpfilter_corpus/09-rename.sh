# shellcheck shell=bash
# rename chains, referenced and not
ipt -N old
ipt -A INPUT -j old
ipt -A old -s 1.2.3.4 -j DROP
ipt -E old new
ipt_x -E new INPUT
ipt_x -E missing other
ipt -N other
ipt_x -E new other
ipt -E other a-very-long-chain-name-28
