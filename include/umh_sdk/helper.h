/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * umh-sdk helper-side runtime, header-only.
 *
 * A helper is a static program whose fd 0 carries requests from the kernel
 * and fd 1 carries its replies (see <umh_sdk/wire.h>); its stderr ends up
 * in the kernel log.  A helper for protocol "echo" is, in full:
 *
 *	#include "echo_proto.h"
 *	#include <umh_sdk/helper.h>
 *
 *	UMH_HELPER_DEFINE(echo, ECHO_OPS)
 *	UMH_HELPER_SANDBOX(echo, UMH_NO_CAPS,
 *			   UMH_SYSCALLS(SYS_nanosleep, SYS_clock_nanosleep))
 *
 *	int echo_handle_ping(void *ctx, const struct echo_ping *req,
 *			     struct echo_pong *rep) { ... return 0; }
 *	...one handler per op, with the prototype the declaration implies...
 *
 *	int main(void) { return UMH_HELPER_RUN(echo, NULL); }
 *
 * Before it reads the first request, the runtime confines the helper as its
 * UMH_HELPER_SANDBOX() declaration says (capabilities, non-dumpable,
 * no_new_privs, a seccomp allowlist; see <umh_sdk/sandbox.h>).  Then it
 * answers the SDK's handshake, validates every frame before it
 * acts on it (header, known op, exact size of fixed requests, bound of
 * variable ones), dispatches, frames the reply and exits with status 0 on
 * EOF of fd 0 (the kernel itself ends a helper with SIGKILL; a host such as
 * tools/umh_host closes the channel).  Handlers return 0 or a negative errno,
 * which the caller in the kernel gets back.
 *
 * Builds with glibc and musl, -std=c11 -D_GNU_SOURCE; no other dependency.
 */
#ifndef _UMH_SDK_HELPER_H
#define _UMH_SDK_HELPER_H

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "rpc.h"
#include "sandbox.h"

/* Exit statuses of umh_helper_run(), besides 0 for a clean EOF. */
#define UMH_EXIT_IO		2	/* read/write error or truncated frame */
#define UMH_EXIT_PROTO		3	/* the kernel sent a malformed frame */
#define UMH_EXIT_NOMEM		4
#define UMH_EXIT_SANDBOX	5	/* the sandbox could not be applied */

/**
 * struct umh_out - where a handler puts a variable-length reply
 * @data:	reply bytes (set by umh_out_alloc() or umh_out_set())
 * @len:	reply length
 * @max:	largest reply the caller accepts
 * @buf:	runtime-owned buffer behind umh_out_alloc()
 * @cap:	size of @buf
 */
struct umh_out {
	const void *data;
	size_t len;
	size_t max;
	void *buf;
	size_t cap;
};

/**
 * umh_out_alloc() - get a buffer for a reply of @len bytes
 * @out:	the reply
 * @len:	reply length, at most @out->max
 *
 * Return: a buffer owned by the runtime, valid until the reply has been
 * sent (after the handler returns), or NULL (errno set to EMSGSIZE if @len
 * is too long, ENOMEM otherwise).
 */
static inline void *umh_out_alloc(struct umh_out *out, size_t len)
{
	if (len > out->max) {
		errno = EMSGSIZE;
		return NULL;
	}
	/* Even an empty reply gets a real buffer: NULL means failure. */
	if (len > out->cap || !out->buf) {
		size_t cap = len ? len : 1;
		void *nbuf = realloc(out->buf, cap);

		if (!nbuf) {
			errno = ENOMEM;
			return NULL;
		}
		out->buf = nbuf;
		out->cap = cap;
	}
	out->data = out->buf;
	out->len = len;
	return out->buf;
}

/**
 * umh_out_set() - reply with bytes the handler already has
 * @out:	the reply
 * @data:	reply bytes; sent after the handler returns, so they must
 *		outlive it: static data or the request buffer, never the
 *		handler's stack
 * @len:	reply length
 *
 * Return: 0, or -EMSGSIZE if @len exceeds @out->max.
 */
static inline int umh_out_set(struct umh_out *out, const void *data,
			      size_t len)
{
	if (len > out->max)
		return -EMSGSIZE;
	out->data = data;
	out->len = len;
	return 0;
}

