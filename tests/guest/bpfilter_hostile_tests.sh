#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpfilter_hostile_tests.sh BUILD_DIR: the bpfilter module with a helper
# whose compiler lies on request (tests/modules/bpfilter_hostile/): a table
# with the comment "hostile:<how>" gets a program broken that way.  Each
# broken program must be refused by the module (its allowlist, the
# contract, or the verifier), counted in programs_refused, logged, and the
# old ruleset must stay in force: in the table iptables-legacy shows and
# in the program that drops a peer's pings.  TAP output.
set -uo pipefail

B=${1:?usage: bpfilter_hostile_tests.sh BUILD_DIR}
. "$(dirname "$0")/lib.sh"
KO=$B/tests/modules/bpfilter_hostile/bpfilter.ko
S=/sys/module/bpfilter/umh_bpfilter
P=/sys/module/bpfilter/parameters
IPT=iptables-legacy
echo "# bpfilter hostile program tests on $(uname -r)"

# The peer at 10.98.0.2 in namespace hpeer, behind hveth0.
peer_up() {
	ip netns add hpeer &&
	ip link add hveth0 type veth peer name hveth1 netns hpeer &&
	ip addr add 10.98.0.1/24 dev hveth0 && ip link set hveth0 up &&
	ip -n hpeer addr add 10.98.0.2/24 dev hveth1 &&
	ip -n hpeer link set hveth1 up
}
peer_down() { ip link del hveth0 2>/dev/null; ip netns del hpeer 2>/dev/null; }
pings() { ip netns exec hpeer ping -c 1 -W 1 10.98.0.1 >/dev/null 2>&1; }
refused() { cat $P/programs_refused; }

test_load() {
	insmod "$KO" || fail "insmod failed: $(dmesg | tail -n 3)"
	state_is running || fail "state $(<$S/state)"
	peer_up || fail "cannot set up the peer namespace"
	pings || fail "the peer cannot ping before any rule"
	# An honest change: the peer's pings are dropped from now on.
	$IPT -A INPUT -s 10.98.0.2 -p icmp -j DROP || fail "honest rule refused"
	! pings || fail "the honest rule does not drop the peer's pings"
	[ "$(refused)" = 0 ] || fail "programs_refused is $(refused)"
}

# hostile_refused HOW DMESG_PATTERN: the table with hostile:HOW is
# refused, counted and logged; the old ruleset stays, in the table and in
# force.
hostile_refused() {
	local how=$1 pat=$2 before after out
	before=$($IPT-save | grep -v '^#')
	# A marker, not a line count: after the compare suite the kernel's
	# ring buffer is full, and counting its lines marks nothing.
	local tag="bpfilter_hostile: $how $RANDOM"
	echo "$tag" >/dev/kmsg
	local r0
	r0=$(refused)
	if out=$($IPT -I INPUT -m comment --comment "hostile:$how" -j ACCEPT 2>&1); then
		fail "iptables accepted the table with a '$how' program"
	fi
	echo "iptables said: $out"
	after=$($IPT-save | grep -v '^#')
	[ "$before" = "$after" ] || fail "the table changed: $after"
	[ "$(refused)" = $((r0 + 1)) ] || fail "programs_refused $r0 -> $(refused)"
	dmesg | sed -n "/$tag/,\$p" | grep -qE -- "$pat" ||
		fail "no log line /$pat/: $(dmesg | sed -n "/$tag/,\$p")"
	! pings || fail "the old program is no longer in force: the peer's ping passed"
	state_is running || fail "helper state $(<$S/state)"
}

