#!/bin/bash
# kernels.sh - the guest kernel releases to test against, one per line, 6.1
# first: the newest /boot/vmlinuz-6.1.* and the newest /boot/vmlinuz-6.12.*
# whose headers are installed (/lib/modules/<release>/build).
# Run it, or source it and call umh_kernels (sourcing sets no shell options).

umh_kernels() {
	local v k61='' k612=''
	# Ascending version order, so the last match of each series wins.
	while read -r v; do
		if [[ $v =~ ^6\.1\.[0-9]+-[0-9]+-amd64$ ]]; then
			k61=$v
		elif [[ $v =~ ^6\.12\.[0-9]+\+[a-z0-9.]+-amd64$ && -d /lib/modules/$v/build ]]; then
			k612=$v
		fi
	done < <(printf '%s\n' /boot/vmlinuz-6.1* | sed 's|^/boot/vmlinuz-||' | sort -V)
	if [[ -z $k61 || -z $k612 ]]; then
		echo "kernels.sh: need a 6.1 and a 6.12 kernel (with headers) in /boot; run scripts/setup.sh" >&2
		return 1
	fi
	printf '%s\n' "$k61" "$k612"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -euo pipefail
	umh_kernels
fi
