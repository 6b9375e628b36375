# shellcheck shell=bash
# a loop reachable from INPUT: the kernel says ELOOP
ipt -N A
ipt -N B
ipt -A INPUT -j A
ipt -A A -j B
ipt_x -A B -j A
ipt -A B -j ACCEPT
ipt_x -I B 1 -s 1.2.3.4 -j A
