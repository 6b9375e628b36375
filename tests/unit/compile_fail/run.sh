#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Compile-time type safety of the typed RPC: a correct helper compiles, and
# each bad_*.c fails to build for the reason it was written for.  Every bad
# file also has a control build (-DUMH_CF_CONTROL, the defect removed) that
# must succeed, so a failure can only come from the defect itself.
#
#	[CC=gcc|musl-gcc] run.sh [OUTDIR]
#
# Prints TAP lines; exits non-zero if any check failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
inc=$(cd "$here/../../../include" && pwd)
cc=${CC:-cc}
out=${1:-}
if [ -z "$out" ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

LC_ALL=C
export LC_ALL
to=''
command -v timeout >/dev/null 2>&1 && to='timeout 120'

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

# build SRC EXE [extra flags]: compile and link, output in $out/EXE.log
build() {
	src=$1 exe=$2
	shift 2
	$to $cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$inc" "$@" \
		-o "$out/$exe" "$here/$src" >"$out/$exe.log" 2>&1
}

show_log() {
	sed -e 's/^/#   /' "$1" | head -n 20
}

echo "# compile_fail with $cc ($($cc --version 2>/dev/null | head -n 1))"

# The control: a correct helper builds, and runs (EOF on stdin: exit 0).
if build good_helper.c good_helper; then
	tap 1 "good_helper.c compiles and links"
	if $to "$out/good_helper" </dev/null >/dev/null 2>&1; then
		tap 1 "good_helper exits 0 on EOF"
	else
		tap 0 "good_helper exits 0 on EOF"
	fi
else
	tap 0 "good_helper.c compiles and links"
	show_log "$out/good_helper.log"
fi

# case FILE EXPECTED-DIAGNOSTIC (extended regex) WHAT
check_bad() {
	src=$1 re=$2 what=$3
	base=${src%.c}
	if build "$src" "$base.control" -DUMH_CF_CONTROL; then
		tap 1 "$src with the defect removed builds (control)"
	else
		tap 0 "$src with the defect removed builds (control)"
		show_log "$out/$base.control.log"
	fi
	if build "$src" "$base"; then
		tap 0 "$src must not build ($what)"
		return
	fi
	if grep -Eq "$re" "$out/$base.log"; then
		tap 1 "$src does not build: $what"
	else
		tap 0 "$src fails, but not with /$re/ ($what)"
		show_log "$out/$base.log"
	fi
}

check_bad bad_handler.c "conflicting types for '?cf_handle_ping" \
	"handler request type differs from the declaration"
check_bad bad_reply_type.c "conflicting types for '?cf_handle_sum" \
	"handler reply type differs from the declaration"
check_bad bad_var_shape.c "conflicting types for '?cf_handle_echo" \
	"variable-reply handler written with a fixed-reply shape"
check_bad bad_dup_op.c "duplicate case value" \
	"two ops with the same number"
check_bad bad_op_zero.c "op number of zero out of range" \
	"op number 0 (the SDK's hello)"
check_bad bad_missing_handler.c "undefined reference to .?cf_handle_sum" \
	"a declared op without its handler"
check_bad bad_no_sandbox.c "'?cf_umh_sandbox'? undeclared" \
	"a helper that declares no sandbox"

echo "1..$n"
[ "$fail" = 0 ]
