# shellcheck shell=bash
# policies of the base chains
ipt -P INPUT DROP
ipt -P FORWARD DROP
ipt -P OUTPUT DROP
ipt -P OUTPUT ACCEPT
ipt -N user
ipt_x -P user DROP
ipt_x -P INPUT RETURN
ipt_x -P INPUT user
ipt -A INPUT -j ACCEPT
