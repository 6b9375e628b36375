#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh KERNEL_RELEASE [SUITE...]: build the modules for one Debian kernel
# out of tree (in build/<release>/, so both kernels can be built side by
# side), boot that kernel in QEMU and run the guest suites in it.
# Suites: echo (default), or paths of scripts (see below).  Prints their
# output (TAP for the test suites).
#
# run.sh --debug [SUITE...]: the same on the debug kernel of
# scripts/debug-kernel.sh (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, kmemleak),
# built on first use and cached.  The suites run between
# kdebug_baseline.sh (kmemleak baseline) and kdebug_check.sh, which
# reports, as TAP, whether the debug options are really active and
# whether the kernel reported anything while the suites ran.
#
# run.sh --debug-builtin [SUITE...]: the suites on the debug kernel's
# variant with the bpfilter sample built in
# (scripts/debug-kernel-builtin.sh), first of all, then the same two
# scripts.  Nothing is built for it out of tree (its bpfilter is built in,
# and the suites' modules would clash with it): only the suites are copied,
# into build/<release>-builtin/.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
debug=0 builtin=0
if [[ ${1-} == --debug || ${1-} == --debug-builtin ]]; then
	debug=1
	if [[ $1 == --debug-builtin ]]; then
		builtin=1
		info=$("$root/scripts/debug-kernel-builtin.sh")
	else
		info=$("$root/scripts/debug-kernel.sh")
	fi
	shift
	release='' kbuild='' image='' moddir=''
	while IFS='=' read -r k v; do
		case $k in
		release) release=$v ;;
		build) kbuild=$v ;;
		image) image=$v ;;
		modules) moddir=$v ;;
		esac
	done <<<"$info"
	[[ -n $release && -n $kbuild && -n $image && -n $moddir ]] ||
		{ echo "run.sh: debug-kernel.sh printed no kernel:" >&2; echo "$info" >&2; exit 1; }
	kver=$release
else
	kver=${1:?usage: run.sh KERNEL_RELEASE|--debug [SUITE...]}
	shift
fi
suites=("${@:-echo}")
out=$root/build/$kver

if ((builtin)); then
	out=$root/build/$kver-builtin
	rm -rf "$out/tests/guest"
	mkdir -p "$out/tests"
	cp -a "$root/tests/guest" "$out/tests/"
elif ((debug)); then
	echo "run.sh: building the modules for $kver against $kbuild" >&2
	"$root/tests/guest/build.sh" "$kver" "$kbuild"
else
	"$root/tests/guest/build.sh" "$kver"
fi

# A suite is a name (tests/guest/<name>_tests.sh) or the path of a script,
# which is copied into the shared build tree so the guest can see it
# wherever the repository lives.  Each runs as: bash SCRIPT BUILD_DIR.
script=
((debug && !builtin)) && script+="bash $out/tests/guest/kdebug_baseline.sh $out; "
for s in "${suites[@]}"; do
	if [[ $s == */* ]]; then
		mkdir -p "$out/extra"
		cp -a "$s" "$out/extra/"
		script+="bash $out/extra/$(basename "$s") $out; "
	else
		script+="bash $out/tests/guest/${s}_tests.sh $out; "
	fi
	script+="echo \"# suite $(basename "$s" .sh): \$((SECONDS - t0)) s\"; t0=\$SECONDS; "
done
script="t0=\$SECONDS; $script"
# The guest starts the script in our working directory, which it may not
# see (one under /tmp, /var/tmp or /run is a guest tmpfs there): start it
# in the build tree, which it sees wherever the checkout is.  (The paths
# above are absolute; a suite given as a path was copied already.)
cd "$out"
# UMH_TIMES=1 on the host: each test's time as a TAP comment (lib.sh).
[ -z "${UMH_TIMES-}" ] || script="export UMH_TIMES=1; $script"
if ((debug)); then
	script="export UMH_DEBUG_KERNEL=1; $script"
	((builtin)) && script+="bash $out/tests/guest/kdebug_baseline.sh $out; "
	script+="bash $out/tests/guest/kdebug_check.sh $out; "
	# KASAN, lockdep and kmemleak slow the guest down several times, its
	# boot too (60 s is guest.sh's default deadline).
	export UMH_GUEST_BOOT_TIMEOUT=${UMH_GUEST_BOOT_TIMEOUT:-180}
	# With KASAN and lockdep under TCG, ACPI's AML interpreter is so slow
	# that evaluating the PCI interrupt routing (_PRT) hits the AML loop
	# timeout, once per device, 30 s each, with RCU stall warnings: route
	# PCI interrupts without ACPI (the PIR table).  ACPI stays for power-off.
	export UMH_GUEST_APPEND="pci=noacpi${UMH_GUEST_APPEND:+ $UMH_GUEST_APPEND}"
	exec "$root/tests/qemu/guest.sh" --kernel "$kver" --vmlinuz "$image" \
		--modules "$moddir" --timeout 5400 \
		--share "$out" --log "$out/console.log" -- "$script"
fi
exec "$root/tests/qemu/guest.sh" --kernel "$kver" --timeout 2700 \
	--share "$out" --log "$out/console.log" -- "$script"
