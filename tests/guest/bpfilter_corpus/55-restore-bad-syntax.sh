# shellcheck shell=bash
# restores that fail in user space
ipt -A INPUT -s 1.1.1.1 -j DROP
ipt_restore_x <<'R'
*filter
:INPUT ACCEPT [0:0]
-A INPUT -s 2.2.2.2 -j DROP
-A INPUT --bogus-option
COMMIT
R
ipt_restore_x <<'R'
*filter
-A INPUT -j ACCEPT
R
ipt_restore_x <<'R'
*filter
-A nochain -j ACCEPT
COMMIT
R
