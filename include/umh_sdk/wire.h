/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * umh-sdk wire format, shared by the kernel side and the helper.
 *
 * Every message on the channel is a frame: a fixed 32-byte header followed
 * by exactly @len payload bytes.  Requests flow kernel -> helper on the
 * helper's fd 0, replies flow helper -> kernel on its fd 1.  Both ends run
 * on the same machine, so fields are in native byte order.
 *
 * This header is compiled three ways: in the kernel (__KERNEL__), in
 * helpers built against glibc and in helpers built against musl (which has
 * no Linux UAPI headers), so it only uses the fixed-width types defined below and
 * only static inline functions.  Nothing here allocates: a receiver decodes
 * and validates the header before it allocates anything for the payload.
 */
#ifndef _UMH_SDK_WIRE_H
#define _UMH_SDK_WIRE_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
/*
 * The same definitions as <asm-generic/int-ll64.h>, so that a helper that
 * also includes <linux/types.h> sees identical (C11-compatible) typedefs.
 */
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef signed int __s32;
typedef signed long long __s64;
typedef unsigned long long __u64;
#endif

#define UMH_WIRE_MAGIC		0x31484d55U	/* "UMH1" in memory order */
#define UMH_WIRE_VERSION	1

/* Flags in umh_hdr.flags. */
#define UMH_F_REPLY		0x1U	/* set on every helper -> kernel frame */
#define UMH_F_ALL		UMH_F_REPLY

/* Op 0 is the SDK's handshake (and health check); protocols use 1..UMH_OP_MAX. */
#define UMH_OP_HELLO		0
#define UMH_OP_MAX		0x7fff

/* Default and absolute bounds for one payload. */
#define UMH_DEFAULT_MAX_PAYLOAD	(16U << 20)
#define UMH_ABS_MAX_PAYLOAD	(1U << 30)

/*
 * Statuses a helper may return.  Anything from -1 to -UMH_MAX_STATUS_ERRNO
 * is passed to the caller; kernel-internal codes such as -ERESTARTSYS (512)
 * must never reach user space, so they are rejected as malformed.
 */
#define UMH_MAX_STATUS_ERRNO	511

/**
 * struct umh_hdr - header of every frame
 * @magic:	%UMH_WIRE_MAGIC
 * @version:	%UMH_WIRE_VERSION
 * @op:		operation number (%UMH_OP_HELLO or a protocol op)
 * @id:		request id chosen by the kernel; a reply carries its request's
 * @len:	number of payload bytes following the header
 * @status:	replies: 0 or a negative errno; requests: 0
 * @flags:	%UMH_F_REPLY on replies, 0 on requests
 * @max_reply:	requests: the largest reply payload the caller accepts;
 *		replies: 0
 * @reserved:	0
 */
struct umh_hdr {
	__u32 magic;
	__u16 version;
	__u16 op;
	__u32 id;
	__u32 len;
	__s32 status;
	__u32 flags;
	__u32 max_reply;
	__u32 reserved;
};

/**
 * struct umh_hello - payload of %UMH_OP_HELLO, in both directions
 * @proto_id:		protocol identifier (see UMH_PROTO_DEFINE())
 * @proto_version:	protocol version; both sides must agree exactly
 * @max_payload:	request: the kernel's payload cap; reply: the helper's
 * @pid:		reply: the helper's own view of its pid (informational)
 * @flags:		reserved, 0
 * @reserved:		reserved, 0
 */
struct umh_hello {
	__u32 proto_id;
	__u32 proto_version;
	__u32 max_payload;
	__u32 pid;
	__u32 flags;
	__u32 reserved;
};

/* Compile-time layout checks, valid in both C11 and the kernel. */
_Static_assert(sizeof(struct umh_hdr) == 32, "umh_hdr is part of the ABI");
_Static_assert(sizeof(struct umh_hello) == 24, "umh_hello is part of the ABI");

