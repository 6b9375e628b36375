# shellcheck shell=bash
# multiport --sports and --ports
ipt -A INPUT -p tcp -m multiport --sports 1024:2048,3000 -j ACCEPT
ipt -A INPUT -p tcp -m multiport --ports 22,80 -j ACCEPT
ipt -A OUTPUT -p tcp -m multiport --source-ports 53,853 -j ACCEPT
ipt -A OUTPUT -p tcp -m multiport --destination-ports 1:100,200:300,400 -j ACCEPT
ipt -A INPUT -p tcp -m multiport --sports 1:2 -m multiport --dports 3:4 -j DROP
