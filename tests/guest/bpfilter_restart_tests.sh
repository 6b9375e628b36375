#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpfilter_restart_tests.sh BUILD_DIR: the bpfilter helper is killed while
# iptables-legacy changes the ruleset, at random points; no change that
# iptables reported as done may be lost, and the ruleset iptables sees must
# stay one that iptables-legacy-save and -restore agree on.  TAP output.
set -uo pipefail

B=${1:?usage: bpfilter_restart_tests.sh BUILD_DIR}
. "$(dirname "$0")/lib.sh"
S=/sys/module/bpfilter/umh_bpfilter
IPT=iptables-legacy
# 15 rounds on the debug kernel, where each takes about 4 s (a helper
# start, the table replayed, a program compiled and verified under KASAN)
if debug_kernel; then ROUNDS=${BPF_RESTART_ROUNDS:-15}; else ROUNDS=${BPF_RESTART_ROUNDS:-40}; fi
echo "# bpfilter restart tests on $(uname -r)"

save() { iptables-legacy-save -c | grep -v '^#'; }

test_load() {
	insmod "$B/samples/bpfilter/bpfilter.ko" max_restarts=1000 \
		restart_window_ms=1000 || fail "insmod failed: $(dmesg | tail -n 3)"
	state_is running || fail "state $(<$S/state)"
}

# Counters set through restore -c live only in the helper and the
# module's copy: a kill must not reset them.
test_counters_survive() {
	local before after pid
	iptables-legacy-restore -c <<-EOF || fail "restore failed"
	*filter
	:INPUT ACCEPT [11:2222]
	:FORWARD DROP [3:444]
	:OUTPUT ACCEPT [0:0]
	:keep - [0:0]
	[5:600] -A INPUT -p tcp -m tcp --dport 22 -j keep
	[7:800] -A keep -s 192.0.2.0/24 -j RETURN
	COMMIT
	EOF
	before=$(save)
	grep -q '\[7:800\] -A keep' <<<"$before" || fail "counters not set: $before"
	pid=$(<$S/pid)
	kill -9 "$pid"
	wait_for 10 pid_changed "$pid" || fail "helper not restarted"
	after=$(save)
	[ "$before" = "$after" ] || fail "$(diff <(echo "$before") <(echo "$after"))"
}

# Each round appends a rule and kills the helper a random moment later.
# A command that exited 0 must have its rule in the final table; a failed
# one may or may not (iptables fails after a replace when the helper dies
# before the counters call).  Every rule present must be one we added.
test_kill_during_changes() {
	local i pid rc ok_rules=() failed=0 final missing extra r
	for ((i = 1; i <= ROUNDS; i++)); do
		$IPT -A INPUT -s "10.$((i / 250)).$((i % 250)).0/24" -j ACCEPT \
			>/dev/null 2>&1 &
		sleep "$(printf "0.%03d" $((RANDOM % 150)))"
		pid=$(<$S/pid)
		[ "$pid" != 0 ] && kill -9 "$pid" 2>/dev/null
		wait $!
		rc=$?
		if [ $rc -eq 0 ]; then
			ok_rules+=("10.$((i / 250)).$((i % 250)).0/24")
		else
			failed=$((failed + 1))
		fi
		wait_for 10 state_is running || fail "round $i: state $(<$S/state)"
	done
	echo "# $ROUNDS rounds: ${#ok_rules[@]} commands succeeded, $failed failed" \
		>/tmp/bpf_restart_stats
	final=$($IPT -S INPUT) || fail "iptables -S failed"
	missing=
	for r in "${ok_rules[@]}"; do
		grep -qxF -- "-A INPUT -s $r -j ACCEPT" <<<"$final" || missing+=" $r"
	done
	[ -z "$missing" ] || fail "rules reported added but lost:$missing"
	extra=$(grep -v -e '^-P' -e '^-A INPUT -s 10\.' -e '^-A INPUT -p tcp -m tcp --dport 22 -j keep$' <<<"$final")
	[ -z "$extra" ] || fail "unexpected rules: $extra"
	echo "# restarts: $(<$S/restarts)" >>/tmp/bpf_restart_stats
}

# After all that, the table still round-trips through save and restore.
test_round_trip() {
	local a b
	a=$(save)
	iptables-legacy-restore -c <<<"$a" || fail "restore of the saved table failed"
	b=$(save)
	[ "$a" = "$b" ] || fail "$(diff <(echo "$a") <(echo "$b"))"
}

test_unload() {
	rmmod bpfilter || fail "rmmod failed"
	wait_for 5 no_helpers || no_helpers
}

t "load bpfilter with a high restart cap" test_load
t "counters set by restore -c survive a helper kill" test_counters_survive
t "kills during $ROUNDS changes lose no change iptables reported done" test_kill_during_changes
cat /tmp/bpf_restart_stats 2>/dev/null
t "the table round-trips through save and restore -c" test_round_trip
t "rmmod leaves no helper" test_unload
t "dmesg has no warnings, oopses or lockups" test_dmesg_clean
echo "1..$n"
[ "$failed" -eq 0 ]
