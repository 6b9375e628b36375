#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpfilter against the real ip_tables, seen through the unmodified Debian
# iptables-legacy tools.  Runs INSIDE a test guest (see tests/qemu/guest.sh)
# as root; $1 is a build tree holding bpfilter.ko for the running kernel,
# the static ipt_dump and tests/guest/bpfilter_corpus/.  Prints TAP lines.
#
# Phase 1 runs every corpus script on a fresh filter table of the real
# ip_tables (iptable_filter and everything it pulled in reloaded between
# scripts) and keeps what the tools printed: every command's output and
# exit status, then iptables-legacy-save -c, -S, -L -n -v -x
# --line-numbers and ipt_dump's view of the sockopt ABI.  Phase 2 unloads
# ip_tables, runs the same scripts on a fresh bpfilter.ko each, and diffs.
#
# Environment (guest.sh passes none through: set it in the guest command):
# BPF_COMPARE_REAL_ONLY=1: phase 1 only (one test per corpus script: it ran
# and every command succeeded or failed as the script expects).
set -u

B=${1:?usage: bpfilter_compare_tests.sh BUILD_DIR}
KO=$B/samples/bpfilter/bpfilter.ko
DUMP=$B/ipt_dump
CORPUS=$B/tests/guest/bpfilter_corpus
S=/sys/module/bpfilter/umh_bpfilter
REAL_ONLY=${BPF_COMPARE_REAL_ONLY:-0}
# BPF_COMPARE_REAL_FROM=DIR: skip phase 1 and take its results from DIR (a
# copy of an earlier KEEP run's directory on the same kernel; development).
# BPF_COMPARE_KEEP=1: the transcripts go to BUILD_DIR/bpfilter_compare.out
# and stay there (the guest's /tmp is gone when it powers off).
if [ "${BPF_COMPARE_KEEP:-0}" = 1 ]; then
	W=$B/bpfilter_compare.out
	rm -rf "$W" && mkdir -p "$W"
else
	W=$(mktemp -d /tmp/bpf_compare.XXXXXX)
fi
mkdir -p "$W/real" "$W/bpf"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipt_lib.sh"

# The state every script ends in, as the tools and the ABI show it.
capture() {
	echo "==== iptables-legacy-save -c"
	iptables-legacy-save -c 2>&1 | uncommented
	echo "[rc=${PIPESTATUS[0]}]"
	echo "==== iptables-legacy -S"
	iptables-legacy -S 2>&1
	echo "[rc=$?]"
	echo "==== iptables-legacy -L -n -v -x --line-numbers"
	iptables-legacy -L -n -v -x --line-numbers 2>&1
	echo "[rc=$?]"
	echo "==== ipt_dump table filter"
	"$DUMP" table filter 2>&1
	echo "[rc=$?]"
}
export -f capture
export DUMP

