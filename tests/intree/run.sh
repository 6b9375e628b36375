#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: the SDK in a kernel tree (scripts/intree.sh,
# Documentation/in-tree.rst), on Debian's linux-source-6.1 and
# linux-source-6.12.  Prints TAP.  For each tree:
#  - the series made against it is checkpatch --strict clean, with the
#    ignores lint documents (scripts/checkpatch-rules.sh);
#  - `git am` applies it to a git repository of the files it touches, and
#    `git revert` of its commits gives those files back unchanged;
#  - applied to a copy of the tree, with Debian's config for that kernel
#    plus SAMPLES=y and both samples =m, Kconfig resolves UMH_SDK=m, and
#    Kbuild builds umh_sdk.ko and the two sample modules, which depend on
#    it; everything =y (echo_boot included) compiles and is sparse clean;
#    `intree.sh revert` then restores the tree.
# And, out of tree: the SDK's kernel side builds as a library module that
# exports its API, and the Kconfig (through kconfig-frontends) refuses the
# bpfilter sample for a kernel with ip_tables built in.
#
# The in-tree build keeps its O= tree in the cache (intree-<series>-<key>,
# keyed by the source package version, the Debian config and this
# script), so a second run rebuilds only what the series changed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${UMH_CACHE:-$HOME/.cache/umh-sdk}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; sed 's/^/# /' <<<"$2" | tail -n 25; }
# shellcheck source=../../scripts/checkpatch-rules.sh
. "$root/scripts/checkpatch-rules.sh"

# repo_path PATH-IN-TREE: where that file of the series lives in this repo.
repo_path() {
	case $1 in
	kernel/umh_sdk/Kconfig) echo Kconfig ;;
	kernel/umh_sdk/*) echo "kernel/${1#kernel/umh_sdk/}" ;;
	samples/umh/*) echo "samples/${1#samples/umh/}" ;;
	scripts/umh/*) echo "scripts/${1#scripts/umh/}" ;;
	*) echo "$1" ;;
	esac
}

# checkpatch_series KSRC PATCH: checkpatch's findings that lint would not
# accept: none for user-space files, the documented ignores elsewhere.
checkpatch_series() {
	local ksrc=$1 patch=$2 type file rp ign
	(cd "$ksrc" && perl scripts/checkpatch.pl --strict --no-tree --show-types "$patch" 2>&1) |
		awk '/^(ERROR|WARNING|CHECK):/ { t = $0; next }
		     t != "" { print t "\t" $0; t = "" }' |
		while IFS=$'\t' read -r type file; do
			type=${type#*:}
			type=${type%%:*}
			file=$(sed -nE 's/.*FILE: ([^:]*):.*/\1/p' <<<"$file")
			if [ -n "$file" ]; then
				rp=$(repo_path "$file")
				grep -qE "$user_re" <<<"$rp" && continue
				ign=$(checkpatch_ignores "$rp")
				grep -qw -- "$type" <<<"${ign//,/ }" && continue
			fi
			echo "$type in ${file:-the patch}"
		done
}

