// SPDX-License-Identifier: GPL-2.0
/*
 * bench_nop: a module that does nothing.  Its insmod is what loading any
 * module costs, the baseline under the echo module's start figure.
 */
#include <linux/init.h>
#include <linux/module.h>

static int __init bench_nop_init(void)
{
	return 0;
}

static void __exit bench_nop_exit(void)
{
}

module_init(bench_nop_init);
module_exit(bench_nop_exit);
MODULE_DESCRIPTION("umh-sdk benchmark baseline: an empty module");
MODULE_LICENSE("GPL");
