# shellcheck shell=bash
# a restore of 300 rules
{
	echo '*filter'
	echo ':INPUT ACCEPT [0:0]'
	echo ':FORWARD ACCEPT [0:0]'
	echo ':OUTPUT ACCEPT [0:0]'
	for i in $(seq 0 299); do
		echo "-A INPUT -s 10.$((i / 256)).$((i % 256)).0/24 -p tcp --dport $((1000 + i)) -j ACCEPT"
	done
	echo COMMIT
} >many.rules
ipt_restore many.rules
ipt -D INPUT 150
ipt -I INPUT 100 -j DROP
