# shellcheck shell=bash
# tear a chain down step by step
ipt -N temp
ipt -A temp -j ACCEPT
ipt -A INPUT -j temp
ipt -A OUTPUT -g temp
ipt -F temp
ipt -D INPUT -j temp
ipt_x -X temp
ipt -D OUTPUT 1
ipt -X temp
ipt -N temp
