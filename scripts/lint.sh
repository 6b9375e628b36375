#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh [--root DIR] [CHECK...]: the kernel-grade hygiene checks of
# `make lint`, printing TAP.  CHECKs: sparse checkpatch kerneldoc headers
# cocci htmldocs selftest (default: all).  --root lints another tree (the self-test
# uses it on deliberately broken copies).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
root=$here
if [ "${1:-}" = --root ]; then
	root=$(cd "$2" && pwd)
	shift 2
fi
checks=("${@:-sparse checkpatch kerneldoc headers cocci htmldocs selftest}")
# shellcheck disable=SC2206
checks=(${checks[*]})
src=$("$here/scripts/linux-source.sh") || exit 1
kernels=$("$here/scripts/kernels.sh") || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1))
	echo "not ok $n - $1"
	sed 's/^/# /' <<<"$2" | head -n 40
}

cd "$root" || exit 1

# user_re (user-space C) and checkpatch's ignores, with their reasons,
# shared with the in-tree series test.
# shellcheck source=checkpatch-rules.sh
. "$here/scripts/checkpatch-rules.sh"

# Kernel code: everything compiled into a module.  Helpers (*_helper.c,
# and bpfilter's table code and code generator, ipt_table.[ch] and
# ipt_bpf.[ch], which only its helper links) and tools are user space and
# built with -Wall -Wextra -Werror instead.
kernel_c=$(ls kernel/*.c samples/*/*.c tests/modules/*.c \
	Documentation/tutorial/*/*.c 2>/dev/null | grep -Ev "$user_re")
kernel_h=$(ls kernel/*.h include/umh_sdk/*.h samples/*/*.h tests/modules/*.h \
	Documentation/tutorial/*/*.h 2>/dev/null | grep -Ev "$user_re")
# The module trees: the top level (samples) and the test modules.
module_dirs=". tests/modules"
[ -d Documentation/tutorial/hello_umh ] && module_dirs+=" Documentation/tutorial/hello_umh"

# UMH_LINT_SPARSE_ONE=1 (the self-test): the first kernel and the top-level
# modules only, which is where the self-test breaks kernel/ code.  (Its
# cocci mutation is likewise checked by the SDK's own rules alone:
# UMH_LINT_COCCI_SDK_ONLY in lint-cocci.sh.)
run_sparse() {
	local k kdir out d log warn ks=$kernels dirs=$module_dirs
	if [ "${UMH_LINT_SPARSE_ONE:-0}" = 1 ]; then
		ks=${kernels%%[[:space:]]*} dirs=.
	fi
	for k in $ks; do
		kdir=/lib/modules/$k/build
		out=$work/sparse-$k
		mkdir -p "$out"
		cp -a include kernel scripts samples Kbuild defconfig "$out/"
		mkdir -p "$out/tests" "$out/Documentation"
		cp -a tests/modules "$out/tests/"
		[ -d Documentation/tutorial ] && cp -a Documentation/tutorial "$out/Documentation/"
		for d in $dirs; do
			log=$out/$(tr / _ <<<"$d").log
			if ! make -j"$(nproc)" -C "$kdir" M="$out/$d" C=2 modules >"$log" 2>&1; then
				not_ok "sparse $k: $d builds" "$(tail -n 30 "$log")"
				continue
			fi
			warn=$(grep -E 'warning:|error:' "$log")
			if [ -n "$warn" ]; then
				not_ok "sparse $k: $d: zero warnings" "$warn"
			else
				ok "sparse $k: $d: zero warnings ($(grep -c ' CHECK ' "$log") files)"
			fi
		done
	done
}


# checkpatch --strict, with the ignores of checkpatch_ignores().
run_checkpatch() {
	local f ign out
	for f in $kernel_c $kernel_h; do
		ign=$(checkpatch_ignores "$f")
		out=$("$src/scripts/checkpatch.pl" --strict --no-tree --terse \
			--show-types ${ign:+--ignore $ign} -f "$f" 2>&1)
		if grep -qE '(ERROR|WARNING|CHECK):' <<<"$out"; then
			not_ok "checkpatch --strict: $f" "$out"
		else
			ok "checkpatch --strict: $f${ign:+ (documented ignores)}"
		fi
	done
}