# run_script SCRIPT OUTDIR: run one corpus script on the current (fresh)
# table; OUTDIR/<name>.out gets its transcript and the final state,
# OUTDIR/<name>.expect the commands whose exit status was not the expected.
# The script and its capture get 600 s together (the longest takes about
# 15 s on the debug kernel): a stuck command is stopped, noted in .expect
# and leaves a transcript without its capture, which both phases check.
run_script() {
	local name=${1##*/} rc
	name=${name%.sh}
	: >"$2/$name.expect"
	{
		echo "#### $name"
		# shellcheck disable=SC2016 # $1 is bash -c's
		(cd "$W" && BPF_EXPECT="$2/$name.expect" \
			timeout 600 bash -c 'bash "$1"; capture' run_script "$1")
		rc=$?
		[ $rc -eq 0 ] ||
			echo "script and capture stopped: rc=$rc" | tee -a "$2/$name.expect"
	} >"$2/$name.out" 2>&1
}

# ---- the providers ----
modprobe_path=$(cat /proc/sys/kernel/modprobe)
autoload() {	# autoload on|off: let the kernel load modules on demand
	if [ "$1" = on ]; then
		echo "$modprobe_path" >/proc/sys/kernel/modprobe
	else
		echo /bin/false >/proc/sys/kernel/modprobe
	fi
}
# A fresh table for each script: the module is loaded once per phase,
# and between scripts one restore empties the table (flushes, deletes the
# user chains, resets policies and counters).  Both phases reset the same
# way, so their tables start byte-identical; the kernel's own fresh table
# is compared once, in test_bpf_fresh.
reset_table() {
	iptables-legacy-restore -c <<<"$EMPTY" || fail "cannot empty the filter table"
}
fresh_real() {
	if [ -d /sys/module/iptable_filter ]; then
		reset_table
	else
		unload_real || return 1
		modprobe iptable_filter || fail "modprobe iptable_filter failed"
	fi
}
fresh_bpf() {
	if [ -d /sys/module/bpfilter ]; then
		reset_table
	else
		insmod "$KO" || fail "insmod $KO failed: $(dmesg | tail -n 5)"
	fi
}
load_bpf() {	# load_bpf: bpfilter freshly loaded, its table the kernel's own
	if [ -d /sys/module/bpfilter ]; then
		rmmod bpfilter || fail "rmmod bpfilter failed"
	fi
	insmod "$KO" || fail "insmod $KO failed: $(dmesg | tail -n 5)"
}

# What the ABI says beyond the filter table.  Supported extensions with
# autoload on (the real kernel loads xt_tcpudp & co. on demand, as it does
# for iptables); other extensions and tables with autoload off: ip_tables
# would load iptable_nat or xt_LOG, bpfilter refuses them, and with
# autoload off the real kernel answers as it does for what it lacks.
abi_probe() {
	echo "== /proc/net/ip_tables_names"
	cat /proc/net/ip_tables_names 2>&1
	echo "== supported revisions"
	autoload on
	"$DUMP" rev m tcp 0 tcp 1 udp 0 udp 1 icmp 0 icmp 1 multiport 0 \
		multiport 1 multiport 2 comment 0 comment 1
	"$DUMP" rev t "" 0 "" 1 ERROR 0 ERROR 1
	echo "== unsupported revisions and tables (autoload off)"
	autoload off
	"$DUMP" rev m state 0 conntrack 3 limit 0 mark 1 nonexistent 0 "" 0
	"$DUMP" rev t LOG 0 REJECT 0 MARK 2 ACCEPT 0 DROP 0 nonexistent 0
	"$DUMP" info nat mangle raw security bogus ""
	autoload on
}

# run_one real|bpf SCRIPT: a fresh table, the script, its captures, into
# $W/<kind>/<name>.*
run_one() {
	local kind=$1 f=$2 o
	o=${f##*/}
	o=$W/$kind/${o%.sh}
	if [ "$kind" = real ]; then
		fresh_real >"$o.load" 2>&1
	else
		fresh_bpf >"$o.load" 2>&1
	fi || { echo "load failed" >"$o.out"; return; }
	[ "$kind" = bpf ] && { echo "$(<$S/calls)"; } >"$o.calls0" 2>&1
	run_script "$f" "$W/$kind"
	if [ "$kind" = bpf ]; then
		{ echo "$(<$S/calls)"; } >"$o.calls1" 2>&1
		ipt_modules >"$o.mods"
	fi
}

# ---- tests ----

corpus=("$CORPUS"/*.sh)
scripts=("${corpus[@]}")
# On the debug kernel every 12th script (in name order), in both phases.  A
# script costs a few dozen runs of the iptables tools there, each several
# times slower than on Debian's kernels, and what the corpus varies is the
# ruleset, which the helper parses in user space (fuzzed under ASan): the
# module's side is the same few sockopt paths for every script, and the
# bpfilter suite drives those with its 124 hand-built requests.
if debug_kernel; then
	scripts=()
	for ((i = 0; i < ${#corpus[@]}; i += 12)); do scripts+=("${corpus[i]}"); done
	echo "# debug kernel: ${#scripts[@]} of the ${#corpus[@]} corpus scripts (every 12th)"
fi

test_corpus_size() {
	[ ${#corpus[@]} -ge 55 ] || fail "only ${#corpus[@]} corpus scripts"
	[ -x "$DUMP" ] || fail "no $DUMP"
}

test_real_fresh() {
	unload_real || return 1
	modprobe iptable_filter || fail "modprobe iptable_filter failed"
	"$DUMP" table filter >"$W/real.fresh" 2>&1 || fail "$(cat "$W/real.fresh")"
	abi_probe >"$W/real.abi" 2>&1
	grep -q '^filter$' "$W/real.abi" || fail "no filter in ip_tables_names: $(cat "$W/real.abi")"
}

test_real_phase() {
	local f
	for f in "${scripts[@]}"; do run_one real "$f"; done
	local bad
	bad=$(cd "$W/real" && grep -L '^\[rc=0\]$' ./*.out)
	[ -z "$bad" ] || fail "no final capture in: $bad"
	export_tables
}

# The table each script left on ip_tables (its save -c capture), for
# bpfilter_dataplane_tests.sh later in the same boot: it probes every one
# under both firewalls without running the scripts again.  The guest's /tmp
# is a tmpfs, gone at power-off, so a table never outlives its boot.
TABLES=/tmp/bpfilter_corpus.tables
export_tables() {
	rm -rf "$TABLES" && mkdir -p "$TABLES" || return 0
	awk -v d="$TABLES" 'FNR == 1 { if (out) close(out); n = FILENAME; sub(/.*\//, "", n)
		sub(/\.out$/, "", n); out = d "/c-" n ".table"; on = 0; print n > (d "/names") }
	/^==== iptables-legacy-save -c$/ { on = 1; next }
	on && /^\[rc=/ { on = 0; next }
	on { print > out }' "$W"/real/*.out
}

# check_real NAME: the script's commands succeeded or failed as it says,
# and the final dump is well formed.
check_real() {
	local name=$1 o=$W/real/$1.out
	[ -f "$o" ] || fail "no output (load: $(cat "$W/real/$name.load" 2>/dev/null))"
	[ ! -s "$W/real/$name.expect" ] ||
		fail "unexpected exit status: $(cat "$W/real/$name.expect")"$'\n'"$(cat "$o")"
	awk '/^==== ipt_dump/ {d = 1} d && /^\[rc=/ {print}' "$o" | grep -qx '\[rc=0\]' ||
		fail "ipt_dump failed: $(sed -n '/^==== ipt_dump/,$p' "$o")"
}

test_unload_real() {
	unload_real || return 1
	[ ! -d /sys/module/ip_tables ] || fail "ip_tables still loaded"
	[ ! -e /proc/net/ip_tables_names ] || fail "/proc/net/ip_tables_names still there"
}

test_bpf_fresh() {
	[ -f "$KO" ] || fail "no $KO (has the module landed on main and been merged?)"
	load_bpf || return 1
	[ ! -d /sys/module/ip_tables ] || fail "ip_tables loaded next to bpfilter"
	"$DUMP" table filter >"$W/bpf.fresh" 2>&1
	diff -u "$W/real.fresh" "$W/bpf.fresh" || fail "fresh filter table differs"
}

test_bpf_abi() {
	abi_probe >"$W/bpf.abi" 2>&1
	diff -u "$W/real.abi" "$W/bpf.abi" || fail "revisions / GET_INFO differ"
}


# compare NAME: phase 2 printed exactly what phase 1 did, and really
# talked to bpfilter (its call counter grew, ip_tables stayed out).
compare() {
	local name=$1 c0 c1 d
	[ -f "$W/bpf/$name.out" ] || fail "no output (load: $(cat "$W/bpf/$name.load" 2>/dev/null))"
	d=$(diff -u --label "real/$name" --label "bpfilter/$name" \
		"$W/real/$name.out" "$W/bpf/$name.out")
	[ -z "$d" ] || fail "$d"
	c0=$(cat "$W/bpf/$name.calls0" 2>/dev/null)
	c1=$(cat "$W/bpf/$name.calls1" 2>/dev/null)
	[[ $c0 =~ ^[0-9]+$ && $c1 =~ ^[0-9]+$ && $c1 -gt $c0 ]] ||
		fail "bpfilter calls did not grow: '$c0' -> '$c1'"
	[ ! -s "$W/bpf/$name.mods" ] ||
		fail "iptables modules loaded under bpfilter: $(cat "$W/bpf/$name.mods")"
}

test_bpf_unload() {
	rmmod bpfilter || fail "rmmod bpfilter failed"
	wait_for 5 no_helpers_quiet || no_helpers
}
no_helpers_quiet() { [ -z "$(helper_pids)" ]; }

# t runs a function without arguments: the current script is in $cur.
test_check_real() { check_real "$cur"; }
test_compare() { compare "$cur"; }
test_real_all() {
	local f bad=
	for f in "${scripts[@]}"; do
		f=${f##*/} f=${f%.sh}
		( check_real "$f" ) >/dev/null 2>&1 || bad+=" $f"
	done
	[ -z "$bad" ] || fail "scripts with unexpected results on ip_tables:$bad"
}

t "corpus has at least 55 scripts, ipt_dump built" test_corpus_size
if [ -n "${BPF_COMPARE_REAL_FROM:-}" ]; then
	# development only: phase 1 as a KEEP run left it, for this kernel
	echo "# phase 1 skipped: its results come from $BPF_COMPARE_REAL_FROM"
	cp -a "$BPF_COMPARE_REAL_FROM"/real "$BPF_COMPARE_REAL_FROM"/real.abi \
		"$BPF_COMPARE_REAL_FROM"/real.fresh "$W"/
else
	t "real ip_tables: fresh filter table, revisions and other tables" test_real_fresh
	echo "# phase 1: ${#scripts[@]} corpus scripts on the real ip_tables"
	t "real ip_tables: every corpus script ran and was captured" test_real_phase
fi
if [ "$REAL_ONLY" = 1 ]; then
	for f in "${scripts[@]}"; do
		cur=${f##*/} cur=${cur%.sh}
		t "real: $cur" test_check_real
	done
	t "ip_tables and its modules unload" test_unload_real
else
	t "real: every corpus command failed or succeeded as expected" test_real_all
	t "ip_tables and its modules unload" test_unload_real
	t "bpfilter: fresh filter table dumps as ip_tables' does" test_bpf_fresh
	t "bpfilter: revisions and other tables answer as ip_tables does" test_bpf_abi
	echo "# phase 2: ${#scripts[@]} corpus scripts on bpfilter.ko"
	for f in "${scripts[@]}"; do
		cur=${f##*/} cur=${cur%.sh}
		run_one bpf "$f"
		t "compare: $cur" test_compare
	done
	t "rmmod bpfilter leaves no helper" test_bpf_unload
fi
t "dmesg free of WARNING/BUG/Oops/lockup reports" test_dmesg_clean

[ "${BPF_COMPARE_KEEP:-0}" = 1 ] || rm -rf "$W"
echo "1..$n"
[ $failed -eq 0 ]
