#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bpfilter_dataplane_tests.sh BUILD_DIR: bpfilter's data plane against the
# real ip_tables, with packets.  Runs INSIDE a test guest as root; BUILD_DIR
# holds bpfilter.ko for the running kernel, the static dp_probe and dp_gen,
# and tests/guest/bpfilter_corpus/.  Prints TAP lines.
#
# Topology: netns a (pa0, pa1) -- veth -- init_net (va0, va1, vb0) -- veth
# -- netns b (pb0); init_net routes (ip_forward=1), so probes cross its
# filter table at INPUT (a or b to an init_net address), FORWARD (a <-> b,
# a0 -> a1) and OUTPUT (init_net to a, b, or itself over lo).  dp_probe
# (tests/guest/dp_probe.c) sends a whole probe set and records where each
# probe arrived and what sendto said; iptables-legacy-save -c gives the
# counters.  Every case (a ruleset and a probe set) runs under ip_tables
# (phase 1), then under bpfilter.ko (phase 2); deliveries, sendto errors,
# counters and what the tools printed must be identical.
#
# Cases: hand-written rulesets for every match, inversion, jump, goto,
# RETURN and policy (with a fixed probe set), an interface renamed while
# its rules are loaded, random rulesets and probes from dp_gen
# (tests/guest/dp_gen.c), every corpus script of bpfilter_compare; then,
# with bpfilter, rulesets swapped under a stream of probes and the helper
# killed under a stream.
#
# Environment (guest.sh passes none through: set it in the guest command):
#   BPF_DP_REAL_ONLY=1  phase 1 only (ip_tables), with its self-checks
#   BPF_DP_SEED=N       seed of the random rulesets (default: random, printed)
#   BPF_DP_CASES=N      random rulesets (default 16, 8 on the debug kernel)
#   BPF_DP_PROBES=N     probes per random ruleset (default 64)
#   BPF_DP_CORPUS=0     skip the corpus rulesets
#   BPF_DP_KEEP=1       keep the work files in BUILD_DIR/bpfilter_dataplane.out
set -u

B=${1:?usage: bpfilter_dataplane_tests.sh BUILD_DIR}
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ipt_lib.sh"
KO=$B/samples/bpfilter/bpfilter.ko
PROBE=$B/dp_probe
GEN=$B/dp_gen
CORPUS=$B/tests/guest/bpfilter_corpus
S=/sys/module/bpfilter/umh_bpfilter
REAL_ONLY=${BPF_DP_REAL_ONLY:-0}
if debug_kernel; then CASES=${BPF_DP_CASES:-8}; else CASES=${BPF_DP_CASES:-16}; fi
NPROBES=${BPF_DP_PROBES:-64}
# The replacement stream's length: on the debug kernel each bpfilter
# replacement (compile, verify, load under KASAN) takes over a second.
if debug_kernel; then SWAP_SECS=15; else SWAP_SECS=5; fi
SEED=${BPF_DP_SEED:-$(( (RANDOM << 15 | RANDOM) ))}
if [ "${BPF_DP_KEEP:-0}" = 1 ]; then
	W=$B/bpfilter_dataplane.out
	rm -rf "$W" && mkdir -p "$W"
else
	W=$(mktemp -d /tmp/bpf_dp.XXXXXX)
fi
mkdir -p "$W/real" "$W/bpf" "$W/cases" "$W/rand"
# dp_probe runs twice per case: from the guest's tmpfs, not from the 9p
# share, where each exec costs 70 ms more under TCG.
if [ -x "$PROBE" ]; then
	cp "$PROBE" /tmp/dp_probe.$$ && PROBE=/tmp/dp_probe.$$
fi
echo "# bpfilter data plane on $(uname -r): seed $SEED (BPF_DP_SEED=$SEED to replay)," \
	"$CASES random rulesets x $NPROBES probes"

# ---- topology ----
# The init_net sysctls the topology changes, as they were: restored at the
# end, so that the suites after this one (pings in bpfilter_hostile) see
# the guest as they would have.
saved_sysctls=()
for k in net.ipv6.conf.all.disable_ipv6 net.ipv6.conf.default.disable_ipv6 \
	net.ipv4.conf.all.send_redirects net.ipv4.conf.default.send_redirects \
	net.ipv4.conf.all.rp_filter net.ipv4.conf.default.rp_filter \
	net.ipv4.conf.all.accept_redirects net.ipv4.conf.default.accept_redirects \
	net.ipv4.icmp_ratelimit net.ipv4.icmp_msgs_per_sec net.ipv4.icmp_msgs_burst \
	net.ipv4.icmp_echo_ignore_all net.ipv4.icmp_echo_ignore_broadcasts \
	net.ipv4.ipfrag_time net.ipv4.ip_forward; do
	v=$(sysctl -n "$k" 2>/dev/null) && saved_sysctls+=("$k=$v")
done
MAC_va0=02:00:00:00:0a:01 MAC_pa0=02:00:00:00:0a:02
MAC_va1=02:00:00:00:0b:01 MAC_pa1=02:00:00:00:0b:02
MAC_vb0=02:00:00:00:0c:01 MAC_pb0=02:00:00:00:0c:02

neighbours() {	# permanent neighbours: no ARP ever, nothing queued
	local x
	for x in 10.1.0.2 10.1.0.3 10.1.0.130; do
		ip neigh replace $x lladdr $MAC_pa0 dev va0 nud permanent || return 1
	done
	for x in 10.2.0.2 10.2.0.77; do
		ip neigh replace $x lladdr $MAC_pa1 dev "${1:-va1}" nud permanent || return 1
	done
	for x in 10.3.0.2 10.3.0.3 10.3.0.200; do
		ip neigh replace $x lladdr $MAC_pb0 dev vb0 nud permanent || return 1
	done
}

test_topology() {
	[ -x "$PROBE" ] && [ -x "$GEN" ] || fail "no $PROBE or $GEN"
	command -v ip >/dev/null && command -v iptables-legacy >/dev/null ||
		fail "no ip or iptables-legacy in the guest"
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
	sysctl -qw net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.conf.all.accept_redirects=0 net.ipv4.conf.default.accept_redirects=0 \
		net.ipv4.icmp_ratelimit=0 net.ipv4.icmp_msgs_per_sec=1000000000 \
		net.ipv4.icmp_msgs_burst=1000000000 net.ipv4.icmp_echo_ignore_all=1 \
		net.ipv4.icmp_echo_ignore_broadcasts=1 net.ipv4.ipfrag_time=3600 || fail "sysctl failed"
	ip netns add a && ip netns add b || fail "ip netns add failed"
	ip link add va0 address $MAC_va0 type veth peer name pa0 address $MAC_pa0 netns a &&
	ip link add va1 address $MAC_va1 type veth peer name pa1 address $MAC_pa1 netns a &&
	ip link add vb0 address $MAC_vb0 type veth peer name pb0 address $MAC_pb0 netns b ||
		fail "veth setup failed"
	# ns a and b: no IPv4 address, no forwarding: their stacks drop
	# whatever arrives without answering (dp_probe reads the frames)
	local ns
	for ns in a b; do
		ip netns exec $ns sysctl -qw net.ipv4.conf.all.forwarding=0 \
			net.ipv4.conf.default.forwarding=0 net.ipv4.icmp_echo_ignore_all=1 ||
			fail "sysctl in $ns failed"
	done
	ip addr add 10.1.0.1/24 dev va0 && ip addr add 10.1.0.10/24 dev va0 &&
	ip addr add 10.1.0.200/24 dev va0 && ip addr add 10.2.0.1/24 dev va1 &&
	ip addr add 10.3.0.1/24 dev vb0 || fail "addresses failed"
	ip link set va0 up && ip link set va1 up && ip link set vb0 up && ip link set lo up &&
	ip -n a link set pa0 up && ip -n a link set pa1 up && ip -n b link set pb0 up &&
	ip -n a link set lo up && ip -n b link set lo up || fail "link up failed"
	sysctl -qw net.ipv4.ip_forward=1 || fail "ip_forward"
	local d
	for d in va0 va1 vb0; do
		sysctl -qw net.ipv4.conf.$d.send_redirects=0 net.ipv4.conf.$d.rp_filter=0 || fail "sysctl $d"
	done
	neighbours || fail "neighbours failed"
	ip route get 10.3.0.2 | grep -q 'dev vb0' || fail "no route to b: $(ip route)"
}

