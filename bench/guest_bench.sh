#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest_bench.sh BUILD_DIR: the benchmarks, run INSIDE a test guest (see
# bench/run.sh, which builds BUILD_DIR/bench/umh_bench, bpf_bench and the
# baseline modules in BUILD_DIR/bench/kmod, and boots the guest through
# tests/guest/run.sh); the bpfilter sample's come last
# (bench/bpfilter_bench.sh).  Each SDK figure is measured next
# to its user-space reference in this same guest run.  Rows go to
# BUILD_DIR/bench/results.csv (columns in bench/bench.h); progress lines go
# to stdout.  It reports numbers; it never judges them.
set -euo pipefail

B=${1:?usage: guest_bench.sh BUILD_DIR}
OUT=$B/bench
CSV=$OUT/results.csv
MOD=echo_umh
S=/sys/module/$MOD/umh_echo

# Payload sizes and calls per batch for the round trips.  Batches are
# short so that the SDK's and the references' batches alternate often.
RTT_SIZES=(0 64 4096 65536)
declare -A RTT_PER=([0]=2000 [64]=2000 [4096]=1000 [65536]=200)
BULK_SIZE=$((16 << 20))
BULK_PER=2		# calls per batch
CONC_THREADS=(1 4 8)
CONC_MS=100		# one sample: calls/s over this long
START_PER=5		# starts per batch

say() { printf 'bench: %s\n' "$*"; }

# Everything measured runs on one vCPU: the benchmark programs, their
# reference processes, the helper and the SDK's reader thread.  Under TCG
# a hop from one vCPU to the other costs an emulated IPI and, whenever the
# host is busy, a wait until the host schedules the other vCPU's thread:
# milliseconds that would swamp every round trip.  On one vCPU a round
# trip is the CPU work of its path, which is what the SDK can change.
CPU=0
pin() { taskset -c "$CPU" "$@"; }
pin_helper() {	# the helper and the SDK's reader thread ("umh-echo")
	local p
	for p in $(cat $S/pid) $(pgrep -x umh-echo); do
		taskset -p -c "$CPU" "$p" >/dev/null
	done
}

# Everything runs from the guest's tmpfs: no 9p in any measured path, and
# the module and the helper binary are read from the same kind of file.
work=$(mktemp -d /tmp/bench.XXXXXX)
cp "$B/samples/echo_umh/$MOD.ko" "$work/glibc.ko"
cp "$B/musl/samples/echo_umh/$MOD.ko" "$work/musl.ko"
cp "$B/samples/echo_umh/$MOD-umh-helper" "$work/glibc-helper"
cp "$B/musl/samples/echo_umh/$MOD-umh-helper" "$work/musl-helper"
cp "$OUT/umh_bench" "$OUT/kmod/bench_nop.ko" "$OUT/kmod/bench_pad.ko" "$work/"
UB=$work/umh_bench

echo "group,case,impl,unit,median,p99,spread_pct,batches,samples,stable" >"$CSV.tmp"
# run CMD...: one measurement; its CSV lines are kept and shown.
run() {
	local out
	out=$("$@")
	printf '%s\n' "$out" >>"$CSV.tmp"
	printf '%s\n' "$out" | sed 's/^/bench:   /'
}
value() {	# value GROUP CASE IMPL UNIT VALUE
	run printf '%s,%s,%s,%s,%s,%s,0.0,1,1,1\n' "$1" "$2" "$3" "$4" "$5" "$5"
}
loaded() { [[ -d /sys/module/$MOD ]]; }
# Bytes of a .ko's init sections (.init.text, .init.rodata, ...): the part
# the kernel frees once init returned, the embedded helper included.
init_bytes() { size -A "$1" | awk '$1 ~ /^\.init\./ { s += $2 } END { print s + 0 }'; }
modules_size() { awk -v m="$MOD" '$1 == m { print $2 }' /proc/modules; }

say "kernel $(uname -r), $(nproc) CPUs, measuring on CPU $CPU, $(cat /proc/cmdline)"
if loaded; then rmmod "$MOD"; fi

# ---- footprint: what is on disk ----
say "footprint"
value mem blob glibc bytes "$(stat -c %s "$work/glibc-helper")"
value mem blob musl bytes "$(stat -c %s "$work/musl-helper")"
for libc in glibc musl; do
	value mem ko_file "$libc" bytes "$(stat -c %s "$work/$libc.ko")"
	value mem init_sections "$libc" bytes "$(init_bytes "$work/$libc.ko")"
