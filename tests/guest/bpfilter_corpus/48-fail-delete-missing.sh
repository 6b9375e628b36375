# shellcheck shell=bash
# deleting what does not exist
ipt -A INPUT -s 1.2.3.4 -j DROP
ipt_x -D INPUT -s 1.2.3.5 -j DROP
ipt_x -D INPUT -s 1.2.3.4 -j ACCEPT
ipt_x -D missing -j DROP
ipt_x -D INPUT 2
ipt_x -X missing
ipt_x -X INPUT
