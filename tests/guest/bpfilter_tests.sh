#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bpfilter sample against the kernel's own ip_tables.  Runs INSIDE a
# test guest (see tests/qemu/guest.sh) as root; $1 is a build tree holding
# the modules built for the running kernel and the static ipt_raw tool.
# Prints TAP lines.
#
# First the real ip_tables (iptable_filter) answers ipt_raw's requests; its
# answers are the reference.  Extension modules are not loaded on demand in
# either run (the supported ones are loaded beforehand, modprobe_path points
# to /bin/false during the runs): what bpfilter refuses must be refused as
# netfilter refuses an extension it does not have.  Then the real modules
# go, bpfilter.ko comes, and everything is asked again, plus iptables-legacy
# itself for what bpfilter does not support, callers without
# CAP_NET_ADMIN, other network namespaces, helper restarts and a big table.
set -u

B=${1:?usage: bpfilter_tests.sh BUILD_DIR}
KO=$B/samples/bpfilter/bpfilter.ko
RAW=$B/ipt_raw
S=/sys/module/bpfilter/umh_bpfilter
T=$(mktemp -d /tmp/bpfilter_tests.XXXXXX)
. "$(dirname "$0")/lib.sh"

# iptables-legacy locks /run/xtables.lock by default; keep ours private.
export XTABLES_LOCKFILE=$T/xtables.lock
IPT=iptables-legacy
SUPPORTED_MODS="iptable_filter xt_tcpudp xt_multiport xt_comment"
# uid 65534 with CAP_NET_RAW only (and a lock file it can open).  It may
# not be able to reach the build tree: the checkout can be anywhere (a clone
# in /root is mode 0700 on a fresh Debian, and the guest sees the host's
# permissions), so what it runs from there is copied to $T/bin first, and
# it runs in $T/nobody, not in the caller's working directory.
chmod 755 "$T"
mkdir -m 1777 "$T/nobody"
mkdir -m 755 "$T/bin"
cp "$RAW" "$T/bin/ipt_raw" && chmod 755 "$T/bin/ipt_raw" ||
	echo "# cannot copy $RAW to $T/bin: the tests as nobody will fail"
NOBODY_RAW=$T/bin/ipt_raw
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups
	--inh-caps=-all,+net_raw --ambient-caps=-all,+net_raw --
	env -C "$T/nobody" XTABLES_LOCKFILE="$T/nobody/xtables.lock")

progress() { echo "# $*"; }
# show_diff OLD NEW (strings)
show_diff() {
	echo "$1" >"$T/old"
	echo "$2" >"$T/new"
	diff "$T/old" "$T/new"
}

modprobe_path=$(cat /proc/sys/kernel/modprobe)
no_autoload() { echo /bin/false >/proc/sys/kernel/modprobe; }
autoload() { echo "$modprobe_path" >/proc/sys/kernel/modprobe; }

# The ruleset as iptables-legacy-save -c prints it, without the # lines.
ruleset() { iptables-legacy-save -c 2>&1 | grep -v '^#'; }
# Rules, chains and policies without counters and # lines.
ruleset_nocounters() { ruleset | sed 's/\[[0-9]*:[0-9]*\]//'; }

unload_real() {	# iptable_filter, ip_tables and every xt_* module
	local m
	for m in iptable_filter iptable_nat iptable_mangle iptable_raw \
		 $(lsmod | awk '$1 ~ /^(xt_|ipt_)/ {print $1}') ip_tables; do
		[ -d /sys/module/$m ] && rmmod "$m"
	done
	[ ! -d /sys/module/ip_tables ] || fail "ip_tables still loaded: $(lsmod | grep -E '^(ip|xt|ipt)_')"
}

# ---- the reference: the real ip_tables ----

