// SPDX-License-Identifier: GPL-2.0
/*
 * Must NOT compile: a typed call given the request struct of another op.
 * tests/kbuild/run.sh checks that the kernel build rejects it.
 */
#include <linux/module.h>

#include <umh_sdk/umh_blob.h>

#include "../../../samples/echo_umh/echo_proto.h"

int wrong_type_call(struct umh_blob *ub);

int wrong_type_call(struct umh_blob *ub)
{
	struct echo_add req = { .a = 1, .b = 2 };	/* belongs to "add" */
	struct echo_pong rep;

	return echo_call_ping(ub, &req, &rep);
}

MODULE_LICENSE("GPL");
