/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The echo sample's protocol, declared once for the module and the helper.
 */
#ifndef _ECHO_PROTO_H
#define _ECHO_PROTO_H

#include <umh_sdk/rpc.h>

#define ECHO_PROTO_ID		0x4f484345U	/* "ECHO" */
#define ECHO_PROTO_VERSION	1
#define ECHO_MAX		(1U << 20)	/* echo carries up to 1 MiB */

enum echo_op {
	ECHO_OP_PING = 1,
	ECHO_OP_ADD = 2,
	ECHO_OP_ECHO = 3,
	ECHO_OP_SLEEP = 4,
	ECHO_OP_SINK = 5,
	ECHO_OP_TAG = 6,
};

#define ECHO_TAG_LEN		16

/* ping: is the helper there, and who is it? */
struct echo_ping {
	__u32 cookie;
	__u32 pad;
};

struct echo_pong {
	__u32 cookie;		/* the request's cookie */
	__u32 pid;		/* the helper's getpid() */
	__u64 served;		/* requests this helper process served */
	char tag[ECHO_TAG_LEN];	/* the helper's state: the last tag set */
};

/* add: a fixed request and a fixed reply */
struct echo_add {
	__s64 a;
	__s64 b;
};

struct echo_sum {
	__s64 sum;
};

/* sleep: answer after @ms milliseconds (makes a helper "hang" on demand) */
struct echo_sleep {
	__u32 ms;
	__u32 pad;
};

/* tag: set the helper's state (the module replays it into new helpers) */
struct echo_tag {
	char tag[ECHO_TAG_LEN];
};

/* sink: swallow up to the channel's payload cap, return length and sum */
struct echo_sink_rep {
	__u64 len;
	__u64 sum;
};

#define ECHO_OPS(OP)							\
	OP(echo, ping, ECHO_OP_PING, UMH_FIXED(struct echo_ping),	\
	   UMH_FIXED(struct echo_pong))					\
	OP(echo, add, ECHO_OP_ADD, UMH_FIXED(struct echo_add),		\
	   UMH_FIXED(struct echo_sum))					\
	OP(echo, echo, ECHO_OP_ECHO, UMH_VAR(ECHO_MAX), UMH_VAR(ECHO_MAX)) \
	OP(echo, sleep, ECHO_OP_SLEEP, UMH_FIXED(struct echo_sleep),	\
	   UMH_FIXED(struct echo_sleep))				\
	OP(echo, sink, ECHO_OP_SINK, UMH_VAR(UMH_DEFAULT_MAX_PAYLOAD),	\
	   UMH_FIXED(struct echo_sink_rep))				\
	OP(echo, tag, ECHO_OP_TAG, UMH_FIXED(struct echo_tag),		\
	   UMH_FIXED(struct echo_tag))

UMH_PROTO_DEFINE(echo, ECHO_PROTO_ID, ECHO_PROTO_VERSION, ECHO_OPS)

#endif /* _ECHO_PROTO_H */