test_reference() {
	modprobe -a $SUPPORTED_MODS || fail "modprobe $SUPPORTED_MODS failed"
	no_autoload
	"$RAW" >"$T/real.txt" 2>&1
	local rc=$?
	autoload
	"${NOBODY[@]}" "$NOBODY_RAW" perm >"$T/real_perm.txt" 2>&1
	[ $rc = 0 ] || fail "ipt_raw exited with $rc: $(tail -n 5 "$T/real.txt")"
	grep -q '^perm_get_info ' "$T/real_perm.txt" ||
		fail "ipt_raw perm as nobody under ip_tables: $(head -n 5 "$T/real_perm.txt")"
	echo "$(grep -c . "$T/real.txt") lines"
	grep -qx 'final_table unchanged' "$T/real.txt" ||
		fail "the table changed under ip_tables: $(tail -n 1 "$T/real.txt")"
}

test_insmod_busy() {
	[ -f "$KO" ] || fail "no $KO"
	[ -d /sys/module/ip_tables ] || modprobe ip_tables || fail "modprobe ip_tables"
	set_mark
	local out
	out=$(insmod "$KO" 2>&1) && { rmmod bpfilter; fail "insmod succeeded with ip_tables loaded"; }
	echo "insmod: $out"
	dmesg_since_mark | grep -E 'bpfilter.*(ip_tables|busy|taken|-16)' ||
		fail "no dmesg line says why: $(dmesg_since_mark)"
	[ ! -d /sys/module/bpfilter ] || fail "module present after a failed insmod"
	no_helpers
}

