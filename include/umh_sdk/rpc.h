/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * umh-sdk typed RPC: a protocol declares each operation once and both sides
 * are derived from that one declaration.
 *
 * A protocol header lists its operations in an X-macro, each with its op
 * number, its request and its reply, every side either a fixed C type or a
 * variable-length byte buffer with a maximum size::
 *
 *	#define ECHO_OPS(OP)						\
 *		OP(echo, ping, ECHO_OP_PING, UMH_FIXED(struct echo_ping), \
 *		   UMH_FIXED(struct echo_pong))				\
 *		OP(echo, echo, ECHO_OP_ECHO, UMH_VAR(ECHO_MAX),		\
 *		   UMH_VAR(ECHO_MAX))
 *	UMH_PROTO_DEFINE(echo, ECHO_PROTO_ID, 1, ECHO_OPS)
 *
 * Each entry repeats the protocol prefix (echo) because an X-macro callback
 * sees nothing but its arguments.
 *
 * UMH_PROTO_DEFINE() emits the table that both sides validate frames with
 * (echo_umh_proto) and, in the kernel, one typed call function per op:
 * echo_call_ping(ub, &req, &rep) and echo_call_ping_tmo(ub, &req, &rep, ms)
 * for fixed sides, (ub, buf, len, ...) for variable ones.  Passing the wrong
 * struct is an incompatible-pointer-types error, which the kernel build and
 * the helper build both turn into a hard error.  The helper side is derived
 * by UMH_HELPER_DEFINE() in <umh_sdk/helper.h>, which declares the handler
 * prototypes so that a handler with the wrong types does not compile.
 */
#ifndef _UMH_SDK_RPC_H
#define _UMH_SDK_RPC_H

#include "wire.h"

#ifdef __KERNEL__
#include <linux/compiler.h>
#define UMH__UNUSED	__maybe_unused
#else
#define UMH__UNUSED	__attribute__((__unused__))
#endif

/**
 * struct umh_op_desc - what one operation carries, as both sides check it
 * @name:	op name, for logs; NULL marks an unused op number
 * @req_size:	fixed request: its exact size; variable: its maximum
 * @rep_size:	fixed reply: its exact size; variable: its maximum
 * @req_var:	request is variable-length
 * @rep_var:	reply is variable-length
 * @op:		the op number
 */
struct umh_op_desc {
	const char *name;
	__u32 req_size;
	__u32 rep_size;
	__u8 req_var;
	__u8 rep_var;
	__u16 op;
};

/**
 * struct umh_proto - a protocol: identity and operation table
 * @name:	protocol name, for logs
 * @id:		identifier checked in the handshake
 * @version:	version checked in the handshake (exact match)
 * @n_ops:	number of entries in @ops
 * @ops:	operations, indexed by op number
 */
struct umh_proto {
	const char *name;
	__u32 id;
	__u32 version;
	__u32 n_ops;
	const struct umh_op_desc *ops;
};

/**
 * umh_proto_op() - look up an operation of a protocol
 * @p:	protocol
 * @op:	op number, as received or as asked for
 *
 * Return: the descriptor, or NULL if @op is not an operation of @p
 * (%UMH_OP_HELLO included: it belongs to the SDK, not to the protocol).
 */
static inline const struct umh_op_desc *
umh_proto_op(const struct umh_proto *p, __u32 op)
{
	if (op == UMH_OP_HELLO || op >= p->n_ops || !p->ops[op].name)
		return NULL;
	return &p->ops[op];
}

/**
 * umh_proto_min_payload() - smallest payload cap that can carry a protocol
 * @p:	protocol
 *
 * A fixed request or reply is always sent at its full size, and the
 * handshake's struct umh_hello in both directions, so a channel whose cap
 * is below the largest of them would refuse a frame of the protocol
 * itself: the kernel side rejects such a cap when a helper is created.
 *
 * Return: the largest fixed request, fixed reply or handshake payload.
 */
static inline __u32 umh_proto_min_payload(const struct umh_proto *p)
{
	__u32 m = sizeof(struct umh_hello), i;

	for (i = 0; i < p->n_ops; i++) {
		const struct umh_op_desc *d = &p->ops[i];

		if (!d->name)
			continue;
		if (!d->req_var && d->req_size > m)
			m = d->req_size;
		if (!d->rep_var && d->rep_size > m)
			m = d->rep_size;
	}
	return m;
}

/**
 * umh_op_req_max() - largest request payload of an operation
 * @d:		operation
 * @cap:	payload cap of the channel
 *
 * Return: the exact size of a fixed request, else min(declared max, @cap).
 */
