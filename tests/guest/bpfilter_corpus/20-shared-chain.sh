# shellcheck shell=bash
# one chain reached from every hook
ipt -N common
ipt -N inner
ipt -A common -j inner
ipt -A inner -p icmp -j ACCEPT
ipt -A INPUT -j common
ipt -A FORWARD -j common
ipt -A OUTPUT -j common
ipt -N onlyout
ipt -A OUTPUT -j onlyout
ipt -A onlyout -j inner
ipt -N unreached
ipt -A unreached -j inner
