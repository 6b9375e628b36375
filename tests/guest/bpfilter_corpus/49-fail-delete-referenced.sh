# shellcheck shell=bash
# deleting a chain still referenced or not empty
ipt -N used
ipt -A INPUT -j used
ipt_x -X used
ipt -N full
ipt -A full -j ACCEPT
ipt_x -X full
ipt -D INPUT -j used
ipt -X used
ipt -F full
ipt -X full
