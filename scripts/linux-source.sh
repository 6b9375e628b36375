#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# linux-source.sh [6.1|6.12]: print the path of an unpacked Debian
# linux-source-<version> tree (default 6.1: checkpatch.pl, kernel-doc,
# Coccinelle scripts, the Sphinx extensions; both: the in-tree build of
# tests/intree), unpacking it on first use into the cache.  The cache entry is
# keyed by the package version, so an upgraded package is unpacked anew.
set -euo pipefail
cache=${UMH_CACHE:-${HOME:?neither UMH_CACHE nor HOME is set: no place for the cache}/.cache/umh-sdk}
series=${1:-6.1}
case $series in
6.1 | 6.12) ;;
*) echo "usage: linux-source.sh [6.1|6.12]" >&2; exit 2 ;;
esac
tarball=/usr/src/linux-source-$series.tar.xz
[ -r "$tarball" ] || { echo "linux-source.sh: $tarball missing (run scripts/setup.sh)" >&2; exit 1; }
ver=$(dpkg-query -W -f='${Version}' "linux-source-$series")
# (a "~" in a Debian version is no character for a build path)
dir=$cache/linux-source-$series-${ver//\~/_}
if [ ! -f "$dir/.complete" ]; then
	# Two callers at once (check.sh builds the debug kernel in the
	# background while lint runs): one unpacks, the other waits for it.
	mkdir -p "$cache"
	exec {lockfd}>"$cache/linux-source.lock"
	flock "$lockfd"
fi
if [ ! -f "$dir/.complete" ]; then
	echo "linux-source.sh: unpacking linux-source-$series $ver into $dir" >&2
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	tar -xf "$tarball" -C "$dir.tmp" --strip-components=1
	touch "$dir.tmp/.complete"
	mv "$dir.tmp" "$dir"
fi
echo "$dir"
