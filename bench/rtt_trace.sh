#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rtt_trace.sh [--csv] BUILD_DIR: where a 64-byte round trip goes.  Runs
# INSIDE a test guest, with BUILD_DIR/bench/umh_bench built by
# bench/run.sh: guest_bench.sh runs it with --csv (rows of group rttseg
# for the report), and by hand, for a readable summary:
#
#	tests/guest/run.sh <release> bench/rtt_trace.sh
#
# Loads the echo sample, pins everything to CPU 0 as guest_bench.sh does,
# and runs `umh_bench rtt 64` with the sched_switch and raw_syscalls
# events traced on that CPU; bench/rtt_trace.awk then charges each SDK and
# pipe sample's time to the tasks that ran in it.  The events cost time
# of their own (a traced sample is slower than an untraced one), so read
# the shares, not the totals (Documentation/channel.rst, "Where a call
# goes").  Progress goes to stderr.
set -euo pipefail

csv=0
if [[ ${1-} == --csv ]]; then
	csv=1
	shift
fi
B=${1:?usage: rtt_trace.sh [--csv] BUILD_DIR}
MOD=echo_umh
S=/sys/module/$MOD/umh_echo
T=/sys/kernel/tracing
# bench/run.sh copies the awk script next to umh_bench (the guest sees
# the build tree only); in a source tree it is next to this script.
awk_prog=$(dirname "$0")/rtt_trace.awk
[[ -f $awk_prog ]] || awk_prog=$B/bench/rtt_trace.awk

say() { printf 'rtt_trace: %s\n' "$*" >&2; }

if [[ ! -x $B/bench/umh_bench || ! -f $awk_prog ]]; then
	say "$B/bench/umh_bench or rtt_trace.awk missing: run make bench (or bench/run.sh) first"
	exit 1
fi
mountpoint -q $T || mount -t tracefs nodev $T 2>/dev/null || true
if [[ ! -e $T/events/sched/sched_switch/enable ||
      ! -e $T/events/raw_syscalls/enable ]]; then
	say "SKIP: this kernel has no sched_switch or raw_syscalls trace events"
	exit 0
fi

work=$(mktemp -d /tmp/rtt_trace.XXXXXX)
cp "$B/samples/echo_umh/$MOD.ko" "$B/bench/umh_bench" "$work/"
if [[ -d /sys/module/$MOD ]]; then rmmod "$MOD"; fi
insmod "$work/$MOD.ko"
helper=$(cat $S/pid)
reader=$(pgrep -x umh-echo)
for p in "$helper" "$reader"; do taskset -p -c 0 "$p" >/dev/null; done

say "kernel $(uname -r): umh_bench rtt 64 on CPU 0, its scheduling and system calls traced"
echo 0 >$T/tracing_on
echo 16384 >$T/buffer_size_kb
echo 1 >$T/tracing_cpumask
echo >$T/trace
echo 1 >$T/events/sched/sched_switch/enable
echo 1 >$T/events/raw_syscalls/enable
echo 1 >$T/tracing_on
taskset -c 0 "$work/umh_bench" rtt 64 500 >"$work/rtt.csv" &
caller=$!
wait "$caller"
echo 0 >$T/tracing_on
echo 0 >$T/events/sched/sched_switch/enable
echo 0 >$T/events/raw_syscalls/enable
if ((!csv)); then
	sed -n 's/^rtt,64,sdk\/pipe,ratio,\([^,]*\),.*/SDK (timed in the kernel) \/ pipe, median, while traced: \1/p' \
		"$work/rtt.csv"
fi
awk -v csv="$csv" -v caller="$caller" -v helper="$helper" -v reader="$reader" \
	-f "$awk_prog" $T/trace
echo >$T/trace
rmmod "$MOD"
rm -rf "$work"
