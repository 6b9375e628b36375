# shellcheck shell=bash
# create and delete user chains
ipt -N alpha
ipt -N beta
ipt -N gamma
ipt_x -N beta
ipt_x -N INPUT
ipt -X beta
ipt_x -X beta
ipt -N delta
ipt -X
ipt -N epsilon
ipt -A epsilon -j ACCEPT
ipt_x -X epsilon
