#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Each public user-space header compiles on its own, twice in one TU
# (include guard), with -std=c11 -pedantic-errors -Wall -Wextra -Werror.
#
#	check_headers.sh CC OUTDIR
#
# helper.h and umh_host.h are documented to need -D_GNU_SOURCE and get it;
# wire.h and rpc.h must not need it.  With a glibc compiler, wire.h is also
# compiled after <linux/types.h> (identical typedefs); musl has no
# <linux/*.h>, so that case is skipped for musl-gcc.  compat.h and
# umh_blob.h are kernel-only and not compiled here.  Prints TAP lines.
set -u

cc=${1:?usage: check_headers.sh CC OUTDIR}
out=${2:?usage: check_headers.sh CC OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mkdir -p "$out"
LC_ALL=C
export LC_ALL
to=''
command -v timeout >/dev/null 2>&1 && to='timeout 120'

n=0
fail=0
flags="-std=c11 -pedantic-errors -Wall -Wextra -Werror"
echo "# public headers with $cc $flags"

# tu ID DESCRIPTION EXTRA-FLAGS LINES...: compile a TU made of LINES
tu() {
	name=$1 what=$2 extra=$3
	shift 3
	printf '%s\n' "$@" 'int umh_header_tu_dummy;' >"$out/$name.c"
	n=$((n + 1))
	# shellcheck disable=SC2086
	if $to $cc $flags $extra -I"$top/include" -I"$top/tools/umh_host" \
		-c "$out/$name.c" -o "$out/$name.o" >"$out/$name.log" 2>&1; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		sed -e 's/^/#   /' "$out/$name.log" | head -n 20
		fail=$((fail + 1))
	fi
}

tu hdr_wire "umh_sdk/wire.h alone, twice" "" \
	'#include <umh_sdk/wire.h>' '#include <umh_sdk/wire.h>'
tu hdr_rpc "umh_sdk/rpc.h alone, twice" "" \
	'#include <umh_sdk/rpc.h>' '#include <umh_sdk/rpc.h>'
tu hdr_rpc_wire "umh_sdk/rpc.h before wire.h" "" \
	'#include <umh_sdk/rpc.h>' '#include <umh_sdk/wire.h>'
tu hdr_sandbox "umh_sdk/sandbox.h alone, twice (-D_GNU_SOURCE)" "-D_GNU_SOURCE" \
	'#include <umh_sdk/sandbox.h>' '#include <umh_sdk/sandbox.h>'
tu hdr_helper "umh_sdk/helper.h alone, twice (-D_GNU_SOURCE)" "-D_GNU_SOURCE" \
	'#include <umh_sdk/helper.h>' '#include <umh_sdk/helper.h>'
tu hdr_host "umh_host.h alone, twice (-D_GNU_SOURCE)" "-D_GNU_SOURCE" \
	'#include "umh_host.h"' '#include "umh_host.h"'
tu hdr_host_helper "umh_host.h with helper.h (-D_GNU_SOURCE)" "-D_GNU_SOURCE" \
	'#include <umh_sdk/helper.h>' '#include "umh_host.h"'
tu hdr_echo_proto "echo_proto.h alone, twice" "-I$top/samples/echo_umh" \
	'#include "echo_proto.h"' '#include "echo_proto.h"'
case $cc in
*musl*)
	echo "# $cc: <linux/types.h> + wire.h skipped (musl has no <linux/*.h>)"
	;;
*)
	tu hdr_linux_wire "<linux/types.h> then umh_sdk/wire.h" "" \
		'#include <linux/types.h>' '#include <umh_sdk/wire.h>'
	tu hdr_wire_linux "umh_sdk/wire.h then <linux/types.h>" "" \
		'#include <umh_sdk/wire.h>' '#include <linux/types.h>'
	;;
esac
echo "1..$n"
[ "$fail" = 0 ]
