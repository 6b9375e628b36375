#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hostile helper's tests.  Runs INSIDE a test guest (see
# tests/qemu/guest.sh) as root; $1 is a build tree holding the modules built
# for the running kernel and the static hostile_client.  Prints TAP lines.
#
# tests/modules/hostile.ko embeds a helper that answers the handshake, then
# misbehaves as each request's cookie says (tests/modules/hostile_uapi.h).
# Each test makes the call(s), then checks the errno each caller got, that
# each returned within its timeout, the status view's counter changes,
# last_error, the kernel log line, that the helper was replaced (or not)
# and that the next call is answered.
set -u

B=${1:?usage: hostile_tests.sh BUILD_DIR}
TM=$B/tests/modules
HC=$B/hostile_client
S=/sys/module/hostile/umh_hostile
. "$(dirname "$0")/lib.sh"

V="hostile: protocol violation by helper pid [0-9]+"
EPROTO=-71 EPIPE=-32 ETIMEDOUT=-110 ECONNRESET=-104 ENOENT=-2

counters() {	# calls failures timeouts violations restarts
	local f
	for f in calls failures timeouts violations restarts; do
		printf '%s ' "$(<$S/$f)"
	done
}

# check_case RESULTS VIOLATIONS TIMEOUTS RESTARTS LAST_ERROR DMESG_ERE SPEC...
# Make one call per SPEC (hostile_client's syntax; the calls start 200 ms
# apart).  RESULTS lists the result each must get ("EPROTO", "OK EPROTO");
# VIOLATIONS, TIMEOUTS and RESTARTS are the expected counter changes;
# LAST_ERROR the expected last_error ("-" not to check); DMESG_ERE a line
# the kernel log must have gained ("" for none).
check_case() {
	local want=$1 dv=$2 dt=$3 dr=$4 le=$5 re=$6
	shift 6
	local pid0 c0 c1 out got d i=0 res ms len spec tmo nfail=0
	pid0=$(<$S/pid)
	read -ra c0 <<<"$(counters)"
	set_mark
	out=$("$HC" "$@") || fail "hostile_client $*: $out"
	got=$(awk '{print $1}' <<<"$out" | xargs)
	[ "$got" = "$want" ] || fail "results '$got', expected '$want' ($out)"
	# Nobody waited past their timeout (+ 1 s of slack for a busy TCG guest).
	while read -r res ms len; do
		spec=${*:i+1:1}
		tmo=$(cut -s -d: -f5 <<<"$spec")
		tmo=${tmo:-2000}
		[ "$ms" -le $((tmo + 1000)) ] || fail "call '$spec' took $ms ms, timeout $tmo ms"
		[ "$res" = OK ] || nfail=$((nfail + 1))
		i=$((i + 1))
	done <<<"$out"
	if [ "$dr" -gt 0 ]; then
		wait_for 5 pid_changed "$pid0" || fail "helper $pid0 not replaced (state $(<$S/state))"
		wait_for 5 state_is running || fail "state $(<$S/state) after the restart"
		wait_for 5 test ! -d /proc/"$pid0" || fail "old helper $pid0 still alive"
	fi
	read -ra c1 <<<"$(counters)"
	d="$((c1[0] - c0[0])) $((c1[1] - c0[1])) $((c1[2] - c0[2])) $((c1[3] - c0[3])) $((c1[4] - c0[4]))"
	echo "calls failures timeouts violations restarts: +${d// / +}; last_error $(<$S/last_error); results: $(xargs <<<"$out")"
	[ "$d" = "$# $nfail $dt $dv $dr" ] ||
		fail "counter changes '$d', expected '$# $nfail $dt $dv $dr'"
	[ "$le" = - ] || [ "$(<$S/last_error)" = "$le" ] ||
		fail "last_error $(<$S/last_error), expected $le"
	[ -z "$re" ] || dmesg_hasE "$re" || fail "dmesg lacks /$re/: $(dmesg_since_mark)"
	[ "$dr" -gt 0 ] || [ "$(<$S/pid)" = "$pid0" ] || fail "helper $pid0 was replaced"
	out=$("$HC" ping:0)
	[ "${out%% *}" = OK ] || fail "the next call got: $out"
	# Violation lines are rate-limited (10 per 5 s): keep under that.
	[ "$dv" = 0 ] || sleep 0.5
}

