#!/bin/bash
# setup.sh - install everything the project needs on Debian 12 (as root).
#
# Idempotent, and quick when nothing is missing: installed packages are
# found with dpkg-query, and apt (update + install) only runs for the rest.
# Besides Debian's default 6.1 kernel it installs a 6.12 kernel from
# bookworm's security archive: the newest linux-image-6.12.*+deb12-amd64-
# unsigned whose linux-headers-<same>-amd64 also exists.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

PACKAGES=(
	qemu-system-x86 busybox-static cpio kmod xz-utils zstd
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	build-essential musl-tools sparse coccinelle clang libclang-rt-14-dev
	bc flex bison libelf-dev libssl-dev
	python3-sphinx iptables graphviz gnuplot-nox
)

step() { printf 'setup: %s\n' "$*"; }

installed() {
	[[ $(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) == 'install ok installed' ]]
}

updated=0
apt_update() {
	((updated)) && return
	step "apt-get update"
	apt-get update -qq
	updated=1
}

# Newest 6.12 release (e.g. 6.12.118+deb12) whose image and headers are both
# installed; prints nothing when there is none.
installed_612() {
	dpkg-query -W -f='${Package} ${Status}\n' 'linux-image-6.12.*-amd64-unsigned' 2>/dev/null |
		awk '$2 == "install" && $4 == "installed" { print $1 }' |
		sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12\)-amd64-unsigned$/\1/p' |
		sort -V | while read -r v; do
			installed "linux-headers-$v-amd64" && echo "$v"
		done | tail -n 1
}

# Newest 6.12 release apt can install with matching headers.
available_612() {
	apt-cache pkgnames linux-image-6.12. |
		sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12\)-amd64-unsigned$/\1/p' |
		sort -rV | while read -r v; do
			if apt-cache show "linux-headers-$v-amd64" >/dev/null 2>&1; then
				echo "$v"
				break
			fi
		done
}

if ((EUID != 0)); then
	echo "setup: must run as root" >&2
	exit 1
fi

step "checking ${#PACKAGES[@]} packages"
missing=()
for p in "${PACKAGES[@]}"; do
	installed "$p" || missing+=("$p")
done

k612=$(installed_612)
if [[ -n $k612 ]]; then
	step "6.12 kernel $k612 already installed"
else
	apt_update
	k612=$(available_612)
	if [[ -z $k612 ]]; then
		echo "setup: no linux-image-6.12.*+deb12-amd64-unsigned with matching headers in apt's lists" >&2
		exit 1
	fi
	step "6.12 kernel $k612 will be installed"
	missing+=("linux-image-$k612-amd64-unsigned" "linux-headers-$k612-amd64")
fi

if ((${#missing[@]})); then
	apt_update
	step "installing ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
	step "all packages present"
fi

# The test harness boots what kernels.sh names: check that it finds both.
kernels=$("$(dirname "$0")/kernels.sh")
step "guest kernels: ${kernels//$'\n'/ }"
