#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kdebug_baseline.sh BUILD_DIR: runs INSIDE a debug-kernel guest (run.sh
# --debug) before the suites.  Prints no tests, only TAP comments.
#
# kmemleak also reports objects the kernel itself leaks, or seems to leak,
# while booting (early allocations whose only reference it cannot see, e.g.
# one kept in a physical address or in an encoded pointer): nothing to do
# with our modules.  So: scan now, remember what boot left, and
# `echo clear`, which marks every object reported so far grey: kmemleak
# never reports those again.  kdebug_check.sh then scans after the suites,
# so what it shows was allocated, and lost, while they ran.
#
# kmemleak skips objects younger than 5 s (its minimum age) when it scans,
# so a boot allocation made just before this scan would escape the clear
# and show up after the suites: wait until the guest has been up 10 s.
set -u
KML=/sys/kernel/debug/kmemleak
ST=/tmp/umh-kdebug
mkdir -p "$ST"

grep -qw debugfs /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
# The dmesg position where the suites start (the check reports reports
# from boot and from the suites separately).
dmesg | wc -l >"$ST/dmesg-start"
# The boot log, for kdebug_check.sh's built-in helper check: the suites
# may fill the ring buffer before it runs.
dmesg >"$ST/boot-dmesg"

if [ -w "$KML" ]; then
	up=$(cut -d. -f1 /proc/uptime)
	[ "$up" -ge 10 ] || sleep $((10 - up))
	echo scan >"$KML"
	cat "$KML" >"$ST/boot-leaks"
	echo clear >"$KML"
	echo "# kmemleak baseline: $(grep -c '^unreferenced object' "$ST/boot-leaks") object(s) reported at boot, cleared"
else
	echo "# kmemleak: $KML is not writable (kdebug_check.sh will fail)"
fi
