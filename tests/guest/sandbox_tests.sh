#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The helper sandbox, in a guest: the echo sample's helpers (glibc and
# musl) and the bpfilter sample's run with no_new_privs, a seccomp filter,
# no capability and non-dumpable; ptrace and /proc/<pid>/mem are refused; a
# helper that makes a forbidden system call is killed with SIGSYS, which the
# kernel side reports and counts before it restarts the helper.  Runs INSIDE
# a test guest as root; $1 is the build tree.  Prints TAP lines.
set -u

B=${1:?usage: sandbox_tests.sh BUILD_DIR}
TM=$B/tests/modules
PT=$B/umh_ptrace
CLIENT=$B/echo_client
S=/sys/module/echo_umh/umh_echo
. "$(dirname "$0")/lib.sh"

mark=0
dmesg_since_mark() { dmesg | awk -v m="$mark" 'NR > m'; }
set_mark() { mark=$(dmesg | wc -l); }

# confined PID: /proc/PID/status shows the echo-style sandbox
confined() {
	local st=/proc/$1/status f
	[ -r "$st" ] || fail "no $st"
	grep -qx 'NoNewPrivs:[[:space:]]*1' "$st" || fail "$(grep NoNewPrivs "$st")"
	grep -qx 'Seccomp:[[:space:]]*2' "$st" || fail "$(grep Seccomp: "$st")"
	for f in CapInh CapPrm CapEff CapBnd CapAmb; do
		grep -qx "$f:[[:space:]]*0000000000000000" "$st" ||
			fail "$(grep "^$f" "$st")"
	done
}

# ---- tests ----

test_echo_status() {
	insmod "$B/samples/echo_umh/echo_umh.ko" || fail "insmod echo_umh"
	local pid
	pid=$(<$S/pid)
	confined "$pid"
	[ "$(<$S/sandbox)" = "seccomp=filter no_new_privs=1 cap_eff=0000000000000000" ] ||
		fail "sysfs sandbox: $(<$S/sandbox)"
	[ "$(<$S/sandbox_kills)" = 0 ] || fail "sandbox_kills $(<$S/sandbox_kills)"
}

# Every op of the echo sample still works under its sandbox.
test_echo_ops() {
	"$CLIENT" ping >/dev/null || fail "ping"
	[ "$("$CLIENT" add 40 2)" = 42 ] || fail "add"
	"$CLIENT" echo 1048576 || fail "echo 1 MiB"
	"$CLIENT" sink 1000000 || fail "sink"
	"$CLIENT" sleep 50 || fail "sleep (nanosleep/clock_nanosleep)"
	"$CLIENT" tag sandboxed >/dev/null || fail "tag"
	[ "$(<$S/sandbox_kills)" = 0 ] || fail "sandbox_kills $(<$S/sandbox_kills)"
	[ "$(<$S/restarts)" = 0 ] || fail "restarts $(<$S/restarts)"
}

# Root without CAP_SYS_PTRACE: uid and capabilities would allow it, only
# the helper's being non-dumpable refuses.  Then an ordinary user.
test_ptrace_nocap() { "$PT" nocap "$(<$S/pid)"; }
test_ptrace_user() { "$PT" user "$(<$S/pid)"; }

test_no_core() {
	local pid
	pid=$(<$S/pid)
	# A dumpable process would dump core on SIGSEGV, a non-dumpable does not.
	kill -SEGV "$pid"
	wait_for 5 pid_changed "$pid" || fail "no restart after SIGSEGV"
	wait_for 5 state_is running || fail "state $(<$S/state)"
	dmesg | grep -q "helper pid $pid killed by signal 11\$" ||
		fail "no 'killed by signal 11' line (core dumped?): $(dmesg | grep "pid $pid")"
	confined "$(<$S/pid)"
	rmmod echo_umh || fail "rmmod"
}