static inline __u32 umh_op_req_max(const struct umh_op_desc *d, __u32 cap)
{
	if (!d->req_var)
		return d->req_size;
	return d->req_size < cap ? d->req_size : cap;
}

/**
 * umh_op_rep_max() - largest reply payload of an operation
 * @d:		operation
 * @cap:	payload cap of the channel
 *
 * Return: the exact size of a fixed reply, else min(declared max, @cap).
 */
static inline __u32 umh_op_rep_max(const struct umh_op_desc *d, __u32 cap)
{
	if (!d->rep_var)
		return d->rep_size;
	return d->rep_size < cap ? d->rep_size : cap;
}

/**
 * umh_op_check_req() - check a request payload length against its op
 * @d:		operation
 * @len:	payload length
 * @cap:	payload cap of the channel
 *
 * Return: 0, -EINVAL if a fixed request has the wrong size, -EMSGSIZE if a
 * variable request is too long.
 */
static inline int umh_op_check_req(const struct umh_op_desc *d, __u64 len,
				   __u32 cap)
{
	if (!d->req_var)
		return len == d->req_size ? 0 : -EINVAL;
	return len <= umh_op_req_max(d, cap) ? 0 : -EMSGSIZE;
}

/**
 * umh_op_check_rep() - check a successful reply's length against its op
 * @d:		operation
 * @len:	payload length
 * @max_reply:	largest reply the caller accepts (variable replies)
 *
 * Return: 0, or -EBADMSG if the length cannot be a reply to @d.
 */
static inline int umh_op_check_rep(const struct umh_op_desc *d, __u64 len,
				   __u32 max_reply)
{
	return umh_rep_len_ok(len, d->rep_var ? max_reply : d->rep_size,
			      !d->rep_var) ? 0 : -EBADMSG;
}

/*
 * Declaring a side of an operation: UMH_FIXED(type) or UMH_VAR(max bytes).
 * The pair is unpacked with UMH__KIND() (F or V) and UMH__ARG().
 */
#define UMH_FIXED(type)		(F, type)
#define UMH_VAR(max)		(V, max)

#define UMH__FST(a, b)		a
#define UMH__SND(a, b)		b
#define UMH__KIND(side)		UMH__FST side
#define UMH__ARG(side)		UMH__SND side
#define UMH__CAT_(a, b)		a##b
#define UMH__CAT(a, b)		UMH__CAT_(a, b)
#define UMH__CAT3(a, b, c)	UMH__CAT(UMH__CAT(a, b), c)
#define UMH__SIZE_F(type)	((__u32)sizeof(type))
#define UMH__SIZE_V(max)	((__u32)(max))
#define UMH__ISVAR_F(type)	0
#define UMH__ISVAR_V(max)	1
#define UMH__SIZE(side)		UMH__CAT(UMH__SIZE_, UMH__KIND(side))(UMH__ARG(side))
#define UMH__ISVAR(side)	UMH__CAT(UMH__ISVAR_, UMH__KIND(side))(UMH__ARG(side))

/* Apply a per-kind-pair macro: M##FF, M##FV, M##VF or M##VV. */
#define UMH__BYKIND(M, p, name, op, rq, rp)				\
	UMH__CAT3(M, UMH__KIND(rq), UMH__KIND(rp))(p, name, op,		\
						   UMH__ARG(rq), UMH__ARG(rp))

#define UMH__OPDESC(p, n, opnum, rq, rp)				\
	[opnum] = {							\
		.name = #n,						\
		.op = (opnum),						\
		.req_size = UMH__SIZE(rq),				\
		.rep_size = UMH__SIZE(rp),				\
		.req_var = UMH__ISVAR(rq),				\
		.rep_var = UMH__ISVAR(rp),				\
	},

#define UMH__OPCASE(p, name, opnum, rq, rp)	case (opnum):

