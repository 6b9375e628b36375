# SPDX-License-Identifier: GPL-2.0
#
# ipt_lib.sh: what the two suites that run bpfilter beside the real
# ip_tables share (bpfilter_compare_tests.sh, bpfilter_dataplane_tests.sh).
# Sourced after lib.sh (it uses fail).

# An empty filter table: one restore of it flushes, deletes the user chains
# and resets policies and counters.
EMPTY=$'*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT'

# uncommented: stdin without the lines that start with '#' (grep -v '^#'
# without a process: the suites run thousands of these under TCG)
uncommented() {
	local l
	while IFS= read -r l || [ -n "$l" ]; do
		[[ $l == '#'* ]] || printf '%s\n' "$l"
	done
}

# ---- what a corpus script (tests/guest/bpfilter_corpus) calls ----
# Each command is echoed (arguments quoted), its stdout+stderr kept and its
# exit status printed.  ipt/ipt_restore expect success, ipt_x/ipt_restore_x
# failure; when $BPF_EXPECT names a file, a wrong expectation is noted
# there.  The commands have no deadline of their own: the suites run each
# script under one timeout(1), which stops the whole process group (a
# timeout per command cost a process each, a third of the suite's time).
_run() {	# _run EXPECT(0|1) LABEL BINARY ARGS...
	local want=$1 label=$2 rc
	shift 2
	printf '$ %s' "$label"
	printf ' %q' "${@:2}"
	printf '\n'
	"$@" 2>&1
	rc=$?
	echo "[rc=$rc]"
	if [ -n "${BPF_EXPECT:-}" ] &&
	   { { [ "$want" = 0 ] && [ $rc -ne 0 ]; } ||
	     { [ "$want" = 1 ] && [ $rc -eq 0 ]; } || [ $rc -ge 124 ]; }; then
		printf 'line %s: %s%s rc=%d\n' "${BASH_LINENO[1]}" "$label" \
			"$(printf ' %q' "${@:2}")" $rc >>"$BPF_EXPECT"
	fi
	return 0
}
ipt() { _run 0 iptables iptables-legacy "$@"; }
ipt_x() { _run 1 iptables iptables-legacy "$@"; }
ipt_restore() { _run 0 iptables-restore iptables-legacy-restore "$@"; }
ipt_restore_x() { _run 1 iptables-restore iptables-legacy-restore "$@"; }
ipt_save() {	# the save output without its dated comment lines
	printf '$ iptables-save'
	printf ' %q' "$@"
	printf '\n'
	iptables-legacy-save "$@" 2>&1 | uncommented
	echo "[rc=${PIPESTATUS[0]}]"
}
export -f uncommented _run ipt ipt_x ipt_restore ipt_restore_x ipt_save

# ---- the real ip_tables ----
# ip_tables, the tables and every extension module loaded since
ipt_modules() { awk '$1 ~ /^(xt_|ipt_|iptable_)/ || $1 == "ip_tables" {print $1}' /proc/modules; }
unload_real() {
	local m
	# A table with more rules than it started with holds a reference on
	# its module (xt_replace_table): empty it first.
	if [ -e /proc/net/ip_tables_names ] && [ -d /sys/module/ip_tables ]; then
		iptables-legacy-restore -c <<<"$EMPTY" || fail "cannot empty the filter table"
	fi
	# /proc/modules lists the newest first, users before what they use.
	for _ in 1 2 3 4 5; do
		m=$(ipt_modules)
		[ -z "$m" ] && return 0
		# shellcheck disable=SC2086 # module names have no blanks
		rmmod $m 2>/dev/null
	done
	m=$(ipt_modules)
	[ -z "$m" ] || fail "cannot unload: $m"
}
