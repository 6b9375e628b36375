// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: a module whose helper breaks the protocol on demand.  Its init
 * makes one call per misbehaviour and checks that each is refused with the
 * right error, counted as a violation (or timeout) and followed by a fresh
 * helper that answers.  insmod succeeds only if every case held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <umh_sdk/umh_blob.h>

#include "../../samples/echo_umh/echo_proto.h"

UMH_BLOB_DECLARE(hostile);

static struct umh_blob *ub;

static const struct {
	u32 cookie;
	int err;
	const char *what;
} hostile_cases[] = {
	{ 1, -EPROTO, "reply to a request never made" },
	{ 2, -EPROTO, "garbage header" },
	{ 3, -EPROTO, "2 GiB payload announced" },
	{ 4, -EPROTO, "fixed reply of the wrong size" },
	{ 5, -EPROTO, "kernel-internal errno as status" },
	{ 6, -EPIPE, "half a header, then exit" },
	{ 7, -ETIMEDOUT, "half a payload, then silence" },
};

static int hostile_run(void)
{
	struct echo_ping req = {};
	struct echo_pong rep;
	int i, ret, bad = 0;

	for (i = 0; i < ARRAY_SIZE(hostile_cases); i++) {
		req.cookie = hostile_cases[i].cookie;
		ret = echo_call_ping_tmo(ub, &req, &rep, 1000);
		if (ret != hostile_cases[i].err) {
			pr_err("case %u (%s): got %d, expected %d\n",
			       req.cookie, hostile_cases[i].what, ret,
			       hostile_cases[i].err);
			bad++;
		}
		/* The next helper must answer normally. */
		req.cookie = 0;
		ret = echo_call_ping_tmo(ub, &req, &rep, 5000);
		if (ret) {
			pr_err("case %u: no working helper afterwards: %d\n",
			       hostile_cases[i].cookie, ret);
			bad++;
		}
	}
	pr_info("%d of %zu hostile cases handled\n",
		(int)ARRAY_SIZE(hostile_cases) - bad, ARRAY_SIZE(hostile_cases));
	return bad ? -EINVAL : 0;
}

static int __init hostile_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "hostile",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
		.max_restarts = 20,
		.backoff_min_ms = 10,
		.backoff_max_ms = 50,
	};
	int ret;

	ub = umh_blob_create(&cfg, UMH_BLOB_DATA(hostile),
			     UMH_BLOB_SIZE(hostile));
	if (IS_ERR(ub))
		return PTR_ERR(ub);
	ret = umh_blob_start(ub);
	if (!ret)
		ret = hostile_run();
	if (ret)
		umh_blob_destroy(ub);
	return ret;
}

static void __exit hostile_exit(void)
{
	umh_blob_destroy(ub);
}

module_init(hostile_init);
module_exit(hostile_exit);
MODULE_LICENSE("GPL");
