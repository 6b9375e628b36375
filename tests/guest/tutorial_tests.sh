#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tutorial's module (Documentation/tutorial.rst, code in
# Documentation/tutorial/hello_umh/): checks that it behaves as the tutorial
# says.  Runs INSIDE a test guest (see tests/qemu/guest.sh) as root; $1 is a
# build tree holding the modules built for the running kernel.  Prints TAP
# lines.
set -u

B=${1:?usage: tutorial_tests.sh BUILD_DIR}
KO=$B/Documentation/tutorial/hello_umh/hello_umh.ko
S=/sys/module/hello_umh/umh_hello
P=/sys/module/hello_umh/parameters/name
. "$(dirname "$0")/lib.sh"
load() { insmod "$KO" "$@" || fail "insmod $KO $* failed"; }
unload() { rmmod hello_umh || fail "rmmod failed"; }

mark=0
dmesg_since_mark() { dmesg | awk -v m="$mark" 'NR > m'; }
dmesg_has() { dmesg_since_mark | grep -qF -- "$1"; }
set_mark() { mark=$(dmesg | wc -l); }
need_log() {	# need_log LINE: the kernel log has LINE since the mark
	wait_for 2 dmesg_has "$1" || fail "dmesg lacks '$1': $(dmesg_since_mark)"
}

# write_name VALUE: write the parameter as `echo VALUE > name` does; prints
# the shell's error message, if any.
write_name() { (echo "$1" >"$P") 2>&1; }
name_is() { [ "$(cat $P)" = "$1" ] || fail "name is '$(cat $P)', expected '$1'"; }

# ---- tests ----

test_load() {
	set_mark
	load || return 1
	state_is running || fail "state $(<$S/state)"
	local pid
	pid=$(<$S/pid)
	[ -d /proc/$pid ] || fail "helper pid $pid not running"
	[ "$(cat /proc/$pid/comm)" = hello ] || fail "helper comm $(cat /proc/$pid/comm)"
	need_log "umh: hello[$pid]: hello helper $pid ready" || return 1
	need_log "umh: hello: helper running, pid $pid (generation 1)" || return 1
	need_log "hello_umh: Hello, world!" || return 1
	need_log "hello_umh: 1 + 2 + 3 = 6, counted by helper pid $pid" || return 1
	[ "$(<$S/protocol)" = "hello 0x4f4c4548 1" ] || fail "protocol $(<$S/protocol)"
}

test_name_round_trip() {
	name_is world || return 1
	set_mark
	local err
	err=$(write_name tutorial) || fail "write: $err"
	need_log "hello_umh: Hello, tutorial!" || return 1
	name_is tutorial
}

test_empty_name() {
	local err
	err=$(write_name "") && fail "writing an empty name succeeded"
	grep -q "Invalid argument" <<<"$err" || fail "wrong error: $err"
	name_is tutorial
}

test_long_name() {
	local n64 err
	n64=$(printf 'x%.0s' $(seq 64))
	err=$(write_name "${n64}y") && fail "writing 65 bytes succeeded"
	grep -q "Message too long" <<<"$err" || fail "wrong error: $err"
	name_is tutorial || return 1
	set_mark
	err=$(write_name "$n64") || fail "64 bytes: $err"
	need_log "hello_umh: Hello, $n64!" || return 1
	name_is "$n64"
}

test_kill_restart() {
	local old new err
	old=$(<$S/pid)
	kill -9 "$old"
	wait_for 5 test ! -d /proc/"$old" || fail "helper $old survived SIGKILL"
	set_mark
	err=$(write_name again) || fail "write after SIGKILL: $err"
	need_log "hello_umh: Hello, again!" || return 1
	new=$(<$S/pid)
	[ "$new" != "$old" ] && [ "$new" != 0 ] || fail "pid $new after killing $old"
	[ "$(<$S/restarts)" = 1 ] || fail "restarts $(<$S/restarts)"
	[ "$(helper_pids)" = "$new" ] || fail "helpers: $(helper_pids)"
}

test_rmmod() {
	local t0=$SECONDS
	unload || return 1
	[ $((SECONDS - t0)) -le 2 ] || fail "rmmod took $((SECONDS - t0)) s"
	[ ! -d /sys/module/hello_umh ] || fail "module still there"
	no_helpers || return 1
	local readers
	readers=$(grep -l '^umh-hello' /proc/[0-9]*/comm 2>/dev/null)
	[ -z "$readers" ] || fail "reader threads left: $readers"
}

test_insmod_name() {
	set_mark
	load name=reader || return 1
	need_log "hello_umh: Hello, reader!" || return 1
	name_is reader || return 1
	unload || return 1
	no_helpers
}

t "insmod: helper starts, greets the world, counts to 6" test_load
t "name: writing greets, reading returns the name" test_name_round_trip
t "name: empty name refused by the helper with EINVAL" test_empty_name
t "name: 65 bytes refused with EMSGSIZE, 64 greeted" test_long_name
t "helper killed: a new helper greets the next name" test_kill_restart
t "rmmod: module gone, no helper, no reader thread" test_rmmod
t "insmod name=reader: init greets the given name" test_insmod_name
t "dmesg free of WARNING/BUG/Oops/lockup reports" test_dmesg_clean

echo "1..$n"
[ $failed -eq 0 ]
