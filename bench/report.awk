# SPDX-License-Identifier: GPL-2.0
#
# report.awk: bench/results/<release>.csv files -> report.md on stdout,
# plot data in the directory named by -v tmp=.  Run by bench/report.sh,
# which passes -v when, commit, host, qemu, append, took, loads, disturbed,
# earlier.
#
# A ratio is taken from the paired "A/B,ratio" row umh_bench prints (the
# median over rounds of A's batch / B's batch, measured side by side);
# when a CSV has none, from the two medians.
BEGIN { FS = "," }

function short(k) { return match(k, /^[0-9]+\.[0-9]+/) ? substr(k, RSTART, RLENGTH) : k }
function key(g, c, i) { return g SUBSEP c SUBSEP i }
function has(k, x) { return ((k SUBSEP x) in MED) }
function med(k, x) { return MED[k, x] + 0 }
function p99(k, x) { return P99[k, x] + 0 }
function us(ns) { return sprintf("%.1f", ns / 1000) }
function ms(ns) { return sprintf("%.1f", ns / 1e6) }
function fmt(r) { return r == "" ? "n/a" : sprintf("%.2f", r) }
function kib(b) { return sprintf("%.0f KiB", b / 1024) }
function label(sz) { return sz == 0 ? "0 B" : sz < 1024 ? sz " B" : (sz / 1024) " KiB" }
# spread of a figure, marked when its batches never settled below 5 %
function spr(k, x) {
	if (!has(k, x)) return "n/a"
	return sprintf("%.1f %%%s", SPREAD[k, x], STABLE[k, x] ? "" : " (unsettled)")
}
# ratio a / b of case (g, c) on kernel k, "" if unknown; which: median or p99
function ratio(k, g, c, a, b, which,    x, y) {
	x = key(g, c, a "/" b)
	if (has(k, x)) return which == "p99" ? p99(k, x) : med(k, x)
	x = key(g, c, a); y = key(g, c, b)
	if (!has(k, x) || !has(k, y)) return ""
	if (which == "p99") return p99(k, y) > 0 ? p99(k, x) / p99(k, y) : ""
	return med(k, y) > 0 ? med(k, x) / med(k, y) : ""
}
function rspr(k, g, c, a, b) { return spr(k, key(g, c, a "/" b)) }

