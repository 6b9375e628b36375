# shellcheck shell=bash
# a restore with a loop fails as a whole
ipt -A INPUT -s 1.1.1.1 -j DROP
ipt_restore_x <<'R'
*filter
:INPUT ACCEPT [0:0]
:X - [0:0]
:Y - [0:0]
-A INPUT -j X
-A X -j Y
-A Y -j X
COMMIT
R
ipt_restore_x --noflush <<'R'
*filter
:Z - [0:0]
-A OUTPUT -j Z
-A Z -g Z
COMMIT
R