for series in 6.1 6.12; do
	case $series in
	6.1) kver=$(scripts/kernels.sh 2>/dev/null | grep '^6\.1\.' | head -n 1) ;;
	*) kver=$(scripts/kernels.sh 2>/dev/null | grep '^6\.12\.' | head -n 1) ;;
	esac
	cd "$root" || exit 1
	if ! ksrc=$(scripts/linux-source.sh "$series" 2>"$work/err"); then
		not_ok "$series: linux-source-$series unpacked" "$(cat "$work/err")"
		continue
	fi
	s=$work/series-$series
	if ! out=$(scripts/intree.sh series "$ksrc" "$s" 2>&1) ||
	   [ "$(ls "$s"/*.patch 2>/dev/null | wc -l)" != 2 ]; then
		not_ok "$series: intree.sh series writes two patches" "$out"
		continue
	fi
	ok "$series: intree.sh series writes two patches against linux-source-$series"

	bad=
	for p in "$s"/*.patch; do
		r=$(checkpatch_series "$ksrc" "$p")
		[ -z "$r" ] || bad+="$(basename "$p"):"$'\n'"$r"$'\n'
	done
	if [ -z "$bad" ]; then
		ok "$series: the series is checkpatch --strict clean (lint's documented ignores)"
	else
		not_ok "$series: the series is checkpatch --strict clean" "$bad"
	fi

	# git am and git revert, on a repository of the files the series
	# touches (git am needs a repository; the unpacked tree is none).
	g=$work/git-$series
	mkdir -p "$g"
	for f in Makefile MAINTAINERS init/Kconfig kernel/Makefile samples/Makefile; do
		mkdir -p "$g/$(dirname "$f")"
		cp "$ksrc/$f" "$g/$f"
	done
	gg() { git -C "$g" -c user.name=t -c user.email=t@localhost "$@"; }
	# intree.sh revert commits with the user's git identity, which a
	# fresh machine does not have: give it one.
	git_id() {
		GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@localhost \
		GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@localhost "$@"
	}
	if out=$({ gg init -q && gg add -A && gg commit -qm base &&
		   gg am -q "$s"/*.patch && [ -f "$g/kernel/umh_sdk/umh_blob.c" ] &&
		   gg log --format=%s -2 && git_id "$root/scripts/intree.sh" revert "$g" &&
		   gg diff --stat HEAD~4 && [ -z "$(gg diff HEAD~4)" ] &&
		   [ ! -e "$g/kernel/umh_sdk" ] && [ ! -e "$g/samples/umh" ]; } 2>&1); then
		ok "$series: git am applies the series; intree.sh revert (git revert) restores the files"
	else
		not_ok "$series: git am applies the series and git revert restores the files" "$out"
	fi

	# The in-tree build, modules only.
	if [ -z "$kver" ] || [ ! -r "/lib/modules/$kver/build/.config" ]; then
		not_ok "$series: in-tree build" "no Debian $series kernel config in /lib/modules (run scripts/setup.sh)"
		continue
	fi
	dcfg=/lib/modules/$kver/build/.config
	key=$({ echo "$ksrc"; cat "$dcfg" "$0"; } | sha256sum)
	d=$cache/intree-$series-${key:0:16}
	mkdir -p "$d"
	exec {lockfd}>"$d.lock"
	flock "$lockfd"
	log=$d/build.log
	: >"$log"
	# The copy is hard links to the unpacked tree: the series' patch
	# replaces the files it changes instead of writing through the links.
	rm -rf "$d/src"
	if ! out=$({ cp -al "$ksrc" "$d/src" && "$root/scripts/intree.sh" apply "$d/src"; } 2>&1); then
		not_ok "$series: intree.sh apply to a copy of linux-source-$series" "$out"
		exec {lockfd}>&-
		continue
	fi
	if grep -q umh_sdk "$ksrc/init/Kconfig"; then
		not_ok "$series: applying to the copy left linux-source-$series alone" \
			"$ksrc/init/Kconfig mentions umh_sdk"
	fi
	mkdir -p "$d/out"
	{
		cat "$dcfg"
		echo CONFIG_SAMPLES=y
		echo CONFIG_SAMPLE_UMH_ECHO=m
		echo CONFIG_SAMPLE_UMH_BPFILTER=m
		# module BTF needs a vmlinux, which this build does not make
		echo '# CONFIG_DEBUG_INFO_BTF is not set'
	} >"$d/out/.config"
	mk() { make -C "$d/src" O="$d/out" "$@" >>"$log" 2>&1; }
	if ! mk olddefconfig; then
		not_ok "$series: in-tree olddefconfig" "$(tail -n 20 "$log")"
	elif want=$(printf 'CONFIG_UMH_SDK=m\nCONFIG_SAMPLE_UMH_ECHO=m\nCONFIG_SAMPLE_UMH_BPFILTER=m\n') &&
	     [ "$(grep -E '^CONFIG_(UMH_SDK|SAMPLE_UMH_[A-Z]+)=' "$d/out/.config")" != "$want" ]; then
		not_ok "$series: Kconfig resolves UMH_SDK=m and both samples =m" \
			"$(grep -E 'UMH' "$d/out/.config")"
	else
		ok "$series: Kconfig (Debian's config + SAMPLES) resolves UMH_SDK=m and both samples =m"
		kos="kernel/umh_sdk/umh_sdk.ko samples/umh/echo_umh/echo_umh.ko samples/umh/bpfilter/bpfilter.ko"
		t0=$SECONDS
		# Without vmlinux's Module.symvers, modpost cannot resolve the
		# kernel's symbols: it warns instead (KBUILD_MODPOST_WARN).
		# shellcheck disable=SC2086
		if ! mk -j"$(nproc)" modules_prepare || ! mk -j"$(nproc)" KBUILD_MODPOST_WARN=1 $kos; then
			not_ok "$series: in-tree build of the modules" "$(grep -v 'WARNING: modpost' "$log" | tail -n 20)"
		elif ! out=$(for m in echo_umh/echo_umh bpfilter/bpfilter; do
				modinfo -F depends "$d/out/samples/umh/$m.ko"; done) ||
		     [ "$out" != $'umh_sdk\numh_sdk' ] ||
		     grep -E 'WARNING: modpost: "umh_' "$log"; then
			not_ok "$series: the samples link against umh_sdk.ko" "depends: $out"
		else
			ok "$series: in-tree Kbuild builds umh_sdk.ko, echo_umh.ko and bpfilter.ko ($((SECONDS - t0)) s); the samples depend on umh_sdk"
		fi
	fi
	# Built in: everything =y, the built-in objects compiled with sparse
	# (C=2), which also covers the SDK's boot-time start path.
	sed -i -E 's/^CONFIG_(SAMPLE_UMH_ECHO|SAMPLE_UMH_BPFILTER)=m$/CONFIG_\1=y/' "$d/out/.config"
	echo CONFIG_SAMPLE_UMH_ECHO_BOOT=y >>"$d/out/.config"
	: >"$d/sparse.log"
	if ! mk olddefconfig; then
		not_ok "$series: in-tree olddefconfig, built in" "$(tail -n 20 "$log")"
	elif [ "$(grep -cE '^CONFIG_(UMH_SDK|SAMPLE_UMH_ECHO|SAMPLE_UMH_ECHO_BOOT|SAMPLE_UMH_BPFILTER)=y$' "$d/out/.config")" != 4 ]; then
		not_ok "$series: Kconfig takes UMH_SDK and the three samples =y" "$(grep UMH "$d/out/.config")"
	elif ! make -C "$d/src" O="$d/out" -j"$(nproc)" C=2 kernel/umh_sdk/ samples/umh/ >"$d/sparse.log" 2>&1; then
		not_ok "$series: in-tree build, built in" "$(tail -n 20 "$d/sparse.log")"
	elif warn=$(grep -E 'warning:|error:' "$d/sparse.log"); [ -n "$warn" ]; then
		not_ok "$series: the built-in objects are sparse clean" "$warn"
	elif [ ! -f "$d/out/kernel/umh_sdk/built-in.a" ] || [ ! -f "$d/out/samples/umh/echo_umh/built-in.a" ] ||
	     ! grep -q 'echo_boot' <<<"$(ar t "$d/out/samples/umh/echo_umh/built-in.a")"; then
		not_ok "$series: in-tree build, built in" "no built-in.a with echo_boot: $(ls "$d/out/samples/umh/echo_umh/")"
	elif clash=$(for a in "$d/out/kernel/umh_sdk/built-in.a" "$d/out"/samples/umh/*/built-in.a; do
			(cd "$d/out" && nm -g --defined-only $(ar t "$a")); done |
		     awk 'NF == 3 { print $3 }' | sort -u |
		     comm -12 - <(awk '{ print $3 }' "/boot/System.map-$kver" 2>/dev/null | sort -u));
	     [ -n "$clash" ]; then
		not_ok "$series: built in, no global symbol that Debian's vmlinux defines too" "$clash"
	else
		ok "$series: built in (UMH_SDK, echo, echo_boot, bpfilter =y): compiles, sparse clean ($(grep -c ' CHECK ' "$d/sparse.log") files)$([ -r "/boot/System.map-$kver" ] && echo ", no global symbol clashes with Debian's vmlinux")"
	fi
	if out=$("$root/scripts/intree.sh" revert "$d/src" 2>&1) &&
	   out=$(for f in MAINTAINERS init/Kconfig kernel/Makefile samples/Makefile; do
			cmp "$ksrc/$f" "$d/src/$f" 2>&1; done) && [ -z "$out" ] &&
	   [ ! -e "$d/src/kernel/umh_sdk" ] && [ ! -e "$d/src/samples/umh" ] &&
	   [ ! -e "$d/src/scripts/umh" ] && [ ! -e "$d/src/include/umh_sdk" ]; then
		ok "$series: intree.sh revert restores the tree"
	else
		not_ok "$series: intree.sh revert restores the tree" "$out"
	fi
	rm -rf "$d/src"
	exec {lockfd}>&-
