// SPDX-License-Identifier: GPL-2.0
/*
 * A helper that breaks the protocol on request: it answers the handshake
 * properly, then treats the first 32-bit word of each request payload as
 * the misbehaviour to show (enum hostile_cookie in hostile_uapi.h).
 * Written against wire.h directly, since the SDK runtime would never send
 * such frames.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../samples/echo_umh/echo_proto.h"
#define HOSTILE_HELPER
#include "hostile_uapi.h"

static char buf[4 << 20];	/* a request, and a reply in place */
static __u32 cap;		/* the kernel's payload cap, from the hello */
static struct umh_hdr held;	/* HOSTILE_HOLD's request */

static void rd(void *p, size_t len)
{
	char *c = p;

	while (len) {
		ssize_t n = read(0, c, len);

		if (n <= 0)
			exit(0);
		c += n;
		len -= (size_t)n;
	}
}

static void wr(const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(1, c, len);

		if (n <= 0)
			exit(1);
		c += n;
		len -= (size_t)n;
	}
}

/* Send a header; @len is what it claims, @data/@dlen what follows it. */
static void reply_hdr(__u16 op, __u32 id, __s32 status, __u32 len)
{
	struct umh_hdr h;

	umh_hdr_init(&h, op, id, len, status, UMH_F_REPLY, 0);
	wr(&h, sizeof(h));
}

static void reply(const struct umh_hdr *req, const void *data, __u32 len)
{
	reply_hdr(req->op, req->id, 0, len);
	wr(data, len);
}

/* The proper reply payload to @req (whose payload is in buf), in buf. */
static __u32 proper(const struct umh_hdr *req)
{
	switch (req->op) {
	case ECHO_OP_PING: {
		struct echo_pong pong = { .pid = (__u32)getpid() };

		memcpy(&pong.cookie, buf, sizeof(pong.cookie));
		memcpy(buf, &pong, sizeof(pong));
		return sizeof(pong);
	}
	case ECHO_OP_ADD: {
		struct echo_add a;
		struct echo_sum s;

		memcpy(&a, buf, sizeof(a));
		s.sum = (__s64)((__u64)a.a + (__u64)a.b);
		memcpy(buf, &s, sizeof(s));
		return sizeof(s);
	}
	case ECHO_OP_SINK: {
		struct echo_sink_rep s = { .len = req->len };
		__u32 i;

		for (i = 0; i < req->len; i++)
			s.sum += (unsigned char)buf[i];
		memcpy(buf, &s, sizeof(s));
		return sizeof(s);
	}
	default:	/* echo, sleep, tag: the request comes back */
		return req->len;
	}
}

