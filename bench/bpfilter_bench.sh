#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpfilter_bench.sh BUILD_DIR [CSV]: the bpfilter sample's benchmarks, run
# INSIDE a test guest (bench/guest_bench.sh calls it; bench/run.sh builds
# BUILD_DIR/bench/bpf_bench).  Rows go to CSV (default
# BUILD_DIR/bench/bpfilter.csv, appended to); progress lines to stdout.
#
# The workload is facebook/bpfilter's dropAfterXRules: N rules
# "-p tcp --dport <1..N> -j ACCEPT" in INPUT, then the policy DROP, and a
# TCP SYN to port 60000 that none of them matches.  For each N:
#
#  - bpf:  the program bpfilter's generator makes of the table, loaded and
#          timed by bpf_bench itself (BPF_PROG_TEST_RUN): xlated
#          instructions, ns per packet, compile and verifier time; and the
#          programs of 10,000 and of 10 rules side by side (PAIRS);
#  - veth: the SYN sent from netns s through a veth pair into INPUT, ns per
#          packet with no firewall at all ("none", before, between and
#          after the others), with the table in ip_tables, and in bpfilter
#          (the two cannot be loaded together: both provide the iptables
#          sockopts);
#  - load: iptables-legacy-restore of the table into an empty one, wall
#          time, with each firewall;
#
# the same for a realistic mix (mix<N>, see mix_rules), and the largest
# table of the verifier target: BIG rules "-s <address>
# -j ACCEPT" restored into bpfilter.
set -euo pipefail

B=${1:?usage: bpfilter_bench.sh BUILD_DIR [CSV]}
CSV=${2:-$B/bench/bpfilter.csv}
SIZES=(0 8 10 128 1000 2048 10000 mix1000 mix10000)
BIG=100000
LOADS=3			# restores per load figure (the median is kept)
REPEAT=2000		# packets per BPF_PROG_TEST_RUN sample
PAIRS=("10000 10" "1000 10")	# programs timed side by side: A / B
CPU=0

say() { printf 'bench: %s\n' "$*"; }
die() { echo "bpfilter_bench: $*" >&2; exit 1; }
pin() { taskset -c "$CPU" "$@"; }

work=$(mktemp -d /tmp/bpfbench.XXXXXX)
cp "$B/samples/bpfilter/bpfilter.ko" "$B/bench/bpf_bench" "$work/"
KO=$work/bpfilter.ko
BB=$work/bpf_bench
PINS=$work/bpffs	# the programs, pinned for the pairs
mkdir "$PINS"
mount -t bpf bpf "$PINS"
cleanup() {
	umount "$PINS" 2>/dev/null || true
	ip netns del s 2>/dev/null || true
	ip link del vs0 2>/dev/null || true
	rmmod bpfilter 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# run CMD...: one measurement; its CSV lines are kept and shown.
run() {
	local out
	out=$("$@") || die "$* failed"
	printf '%s\n' "$out" >>"$CSV"
	printf '%s\n' "$out" | sed 's/^/bench:   /'
}
value() {	# value GROUP CASE IMPL UNIT VALUE
	run printf '%s,%s,%s,%s,%s,%s,0.0,1,1,1\n' "$1" "$2" "$3" "$4" "$5" "$5"
}
ms() { echo $(($(date +%s%N) / 1000000)); }

# ---- the rulesets ----
hdr() {
	printf '%s\n' '*filter' ':INPUT DROP [0:0]' ':FORWARD ACCEPT [0:0]' ':OUTPUT ACCEPT [0:0]'
}
rules() {	# rules N|mixN: a table in iptables-restore form
	hdr
	case $1 in
	mix*) mix_rules "${1#mix}" ;;
	*) awk -v n="$1" 'BEGIN {
		for (i = 1; i <= n; i++)
			print "-A INPUT -p tcp -m tcp --dport " i " -j ACCEPT"
	}' ;;
	esac
	echo COMMIT
}
# mix_rules N: N rules as a host firewall writes them, in blocks of alike
# rules: per 100, a blocklist of 40 source /24s, 20 tcp and 10 udp
# services, 10 multiport rules per input interface, 10 ICMP echo rules
# per destination, 10 ssh rules per admin network with a comment.  The
# blocks become decision trees; the last three are straight-line code.
mix_rules() {
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++) {
			g = int(i / 100); b = i % 100
			if (b < 40)
				printf "-A INPUT -s 11.%d.%d.0/24 -j DROP\n", g, b
			else if (b < 60)
				printf "-A INPUT -p tcp -m tcp --dport %d -j ACCEPT\n", 1000 + g * 20 + b - 40
			else if (b < 70)
				printf "-A INPUT -p udp -m udp --dport %d -j ACCEPT\n", 3000 + g * 10 + b - 60
			else if (b < 80)
				printf "-A INPUT -i eth%d -p tcp -m multiport --dports %d,%d,%d -j ACCEPT\n", b % 4, 5000 + b, 6000 + g, 7000 + b
			else if (b < 90)
				printf "-A INPUT -d 192.168.%d.%d -p icmp -m icmp --icmp-type 8 -j ACCEPT\n", g, b
			else
				printf "-A INPUT -s 172.%d.%d.0/24 -p tcp -m tcp --dport 22 -m comment --comment \"admin %d\" -j ACCEPT\n", 16 + g % 16, b - 90 + 10 * int(g / 16), i
		}
	}'
}
big_rules() {	# big_rules N: N rules "-s 10.<a>.<b>.<c> -j ACCEPT"
	hdr
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "-A INPUT -s 10.%d.%d.%d -j ACCEPT\n", int(i / 62500), int(i / 250) % 250, i % 250 + 1
	}'
	echo COMMIT
}
EMPTY=$(rules 0)
for n in "${SIZES[@]}"; do
	rules "$n" >"$work/rules.$n"
