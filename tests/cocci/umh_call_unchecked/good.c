// SPDX-License-Identifier: GPL-2.0
/*
 * Good for scripts/coccinelle/umh_call_unchecked.cocci: every result of
 * umh_blob_start(), of a typed call and of umh_blob_call() is checked,
 * propagated or explicitly discarded.  Built, never loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/string.h>

#include <umh_sdk/umh_blob.h>

#include "../../../samples/echo_umh/echo_proto.h"

UMH_BLOB_DECLARE(umh_call_unchecked_good);

static struct umh_blob *unchecked_ub;

struct unchecked_ctx {
	struct umh_blob *ub;
	unsigned int timeout_ms;
};

static struct unchecked_ctx unchecked_ctx;

static int unchecked_add(s64 a, s64 b, s64 *sum)
{
	struct echo_add req = { .a = a, .b = b };
	struct echo_sum rep;
	int ret;

	ret = echo_call_add(unchecked_ub, &req, &rep);
	if (ret)
		return ret;
	ret = echo_call_add_tmo(unchecked_ctx.ub, &req, &rep,
				unchecked_ctx.timeout_ms);
	if (ret)
		return ret;
	*sum = rep.sum;
	return 0;
}

static int unchecked_set_tag(const char *tag)
{
	struct echo_tag req = {}, rep;

	strscpy(req.tag, tag, sizeof(req.tag));
	/* Propagated to the caller. */
	return echo_call_tag(unchecked_ub, &req, &rep);
}

static int unchecked_ping(void)
{
	struct echo_ping req = { .cookie = 1 };
	struct echo_pong rep;
	int ret, i;

	/* Retried until it works: every result is looked at. */
	for (i = 0, ret = -EAGAIN; i < 3 && ret; i++)
		ret = echo_call_ping(unchecked_ub, &req, &rep);
	if (ret)
		return ret;
	if (rep.cookie != req.cookie)
		return -EPROTO;
	/* A best-effort wake-up whose outcome really does not matter. */
	(void)umh_blob_call(unchecked_ub, ECHO_OP_PING, &req, sizeof(req),
			    &rep, sizeof(rep), NULL, 0);
	return umh_blob_ping(unchecked_ub, 1000) ? -EIO : 0;
}

static int __init unchecked_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "unchecked_good",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
	};
	s64 sum;
	int ret;

	unchecked_ub = umh_blob_create(&cfg,
				       UMH_BLOB_DATA(umh_call_unchecked_good),
				       UMH_BLOB_SIZE(umh_call_unchecked_good));
	if (IS_ERR(unchecked_ub))
		return PTR_ERR(unchecked_ub);
	unchecked_ctx.ub = unchecked_ub;
	unchecked_ctx.timeout_ms = 500;
	ret = umh_blob_start(unchecked_ub);
	if (ret)
		goto err;
	ret = unchecked_ping();
	if (ret)
		goto err;
	ret = unchecked_set_tag("unchecked");
	if (ret < 0)
		goto err;
	ret = unchecked_add(1, 2, &sum);
	if (ret)
		goto err;
	pr_info("1 + 2 = %lld\n", sum);
	return 0;
err:
	umh_blob_destroy(unchecked_ub);
	return ret;
}

static void __exit unchecked_exit(void)
{
	umh_blob_destroy(unchecked_ub);
}

module_init(unchecked_init);
module_exit(unchecked_exit);
MODULE_DESCRIPTION("umh-sdk lint test: every call checked");
MODULE_LICENSE("GPL");
