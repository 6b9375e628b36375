#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# umd-kernel.sh: build (once, cached) the kernel `make bench` measures the
# seed's own mechanism on: Debian's linux-source-6.1 with
# CONFIG_BPFILTER=y, CONFIG_BPFILTER_UMH=m and CONFIG_USERMODE_DRIVER=y,
# i.e. upstream's bpfilter.ko and its usermode driver bpfilter_umh.
# Debian's own kernels have none of the three.  Only bench/run.sh builds
# it; `make check` never does.
#
# Config: tinyconfig + scripts/debug-kernel.config (the guest's base) +
# bench/umd-kernel.config (debug options off, bpfilter on).  Cached in
# $UMH_CACHE (default ~/.cache/umh-sdk) under a key of the source
# package's version, the compiler, both fragments and this script, so a
# change to any of them builds a new kernel instead of trusting the old.
#
# Prints, like scripts/debug-kernel.sh, release=, build=, image= and
# modules= lines for tests/guest/run.sh.  --cached: exit 0 only if the
# kernel is built.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
base=$root/scripts/debug-kernel.config
frag=$root/bench/umd-kernel.config
cache=${UMH_CACHE:-$HOME/.cache/umh-sdk}

msg() { echo "umd-kernel: $*" >&2; }
die() { msg "$*"; exit 1; }

[ -r "$base" ] && [ -r "$frag" ] || die "missing $base or $frag"
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$({
	echo "linux-source-6.1 $ver"
	gcc --version | head -n 1
	cat "$base" "$frag" "$0"
} | sha256sum)
key=${key:0:16}
dir=$cache/umd-kernel-$key
out=$dir/build
mods=$dir/modules-install

if [[ ${1-} == --cached ]]; then
	[ -f "$dir/.complete" ]
	exit
fi
if [ -f "$dir/.complete" ]; then
	cat "$dir/info"
	exit 0
fi

mkdir -p "$cache"
exec {lockfd}>"$cache/umd-kernel.lock"
if ! flock -n "$lockfd"; then
	msg "another build of this kernel is running; waiting for it"
	flock "$lockfd"
	[ -f "$dir/.complete" ] && { cat "$dir/info"; exit 0; }
fi
rm -rf -- "$dir"
mkdir -p "$out"
log=$dir/build.log
: >"$log"
src=$("$root/scripts/linux-source.sh" 6.1)
mk() { make -C "$src" O="$out" "$@" >>"$log" 2>&1; }
fail() {
	msg "$1 failed; last 40 lines of $log:"
	tail -n 40 "$log" >&2
	exit 1
}

start=$SECONDS
msg "building linux-source-6.1 $ver with upstream bpfilter (UMD) into $dir (log: $log)"
mk tinyconfig || fail "make tinyconfig"
(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$base" "$frag") \
	>>"$log" 2>&1 || fail "merge_config.sh"
mk olddefconfig || fail "make olddefconfig"
# Every line of the bpfilter fragment must have come out as written (an
# option whose dependencies are missing would otherwise vanish silently).
bad=0
while IFS= read -r want; do
	case $want in
	CONFIG_*=* | '# CONFIG_'*' is not set') ;;
	*) continue ;;
	esac
	grep -qxF -- "$want" "$out/.config" && continue
	opt=${want#\# }
	opt=${opt%%[= ]*}
	msg "config: wanted '$want', got '$(grep -E "^(# )?${opt}[= ]" "$out/.config" || echo "(absent)")'"
	bad=1
done <"$frag"
((!bad)) || die "the config did not come out as asked; fix $frag"

msg "compiling with -j$(nproc) (about 10 minutes on 2 cores)"
mk -j"$(nproc)" bzImage modules &
mpid=$!
while kill -0 "$mpid" 2>/dev/null; do
	for _ in $(seq 60); do
		kill -0 "$mpid" 2>/dev/null || break
		sleep 1
	done
	kill -0 "$mpid" 2>/dev/null &&
		msg "  ... $((SECONDS - start))s, $(grep -c '^  CC ' "$log" || true) files compiled"
done
wait "$mpid" || fail "the kernel build"
release=$(cat "$out/include/config/kernel.release")
[[ $release == *-umh-umd ]] || die "unexpected release string '$release'"
mk modules_prepare || fail "make modules_prepare"
mk INSTALL_MOD_PATH="$mods" modules_install || fail "make modules_install"
moddir=$mods/lib/modules/$release
for m in bpfilter ip_tables iptable_filter x_tables; do
	grep -q "/$m.ko" "$moddir/modules.dep" || die "module $m.ko was not built"
done
rm -f "$moddir/build" "$moddir/source"
{
	echo "release=$release"
	echo "build=$out"
	echo "image=$out/arch/x86/boot/bzImage"
	echo "modules=$moddir"
} >"$dir/info"
touch "$dir/.complete"
msg "done in $((SECONDS - start))s"
cat "$dir/info"
