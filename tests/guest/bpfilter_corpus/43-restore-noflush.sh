# shellcheck shell=bash
# restore --noflush onto existing rules
ipt -A INPUT -s 1.1.1.1 -j DROP
ipt -N keep
ipt -A keep -j ACCEPT
ipt_restore --noflush <<'R'
*filter
:added - [0:0]
-A INPUT -s 2.2.2.2 -j added
-I INPUT 1 -s 3.3.3.3 -j DROP
-A added -j RETURN
-A keep -p udp -j DROP
COMMIT
R
ipt_restore -n <<'R'
*filter
-D INPUT -s 1.1.1.1 -j DROP
-A OUTPUT -j ACCEPT
COMMIT
R
