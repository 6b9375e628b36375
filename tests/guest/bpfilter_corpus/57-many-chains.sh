# shellcheck shell=bash
# sixty user chains, each jumped to
{
	echo '*filter'
	for i in $(seq 1 60); do echo ":chain$i - [0:0]"; done
	for i in $(seq 1 60); do
		echo "-A INPUT -s 10.0.$i.0/24 -j chain$i"
		echo "-A chain$i -p udp --dport $i -j ACCEPT"
		[ $i -gt 1 ] && echo "-A chain$((i - 1)) -g chain$i"
	done
	echo COMMIT
} >chains.rules
ipt_restore chains.rules
ipt -F chain30
ipt -D chain29 -g chain30
ipt -D INPUT -s 10.0.30.0/24 -j chain30
ipt -X chain30
