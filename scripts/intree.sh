#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# intree.sh: take the SDK and its samples into a kernel source tree.
#
#   intree.sh series KSRC OUTDIR   write the patch series, made against the
#                                  tree KSRC, to OUTDIR (git format-patch
#                                  files a maintainer applies with git am)
#   intree.sh apply KSRC           apply that series to KSRC
#   intree.sh revert KSRC          take it out of KSRC again
#
# apply uses `git am` when KSRC is a git work tree (two commits), else
# `git apply` (an unpacked tarball such as Debian's linux-source); revert
# is `git revert` of those commits, or `git apply -R` of the series in
# reverse order.  Where the files go and why: Documentation/in-tree.rst.
#
#   include/umh_sdk/             the headers, as out of tree
#   kernel/umh_sdk/              kernel/*.c and *.h, Kbuild, Kconfig
#   scripts/umh/                 Kbuild.umh, embed_blob.sh
#   samples/umh/{echo_umh,bpfilter}/   the samples
#
# and four existing files get a line or a section: init/Kconfig sources
# kernel/umh_sdk/Kconfig (after kernel/bpf/Kconfig), kernel/Makefile
# descends into umh_sdk/, samples/Makefile into umh/, and MAINTAINERS has
# the entry.  The series is made against the given tree, so its context
# lines are that tree's.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	echo "usage: intree.sh series KSRC OUTDIR | apply KSRC | revert KSRC" >&2
	exit 2
}
die() { echo "intree.sh: $*" >&2; exit 1; }

cmd=${1-}
ksrc=${2-}
[ -n "$cmd" ] && [ -n "$ksrc" ] || usage
[ -f "$ksrc/Makefile" ] && [ -f "$ksrc/init/Kconfig" ] ||
	die "$ksrc is not a kernel source tree"
ksrc=$(cd "$ksrc" && pwd)

# The existing files the series changes.
touched=(MAINTAINERS init/Kconfig kernel/Makefile samples/Makefile)

# insert_after FILE ANCHOR LINE: LINE after the first line equal to ANCHOR.
insert_after() {
	local file=$1 anchor=$2 line=$3
	grep -qxF -- "$anchor" "$file" || die "$file: no line '$anchor' to insert after"
	awk -v a="$anchor" -v l="$line" '{ print } !done && $0 == a { print l; done = 1 }' \
		"$file" >"$file.new"
	mv "$file.new" "$file"
}

# maintainers_entry FILE: the SDK's entry, in alphabetical order.
maintainers_entry() {
	local file=$1 title="UMH SDK (USER-MODE HELPERS CARRIED BY KERNEL CODE)"
	awk -v t="$title" '
	function entry() {
		print t
		print "S:\tMaintained"
		print "F:\tinclude/umh_sdk/"
		print "F:\tkernel/umh_sdk/"
		print "F:\tscripts/umh/"
		print ""
	}
	# A section title: a line after a blank one, before a "X:\t" line.
	{ lines[NR] = $0 }
	END {
		for (i = 1; i <= NR; i++) {
			if (!done && i > 1 && lines[i - 1] == "" && lines[i] ~ /^[A-Z0-9]/ &&
			    lines[i + 1] ~ /^[A-Z]:\t/ && started && lines[i] > t) {
				entry()
				done = 1
			}
			if (lines[i] ~ /^3C59X NETWORK DRIVER/)
				started = 1
			print lines[i]
		}
		if (!done)
			exit 1
	}' "$file" >"$file.new" || die "$file: found no place for the entry"
	mv "$file.new" "$file"
}

# src DIR: the SDK's source files in DIR (what git tracks or would track;
# no build output), as absolute paths.
src() {
	git -C "$root" ls-files --cached --others --exclude-standard -- "$1" |
		sed "s|^|$root/|"
}

