# shellcheck shell=bash
# restore of some chains only, and -T filter
ipt -A FORWARD -j DROP
ipt_restore -T filter <<'R'
*filter
:INPUT ACCEPT [0:0]
-A INPUT -j DROP
COMMIT
R
ipt_restore <<'R'
*filter
:OUTPUT DROP [0:0]
:x - [0:0]
-A OUTPUT -j x
COMMIT
R
