#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpfilter_builtin_tests.sh BUILD_DIR: runs INSIDE a guest of the debug
# kernel with the bpfilter sample built in (run.sh --debug-builtin,
# scripts/debug-kernel-builtin.sh), as the first thing user space does
# after the guest's init.  Prints TAP lines.
#
# Built in, bpfilter's initcall started its helper, loaded the initial
# table's program and took the iptables sockopt range before init ran: the
# very first iptables-legacy command, with no module loaded and nothing
# prepared, must be served by it, and the rule enforced.
set -u
: "${1:?usage: bpfilter_builtin_tests.sh BUILD_DIR}"
# shellcheck source=tests/guest/lib.sh
. "$(dirname "$0")/lib.sh"
V=/sys/kernel/umh_bpfilter

# The first command, before anything else runs (each test below is a
# subshell that only looks at what it did).
first_out=$(iptables-legacy -w -A OUTPUT -o lo -p udp --dport 9 -j DROP 2>&1)
first_rc=$?
boot=$(dmesg)

test_first_command() {
	[ "$first_rc" = 0 ] || fail "exit status $first_rc: $first_out"
	[ ! -e /sys/module/ip_tables ] || fail "ip_tables was loaded: the rule went there"
	[ "$(cat /proc/net/ip_tables_names 2>&1)" = filter ] ||
		fail "/proc/net/ip_tables_names: $(cat /proc/net/ip_tables_names 2>&1)"
}
test_started_before_init() {
	local at run state pid
	at=$(grep -n 'bpfilter: serving the iptables filter table (helper pid [0-9]*)' <<<"$boot" |
		head -n 1 | cut -d: -f1)
	run=$(grep -n 'Run .* as init process' <<<"$boot" | head -n 1 | cut -d: -f1)
	[ -n "$at" ] || fail "bpfilter did not say it serves: $(grep -E 'bpfilter|umh' <<<"$boot")"
	[ -n "$run" ] || fail "no 'Run ... as init process' in the boot log"
	[ "$at" -lt "$run" ] || fail "bpfilter served from line $at, init ran at line $run"
	state=$(cat $V/state 2>&1)
	pid=$(cat $V/pid 2>&1)
	[ "$state" = running ] || fail "$V/state: $state"
	[ "$(cat "/proc/$pid/comm" 2>&1)" = bpfilter ] ||
		fail "helper pid $pid: comm $(cat "/proc/$pid/comm" 2>&1)"
	sed -n "${at}p" <<<"$boot"
}
# bash's /dev/udp: a connected UDP socket and one write; a DROP at
# LOCAL_OUT makes the write fail with EPERM.
udp_send() { (echo x >"/dev/udp/127.0.0.1/$1") 2>&1; }
test_enforced() {
	local out
	out=$(udp_send 9) && fail "UDP to port 9 was sent despite the rule"
	grep -q 'Operation not permitted' <<<"$out" || fail "UDP to port 9: $out"
	out=$(udp_send 10) || fail "UDP to port 10, which no rule matches, failed: $out"
}
test_listed_and_counted() {
	local out
	out=$(iptables-legacy -w -S OUTPUT 2>&1) || fail "iptables-legacy -S: $out"
	grep -qx -- '-A OUTPUT -o lo -p udp -m udp --dport 9 -j DROP' <<<"$out" ||
		fail "the rule is not listed: $out"
	out=$(iptables-legacy -w -L OUTPUT -v -x -n 2>&1) || fail "iptables-legacy -L: $out"
	awk '$3 == "DROP" && $1 == 1 { found = 1 } END { exit !found }' <<<"$out" ||
		fail "the DROP rule did not count the one packet: $out"
}
test_flushed() {
	local out
	out=$(iptables-legacy -w -F OUTPUT 2>&1) || fail "iptables-legacy -F: $out"
	out=$(udp_send 9) || fail "UDP to port 9 still refused after the flush: $out"
}

t "bpfilter built in: the first iptables-legacy command of user space succeeds, served by it (no ip_tables)" test_first_command
t "bpfilter built in: its initcall started the helper and took the sockopts before init; the helper still runs" test_started_before_init
t "bpfilter built in: the rule is enforced at once (UDP to 127.0.0.1:9 refused with EPERM, port 10 sent)" test_enforced
t "bpfilter built in: iptables-legacy -S lists the rule, -L -v counts the dropped packet" test_listed_and_counted
t "bpfilter built in: after iptables-legacy -F the packet goes out" test_flushed

echo "1..$n"
[ "$failed" -eq 0 ]
