// SPDX-License-Identifier: GPL-2.0
/*
 * Bad for scripts/coccinelle/umh_reply_after_error.cocci: replies read on
 * the path where the call that should have filled them failed.  Lines the
 * rule must report carry the marker "cocci-expect".  Built, never loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <umh_sdk/umh_blob.h>

#include "../../../samples/echo_umh/echo_proto.h"

UMH_BLOB_DECLARE(umh_reply_after_error_bad);

static struct umh_blob *reply_ub;

/* The error branch logs what the helper "said". */
static int reply_add(s64 a, s64 b, s64 *sum)
{
	struct echo_add req = { .a = a, .b = b };
	struct echo_sum rep;
	int ret;

	ret = echo_call_add(reply_ub, &req, &rep);
	if (ret) {
		pr_err("add failed (%d), partial sum %lld\n", ret,
		       rep.sum); /* cocci-expect */
		return ret;
	}
	*sum = rep.sum;
	return 0;
}

/* The reply is used on the shared exit path, reached by the error goto. */
static int reply_echo(const char *msg, size_t len, char *out, size_t cap)
{
	size_t rep_len = 0;
	void *buf;
	int ret;

	buf = kmemdup(msg, len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = echo_call_echo_tmo(reply_ub, buf, len, buf, len, &rep_len, 100);
	if (ret < 0)
		goto out;
	ret = 0;
out:
	memcpy(out, buf, min(rep_len, cap)); /* cocci-expect */
	kfree(buf);
	return ret;
}

/* A call tested in place, its reply used in the failure branch. */
static u32 reply_pid(void)
{
	struct echo_ping req = { .cookie = 7 };
	struct echo_pong rep;

	if (echo_call_ping(reply_ub, &req, &rep) != 0)
		return rep.pid; /* cocci-expect */
	return rep.pid;
}

/* The success test, and the reply used in its else branch. */
static void reply_tag(char *tag)
{
	struct echo_tag req = {}, rep;
	int ret;

	strscpy(req.tag, "reply", sizeof(req.tag));
	ret = umh_blob_call(reply_ub, ECHO_OP_TAG, &req, sizeof(req),
			    &rep, sizeof(rep), NULL, 0);
	if (!ret)
		memcpy(tag, rep.tag, ECHO_TAG_LEN);
	else
		memcpy(tag, rep.tag, ECHO_TAG_LEN); /* cocci-expect */
}

/* The result is not even looked at. */
static s64 reply_sum(void)
{
	struct echo_add req = { .a = 40, .b = 2 };
	struct echo_sum rep;

	echo_call_add(reply_ub, &req, &rep);
	return rep.sum; /* cocci-expect */
}

static int __init reply_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "reply_bad",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
	};
	char tag[ECHO_TAG_LEN], echo[8];
	s64 sum;
	int ret;

	reply_ub = umh_blob_create(&cfg,
				   UMH_BLOB_DATA(umh_reply_after_error_bad),
				   UMH_BLOB_SIZE(umh_reply_after_error_bad));
	if (IS_ERR(reply_ub))
		return PTR_ERR(reply_ub);
	ret = umh_blob_start(reply_ub);
	if (!ret)
		ret = reply_add(1, 2, &sum);
	if (!ret)
		ret = reply_echo("hello", 5, echo, sizeof(echo));
	if (ret) {
		umh_blob_destroy(reply_ub);
		return ret;
	}
	reply_tag(tag);
	pr_info("helper %u, tag %.*s, sum %lld\n", reply_pid(), ECHO_TAG_LEN,
		tag, reply_sum());
	return 0;
}

static void __exit reply_exit(void)
{
	umh_blob_destroy(reply_ub);
}

module_init(reply_init);
module_exit(reply_exit);
MODULE_DESCRIPTION("umh-sdk lint test: replies read after errors (must be reported)");
MODULE_LICENSE("GPL");