done

# ---- helper start: insmod to first reply, against fork + exec ----
# Side by side with the glibc figures, the bare insmod of two modules with
# no helper (bench/kmod): an empty one, and one with 768 KiB of init data,
# about what the glibc helper adds to the echo module.
say "helper start (glibc): insmod .. first reply; fork+exec .. first reply; insmod of helper-less modules"
run pin "$UB" start "$work/glibc.ko" "$work/glibc-helper" "$START_PER" - \
	"$work/bench_nop.ko" "$work/bench_pad.ko"
say "helper start (musl): insmod .. first reply; fork+exec .. first reply"
run pin "$UB" start "$work/musl.ko" "$work/musl-helper" "$START_PER" musl

# ---- footprint: a loaded module ----
for libc in musl glibc; do
	insmod "$work/$libc.ko"
	say "module after init ($libc): /proc/modules $(modules_size)," \
		"coresize $(cat /sys/module/$MOD/coresize)," \
		"initsize $(cat /sys/module/$MOD/initsize 2>/dev/null || echo n/a)"
	value mem module_after_init "$libc" bytes "$(modules_size)"
	# The SDK keeps its own copy of the blob in a shmem file, to exec it
	# again on a restart: kernel memory too.  The helper's exe is that file.
	value mem shmem_copy "$libc" bytes "$(stat -L -c %s "/proc/$(cat $S/pid)/exe")"
	if [[ $libc == musl ]]; then rmmod "$MOD"; fi
done
# The glibc module stays loaded for the rest.
[[ $(cat $S/state) == running ]] || { echo "guest_bench: helper not running" >&2; exit 1; }
pin_helper

# ---- round trips ----
for size in "${RTT_SIZES[@]}"; do
	say "round trip, $size-byte payload: SDK (timed in the kernel), pipe, unix socket"
	run pin "$UB" rtt "$size" "${RTT_PER[$size]}"
done

# ---- bulk ----
say "bulk: one $BULK_SIZE-byte call, against a pipe to a process"
run pin "$UB" bulk "$BULK_SIZE" "$BULK_PER"

# ---- concurrency ----
for t in "${CONC_THREADS[@]}"; do
	say "concurrency: $t caller(s), 64-byte calls"
	run pin "$UB" conc "$t" "$CONC_MS"
done

# ---- the helper after all that ----
# (Rss from smaps_rollup: 6.1's VmRSS lags behind, see bench/ref.h.)
# The helper keeps large buffers while calls follow each other and frees
# them once it has waited a second for the next: measure after a pause.
sleep 2
pid=$(cat $S/pid)
value mem helper_rss_after sdk kB "$(awk '$1 == "Rss:" { print $2 }' "/proc/$pid/smaps_rollup")"
value mem helper_hwm_after sdk kB "$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$pid/status")"
say "helper: $(cat $S/calls) calls, $(cat $S/failures) failures, $(cat $S/restarts) restarts"
value sdk failures sdk count "$(cat $S/failures)"
value sdk restarts sdk count "$(cat $S/restarts)"
rmmod "$MOD"

# ---- helper restart: SIGKILL to the next helper's first reply ----
# A restart window of 1 ms: no restart counts as recent, so none waits
# for a backoff.
say "helper restart (glibc): SIGKILL .. the next helper's first reply; fork+exec .. first reply"
insmod "$work/glibc.ko" max_restarts=1000 restart_window_ms=1
run pin "$UB" restart "$work/glibc-helper" "$START_PER"
rmmod "$MOD"

# ---- where a round trip goes: one more rtt run, traced ----
say "round trip, 64-byte payload, traced: which task spends what (bench/rtt_trace.sh)"
rows=$(bash "$OUT/rtt_trace.sh" --csv "$B")
if [[ -n $rows ]]; then run printf '%s\n' "$rows"; fi

# ---- bpfilter: its generated program, and the path through veth ----
bash "$OUT/bpfilter_bench.sh" "$B" "$CSV.tmp"

mv -f "$CSV.tmp" "$CSV"
rm -rf "$work"
say "done: $(($(wc -l <"$CSV") - 1)) rows in $CSV"
