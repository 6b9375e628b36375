#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [KERNEL_RELEASE|umd...]: the benchmark suite (make bench).  For
# each kernel (default: both of scripts/kernels.sh, then umd) build the
# modules and the benchmark programs, boot the guest, run
# bench/guest_bench.sh in it (which runs bench/bpfilter_bench.sh last),
# and keep its CSV as bench/results/<release>.csv; then write the report
# (bench/results/report.md and PNG plots) with bench/report.sh.
#
# umd: the seed's own mechanism, upstream's bpfilter usermode driver, on
# the 6.1 kernel of bench/umd-kernel.sh (built on first use, about 15
# minutes, and cached; only this script builds it).  bench/umd_guest.sh
# runs there; its CSV is bench/results/umd.csv.
#
# Reports numbers only: a slow figure is not a failure.  The exit status
# is non-zero only when a guest could not produce its figures.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
results=$root/bench/results
if (($#)); then
	kernels=("$@")
else
	mapfile -t kernels < <("$root/scripts/kernels.sh")
	kernels+=(umd)
fi

say() { printf 'bench: %s\n' "$*"; }

# Extra kernel parameters for the guests (e.g. idle=poll); none by default.
export UMH_GUEST_APPEND=${BENCH_GUEST_APPEND-}

mkdir -p "$results"
t_all=$SECONDS
times_out=$(mktemp)
trap 'rm -f "$times_out"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
# Host CPU time in use over the next 2 s, in % of all CPUs.
cpu_busy() {
	local a b
	a=$(head -n 1 /proc/stat)
	sleep 2
	b=$(head -n 1 /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN {
		na = split(a, x, " "); split(b, y, " ")
		for (i = 2; i <= na; i++) {
			d = y[i] - x[i]; total += d
			if (i == 5 || i == 6) idle += d	# idle, iowait
		}
		printf "%.0f\n", total ? 100 * (total - idle) / total : 0
	}'
}
# Busy CPU time of the whole host so far, in hundredths of a second; and
# the time the hypervisor gave to others (steal: the host may be a VM).
host_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" {
		printf "%d\n", ($2 + $3 + $4 + $7 + $8) * 100 / hz
	}' /proc/stat
}
host_steal() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%d\n", $9 * 100 / hz }' /proc/stat
}
# Sets children_cpu: CPU time of this script's finished children (the
# guest's qemu among them) in hundredths of a second.  It must run in this
# shell: a subshell has no children of its own.
children_cpu_now() {
	times >"$times_out"
	children_cpu=$(tail -n 1 "$times_out" | awk '{
		s = 0
		for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] }
		printf "%d\n", s * 100
	}')
}
# Figures taken while other jobs keep the host's CPUs busy are mostly
# noise: wait (up to BENCH_QUIET_WAIT seconds, default 120) for a quieter
# host before booting a guest, then measure anyway and say so.
wait_quiet() {
	local end=$((SECONDS + ${BENCH_QUIET_WAIT:-120})) busy said=0
	while busy=$(cpu_busy) && ((busy > 25)); do
		if ((SECONDS >= end)); then
			say "host still busy ($busy % CPU in use); measuring anyway"
			return
		fi
		if ((!said)); then
			say "host busy ($busy % CPU in use, load $(load)): waiting up to ${BENCH_QUIET_WAIT:-120} s"
			said=1
		fi
		sleep 3
	done
}

# What the report says about the run; other jobs on the host slow the
# figures down, so how busy it was goes in too.
# (Without git, or outside a checkout, the commit is "unknown", not
# "unknown (with uncommitted changes)".)
if commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
	git -C "$root" diff --quiet HEAD 2>/dev/null || commit+=' (with uncommitted changes)'
else
	commit=unknown
