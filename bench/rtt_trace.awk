# SPDX-License-Identifier: GPL-2.0
#
# rtt_trace.awk: where a traced round trip goes (bench/rtt_trace.sh).
# Input: tracefs text with the sched_switch and raw_syscalls events of
# the CPU that ran `umh_bench rtt`.  Variables: caller, helper, reader
# (pids).  An SDK sample is an ioctl of the caller's (umh_bench rtt makes
# none but ECHO_IOC_BENCH; x86-64 numbers: 16 ioctl, 0 read, 1 write); a pipe
# sample is the caller's write to one fd up to its read from another (a
# unix socket's use one fd).  Within a sample, time is charged to whoever
# ran: the caller, the helper, the reader thread, or others.  Prints the
# median of each share, in microseconds, and how often the helper was
# switched to, and preempted, per SDK sample; with -v csv=1, as CSV rows
# of bench/bench.h's columns (group rttseg; one sample each, so that
# bench/report.awk does not count them as repeated figures).

# The @q quantile of a[1..n], whole microseconds (the trace's resolution):
# counted, not sorted.
function quant(a, n, q,    c, i, top, want, seen) {
	top = 0
	for (i = 1; i <= n; i++) {
		c[int(a[i] + 0.5)]++
		if (a[i] > top)
			top = int(a[i] + 0.5)
	}
	want = int(q * (n - 1) + 0.5) + 1
	for (i = 0; i <= top; i++)
		if ((seen += c[i]) >= want)
			return i
	return top
}
function row(c, i, unit, m, p) {
	printf "rttseg,%s,%s,%s,%.2f,%.2f,0.0,1,1,1\n", c, i, unit, m, p
}
function role(pid) {
	if (pid == caller) return "caller"
	if (pid == helper) return "helper"
	if (pid == reader) return "reader"
	return "other"
}
function charge(t) {
	if (kind != "") cur[run] += t - since
	since = t
}
function finish(t,    r) {
	charge(t)
	n[kind]++
	for (r in roles)
		v[kind, r, n[kind]] = cur[r] + 0
	v[kind, "total", n[kind]] = t - t0
	if (kind == "sdk") {
		sw[n[kind]] = hsw
		pre[n[kind]] = hpre
	}
	kind = ""
}
BEGIN { roles["caller"]; roles["helper"]; roles["reader"]; roles["other"] }
match($0, /[0-9]+\.[0-9]+: [a-z_]+: /) {
	split(substr($0, RSTART, RLENGTH), h, ": ")
	t = h[1] * 1e6
	ev = h[2]
	rest = substr($0, RSTART + RLENGTH)
	task = $0
	sub(/ +\[[0-9]+\].*/, "", task)
	pid = task
	sub(/.*-/, "", pid)
	if (ev == "sched_switch") {
		if (kind != "") {
			charge(t)
			np = rest
			sub(/.* next_pid=/, "", np)
			sub(/ .*/, "", np)
			run = role(np)
			if (np == helper) hsw++
			if (rest ~ ("prev_pid=" helper " .*prev_state=R"))
				hpre++
		}
		next
	}
	if (pid != caller)
		next
	if (ev == "sys_enter" && kind == "" && rest ~ /^NR 16 \(/) {
		kind = "sdk"
	} else if (ev == "sys_enter" && kind == "" && rest ~ /^NR 1 \(/) {
		wfd = rest
		sub(/^NR 1 \(/, "", wfd)
		sub(/,.*/, "", wfd)
		kind = "w"
	} else if (ev == "sys_enter" && kind == "w" && rest ~ /^NR 0 \(/) {
		rfd = rest
		sub(/^NR 0 \(/, "", rfd)
		sub(/,.*/, "", rfd)
		kind = rfd == wfd ? "unix" : "pipe"
		next
	} else if (ev == "sys_exit" && kind == "sdk" && rest ~ /^NR 16 /) {
		finish(t)
		next
	} else if (ev == "sys_exit" && (kind == "pipe" || kind == "unix") &&
		   rest ~ /^NR 0 /) {
		finish(t)
		next
	} else {
		next
	}
	# a sample starts
	t0 = since = t
	run = "caller"
	hsw = hpre = 0
	delete cur
}
END {
	for (k = 1; k <= 2; k++) {
		kd = k == 1 ? "sdk" : "pipe"
		if (!n[kd]) {
			if (!csv)
				printf "no %s samples in the trace\n", kd
			continue
		}
		line = sprintf("%-4s %5d samples, median us:", kd, n[kd])
		split("total caller helper reader other", rs, " ")
		for (i = 1; i <= 5; i++) {
			if (kd == "pipe" && rs[i] == "reader")
				continue
			delete a
			for (j = 1; j <= n[kd]; j++)
				a[j] = v[kd, rs[i], j]
			m = quant(a, n[kd], 0.5)
			lbl = kd == "pipe" && rs[i] == "other" ? "server" : rs[i]
			line = line sprintf(" %s %.0f", lbl, m)
			if (csv)
				row(kd, lbl, "us", m, quant(a, n[kd], 0.99))
		}
		if (csv)
			row(kd, "samples", "count", n[kd], n[kd])
		else
			print line
	}
	if (n["sdk"]) {
		s = p = 0
		for (j = 1; j <= n["sdk"]; j++) {
			s += sw[j]
			p += pre[j]
		}
		if (csv) {
			row("sdk", "helper_switches", "per_call", s / n["sdk"], s / n["sdk"])
			row("sdk", "helper_preempted", "per_call", p / n["sdk"], p / n["sdk"])
		} else {
			printf "sdk: per sample, %.2f switches to the helper, %.2f of them after it was preempted\n",
				s / n["sdk"], p / n["sdk"]
		}
	}
}
