/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test modules that embed a helper which must fail to start.  Each
 * <name>_main.c defines TEST_BLOB and includes this file; insmod must fail
 * with a clear -errno and a dmesg line that says why.
 */
#include <linux/module.h>
#include <linux/stringify.h>

#include <umh_sdk/umh_blob.h>

#include "../../samples/echo_umh/echo_proto.h"

UMH_BLOB_DECLARE(TEST_BLOB);

static unsigned int start_timeout_ms = 1000;
module_param(start_timeout_ms, uint, 0444);

static struct umh_blob *ub;

static int __init testmod_init(void)
{
	const struct umh_blob_config cfg = {
		.name = __stringify(TEST_BLOB),
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
		.start_timeout_ms = start_timeout_ms,
	};
	int ret;

	ub = umh_blob_create(&cfg, UMH_BLOB_DATA(TEST_BLOB),
			     UMH_BLOB_SIZE(TEST_BLOB));
	if (IS_ERR(ub))
		return PTR_ERR(ub);
	ret = umh_blob_start(ub);
	if (ret)
		umh_blob_destroy(ub);
	return ret;
}

static void __exit testmod_exit(void)
{
	umh_blob_destroy(ub);
}

module_init(testmod_init);
module_exit(testmod_exit);
MODULE_LICENSE("GPL");
