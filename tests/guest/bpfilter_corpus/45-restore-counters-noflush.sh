# shellcheck shell=bash
# restore -c --noflush keeps old counters
ipt -A INPUT -c 5 500 -j ACCEPT
ipt -P INPUT DROP
ipt_restore -c --noflush <<'R'
*filter
:INPUT DROP [7:700]
[8:800] -A INPUT -s 8.8.8.8 -j ACCEPT
[9:900] -I INPUT 1 -s 9.9.9.9 -j ACCEPT
COMMIT
R