done

# ---- the firewalls ----
ipt_modules() {
	awk '$1 ~ /^(iptable_|ip_tables$|x_tables$|xt_)/ { print $1 }' /proc/modules
}
unload_ip_tables() {
	local m
	if [[ -d /sys/module/iptable_filter ]]; then
		iptables-legacy-restore <<<"$EMPTY" || die "cannot empty ip_tables' filter table"
	fi
	for _ in 1 2 3 4 5; do
		m=$(ipt_modules)
		[[ -z $m ]] && return 0
		# shellcheck disable=SC2086 # module names have no blanks
		rmmod $m 2>/dev/null || true
	done
	die "cannot unload $(ipt_modules)"
}
use() {	# use none|ip_tables|bpfilter
	if [[ -d /sys/module/bpfilter ]]; then
		rmmod bpfilter || die "rmmod bpfilter failed"
	fi
	unload_ip_tables
	case $1 in
	ip_tables)
		{ modprobe iptable_filter && modprobe xt_tcpudp; } || die "modprobe failed"
		;;
	bpfilter)
		insmod "$KO" || die "insmod bpfilter failed: $(dmesg | tail -n 3)"
		;;
	esac
}
restore() {	# restore FILE: into the firewall loaded now
	iptables-legacy-restore <"$1" || die "iptables-legacy-restore $1 failed: $(dmesg | tail -n 3)"
}
# load_time IMPL N: the median of LOADS restores of N rules into an empty table
load_time() {
	local i t0 t=()
	for ((i = 0; i < LOADS; i++)); do
		iptables-legacy-restore <<<"$EMPTY" || die "cannot empty the table"
		t0=$(ms)
		restore "$work/rules.$2"
		t+=($(($(ms) - t0)))
	done
	value load "$2" "$1" ms "$(printf '%s\n' "${t[@]}" | sort -n | sed -n "$(((LOADS + 1) / 2))p")"
}
# Packets per veth sample: about the same time per sample for any N.
per() { local n=${1#mix}; echo $((4000000 / (n + 400))); }

# ---- the path ----
say "kernel $(uname -r), $(nproc) CPUs, measuring on CPU $CPU"
say "topology: netns s (ps0, 10.9.0.2) -- veth -- vs0 (10.9.0.1)"
ip netns add s
ip link add vs0 type veth peer name ps0 netns s
ip addr add 10.9.0.1/24 dev vs0
ip link set vs0 up
ip -n s addr add 10.9.0.2/24 dev ps0
ip -n s link set ps0 up
ip -n s link set lo up
# a permanent neighbour: no ARP in any measured send
ip -n s neigh replace 10.9.0.1 lladdr "$(cat /sys/class/net/vs0/address)" dev ps0 nud permanent
send() {	# send CASE IMPL
	run pin ip netns exec s "$BB" send "$1" "$2" "$(per "$1")"
}

use none
say "veth, no firewall"
send 0 none

use ip_tables
for n in "${SIZES[@]}"; do
	say "ip_tables, $n rules: load, veth"
	load_time ip_tables "$n"
	send "$n" ip_tables
done

use none
say "veth, no firewall, again"
send 0 none_mid

use bpfilter
for n in "${SIZES[@]}"; do
	say "bpfilter, $n rules: load, veth, program"
	load_time bpfilter "$n"
	send "$n" bpfilter
	run pin "$BB" prog "$n" "$REPEAT" "$PINS"
done
for p in "${PAIRS[@]}"; do
	read -r a b <<<"$p"
	say "bpfilter: the programs of $a and of $b rules side by side"
	run pin "$BB" pair "$PINS" "$a" "$b" "$REPEAT"
done

if ((BIG)); then
	say "bpfilter, $BIG address rules: load"
	iptables-legacy-restore <<<"$EMPTY" || die "cannot empty the table"
	big_rules "$BIG" >"$work/rules.big"
	t0=$(ms)
	if iptables-legacy-restore <"$work/rules.big"; then
		value load "big$BIG" bpfilter ms $(($(ms) - t0))
		run pin "$BB" prog "big$BIG" 200
	else
		say "bpfilter did not load $BIG rules: $(dmesg | tail -n 3)"
		value load "big$BIG" bpfilter failed 1
	fi
fi
use none
say "veth, no firewall, at the end"
send 0 none_end
say "done"