make_series() {
	local out=$1 tmp who
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" RETURN
	who="$(git -C "$root" config user.name 2>/dev/null || echo umh-sdk) <$(git -C "$root" config user.email 2>/dev/null || echo umh-sdk@localhost)>"
	g() { git -C "$tmp/t" -c user.name="${who% <*}" -c user.email="$(sed 's/.*<\(.*\)>/\1/' <<<"$who")" "$@"; }

	mkdir -p "$tmp/t"
	for f in "${touched[@]}"; do
		[ -f "$ksrc/$f" ] || die "$ksrc has no $f"
		mkdir -p "$tmp/t/$(dirname "$f")"
		cp "$ksrc/$f" "$tmp/t/$f"
	done
	g init -q
	g add -A
	g commit -q -m base

	# 1: the SDK.
	local t=$tmp/t
	mkdir -p "$t/include/umh_sdk" "$t/kernel/umh_sdk" "$t/scripts/umh"
	cp $(src include/umh_sdk) "$t/include/umh_sdk/"
	cp $(src kernel) "$t/kernel/umh_sdk/"
	cp "$root/Kconfig" "$t/kernel/umh_sdk/Kconfig"
	cp "$root/scripts/Kbuild.umh" "$root/scripts/embed_blob.sh" "$t/scripts/umh/"
	insert_after "$t/init/Kconfig" 'source "kernel/bpf/Kconfig"' 'source "kernel/umh_sdk/Kconfig"'
	insert_after "$t/kernel/Makefile" 'obj-$(CONFIG_USERMODE_DRIVER) += usermode_driver.o' \
		'obj-$(CONFIG_UMH_SDK) += umh_sdk/'
	maintainers_entry "$t/MAINTAINERS"
	g add -A
	g commit -q -F - <<EOF
umh_sdk: run user-mode helpers that kernel code carries

Kernel code embeds a static user-space program, the helper, in its own
object; the SDK starts it as a process, talks to it over a pipe channel
with typed calls whose replies are validated, restarts it with backoff
when it crashes or hangs, and kills it on unload.  This is what
fork_usermode_blob() and later the usermode driver framework gave
bpfilter, as a library a subsystem selects (UMH_SDK) and links against.

The headers go to include/umh_sdk/: the helper side includes the same
wire format from user space.  scripts/umh/Kbuild.umh builds the helper
and embeds it; a user's Kbuild includes it.

Signed-off-by: $who
EOF

	# 2: the samples.
	mkdir -p "$t/samples/umh"
	for d in echo_umh bpfilter; do
		mkdir -p "$t/samples/umh/$d"
		cp $(src "samples/$d") "$t/samples/umh/$d/"
	done
	cat >"$t/samples/umh/Makefile" <<'EOF'
# SPDX-License-Identifier: GPL-2.0
obj-$(CONFIG_SAMPLE_UMH_ECHO)		+= echo_umh/
# echo_boot is built in, with echo_umh =m too: obj-y enters the directory
# for built-in objects.
obj-$(CONFIG_SAMPLE_UMH_ECHO_BOOT)	+= echo_umh/
obj-$(CONFIG_SAMPLE_UMH_BPFILTER)	+= bpfilter/
EOF
	echo 'obj-y					+= umh/' >>"$t/samples/Makefile"
	insert_after "$t/MAINTAINERS" 'F:	kernel/umh_sdk/' 'F:	samples/umh/'
	g add -A
	g commit -q -F - <<EOF
samples: umh: add the echo and bpfilter samples

echo_umh is the smallest complete user of the SDK: a module that starts
its helper at load time and lets root call it through /dev/echo_umh.

bpfilter takes the iptables sockopt ABI, so that the unmodified
iptables-legacy programs it; its helper compiles the rules to BPF
programs, which the module attaches to the netfilter hooks.

Signed-off-by: $who
EOF
	mkdir -p "$out"
	rm -f "$out"/*.patch
	g format-patch -q --no-signature -o "$out" HEAD~2
	ls "$out"/*.patch
}

# is_git DIR: DIR is the top of a git work tree
is_git() { [ "$(git -C "$1" rev-parse --show-toplevel 2>/dev/null)" = "$1" ]; }

case $cmd in
series)
	[ -n "${3-}" ] || usage
	make_series "$3"
	;;
apply)
	[ ! -e "$ksrc/kernel/umh_sdk" ] || die "$ksrc has kernel/umh_sdk already"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	make_series "$tmp/series" >/dev/null
	if is_git "$ksrc"; then
		git -C "$ksrc" am -q "$tmp"/series/*.patch ||
			die "git am failed (git -C $ksrc am --abort undoes it)"
	else
		# No fuzz: what git am would refuse, this refuses too.  A patch
		# that does not apply leaves the tree as it was.
		done=()
		for p in "$tmp"/series/*.patch; do
			if ! patch -d "$ksrc" -p1 -F0 --batch --forward --dry-run -s <"$p" >/dev/null; then
				for ((i = ${#done[@]} - 1; i >= 0; i--)); do
					patch -d "$ksrc" -p1 -F0 --batch -R -s -E <"${done[i]}"
				done
				die "$(basename "$p") does not apply to $ksrc"
			fi
			patch -d "$ksrc" -p1 -F0 --batch --forward -s <"$p"
			done+=("$p")
		done
		# What was applied, for revert (not remade from today's sources).
		cp -r "$tmp/series" "$ksrc/.umh-sdk-series"
	fi
	echo "intree.sh: applied the series to $ksrc"
	;;
revert)
	if is_git "$ksrc"; then
		n=$(git -C "$ksrc" log --format=%s -2 | grep -c -e '^umh_sdk: run user-mode helpers' \
			-e '^samples: umh: add the echo and bpfilter samples' || true)
		[ "$n" = 2 ] || die "the top two commits of $ksrc are not the series"
		git -C "$ksrc" revert --no-edit HEAD HEAD~1 >/dev/null
	else
		[ -d "$ksrc/.umh-sdk-series" ] ||
			die "$ksrc/.umh-sdk-series is missing: the series is not applied there"
		for p in $(find "$ksrc/.umh-sdk-series" -name '*.patch' | sort -r); do
			patch -d "$ksrc" -p1 -F0 --batch -R -s -E <"$p" ||
				die "$(basename "$p") does not revert"
		done
		rm -rf "$ksrc/.umh-sdk-series"
	fi
	echo "intree.sh: reverted the series in $ksrc"
	;;
*)
	usage
	;;
esac
