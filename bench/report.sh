#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# report.sh [KERNEL_RELEASE...]: turn bench/results/<release>.csv (written
# by bench/run.sh, one per kernel) into bench/results/report.md, all.csv
# and the PNG plots.  Default: every CSV there.  umd.csv
# (bench/umd_guest.sh, upstream's bpfilter usermode driver) becomes a
# section of its own.  Needs no guest, so the report can be rewritten from
# the kept CSVs.
#
# Every ratio is SDK / reference, in the reference's unit: for times and
# sizes 1.30 means the SDK needs 30 % more; for rates (calls/s) 0.77 means
# it does 23 % fewer.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
results=$root/bench/results
cd "$results"
if (($#)); then
	kernels=("$@")
else
	mapfile -t kernels < <(find . -maxdepth 1 -name '*.csv' ! -name all.csv ! -name umd.csv -printf '%f\n' |
		sed 's/\.csv$//' | sort -V)
fi
((${#kernels[@]})) || { echo "report.sh: no results in $results" >&2; exit 1; }
files=()
for k in "${kernels[@]}"; do
	[[ -s $k.csv ]] || { echo "report.sh: no $results/$k.csv" >&2; exit 1; }
	files+=("$k.csv")
done

# What run.sh recorded about the run (date, commit, host, guest options).
declare -A meta=()
if [[ -r meta.txt ]]; then
	while IFS='=' read -r key val; do
		[[ -n $key ]] && meta[$key]=$val
	done <meta.txt
fi

short() { if [[ $1 =~ ^[0-9]+\.[0-9]+ ]]; then echo "${BASH_REMATCH[0]}"; else echo "$1"; fi; }
loads='' disturbed=''
for k in "${kernels[@]}"; do
	if [[ -n ${meta[load_$k]:-} ]]; then
		loads+="${loads:+; }Linux $(short "$k"): load ${meta[load_$k]}"
		if [[ -n ${meta[others_$k]:-} ]]; then
			loads+=", other jobs ${meta[others_$k]} % and steal ${meta[steal_$k]:-?} % during the run"
			if ((${meta[others_$k]} > 10 || ${meta[steal_$k]:-0} > 10)); then
				disturbed+="${disturbed:+, }Linux $(short "$k") (${meta[others_$k]} % other jobs, ${meta[steal_$k]:-?} % steal)"
			fi
		fi
	fi
done

# Figures kept from an earlier run (bench/run.sh given some kernels only).
earlier='' this="${meta[date]:-}, commit ${meta[commit]:-}"
for k in "${kernels[@]}" umd; do
	m=${meta[measured_$k]:-}
	[[ -n $m && $m != "$this" ]] || continue
	if [[ $k == umd ]]; then name="upstream's UMD"; else name="Linux $(short "$k")"; fi
	earlier+="${earlier:+; }$name on $m"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One CSV with every kernel, for spreadsheets.
{
	echo "kernel,group,case,impl,unit,median,p99,spread_pct,batches,samples,stable"
	for k in "${kernels[@]}"; do
		tail -n +2 "$k.csv" | sed "s/^/$k,/"
	done
} >all.csv

# ---- tables (Markdown) and plot data (in $tmp) ----
umd=()
[[ -s umd.csv ]] && umd=(umd.csv)
awk -v tmp="$tmp" -v nk="${#kernels[@]}" \
	-v when="${meta[date]:-unknown}" -v commit="${meta[commit]:-unknown}" \
	-v host="${meta[host]:-unknown}" -v qemu="${meta[qemu]:-unknown}" \
	-v append="${meta[guest_append]:-}" -v took="${meta[duration]:-}" -v loads="$loads" -v disturbed="$disturbed" -v earlier="$earlier" \
	-f "$root/bench/report.awk" "${files[@]}" "${umd[@]}" >report.md

# ---- plots ----
if ! command -v gnuplot >/dev/null; then
	echo "report.sh: no gnuplot: report.md written without plots" >&2
	exit 0
fi
term="set terminal pngcairo size 1100,600 font 'sans,10' noenhanced"
if ! gnuplot -e "set terminal pngcairo" </dev/null 2>/dev/null; then
	term="set terminal png size 1100,600 noenhanced"
fi
n=${#kernels[@]}

rtt_plots=''
conc_plots=''
for i in $(seq 1 "$n"); do
	k=${kernels[i - 1]}
	rtt_plots+="set title 'Linux $(short "$k"): median RPC round trip (us, log scale)'
plot '$tmp/rtt-$i.dat' using 2:xtic(1) title columnheader(2), '' using 3 title columnheader(3), '' using 4 title columnheader(4)
"
	conc_plots+="'$tmp/conc-$i.dat' using 1:2 with linespoints lw 2 title 'SDK, Linux $(short "$k")', '$tmp/conc-$i.dat' using 1:3 with linespoints lw 2 dt 2 title 'pipes, Linux $(short "$k")', "
done

gnuplot <<EOF
$term
set output '$results/rtt.png'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set grid ytics
set key top left
set multiplot layout 1,$n
$rtt_plots
unset multiplot
EOF

gnuplot <<EOF
$term
set output '$results/ratios.png'
set title 'SDK / reference, round by round (1 = as fast or as small as the reference; above 1 = the SDK costs more; log scale)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set grid ytics
set xtics rotate by -25
set bmargin 6
set key top left
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 dt 2
plot for [c=2:$((n + 1))] '$tmp/ratios.dat' using c:xtic(1) title columnheader(c)
EOF

gnuplot <<EOF
$term
set output '$results/concurrency.png'
set title '64-byte calls per second, by number of concurrent callers'
set xlabel 'callers'
set ylabel 'calls/s'
set xtics (1, 4, 8)
set xrange [0.5:8.5]
set yrange [0:*]
set grid
set key bottom right
plot ${conc_plots%, }
EOF

gnuplot <<EOF
$term
set output '$results/start.png'
set title 'Helper start: until the first reply (ms, median)'
set bmargin 5
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set grid ytics
set yrange [0:*]
set key top left
plot for [c=2:$((n + 1))] '$tmp/start.dat' using c:xtic(1) title columnheader(c)
EOF
# bpfilter: per-packet time and program size against the rule count.
bpf_time='' bpf_insns=''
for i in $(seq 1 "$n"); do
	[[ -s $tmp/bpf-$i.dat ]] || continue
	s=$(short "${kernels[i - 1]}")
	bpf_time+="'$tmp/bpf-$i.dat' using 1:2 with linespoints lw 2 pt 7 title 'ip_tables, Linux $s (own time through veth)', '' using 1:3 with linespoints lw 2 pt 5 title 'bpfilter, Linux $s (own time through veth)', '' using 1:4 with linespoints lw 2 dt 2 pt 4 title 'bpfilter, Linux $s (program, TEST_RUN)', "
	bpf_insns+="'$tmp/bpf-$i.dat' using 1:7 with linespoints lw 2 pt 5 title 'bpfilter, Linux $s', "
done
if [[ -n $bpf_time ]]; then
	gnuplot <<EOF
$term
set output '$results/bpfilter.png'
set multiplot layout 1,2
set logscale xy
set grid
set xlabel 'rules (dropAfterXRules: N non-matching rules, then DROP)'
set key top left
\$FB << EOD
8 103 361
128 279 2641
2048 13700 39121
EOD
set title 'Time per packet (ns, log scale; TCG guest, ours on an emulated CPU)'
set ylabel 'ns per packet'
plot ${bpf_time}\$FB using 1:2 with points pt 9 ps 2 lc rgb 'black' title 'facebook/bpfilter, published (real hardware)'
set title 'Program size (instructions, log scale)'
set ylabel 'instructions'
plot ${bpf_insns}\$FB using 1:3 with points pt 9 ps 2 lc rgb 'black' title 'facebook/bpfilter, published'
unset multiplot
EOF
fi
echo "report.sh: wrote $results/report.md, all.csv, rtt.png, ratios.png, concurrency.png, start.png${bpf_time:+, bpfilter.png}"