# A helper that takes a table the module then refuses (its answer is one
# counter short), and refuses the module's ruleset put back: the module
# must replace it, and the new helper must hold the module's ruleset, the
# one in force.  Before, that helper went on answering iptables from the
# refused table.
test_stale() {
	local before after pid r0 out tag="bpfilter_hostile: stale $RANDOM"
	before=$($IPT-save | grep -v '^#')
	pid=$(<$S/pid)
	r0=$(<$S/restarts)
	echo "$tag" >/dev/kmsg
	if out=$($IPT -I INPUT -m comment --comment "hostile:stale" -j ACCEPT 2>&1); then
		fail "iptables accepted a change the helper answered wrongly"
	fi
	echo "iptables said: $out"
	wait_for 5 pid_changed "$pid" || fail "helper $pid was not replaced"
	wait_for 5 state_is running || fail "helper state $(<$S/state)"
	[ "$(<$S/restarts)" = $((r0 + 1)) ] ||
		fail "restarts $r0 -> $(<$S/restarts)"
	after=$($IPT-save | grep -v '^#')
	[ "$before" = "$after" ] ||
		fail "the helper's table is not the one in force: $after"
	dmesg | sed -n "/$tag/,\$p" | grep -q 'replacing helper pid' ||
		fail "no log line of the replacement: $(dmesg | sed -n "/$tag/,\$p")"
	! pings || fail "the old program is no longer in force: the peer's ping passed"
}

# The programs and maps of bpfilter, as bpftool lists them.
bpf_objects() {
	{ bpftool prog show; bpftool map show; } 2>&1 |
		grep -E 'name (bpfilter|bpfilter_cnt|bpfilter_if) '
}

# rmmod unregisters the hooks and frees every program and map, refused
# ones included (they were freed at once).
test_unload() {
	local pid objs
	objs=$(bpf_objects)
	[ "$(grep -c 'name bpfilter ' <<<"$objs")" = 1 ] ||
		fail "not exactly one bpfilter program loaded: $objs"
	peer_down
	pid=$(<$S/pid)
	rmmod bpfilter || fail "rmmod failed"
	wait_for 5 no_helpers || fail "helper $pid left"
	# Programs and maps are freed after an RCU grace period.
	wait_for 5 eval '[ -z "$(bpf_objects)" ]' ||
		fail "left after rmmod: $(bpf_objects)"
}

# A valid program that answers no verdict: the hook drops the packet.
test_verdict() {
	$IPT -F INPUT || fail "flush failed"
	pings || fail "the peer cannot ping with an empty INPUT"
	$IPT -A INPUT -m comment --comment "hostile:verdict" -j ACCEPT ||
		fail "the table with a valid program was refused"
	! pings || fail "a packet passed although the program answered 7"
	$IPT -F INPUT || fail "flush failed"
	pings || fail "the honest program is not back in force"
}

t "bpfilter with a lying compiler loads and enforces honest rules" test_load
t "a program that loops is refused by the verifier" \
	hostile_refused loop 'verifier refused'
t "a program that reads above its stack is refused by the verifier" \
	hostile_refused oob 'verifier refused'
t "a program that names a map that is not its own is refused" \
	hostile_refused map 'is not allowed'
t "a program that takes a map value's address is refused" \
	hostile_refused mapvalue 'is not allowed'
t "a program that calls bpf_ktime_get_ns() is refused" \
	hostile_refused helper 'is not allowed'
t "a program that calls a kfunc is refused" \
	hostile_refused kfunc 'is not allowed'
t "a program with an atomic exchange is refused" \
	hostile_refused atomic 'is not allowed'
t "a program with an atomic fetch-and-add is refused" \
	hostile_refused fetchadd 'is not allowed'
t "a program with a 32-bit atomic add is refused" \
	hostile_refused atomicword 'is not allowed'
t "a program with a legacy packet load is refused" \
	hostile_refused ldabs 'is not allowed'
t "a program for another number of entries is refused" \
	hostile_refused number 'breaks the contract'
t "a program whose length is not its instruction count is refused" \
	hostile_refused count 'breaks the contract'
t "a program over the size cap is refused" \
	hostile_refused huge 'larger than'
t "a helper that keeps a table the module refused is replaced" test_stale
t "a verdict that is no verdict drops the packet" test_verdict
t "rmmod unloads it and its helper" test_unload
t "no kernel warnings" test_dmesg_clean
echo "1..$n"
exit $((failed > 0))
