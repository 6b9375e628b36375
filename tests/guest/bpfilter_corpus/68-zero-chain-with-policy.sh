# shellcheck shell=bash
# zero a base chain resets its policy counter too
ipt_restore -c <<'R'
*filter
:INPUT DROP [100:10000]
:FORWARD DROP [200:20000]
:OUTPUT ACCEPT [300:30000]
[1:1] -A INPUT -j ACCEPT
[2:2] -A FORWARD -j ACCEPT
COMMIT
R
ipt -Z INPUT
ipt -L -Z FORWARD -v -x -n
