# shellcheck shell=bash
# replace rules by number
ipt -A INPUT -s 1.1.1.1 -j ACCEPT
ipt -A INPUT -s 2.2.2.2 -j ACCEPT
ipt -A INPUT -s 3.3.3.3 -j ACCEPT
ipt -R INPUT 2 -p tcp --dport 80 -j DROP
ipt -R INPUT 1 -d 9.9.9.9 -j DROP
ipt -R INPUT 3 -j RETURN
ipt_x -R INPUT 4 -j ACCEPT
ipt_x -R OUTPUT 1 -j ACCEPT