# violation COOKIE WHY [SPEC]: one call, -EPROTO, counted, helper replaced
violation() {
	check_case EPROTO 1 0 1 $EPROTO "$V: $2" "${3:-ping:$1}"
}

test_load() {
	set_mark
	insmod "$TM/hostile.ko" || fail "insmod hostile: $(dmesg_since_mark)"
	state_is running || fail "state $(<$S/state)"
	out=$("$HC" ping:0 echo:0:4096:4096 sink:0:100000)
	[ "$(awk '{print $1}' <<<"$out" | xargs)" = "OK OK OK" ] || fail "$out"
	[ "$(<$S/violations) $(<$S/restarts)" = "0 0" ] || fail "counters $(counters)"
}

# ---- headers ----
test_garbage() { violation 2 "malformed reply header"; }
test_version() { violation 29 "malformed reply header"; }
test_as_request() { violation 25 "malformed reply header"; }
test_flag_unknown() { violation 26 "malformed reply header"; }
test_reserved() { violation 27 "malformed reply header"; }
test_max_reply() { violation 28 "malformed reply header"; }
# ---- lengths: refused on the header, before any payload byte or allocation
test_len_2g() { violation 3 "malformed reply header"; }
test_len_cap() { violation 8 "malformed reply header \(1, 2097153\)"; }
test_len_repcap() { violation 9 "reply size does not fit the op \(65, 64\)" echo:9:16:64; }
test_short_fixed() { violation 4 "reply size does not fit the op \(28, 32\)"; }
# ---- ids and ops
test_unknown_id() { violation 1 "reply to no pending request"; }
test_done_id() { violation 10 "reply to no pending request"; }
test_held_id() {
	# A sleep call the helper holds, then a ping answered with the held
	# call's id: both callers get -EPROTO, one violation.
	check_case "EPROTO EPROTO" 1 0 1 $EPROTO "$V: reply op differs from request \(1, 4\)" \
		sleep:12:0:0:4000 ping:11:0:0:4000
}
test_wrong_op() { violation 13 "reply op differs from request \(2, 1\)"; }
test_op_range() { violation 14 "malformed reply header \(32768,"; }
# ---- statuses
test_status_pos() { violation 21 "malformed reply header"; }
test_status_min() { violation 22 "malformed reply header"; }
test_status_512() { violation 5 "malformed reply header"; }
test_status_payload() { violation 23 "malformed reply header"; }
test_status_enoent() { check_case ENOENT 0 0 0 $ENOENT "" ping:24; }
# ---- frames cut short
test_hdr_hang() {
	check_case ETIMEDOUT 0 1 1 $ETIMEDOUT "hostile: helper pid [0-9]+ stalled in its reply to ping; killing it" ping:15:0:0:1000
}
test_half_hdr_hang() {
	check_case ETIMEDOUT 0 1 1 $ETIMEDOUT "hostile: helper pid [0-9]+ did not answer ping within its deadline; killing it" ping:16:0:0:1000
}
test_half_payload_hang() {
	check_case ETIMEDOUT 0 1 1 $ETIMEDOUT "hostile: helper pid [0-9]+ stalled in its reply to ping; killing it" ping:7:0:0:1000
}
test_half_hdr_exit() {
	check_case EPIPE 0 0 1 $EPIPE "hostile: helper pid [0-9]+ lost \(-32\); restarting" ping:6
}
test_half_payload_exit() {
	check_case EPIPE 0 0 1 $EPIPE "hostile: helper pid [0-9]+ lost \(-32\); restarting" ping:17
}
test_close_stdout() {
	check_case ECONNRESET 0 0 1 $ECONNRESET "hostile: helper pid [0-9]+ lost \(-104\); restarting" ping:30
}
# ---- floods: killed at the first bad frame, kernel memory unchanged
flood() {	# flood COOKIE WHY
	local before after
	sync
	before=$(snapshot)
	check_case OK 1 0 1 $EPROTO "$V: $2" "ping:$1" || return 1
	sync; sleep 1
	after=$(snapshot)
	echo "procs files shmem_kB sunreclaim_kB pid_objs: before $before, after $after"
	footprint_back "$before" "$after" 1024
}
test_flood_replies() { flood 18 "reply to no pending request"; }
test_flood_bytes() { flood 19 "malformed reply header"; }
test_stderr_flood() {
	local before after lines
	sync
	before=$(snapshot)
	check_case OK 0 0 0 - "" ping:31:0:0:20000 || return 1
	lines=$(dmesg_since_mark | grep -c 'hostile\[[0-9]*\]: stderr flood line')
	echo "65536 stderr lines written, $lines logged"
	[ "$lines" -ge 1 ] && [ "$lines" -le 1000 ] || fail "$lines stderr lines logged: not rate-limited?"
	sync; sleep 1
	after=$(snapshot)
	echo "procs files shmem_kB sunreclaim_kB pid_objs: before $before, after $after"
	footprint_back "$before" "$after" 1024
}
# ---- a helper that stops reading its stdin
test_stop_reading() {
	local out
	out=$("$HC" ping:20)
	[ "${out%% *}" = OK ] || fail "ping:20: $out"
	# A 1 MiB request fills the 64 KiB pipe and stalls; a ping queued
	# behind it waits for the request stream.  Both end by their deadline.
	check_case "ETIMEDOUT ETIMEDOUT" 0 1 1 $ETIMEDOUT \
		"hostile: request [0-9]+ cut short \(-110\) after [0-9]+ bytes; killing helper pid" \
		echo:0:1048576:16:1000 ping:0:0:0:1500
}
# ---- a caller that reads the reply stream (channel.rst, "Who reads a reply")
test_reading_caller() {
	# The held sleep call is alone in flight, so its caller reads the
	# reply stream itself; the ping's reply comes while it waits, and it
	# hands it over.
	check_case "ETIMEDOUT OK" 0 1 1 $ETIMEDOUT \
		"hostile: helper pid [0-9]+ did not answer sleep within its deadline; killing it" \
		sleep:12:0:0:3000 ping:0:0:0:3000
}
test_reading_caller_left() {
	# The same, and the ping's reply stops halfway: the ping's caller
	# leaves at its deadline while the sleep's caller fills its buffer,
	# and gets it back in time.
	check_case "ETIMEDOUT ETIMEDOUT" 0 1 1 $ETIMEDOUT \
		"hostile: helper pid [0-9]+ stalled in its reply to ping; killing it" \
		sleep:12:0:0:4000 ping:7:0:0:1000
}
test_reading_caller_ahead() {
	# The held sleep call's caller reads the stream; both replies come
	# in one write, so it reads the echo's with its own (one read of up
	# to 256 bytes) and, done, hands the rest to the reader thread.
	check_case "ENOENT OK" 0 0 0 $ENOENT "" \
		sleep:12:0:0:3000 echo:34:16:16:3000
}
# ---- a handshake that fails on restart
# The helper answers a restart's hello with an error status, -ESHUTDOWN
# and -EBUSY among them (errnos the SDK uses for a stop and for user-mode
# helpers disabled): every restart fails and counts, until the cap, and
# then calls fail at once.  Loaded with a cap of 3; reloaded as before at
# the end.
test_hello_status() {
	local st out ms pid0
	for st in -108 -16; do
		rmmod hostile || fail "rmmod hostile"
		insmod "$TM/hostile.ko" max_restarts=3 || fail "insmod hostile max_restarts=3"
		pid0=$(<$S/pid)
		set_mark
		echo "$st" >/run/hostile-hello-status
		kill -9 "$pid0"
		wait_for 10 state_is failed ||
			fail "hello status $st: state $(<$S/state) 10 s after the kill, restarts $(<$S/restarts), last_error $(<$S/last_error)"
		rm -f /run/hostile-hello-status
		[ "$(<$S/restarts)" = 3 ] || fail "hello status $st: $(<$S/restarts) restarts, expected 3"
		dmesg_hasE "hostile: handshake with helper pid [0-9]+ failed: $st" ||
			fail "hello status $st: dmesg lacks the handshake failure: $(dmesg_since_mark)"
		dmesg_hasE "hostile: 3 restarts within [0-9]+ ms; restart cap reached" ||
			fail "hello status $st: dmesg lacks the cap: $(dmesg_since_mark)"
		out=$("$HC" ping:0:0:0:2000)
		read -r _ ms _ <<<"$out"
		[ "${out%% *}" = ENOTCONN ] && [ "$ms" -lt 1000 ] ||
			fail "hello status $st: a call on the failed helper got: $out"
		echo "hello status $st: failed after $(<$S/restarts) restarts; a call: $out"
	done
	rmmod hostile || fail "rmmod hostile"
	insmod "$TM/hostile.ko" || fail "insmod hostile"
	state_is running || fail "state $(<$S/state) after the reload"
}