# ---- the standard probe set (hand-written cases and the corpus) ----
std_probes() {
	cat <<-'EOF'
	# INPUT: a0, a1, b0 to init_net's addresses
	id=1 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=40000 dport=22 flags=S pay=0
	id=2 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=1025 dport=80 flags=A pay=100
	id=3 via=a0 src=10.1.0.3 dst=10.1.0.10 p=tcp sport=443 dport=443 flags=SA pay=7
	id=4 via=a0 src=10.1.0.130 dst=10.1.0.200 p=tcp sport=8080 dport=8080 flags=R pay=1
	id=5 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=53 dport=53 flags=FA pay=33
	id=6 via=a0 src=10.1.0.3 dst=10.1.0.1 p=tcp sport=1 dport=2 flags=0x00 pay=12
	id=7 via=a0 src=10.1.0.3 dst=10.1.0.1 p=tcp sport=1 dport=4 flags=0x3f pay=12
	id=8 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=50000 dport=22 flags=S opts=020405b40303070402080a0102030400000000 pay=0
	id=9 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=50001 dport=22 flags=S opts=01010101 pay=0
	id=10 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=50002 dport=22 flags=S trunc=10
	id=11 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=50003 dport=22 flags=S doff=3
	id=12 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=50004 dport=22 flags=A opts=1e08aaaa pay=3
	id=13 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=50005 dport=22 flags=S opts=020405b4 trunc=22
	id=14 via=a0 src=10.1.0.2 dst=10.1.0.1 p=udp sport=5353 dport=53 pay=40
	id=15 via=a0 src=10.1.0.130 dst=10.1.0.1 p=udp sport=1500 dport=1024 pay=9
	id=16 via=a0 src=10.1.0.2 dst=10.1.0.10 p=udp sport=0 dport=65535 pay=0
	id=17 via=a0 src=10.1.0.2 dst=10.1.0.1 p=udp sport=53 dport=53 trunc=4
	id=18 via=a0 src=10.1.0.2 dst=10.1.0.1 p=icmp type=8 code=0 pay=56
	id=19 via=a0 src=10.1.0.2 dst=10.1.0.1 p=icmp type=0 code=0 pay=56
	id=20 via=a0 src=10.1.0.3 dst=10.1.0.1 p=icmp type=3 code=3 pay=28
	id=21 via=a0 src=10.1.0.3 dst=10.1.0.1 p=icmp type=3 code=1 pay=28
	id=22 via=a0 src=10.1.0.3 dst=10.1.0.1 p=icmp type=11 code=1 pay=28
	id=23 via=a0 src=10.1.0.3 dst=10.1.0.1 p=icmp type=5 code=2 pay=28
	id=24 via=a0 src=10.1.0.3 dst=10.1.0.1 p=icmp type=255 code=255 pay=4
	id=25 via=a0 src=10.1.0.3 dst=10.1.0.1 p=icmp type=13 code=0 pay=12
	id=26 via=a0 src=10.1.0.3 dst=10.1.0.1 p=icmp type=8 trunc=1
	id=27 via=a0 src=10.1.0.2 dst=10.1.0.1 p=47 pay=24
	id=28 via=a0 src=10.1.0.2 dst=10.1.0.1 p=132 pay=24
	id=29 via=a0 src=10.1.0.2 dst=10.1.0.1 p=50 pay=31
	id=30 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=40001 dport=22 flags=S pay=60 split=1
	id=31 via=a0 src=10.1.0.2 dst=10.1.0.1 p=udp sport=40001 dport=53 pay=60 frag=4
	id=32 via=a0 src=172.16.5.5 dst=10.3.0.1 p=tcp sport=1024 dport=22 flags=S pay=0
	id=33 via=a1 src=10.2.0.2 dst=10.2.0.1 p=tcp sport=2048 dport=22 flags=S pay=0
	id=34 via=a1 src=10.2.0.77 dst=10.1.0.1 p=udp sport=3000 dport=53 pay=20
	id=35 via=b0 src=10.3.0.2 dst=10.3.0.1 p=tcp sport=22 dport=1024 flags=SA pay=0
	id=36 via=b0 src=10.3.0.200 dst=10.3.0.1 p=icmp type=8 code=0 pay=10
	id=37 via=a0 src=10.0.5.2 dst=10.1.0.1 p=tcp sport=1024 dport=22 flags=S ipopt=01010100 pay=5
	# FORWARD: a -> b, b -> a, a0 -> a1
	id=40 via=a0 src=10.1.0.2 dst=10.3.0.2 p=tcp sport=40000 dport=22 flags=S pay=0
	id=41 via=a0 src=10.1.0.3 dst=10.3.0.3 p=tcp sport=1025 dport=80 flags=A pay=200
	id=42 via=a0 src=10.1.0.130 dst=10.3.0.200 p=udp sport=5353 dport=53 pay=30
	id=43 via=a1 src=10.2.0.2 dst=10.3.0.2 p=tcp sport=40000 dport=22 flags=S pay=0
	id=44 via=a1 src=10.2.0.77 dst=10.3.0.2 p=icmp type=8 code=0 pay=56
	id=45 via=a0 src=10.1.0.2 dst=10.2.0.2 p=tcp sport=40000 dport=443 flags=S pay=0
	id=46 via=b0 src=10.3.0.2 dst=10.1.0.2 p=tcp sport=22 dport=40000 flags=SA pay=0
	id=47 via=b0 src=10.3.0.200 dst=10.2.0.77 p=udp sport=53 dport=5353 pay=80
	id=48 via=a0 src=10.1.0.2 dst=10.3.0.2 p=tcp sport=40000 dport=22 flags=A frag=1 mf=1 pay=20
	id=49 via=a0 src=10.1.0.2 dst=10.3.0.2 p=udp sport=40000 dport=53 frag=5 pay=20
	id=50 via=a0 src=10.1.0.2 dst=10.3.0.2 p=tcp sport=40000 dport=22 flags=S mf=1 pay=40
	id=51 via=a0 src=10.1.0.2 dst=10.3.0.2 p=tcp sport=40000 dport=80 flags=S pay=50 split=2
	id=52 via=a1 src=10.2.0.2 dst=10.3.0.3 p=47 pay=16
	id=53 via=a1 src=10.2.0.2 dst=10.3.0.3 p=132 pay=16
	id=54 via=a0 src=10.1.0.2 dst=10.3.0.2 p=tcp sport=40000 dport=22 flags=S trunc=12
	id=55 via=a0 src=10.1.0.2 dst=10.3.0.2 p=tcp sport=40000 dport=22 flags=S ttl=1 pay=0
	id=56 via=a0 src=172.16.5.5 dst=10.3.0.200 p=icmp type=3 code=3 pay=28
	id=57 via=b0 src=172.16.6.6 dst=10.1.0.130 p=udp sport=1024 dport=2048 pay=5
	# OUTPUT: init_net to a, b, and itself (lo)
	id=60 via=out src=10.1.0.1 dst=10.1.0.2 p=tcp sport=22 dport=40000 flags=SA pay=0
	id=61 via=out src=10.1.0.10 dst=10.1.0.3 p=udp sport=53 dport=5353 pay=44
	id=62 via=out src=10.2.0.1 dst=10.2.0.2 p=tcp sport=80 dport=1025 flags=A pay=70
	id=63 via=out src=10.3.0.1 dst=10.3.0.2 p=icmp type=8 code=0 pay=56
	id=64 via=out src=10.3.0.1 dst=10.3.0.200 p=47 pay=12
	id=65 via=out src=10.1.0.1 dst=10.3.0.2 p=tcp sport=22 dport=40000 flags=A frag=1 pay=8
	id=66 via=out src=10.1.0.1 dst=10.3.0.2 p=udp sport=53 dport=53 frag=3 mf=1 pay=16
	id=67 via=out src=10.1.0.1 dst=10.1.0.10 p=tcp sport=1024 dport=22 flags=S pay=0
	id=68 via=out src=10.3.0.1 dst=10.3.0.1 p=udp sport=1024 dport=53 pay=9
	id=69 via=out src=10.1.0.1 dst=10.1.0.1 p=udp sport=1024 dport=53 pay=64 split=3
	id=70 via=out src=10.1.0.200 dst=10.2.0.77 p=icmp type=0 code=0 pay=8
	id=71 via=out src=10.2.0.1 dst=10.3.0.3 p=tcp sport=443 dport=1500 flags=PA opts=080a0000000100000002 pay=90
	id=72 via=out src=10.1.0.1 dst=10.1.0.2 p=tcp sport=22 dport=40000 flags=A trunc=8
	EOF
}

