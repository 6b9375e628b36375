#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# run.sh MODE SECONDS TARGET...: one TAP line per target.
#
#  check: replay every file of corpus/TARGET (each must run clean), then
#         fuzz SECONDS from the committed corpus in a fresh work directory;
#  fuzz:  the same, but the work directory build/work/TARGET is kept, so
#         successive runs build on each other (`make seeds` merges it back).
#
# A crash, a sanitizer report, a broken invariant, a timeout or an
# out-of-memory fails the target; the input lands in build/crash/ and the
# end of the log is printed as TAP comments.
set -u
cd "$(dirname "$0")"
mode=$1 secs=$2
shift 2
B=build
n=0 failed=0

# per-target input size bound (a frame, a stream of frames, a ruleset)
max_len() {
	case $1 in
	req|rep) echo 4096 ;;
	helper) echo 16384 ;;
	ipt) echo 8192 ;;
	esac
}

stat() {	# stat NAME LOG: a "stat::NAME: value" line of -print_final_stats
	sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

# The sanitizer runtime of Debian 12's clang (14) cannot always place its
# shadow memory when the kernel randomizes mmap with more than 28 bits
# (vm.mmap_rnd_bits, 28 on Debian's kernels, up to 32 on others): a target
# then dies in ASan's start-up, now and then, with no report, which would
# read as a failure of the code under test.  On such a host the targets run
# without address randomization (setarch -R), which fuzzing does not need.
norand=
rnd_bits=$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)
case $rnd_bits in *[!0-9]* | '') rnd_bits=28 ;; esac
if [ "$rnd_bits" -gt 28 ]; then
	if setarch "$(uname -m)" -R true 2>/dev/null; then
		norand="setarch $(uname -m) -R"
		echo "# vm.mmap_rnd_bits is $rnd_bits (> 28): targets run under $norand"
	else
		echo "# vm.mmap_rnd_bits is $rnd_bits (> 28) and setarch -R is refused here: ASan may crash at start-up"
	fi
fi

echo "1..$#"
for t in "$@"; do
	n=$((n + 1))
	bin=./$B/fuzz_$t
	log=$B/log/$t.log
	work=$B/work/$t
	mkdir -p $B/log $B/crash "$work"
	[ "$mode" = check ] && rm -rf "$work" && mkdir -p "$work"
	if [ ! -x "$bin" ]; then
		failed=$((failed + 1))
		echo "not ok $n - $t: $bin did not build"
		continue
	fi
	files=$(find corpus/$t -type f | wc -l)
	start=$(date +%s)
	# 1. the committed corpus, file by file
	if [ "$files" -gt 0 ] &&
	   ! find corpus/$t -type f -print0 | xargs -0 $norand "$bin" -timeout=10 \
		>"$log" 2>&1; then
		failed=$((failed + 1))
		echo "not ok $n - $t: replaying corpus/$t failed"
		tail -n 30 "$log" | sed 's/^/# /'
		continue
	fi
	# 2. fuzzing from it
	dict=
	[ -f "$t.dict" ] && dict=-dict=$t.dict
	if $norand "$bin" -max_total_time="$secs" -max_len="$(max_len "$t")" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix=$B/crash/$t- $dict "$work" corpus/$t \
		>"$log" 2>&1; then
		cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 |
		      sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/cov \1, ft \2, corpus \3/p')
		echo "ok $n - $t: $files corpus inputs replayed; fuzzed ${secs}s:" \
			"$(stat number_of_executed_units "$log") runs," \
			"$(stat average_exec_per_sec "$log") exec/s, $cov" \
			"($(($(date +%s) - start))s)"
	else
		failed=$((failed + 1))
		echo "not ok $n - $t: fuzzing found a failure (input in tests/fuzz/$B/crash/)"
		grep -E 'ERROR|invariant|SUMMARY|Test unit written|runtime error' "$log" |
			head -n 10 | sed 's/^/# /'
		tail -n 20 "$log" | sed 's/^/# /'
	fi
done
[ "$failed" -eq 0 ]
