#!/bin/bash
# guest.sh - boot a Debian kernel under QEMU (TCG) and run ONE command in it.
#
#   tests/qemu/guest.sh --kernel <release> [--vmlinuz <path>] [--timeout <sec>]
#       [--mem <MiB>] [--share <hostdir>]... [--log <file>] [--modules <dir>]
#       -- <command> [args...]
#
# The guest sees the host's whole root read-only over 9p, with the host's
# /lib/modules, tools and working tree; each --share DIR is mounted
# read-write at the same path. The command runs with the host's bash in the
# caller's working directory. One argument after "--" is a bash script
# ("modprobe x && lsmod"); several arguments are one command, each argument
# quoted ("sh -c 'echo a b'").
#
# A kernel that is not installed on the host (the debug kernel of
# scripts/debug-kernel.sh) comes with --vmlinuz and --modules DIR: DIR holds
# its installed modules (modules.dep and all), and the guest sees it at
# /lib/modules/<release> (a tmpfs over the read-only /lib/modules, with DIR
# bind-mounted into it), so modprobe works there.  Without --modules the
# guest uses the host's /lib/modules as it is.
#
# Exit status: the command's; 124 on --timeout; 125 when the guest never
# reached user space (after 2 retries); 126 when the guest died while the
# command ran; 2 on a usage error.
#
# Wiring: ttyS0 (the kernel console) goes to the log file, ttyS1 carries only
# the command's stdout+stderr and the UMH-GUEST-READY / UMH-GUEST-EXIT
# markers, so kernel messages never interleave with command output. In the
# guest the command writes into a pipe (not a tty), so the output ends when
# the command and everything it left running in the background close it.
#
# Environment: UMH_CACHE (initramfs and vmlinux cache, default
# ~/.cache/umh-sdk), UMH_GUEST_APPEND (extra kernel parameters, e.g.
# loglevel=7), UMH_GUEST_BOOT_TIMEOUT (default 60 s), UMH_GUEST_PVH=0 (boot
# the bzImage instead of the unpacked vmlinux).
set -euo pipefail

# Seconds from qemu start to the READY marker; raise it on a crowded host.
readonly BOOT_DEADLINE=${UMH_GUEST_BOOT_TIMEOUT:-60}
readonly POWEROFF_GRACE=30	# seconds from the EXIT marker to qemu exiting
readonly BOOT_ATTEMPTS=3	# the first boot plus 2 retries
readonly ROOT_9P_OPTS=trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000
readonly SHARE_9P_OPTS=trans=virtio,version=9p2000.L,cache=mmap,msize=512000

die() { echo "guest.sh: $*" >&2; exit 2; }

usage() {
	sed -n '4,6p' "$0" | sed 's/^# \{0,3\}//' >&2
	exit 2
}

kernel='' vmlinuz='' vmlinuz_given=0 timeout=600 mem=1024 log='' moddir=''
shares=()
while (($#)); do
	case $1 in
	--kernel) kernel=${2-}; shift 2 || usage ;;
	--vmlinuz) vmlinuz=${2-} vmlinuz_given=1; shift 2 || usage ;;
	--timeout) timeout=${2-}; shift 2 || usage ;;
	--mem) mem=${2-}; shift 2 || usage ;;
	--share) shares+=("${2-}"); shift 2 || usage ;;
	--log) log=${2-}; shift 2 || usage ;;
	--modules) moddir=${2-}; shift 2 || usage ;;
	--) shift; break ;;
	-h | --help) usage ;;
	*) die "unknown option '$1' (want -- before the command)" ;;
	esac
