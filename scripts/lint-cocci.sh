#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint-cocci.sh: the Coccinelle checks, as TAP.
#
#  - The SDK's own semantic patches (scripts/coccinelle/*.cocci), in report
#    mode: each reports exactly the lines of tests/cocci/<rule>/bad.c marked
#    /* cocci-expect */, and nothing on any tests/cocci/*/good.c, on
#    samples/ or on tests/modules/ (a leaked helper in a test module fails
#    here).  The test modules build, against KDIR.
#  - The kernel's own semantic patches, from the Debian linux-source tree
#    (scripts/linux-source.sh), in report mode as `make coccicheck` runs
#    them: no report on the SDK's kernel code.
#
# KDIR (default: the newest kernel of scripts/kernels.sh) gives the kernel
# headers for include paths and for building the test modules.
#
# --root DIR checks another tree (lint.sh's self-test breaks copies).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --root ]; then
	root=$(cd "$2" && pwd)
	shift 2
fi
cd "$root" || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1))
	echo "not ok $n - $1"
	if [ -n "${2:-}" ]; then note "$2" | head -n 40; fi
}
# shellcheck disable=SC2001  # every line, not one substitution
note() { sed 's/^/# /' <<<"$1"; }
# words LIST: a newline-separated list on one line.
words() { tr '\n' ' ' <<<"$1" | sed 's/ *$//'; }

if ! command -v spatch >/dev/null; then
	not_ok "spatch is installed (Debian package coccinelle)"
	echo "1..$n"
	exit 1
fi
spatch_version=$(spatch --version | awk 'NR == 1 { print $3 }')
jobs=$(nproc 2>/dev/null || echo 2)
note "spatch $spatch_version, $jobs jobs"

kdir=${KDIR:-/lib/modules/$(scripts/kernels.sh 2>/dev/null | tail -n 1)/build}
[ -f "$kdir/Makefile" ] || kdir=
# Debian splits the headers: the build directory's Makefile includes the
# common tree's, which holds include/ and arch/*/include.
ksrc=$kdir
if [ -n "$kdir" ]; then
	common=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$kdir/Makefile" | head -n 1)
	[ -n "$common" ] && [ -d "$common/include" ] && ksrc=$common
fi

# Include paths as coccicheck derives them from LINUXINCLUDE (x86).
includes=(-I "$root/include")
if [ -n "$kdir" ]; then
	includes+=(-I "$ksrc/arch/x86/include" -I "$kdir/arch/x86/include/generated"
		   -I "$ksrc/include" -I "$kdir/include"
		   -I "$ksrc/arch/x86/include/uapi"
		   -I "$kdir/arch/x86/include/generated/uapi"
		   -I "$ksrc/include/uapi" -I "$kdir/include/generated/uapi")
	for h in include/linux/compiler-version.h include/linux/kconfig.h; do
		[ -f "$ksrc/$h" ] && includes+=(--include "$ksrc/$h")
	done
fi

# cocci_opts FILE: the "Options:" line of a semantic patch, as coccicheck
# reads it.
cocci_opts() { grep -m 1 '^// *Options:' "$1" | cut -d: -f2-; }

# run_spatch COCCI OUT FILE...: report mode, each file on its own (as
# coccicheck's --dir does).  Reports go to OUT, diagnostics to OUT.err.
run_spatch() {
	local cocci=$1 out=$2
	shift 2
	printf '%s\n\n' "$@" >"$out.groups"
	# shellcheck disable=SC2046  # the options are words
	spatch -D report --no-show-diff --very-quiet --timeout 120 \
		--cocci-file "$cocci" $(cocci_opts "$cocci") "${includes[@]}" \
		--file-groups "$out.groups" >"$out" 2>"$out.err"
}

# ---- the SDK's semantic patches ----

