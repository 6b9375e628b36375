# shellcheck shell=bash
# interface names, wildcards and inversions
ipt -A INPUT -i eth0 -j ACCEPT
ipt -A INPUT -i eth+ -j ACCEPT
ipt -A INPUT -i + -j ACCEPT
ipt -A INPUT ! -i lo -j DROP
ipt -A OUTPUT -o veth+ -j ACCEPT
ipt -A OUTPUT ! -o ppp+ -j DROP
ipt -A FORWARD -i abcdefghijklmno -o br-123456789ab -j ACCEPT
ipt -A FORWARD -i eth0.100 ! -o wg+ -j ACCEPT
ipt_x -A FORWARD -i abcdefghijklmnop -j ACCEPT
ipt_x -A INPUT -o eth0 -j ACCEPT
ipt_x -A OUTPUT -i eth0 -j ACCEPT
