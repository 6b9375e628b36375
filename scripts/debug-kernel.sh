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
# The kernel carries the SDK in tree (Documentation/in-tree.rst): the
# build runs in src/, a copy of the unpacked source made of hard links, to
# which scripts/intree.sh applies this checkout's patch series, with
# scripts/debug-kernel-intree.config on top of the base config (the echo
# sample's boot-time user built in, both samples as modules).  Neither the
# series nor that fragment is part of the key: when either differs from
# what the cached kernel has (intree.state), the old series is reverted,
# the new one applied, and Kbuild rebuilds only what changed and relinks:
# a change to the SDK costs a few minutes, not a kernel build.
#
# Cost: a cold build is ~8-15 minutes on 2 cores (longer on a loaded host);
# a warm run is instant, or the incremental rebuild above.  The unpacked
# source itself is never written to.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
frag=$root/scripts/debug-kernel.config
ifrag=$root/scripts/debug-kernel-intree.config
cache=${UMH_CACHE:-$HOME/.cache/umh-sdk}

msg() { echo "debug-kernel: $*" >&2; }
die() { msg "$*"; exit 1; }

[ -r "$frag" ] && [ -r "$ifrag" ] || die "missing $frag or $ifrag"
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$({
	echo "linux-source-6.1 $ver"
	gcc --version | head -n 1
	cat "$frag" "$0"
} | sha256sum)
key=${key:0:16}
dir=$cache/debug-kernel-$key
out=$dir/build
tree=$dir/src
mods=$dir/modules-install

print_info() { cat "$dir/info"; }

# debug-kernel.sh --cached: exit 0 if the kernel is built and cached, 1 if
# a run would have to build it; builds nothing.  (A warm run may still
# rebuild incrementally, for a new series: see above.)
if [[ ${1-} == --cached ]]; then
	[ -f "$dir/.complete" ]
	exit
fi

mkdir -p "$cache"
exec {lockfd}>"$cache/debug-kernel.lock"
if ! flock -n "$lockfd"; then
	msg "another debug kernel build is running; waiting for it"
	flock "$lockfd"
fi

log=$dir/build.log
jobs=$(nproc)
src=$("$root/scripts/linux-source.sh")
mk() { make -C "$tree" O="$out" "$@" >>"$log" 2>&1; }
fail() {
	msg "$1 failed; last 40 lines of $log:"
	tail -n 40 "$log" >&2
	exit 1
}

# verify FRAGMENT: every line of FRAGMENT survived olddefconfig as written.
# Kconfig silently drops an option whose dependencies are not met (KASAN
# without SLUB is the classic), and a debug kernel without its debug
# options would pass every test while checking nothing.
verify() {
	local line want opt have missing=0
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
	done <"$1"
	((!missing)) || die "the config did not come out as asked (see above); fix $1"
}

# make_build: compile (a full build the first time, then only what
# changed), printing a progress line every 30 s, and install the modules.
make_build() {
	local mpid t0=$SECONDS release moddir m
	msg "compiling with -j$jobs"
	mk -j"$jobs" bzImage modules &
	mpid=$!
	while kill -0 "$mpid" 2>/dev/null; do
		for _ in $(seq 30); do
			kill -0 "$mpid" 2>/dev/null || break
			sleep 1
		done
		kill -0 "$mpid" 2>/dev/null || break
		msg "  ... $((SECONDS - t0))s, $(grep -c '^  CC ' "$log" || true) files compiled"
	done
	wait "$mpid" || fail "the kernel build"
	# (known only after the build: setlocalversion reads auto.conf)
	release=$(cat "$out/include/config/kernel.release")
	[[ $release == *-umh-debug ]] || die "unexpected release string '$release'"
	# Out-of-tree modules need the prepared tree (done by the full
	# build; this is a no-op then, and says so in the log).
	mk modules_prepare || fail "make modules_prepare"
	msg "installing modules into $mods"
	rm -rf "$mods"
	mk INSTALL_MOD_PATH="$mods" modules_install || fail "make modules_install"
	moddir=$mods/lib/modules/$release
	[ -f "$moddir/modules.dep" ] || die "no modules.dep in $moddir"
	for m in ip_tables iptable_filter x_tables xt_multiport xt_comment xt_tcpudp veth \
		 umh/bpfilter/bpfilter umh/echo_umh/echo_umh; do
		grep -q "/$m.ko" "$moddir/modules.dep" || die "module $m.ko was not built"
	done
	# The installed tree's build/source links would point into the
	# cache anyway; drop them so nothing follows them by accident.
	rm -f "$moddir/build" "$moddir/source"
	{
		echo "release=$release"
		echo "build=$out"
		echo "image=$out/arch/x86/boot/bzImage"
		echo "modules=$moddir"
	} >"$dir/info"
}

