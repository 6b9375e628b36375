/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * /dev/hostile_umh: how tests/guest/hostile_tests.sh makes one call to the
 * hostile helper.  The first 32-bit word of every request payload is the
 * "cookie" that tells the helper how to misbehave (HOSTILE_* below, see
 * tests/modules/hostile_helper.c); 0 means "answer properly".
 */
#ifndef _HOSTILE_UAPI_H
#define _HOSTILE_UAPI_H

/* The helper needs only the cookies (and may be built without UAPI headers). */
#ifndef HOSTILE_HELPER
#include <linux/ioctl.h>
#include <linux/types.h>

struct hostile_ioc_call {
	__u32 op;		/* in: an echo op (ECHO_OP_*) */
	__u32 cookie;		/* in: the misbehaviour */
	__u32 req_len;		/* in: echo/sink request bytes */
	__u32 rep_cap;		/* in: echo reply buffer bytes */
	__u32 timeout_ms;	/* in: 0 = the module's default */
	__u32 rep_len;		/* out: reply bytes (echo) */
};

#define HOSTILE_IOC_CALL	_IOWR(0xed, 1, struct hostile_ioc_call)
/*
 * An echo call with a NULL reply buffer but rep_cap bytes of room claimed
 * (tests/guest/lifecycle_tests.sh: umh_blob_call() must refuse it).
 */
#define HOSTILE_IOC_NULL_REP	_IOWR(0xed, 2, struct hostile_ioc_call)
#endif

/* Cookies: what the helper does with the request that carries one. */
enum hostile_cookie {
	HOSTILE_OK = 0,		/* a proper reply */
	HOSTILE_UNKNOWN_ID = 1,	/* reply to a request never made */
	HOSTILE_GARBAGE = 2,	/* 32 bytes of garbage instead of a header */
	HOSTILE_LEN_2G = 3,	/* a 2 GiB payload announced */
	HOSTILE_SHORT_FIXED = 4, /* fixed reply 4 bytes short */
	HOSTILE_STATUS_512 = 5,	/* status -512 (-ERESTARTSYS) */
	HOSTILE_HALF_HDR_EXIT = 6, /* half a header, then exit */
	HOSTILE_HALF_PAYLOAD_HANG = 7, /* half a payload, then silence */
	HOSTILE_LEN_CAP = 8,	/* len = the channel's payload cap + 1 */
	HOSTILE_LEN_REPCAP = 9,	/* len = the caller's reply cap + 1 */
	HOSTILE_DONE_ID = 10,	/* reply with the id of a completed call */
	HOSTILE_HELD_ID = 11,	/* reply with the id of the held call */
	/* no reply: keep the request "in flight"; logs "holding request ID" */
	HOSTILE_HOLD = 12,
	HOSTILE_WRONG_OP = 13,	/* reply with another valid op */
	HOSTILE_OP_RANGE = 14,	/* reply with op > UMH_OP_MAX */
	HOSTILE_HDR_HANG = 15,	/* header, then silence */
	HOSTILE_HALF_HDR_HANG = 16, /* half a header, then silence */
	HOSTILE_HALF_PAYLOAD_EXIT = 17, /* header + half a payload, exit */
	HOSTILE_FLOOD_REPLIES = 18, /* proper reply, then endless replies */
	HOSTILE_FLOOD_BYTES = 19, /* proper reply, then endless bytes */
	HOSTILE_STOP_READING = 20, /* proper reply, then never read again */
	HOSTILE_STATUS_POS = 21, /* status +5 */
	HOSTILE_STATUS_MIN = 22, /* status INT_MIN */
	HOSTILE_STATUS_PAYLOAD = 23, /* status -EIO with a payload */
	HOSTILE_STATUS_ENOENT = 24, /* status -ENOENT: legal, passed on */
	HOSTILE_AS_REQUEST = 25, /* reply frame without UMH_F_REPLY */
	HOSTILE_FLAG_UNKNOWN = 26, /* an unknown flag bit */
	HOSTILE_RESERVED = 27,	/* reserved field not 0 */
	HOSTILE_MAX_REPLY = 28,	/* max_reply not 0 in a reply */
	HOSTILE_VERSION = 29,	/* wire version 2 */
	HOSTILE_CLOSE_STDOUT = 30, /* close fd 1, stay alive */
	HOSTILE_STDERR_FLOOD = 31, /* 2 MiB of stderr, then a proper reply */
	HOSTILE_BUSY = 32,	/* busy for 3 s (reads nothing), then a reply */
	/*
	 * echo only: read the header and the cookie, reply at once with
	 * half the request's length of 0xa5 bytes, then read the rest of the
	 * request and log on stderr whether it is still the caller's (zeros
	 * after the cookie): "hostile: request intact" or "... corrupted".
	 */
	HOSTILE_EARLY_REPLY = 33,
	/*
	 * the held call's reply (status -ENOENT, no payload) and this
	 * call's proper reply, in one write(); a reply of up to 128 bytes
	 */
	HOSTILE_HELD_THEN_THIS = 34,
};

/*
 * While this file exists, the helper answers the handshake with the
 * status written in it (a negative errno, in decimal) instead of its
 * hello: a restart's handshake that fails with whatever errno the helper
 * picks.
 */
#define HOSTILE_HELLO_FILE	"/run/hostile-hello-status"

#endif /* _HOSTILE_UAPI_H */
