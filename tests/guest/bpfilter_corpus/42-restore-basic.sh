# shellcheck shell=bash
# restore a whole table
ipt -A INPUT -s 9.9.9.9 -j DROP
ipt_restore <<'R'
*filter
:INPUT DROP [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:tcp_in - [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -p tcp -j tcp_in
-A INPUT -p icmp --icmp-type echo-request -j ACCEPT
-A tcp_in -p tcp --dport 22 -j ACCEPT
-A tcp_in -p tcp -m multiport --dports 80,443 -j ACCEPT
-A OUTPUT -m comment --comment "from restore" -j ACCEPT
COMMIT
R
