#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: build the echo sample for the Debian 6.12 kernel, boot it in a
# QEMU guest, load the module and show the helper answering calls.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kver=$("$root/scripts/kernels.sh" | tail -n 1)
out=$root/build/$kver

echo "== building for $kver (out of tree, in build/$kver)"
"$root/tests/guest/build.sh" "$kver"
ls -l "$out/samples/echo_umh/echo_umh.ko"

echo "== booting $kver"
exec "$root/tests/qemu/guest.sh" --kernel "$kver" --timeout 300 \
	--share "$out" -- "
set -e
cd $out
run() { echo \"\\\$ \$*\"; \"\$@\"; }
run insmod samples/echo_umh/echo_umh.ko
run dmesg --notime | grep -E 'umh|echo_umh' | tail -n 3
pid=\$(cat /sys/module/echo_umh/umh_echo/pid)
run ps -o pid,ppid,comm,args -p \$pid
run ./echo_client ping
run ./echo_client add 40 2
run ./echo_client echo 1048576
run ./echo_client concurrent 8 1000
run kill -9 \$pid
run ./echo_client ping
run grep . /sys/module/echo_umh/umh_echo/state /sys/module/echo_umh/umh_echo/restarts /sys/module/echo_umh/umh_echo/calls
run rmmod echo_umh
left=\$(for e in /proc/[0-9]*/exe; do readlink \$e; done 2>/dev/null | grep -c '^/umh-' || true)
echo \"helper processes left after rmmod: \$left\"
"
