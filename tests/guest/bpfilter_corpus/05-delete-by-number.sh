# shellcheck shell=bash
# delete by rule number, in range and out of it
for i in 1 2 3 4 5; do ipt -A INPUT -s 10.0.0.$i -j DROP; done
ipt -D INPUT 3
ipt -D INPUT 1
ipt -D INPUT 3
ipt_x -D INPUT 3
ipt_x -D INPUT 0
ipt_x -D FORWARD 1
