// SPDX-License-Identifier: GPL-2.0
/*
 * Good for scripts/coccinelle/umh_blob_leak.cocci: every error path after
 * umh_blob_create() and the exit function destroy the helper, once
 * directly and once through a teardown function.  Built, never loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/string.h>

#include <umh_sdk/umh_blob.h>

#include "../../../samples/echo_umh/echo_proto.h"

UMH_BLOB_DECLARE(umh_blob_leak_good);

static struct umh_blob *leak_ub;
static struct umh_blob *spare_ub;

static void leak_teardown(void)
{
	umh_blob_destroy(spare_ub);
	umh_blob_destroy(leak_ub);
}

static int __init leak_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "leak_good",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
	};
	const struct umh_blob_config spare_cfg = {
		.name = "leak_good_spare",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
	};
	struct echo_tag req = {}, rep;
	int ret;

	leak_ub = umh_blob_create(&cfg, UMH_BLOB_DATA(umh_blob_leak_good),
				  UMH_BLOB_SIZE(umh_blob_leak_good));
	if (IS_ERR(leak_ub))
		return PTR_ERR(leak_ub);
	ret = umh_blob_start(leak_ub);
	if (ret) {
		pr_err("helper did not start: %d\n", ret);
		umh_blob_destroy(leak_ub);
		return ret;
	}
	strscpy(req.tag, "leak", sizeof(req.tag));
	ret = echo_call_tag(leak_ub, &req, &rep);
	if (ret)
		goto err_destroy;

	/* A second helper from the same blob, not started until needed. */
	spare_ub = umh_blob_create(&spare_cfg,
				   UMH_BLOB_DATA(umh_blob_leak_good),
				   UMH_BLOB_SIZE(umh_blob_leak_good));
	if (IS_ERR(spare_ub)) {
		ret = PTR_ERR(spare_ub);
		goto err_destroy;
	}
	ret = umh_blob_ping(leak_ub, 1000);
	if (ret) {
		leak_teardown();
		return ret;
	}
	return 0;

err_destroy:
	umh_blob_destroy(leak_ub);
	return ret;
}

static void __exit leak_exit(void)
{
	leak_teardown();
}

module_init(leak_init);
module_exit(leak_exit);
MODULE_DESCRIPTION("umh-sdk lint test: helpers destroyed on every path");
MODULE_LICENSE("GPL");
