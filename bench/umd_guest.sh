#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# umd_guest.sh BUILD_DIR: the seed's own mechanism beside this SDK, run
# INSIDE a guest of bench/umd-kernel.sh's kernel (CONFIG_BPFILTER=y,
# CONFIG_BPFILTER_UMH=m, CONFIG_USERMODE_DRIVER=y), booted by bench/run.sh.
# Rows go to BUILD_DIR/bench/results.csv (columns in bench/bench.h).
#
# Upstream's bpfilter.ko and this project's bpfilter sample are both
# named bpfilter, and ours serves the iptables sockopts that ip_tables
# serves too: the three take turns, module by module.
#
# In this kernel every iptables set or get request goes first to
# bpfilter_ip_{set,get}_sockopt(), which, while upstream's module is not
# loaded, calls request_module("bpfilter") each time.  With an empty
# /proc/sys/kernel/modprobe that returns at once (kernel/kmod.c), so
# ip_tables and our sample are measured without a modprobe per call, as on
# a kernel without CONFIG_BPFILTER.
set -euo pipefail

B=${1:?usage: umd_guest.sh BUILD_DIR}
OUT=$B/bench
CSV=$OUT/results.csv
START_PER=5
REPLACE_PER=100
SDK_REPLACE_PER=20	# ours compiles and loads a BPF program each time
RTT_PER=1000

say() { printf 'bench: %s\n' "$*"; }
die() { echo "umd_guest: $*" >&2; exit 1; }
CPU=0
pin() { taskset -c "$CPU" "$@"; }
# Upstream's helper (bpfilter_umh), ours, and the SDK's reader threads.
pin_helpers() {
	local p
	for p in $(pgrep -x bpfilter_umh) $(pgrep '^umh-') $(cat /sys/module/*/umh_*/pid 2>/dev/null); do
		taskset -p -c "$CPU" "$p" >/dev/null
	done
}
unload() {
	local m
	for m in "$@"; do
		if [[ -d /sys/module/$m ]]; then rmmod "$m" || die "rmmod $m failed"; fi
	done
}

upstream=/lib/modules/$(uname -r)/kernel/net/bpfilter/bpfilter.ko
[[ -r $upstream ]] || die "no $upstream: not a kernel of bench/umd-kernel.sh"
work=$(mktemp -d /tmp/umd.XXXXXX)
# Both named bpfilter.ko: umh_bench takes a module's name from its file's.
mkdir "$work/umd" "$work/sdk"
cp "$upstream" "$work/umd/bpfilter.ko"
cp "$B/samples/bpfilter/bpfilter.ko" "$work/sdk/bpfilter.ko"
cp "$B/samples/echo_umh/echo_umh.ko" "$work/glibc.ko"
cp "$B/samples/echo_umh/echo_umh-umh-helper" "$work/glibc-helper"
mkdir "$work/musl"
cp "$B/musl/samples/echo_umh/echo_umh.ko" "$work/musl/echo_umh.ko"
cp "$OUT/umh_bench" "$OUT/umd_bench" "$OUT/kmod/bench_nop.ko" "$work/"
table=$work/filter.table

modprobe_was=$(cat /proc/sys/kernel/modprobe)
trap 'echo "$modprobe_was" >/proc/sys/kernel/modprobe' EXIT
echo >/proc/sys/kernel/modprobe
[[ -z $(cat /proc/sys/kernel/modprobe) ]] || die "cannot empty /proc/sys/kernel/modprobe"

say "kernel $(uname -r), $(nproc) CPUs, measuring on CPU $CPU; upstream's module: $upstream"
unload bpfilter iptable_filter ip_tables echo_umh
echo "group,case,impl,unit,median,p99,spread_pct,batches,samples,stable" >"$CSV.tmp"
run() {
	local out
	out=$("$@") || die "$* failed"
	printf '%s\n' "$out" >>"$CSV.tmp"
	printf '%s\n' "$out" | sed 's/^/bench:   /'
}

for f in umd/bpfilter sdk/bpfilter glibc musl/echo_umh; do
	n=$(stat -c %s "$work/$f.ko")
	run printf 'mem,ko_file,%s,bytes,%s,%s,0.0,1,1,1\n' "${f/\//_}" "$n" "$n"
done
run printf 'mem,blob,glibc,bytes,%s,%s,0.0,1,1,1\n' "$(stat -c %s "$work/glibc-helper")" "$(stat -c %s "$work/glibc-helper")"

say "start: insmod of upstream's bpfilter.ko (its helper started and asked once), of our bpfilter and echo modules (glibc and musl helpers)"
run pin "$work/umh_bench" start "$work/glibc.ko" "$work/glibc-helper" "$START_PER" - \
	"umd_bpfilter=$work/umd/bpfilter.ko" "sdk_bpfilter=$work/sdk/bpfilter.ko" \
	"echo_musl=$work/musl/echo_umh.ko" "$work/bench_nop.ko"

say "IPT_SO_SET_REPLACE into ip_tables (request_module() short-circuited)"
modprobe iptable_filter || die "modprobe iptable_filter failed"
run pin "$work/umd_bench" replace ip_tables "$REPLACE_PER" "$table"

insmod "$work/umd/bpfilter.ko" || die "insmod of upstream's bpfilter.ko failed: $(dmesg | tail -n 3)"
pin_helpers
say "IPT_SO_SET_REPLACE through upstream's helper, then into ip_tables"
run pin "$work/umd_bench" replace umd_ip_tables "$REPLACE_PER" "$table"

unload iptable_filter ip_tables
say "IPT_SO_SET_REPLACE through upstream's helper alone (ENOPROTOOPT)"
run pin "$work/umd_bench" replace umd "$REPLACE_PER" "$table"
insmod "$work/glibc.ko" || die "insmod echo_umh failed"
pin_helpers
say "empty round trip: upstream's helper (setsockopt) beside the SDK's echo (ioctl)"
run pin "$work/umd_bench" rtt "$RTT_PER" "$table"
unload echo_umh bpfilter

insmod "$work/sdk/bpfilter.ko" || die "insmod of our bpfilter failed: $(dmesg | tail -n 3)"
pin_helpers
say "IPT_SO_SET_REPLACE into our bpfilter (compiled to BPF by its helper each time)"
run pin "$work/umd_bench" replace sdk_bpfilter "$SDK_REPLACE_PER" "$table"
unload bpfilter

mv -f "$CSV.tmp" "$CSV"
rm -rf "$work"
say "done: $(($(wc -l <"$CSV") - 1)) rows in $CSV"