#define UMH__OPASSERT(p, n, opnum, rq, rp)				\
	_Static_assert((opnum) > UMH_OP_HELLO && (opnum) <= UMH_OP_MAX,	\
		       "op number of " #n " out of range");

#ifdef __KERNEL__
struct umh_blob;
int umh_blob_call(struct umh_blob *ub, unsigned int op,
		  const void *req, size_t req_len,
		  void *rep, size_t rep_cap, size_t *rep_len,
		  unsigned int timeout_ms);
int umh_blob_call_user(struct umh_blob *ub, unsigned int op,
		       const void __user *req, size_t req_len,
		       void *rep, size_t rep_cap, size_t *rep_len,
		       unsigned int timeout_ms);

/* Kernel-side typed call functions, one shape per kind pair. */
#define UMH__KCALL_FF(p, name, op, rq, rp)				\
static inline int p##_call_##name##_tmo(struct umh_blob *ub,		\
					const rq *req, rp *rep,		\
					unsigned int timeout_ms)	\
{									\
	return umh_blob_call(ub, op, req, sizeof(*req), rep,		\
			     sizeof(*rep), NULL, timeout_ms);		\
}									\
static inline int p##_call_##name(struct umh_blob *ub, const rq *req,	\
				  rp *rep)				\
{									\
	return p##_call_##name##_tmo(ub, req, rep, 0);			\
}

#define UMH__KCALL_VF(p, name, op, rqmax, rp)				\
static inline int p##_call_##name##_tmo(struct umh_blob *ub,		\
					const void *req, size_t len,	\
					rp *rep,			\
					unsigned int timeout_ms)	\
{									\
	return umh_blob_call(ub, op, req, len, rep, sizeof(*rep),	\
			     NULL, timeout_ms);				\
}									\
static inline int p##_call_##name(struct umh_blob *ub, const void *req,	\
				  size_t len, rp *rep)			\
{									\
	return p##_call_##name##_tmo(ub, req, len, rep, 0);		\
}

#define UMH__KCALL_FV(p, name, op, rq, rpmax)				\
static inline int p##_call_##name##_tmo(struct umh_blob *ub,		\
					const rq *req, void *rep,	\
					size_t cap, size_t *rep_len,	\
					unsigned int timeout_ms)	\
{									\
	return umh_blob_call(ub, op, req, sizeof(*req), rep, cap,	\
			     rep_len, timeout_ms);			\
}									\
static inline int p##_call_##name(struct umh_blob *ub, const rq *req,	\
				  void *rep, size_t cap,		\
				  size_t *rep_len)			\
{									\
	return p##_call_##name##_tmo(ub, req, rep, cap, rep_len, 0);	\
}

#define UMH__KCALL_VV(p, name, op, rqmax, rpmax)			\
static inline int p##_call_##name##_tmo(struct umh_blob *ub,		\
					const void *req, size_t len,	\
					void *rep, size_t cap,		\
					size_t *rep_len,		\
					unsigned int timeout_ms)	\
{									\
	return umh_blob_call(ub, op, req, len, rep, cap, rep_len,	\
			     timeout_ms);				\
}									\
static inline int p##_call_##name(struct umh_blob *ub, const void *req,	\
				  size_t len, void *rep, size_t cap,	\
				  size_t *rep_len)			\
{									\
	return p##_call_##name##_tmo(ub, req, len, rep, cap, rep_len, 0); \
}

#define UMH__KCALL(p, name, op, rq, rp)					\
	UMH__BYKIND(UMH__KCALL_, p, name, op, rq, rp)
#else
#define UMH__KCALL(p, name, op, rq, rp)
#endif /* __KERNEL__ */

/**
 * UMH_PROTO_DEFINE() - define a protocol from its operation list
 * @p:		protocol name, a C identifier; prefixes everything generated
 * @proto_id:	32-bit identifier checked in the handshake
 * @proto_version: version checked in the handshake
 * @OPS:	X-macro listing the operations as
 *		OP(p, name, op number, request side, reply side)
 *
 * Generates ``p##_umh_proto`` (const struct umh_proto) and, in the kernel,
 * the typed call functions.  Op numbers must be unique and in
 * 1 to %UMH_OP_MAX: a duplicate is a duplicate-case compile error.
 */
#define UMH_PROTO_DEFINE(p, proto_id, proto_version, OPS)		\
	OPS(UMH__OPASSERT)						\
	static inline int p##__umh_op_known(unsigned int op)		\
	{								\
		switch (op) {						\
		OPS(UMH__OPCASE)					\
			return 1;					\
		}							\
		return 0;						\
	}								\
	static const struct umh_op_desc p##_umh_ops[] UMH__UNUSED = {	\
		OPS(UMH__OPDESC)					\
	};								\
	static const struct umh_proto p##_umh_proto UMH__UNUSED = {	\
		.name = #p,						\
		.id = (proto_id),					\
		.version = (proto_version),				\
		.n_ops = sizeof(p##_umh_ops) / sizeof(p##_umh_ops[0]),	\
		.ops = p##_umh_ops,					\
	};								\
	OPS(UMH__KCALL)

#endif /* _UMH_SDK_RPC_H */