{
	if (FNR == 1) {
		k = FILENAME; sub(/\.csv$/, "", k); sub(/.*\//, "", k)
		if (k != "umd")		# umd.csv: its own section (umd_section)
			K[++n] = k
		next
	}
	x = key($1, $2, $3)
	MED[k, x] = $5; P99[k, x] = $6; SPREAD[k, x] = $7; STABLE[k, x] = $10
	if ($9 > 1) {		# a measured figure, not a single value
		if ($4 == "ratio") { NR_[k]++; SR_[k] += $10 }
		else { NF_[k]++; SF_[k] += $10 }
	}
}

# One headline row: R[1..n] per kernel ("" for none).  With plotname set,
# the row also goes to the ratios plot.
function hrow(title, how,    i, line) {
	line = "| " title " | " how " |"
	if (plotname != "") printf "\"%s\"", plotname >> (tmp "/ratios.dat")
	for (i = 1; i <= n; i++) {
		line = line " " fmt(R[i]) " |"
		if (plotname != "") printf " %s", R[i] == "" ? "NaN" : sprintf("%.4f", R[i]) >> (tmp "/ratios.dat")
	}
	if (plotname != "") printf "\n" >> (tmp "/ratios.dat")
	print line
	plotname = ""
}
function headline(title, how, g, c, a, b, which,    i) {
	for (i = 1; i <= n; i++) R[i] = ratio(K[i], g, c, a, b, which)
	hrow(title, how)
}

function intro(    i, line) {
	print "# umh-sdk benchmarks"
	print ""
	print "Written by `make bench` (bench/run.sh, bench/report.sh) on " when \
		", commit " commit (took != "" ? "; the whole run took " took " s" : "") "."
	if (earlier != "")
		print "That run measured only some of the kernels; the others' figures were" \
			" kept from earlier runs, measured: " earlier "."
	print "Host: " host "; " qemu ". Guests: the Debian kernels below under QEMU TCG" \
		" (no KVM), 2 vCPUs, 1 GiB" (append != "" ? ", kernel parameter `" append "`" : "") "."
	if (loads != "")
		print "The host, as each guest started (load average over 1, 5, 15 min; share" \
			" of the host CPU in use) and while it ran (share used by other jobs; share" \
			" the hypervisor gave to other VMs, the host being one): " loads "."
	if (disturbed != "") {
		print ""
		print "**Disturbed run:** other jobs on the host, or other VMs beside it, took a" \
			" good share of its CPU while these guests ran: " disturbed ". Their figures" \
			" are noisier than they would be on a quiet host; the paired ratios suffer least."
	}
	print ""
	print "**Absolute times come from an emulated CPU on a shared host: compare them"
	print "only within one table. The ratios are the result.** Every SDK figure is"
	print "measured in the same guest run as its references, in rounds: each round is a"
	print "batch of each, their samples taken in turns (SDK call, pipe call, unix call,"
	print "...), so a passing disturbance hits them alike. A ratio is taken round by"
	print "round (SDK batch median / reference batch median), then its median over the"
	print "last 5 rounds (4 for bulk and start) is reported. A ratio is SDK / reference: for"
	print "times and sizes above 1 means the SDK costs more; for rates (calls/s) below"
	print "1 means it does less."
	print ""
	print "A figure is the median (and 99th percentile) of the samples of its last 5"
	print "batches (4 for bulk and start). Rounds repeat until every figure, or every"
	print "ratio, is steady (the batch medians, or the per-round ratios, of the window"
	print "within 5 % of each other), or up to 20 rounds (10 for bulk and start, 12 for"
	print "concurrency) or 20 s. \"Spread\" is (max - min) / median over the window;"
	print "\"unsettled\" means a cap came first: read such a figure with its spread."
	print "Helper starts take turns batch by batch rather than start by start, so that"
	print "what one rmmod leaves to finish does not land in every other sample."
	print "Nothing here passes or fails: the benchmark reports numbers."
	line = "Settled under 5 % in this run:"
	for (i = 1; i <= n; i++)
		line = line (i > 1 ? ";" : "") " Linux " short(K[i]) ", " SF_[K[i]] + 0 " of " NF_[K[i]] + 0 \
			" figures and " SR_[K[i]] + 0 " of " NR_[K[i]] + 0 " ratios"
	print line ". Absolute figures drift from round to round even on a quiet host;"
	print "the ratios, taken sample by sample, vary far less (compare the spreads)."
	print ""
	print "All measured tasks run on the guest's first vCPU (taskset): the benchmark"
	print "programs, their reference processes, the helper and the SDK's reader thread."
	print "Under TCG a hop between vCPUs costs an emulated IPI and, whenever the host is"
	print "busy, a wait for the host to schedule the other vCPU's thread: milliseconds"
	print "that swamped the round trips of the SDK (three tasks per call while its reader"
	print "thread handed every reply over) more than those of the references (two). On"
	print "one vCPU a figure is the CPU work of its path."
}

# A table's head: the two given columns, then one per kernel.
function khead(a, b,    i, hdr, sep) {
	hdr = "| " a " | " b " |"; sep = "|---|---|"
	for (i = 1; i <= n; i++) { hdr = hdr " Linux " short(K[i]) " |"; sep = sep "---:|" }
	print hdr; print sep
}

function headlines(    i, s, t, a, b) {
	print ""
	print "## Headline ratios"
	print ""
	khead("Figure", "Ratio")
	printf "figure" > (tmp "/ratios.dat")
	for (i = 1; i <= n; i++) printf " \"Linux %s\"", short(K[i]) >> (tmp "/ratios.dat")
	printf "\n" >> (tmp "/ratios.dat")
	for (s = 1; s <= nsz; s++) {
		plotname = "round trip " label(SZ[s])
		headline("RPC round trip, " label(SZ[s]) ", median", "SDK / pipe ping-pong", "rtt", SZ[s], "sdk", "pipe", "median")
	}
	plotname = "round trip 64 B, p99"
	headline("RPC round trip, 64 B, p99", "SDK / pipe ping-pong", "rtt", 64, "sdk", "pipe", "p99")
	plotname = "round trip 64 B vs unix"
	headline("RPC round trip, 64 B, median", "SDK / unix socket ping-pong", "rtt", 64, "sdk", "unix", "median")
	plotname = "bulk 16 MiB"
	headline("Bulk: one 16 MiB call, time", "SDK / pipe to a process", "bulk", 16777216, "sdk", "pipe", "median")
	for (t = 1; t <= nth; t++) {
		# The table shows calls/s; the plot shows the time per call (the
		# inverse), so that there too above 1 means the SDK costs more.
		for (i = 1; i <= n; i++) {
			R[i] = ratio(K[i], "conc", TH[t], "sdk", "pipe", "median")
			PLOT[i] = R[i] == "" || R[i] == 0 ? "" : 1 / R[i]
		}
		plotname = "time per call, " TH[t] " caller" (TH[t] > 1 ? "s" : "")
		crow(TH[t] " caller" (TH[t] > 1 ? "s" : "") ", calls/s", "SDK / pipes to one server process")
	}
	plotname = "start, glibc"
	headline("Helper start (insmod to first reply), glibc", "SDK / fork+exec to first reply", "start", "first_reply", "sdk", "fork_exec", "median")
	plotname = "start, musl"
	headline("Helper start, musl", "SDK / fork+exec to first reply", "start", "first_reply", "sdk_musl", "fork_exec_musl", "median")
	headline("Helper start, glibc", "SDK / bare insmod of a helper-less module with 768 KiB init data", "start", "first_reply", "sdk", "insmod_bench_pad", "median")
	for (i = 1; i <= n; i++) R[i] = div(own_start(K[i], "start_stage", "sdk"), bv(K[i], "start", "first_reply", "fork_exec"))
	plotname = "SDK's own start"
	hrow("The SDK's own start (umh_blob_start() to the handshake done, on_start included), glibc", "SDK / fork+exec to first reply")
	for (i = 1; i <= n; i++) R[i] = div(own_start(K[i], "start_stage", "sdk"), bv(K[i], "start", "first_reply", "fresh_fork_exec"))
	plotname = "own start, fresh code"
	hrow("The SDK's own start, glibc", "SDK / fork+exec of a fresh copy to first reply (the copy not timed)")
	for (i = 1; i <= n; i++) {
		R[i] = own_start(K[i], "start_stage", "sdk")
		R[i] = R[i] == "" || bv(K[i], "start_stage", "create", "sdk") == "" ? "" : \
			div(R[i] + bv(K[i], "start_stage", "create", "sdk"), bv(K[i], "start", "first_reply", "copy_fork_exec"))
	}
	plotname = "create + own start"
	hrow("The blob copied (umh_blob_create()) and the SDK's own start, glibc", "SDK / a fresh copy of the binary written to a memfd, fork+exec'd to first reply")
	plotname = "restart"
	headline("Helper restart (SIGKILL to the next helper's first reply), glibc", "SDK / fork+exec to first reply", "restart", "first_reply", "sdk", "fork_exec", "median")
	headline("Blob size", "musl / glibc", "mem", "blob", "musl", "glibc", "median")
	for (i = 1; i <= n; i++) {
		a = med(K[i], key("mem", "module_after_init", "glibc"))
		b = med(K[i], key("mem", "init_sections", "glibc"))
		R[i] = has(K[i], key("mem", "module_after_init", "glibc")) && a + b > 0 ? a / (a + b) : ""
	}
	plotname = "module memory"
	hrow("Module memory after init, glibc", "after init / at load (init sections included)")
	plotname = "helper RSS"
	headline("Helper resident memory, glibc, fresh", "SDK / fork+exec", "mem", "helper_rss", "sdk", "fork_exec", "median")
	print ""
	print "Plots: [round trips](rtt.png), [ratios](ratios.png),"
	print "[concurrency](concurrency.png), [helper start](start.png)."
	print ""
	print "![RPC round trip](rtt.png)"
	print ""
	print "![Ratios](ratios.png)"
	print ""
	print "![Concurrency](concurrency.png)"
	print ""
	print "![Helper start](start.png)"
}

# A headline row whose table value (R) and plot value (PLOT) differ.
function crow(title, how,    i, line) {
	line = "| " title " | " how " |"
	printf "\"%s\"", plotname >> (tmp "/ratios.dat")
	for (i = 1; i <= n; i++) {
		line = line " " fmt(R[i]) " |"
		printf " %s", PLOT[i] == "" ? "NaN" : sprintf("%.4f", PLOT[i]) >> (tmp "/ratios.dat")
	}
	printf "\n" >> (tmp "/ratios.dat")
	print line
	plotname = ""
}

function start_plot_data(    i, v, l, x) {
	printf "variant" > (tmp "/start.dat")
	for (i = 1; i <= n; i++) printf " \"Linux %s\"", short(K[i]) >> (tmp "/start.dat")
	printf "\n" >> (tmp "/start.dat")
	for (v = 1; v <= nstart; v++) {
		l = STARTNAME[v]; sub(/, /, "\\n", l)
		printf "\"%s\"", l >> (tmp "/start.dat")
		for (i = 1; i <= n; i++) {
			x = key("start", "first_reply", STARTIMPL[v])
			printf " %s", has(K[i], x) ? ms(med(K[i], x)) : "NaN" >> (tmp "/start.dat")
		}
		printf "\n" >> (tmp "/start.dat")
	}
}

function tv(k, c, i,    x) {	# a rttseg figure: "median (p99)"
	x = key("rttseg", c, i)
	return has(k, x) ? sprintf("%.0f (%.0f)", med(k, x), p99(k, x)) : "n/a"
}
function rtt_trace_table(k) {
	print ""
	print "### Where a 64-byte round trip goes (traced)"
	print ""
	if (!has(k, key("rttseg", "sdk", "total"))) {
		print "No traced run in this kernel's CSV: bench/rtt_trace.sh found no `sched_switch`"
		print "or `raw_syscalls` trace events, or the CSV is older than it."
		return
	}
	print "One more `umh_bench rtt 64` run, with the `sched_switch` and `raw_syscalls`"
	print "events traced (bench/rtt_trace.sh); each sample's time is charged to the"
	print "tasks that ran in it. Here an SDK sample is the whole `ECHO_IOC_BENCH`"
	print "ioctl, its entry and exit included (above, the call is timed inside the"
	print "kernel); a pipe sample is the caller's `write()` until its `read()`"
	print "returns. The events cost time of their own: read the shares, not the"
	print "totals. Median (p99) of " med(k, key("rttseg", "sdk", "samples")) " SDK and " \
		med(k, key("rttseg", "pipe", "samples")) " pipe samples, in whole microseconds"
	print "(the trace's resolution); a median of 0 means that task ran in fewer than"
	print "half of the samples."
	print ""
	print "| Who ran | SDK | pipe |"
	print "|---|---:|---:|"
	print "| the whole sample | " tv(k, "sdk", "total") " | " tv(k, "pipe", "total") " |"
	print "| the caller | " tv(k, "sdk", "caller") " | " tv(k, "pipe", "caller") " |"
	print "| the helper; the server process | " tv(k, "sdk", "helper") " | " tv(k, "pipe", "server") " |"
	print "| the SDK's reader thread | " tv(k, "sdk", "reader") " | |"
	print "| other tasks (what the other variant's sample left runnable, among them) | " \
		tv(k, "sdk", "other") " | " tv(k, "pipe", "helper") " |"
	print ""
	print "Per SDK call the helper was switched to " \
		sprintf("%.2f", med(k, key("rttseg", "sdk", "helper_switches"))) " times, " \
		sprintf("%.2f", med(k, key("rttseg", "sdk", "helper_preempted"))) " of them to finish"
	print "work it had been preempted in (when its reply's wakeup of the caller preempts"
	print "it, it is switched to again to finish its `writev()`). A caller alone in"
	print "flight reads its own reply, so the reader thread has no turn here"
	print "(Documentation/channel.rst, \"Who reads a reply\")."
}
function sms(v) { return v == "" ? "n/a" : sprintf("%.2f", v / 1e6) }
function kernel_section(i,    k, s, t, v, a, b, c, f, x, line, ST, STN) {
	k = K[i]
	print ""
	print "## Linux " short(k) " (" k ")"
	print ""
	print "Raw figures: [" k ".csv](" k ".csv)."
	print ""
	print "### RPC round trip (kernel -> helper -> kernel)"
	print ""
	print "SDK: `ECHO_IOC_BENCH`, echo calls timed one by one inside the kernel, so no"
	print "syscall entry is in them. References: two processes ping-ponging the same"
	print "frame (32-byte header + payload) over two pipes, or over a unix stream"
	print "socketpair, timed in user space. Microseconds."
	print ""
	print "| Payload | SDK median | SDK p99 | pipe median | pipe p99 | unix median | unix p99 | spread SDK / pipe / unix |"
	print "|---|---:|---:|---:|---:|---:|---:|---|"
	f = tmp "/rtt-" i ".dat"
	print "payload SDK \"pipe ping-pong\" \"unix socket ping-pong\"" > f
	for (s = 1; s <= nsz; s++) {
		a = key("rtt", SZ[s], "sdk"); b = key("rtt", SZ[s], "pipe"); c = key("rtt", SZ[s], "unix")
		if (!has(k, a)) continue
		print "| " label(SZ[s]) " | " us(med(k, a)) " | " us(p99(k, a)) " | " us(med(k, b)) " | " us(p99(k, b)) \
			" | " us(med(k, c)) " | " us(p99(k, c)) " | " spr(k, a) " / " spr(k, b) " / " spr(k, c) " |"
		printf "\"%s\" %s %s %s\n", label(SZ[s]), us(med(k, a)), us(med(k, b)), us(med(k, c)) >> f
	}
	print ""
	print "| Payload | SDK / pipe, median | SDK / pipe, p99 | spread | SDK / unix, median | SDK / unix, p99 | spread |"
	print "|---|---:|---:|---|---:|---:|---|"
	for (s = 1; s <= nsz; s++) {
		if (!has(k, key("rtt", SZ[s], "sdk"))) continue
		print "| " label(SZ[s]) " | " fmt(ratio(k, "rtt", SZ[s], "sdk", "pipe", "median")) \
			" | " fmt(ratio(k, "rtt", SZ[s], "sdk", "pipe", "p99")) " | " rspr(k, "rtt", SZ[s], "sdk", "pipe") \
			" | " fmt(ratio(k, "rtt", SZ[s], "sdk", "unix", "median")) \
			" | " fmt(ratio(k, "rtt", SZ[s], "sdk", "unix", "p99")) " | " rspr(k, "rtt", SZ[s], "sdk", "unix") " |"
	}

	rtt_trace_table(k)

	print ""
	print "### Bulk: one 16 MiB call"
	print ""
	print "SDK: one `ECHO_IOC_SINK` call, timed around the ioctl; the module passes the"
	print "caller's buffer to umh_blob_call_user(), which writes it straight into the"
	print "channel. The helper sums the bytes, and frees its 16 MiB buffer once it has"
	print "replied, so each call faults its buffer in again."
	print "Reference: the same frame written into a pipe to a process that sums them."
	print ""
	print "| | median ms | p99 ms | MiB/s (median) | spread |"
	print "|---|---:|---:|---:|---|"
	a = key("bulk", 16777216, "sdk"); b = key("bulk", 16777216, "pipe")
	if (has(k, a)) {
		print "| SDK | " ms(med(k, a)) " | " ms(p99(k, a)) " | " sprintf("%.0f", 16 * 1e9 / med(k, a)) " | " spr(k, a) " |"
		print "| pipe | " ms(med(k, b)) " | " ms(p99(k, b)) " | " sprintf("%.0f", 16 * 1e9 / med(k, b)) " | " spr(k, b) " |"
		print "| SDK / pipe | " fmt(ratio(k, "bulk", 16777216, "sdk", "pipe", "median")) " | " \
			fmt(ratio(k, "bulk", 16777216, "sdk", "pipe", "p99")) " | | " rspr(k, "bulk", 16777216, "sdk", "pipe") " |"
	}

	print ""
	print "### Concurrency: 64-byte calls per second"
	print ""
	print "SDK: N threads making `ECHO_IOC_ECHO` calls (syscall included) to the one"
	print "helper. Reference: N threads calling one single-threaded server process:"
	print "requests on one shared pipe, one reply pipe per thread. All on one vCPU, so"
	print "this is how many calls the CPU cost of each path allows with N callers"
	print "queueing, not parallelism."
	print ""
	print "| Callers | SDK calls/s | pipe calls/s | SDK / pipe | spread SDK / pipe / ratio |"
	print "|---:|---:|---:|---:|---|"
	f = tmp "/conc-" i ".dat"
	print "callers sdk pipe" > f
	for (t = 1; t <= nth; t++) {
		a = key("conc", TH[t], "sdk"); b = key("conc", TH[t], "pipe")
		if (!has(k, a)) continue
		print "| " TH[t] " | " med(k, a) " | " med(k, b) " | " fmt(ratio(k, "conc", TH[t], "sdk", "pipe", "median")) \
			" | " spr(k, a) " / " spr(k, b) " / " rspr(k, "conc", TH[t], "sdk", "pipe") " |"
		print TH[t], med(k, a), med(k, b) >> f
	}

	print ""
	print "### Helper start"
	print ""
	print "SDK: `finit_module()` of the echo module (it copies the blob, starts the"
	print "helper and completes the handshake before it returns) until the first ping"
	print "reply through `/dev/echo_umh`, then rmmod. Reference: fork + exec of the same"
	print "static binary from a file (tmpfs, like the module) until it answered the same"
	print "handshake and ping over pipes. Baselines, to split the SDK figure: the bare"
	print "insmod of modules with no helper (bench/kmod), one empty, one with 768 KiB of"
	print "init data. Milliseconds. (A new helper and its reader thread may run on the"
	print "other vCPU: they do not exist before insmod, so they cannot be pinned.)"
	print ""
	print "| | median ms | p99 ms | spread | SDK / this (paired) | spread |"
	print "|---|---:|---:|---|---:|---|"
	for (v = 1; v <= nstart; v++) {
		a = STARTIMPL[v]
		x = key("start", "first_reply", a)
		if (!has(k, x)) continue
		line = "| " STARTNAME[v] " | " ms(med(k, x)) " | " ms(p99(k, x)) " | " spr(k, x) " | "
		if (a ~ /^sdk/) {
			line = line "| |"
		} else {
			b = a ~ /musl/ ? "sdk_musl" : "sdk"
			line = line fmt(ratio(k, "start", "first_reply", b, a, "median")) " | " \
				rspr(k, "start", "first_reply", b, a) " |"
		}
		print line
	}

	if (has(k, key("start_stage", "exec", "sdk"))) {
		print ""
		print "Where the SDK's starts and restarts took their time: the status view's"
		print "`last_start_us` after each one (the stages of `umh_blob_start()`; a restart"
		print "adds the wait from the death noticed to the restart work, and the old"
		print "process's teardown), median over the samples, milliseconds. Restart: the"
		print "running helper SIGKILLed, until the next one answered a ping (module loaded"
		print "with a 1 ms restart window: no backoff)."
		print ""
		print "Each start sample loads the module anew, so the helper runs from a fresh"
		print "copy of the blob: under TCG, code at new pages is translated again, which"
		print "is most of the first handshake. A restart runs the same copy again (its"
		print "handshake is a quarter of that), and so does fork+exec of one file; the"
		print "copy + fork+exec reference writes a fresh copy each time, as the SDK does,"
		print "and its last row starts the clock once the copy is written: fork+exec of"
		print "code never run before, which is what the SDK's own part runs (on KVM or"
		print "hardware, where nothing is translated, the two fork+exec rows would be"
		print "close)."
		print ""
		print "| Stage | start, glibc | start, musl | restart, glibc |"
		print "|---|---:|---:|---:|"
		print "| at insmod, once: the blob copied into shmem, the mount (`umh_blob_create()`) | " \
			sms(bv(k, "start_stage", "create", "sdk")) " | " sms(bv(k, "start_stage", "create", "sdk_musl")) " | |"
		split("wait teardown fifos reader exec hello on_start", ST, " ")
		split("restart: waiting for the restart work|restart: the old process torn down|FIFOs made and opened|reader thread created|call_usermodehelper_exec() until the exec|handshake (the helper's own start, then hello)|on_start", STN, "|")
		for (v = 1; v <= 7; v++)
			print "| " STN[v] " | " sms(bv(k, "start_stage", ST[v], "sdk")) " | " sms(bv(k, "start_stage", ST[v], "sdk_musl")) \
				" | " sms(bv(k, "restart_stage", ST[v], "sdk")) " |"
		print "| **the SDK's own part (FIFOs .. on_start)** | " sms(own_start(k, "start_stage", "sdk")) " | " \
			sms(own_start(k, "start_stage", "sdk_musl")) " | " sms(own_start(k, "restart_stage", "sdk")) " |"
		print "| insmod .. first reply; SIGKILL .. first reply (measured from user space) | " \
			sms(bv(k, "start", "first_reply", "sdk")) " | " sms(bv(k, "start", "first_reply", "sdk_musl")) " | " \
			sms(bv(k, "restart", "first_reply", "sdk")) " |"
		print "| fork+exec .. first reply | " sms(bv(k, "start", "first_reply", "fork_exec")) " | " \
			sms(bv(k, "start", "first_reply", "fork_exec_musl")) " | " sms(bv(k, "restart", "first_reply", "fork_exec")) " |"
		print "| copy to a memfd + fork+exec .. first reply | " sms(bv(k, "start", "first_reply", "copy_fork_exec")) " | " \
			sms(bv(k, "start", "first_reply", "copy_fork_exec_musl")) " | |"
		print "| the same, the clock started after the copy: fork+exec of code never run before .. first reply | " \
			sms(bv(k, "start", "first_reply", "fresh_fork_exec")) " | " \
			sms(bv(k, "start", "first_reply", "fresh_fork_exec_musl")) " | |"
	}

	print ""
	print "### Footprint"
	print ""
	print "| | glibc helper | musl helper | musl / glibc |"
	print "|---|---:|---:|---:|"
	for (v = 1; v <= nmem; v++) {
		a = key("mem", MEMKEY[v], "glibc"); b = key("mem", MEMKEY[v], "musl")
		if (!has(k, a)) continue
		print "| " MEMNAME[v] " | " med(k, a) " B (" kib(med(k, a)) ") | " med(k, b) " B (" kib(med(k, b)) ") | " \
			fmt(ratio(k, "mem", MEMKEY[v], "musl", "glibc", "median")) " |"
	}
	a = key("mem", "module_after_init", "glibc"); b = key("mem", "module_after_init", "musl")
	if (has(k, a))
		print "| Module memory after init / at load (after init + init sections) | " \
			fmt(med(k, a) / (med(k, a) + med(k, key("mem", "init_sections", "glibc")))) " | " \
			fmt(med(k, b) / (med(k, b) + med(k, key("mem", "init_sections", "musl")))) " | |"
	print ""
	print "| Helper resident memory (Rss from smaps_rollup) | SDK | fork+exec | SDK / fork+exec |"
	print "|---|---:|---:|---:|"
	a = key("mem", "helper_rss", "sdk"); b = key("mem", "helper_rss", "fork_exec")
	if (has(k, a)) print "| glibc, after its first reply | " med(k, a) " kB | " med(k, b) " kB | " fmt(ratio(k, "mem", "helper_rss", "sdk", "fork_exec", "median")) " |"
	a = key("mem", "helper_rss", "sdk_musl"); b = key("mem", "helper_rss", "fork_exec_musl")
	if (has(k, a)) print "| musl, after its first reply | " med(k, a) " kB | " med(k, b) " kB | " fmt(ratio(k, "mem", "helper_rss", "sdk_musl", "fork_exec_musl", "median")) " |"
	a = key("mem", "helper_rss_after", "sdk"); b = key("mem", "helper_hwm_after", "sdk")
	if (has(k, a)) print "| glibc, after all the benchmarks (peak " med(k, b) " kB) | " med(k, a) " kB | | |"
	print ""
	print "The helper's resident pages are mostly its executable's pages, which for"
	print "the SDK are the pages of the shmem copy above: the two figures overlap."
	a = key("sdk", "failures", "sdk")
	if (has(k, a)) {
		print ""
		print "SDK calls that failed during the run: " med(k, a) "; helper restarts: " \
			med(k, key("sdk", "restarts", "sdk")) "."
	}
}

# ---- bpfilter (bench/bpfilter_bench.sh) ----
# Its figures for N rules on kernel k; "" when not measured.
function bv(k, g, c, i) { return has(k, key(g, c, i)) ? med(k, key(g, c, i)) : "" }
# The SDK's own part of a start: its stages from the FIFOs to on_start.
function own_start(k, g, impl,    i, t, v, sum) {
	split("fifos reader exec hello on_start", t, " ")
	for (i = 1; i <= 5; i++) {
		v = bv(k, g, t[i], impl)
		if (v == "") return ""
		sum += v
	}
	return sum
}
# The time per packet through veth with no firewall: the median of the
# three measurements (before, between and after the firewalls).
function min3(v) { return v[1] < v[2] ? (v[1] < v[3] ? v[1] : v[3]) : (v[2] < v[3] ? v[2] : v[3]) }
function max3(v) { return v[1] > v[2] ? (v[1] > v[3] ? v[1] : v[3]) : (v[2] > v[3] ? v[2] : v[3]) }
function none(k,    i, m, v, t) {
	m = 0
	split("none none_mid none_end", t, " ")
	for (i = 1; i <= 3; i++)
		if (has(k, key("veth", 0, t[i]))) v[++m] = med(k, key("veth", 0, t[i]))
	if (!m) return ""
	if (m == 2) return (v[1] + v[2]) / 2
	# the middle one of three: the sum less the least and the greatest
	return m == 1 ? v[1] : v[1] + v[2] + v[3] - min3(v) - max3(v)
}
# The firewall's own time per packet through veth: the time with it minus
# the time with no firewall.  For bpfilter it is at least its program's
# TEST_RUN time (a smaller difference is noise of the path around it).
function ipt_cost(k, c,    a, z) {
	a = bv(k, "veth", c, "ip_tables"); z = none(k)
	return a == "" || z == "" ? "" : a - z
}
function bpf_cost(k, c,    a, z, p) {
	a = bv(k, "veth", c, "bpfilter"); z = none(k); p = bv(k, "bpf", c, "bpfilter")
	if (a == "" || z == "" || p == "") return ""
	return a - z > p ? a - z : p
}
function div(a, b) { return a == "" || b == "" || b == 0 ? "" : a / b }
function met(r, op, t) {
	if (r == "") return "n/a"
	return fmt(r) ((op == "<=" ? r <= t : r >= t) ? " (met)" : " (**not met**)")
}
function trow(title, target, op, t,    i, line) {
	line = "| " title " | " target " |"
	for (i = 1; i <= n; i++) line = line " " met(R[i], op, t) " |"
	print line
}
function ns(v) { return v == "" ? "n/a" : v >= 10000 ? sprintf("%.1f us", v / 1000) : sprintf("%.0f ns", v) }
function num(v) { return v == "" ? "n/a" : sprintf("%.0f", v) }

function bpfilter_headlines(    i, k, line, x) {
	if (!has(K[1], key("bpf", 10, "bpfilter"))) return
	print ""
	print "## bpfilter: the targets"
	print ""
	print "The workload is facebook/bpfilter's `dropAfterXRules`: N rules"
	print "`-p tcp --dport <1..N> -j ACCEPT` in INPUT, policy DROP, and a TCP SYN to"
	print "port 60000 that none of them matches. *Program*: the code bpfilter's"
	print "generator makes of the table, loaded and run by `bpf_bench` with"
	print "`BPF_PROG_TEST_RUN`. *Through veth*: the SYN sent from a netns through a"
	print "veth pair into INPUT; the receiving stack runs in the sender's softirq, so"
	print "a send's time includes the firewall's work. A firewall's *own* time per"
	print "packet is its time through veth minus the time with no firewall loaded"
	print "(for bpfilter at least its program's time). Details per kernel below."
	print ""
	khead("Figure", "Target")
	for (i = 1; i <= n; i++) R[i] = div(bv(K[i], "insns", 2048, "xlated"), 39121)
	trow("Instructions (xlated) at 2,048 rules / facebook/bpfilter's 39,121", "<= 0.5", "<=", 0.5)
	# paired (side by side) when the CSV has it
	for (i = 1; i <= n; i++) {
		R[i] = bv(K[i], "bpf", 10000, "bpfilter/10")
		if (R[i] == "") R[i] = div(bv(K[i], "bpf", 10000, "bpfilter"), bv(K[i], "bpf", 10, "bpfilter"))
	}
	trow("Program time per packet, 10,000 rules / 10 rules (side by side)", "<= 2", "<=", 2)
	for (i = 1; i <= n; i++) R[i] = div(bpf_cost(K[i], 1000), ipt_cost(K[i], 1000))
	trow("Own time per packet at 1,000 rules, bpfilter / ip_tables", "<= 0.33", "<=", 0.33)
	for (i = 1; i <= n; i++) R[i] = div(bv(K[i], "veth", 1000, "ip_tables"), bv(K[i], "veth", 1000, "bpfilter"))
	trow("Packets/s through veth at 1,000 rules, bpfilter / ip_tables", ">= 3", ">=", 3)
	for (i = 1; i <= n; i++) R[i] = div(bv(K[i], "load", 10000, "bpfilter"), bv(K[i], "load", 10000, "ip_tables"))
	trow("Load of 10,000 rules (iptables-legacy-restore), bpfilter / ip_tables", "<= 3", "<=", 3)
	line = "| Largest table that loads | >= 100,000 rules |"
	for (i = 1; i <= n; i++) {
		k = K[i]; x = bv(k, "load", "big100000", "bpfilter")
		line = line " " (x == "" ? "n/a" : \
			has(k, key("insns", "big100000", "xlated")) ? \
			sprintf("100,000 load (%.1f s, %d insns) (met)", x / 1000, bv(k, "insns", "big100000", "xlated")) : \
			"100,000 do **not** load") " |"
	}
	print line
	print ""
	print "Ratios of time below 1 mean bpfilter needs less. For comparison, ip_tables'"
	print "own time per packet at 10, 1,000 and 10,000 rules (at 10 rules it is within"
	print "the path's noise between two measurements, a few us under TCG):"
	line = ""
	for (i = 1; i <= n; i++)
		line = line (i > 1 ? "; " : "") "Linux " short(K[i]) " " ns(ipt_cost(K[i], 10)) ", " \
			ns(ipt_cost(K[i], 1000)) ", " ns(ipt_cost(K[i], 10000))
	print line "."
	print ""
	print "![bpfilter](bpfilter.png)"
}

function bpfilter_section(i,    k, c, nc, C, f, line, x, PA) {
	k = K[i]
	if (!has(k, key("bpf", 10, "bpfilter"))) return
	print ""
	print "### bpfilter"
	print ""
	print "Per table (N rules of `dropAfterXRules`; `mixN`: N rules of a host firewall's"
	print "blocks, see bench/bpfilter_bench.sh). Program: `BPF_PROG_TEST_RUN`, median"
	print "(p99) of 2,000-packet runs. Veth: ns per packet with no firewall, with"
	print "ip_tables, with bpfilter; *own* is the firewall's share of it. Load:"
	print "`iptables-legacy-restore` into an empty table, median of 3. Compile and"
	print "verify: the generator and `BPF_PROG_LOAD` in `bpf_bench`."
	print ""
	print "Program time side by side (paired, 2,000-packet runs by turns):"
	line = ""
	split("10000 1000", PA, " ")
	for (c = 1; c <= 2; c++) {
		x = key("bpf", PA[c], "bpfilter/10")
		if (has(k, x))
			line = line (line == "" ? "" : "; ") PA[c] " rules / 10 rules " fmt(med(k, x)) " (spread " spr(k, x) ")"
	}
	print (line == "" ? "not measured" : line) "."
	print ""
	print "| Rules | insns (xlated) | program | veth: none | veth: ip_tables (own) | veth: bpfilter (own) | packets/s ip_tables / bpfilter | load ms ip_tables / bpfilter | compile / verify ms |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	nc = split("0 8 10 128 1000 2048 10000 mix1000 mix10000 big100000", C, " ")
	f = tmp "/bpf-" i ".dat"
	print "rules ipt_own bpf_own bpf_prog ipt_load bpf_load insns" > f
	for (c = 1; c <= nc; c++) {
		if (!has(k, key("insns", C[c], "xlated"))) continue
		line = "| " C[c] " | " num(bv(k, "insns", C[c], "xlated")) " | " ns(bv(k, "bpf", C[c], "bpfilter")) \
			" (" ns(p99(k, key("bpf", C[c], "bpfilter"))) ") | "
		line = line (C[c] == 0 ? ns(none(k)) : "") " | "
		if (has(k, key("veth", C[c], "ip_tables"))) {
			line = line ns(bv(k, "veth", C[c], "ip_tables")) " (" ns(ipt_cost(k, C[c])) ") | " \
				ns(bv(k, "veth", C[c], "bpfilter")) " (" ns(bpf_cost(k, C[c])) ") | " \
				sprintf("%.0f / %.0f", 1e9 / bv(k, "veth", C[c], "ip_tables"), 1e9 / bv(k, "veth", C[c], "bpfilter")) " | "
		} else {
			line = line " | | | "
		}
		line = line num(bv(k, "load", C[c], "ip_tables")) " / " num(bv(k, "load", C[c], "bpfilter")) " | " \
			num(bv(k, "prog_ms", C[c], "compile")) " / " num(bv(k, "prog_ms", C[c], "verify")) " |"
		print line
		if (C[c] ~ /^[0-9]+$/ && C[c] > 0)
			print C[c], ipt_cost(k, C[c]), bpf_cost(k, C[c]), bv(k, "bpf", C[c], "bpfilter"), \
				bv(k, "load", C[c], "ip_tables"), bv(k, "load", C[c], "bpfilter"), bv(k, "insns", C[c], "xlated") >> f
	}
}

END {
	nsz = split("0 64 4096 65536", SZ, " ")
	nth = split("1 4 8", TH, " ")
	nstart = split("sdk|fork_exec|copy_fork_exec|fresh_fork_exec|sdk_musl|fork_exec_musl|copy_fork_exec_musl|fresh_fork_exec_musl|insmod_bench_nop|insmod_bench_pad", STARTIMPL, "|")
	split("SDK, glibc helper|fork+exec, glibc helper|copy + fork+exec, glibc helper|fork+exec of a fresh copy (copy not timed), glibc|SDK, musl helper|fork+exec, musl helper|copy + fork+exec, musl helper|fork+exec of a fresh copy (copy not timed), musl|insmod, empty module|insmod, 768 KiB module", STARTNAME, "|")
	nmem = split("blob|ko_file|init_sections|module_after_init|shmem_copy", MEMKEY, "|")
	split("Helper blob (static binary)|echo_umh.ko file|Init sections of the .ko (freed after init; the blob is in .init.rodata)|Module memory after init (/proc/modules)|Copy of the blob the SDK keeps (shmem file, for restarts)", MEMNAME, "|")
	intro()
	headlines()
	bpfilter_headlines()
	start_plot_data()
	for (i = 1; i <= n; i++) {
		kernel_section(i)
		bpfilter_section(i)
	}
	umd_section("umd")
}

# ---- the seed's own mechanism: bench/umd_guest.sh on bench/umd-kernel.sh's kernel ----

function urow(k, what, x, ref,    line) {
	if (!has(k, x)) return
	line = "| " what " | " us(med(k, x)) " | " us(p99(k, x)) " | " spr(k, x) " | "
	print line (ref == "" || !has(k, ref) || med(k, ref) == 0 ? "" : fmt(med(k, x) / med(k, ref))) " |"
}
function pct(r) { return r == "" ? "n/a" : r >= 1 ? sprintf("%.0f %% more", 100 * (r - 1)) : sprintf("%.0f %% less", 100 * (1 - r)) }

function umd_section(k,    x, r, a, b, v, SI, SN, nsi) {
	if (!has(k, key("umd", "empty_rtt", "umd")) && !has(k, key("umd", "set_replace", "umd"))) return
	print ""
	print "## The seed's own mechanism: upstream's bpfilter usermode driver"
	print ""
	print "The kernel of `bench/umd-kernel.sh`: Debian's linux-source-6.1 with"
	print "`CONFIG_BPFILTER=y`, `CONFIG_BPFILTER_UMH=m` and `CONFIG_USERMODE_DRIVER=y`"
	print "(tinyconfig and the debug kernel's base options, no debugging), built by"
	print "`make bench` only. Upstream's `bpfilter.ko` carries `bpfilter_umh`, whose"
	print "loop answers every request with a status and does nothing else"
	print "(`-ENOPROTOOPT` for a set). Every iptables set or get on this kernel goes"
	print "to that module first (`bpfilter_ip_set_sockopt()`), and on to"
	print "`nf_setsockopt()` when it answers `-ENOPROTOOPT`. Upstream's module and"
	print "ours are both named bpfilter, and ours serves the same sockopts as"
	print "ip_tables: the configurations below take turns, module by module, in one"
	print "guest (" k ".csv), so these ratios come from medians, not from paired"
	print "batches, except the first table's. While upstream's module is not loaded,"
	print "the kernel calls `request_module(\"bpfilter\")` on every such request: the"
	print "guest empties `/proc/sys/kernel/modprobe`, which makes that return at once,"
	print "so ip_tables and our bpfilter are measured as on a kernel without"
	print "`CONFIG_BPFILTER`. All on one vCPU, as above. Microseconds."
	print ""
	print "### A round trip to a helper that does nothing"
	print ""
	print "Upstream: `setsockopt(IPT_SO_SET_REPLACE)` with nothing behind"
	print "`nf_setsockopt()`: the request goes to `bpfilter_umh` and its status"
	print "comes back (the call fails with ENOPROTOOPT). SDK: an 8-byte"
	print "`ECHO_IOC_ECHO` through the echo sample. Both timed in user space around"
	print "the system call, their batches side by side."
	print ""
	print "| | median us | p99 us | spread | SDK / upstream |"
	print "|---|---:|---:|---|---:|"
	urow(k, "upstream UMD (bpfilter_umh)", key("umd", "empty_rtt", "umd"), "")
	x = key("umd", "empty_rtt", "sdk_echo")
	if (has(k, x))
		print "| SDK (echo sample) | " us(med(k, x)) " | " us(p99(k, x)) " | " spr(k, x) " | " \
			fmt(ratio(k, "umd", "empty_rtt", "sdk_echo", "umd", "median")) " (spread " rspr(k, "umd", "empty_rtt", "sdk_echo", "umd") ") |"
	r = ratio(k, "umd", "empty_rtt", "sdk_echo", "umd", "median")
	print ""
	print "The SDK's round trip costs " pct(r) " than upstream's. Upstream's"
	print "`bpfilter_send_req()` writes the request with `kernel_write()` and then"
	print "blocks in `kernel_read()` on the reply pipe itself, under one mutex: two"
	print "tasks per call, one call at a time, and a wait with no bound (a helper that"
	print "never answers holds every iptables caller until a signal, and a signal"
	print "kills the helper). The SDK's calls are framed (a 32-byte header with an id,"
	print "checked on the way back; the round-trip section above has where a call's"
	print "time goes). A caller alone in flight reads its own reply, as upstream's"
	print "does, and with more calls in flight the SDK's reader thread hands each reply"
	print "to its caller: any number of callers may be in flight, each wait ends at"
	print "its deadline or on a fatal signal without touching the helper, and nothing"
	print "the helper sends is trusted."
	print ""
	print "### `IPT_SO_SET_REPLACE`: the filter table put back as it is"
	print ""
	print "The table read with `IPT_SO_GET_INFO` and `IPT_SO_GET_ENTRIES` (the three"
	print "built-in chains of an empty filter table) and sent back unchanged, as"
	print "`iptables` does after each change."
	print ""
	print "| Path | median us | p99 us | spread | / ip_tables |"
	print "|---|---:|---:|---|---:|"
	a = key("umd", "set_replace", "ip_tables")
	urow(k, "ip_tables (no bpfilter module loaded)", a, a)
	urow(k, "upstream UMD, then ip_tables (how a CONFIG_BPFILTER_UMH kernel serves iptables)", key("umd", "set_replace", "umd_ip_tables"), a)
	urow(k, "upstream UMD alone (its helper answers; the call fails with ENOPROTOOPT)", key("umd", "set_replace", "umd"), a)
	urow(k, "this project's bpfilter (its helper compiles the table, the module loads the BPF program)", key("umd", "set_replace", "sdk_bpfilter"), a)
	r = div(bv(k, "umd", "set_replace", "sdk_bpfilter"), bv(k, "umd", "set_replace", "umd"))
	print ""
	print "Our bpfilter's replace costs " fmt(r) " times upstream's helper round trip:"
	print "where upstream's helper answers at once, ours checks the whole table in the"
	print "kernel, sends it to its helper, which translates it and compiles it to a BPF"
	print "program, and the kernel loads that program (the verifier runs) and swaps it"
	print "in; upstream's bpfilter never got as far as enforcing a rule."
	print ""
	print "### Start: insmod until it returns"
	print ""
	print "Upstream: `finit_module()` of `bpfilter.ko`, whose init mounts a tmpfs and"
	print "copies the blob into it (`umd_load_blob()`), starts the helper"
	print "(`fork_usermode_driver()`), sends it one request and reads the reply. SDK:"
	print "`finit_module()` of the echo module with its musl helper (blob copied,"
	print "helper started, handshake answered), of the echo module with its glibc"
	print "helper and then one ping through `/dev/echo_umh`, and of our bpfilter."
	print "Each is unloaded after each sample; their batches side by side."
	print "Milliseconds."
	print ""
	print "| | median ms | p99 ms | spread | / upstream |"
	print "|---|---:|---:|---|---:|"
	nsi = split("insmod_umd_bpfilter|insmod_echo_musl|sdk|insmod_sdk_bpfilter|insmod_bench_nop|fork_exec|fresh_fork_exec", SI, "|")
	split("upstream bpfilter.ko (helper started, one request answered)|SDK, echo module, musl helper (helper started, handshake answered)|SDK, echo module, glibc helper, to the first ping reply|SDK, our bpfilter module (glibc helper; its table compiled and loaded)|bare insmod of an empty module|fork+exec of the glibc echo helper (a file) to its first reply|fork+exec of a fresh copy of it (the copy not timed)", SN, "|")
	b = bv(k, "start", "first_reply", "insmod_umd_bpfilter")
	for (v = 1; v <= nsi; v++) {
		x = key("start", "first_reply", SI[v])
		if (!has(k, x)) continue
		print "| " SN[v] " | " ms(med(k, x)) " | " ms(p99(k, x)) " | " spr(k, x) " | " fmt(div(med(k, x), b)) " |"
	}
	print ""
	print "Module files: upstream's bpfilter.ko " kib(bv(k, "mem", "ko_file", "umd_bpfilter")) ","
	print "the echo module " kib(bv(k, "mem", "ko_file", "glibc")) " with its glibc helper (" \
		kib(bv(k, "mem", "blob", "glibc")) ") and"
	print kib(bv(k, "mem", "ko_file", "musl_echo_umh")) " with its musl one, our bpfilter " \
		kib(bv(k, "mem", "ko_file", "sdk_bpfilter")) "."
	print "Upstream's helper is small and dynamically linked (bpfilter.ko as a"
	print "module does not link it statically): its start loads the C library from"
	print "the root file system, but there is little to copy. Both mechanisms copy"
	print "the blob into a shmem file at insmod, and under TCG that copy is slow"
	print "(the glibc echo helper's costs about as much as writing it to a memfd"
	print "from user space, see the start stages above): compare upstream with the"
	print "musl echo module, whose helper is closer in size. What the SDK adds to"
	print "the same steps (a tmpfs mounted, the blob copied, the helper exec'd, one"
	print "exchange) is its three FIFOs and reader thread and a handshake that checks"
	print "the helper's protocol and limits before the module's init returns, where"
	print "upstream writes one request and reads one status."
	r = div(bv(k, "start", "first_reply", "insmod_echo_musl"), bv(k, "start", "first_reply", "insmod_umd_bpfilter"))
	print ""
	print "The musl echo module's start costs " pct(r) " than upstream's."
}
