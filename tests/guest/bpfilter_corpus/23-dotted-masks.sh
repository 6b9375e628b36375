# shellcheck shell=bash
# masks in dotted form, also non-contiguous
ipt -A INPUT -s 10.0.0.0/255.0.0.0 -j ACCEPT
ipt -A INPUT -s 10.20.0.30/255.255.0.255 -j ACCEPT
ipt -A INPUT -d 1.2.3.4/0.0.0.255 -j DROP
ipt -A INPUT -d 1.2.3.4/255.255.255.254 -j DROP
ipt -A OUTPUT -s 8.8.8.8/0.0.0.0 -j ACCEPT