mapfile -t good_files < <(ls tests/cocci/*/good.c 2>/dev/null)
mapfile -t user_files < <(find samples tests/modules kernel -name '*.[ch]' | sort)
mapfile -t sdk_rules < <(ls scripts/coccinelle/*.cocci 2>/dev/null)
if [ ${#sdk_rules[@]} -ge 3 ]; then
	ok "scripts/coccinelle/ has ${#sdk_rules[@]} semantic patches"
else
	not_ok "scripts/coccinelle/ has at least three semantic patches (${#sdk_rules[@]})"
fi

for cocci in "${sdk_rules[@]}"; do
	rule=$(basename "$cocci" .cocci)
	bad=tests/cocci/$rule/bad.c
	missing=
	grep -q '^virtual report' "$cocci" || missing+=" 'virtual report'"
	grep -q '^///' "$cocci" || missing+=" '///' description"
	grep -q '^// *Confidence:' "$cocci" || missing+=" 'Confidence:'"
	grep -q '^// *Options:' "$cocci" || missing+=" 'Options:'"
	[ -f "$bad" ] && [ -f "tests/cocci/$rule/good.c" ] ||
		missing+=" tests/cocci/$rule/{bad,good}.c"
	if [ -n "$missing" ]; then
		not_ok "$rule: is complete" "missing:$missing"
		continue
	fi

	# The bad module: exactly the marked lines.
	out=$work/$rule.bad
	run_spatch "$cocci" "$out" "$bad" & pid_bad=$!
	out2=$work/$rule.quiet
	run_spatch "$cocci" "$out2" "${good_files[@]}" "${user_files[@]}" & pid_quiet=$!
	wait $pid_bad; rc_bad=$?
	wait $pid_quiet; rc_quiet=$?

	want=$(grep -n '/\* cocci-expect \*/' "$bad" | cut -d: -f1 | sort -n -u)
	got=$(grep "^$bad:" "$out" | cut -d: -f2 | sort -n -u)
	others=$(grep -v "^$bad:" "$out")
	if [ $rc_bad -ne 0 ]; then
		not_ok "$rule: reports $bad" "spatch failed ($rc_bad):
$(tail -n 20 "$out.err")"
	elif [ -z "$want" ]; then
		not_ok "$rule: reports $bad" "no line of $bad is marked /* cocci-expect */"
	elif [ "$want" = "$got" ] && [ -z "$others" ]; then
		ok "$rule: reports $bad on the marked lines: $(words "$want")"
	else
		not_ok "$rule: reports $bad on the marked lines" \
"marked:   $(words "$want")
reported: $(words "$got")
$(cat "$out")"
	fi

	# Everything that uses the SDK correctly: silence.
	if [ $rc_quiet -ne 0 ]; then
		not_ok "$rule: no report on good code" "spatch failed ($rc_quiet):
$(tail -n 20 "$out2.err")"
		continue
	fi
	rep_good=$(grep '^tests/cocci/' "$out2")
	rep_user=$(grep -v '^tests/cocci/' "$out2")
	if [ -z "$rep_good" ]; then
		ok "$rule: no report on tests/cocci/*/good.c"
	else
		not_ok "$rule: no report on tests/cocci/*/good.c" "$rep_good"
	fi
	if [ -z "$rep_user" ]; then
		ok "$rule: no report on samples/, tests/modules/ and kernel/"
	else
		not_ok "$rule: no report on samples/, tests/modules/ and kernel/" "$rep_user"
	fi
done

note "SDK rules: ${SECONDS}s"
# UMH_LINT_COCCI_SDK_ONLY=1 (lint.sh's self-test, whose broken copy the SDK
# rules must catch): stop here.
if [ "${UMH_LINT_COCCI_SDK_ONLY:-0}" = 1 ]; then
	echo "1..$n"
	[ $failed -eq 0 ]
	exit
fi

# ---- the test modules build ----

if [ -z "$kdir" ]; then
	ok "tests/cocci modules build # SKIP no kernel headers (KDIR)"
else
	b=$work/build
	mkdir -p "$b/tests"
	cp -a include kernel scripts samples "$b/"
	cp -a tests/cocci "$b/tests/"
	if out=$(make -C "$kdir" M="$b/tests/cocci" modules -j"$jobs" 2>&1); then
		kos=$(find "$b/tests/cocci" -maxdepth 1 -name '*.ko' | wc -l)
		ok "tests/cocci: $kos modules build against $kdir"
	else
		not_ok "tests/cocci modules build against $kdir" "$(tail -n 30 <<<"$out")"
	fi
fi

note "test modules: ${SECONDS}s"

# ---- the kernel's semantic patches on the SDK's kernel code ----

# Kernel code only: the SDK core, the kernel-only SDK headers, the
# samples' and test modules' kernel sides.  The headers shared with the
# helpers (include/umh_sdk/{wire,rpc,helper}.h, samples/*/*.h) are user
# space too, where kernel helpers such as min() do not exist, and so is
# every source a sample's Kbuild lists in its <module>-umh-srcs (bpfilter's
# ipt_table.c and ipt_bpf.c are linked only into its helper).
helper_srcs=" "
for kb in samples/*/Kbuild; do
	while read -ra srcs; do
		for f in "${srcs[@]}"; do
			helper_srcs+="${kb%/Kbuild}/$f "
		done
	done < <(sed -n 's/^[A-Za-z0-9_]*-umh-srcs[[:space:]]*:=//p' "$kb")
done
kernel_files=(kernel/*.c kernel/*.h include/umh_sdk/umh_blob.h include/umh_sdk/compat.h)
for f in samples/*/*.c tests/modules/*_main.c tests/modules/*.h; do
	case $f in *_helper.c) continue ;; esac
	case $helper_srcs in *" $f "*) continue ;; esac
	kernel_files+=("$f")
done
note "kernel rules run on: ${kernel_files[*]}"

if ! ksource=$(scripts/linux-source.sh 2>"$work/linux-source.err"); then
	not_ok "the kernel's semantic patches are available" "$(cat "$work/linux-source.err")"
	echo "1..$n"
	exit 1
fi
have_ocaml=
command -v ocamlopt >/dev/null || command -v ocamlopt.opt >/dev/null && have_ocaml=y

mkdir -p "$work/k"
runnable=()
while read -r cocci; do
	name=${cocci#"$ksource/scripts/coccinelle/"}
	req=$(grep -m 1 'Requires:' "$cocci" | cut -d: -f2 | tr -d ' ')
	why=
	if ! grep -q '^virtual report' "$cocci"; then
		why="no report mode"
	elif [ "$name" = misc/add_namespace.cocci ]; then
		why="scripts/nsdeps helper: needs -D ns=<namespace>; its report mode is empty"
	elif [ -n "$req" ] && ! printf '%s\n%s\n' "$req" "$spatch_version" | sort -C -V; then
		why="needs spatch $req"
	elif [ -z "$have_ocaml" ] && grep -q '^@[a-z]*:ocaml' "$cocci"; then
		why="OCaml scripting, and no OCaml compiler (ocamlopt) is installed"
	fi
	if [ -n "$why" ]; then
		note "skipped $name: $why"
	else
		runnable+=("$name")
	fi
done < <(find "$ksource/scripts/coccinelle" -name '*.cocci' | sort)

# $jobs at a time, one spatch per semantic patch over all the files.
export -f run_spatch cocci_opts
export ksource work
# shellcheck disable=SC2016
printf '%s\n' "${runnable[@]}" | INCLUDES="${includes[*]}" \
	xargs -P "$jobs" -I{} bash -c '
		includes=($INCLUDES)
		out=$work/k/$(echo "{}" | tr / _)
		run_spatch "$ksource/scripts/coccinelle/{}" "$out" "$@"
		echo $? >"$out.rc"' _ "${kernel_files[@]}"

# One TAP line per directory of rules, naming the rules that reported.
for dir in $(printf '%s\n' "${runnable[@]}" | cut -d/ -f1 | sort -u); do
	count=0 bad_rules='' details=''
	for name in "${runnable[@]}"; do
		[ "${name%%/*}" = "$dir" ] || continue
		count=$((count + 1))
		out=$work/k/$(echo "$name" | tr / _)
		rc=$(cat "$out.rc" 2>/dev/null || echo "?")
		if [ "$rc" != 0 ]; then
			bad_rules+=" $name(failed)"
			details+="$name: spatch failed ($rc): $(tail -n 5 "$out.err" 2>/dev/null)"$'\n'
		elif [ -s "$out" ]; then
			bad_rules+=" $name"
			details+=$(sed "s|^|$name: |" "$out")$'\n'
		fi
	done
	if [ -z "$bad_rules" ]; then
		ok "kernel coccinelle $dir/ ($count rules): no report on the SDK's kernel code"
	else
		not_ok "kernel coccinelle $dir/ ($count rules): reports from$bad_rules" \
			"${details%$'\n'}"
	fi
done

note "kernel rules: ${SECONDS}s"
echo "1..$n"
[ $failed -eq 0 ]
