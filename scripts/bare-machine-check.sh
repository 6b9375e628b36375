#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bare-machine-check.sh: try the README's two commands as a new user would,
# on a bare Debian 12, from a fresh clone of this repository's HEAD.
#
#	scripts/bare-machine-check.sh DIR [TARGET...]
#
# Makes a minimal Debian 12 root in DIR (which must not exist yet) with
# `debootstrap --variant=minbase bookworm`, binds /proc, /sys, /dev and
# /dev/pts into it, gives it the host's Debian apt sources (the security
# suite included: the 6.12 kernel comes from there) and resolv.conf,
# installs only git and make in it, clones HEAD into DIR/root/umh-sdk
# (/root is mode 0700 there, as on a fresh Debian), and runs each TARGET
# (default: demo check) with `make` in a chroot, as root, with a clean
# environment and CI=true.  Each target's output goes to the terminal and
# to DIR/root/<target>.log; the time of each is printed at the end.
#
# Needs root and the network to Debian's archive; installs debootstrap on
# the host if it is missing.  It takes a while (the whole of make check on
# a cold machine) and is not part of make check.  Remove DIR afterwards
# with `rm -rf DIR` (nothing stays mounted once this script has exited).
set -Eeuo pipefail
trap 'echo "bare-machine-check: line $LINENO: \"$BASH_COMMAND\" failed" >&2' ERR

usage() {
	sed -n '6,7p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
(($#)) || usage
dir=$1
shift
targets=("$@")
((${#targets[@]})) || targets=(demo check)
repo=$(cd "$(dirname "$0")/.." && pwd)

[[ $(id -u) == 0 ]] || { echo "bare-machine-check: must run as root" >&2; exit 1; }
[[ ! -e $dir ]] || { echo "bare-machine-check: $dir exists; give a new directory" >&2; exit 1; }

if ! command -v debootstrap >/dev/null; then
	echo "== installing debootstrap on the host"
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends debootstrap
fi

mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[i]}" 2>/dev/null || true
	done
}
trap cleanup EXIT
bind() {	# bind SOURCE: mount SOURCE at the same path in the root
	mkdir -p "$dir$1"
	mount --bind "$1" "$dir$1"
	mounted+=("$dir$1")
}

echo "== debootstrap --variant=minbase bookworm $dir"
t0=$SECONDS
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
debootstrap --variant=minbase bookworm "$dir" http://deb.debian.org/debian \
	>"$dir.debootstrap.log" 2>&1 ||
	{ tail -n 20 "$dir.debootstrap.log" >&2; exit 1; }
echo "   $((SECONDS - t0)) s (log: $dir.debootstrap.log)"

# Debian's sources only (this host may list others it cannot reach).
rm -f "$dir/etc/apt/sources.list"
cat >"$dir/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cp -L /etc/resolv.conf "$dir/etc/resolv.conf"

mkdir -p "$dir/proc" "$dir/sys"
mount -t proc proc "$dir/proc"
mounted+=("$dir/proc")
bind /sys
bind /dev
bind /dev/pts

in_root() {
	chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb CI=true LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "$1"
}

echo "== installing git and make (all a new user adds before the README)"
in_root 'apt-get update -qq && apt-get install -y -qq --no-install-recommends git make ca-certificates' \
	>"$dir/root/git-make.log" 2>&1 || { tail -n 20 "$dir/root/git-make.log" >&2; exit 1; }

echo "== cloning $(git -C "$repo" rev-parse --short HEAD) into $dir/root/umh-sdk"
git clone -q --no-local "$repo" "$dir/root/umh-sdk"
# the commit measured (the checkout may move on while make check runs)
commit=$(git -C "$dir/root/umh-sdk" rev-parse --short HEAD)
chmod 700 "$dir/root"
ls -ld "$dir/root" | sed 's/^/   /'

declare -A took rcs
for t in "${targets[@]}"; do
	echo "== make $t (log: $dir/root/$t.log)"
	t0=$SECONDS
	rc=0
	in_root "cd /root/umh-sdk && make $t" 2>&1 | tee "$dir/root/$t.log" || rc=$?
	took[$t]=$((SECONDS - t0))
	rcs[$t]=$rc
	[[ $rc == 0 ]] || break
done

echo "== bare machine: $commit"
status=0
for t in "${targets[@]}"; do
	[[ -n ${rcs[$t]+x} ]] || { echo "   make $t: not run"; continue; }
	printf '   make %s: exit %s in %d:%02d\n' "$t" "${rcs[$t]}" \
		$((took[$t] / 60)) $((took[$t] % 60))
	[[ ${rcs[$t]} == 0 ]] || status=1
done
exit $status
