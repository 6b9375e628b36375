# shellcheck shell=bash
# jump and goto to missing chains
ipt_x -A INPUT -j nochain
ipt_x -A INPUT -g nochain
ipt_x -A INPUT -j LOGX
ipt_x -A nochain -j ACCEPT
ipt -A INPUT -j ACCEPT