done
(($#)) || usage
[[ -n $kernel ]] || die "--kernel <release> is required"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout wants whole seconds"
[[ $mem =~ ^[1-9][0-9]*$ ]] || die "--mem wants MiB"
vmlinuz=${vmlinuz:-/boot/vmlinuz-$kernel}
[[ -r $vmlinuz ]] || die "cannot read kernel image $vmlinuz"
if [[ -n $moddir ]]; then
	moddir=$(realpath -e -- "$moddir" 2>/dev/null) || die "--modules: no such directory"
	[[ -f $moddir/modules.dep ]] || die "--modules $moddir: no modules.dep there"
	[[ $moddir != *$'\n'* ]] || die "--modules: newline in path"
else
	[[ -d /lib/modules/$kernel ]] || die "no /lib/modules/$kernel"
fi
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (run scripts/setup.sh)"
# The cache lives in the home directory unless UMH_CACHE says otherwise; a
# run without HOME (env -i, some service managers) must say so, not die on
# an unbound variable.
cache_root=${UMH_CACHE:-${HOME:+$HOME/.cache/umh-sdk}}
[[ -n $cache_root ]] || die "neither UMH_CACHE nor HOME is set: no place for the initramfs cache"

# A share is mounted at its own absolute path, so resolve it now.
for i in "${!shares[@]}"; do
	d=$(realpath -e -- "${shares[i]}" 2>/dev/null) || die "--share ${shares[i]}: no such directory"
	[[ -d $d ]] || die "--share $d: not a directory"
	[[ $d != *$'\n'* ]] || die "--share: newline in path"
	shares[i]=$d
done
if [[ -n $log ]]; then
	: >"$log" 2>/dev/null || die "cannot write --log $log"
fi

# ---------------------------------------------------------------- cleanup
work='' qpid='' qfd='' initrd_tmp='' vmlinux_tmp='' keep_log=0 default_log=0
cleanup() {
	if [[ -n $qpid ]]; then
		kill "$qpid" 2>/dev/null || true
		wait "$qpid" 2>/dev/null || true
	fi
	[[ -n $work ]] && rm -rf -- "$work"
	[[ -n $initrd_tmp ]] && rm -f -- "$initrd_tmp"
	[[ -n $vmlinux_tmp ]] && rm -f -- "$vmlinux_tmp"
	if ((default_log && !keep_log)); then rm -f -- "$log"; fi
	return 0
}
trap cleanup EXIT
# Turn signals into an exit so the EXIT trap kills qemu.
trap 'exit 130' INT
trap 'exit 143' TERM HUP
trap 'exit 141' PIPE	# our reader went away

# ---------------------------------------------------------------- guest init
# Stage 1: PID 1 in the initramfs. Kernel threads (kthreadd and everything
# it spawns, including user-mode helpers) share PID 1's fs_struct through
# CLONE_FS, so the root must be switched IN PID 1 (switch_root), not in a
# child chroot: then helpers the kernel starts also see the host root.
STAGE1=$(cat <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bin
export PATH=/bin
fatal() {
	echo "umh-guest: $*"
	echo "UMH-GUEST-FATAL $*" >/dev/ttyS1
	poweroff -f
	exit 1
}
mount -t proc proc /proc || fatal "mount /proc failed"
mount -t sysfs sysfs /sys || fatal "mount /sys failed"
while read -r m; do
	insmod "/lib/modules/$m" || fatal "insmod $m failed"
done </lib/modules/order
mount -t 9p -o "$ROOT_9P_OPTS" hostroot /newroot || fatal "9p mount of the host root failed"
# The host root is read-only: stage 2 and its busybox live on a tmpfs /run.
mount -t tmpfs -o mode=0755 tmpfs /newroot/run || fatal "mount /run failed"
mkdir /newroot/run/umh-guest
cp /bin/busybox /stage2 /newroot/run/umh-guest/ || fatal "copy of stage 2 failed"
for d in dev proc sys; do
	mount --move "/$d" "/newroot/$d" || fatal "mount --move /$d failed"
done
exec switch_root /newroot /run/umh-guest/busybox sh /run/umh-guest/stage2
EOF
)
# shellcheck disable=SC2016 # a literal placeholder
STAGE1=${STAGE1//'$ROOT_9P_OPTS'/$ROOT_9P_OPTS}

# Stage 2: PID 1 again, now on the host root. Everything not backed by the
# read-only host root gets a tmpfs; then the command runs with its output
# on ttyS1, switched to raw so bytes pass through untranslated.
STAGE2=$(cat <<'EOF'
bb=/run/umh-guest/busybox
work=/run/umh-guest/work
fatal() {
	echo "umh-guest: $*"
	echo "UMH-GUEST-FATAL $*" >/dev/ttyS1
	$bb poweroff -f
	exit 1
}
for d in /tmp /var/tmp; do
	$bb mount -t tmpfs -o mode=1777 tmpfs "$d" || fatal "mount $d failed"
done
$bb mount -t debugfs debugfs /sys/kernel/debug || fatal "mount debugfs failed"
$bb mount -t bpf bpf /sys/fs/bpf || :
$bb mkdir -p /dev/pts /dev/shm
$bb mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts || :
$bb mount -t tmpfs -o mode=1777 tmpfs /dev/shm || :
# What udev makes on a booted system: bash's process substitution, <(...),
# opens /dev/fd/N, and /dev/stdin and the like are common in scripts.
$bb ln -sfn /proc/self/fd /dev/fd
for n in 0:stdin 1:stdout 2:stderr; do
	$bb ln -sfn "/proc/self/fd/${n%%:*}" "/dev/${n#*:}"
done
$bb mkdir -p "$work"
$bb mount -t 9p -o trans=virtio,version=9p2000.L,ro umhwork "$work" || fatal "9p mount of the work dir failed"
# --modules: this kernel's modules are not in the host's /lib/modules.
if [ -s "$work/modules" ]; then
	mods=$($bb cat "$work/modules")
	rel=$($bb uname -r)
	$bb mount -t tmpfs -o mode=0755 tmpfs /lib/modules || fatal "mount /lib/modules failed"
	$bb mkdir "/lib/modules/$rel"
	$bb mount --bind "$mods" "/lib/modules/$rel" || fatal "bind mount of $mods failed"
fi
while IFS= read -r line; do
	tag=${line%% *} dir=${line#* }
	$bb mkdir -p "$dir" || fatal "mkdir $dir failed"
	$bb mount -t 9p -o "$SHARE_9P_OPTS" "$tag" "$dir" || fatal "9p mount of $dir failed"
done <"$work/shares"
$bb hostname guest
$bb ip link set lo up || fatal "ip link set lo up failed"
script=$($bb cat "$work/cmd.sh") || fatal "no command script"
$bb stty -F /dev/ttyS1 raw -echo || fatal "stty ttyS1 failed"
echo UMH-GUEST-READY >/dev/ttyS1
# The command writes into a pipe, not the tty, as when a host harness
# captures its output: isatty() is false and ls prints one name per line.
{
	$bb env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb \
		/bin/bash -c "$script" </dev/null 2>&1
	echo $? >/run/umh-guest/rc
} | $bb cat >/dev/ttyS1
rc=$($bb cat /run/umh-guest/rc)
echo "UMH-GUEST-EXIT ${rc:-1}" >/dev/ttyS1
# stty sets attributes with TCSADRAIN: it returns once the UART has sent
# everything, so powering off cannot cut the tail of the output.
$bb stty -F /dev/ttyS1 raw
$bb sync
$bb poweroff -f
EOF
)
# shellcheck disable=SC2016 # a literal placeholder
STAGE2=${STAGE2//'$SHARE_9P_OPTS'/$SHARE_9P_OPTS}

# ---------------------------------------------------------------- initramfs
# Sets initrd. Cached per release; the name hashes everything that goes in,
# so a change to the init scripts, busybox or the modules yields a new file.
build_initramfs() {
	local cache=$cache_root/initramfs
	local bb=/bin/busybox mods key out m tmp name
	# (ldd fails on a static binary, hence no pipe into grep under pipefail)
	[[ $(LC_ALL=C ldd "$bb" 2>&1) == *'not a dynamic'* ]] ||
		die "$bb is not static (install busybox-static)"
	# Load order from modprobe; "builtin" lines (6.12) need nothing.
	# With --modules, modprobe reads them through a root of our own.
	local -a dopt=()
	if [[ -n $moddir ]]; then
		mkdir -p "$work/modroot/lib/modules"
		ln -s -- "$moddir" "$work/modroot/lib/modules/$kernel"
		dopt=(-d "$work/modroot")
	fi
	mods=$(modprobe "${dopt[@]}" -S "$kernel" -a --show-depends virtio_pci 9pnet_virtio 9p |
		awk '$1 == "insmod" && !seen[$2]++ { print $2 }')
	key=$({
		printf '%s\n' "$STAGE1" "$STAGE2" "$mods"
		# shellcheck disable=SC2086 # module paths contain no blanks
		cat "$bb" $mods
	} | sha256sum)
	out=$cache/initramfs-$kernel-${key:0:16}.cpio
	initrd=$out
	if [[ -s $out ]]; then
		touch -- "$out"	# in use: keep it from being pruned as old
		return
	fi
	mkdir -p "$cache" || die "cannot create the cache directory $cache (set UMH_CACHE)"
	tmp=$work/initramfs
	mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,lib/modules}
	cp "$bb" "$tmp/bin/busybox"
	printf '%s\n' "$STAGE1" >"$tmp/init"
	printf '%s\n' "$STAGE2" >"$tmp/stage2"
	chmod 755 "$tmp/init"
	# busybox insmod cannot read compressed modules: store them plain.
	for m in $mods; do
		name=${m##*/}
		name=${name%%.ko*}.ko
		case $m in
		*.ko.xz) xz -dc -- "$m" ;;
		*.ko.zst) zstd -qdc -- "$m" ;;
		*.ko.gz) gzip -dc -- "$m" ;;
		*) cat -- "$m" ;;
		esac >"$tmp/lib/modules/$name"
		echo "$name" >>"$tmp/lib/modules/order"
	done
	touch "$tmp/lib/modules/order"
	# Build beside the target, then rename: readers never see half a file.
	initrd_tmp=$(mktemp "$cache/.initramfs-$kernel.XXXXXX")
	(cd "$tmp" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc -R 0:0 --quiet) >"$initrd_tmp"
	chmod 644 "$initrd_tmp"
	mv -f -- "$initrd_tmp" "$out"
	initrd_tmp=''
	# Builds unused for a day are dead weight (a recent one may still be
	# used by another checkout's harness).
	find "$cache" -maxdepth 1 -name "initramfs-*.cpio" -mmin +1440 -delete
}

# ---------------------------------------------------------------- kernel
# Sets kimage. Decompressing Debian's xz bzImage (6.1) under TCG takes
# about 6 of 11 s of boot. Its payload is a plain vmlinux with a PVH entry
# note, which QEMU boots directly, so unpack it once into the cache (keyed
# by the bzImage's hash). A --vmlinuz image is booted as given;
# UMH_GUEST_PVH=0 boots the bzImage too.
pick_kernel_image() {
	local cache=$cache_root/vmlinux
	local key out setup off len magic
	local -a unpack
	kimage=$vmlinuz
	((!vmlinuz_given)) && [[ ${UMH_GUEST_PVH:-1} == 1 ]] || return 0
	grep -qx 'CONFIG_PVH=y' "/boot/config-$kernel" 2>/dev/null || return 0
	key=$(sha256sum <"$vmlinuz")
	out=$cache/vmlinux-$kernel-${key:0:16}
	if [[ -s $out ]]; then
		touch -- "$out"
		kimage=$out
		return 0
	fi
	# The x86 boot protocol (Documentation/arch/x86/boot.rst): setup_sects
	# at 0x1f1; payload_offset and payload_length at 0x248, counted from the
	# protected-mode code after the (setup_sects + 1) sectors. The payload
	# ends with the 4-byte uncompressed size, which is not part of the stream.
	read -r setup < <(od -An -tu1 -j $((0x1f1)) -N 1 "$vmlinuz")
	read -r off len < <(od -An -tu4 -j $((0x248)) -N 8 "$vmlinuz")
	((setup)) || setup=4
	off=$(((setup + 1) * 512 + off))
	magic=$(od -An -tx1 -j "$off" -N 4 "$vmlinuz" | tr -d ' ')
	case $magic in
	fd377a58) unpack=(xz -dc) ;;
	28b52ffd) unpack=(zstd -qdc) ;;
	1f8b*) unpack=(gzip -dc) ;;
	*) return 0 ;;
	esac
	mkdir -p "$cache" || die "cannot create the cache directory $cache (set UMH_CACHE)"
	vmlinux_tmp=$(mktemp "$cache/.vmlinux-$kernel.XXXXXX")
	if dd if="$vmlinuz" bs=64K iflag=skip_bytes,count_bytes skip="$off" \
		count=$((len - 4)) status=none | "${unpack[@]}" >"$vmlinux_tmp" &&
		[[ $(od -An -tx1 -N 4 "$vmlinux_tmp" | tr -d ' ') == 7f454c46 ]]; then
		chmod 644 "$vmlinux_tmp"
		mv -f -- "$vmlinux_tmp" "$out"
		kimage=$out
		find "$cache" -maxdepth 1 -name "vmlinux-*" -mmin +1440 -delete
	else
		echo "guest $kernel: cannot unpack $vmlinuz, booting it as is" >&2
		rm -f -- "$vmlinux_tmp"
	fi
	vmlinux_tmp=''
}

