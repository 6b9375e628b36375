#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: run every test suite (user space first, then each guest kernel),
# print a line per test as it finishes, and end with how long each lane
# took and "N passed, M failed, K skipped".  A suite that dies before
# reporting all its tests counts as a failure; a test reported as "ok ...
# # SKIP reason" counts as skipped, not passed.
set -u
cd "$(dirname "$0")/.."

passed=0
failed=0
skipped=0
start=$SECONDS
times=()
# every failure with the first lines of its diagnostics, printed again at
# the end: a log read from its tail (as CI shows it) names what failed
fails=()

# mmss SECONDS
mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# run_suite LABEL COMMAND...: run a TAP-printing command, count its tests.
run_suite() {
	local label=$1 line rc=0 seen_fail=0 plan='' count=0 t0=${LANE_T0:-$SECONDS}
	local p0=$passed f0=$failed s0=$skipped diag=-1
	shift
	echo "== $label"
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"* | "ok "*"# skip"*)
			skipped=$((skipped + 1)); count=$((count + 1))
			echo "skip - $label: ${line#* - }" ;;
		"ok "*)
			passed=$((passed + 1)); count=$((count + 1))
			diag=-1
			echo "ok - $label: ${line#* - }" ;;
		"not ok "*)
			failed=$((failed + 1)); count=$((count + 1)); seen_fail=1
			fails+=("not ok - $label: ${line#* - }"); diag=0
			echo "not ok - $label: ${line#* - }" ;;
		"1.."*)	# one plan per suite run in the same command
			plan=$((${plan:-0} + ${line#1..})) ;;
		"__suite_rc "*)
			rc=${line#__suite_rc } ;;
		*)
			if [ $diag -ge 0 ] && [ $diag -lt 12 ]; then
				fails[${#fails[@]} - 1]+=$'\n'"      $line"
				diag=$((diag + 1))
			fi
			echo "    $line" ;;
		esac
	done < <("$@" 2>&1; echo "__suite_rc $?")
	if [ -n "$plan" ] && [ "$count" -ne "$plan" ]; then
		failed=$((failed + 1))
		fails+=("not ok - $label: ran $count of $plan tests")
		echo "not ok - $label: ran $count of $plan tests"
	elif [ "$rc" -ne 0 ] && [ $seen_fail -eq 0 ]; then
		failed=$((failed + 1))
		fails+=("not ok - $label: suite exited with status $rc")
		echo "not ok - $label: suite exited with status $rc"
	fi
	times+=("$(printf '%-22s %6s  %4d passed, %d failed, %d skipped' "$label" \
		"$(mmss $((SECONDS - t0)))" $((passed - p0)) $((failed - f0)) \
		$((skipped - s0)))")
	echo "== $label: $(mmss $((SECONDS - t0)))"
}

# The debug kernel (scripts/debug-kernel.sh) takes about ten minutes of
# both cores to build on a fresh machine.  Build it in the background, at
# the lowest CPU priority, so that it mostly uses what the lanes below leave
# idle (a TCG guest keeps about one core busy); the debug lane waits for it.
# setsid: its own process group, so that an interrupted check stops it.
# A new session is also a new scheduling group where the kernel groups
# tasks by session (CONFIG_SCHED_AUTOGROUP, on in Debian's kernels), and
# nice then ranks tasks only within their group: the group gets nice 19
# too, or the build takes a core's share from the guests.
# The packages come in two steps (scripts/setup.sh): what the debug kernel
# build needs, then, while it builds, the rest.
setup_or_die() {
	if ! scripts/setup.sh "$@"; then
		echo "not ok - setup: scripts/setup.sh $* failed (above)"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
}
setup_or_die --debug-kernel
dk_pid=
if ! scripts/debug-kernel.sh --cached 2>/dev/null; then
	mkdir -p build
	echo "== debug kernel: building it in the background (log: build/debug-kernel.log)"
	# (debug-kernel-builtin.sh builds the debug kernel first, then its
	# variant with bpfilter built in, incrementally.)
	setsid sh -c '{ echo 19 >/proc/self/autogroup; } 2>/dev/null; exec nice -n 19 "$0"' \
		scripts/debug-kernel-builtin.sh >build/debug-kernel.log 2>&1 &
	dk_pid=$! dk_t0=$SECONDS
	trap 'kill -- -$dk_pid 2>/dev/null' EXIT
fi
setup_or_die

run_suite "unit" make -s -C tests/unit check
run_suite "fuzz" make -s -C tests/fuzz check
run_suite "kbuild" tests/kbuild/run.sh
run_suite "lint" scripts/lint.sh
# The guest suites, run on each Debian kernel and on the debug kernel.
guest_suites=(echo tutorial sandbox hostile faults bpfilter bpfilter_restart
	bpfilter_compare bpfilter_dataplane bpfilter_hostile lifecycle)
for k in $(scripts/kernels.sh); do
	run_suite "guest $k" tests/guest/run.sh "$k" "${guest_suites[@]}"
done
# The same suites on a 6.1 kernel with KASAN, lockdep, DEBUG_ATOMIC_SLEEP and
# kmemleak (scripts/debug-kernel.sh: built on first use, ~10-15 minutes on
# 2 cores, then cached), plus a final check that the kernel reported nothing.
dk_ok=1
if [ -n "$dk_pid" ]; then
	echo "== debug kernel: waiting for the background build"
	if ! wait "$dk_pid"; then
		dk_ok=0
		failed=$((failed + 1))
		echo "not ok - debug kernel build failed; last lines of build/debug-kernel.log:"
		fails+=("not ok - debug kernel build failed (build/debug-kernel.log)")
		tail -n 20 build/debug-kernel.log | sed 's/^/    /'
	else
		echo "== debug kernel: built in $(mmss $((SECONDS - dk_t0))) (in the background)"
	fi
	trap - EXIT
fi
# The in-tree lane (tests/intree/run.sh) builds the series in two kernel
# trees: CPU work, 2 minutes with its caches and 6-8 on a fresh machine.
# The debug lanes below keep about one core busy, so it runs beside them,
# at the lowest priority as the kernel build did before it, and its output
# comes after theirs.
echo "== intree: started in the background, beside the debug lanes (its output follows them)"
mkdir -p build
setsid sh -c '{ echo 19 >/proc/self/autogroup; } 2>/dev/null; exec nice -n 19 "$0"' \
	tests/intree/run.sh >build/intree-lane.log 2>&1 &
it_pid=$! it_t0=$SECONDS
trap 'kill -- -$it_pid 2>/dev/null' EXIT
if ((dk_ok)); then
	run_suite "guest debug-6.1" tests/guest/run.sh --debug "${guest_suites[@]}"
	# The same kernel with the bpfilter sample built in: it serves the
	# first iptables-legacy command of user space (Documentation/in-tree.rst).
	run_suite "guest debug-6.1 builtin" tests/guest/run.sh --debug-builtin bpfilter_builtin
fi
wait "$it_pid"
it_rc=$?
trap - EXIT
replay() { cat "$1"; return "$2"; }
LANE_T0=$it_t0 run_suite "intree" replay build/intree-lane.log "$it_rc"

if [ ${#fails[@]} -gt 0 ]; then
	echo "== failed (each with the first lines it printed)"
	printf '%s\n' "${fails[@]}"
fi
echo "== time per lane (min:s)"
printf '   %s\n' "${times[@]}"
echo "   total $(mmss $((SECONDS - start)))"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