test_musl_status() {
	insmod "$B/musl/samples/echo_umh/echo_umh.ko" || fail "insmod musl echo_umh"
	confined "$(<$S/pid)"
	"$CLIENT" sleep 20 || fail "sleep"
	"$CLIENT" echo 100000 || fail "echo"
	"$PT" nocap "$(<$S/pid)" || fail "ptrace"
	[ "$(<$S/sandbox_kills)" = 0 ] || fail "sandbox_kills $(<$S/sandbox_kills)"
	rmmod echo_umh || fail "rmmod"
}

# Each forbidden call kills the helper with SIGSYS; the kernel says so,
# counts it and starts a fresh helper (checked by the module's init).
test_forbidden() {
	local S=/sys/module/forbidden/umh_forbidden n
	set_mark
	insmod "$TM/forbidden.ko" || fail "insmod forbidden: $(dmesg_since_mark)"
	dmesg_since_mark | grep -q "6 of 6 forbidden cases handled" ||
		fail "$(dmesg_since_mark)"
	n=$(dmesg_since_mark | grep -c "umh: forbidden: helper pid [0-9]* killed by seccomp (SIGSYS): system call not allowed by its sandbox")
	[ "$n" = 5 ] || fail "$n SIGSYS lines: $(dmesg_since_mark)"
	dmesg_since_mark | grep -q "umh: forbidden: helper pid [0-9]* killed by signal 6" ||
		fail "abort() not reported as signal 6: $(dmesg_since_mark)"
	dmesg_since_mark | grep -q "was allowed" && fail "a forbidden call went through: $(dmesg_since_mark)"
	[ "$(<$S/sandbox_kills)" = 5 ] || fail "sandbox_kills $(<$S/sandbox_kills), expected 5 (abort is not one)"
	[ "$(<$S/restarts)" = 6 ] || fail "restarts $(<$S/restarts)"
	state_is running || fail "state $(<$S/state)"
	confined "$(<$S/pid)"
	rmmod forbidden || fail "rmmod forbidden"
}

# The bpfilter sample: its helper is confined and still serves iptables.
test_bpfilter() {
	local S=/sys/module/bpfilter/umh_bpfilter out
	insmod "$B/samples/bpfilter/bpfilter.ko" || fail "insmod bpfilter"
	confined "$(<$S/pid)"
	out=$(iptables-legacy -A INPUT -s 10.0.0.1 -j DROP 2>&1 &&
	      iptables-legacy -S INPUT 2>&1) || fail "iptables: $out"
	grep -q -- "-A INPUT -s 10.0.0.1/32 -j DROP" <<<"$out" || fail "$out"
	[ "$(<$S/sandbox_kills)" = 0 ] || fail "sandbox_kills $(<$S/sandbox_kills)"
	[ "$(<$S/restarts)" = 0 ] || fail "restarts $(<$S/restarts)"
	rmmod bpfilter || fail "rmmod bpfilter"
}

t "echo helper: NoNewPrivs 1, Seccomp 2, every capability set empty; sysfs sandbox view" test_echo_status
t "echo helper: every op works under its sandbox" test_echo_ops
t "echo helper: root without CAP_SYS_PTRACE cannot ptrace it or read its memory" test_ptrace_nocap
t "echo helper: an ordinary user cannot ptrace it or read its memory" test_ptrace_user
t "echo helper: SIGSEGV leaves no core (non-dumpable), restart is confined too" test_no_core
t "musl echo helper: confined the same way, ops work, ptrace refused" test_musl_status
t "forbidden syscalls: SIGSYS reported in dmesg, counted in sandbox_kills, helper restarted" test_forbidden
if ! command -v iptables-legacy >/dev/null; then
	ok "# SKIP bpfilter helper: no iptables-legacy in the guest"
elif lsmod | grep -q '^ip_tables'; then
	ok "# SKIP bpfilter helper: ip_tables owns the iptables ABI"
else
	t "bpfilter helper: confined, and iptables-legacy still works through it" test_bpfilter
fi
t "no kernel warnings" test_dmesg_clean
no_helpers >/dev/null 2>&1 || echo "# helpers left: $(helper_pids)"
echo "1..$n"
[ "$failed" -eq 0 ]
