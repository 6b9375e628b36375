# SPDX-License-Identifier: GPL-2.0
#
# lib.sh: what the guest suites share (sourced): TAP output, the test
# runner, and probes of helper processes and of the status view in $S.

n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1))
	echo "not ok $n - $1"
	sed 's/^/# /' <<<"$2"
}
# t NAME FUNCTION: run one test, its output becomes the diagnostic.
t() {
	local out
	if out=$("$2" 2>&1); then ok "$1"; else not_ok "$1" "$out"; fi
}
# Each test runs in a subshell ($(...) in t), so fail ends just that test.
fail() { echo "$*"; exit 1; }

# Pids of running umh-sdk helpers: their exe is the unlinked shmem copy.
helper_pids() {
	local d l
	for d in /proc/[0-9]*; do
		l=$(readlink "$d/exe" 2>/dev/null) || continue
		case $l in /umh-*) echo "${d#/proc/}" ;; esac
	done
}
no_helpers() {
	local p
	p=$(helper_pids)
	[ -z "$p" ] || fail "helper processes left: $p"
}
wait_for() {	# wait_for SECONDS COMMAND...: poll until COMMAND succeeds
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.05
	done
}
state_is() { [ "$(cat $S/state 2>/dev/null)" = "$1" ]; }
pid_changed() { local p; p=$(cat $S/pid 2>/dev/null); [ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$1" ]; }

test_dmesg_clean() {
	local bad
	bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|soft lockup|hard LOCKUP|hung_task|blocked for more than|general protection|Call Trace|refcount_t:|list_(add|del) corruption')
	[ -z "$bad" ] || fail "$bad"
}