static void hostile(const struct umh_hdr *req, __u32 cookie)
{
	struct umh_hdr h;
	__u32 len = proper(req), i;

	switch (cookie) {
	case HOSTILE_UNKNOWN_ID:
		reply_hdr(req->op, req->id + 1000, 0, len);
		wr(buf, len);
		break;
	case HOSTILE_GARBAGE:
		memset(&h, 0x5a, sizeof(h));
		wr(&h, sizeof(h));
		break;
	case HOSTILE_LEN_2G:
		reply_hdr(req->op, req->id, 0, 0x7fffffffU);
		break;
	case HOSTILE_SHORT_FIXED:
		reply(req, buf, len - 4);
		break;
	case HOSTILE_STATUS_512:
		reply_hdr(req->op, req->id, -512, 0);
		break;
	case HOSTILE_HALF_HDR_EXIT:
		umh_hdr_init(&h, req->op, req->id, len, 0, UMH_F_REPLY, 0);
		wr(&h, sizeof(h) / 2);
		exit(0);
	case HOSTILE_HALF_PAYLOAD_HANG:
		reply_hdr(req->op, req->id, 0, len);
		wr(buf, len / 2);
		pause();
		break;
	case HOSTILE_LEN_CAP:
		reply_hdr(req->op, req->id, 0, cap + 1);
		pause();
		break;
	case HOSTILE_LEN_REPCAP:
		/* within the channel's cap, above what this caller takes */
		reply_hdr(req->op, req->id, 0, req->max_reply + 1);
		pause();
		break;
	case HOSTILE_DONE_ID:
		/* ids count up per helper: id - 1 was answered already */
		reply_hdr(req->op, req->id - 1, 0, len);
		wr(buf, len);
		break;
	case HOSTILE_HELD_ID:
		/* this call's reply, sent as the reply to the held call */
		reply_hdr(req->op, held.id, 0, len);
		wr(buf, len);
		break;
	case HOSTILE_HELD_THEN_THIS: {
		static struct {
			struct umh_hdr h[2];
			char data[128];
		} two;

		if (len > sizeof(two.data))
			exit(3);
		umh_hdr_init(&two.h[0], held.op, held.id, 0, -ENOENT,
			     UMH_F_REPLY, 0);
		umh_hdr_init(&two.h[1], req->op, req->id, len, 0, UMH_F_REPLY,
			     0);
		memcpy(two.data, buf, len);
		wr(&two, sizeof(two.h) + len);
		break;
	}
	case HOSTILE_HOLD:
		held = *req;
		fprintf(stderr, "hostile: holding request %u\n", req->id);
		fflush(stderr);
		break;
	case HOSTILE_WRONG_OP:
		reply_hdr(req->op == ECHO_OP_PING ? ECHO_OP_ADD : ECHO_OP_PING,
			  req->id, 0, len);
		wr(buf, len);
		break;
	case HOSTILE_OP_RANGE:
		reply_hdr(UMH_OP_MAX + 1, req->id, 0, len);
		wr(buf, len);
		break;
	case HOSTILE_HDR_HANG:
		reply_hdr(req->op, req->id, 0, len);
		pause();
		break;
	case HOSTILE_HALF_HDR_HANG:
		umh_hdr_init(&h, req->op, req->id, len, 0, UMH_F_REPLY, 0);
		wr(&h, sizeof(h) / 2);
		pause();
		break;
	case HOSTILE_HALF_PAYLOAD_EXIT:
		reply_hdr(req->op, req->id, 0, len);
		wr(buf, len / 2);
		exit(0);
	case HOSTILE_FLOOD_REPLIES:
		reply(req, buf, len);
		for (i = 1;; i++) {	/* until the kernel kills us */
			reply_hdr(req->op, req->id + i, 0, len);
			wr(buf, len);
		}
	case HOSTILE_FLOOD_BYTES:
		reply(req, buf, len);
		memset(buf, 0xff, 65536);
		for (;;)
			wr(buf, 65536);
	case HOSTILE_STOP_READING:
		reply(req, buf, len);
		for (;;)
			pause();
	case HOSTILE_STATUS_POS:
		reply_hdr(req->op, req->id, 5, 0);
		break;
	case HOSTILE_STATUS_MIN:
		reply_hdr(req->op, req->id, INT_MIN, 0);
		break;
	case HOSTILE_STATUS_PAYLOAD:
		reply_hdr(req->op, req->id, -EIO, len);
		wr(buf, len);
		break;
	case HOSTILE_STATUS_ENOENT:
		reply_hdr(req->op, req->id, -ENOENT, 0);
		break;
	case HOSTILE_AS_REQUEST:
		umh_hdr_init(&h, req->op, req->id, len, 0, 0, 0);
		wr(&h, sizeof(h));
		wr(buf, len);
		break;
	case HOSTILE_FLAG_UNKNOWN:
		umh_hdr_init(&h, req->op, req->id, len, 0, UMH_F_REPLY | 0x2, 0);
		wr(&h, sizeof(h));
		wr(buf, len);
		break;
	case HOSTILE_RESERVED:
		umh_hdr_init(&h, req->op, req->id, len, 0, UMH_F_REPLY, 0);
		h.reserved = 1;
		wr(&h, sizeof(h));
		wr(buf, len);
		break;
	case HOSTILE_MAX_REPLY:
		umh_hdr_init(&h, req->op, req->id, len, 0, UMH_F_REPLY, 64);
		wr(&h, sizeof(h));
		wr(buf, len);
		break;
	case HOSTILE_VERSION:
		umh_hdr_init(&h, req->op, req->id, len, 0, UMH_F_REPLY, 0);
		h.version = UMH_WIRE_VERSION + 1;
		wr(&h, sizeof(h));
		wr(buf, len);
		break;
	case HOSTILE_CLOSE_STDOUT:
		close(1);
		for (;;)
			pause();
	case HOSTILE_STDERR_FLOOD:
		for (i = 0; i < 2 << 20; i += 32)
			fprintf(stderr, "stderr flood line %10u\n", i);
		fflush(stderr);
		reply(req, buf, len);
		break;
	case HOSTILE_BUSY: {
		struct timespec ts = { .tv_sec = 3 };

		while (nanosleep(&ts, &ts))
			;
		reply(req, buf, len);
		break;
	}
	default:
		reply(req, buf, len);
	}
}

/*
 * HOSTILE_EARLY_REPLY: the header and the cookie of @req are read; reply
 * before reading the rest, then check what arrives.  The caller's request
 * is its cookie and zeros (tests/modules/hostile_main.c, hostile_var()).
 */
static void early_reply(const struct umh_hdr *req)
{
	char *pat = buf + sizeof(buf) / 2;
	__u32 i, half = req->len / 2;

	memset(pat, 0xa5, half);
	reply(req, pat, half);
	rd(buf + 4, req->len - 4);
	for (i = 4; i < req->len && !buf[i]; i++)
		;
	if (i < req->len)
		fprintf(stderr, "hostile: request corrupted at byte %u of %u\n",
			i, req->len);
	else
		fprintf(stderr, "hostile: request intact\n");
	fflush(stderr);
}

/* The status HOSTILE_HELLO_FILE asks the handshake to fail with, or 0. */
static int hello_status(void)
{
	FILE *f = fopen(HOSTILE_HELLO_FILE, "r");
	int st = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%d", &st) != 1)
		st = 0;
	fclose(f);
	return st;
}

int main(void)
{
	struct umh_hdr req;
	__u32 cookie;

	setvbuf(stderr, NULL, _IOFBF, 1 << 16);
	for (;;) {
		rd(&req, sizeof(req));
		if (req.len > sizeof(buf))
			return 2;
		if (req.op == ECHO_OP_ECHO && req.len >= sizeof(cookie) &&
		    req.len <= sizeof(buf) / 2) {
			rd(buf, sizeof(cookie));
			memcpy(&cookie, buf, sizeof(cookie));
			if (cookie == HOSTILE_EARLY_REPLY) {
				early_reply(&req);
				continue;
			}
			rd(buf + sizeof(cookie), req.len - sizeof(cookie));
		} else {
			rd(buf, req.len);
		}
		if (req.op == UMH_OP_HELLO) {
			struct umh_hello h = {
				.proto_id = ECHO_PROTO_ID,
				.proto_version = ECHO_PROTO_VERSION,
				.max_payload = UMH_DEFAULT_MAX_PAYLOAD,
			};
			struct umh_hello k;
			int st = hello_status();

			if (st) {
				reply_hdr(req.op, req.id, st, 0);
				continue;
			}
			memcpy(&k, buf, sizeof(k));
			cap = k.max_payload;
			reply(&req, &h, sizeof(h));
			continue;
		}
		cookie = 0;
		if (req.len >= sizeof(cookie))
			memcpy(&cookie, buf, sizeof(cookie));
		hostile(&req, cookie);
	}
}
