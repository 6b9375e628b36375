#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh KERNEL_RELEASE [KERNEL_BUILD_DIR]: build everything a guest
# runs, for one kernel, out of tree in build/<release>/ (so the 6.1, 6.12
# and debug builds coexist): the echo sample (glibc and musl helpers), the
# test modules, the tutorial's module and the static tools
# (tests/guest/*.c).  The kernel build tree defaults to
# /lib/modules/<release>/build (a Debian kernel's headers); the debug
# kernel passes its O= tree from scripts/debug-kernel.sh.  Used by run.sh
# and scripts/demo.sh.
set -euo pipefail

kver=${1:?usage: build.sh KERNEL_RELEASE [KERNEL_BUILD_DIR]}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/$kver
kdir=${2:-/lib/modules/$kver/build}

[ -d "$kdir" ] || { echo "build.sh: no headers for $kver in $kdir (run scripts/setup.sh)" >&2; exit 1; }

# Mirror the sources; unchanged files keep their mtime, so Kbuild only
# rebuilds what changed.
mkdir -p "$out/tests"
cp -a "$root/include" "$root/kernel" "$root/scripts" "$root/samples" \
	"$root/Kbuild" "$root/defconfig" "$out/"
cp -a "$root/tests/modules" "$root/tests/guest" "$out/tests/"
# The tutorial's module (Documentation/tutorial.rst), so its code is tested.
mkdir -p "$out/Documentation"
cp -a "$root/Documentation/tutorial" "$out/Documentation/"

# The echo sample once more with its helper linked against musl.
mkdir -p "$out/musl"
cp -a "$root/include" "$root/kernel" "$root/scripts" "$root/samples" \
	"$root/Kbuild" "$root/defconfig" "$out/musl/"

log=$out/build.log
if ! { make -C "$kdir" M="$out" modules -j"$(nproc)" &&
       make -C "$kdir" M="$out/tests/modules" modules -j"$(nproc)" &&
       make -C "$kdir" M="$out/Documentation/tutorial/hello_umh" modules -j"$(nproc)" &&
       make -C "$kdir" M="$out/musl" UMH_CC=musl-gcc modules -j"$(nproc)"; } >"$log" 2>&1; then
	echo "build.sh: module build for $kver failed:" >&2
	tail -n 40 "$log" >&2
	exit 1
fi
# Every tests/guest/*.c is a static tool the suites run: build/<kver>/<name>.
for c in "$root"/tests/guest/*.c; do
	gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static -pthread \
		-I"$root/include" -o "$out/$(basename "$c" .c)" "$c"
done

