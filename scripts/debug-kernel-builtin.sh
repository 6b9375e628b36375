#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel-builtin.sh: the debug kernel of scripts/debug-kernel.sh with
# scripts/debug-kernel-builtin.config on top (the bpfilter sample built
# in).  Prints the same KEY=VALUE lines as debug-kernel.sh; build= is the
# variant's O= tree, modules= the debug kernel's (the same release; the
# variant's own bpfilter.ko is not needed: it is built in).  Progress goes
# to stderr.
#
# The variant is not a second kernel build: the debug kernel's O= tree is
# copied (a few hundred MB; the source tree is shared) into
# builtin/build beside it, the fragment merged, and Kbuild rebuilds what
# the change touches (the sample's objects) and relinks.  It is redone
# whenever the debug kernel's series state (intree.state), the fragment or
# this script differ from what builtin/state records; the debug kernel's
# lock covers it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
frag=$root/scripts/debug-kernel-builtin.config
msg() { echo "debug-kernel-builtin: $*" >&2; }
die() { msg "$*"; exit 1; }

[ -r "$frag" ] || die "missing $frag"

info=$("$root/scripts/debug-kernel.sh")
get() { sed -n "s/^$1=//p" <<<"$info"; }
base=$(get build)
dir=$(dirname "$base")
if [ ! -d "$base" ] || [ ! -f "$dir/intree.state" ]; then
	die "debug-kernel.sh printed no build tree: $info"
fi

exec {lockfd}>"$dir/../debug-kernel.lock"
flock "$lockfd"

vdir=$dir/builtin
out=$vdir/build
log=$vdir/build.log
tree=$dir/src
want=$({
	cat "$dir/intree.state" "$frag" "$0"
} | sha256sum | cut -c1-16)

print_info() {
	echo "release=$(cat "$out/include/config/kernel.release")"
	echo "build=$out"
	echo "image=$out/arch/x86/boot/bzImage"
	echo "modules=$(get modules)"
}

if [ -f "$vdir/state" ] && [ "$(cat "$vdir/state")" = "$want" ]; then
	msg "reusing $out"
	print_info
	exit 0
fi

start=$SECONDS
msg "building the variant with bpfilter built in: copying $base (log: $log)"
rm -rf -- "$vdir"
mkdir -p "$vdir"
cp -a "$base" "$out" || die "cannot copy $base"
# The copy must look built to make.  objtool's build records absolute
# paths in its .cmd files (a command that differs is a rebuild, and a new
# objtool rebuilds every object), and so do the blobs' .incbin lines:
# point them at the copy, keeping each file's time.
grep -rlIZ --exclude='*.o' -F "$base/" "$out" | while IFS= read -r -d '' f; do
	sed -i "s|$base/|$out/|g" "$f" && touch -r "$base/${f#"$out"/}" "$f"
done
: >"$log"
mk() { make -C "$tree" O="$out" "$@" >>"$log" 2>&1; }
fail() {
	msg "$1 failed; last 40 lines of $log:"
	tail -n 40 "$log" >&2
	exit 1
}
(cd "$out" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag") \
	>>"$log" 2>&1 || fail "merge_config.sh"
mk olddefconfig || fail "make olddefconfig"
# Kconfig drops what its dependencies refuse: check what came out.
grep -E '^CONFIG_' "$frag" | while IFS= read -r line; do
	grep -qxF -- "$line" "$out/.config" ||
		die "config: wanted '$line', got '$(grep -E "^(# )?${line%%=*}[= ]" "$out/.config" || echo absent)'"
done
msg "compiling (only what the fragment changes) and relinking"
mk -j"$(nproc)" bzImage || fail "the kernel build"
grep -q 'bpfilter_init' "$out/System.map" || die "bpfilter is not in vmlinux"
echo "$want" >"$vdir/state"
msg "done in $((SECONDS - start))s"
print_info
