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
# The kernel log since set_mark.
mark=0
dmesg_since_mark() { dmesg | awk -v m="$mark" 'NR > m'; }
dmesg_has() { dmesg_since_mark | grep -q -- "$1"; }
dmesg_hasE() { dmesg_since_mark | grep -qE -- "$1"; }
set_mark() { mark=$(dmesg | wc -l); }

# snapshot: "processes open_files shmem_kB sunreclaim_kB pid_objects"
snapshot() {
	local procs files shmem unrecl pids
	# processes other than kernel threads (which come and go on their
	# own); helpers, children of kthreadd too, are counted by no_helpers
	procs=$(ps -e -o pid=,ppid= | awk '$1 != 2 && $2 != 2' | wc -l)
	files=$(cut -f1 /proc/sys/fs/file-nr)
	shmem=$(awk '/^Shmem:/ {print $2}' /proc/meminfo)
	unrecl=$(awk '/^SUnreclaim:/ {print $2}' /proc/meminfo)
	pids=$(awk '$1 == "pid" {print $2}' /proc/slabinfo)
	echo "$procs $files $shmem $unrecl $pids"
}

# footprint_back BEFORE AFTER [SUNRECLAIM_SLACK_KB]: AFTER (a snapshot)
# is back near BEFORE.  file-nr is a per-cpu counter, exact only to ~64.
footprint_back() {
	local p0 f0 s0 u0 d0 p1 f1 s1 u1 d1
	read -r p0 f0 s0 u0 d0 <<<"$1"
	read -r p1 f1 s1 u1 d1 <<<"$2"
	[ "$p1" -le "$p0" ] || fail "processes: $p0 -> $p1"
	[ "$f1" -le $((f0 + 64)) ] || fail "open files: $f0 -> $f1"
	[ "$s1" -le $((s0 + 64)) ] || fail "shmem: $s0 -> $s1 kB"
	[ "$u1" -le $((u0 + ${3:-2048})) ] || fail "unreclaimable slab: $u0 -> $u1 kB"
	[ "$d1" -le $((d0 + 32)) ] || fail "struct pid objects: $d0 -> $d1"
}

state_is() { [ "$(cat $S/state 2>/dev/null)" = "$1" ]; }
pid_changed() { local p; p=$(cat $S/pid 2>/dev/null); [ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$1" ]; }

test_dmesg_clean() {
	local bad
	bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|soft lockup|hard LOCKUP|hung_task|blocked for more than|general protection|Call Trace|refcount_t:|list_(add|del) corruption')
	[ -z "$bad" ] || fail "$bad"
}
