// SPDX-License-Identifier: GPL-2.0
/*
 * Good for scripts/coccinelle/umh_reply_after_error.cocci: replies are
 * read only once their call returned 0; error paths look at the error,
 * free buffers or retry the call.  Built, never loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <umh_sdk/umh_blob.h>

#include "../../../samples/echo_umh/echo_proto.h"

UMH_BLOB_DECLARE(umh_reply_after_error_good);

static struct umh_blob *reply_ub;

static int reply_add(s64 a, s64 b, s64 *sum)
{
	struct echo_add req = { .a = a, .b = b };
	struct echo_sum rep;
	int ret;

	ret = echo_call_add(reply_ub, &req, &rep);
	if (ret) {
		pr_err("add failed: %d\n", ret);
		return ret;
	}
	*sum = rep.sum;
	return 0;
}

/* The error path frees the buffer the reply went to, and nothing else. */
static int reply_echo(const char *msg, size_t len, char *out, size_t cap)
{
	size_t rep_len;
	void *buf;
	int ret;

	buf = kmemdup(msg, len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = echo_call_echo_tmo(reply_ub, buf, len, buf, len, &rep_len, 100);
	if (ret < 0)
		goto out;
	memcpy(out, buf, min(rep_len, cap));
	ret = 0;
out:
	kfree(buf);
	return ret;
}

/* A retry: the reply read after the loop is the last, successful one. */
static int reply_pid(u32 *pid)
{
	struct echo_ping req = { .cookie = 7 };
	struct echo_pong rep;
	int tries = 3, ret;

retry:
	ret = echo_call_ping(reply_ub, &req, &rep);
	if (ret == -ETIMEDOUT && --tries)
		goto retry;
	if (ret)
		return ret;
	if (rep.cookie != req.cookie)
		return -EPROTO;
	*pid = rep.pid;
	return 0;
}

/* Success tested first; the error branch resets the reply, then uses it. */
static void reply_tag(char *tag)
{
	struct echo_tag req = {}, rep;
	int ret;

	strscpy(req.tag, "reply", sizeof(req.tag));
	ret = umh_blob_call(reply_ub, ECHO_OP_TAG, &req, sizeof(req),
			    &rep, sizeof(rep), NULL, 0);
	if (!ret) {
		memcpy(tag, rep.tag, ECHO_TAG_LEN);
	} else {
		memset(&rep, 0, sizeof(rep));
		memcpy(tag, rep.tag, ECHO_TAG_LEN);
	}
}

/* Tested in place: the reply is read on the success side only. */
static s64 reply_sum(void)
{
	struct echo_add req = { .a = 40, .b = 2 };
	struct echo_sum rep;

	if (echo_call_add(reply_ub, &req, &rep))
		return 0;
	return rep.sum;
}

static int __init reply_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "reply_good",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
	};
	char tag[ECHO_TAG_LEN], echo[8];
	u32 pid = 0;
	s64 sum;
	int ret;

	reply_ub = umh_blob_create(&cfg,
				   UMH_BLOB_DATA(umh_reply_after_error_good),
				   UMH_BLOB_SIZE(umh_reply_after_error_good));
	if (IS_ERR(reply_ub))
		return PTR_ERR(reply_ub);
	ret = umh_blob_start(reply_ub);
	if (!ret)
		ret = reply_add(1, 2, &sum);
	if (!ret)
		ret = reply_echo("hello", 5, echo, sizeof(echo));
	if (!ret)
		ret = reply_pid(&pid);
	if (ret) {
		umh_blob_destroy(reply_ub);
		return ret;
	}
	reply_tag(tag);
	pr_info("helper %u, tag %.*s, sum %lld\n", pid, ECHO_TAG_LEN, tag,
		reply_sum());
	return 0;
}

static void __exit reply_exit(void)
{
	umh_blob_destroy(reply_ub);
}

module_init(reply_init);
module_exit(reply_exit);
MODULE_DESCRIPTION("umh-sdk lint test: replies read only after success");
MODULE_LICENSE("GPL");
