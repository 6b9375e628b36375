// SPDX-License-Identifier: GPL-2.0
/*
 * Bad for scripts/coccinelle/umh_blob_leak.cocci: the helper is created
 * and started, but three error paths of the init function and the exit
 * function forget umh_blob_destroy().  Lines the rule must report carry
 * the marker "cocci-expect".  Built, never loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/string.h>

#include <umh_sdk/umh_blob.h>

#include "../../../samples/echo_umh/echo_proto.h"

UMH_BLOB_DECLARE(umh_blob_leak_bad);

static struct umh_blob *leak_ub;

static int __init leak_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "leak_bad",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
	};
	struct echo_tag req = {}, rep;
	int ret;

	leak_ub = umh_blob_create(&cfg, /* cocci-expect */
				  UMH_BLOB_DATA(umh_blob_leak_bad),
				  UMH_BLOB_SIZE(umh_blob_leak_bad));
	if (IS_ERR(leak_ub))
		return PTR_ERR(leak_ub);
	ret = umh_blob_start(leak_ub);
	if (ret) {
		pr_err("helper did not start: %d\n", ret);
		return ret; /* cocci-expect */
	}
	strscpy(req.tag, "leak", sizeof(req.tag));
	ret = echo_call_tag(leak_ub, &req, &rep);
	if (ret)
		goto err_stop;
	/* The last step may fail too. */
	return umh_blob_ping(leak_ub, 1000); /* cocci-expect */

err_stop:
	/* Stopping is not destroying: the object and its sysfs view stay. */
	umh_blob_stop(leak_ub);
	return ret; /* cocci-expect */
}

static void __exit leak_exit(void)
{
	umh_blob_stop(leak_ub);
}

module_init(leak_init);
module_exit(leak_exit);
MODULE_DESCRIPTION("umh-sdk lint test: a leaked helper (must be reported)");
MODULE_LICENSE("GPL");
