/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The tutorial's protocol (Documentation/tutorial.rst), declared once for
 * the module and for its helper.
 */
#ifndef _HELLO_PROTO_H
#define _HELLO_PROTO_H

#include <umh_sdk/rpc.h>

#define HELLO_PROTO_ID		0x4f4c4548U	/* "HELO" */
#define HELLO_PROTO_VERSION	1

#define HELLO_NAME_MAX		64		/* bytes of a name */
#define HELLO_GREETING_MAX	(HELLO_NAME_MAX + 16)

enum hello_op {
	HELLO_OP_GREET = 1,
	HELLO_OP_COUNT = 2,
};

/* count: add @step to the helper's counter; the reply is the new total */
struct hello_count {
	__u32 step;
	__u32 pad;
};

struct hello_total {
	__u64 total;
};

/* greet: a name in (0 to 64 bytes), a greeting out (up to 80 bytes) */
#define HELLO_OPS(OP)							\
	OP(hello, greet, HELLO_OP_GREET, UMH_VAR(HELLO_NAME_MAX),	\
	   UMH_VAR(HELLO_GREETING_MAX))					\
	OP(hello, count, HELLO_OP_COUNT, UMH_FIXED(struct hello_count),	\
	   UMH_FIXED(struct hello_total))

UMH_PROTO_DEFINE(hello, HELLO_PROTO_ID, HELLO_PROTO_VERSION, HELLO_OPS)

#endif /* _HELLO_PROTO_H */
