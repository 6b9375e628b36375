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
# t NAME FUNCTION [ARG...]: run one test, its output becomes the diagnostic.
t() {
	local out t0=$EPOCHREALTIME
	if out=$("$2" "${@:3}" 2>&1); then ok "$1"; else not_ok "$1" "$out"; fi
	[ -z "${UMH_TIMES-}" ] || echo "# $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
}
# On the debug kernel (run.sh --debug exports UMH_DEBUG_KERNEL=1) a fork
# and exec costs several times what it does on Debian's kernels.  Every
# suite still runs every test there; a few trim what only repeats the same
# kernel paths (Documentation/testing.rst lists what and why).
debug_kernel() { [ "${UMH_DEBUG_KERNEL:-0}" = 1 ]; }
# Each test runs in a subshell ($(...) in t), so fail ends just that test.
fail() { echo "$*"; exit 1; }

# Pids of running umh-sdk helpers: their exe is the unlinked shmem copy.
# One find, not a readlink per process: on the debug kernel every fork and
# exec costs a good fraction of a second.
helper_pids() {
	find /proc -mindepth 2 -maxdepth 2 -name exe -lname '/umh-*' \
		-printf '%h\n' 2>/dev/null | sed 's|^/proc/||'
}
# Reader threads of umh-sdk helpers (comm umh-<name>), as /proc/<pid>/comm
# paths: all but that of the debug kernel's built-in echo_boot, whose
# helper runs from boot to power-off.
umh_readers() {
	local f
	for f in $(grep -l '^umh-' /proc/[0-9]*/comm 2>/dev/null); do
		[ "$(cat "$f" 2>/dev/null)" = umh-echo_boot ] || echo "$f"
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
# A marker line written to the kernel log, not a line count: once the ring
# buffer is full (after the bpfilter suites) counting its lines marks
# nothing.  No mark yet: the whole log.
mark=
dmesg_since_mark() {
	if [ -z "$mark" ]; then dmesg; return; fi
	dmesg | awk -v m="$mark" 'seen { print } index($0, m) { seen = 1 }'
}
dmesg_has() { dmesg_since_mark | grep -q -- "$1"; }
dmesg_hasE() { dmesg_since_mark | grep -qE -- "$1"; }
set_mark() { mark="umh-test mark $$.$RANDOM.$SECONDS"; echo "$mark" >/dev/kmsg; }

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
	# KASAN's quarantine keeps freed slab objects allocated for a while
	# (up to 1/32 of RAM), so on the debug kernel slab counts say nothing;
	# there kmemleak shows that nothing was lost (kdebug_check.sh).
	debug_kernel && return 0
	[ "$u1" -le $((u0 + ${3:-2048})) ] || fail "unreclaimable slab: $u0 -> $u1 kB"
	[ "$d1" -le $((d0 + 32)) ] || fail "struct pid objects: $d0 -> $d1"
}

# (bash builtins only: these are polled, and a fork costs on the debug kernel)
state_is() { local s=; { read -r s <$S/state; } 2>/dev/null; [ "$s" = "$1" ]; }
pid_changed() { local p=; { read -r p <$S/pid; } 2>/dev/null; [ -n "$p" ] && [ "$p" != 0 ] && [ "$p" != "$1" ]; }

test_dmesg_clean() {
	local bad
	bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|soft lockup|hard LOCKUP|hung_task|blocked for more than|general protection|Call Trace|refcount_t:|list_(add|del) corruption')
	[ -z "$bad" ] || fail "$bad"
}
