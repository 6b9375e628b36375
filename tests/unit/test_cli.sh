#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The umh_host command-line tool against the echo helper.
#
#	test_cli.sh UMH_HOST ECHO_HELPER
#
# Prints TAP lines; exits non-zero if any check failed.
set -u

host=${1:?usage: test_cli.sh UMH_HOST ECHO_HELPER}
helper=${2:?usage: test_cli.sh UMH_HOST ECHO_HELPER}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
to=''
command -v timeout >/dev/null 2>&1 && to='timeout 60'

n=0
fail=0
tap() {	# tap PASS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=$((fail + 1))
	fi
}
check() {	# check DESCRIPTION COMMAND...: pass if COMMAND succeeds
	what=$1
	shift
	if "$@"; then tap 1 "$what"; else tap 0 "$what"; fi
}
has_line() {	# has_line FILE EXTENDED-REGEX (whole line)
	grep -Eqx -- "$2" "$1"
}
dump() {
	sed -e 's/^/#   /' "$@"
}

echo "# umh_host CLI: $host with $helper"

# ping (cookie 0x2a), echo "hello", echo with too small a reply, an unknown
# op, add 3 + -4
$to "$host" --name echo "$helper" 0x4f484345 1 \
	1 2a00000000000000 4096 \
	3 68656c6c6f 100 \
	3 68656c6c6f 2 \
	999 - 10 \
	2 0300000000000000fcffffffffffffff 8 \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
check "calls to the echo helper: exit 0" [ "$rc" = 0 ]
check "hello line" has_line "$tmp/out" \
	'hello status=0 proto_id=0x4f484345 version=1 max_payload=16777216 pid=[1-9][0-9]*'
check "ping: cookie 2a echoed in a fixed-size pong" has_line "$tmp/out" \
	'op=1 status=0 len=[0-9]+ data=2a000000[0-9a-f]{8}01[0-9a-f]*'
check "echo: hello back" has_line "$tmp/out" \
	'op=3 status=0 len=5 data=68656c6c6f'
check "echo with max reply 2: status -90 (EMSGSIZE)" has_line "$tmp/out" \
	'op=3 status=-90 len=0 data='
check "op 999: status -95 (EOPNOTSUPP)" has_line "$tmp/out" \
	'op=999 status=-95 len=0 data='
check "add 3 + -4 = -1" has_line "$tmp/out" \
	'op=2 status=0 len=8 data=ffffffffffffffff'
check "helper exit status printed" has_line "$tmp/out" 'exit=0'
check "helper stderr re-printed as 'echo: ...' with <6> stripped" \
	has_line "$tmp/err" 'echo: echo helper [0-9]+ ready'
[ "$fail" = 0 ] || dump "$tmp/out" "$tmp/err"

# wrong protocol id: the handshake fails, the helper is killed
$to "$host" "$helper" 0x1234 1 1 2a00000000000000 4096 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "wrong protocol id: exit 1" [ "$rc" = 1 ]
check "wrong protocol id: hello status -71 (EPROTO), helper's own id shown" \
	has_line "$tmp/out" 'hello status=-71 proto_id=0x4f484345 .*'
check "wrong protocol id: no call made" \
	sh -c "! grep -q '^op=' '$tmp/out'"
check "wrong protocol id: default name 'helper' prefixes its log" \
	grep -q '^helper: umh: kernel expects protocol 0x1234' "$tmp/err"

# timeout: sleep 2 s with a 300 ms deadline
$to "$host" --timeout 300 "$helper" 0x4f484345 1 4 d007000000000000 8 \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
check "sleep past the deadline: exit 1" [ "$rc" = 1 ]
check "sleep past the deadline: error -110 (ETIMEDOUT)" \
	grep -q '^op=4 error=-110' "$tmp/out"
check "sleep past the deadline: helper killed (signal 9)" \
	has_line "$tmp/out" 'signal=9'

# usage errors
$to "$host" "$helper" 0x4f484345 >/dev/null 2>&1
check "missing VERSION: usage error (2)" [ "$?" = 2 ]
$to "$host" "$helper" 0x4f484345 1 3 abc 10 >/dev/null 2>&1
check "odd hex payload: usage error (2)" [ "$?" = 2 ]
$to "$host" "$helper" 0x4f484345 1 3 zz 10 >/dev/null 2>&1
check "non-hex payload: usage error (2)" [ "$?" = 2 ]
$to "$host" "/nonexistent/helper" 1 1 >/dev/null 2>"$tmp/err"
rc=$?
check "missing helper: exit 1 with a message" \
	sh -c "[ $rc = 1 ] && grep -q 'No such file' '$tmp/err'"
$to "$host" --name bad-name "$helper" 1 1 >/dev/null 2>&1
check "name the kernel would refuse: exit 1" [ "$?" = 1 ]

echo "1..$n"
[ "$fail" = 0 ]