/* What every generated dispatch entry looks like. */
typedef int (*umh_handler_fn)(void *ctx, const void *req, size_t len,
			      struct umh_out *out);

/**
 * umh_logv() - log a line to the kernel log through stderr
 * @level:	kernel log level 3 (err) .. 7 (debug)
 * @fmt:	printf format
 * @ap:		arguments
 */
static inline void umh_logv(int level, const char *fmt, va_list ap)
{
	char line[256];
	int n;

	n = snprintf(line, sizeof(line), "<%d>", level);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* One write per line, so lines never interleave. */
	if (write(2, line, n) < 0)
		return;
}

/**
 * umh_log() - log a line at a given level
 * @level:	kernel log level 3 (err) .. 7 (debug)
 * @fmt:	printf format
 */
static inline __attribute__((format(printf, 2, 3)))
void umh_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	umh_logv(level, fmt, ap);
	va_end(ap);
}

#define umh_err(...)	umh_log(3, __VA_ARGS__)
#define umh_info(...)	umh_log(6, __VA_ARGS__)

/* ---- runtime internals ---- */

/*
 * Request and reply buffers larger than this are kept only while large
 * calls follow each other: a small call, or a wait of UMH__TRIM_MS for the
 * next request, frees them.  So a helper that served a burst of large
 * calls gives the memory back instead of keeping its peak until it exits,
 * and a stream of large calls does not fault a fresh buffer in for each
 * one.  Only a helper holding such a buffer makes the poll() that times
 * the wait.  Smaller buffers are kept for good.
 */
#define UMH__KEEP_BYTES		(256 * 1024)
#define UMH__TRIM_MS		1000
/* A reply up to this size is copied behind its header and written once. */
#define UMH__SMALL_REPLY	512
/*
 * Small replies wait for the next request's while it is buffered already,
 * its op's handler has been quick, and the first of them has waited less
 * than this; then they leave in one write() (umh__hold()).
 */
#define UMH__HOLD_NS		200000
/*
 * An op's state (opstate[]): how many of its timed runs were quick, up to
 * UMH__QUICK_RUNS, or UMH__OP_SLOW for good once one was not.
 */
#define UMH__QUICK_RUNS		4
#define UMH__OP_SLOW		255

struct umh__helper {
	const struct umh_proto *proto;
	const umh_handler_fn *handlers;
	void *ctx;
	int in, outfd;
	__u32 max_payload;
	/* buffered input */
	char *ib;
	size_t icap, ihead, itail;
	/* request payload */
	void *req;
	size_t req_cap;
	struct umh_out out;
	/* per op: quick timed runs (up to UMH__QUICK_RUNS) or UMH__OP_SLOW */
	unsigned char *opstate;
	/* small replies, each header first, not written yet; since when */
	__u64 held_ns;
	size_t blen;
	char batch[4096];
};

/* Write @cnt (1 or 2) segments whole.  Return: 0 or -1. */
static inline int umh__write_all(int fd, struct iovec *iov, int cnt)
{
	while (cnt) {
		ssize_t n = cnt == 1 ? write(fd, iov[0].iov_base,
					     iov[0].iov_len) :
			    writev(fd, iov, cnt);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			umh_err("umh: write: %s", strerror(errno));
			return -1;
		}
		while (cnt && (size_t)n >= iov[0].iov_len) {
			n -= iov[0].iov_len;
			if (--cnt)
				iov[0] = iov[1];
		}
		if (cnt) {
			iov[0].iov_base = (char *)iov[0].iov_base + n;
			iov[0].iov_len -= n;
		}
	}
	return 0;
}

/* Write the small replies not written yet.  Return: 0 or -1. */
static inline int umh__flush(struct umh__helper *h)
{
	/* Two entries: umh__write_all() is written for up to two. */
	struct iovec iov[2] = { { .iov_base = h->batch, .iov_len = h->blen } };

	if (!h->blen)
		return 0;
	h->blen = 0;
	h->held_ns = 0;
	return umh__write_all(h->outfd, iov, 1);
}

static inline __u64 umh__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000u + (__u64)ts.tv_nsec;
}

