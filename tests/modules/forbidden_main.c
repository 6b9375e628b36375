// SPDX-License-Identifier: GPL-2.0
/*
 * forbidden: a module whose helper breaks its sandbox on demand.  Init
 * makes one call per forbidden action and checks that the helper died
 * (the call fails with -ECONNRESET) and that a fresh helper answers
 * afterwards.  insmod succeeds only if every case held; the guest test
 * then checks dmesg and the sandbox_kills counter (5: the abort() control
 * is no sandbox kill).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include <umh_sdk/umh_blob.h>

#include "forbidden.h"

UMH_BLOB_DECLARE(forbidden);

static struct umh_blob *ub;

static const struct {
	s64 action;
	const char *what;
} forbidden_cases[] = {
	{ FORBID_OPEN, "open(/etc/shadow)" },
	{ FORBID_EXEC, "execve(/bin/sh)" },
	{ FORBID_MMAP_EXEC, "mmap(PROT_EXEC)" },
	{ FORBID_KILL_INIT, "kill(1, 0)" },
	{ FORBID_SOCKET, "socket(AF_INET)" },
	{ FORBID_ABORT, "abort() (control)" },
};

static int forbidden_run(void)
{
	struct echo_ping ping = {};
	struct echo_pong pong;
	struct echo_add req = {};
	struct echo_sum rep;
	int i, ret, bad = 0;
	pid_t before;

	for (i = 0; i < ARRAY_SIZE(forbidden_cases); i++) {
		before = umh_blob_pid(ub);
		req.a = forbidden_cases[i].action;
		ret = echo_call_add_tmo(ub, &req, &rep, 5000);
		if (ret != -ECONNRESET) {
			pr_err("case %s: got %d, expected -ECONNRESET\n",
			       forbidden_cases[i].what, ret);
			bad++;
		}
		/* The next helper must answer normally. */
		ret = echo_call_ping_tmo(ub, &ping, &pong, 5000);
		if (ret || pong.pid == before) {
			pr_err("case %s: no fresh helper afterwards: %d (pid %u, was %d)\n",
			       forbidden_cases[i].what, ret, pong.pid, before);
			bad++;
		}
	}
	pr_info("%d of %zu forbidden cases handled\n",
		(int)ARRAY_SIZE(forbidden_cases) - bad,
		ARRAY_SIZE(forbidden_cases));
	return bad ? -EINVAL : 0;
}

static int __init forbidden_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "forbidden",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
		.max_restarts = 20,
		.backoff_min_ms = 10,
		.backoff_max_ms = 50,
	};
	int ret;

	ub = umh_blob_create(&cfg, UMH_BLOB_DATA(forbidden),
			     UMH_BLOB_SIZE(forbidden));
	if (IS_ERR(ub))
		return PTR_ERR(ub);
	ret = umh_blob_start(ub);
	if (!ret)
		ret = forbidden_run();
	if (ret)
		umh_blob_destroy(ub);
	return ret;
}

static void __exit forbidden_exit(void)
{
	umh_blob_destroy(ub);
}

module_init(forbidden_init);
module_exit(forbidden_exit);
MODULE_LICENSE("GPL");
