# shellcheck shell=bash
# insert at the head, in the middle, at the end, beyond it
ipt -A INPUT -s 1.1.1.1 -j ACCEPT
ipt -A INPUT -s 2.2.2.2 -j ACCEPT
ipt -I INPUT -s 3.3.3.3 -j DROP
ipt -I INPUT 1 -s 4.4.4.4 -j DROP
ipt -I INPUT 3 -s 5.5.5.5 -j ACCEPT
ipt -I INPUT 6 -s 6.6.6.6 -j ACCEPT
ipt_x -I INPUT 8 -s 7.7.7.7 -j ACCEPT
ipt_x -I INPUT 0 -s 7.7.7.7 -j ACCEPT
ipt -I FORWARD -j DROP
ipt -I OUTPUT 1 -j ACCEPT