test_unload() {
	echo "status view: $(counters) last_error $(<$S/last_error)"
	# after every case, exactly one helper process: the current one
	[ "$(helper_pids)" = "$(<$S/pid)" ] || fail "helper processes: $(helper_pids), current $(<$S/pid)"
	local t0=$SECONDS
	rmmod hostile || fail "rmmod hostile"
	[ $((SECONDS - t0)) -le 3 ] || fail "rmmod took $((SECONDS - t0)) s"
	no_helpers || return 1
	local readers
	readers=$(umh_readers)
	[ -z "$readers" ] || fail "reader threads left: $readers"
}

t "hostile module loads, its helper answers proper calls" test_load
t "garbage instead of a header: EPROTO, violation, replaced" test_garbage
t "wrong wire version: EPROTO, violation" test_version
t "reply frame flagged as a request: EPROTO, violation" test_as_request
t "unknown flag bit: EPROTO, violation" test_flag_unknown
t "reserved field set: EPROTO, violation" test_reserved
t "max_reply set in a reply: EPROTO, violation" test_max_reply
t "2 GiB payload announced: EPROTO, violation" test_len_2g
t "payload cap + 1 announced: EPROTO, violation" test_len_cap
t "reply above the caller's reply cap: EPROTO, violation" test_len_repcap
t "fixed reply of the wrong size: EPROTO, violation" test_short_fixed
t "reply with an unknown id: EPROTO, violation" test_unknown_id
t "reply with the id of a completed call: EPROTO, violation" test_done_id
t "reply with the id of another in-flight call: both EPROTO" test_held_id
t "reply with another op: EPROTO, violation" test_wrong_op
t "reply op above UMH_OP_MAX: EPROTO, violation" test_op_range
t "status +5: EPROTO, violation" test_status_pos
t "status INT_MIN: EPROTO, violation" test_status_min
t "status -512 (kernel-internal): EPROTO, violation" test_status_512
t "error status with a payload: EPROTO, violation" test_status_payload
t "status -ENOENT is passed on, no violation, no restart" test_status_enoent
t "header, then silence: ETIMEDOUT in time, replaced" test_hdr_hang
t "half a header, then silence: ETIMEDOUT in time, replaced" test_half_hdr_hang
t "header and half a payload, then silence: ETIMEDOUT, replaced" test_half_payload_hang
t "half a header, then exit: EPIPE, replaced" test_half_hdr_exit
t "header and half a payload, then exit: EPIPE, replaced" test_half_payload_exit
t "closes its stdout and lingers: ECONNRESET, killed, replaced" test_close_stdout
t "a caller reading the reply stream hands another caller its reply" test_reading_caller
t "a caller that leaves gets its buffer back from a reading caller in time" test_reading_caller_left
t "a reading caller leaves another call's reply, read ahead, to the reader thread" test_reading_caller_ahead
t "flood of unsolicited replies: killed at the first, no memory growth" test_flood_replies
t "endless bytes after a reply: killed at once, no memory growth" test_flood_bytes
t "stderr flood: rate-limited, calls answered, no memory growth" test_stderr_flood
t "stops reading: a 1 MiB request and a queued call get ETIMEDOUT in time" test_stop_reading
t "handshake failing with any errno on restart: restarts counted up to the cap" test_hello_status
t "rmmod leaves no helper and no reader thread" test_unload
t "dmesg free of WARNING/BUG/Oops/lockup reports" test_dmesg_clean

echo "# hostile suite: $SECONDS s"
echo "1..$n"
[ $failed -eq 0 ]
