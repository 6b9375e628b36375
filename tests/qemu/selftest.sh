#!/bin/bash
# selftest.sh - check the QEMU harness itself: boot each kernel named by
# scripts/kernels.sh (both at once, which also checks that guests can run
# concurrently) and check that the guest runs the right kernel on the host
# root, has a writable /tmp, a read-write --share, a kernel-thread root that
# is the host root, a /dev/fd for process substitution, and that the
# command's exit status comes back.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
mapfile -t kernels < <("$here/../../scripts/kernels.sh")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/umh-selftest.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

# The guest writes into the share; 7 checks that the exit status travels.
# shellcheck disable=SC2016 # expanded in the guest
script='uname -r; cat /proc/mounts; ls /lib/modules
test -w /tmp && echo tmp-writable
test -x /proc/2/root/bin/bash && echo kthread-root-is-host
diff <(echo same) <(echo same) && echo process-substitution-works
echo "hello from $(uname -r)" >"$SHARE/hello"
exit 7'

pids=()
for k in "${kernels[@]}"; do
	mkdir "$tmp/$k"
	"$guest" --kernel "$k" --share "$tmp/$k" -- "SHARE=$(printf %q "$tmp/$k"); $script" \
		>"$tmp/$k.out" 2>"$tmp/$k.err" &
	pids+=($!)
done

fail=0
check() {	# check <kernel> <description> <command...>
	local k=$1 what=$2
	shift 2
	if "$@"; then
		echo "ok   $k: $what"
	else
		echo "FAIL $k: $what"
		fail=1
	fi
}
for i in "${!kernels[@]}"; do
	k=${kernels[i]}
	rc=0
	wait "${pids[i]}" || rc=$?
	out=$tmp/$k.out
	cat -- "$tmp/$k.err" >&2
	check "$k" "exit status 7 came back (got $rc)" test "$rc" -eq 7
	check "$k" "uname -r names the release" test "$(head -n 1 -- "$out")" = "$k"
	check "$k" "host root is / over 9p" grep -q '^hostroot / 9p ro' -- "$out"
	check "$k" "host /lib/modules visible" grep -qxF -- "$k" "$out"
	check "$k" "/tmp writable" grep -qx tmp-writable -- "$out"
	check "$k" "kthreadd's root is the host root" grep -qx kthread-root-is-host -- "$out"
	check "$k" "/dev/fd: process substitution works" grep -qx process-substitution-works -- "$out"
	check "$k" "file written in the guest is on the host" \
		test "$(cat -- "$tmp/$k/hello" 2>/dev/null)" = "hello from $k"
	((fail == 0)) || { echo "--- output of $k:"; cat -- "$out"; } >&2
done
exit "$fail"
