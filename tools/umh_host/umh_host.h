/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * umh_host.h - run a umh-sdk helper from user space exactly as the kernel
 * side (kernel/umh_proc.c) runs it, for tests and for poking at a helper
 * by hand.  Header-only, C11 + _GNU_SOURCE, glibc or musl.
 *
 * What is mirrored from the kernel:
 *
 * - The process: fork + exec of the helper with argv = { name }, the
 *   kernel's environment (HOME=/, PATH=...), default signal dispositions,
 *   an empty signal mask and exactly three open fds: 0 = read end of the
 *   request pipe, 1 = write end of the reply pipe, 2 = write end of the
 *   stderr pipe.  Those three are blocking; the host's ends are not.
 * - The host keeps a second read end of the request pipe (the kernel's
 *   tx_keep), so writing a request can never raise SIGPIPE; a dead helper
 *   shows up as EOF on the reply pipe instead.
 * - Frames are built with umh_hdr_init() and every reply header goes
 *   through umh_hdr_check(h, true, max_payload) and then the same id, op
 *   and size checks as umh_rx_claim(); anything wrong is a protocol
 *   violation that ends this "generation": the helper is killed with
 *   SIGKILL, pending calls fail and later calls return the same error
 *   (-EPROTO), just as umh_proc_fail() does.  EOF on the reply pipe gives
 *   -ECONNRESET (between frames) or -EPIPE (inside a frame); a call that
 *   times out kills the helper, as in the kernel.
 * - Request ids start at 1 and increase; HELLO is op 0 with a
 *   struct umh_hello {proto id, version, max_payload} and
 *   max_reply = sizeof(struct umh_hello).
 * - umh_host_call() makes the same local checks as umh_blob_call()
 *   (unknown op, request size, fixed reply buffer size) before sending.
 * - The helper's stderr is split into lines like umh_drain_stderr() and
 *   umh_log_line() do (256-byte lines, overlong ones split, a leading
 *   "<N>" level stripped, level at most as urgent as 3, non-printable
 *   bytes replaced by '?') and printed to the host's stderr as
 *   "<name>: <line>", or handed to a callback.
 *
 * The kernel has a reader thread; this host has none, so whenever it waits
 * (to write, for a reply, for the exit) it also drains the reply pipe into
 * a buffer and forwards stderr, so that a helper can never block on a full
 * pipe while the host waits for something else.
 *
 * Every blocking operation takes a timeout in milliseconds (0: the host's
 * default, h->timeout_ms) and is implemented with poll().
 *
 * The calling process should ignore SIGPIPE only if it writes to the
 * helper after close_input(); the host itself never needs it.
 */
#ifndef UMH_HOST_H
#define UMH_HOST_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <umh_sdk/wire.h>
#include <umh_sdk/rpc.h>

#define UMH_HOST_NAME_MAX	32	/* the kernel's UMH_NAME_MAX */
#define UMH_HOST_ERR_LINE	256	/* the kernel's UMH_ERR_LINE */
#define UMH_HOST_TIMEOUT_MS	5000	/* the kernel's default call timeout */
#define UMH_HOST_RX_LIMIT	(256U << 20)	/* unread replies buffered */

/**
 * umh_host_log_fn - receives one line of the helper's stderr
 * @arg:	umh_host.log_arg
 * @name:	the helper's name
 * @level:	kernel log level (3..7); 6 (info) without a "<N>" prefix
 * @line:	the line, prefix stripped, NUL-terminated, no newline
 */
typedef void (*umh_host_log_fn)(void *arg, const char *name, int level,
				const char *line);

/* One request sent and not answered yet (the kernel's struct umh_call). */
struct umh_host_pending {
	__u32 id;
	__u16 op;
	__u32 rep_cap;		/* largest reply accepted (= max_reply sent) */
	bool fixed;		/* a successful reply is exactly rep_cap bytes */
};

/**
 * struct umh_host - one running helper
 *
 * Fields meant to be set by the user before umh_host_spawn*(), after
 * umh_host_init(): max_payload, timeout_ms, kill_on_fail, log, log_arg.
 * Fields meant to be read: pid, dead, why, violations, hello, replies,
 * last_from_helper, exited, wstatus.  The rest is private.
 */
struct umh_host {
	char name[UMH_HOST_NAME_MAX + 1];
	pid_t pid;
	int tx;			/* write end of the requests (helper's fd 0) */
	int tx_keep;		/* second read end: never SIGPIPE */
	int rx;			/* read end of the replies (helper's fd 1) */
	int err;		/* read end of the helper's stderr */

	/* configuration */
	__u32 max_payload;	/* the kernel's cfg.max_payload */
	unsigned int timeout_ms;	/* default for every wait */
	bool kill_on_fail;	/* SIGKILL the helper when a generation ends */
	umh_host_log_fn log;	/* NULL: print "<name>: <line>" to stderr */
	void *log_arg;

