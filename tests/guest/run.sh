#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh KERNEL_RELEASE [SUITE...]: build the modules for one Debian kernel
# out of tree (in build/<release>/, so both kernels can be built side by
# side), boot that kernel in QEMU and run the guest suites in it.
# Suites: echo (default), or paths of scripts (see below).  Prints their
# output (TAP for the test suites).
set -euo pipefail

kver=${1:?usage: run.sh KERNEL_RELEASE [SUITE...]}
shift
suites=("${@:-echo}")
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/$kver
kdir=/lib/modules/$kver/build

[ -d "$kdir" ] || { echo "run.sh: no headers for $kver in $kdir (run scripts/setup.sh)" >&2; exit 1; }

# Mirror the sources; unchanged files keep their mtime, so Kbuild only
# rebuilds what changed.
mkdir -p "$out/tests"
cp -a "$root/include" "$root/kernel" "$root/scripts" "$root/samples" \
	"$root/Kbuild" "$out/"
cp -a "$root/tests/modules" "$root/tests/guest" "$out/tests/"
# The tutorial's module (Documentation/tutorial.rst), so its code is tested.
mkdir -p "$out/Documentation"
cp -a "$root/Documentation/tutorial" "$out/Documentation/"

# The echo sample once more with its helper linked against musl.
mkdir -p "$out/musl"
cp -a "$root/include" "$root/kernel" "$root/scripts" "$root/samples" \
	"$root/Kbuild" "$out/musl/"

log=$out/build.log
if ! { make -C "$kdir" M="$out" modules -j"$(nproc)" &&
       make -C "$kdir" M="$out/tests/modules" modules -j"$(nproc)" &&
       make -C "$kdir" M="$out/Documentation/tutorial/hello_umh" modules -j"$(nproc)" &&
       make -C "$kdir" M="$out/musl" UMH_CC=musl-gcc modules -j"$(nproc)"; } >"$log" 2>&1; then
	echo "run.sh: module build for $kver failed:" >&2
	tail -n 40 "$log" >&2
	exit 1
fi
gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static -pthread \
	-o "$out/echo_client" "$root/tests/guest/echo_client.c"

# A suite is a name (tests/guest/<name>_tests.sh) or the path of a script,
# which is copied into the shared build tree so the guest can see it
# wherever the repository lives.  Each runs as: bash SCRIPT BUILD_DIR.
script=
for s in "${suites[@]}"; do
	if [[ $s == */* ]]; then
		mkdir -p "$out/extra"
		cp -a "$s" "$out/extra/"
		script+="bash $out/extra/$(basename "$s") $out; "
	else
		script+="bash $out/tests/guest/${s}_tests.sh $out; "
	fi
done
exec "$root/tests/qemu/guest.sh" --kernel "$kver" --timeout 1500 \
	--share "$out" --log "$out/console.log" -- "$script"