/*
 * May the small replies made so far wait for the next request's?  Only if
 * that request is here (its header buffered), its op's handler was quick
 * every time it was timed, at least UMH__QUICK_RUNS times, and the first
 * of them has waited less than UMH__HOLD_NS.  Replies to requests that
 * came together then leave in one write(), which wakes the kernel's
 * reader once.  A reply so waits at most UMH__HOLD_NS plus one run of a
 * handler that had never been slow; after that run the op is slow for
 * good ("Replies that leave together" in Documentation/channel.rst).
 */
static inline int umh__hold(struct umh__helper *h)
{
	struct umh_hdr next;
	__u64 now;

	if (!h->opstate || h->itail - h->ihead < sizeof(next) ||
	    h->blen + sizeof(next) + UMH__SMALL_REPLY > sizeof(h->batch))
		return 0;
	memcpy(&next, h->ib + h->ihead, sizeof(next));
	if (next.op >= h->proto->n_ops ||
	    h->opstate[next.op] < UMH__QUICK_RUNS ||
	    h->opstate[next.op] == UMH__OP_SLOW)
		return 0;
	now = umh__now_ns();
	if (!h->held_ns)
		h->held_ns = now;
	return now - h->held_ns < UMH__HOLD_NS;
}

/* Read exactly @len bytes.  Return: 1 done, 0 EOF before any byte, -1. */
static inline int umh__recv(struct umh__helper *h, void *dst, size_t len,
			    int eof_ok)
{
	char *d = dst;
	size_t got = 0;

	while (got < len) {
		size_t have = h->itail - h->ihead;
		ssize_t n;

		if (have) {
			size_t take = have < len - got ? have : len - got;

			memcpy(d + got, h->ib + h->ihead, take);
			h->ihead += take;
			got += take;
			continue;
		}
		h->ihead = h->itail = 0;
		if (umh__flush(h))
			return -1;
		if (len - got >= h->icap) {	/* big payload: no bounce */
			n = read(h->in, d + got, len - got);
			if (n > 0)
				got += n;
		} else {
			n = read(h->in, h->ib, h->icap);
			if (n > 0)
				h->itail = n;
		}
		if (n == 0) {
			if (!got && eof_ok)
				return 0;
			umh_err("umh: request truncated at %zu of %zu bytes",
				got, len);
			return -1;
		}
		if (n < 0 && errno != EINTR) {
			umh_err("umh: read: %s", strerror(errno));
			return -1;
		}
	}
	return 1;
}

/* Skip @len payload bytes of a request that will be refused. */
static inline int umh__skip(struct umh__helper *h, size_t len)
{
	char sink[512];

	while (len) {
		size_t n = len < sizeof(sink) ? len : sizeof(sink);

		if (umh__recv(h, sink, n, 0) != 1)
			return -1;
		len -= n;
	}
	return 0;
}

static inline int umh__reply(struct umh__helper *h,
			     const struct umh_hdr *req, int status,
			     const void *data, size_t len)
{
	struct umh_hdr hdr;
	struct iovec iov[2];

	if (status)
		len = 0;
	umh_hdr_init(&hdr, req->op, req->id, (__u32)len, status, UMH_F_REPLY,
		     0);
	if (len <= UMH__SMALL_REPLY) {
		/*
		 * Copied behind its header, and behind the replies held:
		 * one write() of one segment for all of them.
		 */
		if (h->blen + sizeof(hdr) + len > sizeof(h->batch) &&
		    umh__flush(h))
			return -1;
		memcpy(h->batch + h->blen, &hdr, sizeof(hdr));
		if (len)
			memcpy(h->batch + h->blen + sizeof(hdr), data, len);
		h->blen += sizeof(hdr) + len;
		return umh__hold(h) ? 0 : umh__flush(h);
	}
	if (umh__flush(h))
		return -1;
	/* Header and payload reach the kernel together. */
	iov[0].iov_base = &hdr;
	iov[0].iov_len = sizeof(hdr);
	iov[1].iov_base = (void *)data;
	iov[1].iov_len = len;
	return umh__write_all(h->outfd, iov, 2);
}