	/* state */
	const struct umh_proto *proto;	/* set by umh_host_hello() */
	__u32 next_id;
	int dead;		/* 0, or why this generation is over */
	char why[160];		/* what the violation was */
	unsigned long violations;
	unsigned long replies;	/* reply frames accepted */
	bool last_from_helper;	/* the last call's status came in a reply */
	struct umh_hello hello;	/* the last HELLO reply */
	bool exited;		/* reaped; wstatus valid */
	int wstatus;

	/* pending calls */
	struct umh_host_pending *pend;
	size_t npend, pend_cap;

	/* reply stream, buffered: bytes [roff, rlen) are unread */
	unsigned char *rbuf;
	size_t roff, rlen, rcap;
	bool rx_eof;
	int rx_err;
	bool rhdr_ok;		/* header at roff was checked */
	struct umh_hdr rhdr;
	unsigned char *pbuf;	/* payload of the last frame received */
	size_t pbuf_cap;

	/* stderr */
	char errbuf[UMH_HOST_ERR_LINE];
	size_t errlen;
	bool err_eof;
};

/* ---- small utilities ---- */

static inline long long umh_host__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline long long umh_host__deadline(const struct umh_host *h,
					   unsigned int timeout_ms)
{
	return umh_host__now_ms() + (timeout_ms ? timeout_ms : h->timeout_ms);
}

/* Milliseconds left until @deadline, for poll(); 0 once it has passed. */
static inline int umh_host__left(long long deadline)
{
	long long left = deadline - umh_host__now_ms();

	if (left <= 0)
		return 0;
	return left > 60 * 60 * 1000 ? 60 * 60 * 1000 : (int)left;
}

static inline void umh_host__close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/**
 * umh_host_init() - set up an unused host with the kernel's defaults
 * @h:	the host
 */
static inline void umh_host_init(struct umh_host *h)
{
	memset(h, 0, sizeof(*h));
	h->pid = -1;
	h->tx = h->tx_keep = h->rx = h->err = -1;
	h->max_payload = UMH_DEFAULT_MAX_PAYLOAD;
	h->timeout_ms = UMH_HOST_TIMEOUT_MS;
	h->kill_on_fail = true;
}

/* ---- stderr: umh_drain_stderr() / umh_log_line() ---- */

static inline void umh_host__log_line(struct umh_host *h, char *line,
				      size_t len)
{
	char out[UMH_HOST_ERR_LINE + 1];
	int level = 6;		/* LOGLEVEL_INFO */
	size_t i;

	if (len >= 3 && line[0] == '<' && line[1] >= '0' && line[1] <= '7' &&
	    line[2] == '>') {
		level = line[1] - '0';
		if (level < 3)	/* the helper may not go above KERN_ERR */
			level = 3;
		line += 3;
		len -= 3;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		out[i] = c < 0x20 || c > 0x7e ? '?' : (char)c;
	}
	out[len] = '\0';
	if (h->log)
		h->log(h->log_arg, h->name, level, out);
	else
		fprintf(stderr, "%s: %s\n", h->name, out);
}

/* Forward complete lines; true if bytes were read or EOF was seen. */
static inline bool umh_host__drain_stderr(struct umh_host *h)
{
	ssize_t n;
	char *nl;

	if (h->err_eof || h->err < 0)
		return false;
	n = read(h->err, h->errbuf + h->errlen, sizeof(h->errbuf) - h->errlen);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	if (n <= 0) {
		h->err_eof = true;
		if (h->errlen)
			umh_host__log_line(h, h->errbuf, h->errlen);
		h->errlen = 0;
		return true;
	}
	h->errlen += (size_t)n;
	while ((nl = memchr(h->errbuf, '\n', h->errlen))) {
		size_t len = (size_t)(nl - h->errbuf);

		umh_host__log_line(h, h->errbuf, len);
		h->errlen -= len + 1;
		memmove(h->errbuf, nl + 1, h->errlen);
	}
	if (h->errlen == sizeof(h->errbuf)) {	/* overlong line: split it */
		umh_host__log_line(h, h->errbuf, h->errlen);
		h->errlen = 0;
	}
	return true;
}

/* ---- the reply stream ---- */