# ---------------------------------------------------------------- boot
work=$(mktemp -d "${TMPDIR:-/tmp}/umh-guest.XXXXXX")
if [[ -z $log ]]; then
	log=$(mktemp --suffix=.log "${TMPDIR:-/tmp}/umh-guest-$kernel.XXXXXX")
	default_log=1
fi
build_initramfs
pick_kernel_image

# What the guest reads from the host: the command script and the shares.
mkdir "$work/share"
if (($# == 1)); then cmd=$1; else cmd=$(printf '%q ' "$@"); fi
{
	printf 'cd -- %q || { echo "guest: the working directory is not visible here (under a guest tmpfs? use --share)" >&2; exit 1; }\n' "$PWD"
	printf '%s\n' "$cmd"
} >"$work/share/cmd.sh"
: >"$work/share/shares"
printf '%s' "$moddir" >"$work/share/modules"
for i in "${!shares[@]}"; do
	printf 'share%d %s\n' "$i" "${shares[i]}" >>"$work/share/shares"
done

# QEMU option values escape a comma by doubling it.
qarg() { printf '%s' "${1//,/,,}"; }

now_us() { now=${EPOCHREALTIME//[!0-9]/}; }

# One boot. Sets outcome to finished (rc in cmd_rc), flake, fatal, crash or
# timeout; streams command output to stdout meanwhile.
boot_once() {
	local fifo=$work/cmdchan line buf='' got ready=0 held='' deadline start now
	local -a qemu
	# shellcheck disable=SC2054 # commas belong to qemu's option syntax
	qemu=(qemu-system-x86_64 -machine accel=tcg -cpu max -smp 2 -m "$mem"
		-nodefaults -display none -no-reboot
		-kernel "$kimage" -initrd "$initrd"
		-append "console=ttyS0 panic=-1 loglevel=4${UMH_GUEST_APPEND:+ $UMH_GUEST_APPEND}"
		-chardev "file,id=con,path=$(qarg "$log")" -serial chardev:con
		-chardev stdio,id=cmd,signal=off -serial chardev:cmd
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
		-virtfs "local,path=$(qarg "$work/share"),mount_tag=umhwork,security_model=none,readonly=on,multidevs=remap")
	for i in "${!shares[@]}"; do
		qemu+=(-virtfs "local,path=$(qarg "${shares[i]}"),mount_tag=share$i,security_model=none,multidevs=remap")
	done
	rm -f "$fifo"
	mkfifo "$fifo"
	now_us
	start=$now
	deadline=$((start + BOOT_DEADLINE * 1000000))
	# qemu's stdout (the ttyS1 chardev) is the FIFO. The forked shell opens
	# it before exec'ing qemu, so our open below cannot block forever.
	# pdeathsig: even a SIGKILL of this script takes qemu down with it.
	setpriv --pdeathsig KILL -- "${qemu[@]}" </dev/null >"$fifo" 2>"$work/qemu.err" &
	qpid=$!
	exec {qfd}<"$fifo"
	outcome=
	while [[ -z $outcome ]]; do
		got=0
		if IFS= read -r -t 1 -u "$qfd" line; then
			line=$buf$line buf='' got=1
		elif (($? > 128)); then
			buf+=$line	# timed out: keep the partial line
		else
			buf+=$line	# EOF: qemu exited
			if ((ready)); then
				printf '%s' "$buf"
				if [[ -n $held ]]; then outcome=finished; else outcome=crash; fi
			else
				outcome=flake
			fi
			break
		fi
		now_us
		if ((got)); then
			if ((!ready)); then
				case $line in
				UMH-GUEST-READY)
					ready=1
					deadline=$((now + timeout * 1000000))
					printf 'guest %s: booted in %d.%ds\n' "$kernel" \
						$(((now - start) / 1000000)) $(((now - start) / 100000 % 10)) >&2 ;;
				UMH-GUEST-FATAL*)
					echo "guest $kernel: ${line#UMH-GUEST-FATAL }" >&2
					outcome=fatal ;;
				esac
			else
				# Hold an EXIT marker back until no more output follows it,
				# in case the command itself printed one.
				if [[ -n $held ]]; then printf '%s\n' "$held"; held=''; fi
				if [[ $line =~ ^(.*)UMH-GUEST-EXIT\ ([0-9]+)$ ]]; then
					printf '%s' "${BASH_REMATCH[1]}"
					held="UMH-GUEST-EXIT ${BASH_REMATCH[2]}"
					cmd_rc=${BASH_REMATCH[2]}
					deadline=$((now + POWEROFF_GRACE * 1000000))
				else
					printf '%s\n' "$line"
				fi
			fi
		fi
		if [[ -z $outcome ]] && ((now > deadline)); then
			if ((!ready)); then outcome=flake
			elif [[ -n $held ]]; then outcome=finished	# ran, but no power-off
			else outcome=timeout; fi
		fi
	done
	exec {qfd}<&-
	kill "$qpid" 2>/dev/null || true
	wait "$qpid" 2>/dev/null || true
	qpid=
}

show_log_tail() {
	keep_log=1
	echo "guest $kernel: last 40 lines of the kernel log ($log):" >&2
	tail -n 40 -- "$log" >&2 || true
	if grep -qv 'terminating on signal' -- "$work/qemu.err" 2>/dev/null; then
		echo "guest $kernel: qemu said:" >&2
		# (our own SIGTERM to qemu is not news)
		grep -v 'terminating on signal' -- "$work/qemu.err" >&2 || true
	fi
}

cmd_rc=
for ((attempt = 1; ; attempt++)); do
	boot_once
	case $outcome in
	finished)
		# Not a failure of the command, but worth a look.
		if grep -qE 'Oops|BUG:|WARNING:|Call Trace' -- "$log"; then
			keep_log=1
			echo "guest $kernel: the kernel log shows an oops, BUG or WARNING (see $log)" >&2
		fi
		exit "$cmd_rc" ;;
	flake)
		if ((attempt >= BOOT_ATTEMPTS)); then
			echo "guest $kernel: died before user space (see $log), giving up after $attempt boots" >&2
			show_log_tail
			exit 125
		fi
		# Keep the evidence of the flake; the next boot rewrites $log.
		# (only $log itself is removed on success or abort)
		mv -f -- "$log" "$log.boot$attempt"
		echo "guest $kernel: died before user space (see $log.boot$attempt), booting again" >&2 ;;
	fatal)
		show_log_tail
		exit 125 ;;
	crash)
		echo "guest $kernel: guest died while the command ran" >&2
		show_log_tail
		exit 126 ;;
	timeout)
		echo "guest $kernel: command timed out after ${timeout}s" >&2
		show_log_tail
		exit 124 ;;
	esac
done
