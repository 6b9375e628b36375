#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh: build, or reuse, a debug kernel for the guest suites:
# Debian's linux-source-6.1, `make tinyconfig` plus scripts/debug-kernel.config
# (what a QEMU guest and the suites need, and KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, kmemleak).  On success prints, on stdout, KEY=VALUE
# lines:
#   release=<uname -r of the debug kernel>
#   build=<O= build tree: make -C <it> M=<dir> builds out-of-tree modules>
#   image=<bzImage>
#   modules=<its installed modules, i.e. what belongs at /lib/modules/<release>>
# Progress goes to stderr.  With --cached it only says, by its exit
# status, whether that kernel is already built.
#
# The cache lives in $UMH_CACHE (default ~/.cache/umh-sdk) as
# debug-kernel-<key>/, where <key> hashes the linux-source-6.1 package
# version, the compiler's version line, the config fragment and this script:
# change any of them and a new kernel is built (a stale one is never
# trusted).  An entry counts only once .complete exists, written last, so a
# build that was interrupted is thrown away and redone.  A lock serialises
# concurrent runs (two checkouts, two lanes).  Force a rebuild by deleting
# the directory (or all of ~/.cache/umh-sdk/debug-kernel-*).
#
# Cost: a cold build is ~8-15 minutes on 2 cores (longer on a loaded host);
# a warm run is instant.  The source tree itself is never written to: the
# build uses O=.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
frag=$root/scripts/debug-kernel.config
cache=${UMH_CACHE:-$HOME/.cache/umh-sdk}

msg() { echo "debug-kernel: $*" >&2; }
die() { msg "$*"; exit 1; }

[ -r "$frag" ] || die "missing $frag"
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$({
	echo "linux-source-6.1 $ver"
	gcc --version | head -n 1
	cat "$frag" "$0"
} | sha256sum)
key=${key:0:16}
dir=$cache/debug-kernel-$key
out=$dir/build
mods=$dir/modules-install

print_info() { cat "$dir/info"; }

# debug-kernel.sh --cached: exit 0 if the kernel is built and cached, 1 if
# a run would have to build it; builds nothing.
if [[ ${1-} == --cached ]]; then
	[ -f "$dir/.complete" ]
	exit
fi

if [ -f "$dir/.complete" ]; then
	msg "reusing $dir"
	print_info
	exit 0
fi

mkdir -p "$cache"
exec {lockfd}>"$cache/debug-kernel.lock"
if ! flock -n "$lockfd"; then
	msg "another debug kernel build is running; waiting for it"
	flock "$lockfd"
fi
# It may have finished our kernel meanwhile.
if [ -f "$dir/.complete" ]; then
	msg "reusing $dir (built by a concurrent run)"
	print_info
	exit 0
fi

if [ -e "$dir" ]; then
	msg "removing the incomplete build in $dir (an interrupted run)"
	rm -rf -- "$dir"
fi
src=$("$root/scripts/linux-source.sh")
mkdir -p "$out"
log=$dir/build.log
: >"$log"
start=$SECONDS
jobs=$(nproc)
mk() { make -C "$src" O="$out" "$@" >>"$log" 2>&1; }
fail() {
	msg "$1 failed; last 40 lines of $log:"
	tail -n 40 "$log" >&2
	exit 1
}

msg "building linux-source-6.1 $ver with KASAN, lockdep, kmemleak into $dir (log: $log)"
msg "configuring: tinyconfig + scripts/debug-kernel.config"
mk tinyconfig || fail "make tinyconfig"
# merge_config.sh -m only merges the fragment into .config (it warns about
# each value it overrides, into the log); olddefconfig then resolves it.
(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag") \
	>>"$log" 2>&1 || fail "merge_config.sh"
mk olddefconfig || fail "make olddefconfig"

# Every line of the fragment must survive olddefconfig as written: Kconfig
# silently drops an option whose dependencies are not met (KASAN without
# SLUB is the classic), and a debug kernel without its debug options would
# pass every test while checking nothing.
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) want=$line ;;
	'# CONFIG_'*' is not set') want=$line ;;
	*) continue ;;
	esac
	opt=${want#\# }
	opt=${opt%%[= ]*}
	if ! grep -qxF -- "$want" "$out/.config"; then
		have=$(grep -E "^(# )?${opt}[= ]" "$out/.config" || echo "(absent)")
		msg "config: wanted '$want', got '$have'"
		missing=1
	fi
done <"$frag"
((!missing)) || die "the debug config did not come out as asked (see above); fix scripts/debug-kernel.config"
msg "config verified: every option of the fragment is set as asked"

# The build prints a progress line every 30 s (objects compiled so far).
msg "compiling with -j$jobs (about 8-15 minutes on 2 cores)"
mk -j"$jobs" bzImage modules &
mpid=$!
while kill -0 "$mpid" 2>/dev/null; do
	for _ in $(seq 30); do
		kill -0 "$mpid" 2>/dev/null || break
		sleep 1
	done
	kill -0 "$mpid" 2>/dev/null || break
	n=$(grep -c '^  CC ' "$log" || true)
	msg "  ... $((SECONDS - start))s, $n files compiled"
done
wait "$mpid" || fail "the kernel build"
# (known only after the build: setlocalversion reads include/config/auto.conf)
release=$(cat "$out/include/config/kernel.release")
[[ $release == *-umh-debug ]] || die "unexpected release string '$release'"
# Out-of-tree modules need the prepared tree (done by the full build; this
# is a no-op then, and says so in the log).
mk modules_prepare || fail "make modules_prepare"
msg "installing modules into $mods"
mk INSTALL_MOD_PATH="$mods" modules_install || fail "make modules_install"
moddir=$mods/lib/modules/$release
[ -f "$moddir/modules.dep" ] || die "no modules.dep in $moddir"
for m in ip_tables iptable_filter x_tables xt_multiport xt_comment xt_tcpudp veth; do
	grep -q "/$m.ko" "$moddir/modules.dep" || die "module $m.ko was not built"
done
# The installed tree's build/source links would point into the cache
# anyway; drop them so nothing follows them by accident.
rm -f "$moddir/build" "$moddir/source"

{
	echo "release=$release"
	echo "build=$out"
	echo "image=$out/arch/x86/boot/bzImage"
	echo "modules=$moddir"
} >"$dir/info"
touch "$dir/.complete"
msg "done in $((SECONDS - start))s: $release"
print_info
