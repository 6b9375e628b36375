// SPDX-License-Identifier: GPL-2.0
/*
 * bench_pad: a module with 768 KiB of init-only read-only data and nothing
 * else, about the size of the static glibc echo helper that the echo
 * module carries in .init.rodata.  Its insmod is the module loader's cost
 * for a module that big, without starting anything.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/module.h>

#define BENCH_PAD_BYTES	(768 * 1024)

static const char bench_pad[BENCH_PAD_BYTES] __initconst = { 1 };

static int __init bench_pad_init(void)
{
	/* A volatile read: the array must exist, with its bytes. */
	return READ_ONCE(bench_pad[0]) == 1 ? 0 : -EINVAL;
}

static void __exit bench_pad_exit(void)
{
}

module_init(bench_pad_init);
module_exit(bench_pad_exit);
MODULE_DESCRIPTION("umh-sdk benchmark baseline: 768 KiB of init data");
MODULE_LICENSE("GPL");
