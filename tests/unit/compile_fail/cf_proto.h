/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The protocol the compile-fail cases implement (one of each kind pair). */
#ifndef CF_PROTO_H
#define CF_PROTO_H

#include <umh_sdk/rpc.h>

struct cf_ping {
	__u32 cookie;
};

struct cf_pong {
	__u32 cookie;
	__u32 pid;
};

struct cf_add {
	__s64 a, b;
};

#define CF_OPS(OP)							\
	OP(cf, ping, 1, UMH_FIXED(struct cf_ping), UMH_FIXED(struct cf_pong)) \
	OP(cf, get, 2, UMH_FIXED(struct cf_ping), UMH_VAR(64))		\
	OP(cf, sum, 3, UMH_VAR(64), UMH_FIXED(struct cf_pong))		\
	OP(cf, echo, 4, UMH_VAR(64), UMH_VAR(64))

UMH_PROTO_DEFINE(cf, 0x43465054U, 1, CF_OPS)

#endif