# ---- hand-written rulesets: $W/cases/<name>.rules ----
P=':INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]'
hcase() { printf '*filter\n%s\nCOMMIT\n' "$2" >"$W/cases/$1.rules"; }
make_cases() {
	hcase h01-accept-all "$P"
	hcase h02-drop-policies ':INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT DROP [0:0]'
	hcase h03-tcp-ports "$P
-A INPUT -p tcp --dport 22 -j ACCEPT
-A INPUT -p tcp -m tcp --dport 80:443 -j DROP
-A INPUT -p tcp ! --sport 1024:65535 -j DROP
-A INPUT -p tcp --sport 40000 ! --dport 22 -j ACCEPT
-A INPUT -p tcp --sport 1: --dport :2 -j DROP
-A FORWARD -p tcp --dport 20:30 -j DROP
-A FORWARD -p tcp ! --sport 22 ! --dport 22 -j DROP
-A OUTPUT -p tcp ! --dport 22 -j DROP
-A OUTPUT -p tcp --sport 80 -j ACCEPT"
	hcase h04-tcp-flags "$P
-A INPUT -p tcp --tcp-flags SYN,ACK,FIN,RST SYN -j ACCEPT
-A INPUT -p tcp --tcp-flags ALL NONE -j DROP
-A INPUT -p tcp --tcp-flags ALL ALL -j DROP
-A INPUT -p tcp --tcp-flags ALL FIN,PSH,URG -j DROP
-A INPUT -p tcp ! --tcp-flags ACK ACK -j DROP
-A INPUT -p tcp --tcp-flags NONE NONE
-A FORWARD -p tcp --syn -j DROP
-A FORWARD -p tcp ! --syn -j ACCEPT
-A OUTPUT -p tcp --tcp-flags RST,SYN SYN -j DROP
-A OUTPUT -p tcp --tcp-flags PSH,ACK PSH,ACK -j DROP"
	hcase h05-tcp-option "$P
-A INPUT -p tcp --tcp-option 2 -j DROP
-A INPUT -p tcp ! --tcp-option 8 -j ACCEPT
-A INPUT -p tcp --tcp-option 30
-A INPUT -p tcp --tcp-option 1 -j DROP
-A FORWARD -p tcp --tcp-option 3 -j DROP
-A FORWARD -p tcp ! --tcp-option 5 -j ACCEPT
-A OUTPUT -p tcp --tcp-option 8 -j DROP"
	hcase h06-udp "$P
-A INPUT -p udp --dport 53 -j ACCEPT
-A INPUT -p udp ! --sport 5353 -j DROP
-A INPUT -p udp --dport 1000:2000 -j DROP
-A FORWARD -p udp ! --dport 53 -j DROP
-A FORWARD -p udp -m udp --sport 5353:5353 --dport 53 -j DROP
-A OUTPUT -p udp --sport 0:1023 -j DROP"
	hcase h07-icmp "$P
-A INPUT -p icmp --icmp-type echo-request -j DROP
-A INPUT -p icmp --icmp-type 3/3 -j ACCEPT
-A INPUT -p icmp --icmp-type 3 -j DROP
-A INPUT -p icmp ! --icmp-type 11/1 -m comment --comment notTE -j ACCEPT
-A INPUT -p icmp --icmp-type any -j DROP
-A FORWARD -p icmp --icmp-type 255 -j DROP
-A FORWARD -p icmp --icmp-type 8 -j DROP
-A FORWARD -p icmp --icmp-type port-unreachable
-A OUTPUT -p icmp ! --icmp-type 8 -j DROP"
	hcase h08-multiport "$P
-A INPUT -p tcp -m multiport --dports 22,80,1000:2000 -j DROP
-A INPUT -p tcp -m multiport ! --sports 53,443 -j ACCEPT
-A INPUT -p tcp -m multiport --ports 443 -j DROP
-A INPUT -p udp -m multiport --dports 53,1024 -j DROP
-A FORWARD -p tcp -m multiport --ports 22 -j DROP
-A FORWARD -p udp -m multiport ! --ports 53,5000:6000 -j DROP
-A OUTPUT -p tcp -m multiport ! --dports 22,1025:65535 -j DROP
-A OUTPUT -p udp -m multiport --sports 1:1023 -j DROP"
	hcase h09-addresses "$P
-A INPUT -s 10.1.0.2 -d 10.1.0.1 -p tcp -j DROP
-A INPUT -s 10.1.0.128/25 -j ACCEPT
-A INPUT ! -s 10.0.0.0/8 -j DROP
-A INPUT -d 10.1.0.10/32 -j DROP
-A INPUT -s 10.0.0.2/255.0.0.255 -j DROP
-A INPUT -d 10.3.0.0/255.255.255.0 -j DROP
-A FORWARD -d 10.3.0.200 -j DROP
-A FORWARD ! -d 10.3.0.0/30 -s 10.1.0.0/16 -j DROP
-A FORWARD -s 10.3.0.0/24 -d 10.2.0.0/24 -j DROP
-A OUTPUT -s 10.3.0.1 -j DROP
-A OUTPUT -d 10.1.0.0/25 ! -s 10.1.0.1 -j DROP"
	hcase h10-protocols "$P
-A INPUT -p 47 -j DROP
-A INPUT -p sctp -j ACCEPT
-A INPUT -p 50 -j DROP
-A INPUT -p udp -j DROP
-A INPUT ! -p icmp -j ACCEPT
-A FORWARD ! -p tcp -j DROP
-A OUTPUT -p 47 -j DROP
-A OUTPUT -p 6 -j DROP"
	hcase h11-interfaces "$P
-A INPUT -i lo -j ACCEPT
-A INPUT -i va1 -j DROP
-A INPUT ! -i va+ -p tcp -j DROP
-A INPUT -i x+ -j DROP
-A INPUT -i va -j DROP
-A INPUT -i + -p udp -j DROP
-A FORWARD -i va1 -o vb0 -j DROP
-A FORWARD -i va+ ! -o vb+ -j DROP
-A FORWARD -i vb0 -o va+ -p udp -j DROP
-A FORWARD -o v+ -p icmp -j DROP
-A OUTPUT -o lo -p tcp -j DROP
-A OUTPUT -o vb+ -p icmp -j DROP
-A OUTPUT ! -o va0 -p tcp -j DROP"
	hcase h12-fragments "$P
-A INPUT -f -j DROP
-A INPUT ! -f -p udp
-A FORWARD -p tcp --dport 22 -j ACCEPT
-A FORWARD -f -p udp -j DROP
-A FORWARD ! -f -p tcp -j DROP
-A OUTPUT -p tcp --sport 22 -j ACCEPT
-A OUTPUT -f -j DROP"
	hcase h13-jump-return "$P
:web - [0:0]
:ssh - [0:0]
:inner - [0:0]
-A INPUT -p tcp --dport 22 -j ssh
-A INPUT -p tcp -j web
-A INPUT -p udp -j inner
-A FORWARD -j ssh
-A FORWARD -j inner
-A OUTPUT -p tcp -j web
-A ssh -s 10.1.0.2 -j RETURN
-A ssh -p tcp --dport 22 -j inner
-A ssh -p tcp --dport 22 -j DROP
-A web -p tcp --dport 80 -j DROP
-A web -p tcp --sport 80 -j RETURN
-A web -j inner
-A inner -p tcp --tcp-flags SYN SYN -j DROP
-A inner -p udp --dport 53 -j RETURN
-A inner -p udp -j DROP
-A inner -s 10.2.0.0/16"
	hcase h14-goto "$P
:g1 - [0:0]
:g2 - [0:0]
:j1 - [0:0]
-A INPUT -j j1
-A INPUT -p tcp --dport 22 -j DROP
-A INPUT -p udp -j DROP
-A j1 -p tcp -g g1
-A j1 -p udp -j g2
-A j1 -j DROP
-A g1 -p tcp --dport 22 -j RETURN
-A g1 -p tcp --syn -g g2
-A g1 -j ACCEPT
-A g2 -p udp --dport 53 -j RETURN
-A g2 -s 10.1.0.2 -j DROP
-A FORWARD -p tcp -g g1
-A FORWARD -j DROP
-A OUTPUT -p udp -g g2
-A OUTPUT -g j1"
	hcase h15-policies ':INPUT DROP [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT DROP [0:0]
-A INPUT -p tcp --dport 22 -j ACCEPT
-A INPUT -i lo -j ACCEPT
-A INPUT -p icmp -j RETURN
-A FORWARD -p udp -j DROP
-A FORWARD -j RETURN
-A FORWARD -j DROP
-A OUTPUT -o va+ -j ACCEPT
-A OUTPUT -p udp -j ACCEPT'
	hcase h16-comment-count "$P
-A INPUT -m comment --comment \"count all\"
-A INPUT -p tcp -m comment --comment \"a b c\" -m tcp --dport 22
-A INPUT -s 10.1.0.0/24 -m comment --comment x
-A INPUT -p udp -m comment --comment \"udp drop\" -j DROP
-A FORWARD -m comment --comment fwd
-A FORWARD -p tcp
-A OUTPUT -m comment --comment out
-A OUTPUT -d 10.3.0.0/24"
	hcase h17-user-chain-ifaces "$P
:ifs - [0:0]
-A INPUT -j ifs
-A OUTPUT -j ifs
-A FORWARD -j ifs
-A ifs -o va0 -p tcp -j DROP
-A ifs ! -o va0 -p icmp -j DROP
-A ifs -i va1 -o vb0 -j DROP
-A ifs ! -i + -p udp -j DROP
-A ifs -o + -p 47 -j DROP
-A ifs ! -o vb+ -i va+ -p udp -j DROP"
	hcase h18-hotdrop "$P
-A INPUT -p tcp --dport 0:65535 -j ACCEPT
-A INPUT -p udp --sport 0:65535 -j ACCEPT
-A INPUT -p icmp --icmp-type any -j ACCEPT
-A FORWARD -p tcp -m multiport --ports 1:65535 -j ACCEPT
-A FORWARD -p tcp --tcp-option 99 -j DROP
-A FORWARD -p tcp ! --tcp-option 99 -j ACCEPT
-A OUTPUT -p tcp --tcp-flags NONE NONE -j ACCEPT"
	hcase h19-return-base "$P
-A INPUT -p tcp -j RETURN
-A INPUT -j DROP
-A FORWARD -p udp -j RETURN
-A FORWARD -p udp -j DROP
-A OUTPUT -j RETURN
-A OUTPUT -j DROP"
	hcase h20-combined ":INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:svc - [0:0]
:deny - [0:0]
-A INPUT -i va+ -s 10.1.0.0/24 -d 10.1.0.0/24 -p tcp -m tcp --dport 22 --tcp-flags SYN,ACK SYN -m comment --comment ssh -j svc
-A INPUT -i va0 -p udp -m multiport --dports 53,1024:1100 -g deny
-A INPUT ! -i lo -p icmp -m icmp ! --icmp-type 8 -j deny
-A FORWARD -i va+ -o vb0 ! -s 10.1.0.130 -p tcp -m multiport --dports 22,80 -j ACCEPT
-A FORWARD -i vb0 -o va+ -p tcp ! --syn -j ACCEPT
-A FORWARD -i va0 -o va1 -j ACCEPT
-A FORWARD -f -j ACCEPT
-A OUTPUT -o vb0 -p tcp -m tcp --sport 22 --tcp-option 8 -j DROP
-A OUTPUT -o va+ -d 10.2.0.0/16 -j deny
-A svc -s 10.1.0.2 -j ACCEPT
-A svc -j deny
-A deny -p udp -j RETURN
-A deny -j DROP"
	hcase h21-deep "$P
:c1 - [0:0]
:c2 - [0:0]
:c3 - [0:0]
:c4 - [0:0]
:c5 - [0:0]
:c6 - [0:0]
-A INPUT -j c1
-A FORWARD -p tcp -j c1
-A OUTPUT -g c1
-A c1 -j c2
-A c1 -p icmp -j DROP
-A c2 -j c3
-A c3 -p udp -j c4
-A c3 -p tcp -g c4
-A c4 -j c5
-A c4 -p tcp --dport 22 -j DROP
-A c5 -j c6
-A c5 -p tcp --dport 80 -j RETURN
-A c6 -s 10.1.0.3 -j DROP
-A c6 -p udp --dport 53 -j ACCEPT
-A c6 -p tcp --syn -j RETURN"
	# interface renamed while loaded: va1 becomes vz1 half-way (run_rename)
	hcase h22-rename "$P
-A INPUT -i va1 -j DROP
-A INPUT -i vz+ -p tcp -j DROP
-A INPUT ! -i vz1 -p udp -j ACCEPT
-A FORWARD -i va1 -j DROP
-A FORWARD -i vz1 -p icmp -j DROP
-A FORWARD -o va+ -p udp -j DROP
-A FORWARD -o vz1 -j DROP
-A OUTPUT -o va1 -p tcp -j DROP
-A OUTPUT -o vz+ -j DROP"
	# iptables commands between two probe runs (run_commands): what
	# -A, -I, -R, -D, -Z and -P carry over of the counters, and enforce
	hcase h23-commands "$P
:u - [0:0]
-A INPUT -p tcp -j u
-A INPUT -p udp -j ACCEPT
-A INPUT -p icmp -j DROP
-A FORWARD -p tcp --dport 22 -j DROP
-A FORWARD -s 10.1.0.0/24
-A OUTPUT -p tcp -j ACCEPT
-A OUTPUT -j u
-A u -p tcp --dport 80 -j DROP
-A u -s 10.1.0.3"
}
commands() {
	iptables-legacy -A INPUT -p udp --dport 53 -j DROP &&
	iptables-legacy -I FORWARD 1 -p tcp --dport 22 -j ACCEPT &&
	iptables-legacy -R INPUT 3 -p icmp --icmp-type 8 -j DROP &&
	iptables-legacy -D OUTPUT 1 &&
	iptables-legacy -Z FORWARD &&
	iptables-legacy -P OUTPUT DROP &&
	iptables-legacy -Z INPUT 2 &&
	iptables-legacy -A u -p udp -j RETURN
}