done

# Out of tree: kernel/ alone is the library module of a kernel tree.
cd "$root" || exit 1
k=$(scripts/kernels.sh | tail -n 1)
l=$work/lib
mkdir -p "$l"
cp -a include kernel "$l/"
if out=$(make -C "/lib/modules/$k/build" M="$l/kernel" CONFIG_UMH_SDK=m modules 2>&1) &&
   syms=$(awk '$4 == "EXPORT_SYMBOL_GPL" { print $2 }' "$l/kernel/Module.symvers" | sort) &&
   api=$(sed -nE 's/^[a-z].*\b(umh_blob_[a-z_]+)\(.*/\1/p' include/umh_sdk/umh_blob.h include/umh_sdk/rpc.h | sort) &&
   [ -n "$api" ] && [ "$syms" = "$api" ]; then
	ok "$k: kernel/ builds as umh_sdk.ko exporting (GPL) exactly the API of umh_blob.h and rpc.h"
else
	not_ok "$k: kernel/ builds as umh_sdk.ko exporting the API" "$out"$'\n'"exported: $syms"$'\n'"API: $api"
fi

# Out of tree Kconfig: no bpfilter sample for a kernel with ip_tables =y.
fk=$work/fakek
mkdir -p "$fk"
sed 's/^CONFIG_IP_NF_IPTABLES=.*/CONFIG_IP_NF_IPTABLES=y/' "/lib/modules/$k/build/.config" >"$fk/.config"
c=$work/kc
mkdir -p "$c/scripts"
cp -a Kconfig defconfig "$c/"
cp -a scripts/kconfig.sh "$c/scripts/"
if out=$("$c/scripts/kconfig.sh" olddefconfig "$fk" 2>&1) &&
   ! grep -q '^CONFIG_SAMPLE_UMH_BPFILTER=' "$c/.config" &&
   grep -qx 'CONFIG_SAMPLE_UMH_ECHO=m' "$c/.config" &&
   rm "$c/.config" && out+=$("$c/scripts/kconfig.sh" olddefconfig "/lib/modules/$k/build" 2>&1) &&
   grep -qx 'CONFIG_SAMPLE_UMH_BPFILTER=m' "$c/.config"; then
	ok "kconfig-frontends: the bpfilter sample is offered for $k, refused with ip_tables built in"
else
	not_ok "kconfig-frontends: the bpfilter sample follows IP_NF_IPTABLES" "$out"$'\n'"$(cat "$c/.config" 2>/dev/null)"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
