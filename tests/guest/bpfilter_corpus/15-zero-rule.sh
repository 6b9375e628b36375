# shellcheck shell=bash
# zero one rule by number
ipt -A INPUT -c 1 100 -j ACCEPT
ipt -A INPUT -c 2 200 -j ACCEPT
ipt -A INPUT -c 3 300 -j ACCEPT
ipt -Z INPUT 2
ipt_x -Z INPUT 4