test_compat() {
	local before
	before=$(iptables-legacy-save -t filter | grep -v '^#')
	set_mark
	no_autoload
	compat_out=$("$RAW" compat 2>&1)
	autoload
	echo "$compat_out"
	[ "$compat_out" = "compat_get_info EOPNOTSUPP
compat_add_counters EOPNOTSUPP" ] || fail "expected EOPNOTSUPP twice"
	dmesg_hasE "ipt_raw\[[0-9]+\]: 32-bit callers are not supported" ||
		fail "no dmesg line: $(dmesg_since_mark)"
	[ "$(iptables-legacy-save -t filter | grep -v '^#')" = "$before" ] ||
		fail "the ruleset changed"
}

test_load() {
	unload_real || return 1
	[ -f "$KO" ] || fail "no $KO"
	set_mark
	insmod "$KO" || fail "insmod failed: $(dmesg_since_mark)"
	wait_for 5 state_is running || fail "state $(cat $S/state 2>&1)"
	local pid
	pid=$(<$S/pid)
	[ -d /proc/$pid ] || fail "helper pid $pid not running"
	[ "$(helper_pids)" = "$pid" ] || fail "helpers: $(helper_pids), sysfs pid $pid"
	grep -qx filter /proc/net/ip_tables_names ||
		fail "/proc/net/ip_tables_names: '$(cat /proc/net/ip_tables_names 2>&1)'"
}

test_compare() {
	no_autoload
	"$RAW" >"$T/bpf.txt" 2>&1
	local rc=$?
	autoload
	[ $rc = 0 ] || fail "ipt_raw exited with $rc: $(tail -n 5 "$T/bpf.txt")"
	diff -u "$T/real.txt" "$T/bpf.txt" | sed 1,2d | grep '^[-+]' |
		sed 's/^-/ip_tables: /; s/^+/bpfilter:  /'
	cmp -s "$T/real.txt" "$T/bpf.txt"
}

test_raw_unchanged() {
	grep -qx 'final_table unchanged' "$T/bpf.txt" ||
		fail "$(grep final_table "$T/bpf.txt")"
}

test_list() {
	local out
	out=$($IPT -L -n 2>&1) || fail "iptables-legacy -L failed: $out"
	grep -q '^Chain INPUT (policy ACCEPT)' <<<"$out" || fail "$out"
}

# A small ruleset for the tests that check that nothing changes.
base_rules() {
	iptables-legacy-restore -c <<-'EOF'
	*filter
	:INPUT ACCEPT [100:20000]
	:FORWARD DROP [5:500]
	:OUTPUT ACCEPT [7:700]
	:mychain - [0:0]
	:mychain2 - [0:0]
	[10:1000] -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
	[3:300] -A INPUT -j mychain
	[0:0] -A INPUT -p icmp -m icmp --icmp-type 8 -j ACCEPT
	[1:42] -A mychain -p udp -m udp --dport 53 -m comment --comment "dns" -j DROP
	[0:0] -A mychain -p tcp -m multiport --dports 80,443 -g mychain2
	[2:2] -A mychain2 -s 10.0.0.0/8 -i eth0 -j RETURN
	COMMIT
	EOF
}

test_base_rules() {
	base_rules || fail "iptables-legacy-restore -c of the base ruleset failed"
	local got
	got=$(ruleset)
	grep -q -- '^\[10:1000\] -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT$' <<<"$got" ||
		fail "ruleset not as restored: $got"
	grep -q -- '^:FORWARD DROP \[5:500\]$' <<<"$got" || fail "policy counters: $got"
}

# expect_refused PATTERN ARGS...: iptables-legacy ARGS fails with a
# message matching PATTERN and changes nothing.
expect_refused() {
	local before after out pat=$1
	shift
	before=$(ruleset)
	out=$($IPT "$@" 2>&1) && fail "'iptables-legacy $*' succeeded: $out"
	grep -q -- "$pat" <<<"$out" || fail "'iptables-legacy $*': '$out', expected '$pat'"
	after=$(ruleset)
	[ "$before" = "$after" ] ||
		fail "'iptables-legacy $*' changed the ruleset: $(show_diff "$before" "$after")"
}

test_unsupported() {
	local failed=0 args pid
	local ext='No chain/target/match by that name' tab='Table does not exist'
	pid=$(<$S/pid)
	while IFS= read -r args; do
		# shellcheck disable=SC2086
		(expect_refused "${args%%|*}" ${args#*|}) || failed=1
	done <<-EOF
	$ext|-A INPUT -j LOG
	$ext|-A INPUT -p tcp -j REJECT
	$ext|-A INPUT -m state --state NEW -j ACCEPT
	$ext|-A INPUT -m conntrack --ctstate NEW -j ACCEPT
	$ext|-A INPUT -m limit --limit 1/s -j ACCEPT
	$tab|-t nat -L
	$tab|-t mangle -A PREROUTING -j ACCEPT
	$tab|-t raw -L
	EOF
	[ "$(<$S/pid)" = "$pid" ] && state_is running ||
		fail "refusals disturbed the helper: pid $pid -> $(<$S/pid), state $(<$S/state)"
	return $failed
}

test_restore_bad_rule() {
	local before after out
	before=$(ruleset)
	out=$(iptables-legacy-restore 2>&1 <<-'EOF'
	*filter
	:INPUT ACCEPT [0:0]
	:FORWARD ACCEPT [0:0]
	:OUTPUT ACCEPT [0:0]
	-A INPUT -p tcp -m tcp --dport 80 -j ACCEPT
	-A INPUT -p udp -m udp --dport 53 -j ACCEPT
	-A INPUT -j LOG --log-prefix "bad "
	-A OUTPUT -p icmp -j ACCEPT
	COMMIT
	EOF
	) && fail "restore with a LOG rule succeeded: $out"
	echo "restore: $out" | head -n 2
	after=$(ruleset)
	[ "$before" = "$after" ] ||
		fail "ruleset changed: $(show_diff "$before" "$after")"
}

test_unprivileged() {
	local before after out
	before=$(ruleset)
	out=$("${NOBODY[@]}" grep Cap /proc/self/status) || fail "setpriv: $out"
	grep -q 'CapEff:.*0000000000002000' <<<"$out" || fail "not just CAP_NET_RAW: $out"
	out=$("${NOBODY[@]}" $IPT -L -n 2>&1) && fail "-L as nobody succeeded: $out"
	grep -q 'Permission denied (you must be root)' <<<"$out" || fail "-L as nobody: $out"
	out=$("${NOBODY[@]}" $IPT -A INPUT -j ACCEPT 2>&1) && fail "-A as nobody succeeded: $out"
	grep -q 'Permission denied (you must be root)' <<<"$out" || fail "-A as nobody: $out"
	"${NOBODY[@]}" "$NOBODY_RAW" perm >"$T/bpf_perm.txt" 2>&1
	cat "$T/bpf_perm.txt"
	grep -qx 'perm_get_info EPERM' "$T/bpf_perm.txt" || fail "GET_INFO not EPERM"
	grep -qx 'perm_set_replace EPERM' "$T/bpf_perm.txt" || fail "SET_REPLACE not EPERM"
	diff "$T/real_perm.txt" "$T/bpf_perm.txt" || fail "answers differ from ip_tables'"
	after=$(ruleset)
	[ "$before" = "$after" ] ||
		fail "ruleset changed: $(show_diff "$before" "$after")"
}

test_other_netns() {
	local before after out
	before=$(ruleset)
	set_mark
	out=$(unshare -n $IPT -L -n 2>&1) && fail "iptables-legacy -L in a new netns succeeded: $out"
	echo "$out" | head -n 2
	[ -n "$out" ] || fail "no message"
	grep -qiE 'not supported|namespace' <<<"$out" || fail "unclear message: $out"
	wait_for 2 eval 'dmesg_since_mark | grep -q "bpfilter.*namespace"' ||
		fail "no bpfilter line in dmesg: $(dmesg_since_mark)"
	dmesg_since_mark | grep bpfilter
	out=$(unshare -n $IPT -A INPUT -j ACCEPT 2>&1) && fail "-A in a new netns succeeded: $out"
	after=$(ruleset)
	[ "$before" = "$after" ] ||
		fail "init netns ruleset changed: $(show_diff "$before" "$after")"
}

test_kill_helper() {
	local i before after old r0
	before=$(ruleset)
	grep -q '\[10:1000\]' <<<"$before" || fail "no counters to keep: $before"
	for i in 1 2 3; do
		old=$(<$S/pid)
		r0=$(<$S/restarts)
		kill -9 "$old" || fail "kill $old"
		wait_for 5 test ! -d /proc/"$old" || fail "helper $old survived SIGKILL"
		after=$(ruleset)
		[ "$before" = "$after" ] ||
			fail "kill $i: ruleset differs: $(show_diff "$before" "$after")"
		wait_for 5 pid_changed "$old" || fail "kill $i: pid still $(<$S/pid)"
		[ "$(<$S/restarts)" = $((r0 + 1)) ] ||
			fail "kill $i: restarts $r0 -> $(<$S/restarts)"
		state_is running || fail "kill $i: state $(<$S/state)"
		[ "$(helper_pids)" = "$(<$S/pid)" ] || fail "helpers: $(helper_pids)"
	done
}

# 10,000 rules in five user chains, each reached from INPUT, written as
# iptables-legacy-save prints them: every kind of match, on one rule in
# a hundred; the others compare addresses.  Each must be compiled,
# verified and put in force.  (What the verifier takes is the limit here:
# it stops at 1,000,000 instructions; Documentation/bpfilter.rst has the
# figures, and the unit test loads 10,000 rules half of which match
# ports.  A chain jumped to from many rules of a chain that is itself
# jumped to from many rules multiplies: see test_fanout_refused.)
gen_rules() {
	awk 'BEGIN {
		print "*filter"
		print ":INPUT ACCEPT [0:0]"
		print ":FORWARD ACCEPT [0:0]"
		print ":OUTPUT ACCEPT [0:0]"
		for (c = 0; c < 5; c++) printf ":chain%d - [0:0]\n", c
		for (c = 0; c < 5; c++) printf "-A INPUT -j chain%d\n", c
		for (c = 0; c < 5; c++) for (i = 0; i < 2000; i++) {
			a = sprintf("10.%d.%d.%d/32", c, int(i / 250), i % 250 + 1)
			k = i % 100
			if (k == 0) printf "-A chain%d -s %s -p tcp -m tcp --dport %d -j ACCEPT\n", c, a, 1000 + i
			else if (k == 1) printf "-A chain%d -d %s -p udp -m udp --sport %d -j DROP\n", c, a, 2000 + i
			else if (k == 2) printf "-A chain%d -s %s -p icmp -m icmp --icmp-type 8 -j ACCEPT\n", c, a
			else if (k == 3) printf "-A chain%d -s %s -p tcp -m multiport --dports 80,443,%d -j DROP\n", c, a, 3000 + i
			else if (k == 4) printf "-A chain%d -s %s -m comment --comment \"rule %d of chain%d\" -j RETURN\n", c, a, i, c
			else if (k == 5) printf "-A chain%d -s %s -i eth%d -j DROP\n", c, a, i % 4
			else if (k < 50) printf "-A chain%d -d %s -j ACCEPT\n", c, a
			else printf "-A chain%d -s %s -j DROP\n", c, a
		}
		print "COMMIT"
	}'
}

test_big_table() {
	gen_rules >"$T/big.rules"
	[ "$(grep -c '^-A chain' "$T/big.rules")" = 10000 ] ||
		fail "generator made $(grep -c '^-A chain' "$T/big.rules") rules"
	local out
	out=$(iptables-legacy-restore <"$T/big.rules" 2>&1) || fail "restore failed: $out"
	iptables-legacy-save 2>"$T/save.err" | grep -v '^#' | sed 's/ \[[0-9]*:[0-9]*\]$//' >"$T/big.saved" ||
		fail "save failed: $(cat "$T/save.err")"
	sed 's/ \[[0-9]*:[0-9]*\]$//' "$T/big.rules" >"$T/big.want"
	diff "$T/big.want" "$T/big.saved" >"$T/big.diff" ||
		fail "save differs from what was restored ($(grep -c '^[<>]' "$T/big.diff") lines): $(head -n 20 "$T/big.diff")"
	$IPT -F || fail "flush failed"
	$IPT -X || fail "delete chains failed"
	[ "$($IPT -S | wc -l)" = 3 ] || fail "after flush: $($IPT -S)"
}

# The program and maps of a ruleset are made on the module's workqueue,
# and charged to the memory cgroup of the process that loaded it.  From a
# cgroup of its own, 10,000 rules charge it at least the module's copy of
# the request (ipt_replace, the entries and a counter each), the
# program's counters map (a counter per entry per possible CPU) and the
# program's instructions as the kernel holds them; replaced from
# elsewhere, that much is given back.  (Before, the kworker charged the
# maps and the program to nobody, and the cgroup held 2.4 MB of the
# 4.7 MB it holds now, for this table on 6.12.)
CGROOT=/sys/fs/cgroup
memcg_probe() {	# sets memcg_why to why test_memcg cannot run here, if it cannot
	memcg_why=
	grep -qw cgroup2 /proc/filesystems || { memcg_why="no cgroup2 in this kernel"; return; }
	if ! mountpoint -q "$CGROOT"; then
		mount -t cgroup2 none "$CGROOT" 2>/dev/null ||
			{ memcg_why="cannot mount cgroup2 on $CGROOT"; return; }
		memcg_mounted=1
	fi
	[ -e "$CGROOT/cgroup.subtree_control" ] ||
		{ memcg_why="$CGROOT is not a cgroup2 root"; return; }
	grep -qw memory "$CGROOT/cgroup.controllers" ||
		memcg_why="no memory controller (cgroup.controllers: $(<"$CGROOT/cgroup.controllers"))"
}

memcg_body() {
	local cg=$1 info size entries rep xlated ncpu want before after out
	[ -s "$T/big.rules" ] || gen_rules >"$T/big.rules"
	echo +memory >"$CGROOT/cgroup.subtree_control" || fail "cannot enable the memory controller"
	mkdir "$cg" || fail "mkdir $cg failed"
	before=$(<"$cg/memory.current")
	out=$(sh -c 'echo $$ >"$1/cgroup.procs" && exec iptables-legacy-restore' \
		sh "$cg" <"$T/big.rules" 2>&1) || fail "restore from $cg failed: $out"
	after=$(<"$cg/memory.current")
	info=$("$RAW" info) || fail "ipt_raw info: $info"
	read -r _ size _ entries _ rep _ xlated <<<"$info"
	[ "$xlated" -gt 0 ] || fail "no program named bpfilter is loaded ($info)"
	ncpu=$(awk -F- '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
	want=$((rep + size + 16 * entries + 16 * entries * ncpu + xlated))
	[ $((after - before)) -ge "$want" ] ||
		fail "$cg was charged $((after - before)) bytes for $entries entries ($info, $ncpu CPUs), want at least $want"
	$IPT -F && $IPT -X || fail "flush failed"
	wait_for 10 eval '[ $(<"$cg/memory.current") -le $((after - want)) ]' ||
		fail "the ruleset replaced, $cg still holds $(<"$cg/memory.current") of $after bytes (want at most $((after - want)))"
}

test_memcg() {
	local cg=$CGROOT/bpfilter_test r
	( memcg_body "$cg" )	# its fail ends the subshell, not the cleanup
	r=$?
	$IPT -F 2>/dev/null; $IPT -X 2>/dev/null
	rmdir "$cg" 2>/dev/null
	return $r
}

# chain1 jumped to from each of chain0's 1,000 rules, chain2 from each of
# chain1's: the verifier would check chain2 a million times.  The helper
# refuses such a table (E2BIG) before the kernel spends memory on it,
# says why, and nothing changes.
test_fanout_refused() {
	local before out
	before=$(iptables-legacy-save | grep -v '^#')
	set_mark
	out=$(awk 'BEGIN {
		print "*filter"
		print ":INPUT ACCEPT [0:0]"
		print ":FORWARD ACCEPT [0:0]"
		print ":OUTPUT ACCEPT [0:0]"
		for (c = 0; c < 3; c++) printf ":fan%d - [0:0]\n", c
		print "-A INPUT -j fan0"
		for (c = 0; c < 2; c++) for (i = 0; i < 1000; i++)
			printf "-A fan%d -s 10.%d.%d.%d/32 -j fan%d\n", c, c, int(i / 250), i % 250 + 1, c + 1
		for (i = 0; i < 1000; i++)
			printf "-A fan2 -s 10.2.%d.%d/32 -j DROP\n", int(i / 250), i % 250 + 1
		print "COMMIT"
	}' | iptables-legacy-restore 2>&1) && fail "a table the verifier cannot check was accepted"
	[ "$(iptables-legacy-save | grep -v '^#')" = "$before" ] || fail "the table changed"
	wait_for 5 dmesg_has 'the verifier would go through more than' ||
		fail "no reason in dmesg: $(dmesg_since_mark | tail -n 5)"
	state_is running || fail "helper state $(<$S/state)"
}

# iptables-legacy-restore SIGKILLed while the verifier checks its
# program is gone before the check ends: the module waits killably, and
# the load finishes on the module's workqueue with nobody waiting (a
# dmesg line; counted neither loaded nor refused), and the table is the
# old one.  (Before, the process could not die until the verifier was
# done.)  4,000 rules of 32 instructions keep the verifier busy for
# seconds under TCG; 1,000 on the debug kernel, where it is ten times
# slower.
loads() {	# programs loaded + refused so far
	echo $(($(</sys/module/bpfilter/parameters/programs_loaded) +
		$(</sys/module/bpfilter/parameters/programs_refused)))
}

test_kill_verifier() {
	local before loads0 pid i=0 stack= rules=4000
	debug_kernel && rules=1000
	before=$(iptables-legacy-save | grep -v '^#')
	loads0=$(loads)
	awk -v n=$rules 'BEGIN {
		print "*filter"
		print ":INPUT ACCEPT [0:0]"
		print ":FORWARD ACCEPT [0:0]"
		print ":OUTPUT ACCEPT [0:0]"
		for (i = 0; i < n; i++)
			printf "-A INPUT -s 10.%d.%d.%d/32 -p tcp -m tcp --dport %d -j ACCEPT\n", int(i / 62500), int(i / 250) % 250, i % 250 + 1, i % 60000 + 1
		print "COMMIT"
	}' >"$T/kill.rules"
	set_mark
	iptables-legacy-restore <"$T/kill.rules" &
	pid=$!
	for ((;;)); do
		stack=$(cat /proc/$pid/stack 2>/dev/null)
		[[ $stack == *bpf_dp_load* ]] && break
		[ -d /proc/$pid ] || fail "the restore ended before its program reached the verifier"
		[ $((i++)) -lt 6000 ] ||
			{ kill -9 $pid; fail "the restore never waited in bpf_dp_load"; }
		sleep 0.05
	done
	kill -9 $pid
	wait $pid 2>/dev/null
	[ "$(loads)" = "$loads0" ] ||
		fail "the killed restore was reaped only after the verifier was done with its program"
	dmesg_has "killed while its program" || fail "no dmesg line for the kill: $(dmesg_since_mark | tail -n 5)"
	wait_for 300 dmesg_has 'a load whose caller was killed ended' ||
		fail "the abandoned load did not end: $(dmesg_since_mark | tail -n 5)"
	[ "$(loads)" = "$loads0" ] || fail "the abandoned load was counted"
	dmesg_has 'a load whose caller was killed ended ([0-9]* instructions): 0$' ||
		fail "the abandoned load failed: $(dmesg_since_mark | tail -n 3)"
	[ "$(iptables-legacy-save | grep -v '^#')" = "$before" ] || fail "the table changed"
	state_is running || fail "helper state $(<$S/state)"
	# bounded: a load left waiting for a lost abandoned one would hang
	timeout 120 $IPT -A INPUT -s 10.9.9.9/32 -j DROP || fail "a change after the kill failed"
	timeout 120 $IPT -D INPUT -s 10.9.9.9/32 -j DROP || fail "undoing it failed"
}

test_rmmod() {
	base_rules >/dev/null 2>&1
	local t0=$SECONDS
	rmmod bpfilter || fail "rmmod failed"
	[ $((SECONDS - t0)) -le 3 ] || fail "rmmod took $((SECONDS - t0)) s"
	[ ! -d /sys/module/bpfilter ] || fail "module still there"
	no_helpers || return 1
	[ ! -e /proc/net/ip_tables_names ] || fail "/proc/net/ip_tables_names still there"
	modprobe iptable_filter || fail "modprobe iptable_filter after rmmod bpfilter failed: $(dmesg | tail -n 3)"
	local out
	out=$($IPT -S 2>&1) || fail "iptables-legacy -S on ip_tables: $out"
	[ "$(wc -l <<<"$out")" = 3 ] || fail "ip_tables starts with: $out"
	unload_real
}

# Loaded with room for 2 devices matching -i/-o patterns: a ruleset that
# 3 devices match is refused whole, with a dmesg line, and the old one
# stays; once in force, a device that would be the third matching one is
# refused, registered or renamed.  (Before, the ruleset was put in force
# with the third device matching none of its patterns.)
max_devices_cleanup() {
	local d
	for d in bpd0 bpd1 bpd2 bpd9 other0; do ip link del "$d" 2>/dev/null; done
	[ -d /sys/module/bpfilter ] && { $IPT -F INPUT; rmmod bpfilter; }
	return 0
}

test_max_devices() {
	( max_devices_body )	# its fail ends the subshell, not the cleanup
	local r=$?
	max_devices_cleanup
	return $r
}

max_devices_body() {
	local out tag="bpfilter: max_devices $RANDOM"
	echo "$tag" >/dev/kmsg
	insmod "$KO" max_devices=0 2>/dev/null && { rmmod bpfilter; fail "max_devices=0 accepted"; }
	dmesg | sed -n "/$tag/,\$p" | grep -q 'max_devices is 0: it must be 1..65536' ||
		fail "no dmesg line for max_devices=0: $(dmesg | tail -n 3)"
	insmod "$KO" max_devices=2 || fail "insmod max_devices=2: $(dmesg | tail -n 3)"
	for i in 0 1 2; do
		ip link add "bpd$i" type veth peer name "bpe$i" || fail "ip link add bpd$i"
	done
	if out=$($IPT -A INPUT -i bpd+ -j DROP 2>&1); then
		fail "a ruleset that 3 devices match was put in force"
	fi
	echo "iptables said: $out"
	[ -z "$($IPT -S INPUT | grep -- '-i bpd+')" ] || fail "the refused rule is listed: $($IPT -S INPUT)"
	dmesg | sed -n "/$tag/,\$p" | grep -q 'ruleset refused: interface bpd' ||
		fail "no dmesg line: $(dmesg | sed -n "/$tag/,\$p")"
	ip link del bpd2 || fail "ip link del bpd2"
	$IPT -A INPUT -i bpd+ -j DROP || fail "a ruleset that 2 devices match was refused"
	ip link add bpd2 type veth peer name bpe2 2>/dev/null &&
		fail "a third matching device was registered"
	ip link show bpd2 >/dev/null 2>&1 && fail "bpd2 exists"
	ip link add other0 type veth peer name othe0 || fail "a device no pattern matches was refused"
	ip link set other0 name bpd9 2>/dev/null && fail "a rename to a third matching device was taken"
	ip link show other0 >/dev/null 2>&1 || fail "other0 lost its name"
	dmesg | sed -n "/$tag/,\$p" | grep -q 'interface bpd9: the ruleset cannot store' ||
		fail "no dmesg line for the refused device: $(dmesg | sed -n "/$tag/,\$p")"
	ip link del other0
	for i in 0 1; do ip link del "bpd$i"; done
	$IPT -F INPUT || fail "flush"
	rmmod bpfilter || fail "rmmod"
}

progress "ipt_raw under the real ip_tables (about a minute under TCG)"
t "reference: ipt_raw under the real ip_tables, table unchanged" test_reference
t "insmod bpfilter.ko while ip_tables is loaded fails, dmesg says why" test_insmod_busy
t "insmod bpfilter.ko after unloading ip_tables: helper runs, ip_tables_names" test_load
progress "ipt_raw under bpfilter"
t "ipt_raw: bpfilter answers every case as ip_tables does" test_compare
t "ipt_raw under bpfilter: table unchanged" test_raw_unchanged
t "iptables-legacy -L lists the fresh filter table" test_list
t "iptables-legacy-restore -c: rules, chains, policies, counters" test_base_rules
t "unsupported extensions and tables refused, ruleset unchanged" test_unsupported
t "restore with one unsupported rule among good ones changes nothing" test_restore_bad_rule
t "without CAP_NET_ADMIN: permission errors, EPERM, nothing changes" test_unprivileged
t "other network namespace: refused with a message and a dmesg line" test_other_netns
# A 32-bit caller (int 0x80, ipt_raw compat), where the guest's kernel
# runs one from a 64-bit process: refused, not read with the 64-bit layout.
compat_out=$("$RAW" compat_probe 2>&1)
if [[ $compat_out == compat_skip* ]]; then
	ok "# SKIP 32-bit caller: ${compat_out#compat_skip }"
else
	t "32-bit (compat) caller: EOPNOTSUPP, a dmesg line, nothing changes" test_compat
fi
progress "killing the helper 3 times"
t "SIGKILL of the helper 3 times: ruleset and counters replayed" test_kill_helper
progress "10,000 rules: restore, save, flush"
t "10,000 rules in user chains: restore (compiled, verified, in force), save gives them back, flush" test_big_table
t "chains jumped to from many rules, nested: refused before the verifier, nothing changes" test_fanout_refused
memcg_mounted=0
memcg_probe
if [ -n "$memcg_why" ]; then
	ok "# SKIP memory cgroup charge: $memcg_why"
else
	t "10,000 rules loaded from a memory cgroup: it is charged for the program and maps, and uncharged when they go" test_memcg
fi
[ "$memcg_mounted" = 0 ] || umount "$CGROOT"
t "SIGKILL while the verifier checks a program of 4,000 rules (1,000 on the debug kernel): the process goes at once, the load is dropped" test_kill_verifier
t "rmmod: no helper left, ip_tables can take the sockopt range again" test_rmmod
t "max_devices=2: a ruleset 3 devices match is refused, and so is a third matching device" test_max_devices
t "dmesg free of WARNING/BUG/Oops/lockup reports" test_dmesg_clean

rm -rf "$T"
echo "1..$n"
[ $failed -eq 0 ]
