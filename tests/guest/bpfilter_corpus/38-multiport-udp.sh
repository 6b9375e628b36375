# shellcheck shell=bash
# multiport with udp
ipt -A INPUT -p udp -m multiport --dports 53,67,68,123 -j ACCEPT
ipt -A INPUT -p udp -m multiport --sports 500,4500 -j ACCEPT
ipt -A INPUT -p udp -m multiport --ports 10000:20000 -j ACCEPT
ipt -C INPUT -p udp -m multiport --sports 500,4500 -j ACCEPT