# kernel-doc: no warnings, and every non-static function and every static
# inline of the public kernel headers has a kernel-doc comment.
run_kerneldoc() {
	local f out missing fn
	for f in kernel/*.c include/umh_sdk/umh_blob.h include/umh_sdk/wire.h \
		 include/umh_sdk/rpc.h include/umh_sdk/compat.h; do
		out=$("$src/scripts/kernel-doc" -none "$f" 2>&1)
		missing=
		# .c: non-static definitions; .h: static inlines (the
		# prototypes in headers are documented at their definition).
		for fn in $(awk -v hdr="${f%.h}" -v f="$f" '
			/^static inline/ { si = 1 }
			/^[a-z].*[ *]([a-z_0-9]+)\(/ && !/^static [^i]/ && !/;$/ {
				match($0, /[a-z_0-9]+\(/)
				if (hdr != f ? si : $0 !~ /^static/)
					print substr($0, RSTART, RLENGTH - 1)
			}
			/^[^s]/ { si = 0 }' "$f" | sort -u); do
			grep -qE "^ \* $fn\(\) - " "$f" || missing+=" $fn"
		done
		if [ -n "$out" ] || [ -n "$missing" ]; then
			not_ok "kernel-doc: $f" "$out${missing:+
undocumented:$missing}"
		else
			ok "kernel-doc: $f: no warnings, every function documented"
		fi
	done
}

# Each public header compiles on its own in a kernel module build.
run_headers() {
	local k kdir d h name log
	k=$(tail -n 1 <<<"$kernels")
	kdir=/lib/modules/$k/build
	d=$work/headers
	mkdir -p "$d"
	: >"$d/Kbuild"
	for h in wire rpc umh_blob compat; do
		name=hdr_$h
		printf '// SPDX-License-Identifier: GPL-2.0\n#include <umh_sdk/%s.h>\n#include <linux/module.h>\nMODULE_LICENSE("GPL");\n' "$h" >"$d/$name.c"
		echo "obj-m += $name.o" >>"$d/Kbuild"
	done
	echo "ccflags-y += -Werror -I$root/include" >>"$d/Kbuild"
	log=$d/build.log
	if make -C "$kdir" M="$d" modules >"$log" 2>&1; then
		ok "public headers compile alone in a kernel module build ($k, -Werror)"
	else
		not_ok "public headers compile alone in a kernel module build ($k)" "$(grep -E 'error|warning' "$log")"
	fi
}

run_cocci() {
	local line
	# lint-cocci.sh prints TAP of its own: renumber it into ours.
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "cocci: ${line#* - }" ;;
		"not ok "*) not_ok "cocci: ${line#* - }" "" ;;
		"1.."*) ;;
		*) echo "$line" ;;
		esac
	done < <("$here/scripts/lint-cocci.sh" --root "$root" 2>&1)
}

# Documentation/ builds with Sphinx, API reference included, no warnings.
run_htmldocs() {
	local out
	if out=$(UMH_LINUX_SRC=$src sphinx-build -q -W -b html Documentation "$work/html" 2>&1); then
		ok "htmldocs: Sphinx builds Documentation/ with zero warnings"
	else
		not_ok "htmldocs: Sphinx builds Documentation/ with zero warnings" "$out"
	fi
}

# The checks must catch what they are for: break a copy of the tree and
# see the right check fail.
run_selftest() {
	local copy=$work/broken
	mutate() {	# mutate NAME CHECK FILE PERL-EXPR
		rm -rf "$copy"
		mkdir -p "$copy"
		(cd "$root" && tar --exclude=./build --exclude=./tests/unit/build -cf - .) | tar -xf - -C "$copy"
		perl -0pi -e "$4" "$copy/$3"
		if cmp -s "$root/$3" "$copy/$3"; then
			not_ok "self-test: $1" "the mutation did not apply to $3"
		elif UMH_LINT_SPARSE_ONE=1 UMH_LINT_COCCI_SDK_ONLY=1 "$here/scripts/lint.sh" --root "$copy" "$2" >"$work/self.log" 2>&1; then
			not_ok "self-test: $1 makes the $2 check fail" "$(cat "$work/self.log")"
		else
			ok "self-test: $1 makes the $2 check fail"
		fi
	}
	mutate "an unused variable in kernel code" sparse kernel/umh_call.c \
		's/(static bool umh_settled\(struct umh_blob \*ub\)\n\{\n)/$1\tint unused_lint_probe;\n\n/'
	mutate "a missing kernel-doc comment" kerneldoc kernel/umh_blob.c \
		's/\/\*\*\n \* umh_blob_pid\(\) - pid of the running helper\n/\/*\n * umh_blob_pid - pid of the running helper\n/'
	mutate "a broken kernel-doc comment in the API reference" htmldocs kernel/umh_call.c \
		's/ \* \@timeout_ms:\tdeadline \(0: the default call timeout\)\n//'
	mutate "a checkpatch error" checkpatch kernel/umh_call.c \
		's/(static bool umh_settled\(struct umh_blob \*ub\)\n\{\n)/$1\tif(ub) ub++ ;\n/'
	if [ -d "$root/tests/cocci" ]; then
		mutate "a helper leaked on module exit" cocci tests/modules/testmod.h \
			's/\n\tumh_blob_destroy\(ub\);\n\}\n\nmodule_init/\n}\n\nmodule_init/'
	fi
}

for c in "${checks[@]}"; do
	case $c in
	sparse) run_sparse ;;
	checkpatch) run_checkpatch ;;
	kerneldoc) run_kerneldoc ;;
	headers) run_headers ;;
	cocci) run_cocci ;;
	htmldocs) run_htmldocs ;;
	selftest) run_selftest ;;
	*) echo "lint.sh: unknown check '$c'" >&2; exit 2 ;;
	esac
done
echo "1..$n"
[ $failed -eq 0 ]
