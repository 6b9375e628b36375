# shellcheck shell=bash
# tcp ports and port ranges
ipt -A INPUT -p tcp --dport 22 -j ACCEPT
ipt -A INPUT -p tcp --sport 1024:65535 --dport 80 -j ACCEPT
ipt -A INPUT -p tcp --dport :1023 -j DROP
ipt -A INPUT -p tcp --sport 1024: -j ACCEPT
ipt -A INPUT -p tcp --dport 0 -j DROP
ipt -A INPUT -p tcp --dport 65535 -j DROP
ipt -A INPUT -p tcp --dport 8000:8000 -j DROP
ipt -A INPUT -p tcp --dport ssh -j ACCEPT
ipt -A INPUT -p tcp --destination-port https -j ACCEPT
ipt -A INPUT -p tcp -m tcp --source-port 53 -j ACCEPT
ipt_x -A INPUT -p tcp --dport 9000:8000 -j DROP
ipt_x -A INPUT -p tcp --dport 70000 -j DROP