/**
 * umh_hdr_init() - fill in a frame header
 * @h:		header to fill
 * @op:		operation number
 * @id:		request id
 * @len:	payload length
 * @status:	0 or negative errno (replies only)
 * @flags:	%UMH_F_REPLY for replies, 0 for requests
 * @max_reply:	requests: largest reply payload accepted; replies: 0
 */
static inline void umh_hdr_init(struct umh_hdr *h, __u16 op, __u32 id,
				__u32 len, __s32 status, __u32 flags,
				__u32 max_reply)
{
	h->magic = UMH_WIRE_MAGIC;
	h->version = UMH_WIRE_VERSION;
	h->op = op;
	h->id = id;
	h->len = len;
	h->status = status;
	h->flags = flags;
	h->max_reply = max_reply;
	h->reserved = 0;
}

/**
 * umh_hdr_check() - validate a received header before acting on it
 * @h:		header as received
 * @reply:	true when @h must be a reply (kernel side), false for a request
 * @max_len:	largest payload the receiver accepts
 *
 * Checks everything that can be checked without protocol knowledge: magic,
 * version, direction, reserved bits, status range and payload bound.  The
 * caller still has to check the op and the id against what it expects.
 *
 * Return: 0 if the header is well formed, -EBADMSG if it is malformed,
 * -EMSGSIZE if its payload is larger than @max_len.
 */
static inline int umh_hdr_check(const struct umh_hdr *h, bool reply,
				__u32 max_len)
{
	if (h->magic != UMH_WIRE_MAGIC || h->version != UMH_WIRE_VERSION)
		return -EBADMSG;
	if (h->flags & ~UMH_F_ALL || h->reserved)
		return -EBADMSG;
	if (!!(h->flags & UMH_F_REPLY) != reply)
		return -EBADMSG;
	if (h->op > UMH_OP_MAX)
		return -EBADMSG;
	if (reply) {
		if (h->max_reply)
			return -EBADMSG;
		if (h->status > 0 || h->status < -UMH_MAX_STATUS_ERRNO)
			return -EBADMSG;
		/* An error reply carries no payload. */
		if (h->status && h->len)
			return -EBADMSG;
	} else if (h->status) {
		return -EBADMSG;
	}
	if (h->len > max_len)
		return -EMSGSIZE;
	return 0;
}

/**
 * umh_rep_len_ok() - the one rule for a successful reply's length
 * @len:	payload length
 * @cap:	the exact size of a fixed reply, else the largest variable
 *		reply accepted
 * @fixed:	the reply has a fixed size
 *
 * Both sides apply it: the kernel to what the helper sent
 * (umh_rep_check()), the helper runtime to what a handler made
 * (umh_op_check_rep()).
 *
 * Return: true if @len is a valid length.
 */
static inline bool umh_rep_len_ok(__u64 len, __u32 cap, bool fixed)
{
	return fixed ? len == cap : len <= cap;
}

/**
 * umh_rep_check() - check a reply header against the request it answers
 * @h:		reply header that passed umh_hdr_check() with @reply true
 *		and whose id is that of the request
 * @op:		the request's op
 * @rep_cap:	the request's reply buffer: the exact size of a fixed reply,
 *		else the largest variable reply accepted
 * @fixed:	the reply has a fixed size
 *
 * The kernel side calls this before it copies a reply's payload into the
 * caller's buffer of @rep_cap bytes; an error reply carries no payload.
 *
 * Return: 0 if the payload may be copied, -EBADMSG if @h answers another
 * op, -EMSGSIZE if a successful reply does not fit @rep_cap (or is not
 * exactly @rep_cap bytes when @fixed).
 */
static inline int umh_rep_check(const struct umh_hdr *h, __u16 op,
				__u32 rep_cap, bool fixed)
{
	if (h->op != op)
		return -EBADMSG;
	if (!h->status && !umh_rep_len_ok(h->len, rep_cap, fixed))
		return -EMSGSIZE;
	return 0;
}

#endif /* _UMH_SDK_WIRE_H */
