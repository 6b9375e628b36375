// SPDX-License-Identifier: GPL-2.0
/*
 * echo_boot: the echo helper, started during boot, before init runs.
 *
 * Built in only (Kconfig SAMPLE_UMH_ECHO_BOOT).  An initcall starts the
 * helper that echo_umh carries and calls it, so the boot log shows the
 * helper answering before "Run /init as init process".  The helper then
 * stays up; its status view is /sys/kernel/umh_echo_boot/.  It is a
 * sample of its own, not echo_umh built in, so that a kernel can have
 * both: echo_umh.ko (whose /dev/echo_umh the tests use) keeps its names.
 * Documentation/in-tree.rst has the boot-time start path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>

#include <umh_sdk/umh_blob.h>

#include "echo_proto.h"

UMH_BLOB_DECLARE(echo_boot);

static int __init echo_boot_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "echo_boot",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
	};
	struct echo_ping req = { .cookie = 0x626f6f74 };	/* "boot" */
	struct echo_pong rep;
	struct umh_blob *ub;
	int ret;

	ub = umh_blob_create(&cfg, UMH_BLOB_DATA(echo_boot),
			     UMH_BLOB_SIZE(echo_boot));
	if (IS_ERR(ub))
		return PTR_ERR(ub);
	ret = umh_blob_start(ub);
	if (!ret)
		ret = echo_call_ping(ub, &req, &rep);
	if (!ret && rep.cookie != req.cookie)
		ret = -EPROTO;
	if (ret) {
		pr_err("the helper did not answer at boot: %d\n", ret);
		umh_blob_destroy(ub);
		return ret;
	}
	pr_info("helper pid %u answered a ping during boot\n", rep.pid);
	return 0;
}
late_initcall(echo_boot_init);
