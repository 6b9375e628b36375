#!/bin/bash
# setup.sh - install everything the project needs on Debian 12 (as root).
#
# Idempotent, and quick when nothing is missing: installed packages are
# found with dpkg-query, and apt (update + install) only runs for the rest,
# so a warm machine needs neither root nor the network.  Besides Debian's
# default 6.1 kernel it installs a 6.12 kernel from bookworm's security
# archive: linux-image-6.12.*+deb12-amd64-unsigned together with the
# linux-headers-<same>-amd64 of the same release.
#
# Works on a bare machine (debootstrap --variant=minbase), on one with
# everything installed and on one with only some packages.  Every failure
# says what failed and why; nothing exits silently.
#
# The package list is what the demo, make check, lint and make bench call,
# found by running them in a minimal root (scripts/bare-machine-check.sh),
# with the commands each package is there for.
#
# setup.sh --debug-kernel installs only what scripts/debug-kernel.sh needs
# (DEBUG_KERNEL_PACKAGES, a part of PACKAGES), so that make check can start
# that build, its longest step on a fresh machine, before the rest of the
# packages are in.
#
# tests/unit/test_setup.sh runs this script with dpkg-query, apt-cache,
# apt-get and id stubbed on PATH.
set -Eeuo pipefail
export DEBIAN_FRONTEND=noninteractive
here=$(cd "$(dirname "$0")" && pwd)

PACKAGES=(
	# guests: qemu-system-x86_64, the static busybox of the initramfs,
	# cpio, modprobe/insmod, xz/zstd for modules and bzImages
	qemu-system-x86 busybox-static cpio kmod xz-utils zstd
	# ps and pgrep (demo, guest suites, bench)
	procps
	# guest kernels and their build trees; the kernel source for lint
	# (checkpatch, kernel-doc, Coccinelle rules) and the debug kernel
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	# helpers, unit tests (gcc and musl), the fuzzer (clang + libFuzzer)
	build-essential musl-tools clang libclang-rt-14-dev
	# lint: sparse, spatch (which loads the unversioned libpython3.X.so
	# at run time: it is in libpython3-dev), checkpatch's perl modules
	sparse coccinelle libpython3-dev
	# the debug kernel build
	bc flex bison libelf-dev libssl-dev
	# Kconfig out of tree (make menuconfig / olddefconfig); the in-tree
	# build test's second source tree (tests/intree)
	kconfig-frontends linux-source-6.12
	# docs, the bpfilter sample's reference (iptables-legacy), bench plots
	python3-sphinx iptables graphviz gnuplot-nox
	# the bpfilter data plane: ip (namespaces and veths in its tests and
	# the demo), ping (the demo's traffic), bpftool (the demo shows the
	# program the helper compiled)
	iproute2 iputils-ping bpftool
)

# What scripts/debug-kernel.sh runs: make and gcc, the kernel build's
# tools, tar -xJ of the source, depmod for modules_install.
DEBUG_KERNEL_PACKAGES=(
	linux-source-6.1 build-essential bc flex bison libelf-dev libssl-dev
	xz-utils kmod
)

only_debug_kernel=0
case ${1-} in
'') ;;
--debug-kernel) only_debug_kernel=1 ;;
*)
	echo "usage: setup.sh [--debug-kernel]" >&2
	exit 2
	;;
esac

step() { printf 'setup: %s\n' "$*"; }
fail() {
	printf 'setup: %s\n' "$*" >&2
	exit 1
}
# Anything that fails without its own message still names itself.
trap 'rc=$?; fail "line $LINENO: \"$BASH_COMMAND\" failed (exit $rc)"' ERR

installed() {
	[[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true) == 'install ok installed' ]]
}

need_root() {
	[[ $(id -u) == 0 ]] || fail "must run as root to $*"
}

updated=0
apt_update() {
	((updated)) && return 0
	need_root "run apt-get update"
	step "apt-get update"
	apt-get update -qq || fail "apt-get update failed (exit $?): check the network and /etc/apt/sources.list*"
	updated=1
}

# The 6.12 releases (e.g. 6.12.118+deb12) whose image is installed, oldest
# first.  dpkg-query exits 1 when nothing matches: that is "none".
installed_612_images() {
	local out
	out=$(dpkg-query -W -f='${Package} ${Status}\n' \
		'linux-image-6.12.*-amd64-unsigned' 2>/dev/null) || true
	awk '$2 == "install" && $4 == "installed" { print $1 }' <<<"$out" |
		sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12\)-amd64-unsigned$/\1/p' |
		sort -V
}

# The newest installed 6.12 release whose headers are installed too.
installed_612() {
	local v best=''
	for v in $(installed_612_images); do
		if installed "linux-headers-$v-amd64"; then
			best=$v
		fi
	done
	echo "$best"
}

# The 6.12 releases apt knows an image of, newest first.
available_612_images() {
	local out
	out=$(apt-cache pkgnames linux-image-6.12.) ||
		fail "apt-cache pkgnames failed (exit $?)"
	sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12\)-amd64-unsigned$/\1/p' <<<"$out" |
		sort -rV
}

has_headers() {
	apt-cache show "linux-headers-$1-amd64" >/dev/null 2>&1
}

# The 6.12 release to install: an installed image whose headers apt has
# (so nothing is downloaded twice), else the newest release apt has with
# headers.  Prints nothing when apt has none.
pick_612() {
	local v
	for v in $(installed_612_images | sort -rV); do
		if has_headers "$v"; then
			echo "$v"
			return 0
		fi
	done
	for v in $(available_612_images); do
		if has_headers "$v"; then
			echo "$v"
			return 0
		fi
	done
	return 0
}

if ((only_debug_kernel)); then
	want=("${DEBUG_KERNEL_PACKAGES[@]}")
	step "checking the debug kernel build's ${#want[@]} packages"
else
	want=("${PACKAGES[@]}")
	step "checking ${#want[@]} packages"
fi
missing=()
for p in "${want[@]}"; do
	installed "$p" || missing+=("$p")
done

k612=$(installed_612)
if ((only_debug_kernel)); then
	:
elif [[ -n $k612 ]]; then
	step "6.12 kernel $k612 already installed"
else
	apt_update
	k612=$(pick_612)
	if [[ -z $k612 ]]; then
		fail "no linux-image-6.12.*+deb12-amd64-unsigned with a matching linux-headers-*-amd64 in apt's lists (is bookworm-security in /etc/apt/sources.list*?)"
	fi
	step "6.12 kernel $k612 will be installed"
	for p in "linux-image-$k612-amd64-unsigned" "linux-headers-$k612-amd64"; do
		installed "$p" || missing+=("$p")
	done
fi

if ((${#missing[@]})); then
	apt_update
	step "installing ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" ||
		fail "apt-get install failed (exit $?); the packages were: ${missing[*]}"
	left=()
	for p in "${missing[@]}"; do
		installed "$p" || left+=("$p")
	done
	((${#left[@]} == 0)) || fail "still not installed after apt-get install: ${left[*]}"
else
	step "all packages present"
fi

if ((only_debug_kernel)); then
	step "done in ${SECONDS}s"
	exit 0
fi
# The test harness boots what kernels.sh names: check that it finds both.
kernels=$("$here/kernels.sh") || fail "kernels.sh found no usable 6.1 and 6.12 kernels after the install"
step "guest kernels: ${kernels//$'\n'/ }"
step "done in ${SECONDS}s"
