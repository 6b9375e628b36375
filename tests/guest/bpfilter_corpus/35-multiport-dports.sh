# shellcheck shell=bash
# multiport destination port lists
ipt -A INPUT -p tcp -m multiport --dports 80,443 -j ACCEPT
ipt -A INPUT -p tcp -m multiport --dports 22,25,110,143,993,995 -j ACCEPT
ipt -A INPUT -p tcp -m multiport --dports 8000:8080,9000 -j ACCEPT
ipt -A INPUT -p tcp -m multiport --dports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 -j DROP
ipt -A INPUT -p tcp -m multiport --dports http,https -j ACCEPT
ipt_x -A INPUT -p tcp -m multiport --dports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 -j DROP