static inline int umh__hello(struct umh__helper *h, const struct umh_hdr *req)
{
	struct umh_hello in, rep;

	if (req->len != sizeof(in) || req->max_reply != sizeof(rep)) {
		umh_err("umh: malformed hello (%u bytes)", req->len);
		return -2;		/* a malformed frame, not an I/O error */
	}
	if (umh__recv(h, &in, sizeof(in), 0) != 1)
		return -1;
	/* The kernel's cap governs both directions from now on. */
	if (in.max_payload && in.max_payload <= UMH_ABS_MAX_PAYLOAD)
		h->max_payload = in.max_payload;
	memset(&rep, 0, sizeof(rep));
	rep.proto_id = h->proto->id;
	rep.proto_version = h->proto->version;
	rep.max_payload = h->max_payload;
	rep.pid = (__u32)getpid();
	if (in.proto_id != h->proto->id || in.proto_version != h->proto->version)
		umh_err("umh: kernel expects protocol %#x v%u, this helper is %s %#x v%u",
			in.proto_id, in.proto_version, h->proto->name,
			h->proto->id, h->proto->version);
	return umh__reply(h, req, 0, &rep, sizeof(rep));
}

/* Free the request and reply buffers that are larger than UMH__KEEP_BYTES. */
static inline void umh__free_large(struct umh__helper *h)
{
	if (h->req_cap > UMH__KEEP_BYTES) {
		free(h->req);
		h->req = NULL;
		h->req_cap = 0;
	}
	if (h->out.cap > UMH__KEEP_BYTES) {
		free(h->out.buf);
		h->out.buf = NULL;
		h->out.cap = 0;
	}
}

/* Handle one request whose header is valid; -1 (I/O) or -2 (malformed) ends the helper. */
static inline int umh__dispatch(struct umh__helper *h,
				const struct umh_hdr *req)
{
	const struct umh_op_desc *d;
	__u64 t0 = 0;
	int status, timed;

	if (req->op == UMH_OP_HELLO)
		return umh__hello(h, req);

	d = umh_proto_op(h->proto, req->op);
	status = d ? umh_op_check_req(d, req->len, h->max_payload) : -EOPNOTSUPP;
	if (!status && !d->rep_var && req->max_reply < d->rep_size)
		status = -EMSGSIZE;
	if (status) {
		if (umh__skip(h, req->len))
			return -1;
		return umh__reply(h, req, status, NULL, 0);
	}

	if (req->len > h->req_cap) {
		void *nbuf = realloc(h->req, req->len);

		if (!nbuf) {
			umh_err("umh: no memory for a %u-byte request", req->len);
			return -1;
		}
		h->req = nbuf;
		h->req_cap = req->len;
	}
	if (req->len && umh__recv(h, h->req, req->len, 0) != 1)
		return -1;

	h->out.data = NULL;
	h->out.len = 0;
	h->out.max = umh_op_rep_max(d, h->max_payload);
	if (d->rep_var && req->max_reply < h->out.max)
		h->out.max = req->max_reply;
	/*
	 * Time the handler when replies wait for it, or may wait for its
	 * next run: more requests are buffered (umh__hold()).  Replies wait
	 * only for a handler that was never slow; one slow run is enough to
	 * stop that for good, however quick the runs after it.
	 */
	timed = h->opstate && h->opstate[req->op] != UMH__OP_SLOW &&
		(h->blen || h->itail > h->ihead);
	if (timed)
		t0 = umh__now_ns();
	status = h->handlers[req->op](h->ctx, h->req, req->len, &h->out);
	if (timed) {
		if (umh__now_ns() - t0 >= UMH__HOLD_NS)
			h->opstate[req->op] = UMH__OP_SLOW;
		else if (h->opstate[req->op] < UMH__QUICK_RUNS)
			h->opstate[req->op]++;
	}
	if (status > 0 || status < -UMH_MAX_STATUS_ERRNO) {
		umh_err("umh: handler of %s returned %d; sending -EIO", d->name,
			status);
		status = -EIO;
	}
	if (!status && umh_op_check_rep(d, h->out.len, (__u32)h->out.max)) {
		umh_err("umh: handler of %s made a %zu-byte reply; sending -EMSGSIZE",
			d->name, h->out.len);
		status = -EMSGSIZE;
	}
	status = umh__reply(h, req, status, h->out.data, h->out.len);
	/* A small call ends a stream of large ones. */
	if (req->len <= UMH__KEEP_BYTES && h->out.len <= UMH__KEEP_BYTES)
		umh__free_large(h);
	return status;
}