# series_state: a hash of what the tree should carry: this checkout's
# series (made against the unpacked source; its diffs) and the in-tree
# config fragment.
series_state() {
	local t
	t=$(mktemp -d)
	"$root/scripts/intree.sh" series "$src" "$t/s" >/dev/null || { rm -rf "$t"; return 1; }
	{
		# the diffs: the headers carry a date, hashes and who made them
		for p in "$t"/s/*.patch; do
			sed -n '/^diff --git /,$p' "$p"
		done
		cat "$ifrag"
	} | sha256sum | cut -c1-16
	rm -rf "$t"
}

# ensure_intree: bring the tree to this checkout's series and the in-tree
# fragment, configure; returns 0 if that changed anything (a build is due).
ensure_intree() {
	local want have=''
	want=$(series_state) || fail "making the in-tree series"
	[ -f "$dir/intree.state" ] && have=$(cat "$dir/intree.state")
	[ "$want" != "$have" ] || return 1
	msg "applying this checkout's in-tree series ($want) to $tree"
	if [ -d "$tree/.umh-sdk-series" ]; then
		"$root/scripts/intree.sh" revert "$tree" >>"$log" 2>&1 || fail "reverting the old series"
	fi
	"$root/scripts/intree.sh" apply "$tree" >>"$log" 2>&1 || fail "applying the series"
	# The base config, then the in-tree fragment on top.
	cp "$dir/base.config" "$out/.config" || die "no $dir/base.config"
	(cd "$out" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$ifrag") \
		>>"$log" 2>&1 || fail "merge_config.sh (in-tree fragment)"
	mk olddefconfig || fail "make olddefconfig"
	verify "$frag"
	verify "$ifrag"
	rm -f "$dir/intree.state"
	echo "$want" >"$dir/intree.next"
	return 0
}

if [ -f "$dir/.complete" ]; then
	: >"$log"
	if ensure_intree; then
		msg "rebuilding $dir for the new series (only what changed)"
		start=$SECONDS
		make_build
		mv "$dir/intree.next" "$dir/intree.state"
		msg "rebuilt in $((SECONDS - start))s"
	else
		msg "reusing $dir"
	fi
	print_info
	exit 0
fi

if [ -e "$dir" ]; then
	msg "removing the incomplete build in $dir (an interrupted run)"
	rm -rf -- "$dir"
fi
mkdir -p "$out"
: >"$log"
start=$SECONDS

msg "building linux-source-6.1 $ver with KASAN, lockdep, kmemleak into $dir (log: $log)"
# Hard links: the series' patches replace the files they change instead of
# writing through the links into the unpacked source.
cp -al "$src" "$tree" || die "cannot copy $src to $tree"
msg "configuring: tinyconfig + scripts/debug-kernel.config"
mk tinyconfig || fail "make tinyconfig"
# merge_config.sh -m only merges the fragment into .config (it warns about
# each value it overrides, into the log); olddefconfig then resolves it.
(cd "$out" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag") \
	>>"$log" 2>&1 || fail "merge_config.sh"
mk olddefconfig || fail "make olddefconfig"
verify "$frag"
cp "$out/.config" "$dir/base.config"
ensure_intree || true
msg "config verified: every option of both fragments is set as asked"
make_build
mv "$dir/intree.next" "$dir/intree.state"
touch "$dir/.complete"
msg "done in $((SECONDS - start))s"
print_info
