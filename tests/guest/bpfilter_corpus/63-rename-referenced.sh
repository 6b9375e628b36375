# shellcheck shell=bash
# renaming a chain several rules refer to
ipt -N target
ipt -A INPUT -j target
ipt -A FORWARD -g target
ipt -A OUTPUT -p tcp -j target
ipt -A target -j RETURN
ipt -E target renamed
ipt -N zz
ipt -A zz -j renamed
ipt -E renamed aa
