# shellcheck shell=bash
# restore replacing a large table by a small one
{
	echo '*filter'
	echo ':a - [0:0]'
	for i in $(seq 1 50); do echo "-A a -s 1.1.1.$i -m comment --comment rule$i -j DROP"; done
	echo '-A INPUT -j a'
	echo COMMIT
} >big.rules
ipt_restore -c big.rules
ipt_restore <<'R'
*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -j ACCEPT
COMMIT
R
