# shellcheck shell=bash
# restore -c with rule and policy counters
ipt_restore -c <<'R'
*filter
:INPUT ACCEPT [11:1100]
:FORWARD DROP [22:2200]
:OUTPUT ACCEPT [33:3300]
:user - [0:0]
[1:100] -A INPUT -s 1.2.3.4 -j DROP
[2:200] -A INPUT -j user
[3:300] -A user -p tcp --dport 22 -j ACCEPT
[4294967296:18446744073709551615] -A OUTPUT -j ACCEPT
-A OUTPUT -j DROP
COMMIT
R
