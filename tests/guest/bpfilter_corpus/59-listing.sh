# shellcheck shell=bash
# listing forms
ipt -N user
ipt -A INPUT -c 3 33 -p tcp --dport 22 -j ACCEPT
ipt -A INPUT -j user
ipt -A user -s 10.0.0.0/8 -j RETURN
ipt -L INPUT --line-numbers -n -v
ipt -L INPUT 2 -n
ipt -S INPUT
ipt -S INPUT 1
ipt -S user
ipt -L user -n -x -v
ipt -L -n --line-numbers
ipt -S -v
ipt_x -L missing
ipt_save
ipt_save -t filter -c
