#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# scripts/setup.sh's decisions, without root and without the network:
# dpkg-query, apt-cache, apt-get and id are stubs on PATH that read and
# write a fake package database, and kernels.sh is a stub beside a copy of
# setup.sh.  Each case sets up what is "installed" and what apt "knows",
# runs setup.sh and checks its exit status, its messages and the apt-get
# calls it made.
#
#	test_setup.sh
#
# Prints TAP lines; exits non-zero if any check failed.
set -u
cd "$(dirname "$0")"
src=../../scripts/setup.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
fail=0
tap() {	# tap PASS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=$((fail + 1))
	fi
}
check() {	# check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then tap 1 "$what"; else tap 0 "$what"; fi
}
dump() { sed -e 's/^/#   /' "$@"; }

# ------------------------------------------------------------- the stubs
mkdir -p "$tmp/bin" "$tmp/scripts"
cp "$src" "$tmp/scripts/setup.sh"

# dpkg-query -W [-f=FORMAT] NAME-OR-PATTERN: a line per matching installed
# package; exit 1 (as dpkg-query does) when none matches.
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/bin/bash
fmt='${Package}\t${Version}\n' pat=''
for a; do
	case $a in
	-W) ;;
	-f=*) fmt=${a#-f=} ;;
	*) pat=$a ;;
	esac
done
found=0
while read -r p; do
	# shellcheck disable=SC2053 # glob match, as dpkg-query's patterns
	[[ $p == $pat ]] || continue
	found=1
	f=${fmt//'${Package}'/$p}
	f=${f//'${Status}'/install ok installed}
	printf "${f//%/%%}"
done <"$STATE/installed"
((found)) && exit 0
echo "dpkg-query: no packages found matching $pat" >&2
exit 1
EOF

# apt-cache pkgnames PREFIX | show NAME, from $STATE/known, which apt-get
# update fills from $STATE/archive (before an update apt knows nothing).
cat >"$tmp/bin/apt-cache" <<'EOF'
#!/bin/bash
case $1 in
pkgnames) grep "^${2-}" "$STATE/known" || true ;;
show)
	grep -qxF -- "$2" "$STATE/known" && { echo "Package: $2"; exit 0; }
	echo "E: No packages found" >&2
	exit 100 ;;
*) echo "apt-cache stub: $*" >&2; exit 100 ;;
esac
EOF

# apt-get update | install [OPTIONS] PACKAGE...: logged to $STATE/apt.log;
# $STATE/fail-install makes install fail as on a broken mirror.
cat >"$tmp/bin/apt-get" <<'EOF'
#!/bin/bash
echo "apt-get $*" >>"$STATE/apt.log"
case $1 in
update) cp "$STATE/archive" "$STATE/known" ;;
install)
	shift
	[[ -e $STATE/fail-install ]] && { echo "E: Failed to fetch" >&2; exit 100; }
	pkgs=()
	for a; do
		[[ $a == -* ]] && continue
		grep -qxF -- "$a" "$STATE/known" ||
			{ echo "E: Unable to locate package $a" >&2; exit 100; }
		pkgs+=("$a")
	done
	printf '%s\n' "${pkgs[@]}" >>"$STATE/installed" ;;
*) echo "apt-get stub: $*" >&2; exit 100 ;;
esac
EOF

cat >"$tmp/bin/id" <<'EOF'
#!/bin/bash
[[ $1 == -u ]] && { echo "$STUB_UID"; exit 0; }
exit 1
EOF

# kernels.sh: both kernels are "there" when both images and the 6.12
# headers are installed.
cat >"$tmp/scripts/kernels.sh" <<'EOF'
#!/bin/bash
grep -qx linux-image-amd64 "$STATE/installed" &&
	k=$(grep -o '^linux-headers-6\.12\.[0-9]*+deb12-amd64$' "$STATE/installed" | tail -n 1) &&
	[[ -n $k ]] || { echo "kernels.sh: need a 6.1 and a 6.12 kernel" >&2; exit 1; }