# ---- running a case ----
# Under TCG every exec costs (60-100 ms, more for the dynamically linked
# tools): a case is three, restore, dp_probe and save; no timeout(1)
# (a stuck bpfilter call ends at the module's call deadline), and the
# dated comment lines of the saves are dropped once per phase (strip).
save_c() { iptables-legacy-save -c 2>&1; }
strip() { sed -i '/^#/d' "$W/$1"/*.save; }
load() {	# load RULES [-c]: restore it, with fresh counters unless -c
	iptables-legacy-restore ${2-} <"$1" 2>&1
	echo "[restore rc=$?]"
}
# run_case KIND NAME RULES PROBES [-c]: $W/KIND/NAME.{load,res,save}
# Every dp_probe run gets IP ids of its own (idoff; the phases and the
# repeat in ranges of their own): a datagram a ruleset left half reassembled
# at INPUT must not meet a later run's fragments.  (ipfrag_time is raised so
# that such a datagram never expires into an ICMP error during a later case.)
idoff=0 kind_off=0
probe_run() {	# probe_run PROBES OUT
	"$PROBE" run "$1" "$2" $(( (idoff += 100) % 16384 + kind_off ))
}
run_case() {
	local o=$W/$1/$2
	load "$3" ${5-} >"$o.load"
	probe_run "$4" "$o.res" 2>"$o.err" || echo "dp_probe rc=$?" >>"$o.load"
	save_c >"$o.save"
}
# run_rename KIND: h22 with va1 renamed to vz1 between two probe runs
rename_if() {	# rename_if OLD NEW
	ip link set "$1" down && ip link set "$1" name "$2" && ip link set "$2" up &&
		neighbours "$2"
}
run_rename() {
	local o=$W/$1/h22-rename
	load "$W/cases/h22-rename.rules" >"$o.load"
	probe_run "$W/std.probes" "$o.res1" 2>"$o.err" || echo "dp_probe rc=$?" >>"$o.load"
	rename_if va1 vz1 >>"$o.load" 2>&1 || echo "rename failed" >>"$o.load"
	probe_run "$W/std.probes" "$o.res2" 2>>"$o.err" || echo "dp_probe rc=$?" >>"$o.load"
	cat "$o.res1" - "$o.res2" <<<"---- va1 renamed vz1" >"$o.res"
	save_c >"$o.save"
	rename_if vz1 va1 >>"$o.load" 2>&1 || echo "rename back failed" >>"$o.load"
}

# run_commands KIND: h23, probed, saved, changed by commands, probed and
# saved again
run_commands() {
	local o=$W/$1/h23-commands
	load "$W/cases/h23-commands.rules" >"$o.load"
	probe_run "$W/std.probes" "$o.res1" 2>"$o.err" || echo "dp_probe rc=$?" >>"$o.load"
	save_c >"$o.save"
	commands >>"$o.load" 2>&1
	echo "[commands rc=$?]" >>"$o.load"
	probe_run "$W/std.probes" "$o.res2" 2>>"$o.err" || echo "dp_probe rc=$?" >>"$o.load"
	cat "$o.res1" - "$o.res2" <<<"---- after the commands" >"$o.res"
	{ echo "---- after the commands"; save_c; } >>"$o.save"
}

# Corpus rulesets: the table each corpus script leaves on ip_tables (rules,
# policies and counters, as iptables-legacy-save -c prints it), loaded with
# restore -c in both phases like any case.  bpfilter_compare_tests.sh,
# earlier in the same boot, leaves them in $TABLES (running every script's
# commands under both firewalls is its job); run alone, this suite runs the
# scripts itself, once, under ip_tables, each on an empty table.
TABLES=/tmp/bpfilter_corpus.tables
corpus_tables() {
	local f name
	mkdir -p "$W/corpus"
	[ ${#corpus_cases[@]} -gt 0 ] || return 0
	if [ ${#corpus_scripts[@]} = 0 ]; then
		local files=("${corpus_cases[@]/#/$TABLES/}")
		cp "${files[@]/%/.table}" "$W/corpus/"
		return
	fi
	for f in "${corpus_scripts[@]}"; do
		name=c-$(basename "$f" .sh)
		{ iptables-legacy-restore <<<"$EMPTY" 2>&1 && echo "[reset ok]"
		  (cd "$W" && BPF_EXPECT=/dev/null timeout 600 bash "$f"); } >"$W/corpus/$name.log" 2>&1
		iptables-legacy-save -c >"$W/corpus/$name.table" 2>>"$W/corpus/$name.log"
	done
}

# every case, in one order, under the firewall loaded now
hand_cases=() rand_cases=() corpus_cases=()
run_all() {	# run_all KIND
	local c i
	idoff=0 kind_off=0
	[ "$1" = bpf ] && kind_off=32768
	for c in "${hand_cases[@]}"; do
		run_case "$1" "$c" "$W/cases/$c.rules" "$W/std.probes"
	done
	run_rename "$1"
	run_commands "$1"
	for c in sA sB; do
		run_case "$1" "$c" "$W/cases/$c.rules" "$W/stream.probes"
	done
	for c in "${rand_cases[@]}"; do
		run_case "$1" "$c" "$W/rand/$c.rules" "$W/rand/$c.probes"
	done
	for c in "${corpus_cases[@]}"; do
		run_case "$1" "$c" "$W/corpus/$c.table" "$W/std.probes" -c
	done
	strip "$1"
}

# ---- comparing ----
# diff_case NAME: real and bpf results identical; else the ruleset, each
# differing probe with both results, and the counter diff
diff_case() {
	local n=$1 r=$W/real/$1 b=$W/bpf/$1 probes=$W/std.probes rules
	case $n in
	r-*) probes=$W/rand/$n.probes rules=$W/rand/$n.rules ;;
	c-*) rules=$W/corpus/$n.table ;;
	s*) rules=$W/cases/$n.rules probes=$W/stream.probes ;;
	*) rules=$W/cases/$n.rules ;;
	esac
	cmp -s "$r.res" "$b.res" && cmp -s "$r.save" "$b.save" && cmp -s "$r.load" "$b.load" && return 0
	echo "case $n differs (seed $SEED); ruleset $rules:"
	sed 's/^/    /' "$rules"
	if ! cmp -s "$r.load" "$b.load"; then
		echo "loading it printed differently:"
		diff -u --label real --label bpfilter "$r.load" "$b.load" | head -n 40
	fi
	if ! cmp -s "$r.res" "$b.res"; then
		echo "probes delivered differently (probe / ip_tables / bpfilter):"
		join -j1 <(sort "$r.res") <(sort "$b.res") | awk '{ r = $2 " " $3; b = $4 " " $5; if (r != b) print $1, "|", r, "|", b }' |
		while read -r id _ rest; do
			echo "  $(grep -m1 "^id=$id " "$probes")"
			echo "      ip_tables: ${rest%%|*}  bpfilter: ${rest#*|}"
		done | head -n 40
		[ "$(wc -l <"$r.res")" = "$(wc -l <"$b.res")" ] || echo "  result files differ in length"
	fi
	if ! cmp -s "$r.save" "$b.save"; then
		echo "counters (iptables-legacy-save -c) differ:"
		diff -u --label real --label bpfilter "$r.save" "$b.save" | head -n 40
	fi
	return 1
}
# differing: the cases whose results, counters or load output differ between
# the phases (one md5sum per phase, not a cmp per file: forks cost here)
declare -A differs=()
differing() {
	local l
	differs=()
	while read -r l; do differs[$l]=1; done < <(
		join -a1 -a2 -e none -o 0,1.2,2.2 \
			<(cd "$W/real" && md5sum -- *.res *.save *.load | awk '{ print $2, $1 }' | sort) \
			<(cd "$W/bpf" && md5sum -- *.res *.save *.load | awk '{ print $2, $1 }' | sort) |
		awk '$2 != $3 { sub(/\.[a-z]+$/, "", $1); print $1 }' | sort -u)
}
# compare_set LABEL NAME...: all cases identical; the first 3 failures in full
compare_set() {
	local label=$1 c bad=0 shown=0 out
	shift
	for c in "$@"; do
		[ -z "${differs[$c]-}" ] && [ -f "$W/bpf/$c.res" ] && continue
		if ! out=$(diff_case "$c"); then
			bad=$((bad + 1))
			if [ $shown -lt 3 ]; then echo "$out"; shown=$((shown + 1)); fi
		fi
	done
	[ $bad -eq 0 ] || fail "$bad of $# $label cases differ"
}

# ---- phase 1 checks ----
# model KIND: what must arrive when every policy is ACCEPT (accept) or
# DROP (drop), computed from the probe lines alone
model() {
	awk -v kind="$1" '
	function local_(a) { return a ~ /^10\.1\.0\.(1|10|200)$/ || a == "10.2.0.1" || a == "10.3.0.1" }
	/^id=/ {
		delete k
		for (i = 1; i <= NF; i++) { split($i, kv, "="); k[kv[1]] = kv[2] }
		sends = k["split"] > 0 ? 2 : 1
		lone = !(k["split"] > 0) && (k["frag"] > 0 || k["mf"] == 1)
		send = "ok"; if (sends == 2) send = "ok,ok"
		if (kind == "drop") {
			rx = "none"
			if (k["via"] == "out") { send = "EPERM"; if (sends == 2) send = "EPERM,EPERM" }
		} else if (local_(k["dst"])) {
			# a raw ICMP socket never sees an ICMP packet under 8 bytes
			rx = lone || (k["p"] == "icmp" && k["trunc"] != "" && k["trunc"] < 8) ? "none" : "in:1"
		} else if (k["via"] != "out" && k["ttl"] != "" && k["ttl"] <= 1) {
			rx = "none"
		} else {
			d = k["dst"]
			rx = (d ~ /^10\.1\./ ? "pa0" : d ~ /^10\.2\./ ? "pa1" : "pb0") ":" sends
		}
		print k["id"], "send=" send, "rx=" rx
	}' "$2"
}
test_real_load() {
	unload_real || return 1
	modprobe iptable_filter || fail "modprobe iptable_filter failed"
	[ -d /sys/module/ip_tables ] || fail "ip_tables not loaded"
}
test_model() {	# test_model CASE accept|drop
	local d
	grep -q '\[restore rc=0\]' "$W/real/$1.load" || fail "restore failed: $(cat "$W/real/$1.load")"
	d=$(diff -u --label expected --label ip_tables <(model "$2" "$W/std.probes") "$W/real/$1.res") ||
		fail "$d"
}
# (the checks read all files in one process each: a fork per case costs)
test_real_loaded() {	# every hand-written and random ruleset loaded, every probe answered
	local c bad files=()
	for c in "${hand_cases[@]}" h22-rename h23-commands sA sB "${rand_cases[@]}"; do files+=("$W/real/$c.load"); done
	bad=$( { grep -L '^\[restore rc=0\]$' "${files[@]}"; grep -l 'dp_probe rc\|failed' "${files[@]}"; } |
		sed 's|.*/||; s|\.load$||' | sort -u | tr '\n' ' ')
	[ -z "$bad" ] || fail "not loaded or not probed:$bad$(for c in $bad; do echo; echo "== $c"; cat "$W/real/$c.load" "$W/real/$c.err"; done | head -n 60)"
}
test_real_commands() {	# h23's commands all succeeded on ip_tables
	grep -q '^\[commands rc=0\]$' "$W/real/h23-commands.load" ||
		fail "$(cat "$W/real/h23-commands.load")"
}
test_real_probe_counts() {	# each result file has one line per probe, in order
	local c args=()
	for c in "${hand_cases[@]}" sA sB "${rand_cases[@]}" "${corpus_cases[@]}"; do
		case $c in r-*) args+=("$W/rand/$c.probes") ;; s*) args+=("$W/stream.probes") ;; *) args+=("$W/std.probes") ;; esac
		args+=("$W/real/$c.res")
	done
	awk 'FNR == 1 { f++ }
	f % 2 == 1 && /^id=/ { split($1, kv, "="); want[f, ++nw[f]] = kv[2] }
	f % 2 == 0 { got = $1; if (got != want[f - 1, FNR]) { print FILENAME ": line " FNR " is probe " got ", want " want[f - 1, FNR]; bad = 1 } n[f] = FNR }
	END { for (i = 2; i <= f; i += 2) if (n[i] != nw[i - 1]) { print "file " i / 2 ": " n[i] " results for " nw[i - 1] " probes"; bad = 1 } exit bad }' "${args[@]}" ||
		fail "result files do not match their probe sets"
}
test_real_varied() {	# the rulesets drop some probes and pass others
	local acc drop
	acc=$(cat "$W"/real/h[0-9]*.res "$W"/real/r-*.res | grep -vc 'rx=none')
	drop=$(cat "$W"/real/h[0-9]*.res "$W"/real/r-*.res | grep -c 'rx=none')
	echo "# delivered $acc, not delivered $drop" >&2
	[ "$acc" -gt 100 ] && [ "$drop" -gt 100 ] || fail "delivered $acc, not delivered $drop"
}
test_real_repeat() {	# the same cases again: identical results (the harness is deterministic)
	local c x bad=0
	mkdir -p "$W/real2"
	kind_off=16384
	for c in "${repeat_cases[@]}"; do
		run_case real2 "$c" "$W/cases/$c.rules" "$W/std.probes"
	done
	strip real2
	for c in "${repeat_cases[@]}"; do
		for x in res save load; do
			cmp -s "$W/real/$c.$x" "$W/real2/$c.$x" ||
				{ bad=1; echo "$c.$x:"; diff "$W/real/$c.$x" "$W/real2/$c.$x"; }
		done
	done
	[ $bad = 0 ] || fail "second run differs"
}
test_corpus_ran() {
	local c bad logs=() tables=() loads=()
	for c in "${corpus_cases[@]}"; do
		[ ${#corpus_scripts[@]} = 0 ] || logs+=("$W/corpus/$c.log")
		tables+=("$W/corpus/$c.table") loads+=("$W/real/$c.load")
	done
	bad=$( { [ ${#logs[@]} = 0 ] || grep -L '\[reset ok\]' "${logs[@]}"
		grep -L '^COMMIT' "${tables[@]}" 2>&1
		grep -L '^\[restore rc=0\]$' "${loads[@]}"; } | tr '\n' ' ')
	[ -z "$bad" ] || fail "corpus cases without a table or results: $bad"
}

# ---- streams: replacement under load, helper killed ----
stream_probes() {
	cat <<-'EOF'
	id=1 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=40000 dport=22 flags=S pay=0
	id=2 via=a0 src=10.1.0.2 dst=10.1.0.1 p=tcp sport=40000 dport=80 flags=S pay=10
	id=3 via=a0 src=10.1.0.2 dst=10.1.0.1 p=udp sport=5353 dport=53 pay=20
	id=4 via=a1 src=10.2.0.2 dst=10.2.0.1 p=icmp type=8 code=0 pay=30
	id=5 via=a0 src=10.1.0.2 dst=10.3.0.2 p=tcp sport=40000 dport=22 flags=S pay=0
	id=6 via=a0 src=10.1.0.2 dst=10.3.0.2 p=udp sport=5353 dport=53 pay=20
	id=7 via=b0 src=10.3.0.2 dst=10.1.0.2 p=tcp sport=22 dport=40000 flags=SA pay=0
	id=8 via=a1 src=10.2.0.2 dst=10.3.0.3 p=47 pay=16
	id=9 via=out src=10.1.0.1 dst=10.1.0.2 p=tcp sport=22 dport=40000 flags=SA pay=0
	id=10 via=out src=10.3.0.1 dst=10.3.0.2 p=udp sport=53 dport=5353 pay=40
	id=11 via=out src=10.2.0.1 dst=10.2.0.2 p=icmp type=0 code=0 pay=8
	id=12 via=out src=10.1.0.1 dst=10.1.0.10 p=tcp sport=1024 dport=22 flags=S pay=0
	EOF
}
make_stream_cases() {
	# A and B agree on some probes (drop or accept) and differ on others
	hcase sA ':INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:x - [0:0]
-A INPUT -p tcp --dport 80 -j DROP
-A INPUT -p udp -j DROP
-A INPUT -i lo -j x
-A FORWARD -p udp -j DROP
-A FORWARD -i vb0 -j DROP
-A OUTPUT -p tcp -o va0 -j DROP
-A OUTPUT -p icmp -j DROP
-A x -p tcp --dport 22 -j DROP'
	hcase sB ':INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp --dport 22 -i va0 -j ACCEPT
-A INPUT -p icmp -j ACCEPT
-A INPUT -i lo -j ACCEPT
-A FORWARD -p tcp -i va0 -j ACCEPT
-A FORWARD -p 47 -j ACCEPT
-A OUTPUT -o va0 -j DROP
-A OUTPUT -p icmp -j DROP
-A OUTPUT -p udp -j ACCEPT'
}
# verdicts KIND CASE: "id pass|drop" from a static run of the stream probes
verdicts() { awk '{ print $1, ($3 == "rx=none" ? "drop" : "pass") }' "$W/$1/$2.res"; }
# judge_stream OUT EXPECT: EXPECT lines "id pass|drop|any"; OUT from dp_probe stream
judge_stream() {
	join <(sort "$2") <(sort "$1") | awk '
	{ for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
	v["sent"] < 5 { print "probe " $1 ": only " v["sent"] " sends"; bad = 1 }
	$2 == "pass" && (v["rx"] != v["sent"] || v["err"] != 0) { print "probe " $1 " (" $2 "): " $0; bad = 1 }
	$2 == "drop" && v["rx"] != 0 { print "probe " $1 " (" $2 "): " $0; bad = 1 }
	END { exit bad }'
}
# stream_replace KIND: A and B swapped while probes flow
stream_replace() {
	local kind=$1 exp=$W/$1.swap.expect pid swaps=0 out=$W/$1.swap.out
	join <(verdicts real sA) <(verdicts real sB) |
		awk '{ print $1, ($2 == $3 ? $2 : "any") }' >"$exp"
	grep -q ' pass$' "$exp" && grep -q ' drop$' "$exp" && grep -q ' any$' "$exp" ||
		fail "A and B do not make every class: $(cat "$exp")"
	load "$W/cases/sA.rules" >/dev/null
	"$PROBE" stream "$W/stream.probes" "$out" $SWAP_SECS 2000 2>"$W/$kind.swap.err" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		iptables-legacy-restore <"$W/cases/sB.rules" || fail "restore B failed"
		iptables-legacy-restore <"$W/cases/sA.rules" || fail "restore A failed"
		swaps=$((swaps + 2))
	done
	wait $pid || fail "dp_probe stream failed: $(cat "$W/$kind.swap.err")"
	echo "# $kind: $swaps replacements during the stream; $(cat "$W/$kind.swap.err")" >&2
	[ $swaps -ge 10 ] || fail "only $swaps replacements"
	judge_stream "$out" "$exp" || fail "verdicts broken under replacement (expected: $(tr '\n' ' ' <"$exp"))"
}
test_real_stream() { stream_replace real; }
test_bpf_stream() { stream_replace bpf; }
test_bpf_helper_kill() {
	local exp=$W/kill.expect out=$W/kill.out pid p0 p1 kills=0
	verdicts real sA >"$exp"
	load "$W/cases/sA.rules" >/dev/null
	"$PROBE" stream "$W/stream.probes" "$out" 6 2000 2>"$W/kill.err" &
	pid=$!
	sleep 1
	for _ in 1 2; do
		p0=$(<$S/pid)
		[ "$p0" != 0 ] && kill -9 "$p0" && kills=$((kills + 1))
		wait_for 10 pid_changed "$p0" || fail "helper not restarted after kill of $p0"
		sleep 1
	done
	wait $pid || fail "dp_probe stream failed: $(cat "$W/kill.err")"
	p1=$(<$S/pid)
	echo "# $kills helper kills during the stream; $(cat "$W/kill.err")" >&2
	[ $kills = 2 ] || fail "killed $kills times"
	state_is running || fail "state $(<$S/state)"
	judge_stream "$out" "$exp" || fail "verdicts changed while the helper was killed (expected: $(tr '\n' ' ' <"$exp"))"
	# the table is still A's, and still enforced
	run_case bpf sA2 "$W/cases/sA.rules" "$W/stream.probes"
	cmp -s "$W/real/sA.res" "$W/bpf/sA2.res" || fail "after the kills: $(diff "$W/real/sA.res" "$W/bpf/sA2.res")"
	[ "$p1" != 0 ] || fail "no helper"
}

# ---- phase 2 ----
test_bpf_load() {
	[ -f "$KO" ] || fail "no $KO"
	[ ! -d /sys/module/ip_tables ] || fail "ip_tables still loaded"
	insmod "$KO" max_restarts=100 restart_window_ms=1000 || fail "insmod $KO failed: $(dmesg | tail -n 5)"
	state_is running || fail "helper state $(<$S/state)"
}
test_bpf_enforces() {
	# h02 (every policy DROP) must drop: else bpfilter does not enforce yet
	run_case bpf h02-probe "$W/cases/h02-drop-policies.rules" "$W/std.probes"
	grep -q '\[restore rc=0\]' "$W/bpf/h02-probe.load" || fail "restore refused: $(cat "$W/bpf/h02-probe.load")"
	local passed
	passed=$(grep -vc 'rx=none' "$W/bpf/h02-probe.res")
	[ "$passed" = 0 ] || fail "bpfilter.ko does not enforce: $passed of $(wc -l <"$W/bpf/h02-probe.res") probes passed a DROP-everything ruleset"
	iptables-legacy-restore <<<"$EMPTY" || fail "reset failed"
}
test_cmp_hand() { compare_set hand-written "${hand_cases[@]}" h22-rename h23-commands sA sB; }
test_cmp_rand() { compare_set random "${rand_cases[@]}"; }
test_cmp_corpus() { compare_set corpus "${corpus_cases[@]}"; }
test_bpf_unload() {
	iptables-legacy-restore <<<"$EMPTY"
	rmmod bpfilter || fail "rmmod bpfilter failed"
	wait_for 5 no_helpers_quiet || no_helpers
}
no_helpers_quiet() { [ -z "$(helper_pids)" ]; }

# ---- main ----
std_probes >"$W/std.probes"
stream_probes >"$W/stream.probes"
make_cases
make_stream_cases
for f in "$W"/cases/h*.rules; do
	c=$(basename "$f" .rules)
	case $c in h22-rename | h23-commands) ;; *) hand_cases+=("$c") ;; esac
done
for ((i = 0; i < CASES; i++)); do
	c=$(printf 'r-%03d' "$i")
	"$GEN" "$SEED" "$i" "$NPROBES" "$W/rand/$c.rules" "$W/rand/$c.probes" || { echo "# dp_gen failed"; break; }
	rand_cases+=("$c")
done
corpus_scripts=() corpus_from=
if [ "${BPF_DP_CORPUS:-1}" = 1 ]; then
	if [ -s "$TABLES/names" ]; then
		# Scripts that end in the same table (the same rules,
		# policies and counters: many end flushed) are one case.
		declare -A sums=()
		while read -r sum f; do sums[${f%.table}]=$sum; done < <(cd "$TABLES" && md5sum -- c-*.table)
		declare -A seen=()
		ndup=0
		while read -r c; do
			c=c-$c
			if [ -n "${sums[$c]-}" ] && [ -n "${seen[${sums[$c]}]-}" ]; then
				ndup=$((ndup + 1))
				continue
			fi
			[ -z "${sums[$c]-}" ] || seen[${sums[$c]}]=1
			corpus_cases+=("$c")
		done <"$TABLES/names"
		corpus_from="the tables bpfilter_compare left ($ndup more were duplicates)"
	else
		# Each script runs dozens of iptables commands, each an exec of
		# a dynamically linked tool: every 12th on the debug kernel,
		# as bpfilter_compare runs them there.
		corpus_from="the scripts, run here"
		all=("$CORPUS"/*.sh)
		step=1
		debug_kernel && step=12
		for ((i = 0; i < ${#all[@]}; i += step)); do
			corpus_scripts+=("${all[i]}")
			corpus_cases+=("c-$(basename "${all[i]}" .sh)")
		done
	fi
fi
# the determinism check repeats a few cases that cover every path and match
repeat_cases=(h01-accept-all h04-tcp-flags h11-interfaces h12-fragments h13-jump-return h18-hotdrop)
nstd=$(grep -c '^id=' "$W/std.probes")
echo "# cases: $(( ${#hand_cases[@]} + 2 )) hand-written x $nstd probes (two of them twice), ${#rand_cases[@]} random x $NPROBES," \
	"${#corpus_cases[@]} corpus x $nstd: $(( (${#hand_cases[@]} + 4 + ${#corpus_cases[@]}) * nstd + ${#rand_cases[@]} * NPROBES )) (ruleset, probe) cases per firewall"

t "topology: netns a, b, three veth pairs, init_net routes" test_topology
t "real: ip_tables loaded (iptable_filter)" test_real_load
t0=$SECONDS
corpus_tables
echo "# phase 1: ${#corpus_cases[@]} corpus tables from $corpus_from in $((SECONDS - t0)) s"
t0=$SECONDS
run_all real
echo "# phase 1 (ip_tables): $((SECONDS - t0)) s"
t "real: ACCEPT everywhere delivers every probe where it should go" test_model h01-accept-all accept
t "real: DROP policies deliver nothing, OUTPUT sends get EPERM" test_model h02-drop-policies drop
t "real: every hand-written and random ruleset loaded and was probed" test_real_loaded
t "real: iptables commands between two probe runs (-A, -I, -R, -D, -Z, -P) succeed" test_real_commands
t "real: one result per probe" test_real_probe_counts
t "real: the rulesets both deliver and drop" test_real_varied
[ ${#corpus_cases[@]} = 0 ] || t "real: every corpus script ran and was probed" test_corpus_ran
t "real: ${#repeat_cases[@]} hand-written cases again give identical results and counters" test_real_repeat
t "real: replacement under load: probes A and B agree on keep their verdict" test_real_stream
t "ip_tables and its modules unload" unload_real
if [ "$REAL_ONLY" != 1 ]; then
	t "bpfilter: loads (ip_tables gone)" test_bpf_load
	if [ -d /sys/module/bpfilter ]; then
		t "bpfilter: enforces (DROP policies drop every probe)" test_bpf_enforces
		t0=$SECONDS
		run_all bpf
		echo "# phase 2 (bpfilter): $((SECONDS - t0)) s"
		differing
		t "compare: hand-written rulesets (a renamed interface, commands between probes): deliveries and counters" test_cmp_hand
		t "compare: ${#rand_cases[@]} random rulesets (seed $SEED): deliveries and counters" test_cmp_rand
		[ ${#corpus_cases[@]} = 0 ] || t "compare: ${#corpus_cases[@]} corpus scripts: output, deliveries and counters" test_cmp_corpus
		t "bpfilter: replacement under load: probes A and B agree on keep their verdict" test_bpf_stream
		t "bpfilter: helper killed twice under a stream: no verdict changes" test_bpf_helper_kill
		t "rmmod bpfilter leaves no helper" test_bpf_unload
	else
		not_ok "compare: not run, bpfilter.ko is not loaded" "see the test above"
	fi
fi
ip netns del a 2>/dev/null; ip netns del b 2>/dev/null
ip link del va0 2>/dev/null; ip link del va1 2>/dev/null; ip link del vb0 2>/dev/null
sysctl -qw "${saved_sysctls[@]}" 2>/dev/null
t "dmesg free of WARNING/BUG/Oops/lockup reports" test_dmesg_clean

rm -f /tmp/dp_probe.$$
[ "${BPF_DP_KEEP:-0}" = 1 ] || rm -rf "$W"
echo "1..$n"
[ $failed -eq 0 ]
