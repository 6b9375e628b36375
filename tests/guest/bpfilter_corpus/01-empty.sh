# shellcheck shell=bash
# the fresh table as the tools list it
ipt -S
ipt -L -n
ipt -L -n -v -x --line-numbers
ipt_save -c