/* Read what the reply pipe has; true if bytes were read or EOF seen. */
static inline bool umh_host__drain_rx(struct umh_host *h)
{
	size_t budget = 4U << 20;	/* then let the caller look at it */
	bool progress = false;

	while (!h->rx_eof && h->rx >= 0 && budget) {
		ssize_t n;

		if (h->roff && h->roff == h->rlen)
			h->roff = h->rlen = 0;
		if (h->rcap - h->rlen < 65536) {
			size_t ncap;
			unsigned char *nb;

			if (h->roff > h->rlen / 2) {	/* compact first */
				memmove(h->rbuf, h->rbuf + h->roff,
					h->rlen - h->roff);
				h->rlen -= h->roff;
				h->roff = 0;
			}
			if (h->rlen - h->roff > UMH_HOST_RX_LIMIT) {
				h->rx_eof = true;
				h->rx_err = -ENOBUFS;
				return true;
			}
			ncap = h->rcap ? h->rcap : 65536;
			while (ncap - h->rlen < 65536)
				ncap *= 2;
			if (ncap != h->rcap) {
				nb = realloc(h->rbuf, ncap);
				if (!nb) {
					h->rx_eof = true;
					h->rx_err = -ENOMEM;
					return true;
				}
				h->rbuf = nb;
				h->rcap = ncap;
			}
		}
		n = read(h->rx, h->rbuf + h->rlen, h->rcap - h->rlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		progress = true;
		if (n <= 0) {
			h->rx_eof = true;
			if (n < 0)
				h->rx_err = -errno;
			break;
		}
		h->rlen += (size_t)n;
		budget -= (size_t)n < budget ? (size_t)n : budget;
	}
	return progress;
}

/*
 * Wait until the request pipe is writable (@want_tx), or reply or stderr
 * bytes arrived, or @deadline.  Return: 1 if something happened, 0 on
 * timeout, -errno.
 */
static inline int umh_host__pump(struct umh_host *h, bool want_tx,
				 long long deadline)
{
	for (;;) {
		struct pollfd pfd[3];
		int n = 0, itx = -1, irx = -1, ierr = -1, r;
		bool progress = false;

		if (want_tx && h->tx >= 0) {
			itx = n;
			pfd[n].fd = h->tx;
			pfd[n++].events = POLLOUT;
		}
		if (!h->rx_eof && h->rx >= 0) {
			irx = n;
			pfd[n].fd = h->rx;
			pfd[n++].events = POLLIN;
		}
		if (!h->err_eof && h->err >= 0) {
			ierr = n;
			pfd[n].fd = h->err;
			pfd[n++].events = POLLIN;
		}
		r = poll(pfd, (nfds_t)n, umh_host__left(deadline));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return 0;
		if (ierr >= 0 && pfd[ierr].revents)
			progress |= umh_host__drain_stderr(h);
		if (irx >= 0 && pfd[irx].revents)
			progress |= umh_host__drain_rx(h);
		if (itx >= 0 && pfd[itx].revents)
			return 1;
		if (progress)
			return 1;
	}
}

/*
 * End this generation (umh_proc_fail()): the first reason wins, pending
 * calls are dropped, the helper is killed.
 */
static inline void umh_host__fail(struct umh_host *h, int err)
{
	if (h->dead)
		return;
	h->dead = err;
	h->npend = 0;
	if (h->kill_on_fail && h->pid > 0 && !h->exited)
		kill(h->pid, SIGKILL);
}

static inline int umh_host__violation(struct umh_host *h, const char *why,
				      unsigned int a, unsigned int b)
{
	h->violations++;
	snprintf(h->why, sizeof(h->why), "%s (%u, %u)", why, a, b);
	fprintf(stderr, "umh_host: %s: protocol violation by helper pid %d: %s; killing it\n",
		h->name, (int)h->pid, h->why);
	umh_host__fail(h, -EPROTO);
	return -EPROTO;
}

static inline int umh_host__add_pending(struct umh_host *h, __u32 id,
					__u16 op, __u32 rep_cap, bool fixed)
{
	if (h->npend == h->pend_cap) {
		size_t ncap = h->pend_cap ? 2 * h->pend_cap : 16;
		struct umh_host_pending *np;

		np = realloc(h->pend, ncap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		h->pend = np;
		h->pend_cap = ncap;
	}
	h->pend[h->npend].id = id;
	h->pend[h->npend].op = op;
	h->pend[h->npend].rep_cap = rep_cap;
	h->pend[h->npend].fixed = fixed;
	h->npend++;
	return 0;
}

static inline long umh_host__find_pending(const struct umh_host *h, __u32 id)
{
	size_t i;

	for (i = 0; i < h->npend; i++)
		if (h->pend[i].id == id)
			return (long)i;
	return -1;
}

static inline void umh_host__del_pending(struct umh_host *h, size_t i)
{
	memmove(&h->pend[i], &h->pend[i + 1],
		(h->npend - i - 1) * sizeof(h->pend[0]));
	h->npend--;
}

/* A whole header is at roff: check it as umh_rx_claim() does. */
static inline int umh_host__rx_header(struct umh_host *h)
{
	struct umh_hdr *r = &h->rhdr;
	const struct umh_host_pending *c;
	long i;

	memcpy(r, h->rbuf + h->roff, sizeof(*r));
	if (umh_hdr_check(r, true, h->max_payload))
		return umh_host__violation(h, "malformed reply header",
					   r->op, r->len);
	i = umh_host__find_pending(h, r->id);
	if (i < 0)
		return umh_host__violation(h, "reply to no pending request",
					   r->id, r->op);
	c = &h->pend[i];
	if (c->op != r->op)
		return umh_host__violation(h, "reply op differs from request",
					   r->op, c->op);
	if (!r->status && (r->len > c->rep_cap ||
			   (c->fixed && r->len != c->rep_cap)))
		return umh_host__violation(h, "reply size does not fit the op",
					   r->len, c->rep_cap);
	h->rhdr_ok = true;
	return 0;
}

/**
 * umh_host_recv() - receive the next reply frame, whichever call it answers
 * @h:		the host
 * @hdr:	the reply's header (checked)
 * @payload:	set to its payload (hdr->len bytes), valid until the next
 *		call into the host; may be NULL
 * @timeout_ms:	0: h->timeout_ms
 *
 * The reply must answer a pending request (umh_host_send()), with that
 * request's op and a size that fits: anything else is a violation.
 *
 * Return: 0; -ETIMEDOUT (nothing is lost, receive again); -EPROTO after a
 * violation; -ECONNRESET/-EPIPE if the reply stream ended between/inside
 * frames; or the error that already ended this generation.
 */
static inline int umh_host_recv(struct umh_host *h, struct umh_hdr *hdr,
				const void **payload, unsigned int timeout_ms)
{
	long long deadline = umh_host__deadline(h, timeout_ms);

	if (h->dead)
		return h->dead;
	for (;;) {
		size_t avail = h->rlen - h->roff;
		int r;

		if (!h->rhdr_ok && avail >= sizeof(struct umh_hdr)) {
			r = umh_host__rx_header(h);
			if (r)
				return r;
		}
		if (h->rhdr_ok && avail >= sizeof(struct umh_hdr) + h->rhdr.len) {
			long i = umh_host__find_pending(h, h->rhdr.id);

			if (h->rhdr.len > h->pbuf_cap) {
				unsigned char *nb = realloc(h->pbuf, h->rhdr.len);

				if (!nb)
					return -ENOMEM;
				h->pbuf = nb;
				h->pbuf_cap = h->rhdr.len;
			}
			if (h->rhdr.len)
				memcpy(h->pbuf, h->rbuf + h->roff + sizeof(*hdr),
				       h->rhdr.len);
			h->roff += sizeof(*hdr) + h->rhdr.len;
			h->rhdr_ok = false;
			if (i >= 0)
				umh_host__del_pending(h, (size_t)i);
			h->replies++;
			*hdr = h->rhdr;
			if (payload)
				*payload = h->pbuf;
			return 0;
		}
		if (h->rx_eof) {
			r = h->rx_err ? h->rx_err :
			    avail ? -EPIPE : -ECONNRESET;
			umh_host__fail(h, r);
			return r;
		}
		r = umh_host__pump(h, false, deadline);
		if (r < 0)
			return r;
		if (r == 0)
			return -ETIMEDOUT;
	}
}

/* ---- sending ---- */

/* Write @len bytes in pieces, as umh_write_frame(); *sent counts them. */
static inline int umh_host__write(struct umh_host *h, struct iovec *iov,
				  int cnt, long long deadline, size_t *sent)
{
	while (cnt) {
		ssize_t n;
		int r;

		if (h->tx < 0)
			return -EBADF;
		n = writev(h->tx, iov, cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -errno;
			r = umh_host__pump(h, true, deadline);
			if (r < 0)
				return r;
			if (r == 0)
				return -ETIMEDOUT;
			/* The kernel's waits end early on a dead generation. */
			if (h->dead)
				return h->dead;
			if (h->rx_eof)	/* the helper is gone: never writable */
				return h->rx_err ? h->rx_err : -ECONNRESET;
			continue;
		}
		*sent += (size_t)n;
		while (cnt && (size_t)n >= iov[0].iov_len) {
			n -= (ssize_t)iov[0].iov_len;
			iov[0] = iov[1];
			cnt--;
		}
		if (cnt) {
			iov[0].iov_base = (char *)iov[0].iov_base + n;
			iov[0].iov_len -= (size_t)n;
		}
	}
	return 0;
}

/**
 * umh_host_send_raw() - write arbitrary bytes to the helper's fd 0
 * @h:		the host
 * @buf:	bytes (a malformed frame, part of one, ...)
 * @len:	their number
 * @timeout_ms:	0: h->timeout_ms
 *
 * Nothing is checked or recorded: a reply to a frame sent this way is
 * not expected by umh_host_recv(); read it with umh_host_read_reply_raw().
 *
 * Return: 0, -ETIMEDOUT if the pipe stayed full, -EBADF after
 * umh_host_close_input().
 */
static inline int umh_host_send_raw(struct umh_host *h, const void *buf,
				    size_t len, unsigned int timeout_ms)
{
	struct iovec iov[2] = { { (void *)buf, len }, { NULL, 0 } };
	size_t sent = 0;

	if (!len)
		return 0;
	return umh_host__write(h, iov, 1, umh_host__deadline(h, timeout_ms),
			       &sent);
}

/**
 * umh_host_send() - send one request without waiting for its reply
 * @h:		the host
 * @op:		op number (not checked: any value goes out)
 * @req:	payload
 * @len:	its length
 * @max_reply:	the header's max_reply: the largest reply accepted
 * @fixed:	a successful reply must be exactly @max_reply bytes
 * @id:		set to the request's id; may be NULL
 * @timeout_ms:	for writing the frame; 0: h->timeout_ms
 *
 * A frame cut short ends the generation, as in umh_send().
 *
 * Return: 0 or -errno.
 */
static inline int umh_host_send(struct umh_host *h, __u16 op, const void *req,
				__u32 len, __u32 max_reply, bool fixed,
				__u32 *id, unsigned int timeout_ms)
{
	struct umh_hdr hdr;
	struct iovec iov[2];
	size_t sent = 0;
	__u32 nid;
	int r;

	if (h->dead)
		return h->dead;
	if (h->tx < 0)
		return -EBADF;
	nid = ++h->next_id;
	r = umh_host__add_pending(h, nid, op, max_reply, fixed);
	if (r)
		return r;
	umh_hdr_init(&hdr, op, nid, len, 0, 0, max_reply);
	iov[0].iov_base = &hdr;
	iov[0].iov_len = sizeof(hdr);
	iov[1].iov_base = (void *)req;
	iov[1].iov_len = len;
	r = umh_host__write(h, iov, len ? 2 : 1,
			    umh_host__deadline(h, timeout_ms), &sent);
	if (r) {
		long i = umh_host__find_pending(h, nid);

		if (i >= 0)
			umh_host__del_pending(h, (size_t)i);
		if (sent) {
			fprintf(stderr, "umh_host: %s: request %u cut short (%d) after %zu bytes; killing helper pid %d\n",
				h->name, nid, r, sent, (int)h->pid);
			umh_host__fail(h, r);
		}
		return r;
	}
	if (id)
		*id = nid;
	return 0;
}

/* ---- calls ---- */

/**
 * umh_host_call_raw() - one call with no local checks
 * @h:		the host (no other request may be pending)
 * @op:		op number, sent as is
 * @req:	request payload
 * @len:	its length, sent as is
 * @max_reply:	the header's max_reply
 * @fixed:	a successful reply must be exactly @max_reply bytes
 * @rep:	reply buffer
 * @rep_cap:	its size
 * @rep_len:	set to the reply length on success; may be NULL
 * @timeout_ms:	deadline for the whole call; 0: h->timeout_ms
 *
 * This is umh_proc_call(): what the kernel does once umh_blob_call() has
 * accepted the request, so it also serves to send requests the kernel
 * would refuse locally and see what the helper does with them.  A call that
 * times out kills the helper.  h->last_from_helper tells whether the
 * return value came in a reply from the helper.
 *
 * Return: the helper's status (0 or -errno), or a host error: -ETIMEDOUT,
 * -EPROTO, -ECONNRESET, -EPIPE, -EBUSY (other requests pending), -ENOBUFS
 * (the reply does not fit @rep_cap).
 */
static inline int umh_host_call_raw(struct umh_host *h, __u16 op,
				    const void *req, __u32 len,
				    __u32 max_reply, bool fixed,
				    void *rep, size_t rep_cap,
				    size_t *rep_len, unsigned int timeout_ms)
{
	long long deadline = umh_host__deadline(h, timeout_ms);
	const void *payload;
	struct umh_hdr hdr;
	int r;

	h->last_from_helper = false;
	if (h->dead)
		return h->dead;
	if (h->npend)
		return -EBUSY;
	r = umh_host_send(h, op, req, len, max_reply, fixed, NULL,
			  (unsigned int)(umh_host__left(deadline) + 1));
	if (!r)
		r = umh_host_recv(h, &hdr, &payload,
				  (unsigned int)(umh_host__left(deadline) + 1));
	/* As umh_proc_call(): a call that times out ends the generation. */
	if (r == -ETIMEDOUT) {
		fprintf(stderr, "umh_host: %s: helper pid %d did not answer op %u within its deadline; killing it\n",
			h->name, (int)h->pid, op);
		umh_host__fail(h, -ETIMEDOUT);
	}
	if (r)
		return r;
	h->last_from_helper = true;
	if (hdr.status)
		return hdr.status;
	if (hdr.len > rep_cap)
		return -ENOBUFS;
	if (hdr.len)
		memcpy(rep, payload, hdr.len);
	if (rep_len)
		*rep_len = hdr.len;
	return 0;
}

/**
 * umh_host_call() - one call, as umh_blob_call() makes it
 * @h:		the host, after a successful umh_host_hello()
 * @op:		op of h->proto
 * @req:	request payload
 * @len:	exactly the declared size for a fixed request
 * @rep:	reply buffer
 * @cap:	exactly the declared size for a fixed reply, else the largest
 *		reply accepted
 * @rep_len:	set to the reply length on success; may be NULL
 * @timeout_ms:	0: h->timeout_ms
 *
 * Return: as umh_blob_call(): the helper's status, or -EOPNOTSUPP, -EINVAL,
 * -EMSGSIZE for a request that does not fit @op (nothing is sent), or a
 * host error as for umh_host_call_raw(); -ENOTCONN before the handshake.
 */
static inline int umh_host_call(struct umh_host *h, unsigned int op,
				const void *req, size_t len, void *rep,
				size_t cap, size_t *rep_len,
				unsigned int timeout_ms)
{
	const struct umh_op_desc *d;
	__u32 rep_max;
	int r;

	h->last_from_helper = false;
	if (!h->proto)
		return -ENOTCONN;
	d = umh_proto_op(h->proto, op);
	if (!d)
		return -EOPNOTSUPP;
	r = umh_op_check_req(d, len, h->max_payload);
	if (r)
		return r;
	if (!d->rep_var && cap != d->rep_size)
		return -EINVAL;
	rep_max = umh_op_rep_max(d, h->max_payload);
	if (cap > rep_max)
		cap = rep_max;
	return umh_host_call_raw(h, (__u16)op, req, (__u32)len, (__u32)cap,
				 !d->rep_var, rep, cap, rep_len, timeout_ms);
}

/**
 * umh_host_hello() - the handshake (and the kernel's health check)
 * @h:		the host
 * @proto:	the protocol the helper must speak
 *
 * Sends HELLO {proto id, version, h->max_payload}; the reply is stored in
 * h->hello even when it names another protocol.  Like the kernel, a
 * mismatch ends the generation (the helper is killed).
 *
 * Return: 0, -EPROTO on a protocol mismatch, or as umh_host_call_raw().
 */
static inline int umh_host_hello(struct umh_host *h,
				 const struct umh_proto *proto)
{
	struct umh_hello req, rep;
	int r;

	memset(&req, 0, sizeof(req));
	req.proto_id = proto->id;
	req.proto_version = proto->version;
	req.max_payload = h->max_payload;
	r = umh_host_call_raw(h, UMH_OP_HELLO, &req, sizeof(req), sizeof(rep),
			      true, &rep, sizeof(rep), NULL, 0);
	if (r)
		return r;
	h->hello = rep;
	if (rep.proto_id != proto->id || rep.proto_version != proto->version) {
		fprintf(stderr, "umh_host: %s: helper speaks protocol %#x version %u, expected %s (%#x) version %u\n",
			h->name, rep.proto_id, rep.proto_version,
			proto->name ? proto->name : "?", proto->id,
			proto->version);
		umh_host__fail(h, -EPROTO);
		return -EPROTO;
	}
	h->proto = proto;
	return 0;
}

/**
 * umh_host_read_reply_raw() - read raw bytes of the reply stream
 * @h:		the host
 * @buf:	destination
 * @len:	bytes wanted
 * @got:	set to the bytes stored in @buf, whatever the result; may be NULL
 * @timeout_ms:	0: h->timeout_ms
 *
 * No checking at all; for replies to umh_host_send_raw() frames and for
 * checking that nothing (more) comes.
 *
 * Return: 0 once @len bytes were read, -ECONNRESET if the stream ended
 * before (see @got), -ETIMEDOUT.
 */
static inline int umh_host_read_reply_raw(struct umh_host *h, void *buf,
					  size_t len, size_t *got,
					  unsigned int timeout_ms)
{
	long long deadline = umh_host__deadline(h, timeout_ms);
	size_t done = 0;
	int r = 0;

	while (done < len) {
		size_t avail = h->rlen - h->roff;

		if (avail) {
			size_t take = avail < len - done ? avail : len - done;

			memcpy((char *)buf + done, h->rbuf + h->roff, take);
			h->roff += take;
			done += take;
			continue;
		}
		if (h->rx_eof) {
			r = -ECONNRESET;
			break;
		}
		r = umh_host__pump(h, false, deadline);
		if (r < 0)
			break;
		if (r == 0) {
			r = -ETIMEDOUT;
			break;
		}
		r = 0;
	}
	h->rhdr_ok = false;
	if (got)
		*got = done;
	return r;
}

/* ---- process ---- */

/* Close every fd from @lowfd up; in the child, between fork and exec. */
static inline void umh_host__closefrom(int lowfd)
{
	long max, fd;

#ifdef SYS_close_range
	if (!syscall(SYS_close_range, (unsigned int)lowfd, ~0U, 0U))
		return;
#endif
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 1 << 20)
		max = 1 << 20;
	for (fd = lowfd; fd < max; fd++)
		close((int)fd);
}

static inline bool umh_host__name_ok(const char *name)
{
	const char *c;

	if (!*name || strlen(name) > UMH_HOST_NAME_MAX)
		return false;
	for (c = name; *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
		    !(*c >= '0' && *c <= '9') && *c != '_')
			return false;
	return true;
}

/* The child's side of the spawn: never returns. */
static inline void umh_host__child(const char *path, const char *name,
				   int (*fn)(void *), void *arg, int fds[4])
{
	static char *const envp[] = { "HOME=/",
				      "PATH=/sbin:/bin:/usr/sbin:/usr/bin",
				      NULL };
	char *argv[2] = { (char *)name, NULL };
	struct sigaction sa;
	sigset_t none;
	int i, err;

	/* A usermode helper starts with default dispositions, no mask. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 1; i < 65; i++)
		sigaction(i, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* Out of the way of 0..3 first, then into place. */
	for (i = 0; i < 4; i++) {
		fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
		if (fds[i] < 0)
			_exit(127);
	}
	if (dup2(fds[0], 0) != 0 || dup2(fds[1], 1) != 1 ||
	    dup2(fds[2], 2) != 2 || dup3(fds[3], 3, O_CLOEXEC) != 3)
		_exit(127);
	umh_host__closefrom(4);
	if (fn) {
		close(3);
		_exit(fn(arg));
	}
	err = ENOENT;
	if (path) {
		execve(path, argv, envp);
		err = errno;
	}
	if (write(3, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

static inline int umh_host__spawn(struct umh_host *h, const char *path,
				  const char *name, int (*fn)(void *),
				  void *arg)
{
	int req[2] = { -1, -1 }, rep[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int rpt[2] = { -1, -1 }, fds[4], r, err = 0;
	long long deadline;
	pid_t pid;

	if (!umh_host__name_ok(name))
		return -EINVAL;
	if (h->pid > 0)
		return -EBUSY;
	snprintf(h->name, sizeof(h->name), "%s", name);
	if (pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC) ||
	    pipe2(errp, O_CLOEXEC) || pipe2(rpt, O_CLOEXEC)) {
		r = -errno;
		goto fail;
	}
	fds[0] = req[0];
	fds[1] = rep[1];
	fds[2] = errp[1];
	fds[3] = rpt[1];
	fflush(NULL);	/* a forked fn must not write our stdio buffers */
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto fail;
	}
	if (pid == 0)
		umh_host__child(path, name, fn, arg, fds);

	h->pid = pid;
	h->exited = false;
	h->tx = req[1];
	h->tx_keep = req[0];
	h->rx = rep[0];
	h->err = errp[0];
	umh_host__close(&rep[1]);
	umh_host__close(&errp[1]);
	umh_host__close(&rpt[1]);
	fcntl(h->tx, F_SETFL, fcntl(h->tx, F_GETFL) | O_NONBLOCK);
	fcntl(h->rx, F_SETFL, fcntl(h->rx, F_GETFL) | O_NONBLOCK);
	fcntl(h->err, F_SETFL, fcntl(h->err, F_GETFL) | O_NONBLOCK);

	/* Exec succeeded when the report pipe closes without a word. */
	deadline = umh_host__deadline(h, 0);
	for (;;) {
		struct pollfd p = { .fd = rpt[0], .events = POLLIN };
		ssize_t n;

		r = poll(&p, 1, umh_host__left(deadline));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = r ? errno : ETIMEDOUT;
			break;
		}
		n = read(rpt[0], &err, sizeof(err));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(err))
			err = 0;
		break;
	}
	umh_host__close(&rpt[0]);
	if (err) {
		int st;

		kill(pid, SIGKILL);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		h->exited = true;
		h->wstatus = st;
		umh_host__close(&h->tx);
		umh_host__close(&h->tx_keep);
		umh_host__close(&h->rx);
		umh_host__close(&h->err);
		h->pid = -1;
		return -err;
	}
	return 0;

fail:
	umh_host__close(&req[0]);
	umh_host__close(&req[1]);
	umh_host__close(&rep[0]);
	umh_host__close(&rep[1]);
	umh_host__close(&errp[0]);
	umh_host__close(&errp[1]);
	umh_host__close(&rpt[0]);
	umh_host__close(&rpt[1]);
	return r;
}

/**
 * umh_host_spawn() - start a helper executable as the kernel would
 * @h:		a host set up by umh_host_init()
 * @path:	the executable
 * @name:	its name (argv[0], log prefix): letters, digits, '_', at
 *		most 32, as the kernel requires
 *
 * Return: 0 once the helper was exec'd; -EINVAL for a bad name, the exec
 * error (-ENOENT, -EACCES, -ENOEXEC, ...), or a pipe/fork error.
 */
static inline int umh_host_spawn(struct umh_host *h, const char *path,
				 const char *name)
{
	return umh_host__spawn(h, path, name, NULL, NULL);
}

/**
 * umh_host_spawn_fn() - like umh_host_spawn(), but the child runs @fn
 * @h:		a host set up by umh_host_init()
 * @name:	helper name
 * @fn:		run in the forked child, with the helper's fds in place;
 *		its return value is the child's exit status
 * @arg:	passed to @fn
 *
 * For testing a helper runtime inside the test program itself.
 */
static inline int umh_host_spawn_fn(struct umh_host *h, const char *name,
				    int (*fn)(void *), void *arg)
{
	return umh_host__spawn(h, NULL, name, fn, arg);
}

/**
 * umh_host_close_input() - close the request stream: the helper sees EOF
 * @h:	the host
 */
static inline void umh_host_close_input(struct umh_host *h)
{
	umh_host__close(&h->tx);
	umh_host__close(&h->tx_keep);
}

/**
 * umh_host_kill() - send a signal to the helper (if not reaped yet)
 * @h:		the host
 * @sig:	signal
 *
 * Return: 0 or -errno.
 */
static inline int umh_host_kill(struct umh_host *h, int sig)
{
	if (h->pid <= 0 || h->exited)
		return -ESRCH;
	return kill(h->pid, sig) ? -errno : 0;
}

/**
 * umh_host_wait() - wait for the helper to exit and reap it
 * @h:		the host
 * @wstatus:	its wait status (WIFEXITED() etc.); may be NULL
 * @timeout_ms:	0: h->timeout_ms
 *
 * Keeps forwarding stderr and buffering replies meanwhile; once the helper
 * is reaped, its last stderr lines are forwarded.
 *
 * Return: 0, -ETIMEDOUT (still running), -ECHILD if never started.
 */
static inline int umh_host_wait(struct umh_host *h, int *wstatus,
				unsigned int timeout_ms)
{
	long long deadline = umh_host__deadline(h, timeout_ms);

	if (h->pid <= 0)
		return -ECHILD;
	while (!h->exited) {
		int st;
		pid_t r = waitpid(h->pid, &st, WNOHANG);
		long long slice;

		if (r == h->pid) {
			h->exited = true;
			h->wstatus = st;
			break;
		}
		if (r < 0 && errno != EINTR)
			return -errno;
		if (!umh_host__left(deadline))
			return -ETIMEDOUT;
		slice = umh_host__now_ms() + 10;
		if (slice > deadline)
			slice = deadline;
		if (umh_host__pump(h, false, slice) < 0)
			usleep(1000);
	}
	/* Its stderr is closed unless it passed it on: take the rest. */
	while (!h->err_eof && h->err >= 0 && umh_host__drain_stderr(h))
		;
	if (wstatus)
		*wstatus = h->wstatus;
	return 0;
}

/**
 * umh_host_destroy() - kill (if needed), reap and free everything
 * @h:	the host; umh_host_init() it again before reuse
 */
static inline void umh_host_destroy(struct umh_host *h)
{
	if (h->pid > 0 && !h->exited) {
		kill(h->pid, SIGKILL);
		umh_host_wait(h, NULL, 5000);
	}
	umh_host_close_input(h);
	umh_host__close(&h->rx);
	umh_host__close(&h->err);
	free(h->rbuf);
	free(h->pbuf);
	free(h->pend);
	h->rbuf = h->pbuf = NULL;
	h->pend = NULL;
	h->rlen = h->roff = h->rcap = h->pbuf_cap = 0;
	h->npend = h->pend_cap = 0;
}

/**
 * umh_host_exit_code() - the helper's exit code, or -signal, or -1000
 * @wstatus:	from umh_host_wait()
 */
static inline int umh_host_exit_code(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return -WTERMSIG(wstatus);
	return -1000;
}

#endif /* UMH_HOST_H */