/*
 * Before waiting for the next request: if large buffers are held and none
 * arrives within UMH__TRIM_MS, free them.  Return: 0, or -1 on a poll error.
 */
static inline int umh__trim(struct umh__helper *h)
{
	struct pollfd pfd = { .fd = h->in, .events = POLLIN };
	int n;

	if ((h->req_cap <= UMH__KEEP_BYTES && h->out.cap <= UMH__KEEP_BYTES) ||
	    h->itail > h->ihead)
		return 0;
	do
		n = poll(&pfd, 1, UMH__TRIM_MS);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		umh_err("umh: poll: %s", strerror(errno));
		return -1;
	}
	if (!n)
		umh__free_large(h);
	return 0;
}

/* Apply @sb, or say loudly that there is none.  Return: 0 or -1. */
static inline int umh__sandbox(const struct umh_sandbox *sb)
{
	const char *step = "declaration";
	int ret = -EINVAL;

	if (sb && sb->off) {
		umh_err("umh: helper runs WITHOUT a sandbox: %s",
			sb->why_off ? sb->why_off : "(no reason given)");
		return 0;
	}
	if (sb)
		ret = umh_sandbox_apply(sb, &step);
	if (ret) {
		umh_err("umh: cannot apply the sandbox (%s): %s", step,
			strerror(-ret));
		return -1;
	}
	return 0;
}

/**
 * umh_helper_run() - serve requests until the kernel closes the channel
 * @proto:	the protocol (p##_umh_proto)
 * @handlers:	its dispatch table (p##_umh_handlers)
 * @ctx:	passed to every handler
 * @sb:		the sandbox to apply before the first request
 *		(p##_umh_sandbox); NULL is refused
 *
 * Usually called as UMH_HELPER_RUN(p, ctx) from main().  What main() does
 * before runs with the helper's full start-up privileges (root, every
 * capability): keep it to set-up that reads no input.
 *
 * Return: 0 on EOF, else an UMH_EXIT_* status for exit().
 */
static inline int umh_helper_run(const struct umh_proto *proto,
				 const umh_handler_fn *handlers, void *ctx,
				 const struct umh_sandbox *sb)
{
	struct umh__helper h;
	struct umh_hdr req;
	int ret = 0;

	/*
	 * The kernel execs /proc/self/fd/3, which would name the process "3";
	 * take the helper's name from argv[0] as the kernel passed it.
	 */
	prctl(PR_SET_NAME, program_invocation_short_name, 0, 0, 0);
	/*
	 * A built-in helper starts in the SDK's private mount, where the
	 * kernel makes its FIFOs: leave it.
	 */
	if (chdir("/")) {
		umh_err("umh: chdir(\"/\") failed: %s", strerror(errno));
		return UMH_EXIT_SANDBOX;
	}
#ifdef __GLIBC__
	/*
	 * A fixed threshold: what is freed above it is unmapped at once.
	 * (glibc's own threshold grows to the largest block freed, after
	 * which blocks that size stay on the heap.  musl unmaps large blocks
	 * as it is.)
	 */
	mallopt(M_MMAP_THRESHOLD, UMH__KEEP_BYTES);
#endif

	memset(&h, 0, sizeof(h));
	h.proto = proto;
	h.handlers = handlers;
	h.ctx = ctx;
	h.in = 0;
	h.outfd = 1;
	h.max_payload = UMH_DEFAULT_MAX_PAYLOAD;
	h.icap = 64 * 1024;
	h.ib = malloc(h.icap);
	if (!h.ib)
		return UMH_EXIT_NOMEM;
	/* Without it, every reply is written at once. */
	h.opstate = calloc(proto->n_ops, 1);
	if (umh__sandbox(sb)) {
		free(h.opstate);
		free(h.ib);
		return UMH_EXIT_SANDBOX;
	}

	for (;;) {
		int r = umh__trim(&h) ? -1 :
			umh__recv(&h, &req, sizeof(req), 1);

		if (r == 0)
			break;			/* the kernel hung up */
		if (r < 0) {
			ret = UMH_EXIT_IO;
			break;
		}
		r = umh_hdr_check(&req, false, h.max_payload);
		if (r) {
			umh_err("umh: malformed request header (%d): magic %#x op %u len %u",
				r, req.magic, req.op, req.len);
			ret = UMH_EXIT_PROTO;
			break;
		}
		r = umh__dispatch(&h, &req);
		if (r) {
			ret = r == -2 ? UMH_EXIT_PROTO : UMH_EXIT_IO;
			break;
		}
	}
	/* Answered before the helper ends (a no-op on EOF). */
	if (umh__flush(&h) && !ret)
		ret = UMH_EXIT_IO;
	free(h.opstate);
	free(h.ib);
	free(h.req);
	free(h.out.buf);
	return ret;
}

