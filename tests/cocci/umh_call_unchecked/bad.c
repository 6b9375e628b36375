// SPDX-License-Identifier: GPL-2.0
/*
 * Bad for scripts/coccinelle/umh_call_unchecked.cocci: results of
 * umh_blob_start(), of typed calls and of umh_blob_call() that nobody
 * looks at.  Lines the rule must report carry the marker "cocci-expect".
 * Built, never loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/string.h>

#include <umh_sdk/umh_blob.h>

#include "../../../samples/echo_umh/echo_proto.h"

UMH_BLOB_DECLARE(umh_call_unchecked_bad);

static struct umh_blob *unchecked_ub;

static s64 unchecked_add(s64 a, s64 b)
{
	struct echo_add req = { .a = a, .b = b };
	struct echo_sum rep = {};
	int ret;

	/* Stored, then overwritten before anyone looked at it. */
	ret = echo_call_add(unchecked_ub, &req, &rep); /* cocci-expect */
	ret = echo_call_add_tmo(unchecked_ub, &req, &rep, 100);
	if (ret)
		return 0;
	return rep.sum;
}

static void unchecked_set_tag(const char *tag)
{
	struct echo_tag req = {}, rep;
	int ret;

	ret = umh_blob_ping(unchecked_ub, 100);
	if (ret)
		return;
	strscpy(req.tag, tag, sizeof(req.tag));
	/* Stored, and never looked at again. */
	ret = echo_call_tag(unchecked_ub, &req, &rep); /* cocci-expect */
}

static void unchecked_ping(void)
{
	struct echo_ping req = { .cookie = 1 };
	struct echo_pong rep;

	echo_call_ping(unchecked_ub, &req, &rep); /* cocci-expect */
	umh_blob_call(unchecked_ub, ECHO_OP_PING, &req, sizeof(req), /* cocci-expect */
		      &rep, sizeof(rep), NULL, 0);
}

static int __init unchecked_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "unchecked_bad",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
	};

	unchecked_ub = umh_blob_create(&cfg,
				       UMH_BLOB_DATA(umh_call_unchecked_bad),
				       UMH_BLOB_SIZE(umh_call_unchecked_bad));
	if (IS_ERR(unchecked_ub))
		return PTR_ERR(unchecked_ub);
	umh_blob_start(unchecked_ub); /* cocci-expect */
	unchecked_ping();
	unchecked_set_tag("unchecked");
	pr_info("1 + 2 = %lld\n", unchecked_add(1, 2));
	return 0;
}

static void __exit unchecked_exit(void)
{
	umh_blob_destroy(unchecked_ub);
}

module_init(unchecked_init);
module_exit(unchecked_exit);
MODULE_DESCRIPTION("umh-sdk lint test: unchecked calls (must be reported)");
MODULE_LICENSE("GPL");
