#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: build-time guarantees, checked on the host for every guest
# kernel's headers.  Prints TAP.
#  - `make modules KDIR=...` at the top level builds the sample;
#  - a typed call with the wrong struct does not compile;
#  - embed_blob.sh refuses a dynamic executable and a non-ELF file.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; sed 's/^/# /' <<<"$2" | tail -n 20; }

for k in $("$root/scripts/kernels.sh"); do
	kdir=/lib/modules/$k/build
	src=$work/$k
	mkdir -p "$src/tests"
	cp -a "$root/include" "$root/kernel" "$root/scripts" "$root/samples" \
		"$root/Kbuild" "$root/defconfig" "$root/Makefile" "$src/"
	cp -a "$root/tests/kbuild" "$src/tests/"
	# A module built in the checkout (plain `make`) came along: the check
	# below must see one this build made.
	rm -f "$src/samples/echo_umh/echo_umh.ko"

	if out=$(make -C "$src" modules KDIR="$kdir" 2>&1) &&
	   [ -f "$src/samples/echo_umh/echo_umh.ko" ]; then
		ok "$k: make modules KDIR=... builds samples/echo_umh/echo_umh.ko"
	else
		not_ok "$k: make modules KDIR=... builds the sample" "$out"
	fi

	if out=$(make -C "$kdir" M="$src/tests/kbuild/wrong_type" modules 2>&1); then
		not_ok "$k: a typed call with the wrong struct is a compile error" "it compiled"
	elif grep -q 'incompatible-pointer-types' <<<"$out"; then
		ok "$k: a typed call with the wrong struct is a compile error"
	else
		not_ok "$k: a typed call with the wrong struct is a compile error" "$out"
	fi
done

printf 'int main(void) { return 0; }\n' >"$work/dyn.c"
gcc -o "$work/dyn" "$work/dyn.c"
if out=$("$root/scripts/embed_blob.sh" "$work/dyn" dyn "$work/dyn.S" 2>&1); then
	not_ok "embed_blob.sh refuses a dynamically linked helper" "accepted"
elif grep -q 'dynamically linked' <<<"$out"; then
	ok "embed_blob.sh refuses a dynamically linked helper"
else
	not_ok "embed_blob.sh refuses a dynamically linked helper" "$out"
fi
if out=$("$root/scripts/embed_blob.sh" "$work/dyn.c" dyn "$work/dyn.S" 2>&1); then
	not_ok "embed_blob.sh refuses a non-ELF blob without --raw" "accepted"
elif grep -q 'not an ELF' <<<"$out"; then
	ok "embed_blob.sh refuses a non-ELF blob without --raw"
else
	not_ok "embed_blob.sh refuses a non-ELF blob without --raw" "$out"
fi

echo "1..$n"
[ $failed -eq 0 ]
