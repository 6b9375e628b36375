#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh: build the samples for the Debian 6.12 kernel, boot it in a QEMU
# guest, load the echo module and show its helper answering calls, then
# load bpfilter, program it with the unmodified iptables-legacy and show a
# rule dropping real traffic from a network namespace.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kver=$("$root/scripts/kernels.sh" | tail -n 1)
out=$root/build/$kver

echo "== building for $kver (out of tree, in build/$kver)"
"$root/tests/guest/build.sh" "$kver"
ls -l "$out/samples/echo_umh/echo_umh.ko" "$out/samples/bpfilter/bpfilter.ko"

echo "== booting $kver"
# The guest runs the command in the caller's directory: make it one the
# guest sees (the build tree is shared), wherever make demo was started.
cd "$out"
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

echo
echo '== bpfilter: the iptables sockopt ABI, served by a helper'
run insmod samples/bpfilter/bpfilter.ko
run iptables-legacy -N ssh_guard
run iptables-legacy -A ssh_guard -s 192.0.2.0/24 -m comment --comment 'lab net' -j RETURN
run iptables-legacy -A ssh_guard -j DROP
run iptables-legacy -A INPUT -p tcp --dport 22 -j ssh_guard
run iptables-legacy -A INPUT -p udp -m multiport --dports 53,123 -j ACCEPT
run iptables-legacy -L -n -v --line-numbers
echo '# a target the sample cannot enforce is refused, and nothing changes:'
run iptables-legacy -A INPUT -j LOG || true

echo
echo '== bpfilter enforces: the helper compiled the table to BPF, the module runs it'
ip netns add peer
ip link add veth0 type veth peer name veth1 netns peer
ip addr add 10.99.0.1/24 dev veth0
ip link set veth0 up
ip -n peer addr add 10.99.0.2/24 dev veth1
ip -n peer link set veth1 up
echo '# a peer namespace, 10.99.0.2, behind veth0:'
run ip netns exec peer ping -c 2 -i 0.2 -W 1 10.99.0.1
run iptables-legacy -I INPUT -i veth0 -s 10.99.0.2 -p icmp --icmp-type echo-request -j DROP
echo '# the same ping now meets the rule:'
run ip netns exec peer ping -c 3 -i 0.2 -W 1 10.99.0.1 || true
run iptables-legacy -L INPUT -n -v -x --line-numbers
run bpftool prog show name bpfilter
echo '# the first instructions of the program the helper generated:'
bpftool prog dump xlated name bpfilter | head -n 24

echo
pid=\$(cat /sys/module/bpfilter/umh_bpfilter/pid)
run kill -9 \$pid
echo '# the program stays in force while the helper restarts:'
run ip netns exec peer ping -c 2 -i 0.2 -W 1 10.99.0.1 || true
echo '# the module replays the ruleset into the restarted helper:'
run iptables-legacy-save -c
run grep . /sys/module/bpfilter/umh_bpfilter/state /sys/module/bpfilter/umh_bpfilter/restarts
run dmesg --notime | grep -E 'bpfilter' | tail -n 6
run rmmod bpfilter
echo '# with the module gone, the hooks are gone:'
run ip netns exec peer ping -c 1 -W 1 10.99.0.1
"