k=${k#linux-headers-}
printf '6.1.0-57-amd64\n%s\n' "$k"
EOF
chmod +x "$tmp"/bin/* "$tmp/scripts/kernels.sh"

# The package list, read from setup.sh itself.
mapfile -t base < <(sed -n '/^PACKAGES=(/,/^)/p' "$src" |
	sed -e '1d;$d' -e 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d')
if ((${#base[@]} < 10)); then
	echo "Bail out! cannot read PACKAGES from $src"
	exit 1
fi

img() { echo "linux-image-$1-amd64-unsigned"; }
hdr() { echo "linux-headers-$1-amd64"; }
old=6.12.57+deb12 new=6.12.118+deb12

# scenario NAME: a fresh fake machine in $STATE; then fill
# $STATE/installed and $STATE/archive.
scenario() {
	export STATE=$tmp/state-$1
	mkdir -p "$STATE"
	: >"$STATE/installed"
	: >"$STATE/known"
	: >"$STATE/apt.log"
	# What apt's lists hold after an update: every base package, two 6.12
	# releases with headers, and an image whose headers are missing.
	printf '%s\n' "${base[@]}" "$(img $old)" "$(hdr $old)" \
		"$(img $new)" "$(hdr $new)" "$(img 6.12.200+deb12)" \
		>"$STATE/archive"
}

mapfile -t dk < <(sed -n '/^DEBUG_KERNEL_PACKAGES=(/,/^)/p' "$src" |
	sed -e '1d;$d' -e 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d')
if ((${#dk[@]} < 5)); then
	echo "Bail out! cannot read DEBUG_KERNEL_PACKAGES from $src"
	exit 1
fi

# run_setup [UID [ARG...]]: run the copy; sets rc and out.
run_setup() {
	local uid=${1:-0}
	shift
	out=$(STUB_UID=$uid PATH=$tmp/bin:$PATH bash "$tmp/scripts/setup.sh" "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" >"$STATE/out"
}
said() { grep -qF -- "$1" "$STATE/out"; }
installs() {	# installs PACKAGE: the one apt-get install named it
	grep '^apt-get install' "$STATE/apt.log" | tr ' ' '\n' | grep -qxF -- "$1"
}
apt_calls() { grep -c "^apt-get $1" "$STATE/apt.log"; }
explain() { ((fail > last_fail)) && { dump "$STATE/out"; dump "$STATE/apt.log"; }; last_fail=$fail; }
last_fail=0

# ---------------------------------------------------------- nothing installed
scenario bare
run_setup
check "bare machine: setup succeeds" [ "$rc" = 0 ]
check "...apt-get update runs once" [ "$(apt_calls update)" = 1 ]
check "...one apt-get install" [ "$(apt_calls install)" = 1 ]
all=1
for p in "${base[@]}"; do installs "$p" || { all=0; echo "# not installed: $p"; }; done
check "...it installs all ${#base[@]} packages" [ $all = 1 ]
check "...and the newest 6.12 image with headers ($new)" \
	eval 'installs "$(img $new)" && installs "$(hdr $new)"'
check "...not the 6.12 image that has no headers" \
	eval '! installs "$(img 6.12.200+deb12)"'
check "...and reports both guest kernels" said "guest kernels: 6.1.0-57-amd64 $new-amd64"
explain

# ---------------------------------------------------------- all installed
scenario warm
printf '%s\n' "${base[@]}" "$(img $new)" "$(hdr $new)" >"$STATE/installed"
run_setup 1000
check "everything installed: setup succeeds without root" [ "$rc" = 0 ]
check "...and calls no apt-get at all" [ ! -s "$STATE/apt.log" ]
check "...says all packages are present" said "all packages present"
check "...and names the installed 6.12 kernel" said "6.12 kernel $new already installed"
explain

# ------------------------------------------- a 6.12 image without headers
scenario noheaders
printf '%s\n' "${base[@]}" "$(img $old)" >"$STATE/installed"
run_setup
check "6.12 image without headers: setup succeeds" [ "$rc" = 0 ]
check "...installs that release's headers" installs "$(hdr $old)"
check "...and no second 6.12 image" eval '! installs "$(img $new)" && ! installs "$(hdr $new)"'
check "...nor anything already installed" eval '! installs linux-image-amd64'
check "...and reports the guest kernels" said "guest kernels: 6.1.0-57-amd64 $old-amd64"
explain

# ------------------------------------------- only some packages (6.1 only)
scenario some
printf '%s\n' linux-image-amd64 linux-headers-amd64 qemu-system-x86 >"$STATE/installed"
run_setup
check "only some packages: setup succeeds" [ "$rc" = 0 ]
check "...installs what is missing" eval 'installs sparse && installs procps'
check "...and not what is there" eval '! installs qemu-system-x86 && ! installs linux-headers-amd64'
explain

# ------------------------------------------- no 6.12 with headers in apt
scenario no612
printf '%s\n' "${base[@]}" "$(img 6.12.200+deb12)" >"$STATE/archive"
run_setup
check "no 6.12 with headers in apt's lists: setup fails" [ "$rc" != 0 ]
check "...with a clear error" said "no linux-image-6.12.*+deb12-amd64-unsigned with a matching linux-headers"
check "...and installs nothing" [ "$(apt_calls install)" = 0 ]
explain

# ------------------------------------------- missing packages, not root
scenario user
run_setup 1000
check "missing packages, not root: setup fails" [ "$rc" != 0 ]
check "...saying it must run as root" said "must run as root"
check "...without calling apt-get" [ ! -s "$STATE/apt.log" ]
explain

# ------------------------------------------- apt-get install fails
scenario broken
touch "$STATE/fail-install"
run_setup
check "apt-get install fails: setup fails" [ "$rc" != 0 ]
check "...saying apt-get install failed" said "apt-get install failed (exit 100)"
check "...and apt's own error is shown" said "E: Failed to fetch"
explain

# ------------------------------------------- a package apt does not have
scenario unknown
grep -vx procps "$STATE/archive" >"$STATE/a" && mv "$STATE/a" "$STATE/archive"
run_setup
check "a package apt does not know: setup fails" [ "$rc" != 0 ]
check "...naming it" said "Unable to locate package procps"
explain

# ------------------------------------------- --debug-kernel
scenario dk
run_setup 0 --debug-kernel
check "--debug-kernel on a bare machine: setup succeeds" [ "$rc" = 0 ]
all=1
for p in "${dk[@]}"; do
	installs "$p" || { all=0; echo "# not installed: $p"; }
	printf '%s\n' "${base[@]}" | grep -qxF -- "$p" || { all=0; echo "# not in PACKAGES: $p"; }
done
check "...installs the ${#dk[@]} DEBUG_KERNEL_PACKAGES, each one of PACKAGES" [ $all = 1 ]
check "...and nothing else (no 6.12 kernel, no qemu)" eval \
	'[ "$(grep "^apt-get install" "$STATE/apt.log" | tr " " "\n" | grep -vc -- "^-\|^apt-get$\|^install$")" = ${#dk[@]} ]'
check "...nor asks kernels.sh for the guest kernels" eval '! said "guest kernels"'
run_setup 0
check "...then a plain run installs the rest, once" eval \
	'[ "$rc" = 0 ] && [ "$(apt_calls install)" = 2 ] && installs qemu-system-x86 && installs "$(img $new)"'
check "...and not the debug kernel's packages again" eval \
	'[ "$(grep "^apt-get install" "$STATE/apt.log" | tail -n 1 | tr " " "\n" | grep -cxF -- linux-source-6.1)" = 0 ]'
: >"$STATE/apt.log"
run_setup 1000 --debug-kernel
check "--debug-kernel with everything installed: no root, no apt-get" \
	eval '[ "$rc" = 0 ] && [ ! -s "$STATE/apt.log" ]'
run_setup 0 --bogus
check "an unknown option: usage and exit status 2" eval '[ "$rc" = 2 ] && said "usage: setup.sh"'
explain

echo "1..$n"
exit $((fail > 0))
