#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kdebug_check.sh BUILD_DIR: runs INSIDE a debug-kernel guest (run.sh
# --debug) after the suites.  Prints TAP: the debug options are really on
# (a kernel that lost one would pass everything while checking nothing),
# and the kernel reported no memory error, locking problem, sleep in
# atomic context or leak.  Each report found is printed as TAP comments.
#
# Shown to fail, by hand, with a throwaway module (not kept: a suite that
# must produce reports cannot share a boot with the clean ones) loaded once
# per bug between kdebug_baseline.sh and this script: a read after kfree()
# gave "BUG: KASAN: use-after-free" (test 4) and turned lockdep off (test
# 2); a dropped kmalloc(128) was kmemleak's "unreferenced object" (test 5);
# msleep() under a spinlock gave "BUG: scheduling while atomic"; in a
# second boot, AB-BA mutexes gave "WARNING: possible circular locking
# dependency detected" and kmalloc(GFP_KERNEL) under a spinlock "BUG:
# sleeping function called from invalid context" (test 4, test 2).
set -u
: "${1:?usage: kdebug_check.sh BUILD_DIR}"
# shellcheck source=tests/guest/lib.sh
. "$(dirname "$0")/lib.sh"
KML=/sys/kernel/debug/kmemleak
ST=/tmp/umh-kdebug

# What counts as a report: KASAN, lockdep (every "WARNING: ..." it prints,
# RCU checking included), sleep-in-atomic, and the lock debugging BUGs.
REPORTS='BUG: KASAN|WARNING: possible circular locking|possible recursive locking|BUG: sleeping function called from invalid context|BUG: scheduling while atomic|inconsistent lock state|WARNING: possible irq lock inversion|WARNING: .*lock.* held|WARNING: suspicious RCU usage|WARNING: bad unlock balance|BUG: held lock freed|INFO: trying to register non-static key|DEBUG_LOCKS_WARN_ON|BUG: MAX_LOCK|BUG: spinlock|BUG: rwlock|BUG: workqueue leaked lock'

test_kasan_on() {
	dmesg | grep -q 'KernelAddressSanitizer initialized' ||
		fail "no 'KernelAddressSanitizer initialized' in dmesg"
}
# debug_locks drops to 0 when lockdep turns itself off (after its first
# report, or when it runs out of room): then it validates nothing more.
test_lockdep_on() {
	[ -r /proc/lockdep ] || fail "no /proc/lockdep: lockdep not built in"
	grep -q 'debug_locks: *1' /proc/lockdep_stats ||
		fail "lockdep is off: $(grep debug_locks /proc/lockdep_stats)"
}
test_kmemleak_on() {
	[ -w "$KML" ] || fail "no writable $KML"
	[ -f "$ST/boot-leaks" ] || fail "kdebug_baseline.sh did not run"
	# A disabled kmemleak refuses the write.
	echo scan >"$KML" 2>&1 || fail "kmemleak refuses to scan (disabled? see dmesg)"
}
# Print each report with the 20 lines that follow it (the call trace).
test_no_reports() {
	local start out
	start=$(cat "$ST/dmesg-start" 2>/dev/null || echo 0)
	out=$(dmesg | awk -v re="$REPORTS" -v start="$start" '
		$0 ~ re { left = 21; where = NR <= start ? "boot" : "suites"
			print "---- during " where ":" }
		left > 0 { print; left-- }')
	[ -z "$out" ] || fail "$out"
}
# Reports only objects lost since the baseline's clear.  Objects younger
# than 5 s are skipped, so wait that long first; then scan twice: an
# object whose only pointer was in a register or in flight during one scan
# is found referenced in the next, and kmemleak lists only objects the
# latest scan still found unreferenced.
test_no_leaks() {
	local out
	sleep 6
	echo scan >"$KML" || fail "scan failed"
	sleep 1
	echo scan >"$KML" || fail "scan failed"
	out=$(cat "$KML")
	[ -z "$out" ] || fail "$out"
}

# The kernel carries the in-tree series (scripts/debug-kernel.sh) with
# echo_boot built in: its late initcall started the helper and called it
# before init ran, and the helper is still up, with its status view.
test_builtin_boot() {
	local at run pid state
	at=$(grep -n 'echo_boot: helper pid [0-9]* answered a ping during boot' "$ST/boot-dmesg" |
		head -n 1 | cut -d: -f1)
	run=$(grep -n 'Run .* as init process' "$ST/boot-dmesg" | head -n 1 | cut -d: -f1)
	[ -n "$at" ] || fail "no answer from echo_boot in the boot log: $(grep -E 'echo_boot|umh' "$ST/boot-dmesg")"
	[ -n "$run" ] || fail "no 'Run ... as init process' in the boot log"
	[ "$at" -lt "$run" ] || fail "echo_boot answered at line $at, init ran at line $run"
	state=$(cat /sys/kernel/umh_echo_boot/state 2>&1)
	pid=$(cat /sys/kernel/umh_echo_boot/pid 2>&1)
	[ "$state" = running ] || fail "/sys/kernel/umh_echo_boot/state: $state"
	[ "$(cat "/proc/$pid/comm" 2>&1)" = echo_boot ] || fail "helper pid $pid: comm $(cat "/proc/$pid/comm" 2>&1)"
	echo "$(sed -n "${at}p" "$ST/boot-dmesg")"
}

t "debug kernel: the built-in echo_boot helper answered during boot, before init; still running" test_builtin_boot
t "debug kernel: KASAN is on" test_kasan_on
t "debug kernel: lockdep is on and still validating" test_lockdep_on
t "debug kernel: kmemleak is on" test_kmemleak_on
t "debug kernel: no KASAN, lockdep, RCU or sleep-in-atomic report in dmesg" test_no_reports
t "debug kernel: no kmemleak report after the suites" test_no_leaks

echo "1..$n"
[ "$failed" -eq 0 ]
