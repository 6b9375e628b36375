# shellcheck shell=bash
# comments with odd characters, the longest one, and one too long (iptables truncates it)
ipt -A INPUT -m comment --comment 'double "quotes" inside' -j ACCEPT
ipt -A INPUT -m comment --comment "single 'quotes' inside" -j ACCEPT
ipt -A INPUT -m comment --comment 'back\slash and $dollar and `tick`' -j ACCEPT
ipt -A INPUT -m comment --comment 'ünïcödé – ✓' -j ACCEPT
ipt -A INPUT -m comment --comment 'tab	and  two spaces' -j ACCEPT
ipt -A INPUT -m comment --comment '-A INPUT -j DROP # not a rule' -j ACCEPT
ipt -A INPUT -m comment --comment "$(printf 'x%.0s' $(seq 1 255))" -j ACCEPT
ipt -A INPUT -m comment --comment '' -j ACCEPT
ipt -A INPUT -m comment --comment "$(printf 'y%.0s' $(seq 1 256))" -j ACCEPT
