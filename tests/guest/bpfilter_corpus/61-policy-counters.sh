# shellcheck shell=bash
# policy counters survive policy changes and rule changes
ipt_restore -c <<'R'
*filter
:INPUT ACCEPT [3:4]
:FORWARD ACCEPT [5:6]
:OUTPUT ACCEPT [7:8]
COMMIT
R
ipt -P INPUT DROP
ipt -A INPUT -j ACCEPT
ipt -A FORWARD -c 1 1 -j ACCEPT
ipt -Z FORWARD
ipt -D INPUT 1
