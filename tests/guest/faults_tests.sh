#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault injection: the echo sample's helper is killed with SIGKILL and
# SIGSEGV at random moments while callers in user space and in the kernel
# keep calling.  Runs INSIDE a test guest (see tests/qemu/guest.sh) as
# root; $1 is a build tree holding the modules built for the running kernel
# and the static echo_client.  Prints TAP lines.
set -u

B=${1:?usage: faults_tests.sh BUILD_DIR}
KO=$B/samples/echo_umh/echo_umh.ko
CLIENT=$B/echo_client
S=/sys/module/echo_umh/umh_echo
. "$(dirname "$0")/lib.sh"

THREADS=4
CALLS=2500		# per thread: 10,000 calls
TIMEOUT_MS=2000		# the module's call timeout
LIMIT_S=600		# the whole run, hung or not

# kill_loop: SIGKILL or SIGSEGV to the current helper every 20-200 ms,
# until killed; prints how many of each it sent.
kill_loop() {
	local kills=0 segvs=0 pid
	trap 'echo "$kills $segvs"; exit 0' TERM
	for (( ; ; )); do
		sleep "0.$(printf %03d $((20 + RANDOM % 180)))"
		pid=$(cat $S/pid 2>/dev/null) || continue
		[ -n "$pid" ] && [ "$pid" != 0 ] || continue
		if ((RANDOM % 2)); then
			kill -KILL "$pid" 2>/dev/null && kills=$((kills + 1))
		else
			kill -SEGV "$pid" 2>/dev/null && segvs=$((segvs + 1))
		fi
	done
}

test_fault_injection() {
	local before after out rc killer t0 sent
	sync
	before=$(snapshot)
	set_mark
	# restart at once, whatever the kill rate: 1000 restarts per 100 ms
	insmod "$KO" timeout_ms=$TIMEOUT_MS max_restarts=1000 restart_window_ms=100 ||
		fail "insmod failed"
	t0=$SECONDS
	# two in-kernel callers as well (they run until rmmod)
	"$CLIENT" stress 2 1 || fail "stress ioctl failed"
	kill_loop >"$B/faults.kills" &
	killer=$!
	# A call waits at most TIMEOUT_MS; allow 3 s for a busy TCG guest.
	out=$(timeout $LIMIT_S "$CLIENT" mixed $THREADS $CALLS $((TIMEOUT_MS + 3000)))
	rc=$?
	kill -TERM $killer
	wait $killer
	read -r kills segvs <"$B/faults.kills"
	{
		echo "$out"
		echo "$((SECONDS - t0)) s; $kills SIGKILL and $segvs SIGSEGV sent"
		echo "status view: calls $(<$S/calls) failures $(<$S/failures) timeouts $(<$S/timeouts) violations $(<$S/violations) restarts $(<$S/restarts)"
	} | tee "$B/faults.summary"
	[ $rc -ne 124 ] || fail "the calls did not finish within $LIMIT_S s: a call hung"
	[ $rc -eq 0 ] || fail "mixed calls failed (status $rc)"
	[ $((kills + segvs)) -ge 10 ] || fail "only $((kills + segvs)) signals sent"
	[ "$(<$S/restarts)" -ge 5 ] || fail "restarts $(<$S/restarts)"
	# a healthy helper never breaks the protocol, however it dies
	[ "$(<$S/violations)" = 0 ] || fail "violations $(<$S/violations)"
	# afterwards: the helper answers, with the tag replayed
	wait_for 10 state_is running || fail "state $(<$S/state)"
	local pid
	pid=$("$CLIENT" ping) || fail "ping afterwards: $pid"
	[ "$(helper_pids)" = "$pid" ] || fail "helper processes: $(helper_pids), expected $pid"
	"$CLIENT" tag | grep -q '^mixed[0-9]' || fail "tag not replayed: $("$CLIENT" tag)"
	"$CLIENT" echo 65536 >/dev/null || fail "echo afterwards"
	t0=$SECONDS
	rmmod echo_umh || fail "rmmod failed"
	[ $((SECONDS - t0)) -le 3 ] || fail "rmmod took $((SECONDS - t0)) s"
	no_helpers || return 1
	local readers
	readers=$(umh_readers)
	[ -z "$readers" ] || fail "reader threads left: $readers"
	sent=$(dmesg_since_mark | grep -c 'stress thread .* last error -108')
	[ "$sent" = 2 ] || fail "stress threads: $(dmesg_since_mark | grep 'stress thread')"
	sync; sleep 2
	after=$(snapshot)
	echo "procs files shmem_kB sunreclaim_kB pid_objs: before $before, after $after"
	footprint_back "$before" "$after"
}

rm -f "$B/faults.summary"
t "10,000 mixed calls while the helper is killed (SIGKILL, SIGSEGV) at random" test_fault_injection
# the numbers, also when the test passed
[ -f "$B/faults.summary" ] && sed 's/^/# /' "$B/faults.summary"
t "dmesg free of WARNING/BUG/Oops/lockup reports" test_dmesg_clean

echo "1..$n"
[ $failed -eq 0 ]
