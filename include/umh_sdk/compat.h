/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel version differences the SDK meets, in one place.
 *
 * Supported: Linux 6.1 to 6.12 as Debian ships them.  Every other file uses
 * these wrappers instead of its own #if on LINUX_VERSION_CODE.
 */
#ifndef _UMH_SDK_COMPAT_H
#define _UMH_SDK_COMPAT_H

#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "umh-sdk needs Linux 6.1 or later"
#endif

#ifdef CONFIG_STATIC_USERMODEHELPER
/*
 * With a static usermode helper every call_usermodehelper() execs one fixed
 * program instead of the path given, so an embedded blob cannot be run.
 */
#error "umh-sdk cannot work with CONFIG_STATIC_USERMODEHELPER"
#endif

/* 6.3 replaced the user namespace argument of the vfs_*() calls by an idmap. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
#define UMH_NOP_IDMAP	(&init_user_ns)
#else
#define UMH_NOP_IDMAP	(&nop_mnt_idmap)
#endif

/**
 * umh_compat_mknod() - vfs_mknod() without an idmap
 * @dir:	parent directory inode, locked
 * @dentry:	negative dentry to create
 * @mode:	file type and permissions
 *
 * Return: 0 or a negative errno, as vfs_mknod().
 */
static inline int umh_compat_mknod(struct inode *dir, struct dentry *dentry,
				   umode_t mode)
{
	return vfs_mknod(UMH_NOP_IDMAP, dir, dentry, mode, 0);
}

/**
 * umh_compat_unlink() - vfs_unlink() without an idmap or delegation
 * @dir:	parent directory inode, locked
 * @dentry:	dentry to unlink
 *
 * Return: 0 or a negative errno, as vfs_unlink().
 */
static inline int umh_compat_unlink(struct inode *dir, struct dentry *dentry)
{
	return vfs_unlink(UMH_NOP_IDMAP, dir, dentry, NULL);
}

/*
 * BPF from a module (the bpfilter sample's data plane).  kern_sys_bpf() is
 * exported on every supported kernel but declared in no kernel header;
 * this is its definition's signature (kernel/bpf/syscall.c).  6.12.y
 * (backported from 6.15) puts it, bpf_map_get() and bpf_link_get_from_fd()
 * in the BPF_INTERNAL symbol namespace, which a user must import (harmless
 * where the symbols carry no namespace); 6.13 made MODULE_IMPORT_NS() take
 * a string.
 */
union bpf_attr;
int kern_sys_bpf(int cmd, union bpf_attr *attr, unsigned int size);

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define UMH_IMPORT_NS_BPF_INTERNAL()	MODULE_IMPORT_NS(BPF_INTERNAL)
#else
#define UMH_IMPORT_NS_BPF_INTERNAL()	MODULE_IMPORT_NS("BPF_INTERNAL")
#endif

#endif /* _UMH_SDK_COMPAT_H */
