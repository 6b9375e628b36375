# shellcheck shell=bash
# inverted multiport lists
ipt -A INPUT -p tcp -m multiport ! --dports 22,80 -j DROP
ipt -A INPUT -p tcp -m multiport ! --ports 1000:2000 -j DROP
ipt -A INPUT -p udp -m multiport ! --sports 53,67 -j DROP
ipt -D INPUT -p tcp -m multiport ! --ports 1000:2000 -j DROP
