# shellcheck shell=bash
# twenty rules in one chain
for i in $(seq 1 20); do
	ipt -A INPUT -s 10.0.$i.0/24 -j DROP
done
ipt -A OUTPUT -d 192.168.1.1 -j ACCEPT