fi
now=$(date -u '+%Y-%m-%d %H:%M UTC')
meta="date=$now
commit=$commit
host=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs
qemu=$(qemu-system-x86_64 --version | head -n 1 | sed 's/ (.*//')
guest_append=$UMH_GUEST_APPEND
"
# A run of some kernels only (bench/run.sh umd) leaves the others' CSVs in
# place, and the report keeps their figures: keep what meta.txt recorded
# of their runs too (when, at which commit, how busy the host was).
if (($#)) && [[ -r $results/meta.txt ]]; then
	meta+=$(awk -F= -v run="${kernels[*]}" '
		BEGIN { n = split(run, r, " "); for (i = 1; i <= n; i++) skip[r[i]] = 1 }
		$1 ~ /^(load|others|steal|measured)_/ {
			k = $1; sub(/^[a-z]+_/, "", k)
			if (!(k in skip)) print
		}' "$results/meta.txt")
	[[ $meta == *$'\n' ]] || meta+=$'\n'
fi
for k in "${kernels[@]}"; do
	t0=$SECONDS
	kdir=/lib/modules/$k/build
	rel=$k
	if [[ $k == umd ]]; then
		say "umd: the kernel with upstream's bpfilter UMD (bench/umd-kernel.sh)"
		info=$("$root/bench/umd-kernel.sh")
		umd_image=$(sed -n 's/^image=//p' <<<"$info")
		umd_mods=$(sed -n 's/^modules=//p' <<<"$info")
		kdir=$(sed -n 's/^build=//p' <<<"$info")
		rel=$(sed -n 's/^release=//p' <<<"$info")
	fi
	out=$root/build/$rel/bench
	mkdir -p "$out"
	rm -f "$out/results.csv"
	say "$k: building umh_bench, umd_bench, pingpong, bpf_bench and the baseline modules"
	for prog in umh_bench umd_bench pingpong bpf_bench; do
		srcs=("$root/bench/$prog.c")
		[[ $prog == bpf_bench ]] &&
			srcs+=("$root/samples/bpfilter/ipt_table.c" "$root/samples/bpfilter/ipt_bpf.c")
		gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static -pthread \
			-I"$root/include" -o "$out/$prog" "${srcs[@]}"
	done
	cp "$root/bench/bpfilter_bench.sh" "$root/bench/rtt_trace.sh" \
		"$root/bench/rtt_trace.awk" "$out/"
	mkdir -p "$out/kmod"
	cp -a "$root/bench/kmod/." "$out/kmod/"
	if ! make -C "$kdir" M="$out/kmod" modules >"$out/kmod/build.log" 2>&1; then
		tail -n 20 "$out/kmod/build.log" >&2
		say "$k: baseline module build failed" >&2
		exit 1
	fi
	wait_quiet
	busy=$(cpu_busy)
	say "$k: building the modules, booting the guest (tests/guest/run.sh); host CPU $busy % busy, load $(load)"
	meta+="measured_$k=$now, commit $commit
load_$k=$(load), $busy % of the host CPU in use just before
"
	rc=0
	children_cpu_now
	c0=$children_cpu h0=$(host_cpu) s0=$(host_steal) w0=$SECONDS
	if [[ $k == umd ]]; then
		# tests/guest/run.sh boots Debian's kernels and the debug one:
		# this kernel is booted here, as run.sh boots the debug kernel.
		{
			"$root/tests/guest/build.sh" "$rel" "$kdir" &&
			cp "$root/bench/umd_guest.sh" "$out/" &&
			cd "$root/build/$rel" &&
			"$root/tests/qemu/guest.sh" --kernel "$rel" --vmlinuz "$umd_image" \
				--modules "$umd_mods" --timeout 2700 --share "$root/build/$rel" \
				--log "$root/build/$rel/console.log" -- \
				"bash $out/umd_guest.sh $root/build/$rel"
		} 2>&1 | sed -u "s/^/  [$k] /" || rc=$?
	else
		"$root/tests/guest/run.sh" "$k" "$root/bench/guest_bench.sh" 2>&1 |
			sed -u "s/^/  [$k] /" || rc=$?
	fi
	# What the rest of the host used meanwhile: our guest's vCPUs are our
	# children's CPU time, anything beyond that is someone else's.
	children_cpu_now
	others=$((($(host_cpu) - h0 - (children_cpu - c0)) / (SECONDS - w0 + 1) / $(nproc)))
	((others >= 0)) || others=0
	steal=$((($(host_steal) - s0) / (SECONDS - w0 + 1) / $(nproc)))
	say "$k: while the guest ran, other jobs used $others % of the host CPU; steal $steal %"
	meta+="others_$k=$others
steal_$k=$steal
"
	if ((rc)) || [[ ! -s $out/results.csv ]]; then
		say "$k: the guest run failed (status $rc); no figures for this kernel" >&2
		exit 1
	fi
	cp "$out/results.csv" "$results/$k.csv"
	say "$k: $(($(wc -l <"$results/$k.csv") - 1)) rows in bench/results/$k.csv ($((SECONDS - t0)) s)"
done

printf '%sduration=%s\n' "$meta" "$((SECONDS - t_all))" >"$results/meta.txt"
say "writing the report"
mapfile -t debian < <(printf '%s\n' "${kernels[@]}" | grep -vx umd)
"$root/bench/report.sh" "${debian[@]}"
say "done in $((SECONDS - t_all)) s: bench/results/report.md"