/* ---- handler prototypes and dispatch thunks, per kind pair ---- */

#define UMH__HANDLER_FF(p, name, op, rq, rp)				\
	int p##_handle_##name(void *ctx, const rq *req, rp *rep);	\
	static int p##__thunk_##name(void *ctx, const void *req,	\
				     size_t len, struct umh_out *out)	\
	{								\
		rp *rep = (rp *)umh_out_alloc(out, sizeof(rp));		\
		(void)len;						\
		if (!rep)						\
			return -ENOMEM;					\
		memset(rep, 0, sizeof(*rep));				\
		return p##_handle_##name(ctx, (const rq *)req, rep);	\
	}

#define UMH__HANDLER_VF(p, name, op, rqmax, rp)				\
	int p##_handle_##name(void *ctx, const void *req, size_t len,	\
			      rp *rep);					\
	static int p##__thunk_##name(void *ctx, const void *req,	\
				     size_t len, struct umh_out *out)	\
	{								\
		rp *rep = (rp *)umh_out_alloc(out, sizeof(rp));		\
		if (!rep)						\
			return -ENOMEM;					\
		memset(rep, 0, sizeof(*rep));				\
		return p##_handle_##name(ctx, req, len, rep);		\
	}

#define UMH__HANDLER_FV(p, name, op, rq, rpmax)				\
	int p##_handle_##name(void *ctx, const rq *req,			\
			      struct umh_out *out);			\
	static int p##__thunk_##name(void *ctx, const void *req,	\
				     size_t len, struct umh_out *out)	\
	{								\
		(void)len;						\
		return p##_handle_##name(ctx, (const rq *)req, out);	\
	}

#define UMH__HANDLER_VV(p, name, op, rqmax, rpmax)			\
	int p##_handle_##name(void *ctx, const void *req, size_t len,	\
			      struct umh_out *out);			\
	static int p##__thunk_##name(void *ctx, const void *req,	\
				     size_t len, struct umh_out *out)	\
	{								\
		return p##_handle_##name(ctx, req, len, out);		\
	}

#define UMH__HANDLER(p, name, op, rq, rp)				\
	UMH__BYKIND(UMH__HANDLER_, p, name, op, rq, rp)
#define UMH__HENTRY(p, name, op, rq, rp)	[op] = p##__thunk_##name,

/**
 * UMH_HELPER_DEFINE() - declare a helper's handlers and dispatch table
 * @p:		protocol name, as given to UMH_PROTO_DEFINE()
 * @OPS:	the same operation list
 *
 * Declares ``int p##_handle_<name>(...)`` for every op (the program must
 * define each, with exactly that prototype) and the table
 * ``p##_umh_handlers``.  Use in one file of the helper.
 */
#define UMH_HELPER_DEFINE(p, OPS)					\
	OPS(UMH__HANDLER)						\
	static const umh_handler_fn p##_umh_handlers[] = {		\
		OPS(UMH__HENTRY)					\
	};								\
	_Static_assert(sizeof(p##_umh_handlers) / sizeof(umh_handler_fn) \
		       == sizeof(p##_umh_ops) / sizeof(p##_umh_ops[0]),	\
		       "dispatch table and op table differ");

/**
 * UMH_HELPER_RUN() - run protocol @p's helper loop (from main())
 * @p:		protocol name
 * @ctx:	passed to every handler
 *
 * Applies ``p##_umh_sandbox`` (UMH_HELPER_SANDBOX() or
 * UMH_HELPER_UNSANDBOXED(), one of which the helper must declare) first.
 */
#define UMH_HELPER_RUN(p, ctx)						\
	umh_helper_run(&p##_umh_proto, p##_umh_handlers, (ctx),		\
		       &p##_umh_sandbox)

#endif /* _UMH_SDK_HELPER_H */
