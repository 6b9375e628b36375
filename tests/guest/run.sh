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

"$root/tests/guest/build.sh" "$kver"

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
exec "$root/tests/qemu/guest.sh" --kernel "$kver" --timeout 2700 \
	--share "$out" --log "$out/console.log" -- "$script"
