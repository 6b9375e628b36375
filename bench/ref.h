/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The user-space references the SDK is measured against, as batch
 * functions for bench.h's driver: umh_bench.c runs each next to its SDK
 * figure, pingpong.c runs them alone.
 *
 * Every request is framed exactly as the SDK frames it (a 32-byte struct
 * umh_hdr, then the payload), so a reference moves the same bytes as the
 * SDK and the ratio shows only what the SDK adds: validation, dispatch,
 * its reader thread and the wakeups that go with it.
 *
 * - rtt:   round trip between two processes, over two pipes or over one
 *          unix stream socketpair; per-call ns.
 * - bulk:  one large request through a pipe to a process that sums its
 *          bytes (as the echo helper's sink op does) and answers 16 bytes;
 *          per-call ns.
 * - conc:  client threads call one single-threaded server process, as
 *          many callers share one helper: requests on one shared pipe
 *          (frames of at most PIPE_BUF bytes are written atomically), one
 *          reply pipe per client; calls per second.
 * - spawn: fork + exec of the static helper binary with pipes as its fds
 *          0 and 1, until it answered the SDK handshake (HELLO) and a
 *          first ping, exactly as the kernel talks to it; per-start ns.
 */
#ifndef _BENCH_REF_H
#define _BENCH_REF_H

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bench.h"

#include <umh_sdk/wire.h>
#include "../samples/echo_umh/echo_proto.h"

#define REF_CONC_PAYLOAD	64
#define REF_CONC_FRAME		(sizeof(struct umh_hdr) + REF_CONC_PAYLOAD)
#define REF_CONC_MAX		64

/*
 * Resident memory of @pid in kB, or -1.  From smaps_rollup, which walks
 * the page tables: 6.1's VmRSS lags behind (per-task counters synced every
 * 64 faults) and showed 4 kB for a fresh helper.
 */
static inline long ref_rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Rss: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* ---- rtt ---- */

struct ref_rtt {
	int wfd, rfd;
	size_t frame;
	char *buf;
	pid_t srv;
};

/* A child that echoes @frame-byte frames from @in to @out until EOF. */
static inline pid_t ref__echo_server(int in, int out, size_t frame,
				     int closefd)
{
	pid_t pid = fork();
	char *buf;

	if (pid)
		return pid;
	close(closefd);
	buf = malloc(frame);
	if (!buf)
		_exit(1);
	while (!bench_read_full(in, buf, frame))
		if (bench_write_full(out, buf, frame))
			_exit(1);
	_exit(0);
}

/* @kind: "pipe" or "unix".  Return: 0, or -1 with errno set. */
static inline int ref_rtt_open(struct ref_rtt *r, const char *kind,
			       size_t size)
{
	memset(r, 0, sizeof(*r));
	r->frame = sizeof(struct umh_hdr) + size;
	r->buf = calloc(1, r->frame);
	if (!r->buf)
		return -1;
	umh_hdr_init((struct umh_hdr *)r->buf, ECHO_OP_ECHO, 1, (__u32)size,
		     0, 0, (__u32)size);
	if (!strcmp(kind, "pipe")) {
		int req[2], rep[2];

		if (pipe(req) || pipe(rep))
			return -1;
		r->srv = ref__echo_server(req[0], rep[1], r->frame, req[1]);
		close(req[0]);
		close(rep[1]);
		r->wfd = req[1];
		r->rfd = rep[0];
	} else if (!strcmp(kind, "unix")) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
			return -1;
		r->srv = ref__echo_server(sv[1], sv[1], r->frame, sv[0]);
		close(sv[1]);
		r->wfd = r->rfd = sv[0];
	} else {
		errno = EINVAL;
		return -1;
	}
	return r->srv < 0 ? -1 : 0;
}

static inline int ref_rtt_batch(void *ctx, double *out, unsigned int n)
{
	struct ref_rtt *r = ctx;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t t0 = bench_now_ns();

		if (bench_write_full(r->wfd, r->buf, r->frame) ||
		    bench_read_full(r->rfd, r->buf, r->frame))
			return -1;
		out[i] = (double)(bench_now_ns() - t0);
	}
	return 0;
}

/*
 * Every server is killed at close: a server forked later holds copies of
 * an earlier one's fds, so waiting for EOF could wait forever.
 */
static inline void ref__reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static inline void ref_rtt_close(struct ref_rtt *r)
{
	close(r->wfd);
	if (r->rfd != r->wfd)
		close(r->rfd);
	ref__reap(r->srv);
	free(r->buf);
}

/* ---- bulk ---- */

struct ref_bulk {
	int wfd, rfd;
	size_t size;
	char *buf;
	pid_t srv;
};

static inline void ref__sink_server(int in, int out, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	struct umh_hdr h;
	__u64 rep[2];

	if (!buf)
		_exit(1);
	while (!bench_read_full(in, &h, sizeof(h))) {
		size_t i;

		if (h.len != size || bench_read_full(in, buf, size))
			_exit(1);
		rep[0] = size;
		rep[1] = 0;
		for (i = 0; i < size; i++)
			rep[1] += buf[i];
		if (bench_write_full(out, rep, sizeof(rep)))
			_exit(1);
	}
	_exit(0);
}

static inline int ref_bulk_open(struct ref_bulk *b, size_t size)
{
	int req[2], rep[2];

	memset(b, 0, sizeof(*b));
	b->size = size;
	b->buf = malloc(size ? size : 1);
	if (!b->buf || pipe(req) || pipe(rep))
		return -1;
	memset(b->buf, 0x5a, size);
	b->srv = fork();
	if (b->srv < 0)
		return -1;
	if (!b->srv) {
		close(req[1]);
		close(rep[0]);
		ref__sink_server(req[0], rep[1], size);
	}
	close(req[0]);
	close(rep[1]);
	b->wfd = req[1];
	b->rfd = rep[0];
	return 0;
}

static inline int ref_bulk_batch(void *ctx, double *out, unsigned int n)
{
	struct ref_bulk *b = ctx;
	struct umh_hdr h;
	__u64 rep[2];
	unsigned int i;

	umh_hdr_init(&h, ECHO_OP_SINK, 1, (__u32)b->size, 0, 0, sizeof(rep));
	for (i = 0; i < n; i++) {
		uint64_t t0 = bench_now_ns();

		if (bench_write_full(b->wfd, &h, sizeof(h)) ||
		    bench_write_full(b->wfd, b->buf, b->size) ||
		    bench_read_full(b->rfd, rep, sizeof(rep)))
			return -1;
		out[i] = (double)(bench_now_ns() - t0);
		if (rep[0] != b->size || rep[1] != (__u64)0x5a * b->size) {
			errno = EPROTO;
			return -1;
		}
	}
	return 0;
}

static inline void ref_bulk_close(struct ref_bulk *b)
{
	close(b->wfd);
	close(b->rfd);
	ref__reap(b->srv);
	free(b->buf);
}

/* ---- conc ---- */

struct ref_conc {
	struct bench_conc bc;		/* its ctx is this struct */
	int req;			/* shared request pipe, write end */
	int rep[REF_CONC_MAX];		/* reply pipes, read ends */
	unsigned int threads;
	pid_t srv;
};

static inline int ref__conc_call(void *ctx, unsigned int t)
{
	struct ref_conc *c = ctx;
	char buf[REF_CONC_FRAME];

	memset(buf, 0, sizeof(buf));
	umh_hdr_init((struct umh_hdr *)buf, ECHO_OP_ECHO, t, REF_CONC_PAYLOAD,
		     0, 0, REF_CONC_PAYLOAD);
	if (bench_write_full(c->req, buf, sizeof(buf)) ||
	    bench_read_full(c->rep[t], buf, sizeof(buf)))
		return -1;
	if (((struct umh_hdr *)buf)->id != t) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* Batches: bench_conc_batch(&c->bc, ...). */
static inline int ref_conc_open(struct ref_conc *c, unsigned int threads,
				unsigned int ms)
{
	int req[2], rep[REF_CONC_MAX][2];
	unsigned int i;

	memset(c, 0, sizeof(*c));
	if (!threads || threads > REF_CONC_MAX) {
		errno = EINVAL;
		return -1;
	}
	c->threads = threads;
	c->bc = (struct bench_conc){
		.call = ref__conc_call, .ctx = c, .threads = threads, .ms = ms,
	};
	if (pipe(req))
		return -1;
	for (i = 0; i < threads; i++)
		if (pipe(rep[i]))
			return -1;
	c->srv = fork();
	if (c->srv < 0)
		return -1;
	if (!c->srv) {
		char buf[REF_CONC_FRAME];

		close(req[1]);
		for (i = 0; i < threads; i++)
			close(rep[i][0]);
		while (!bench_read_full(req[0], buf, sizeof(buf))) {
			__u32 id = ((struct umh_hdr *)buf)->id;

			if (id >= threads ||
			    bench_write_full(rep[id][1], buf, sizeof(buf)))
				_exit(1);
		}
		_exit(0);
	}
	close(req[0]);
	c->req = req[1];
	for (i = 0; i < threads; i++) {
		close(rep[i][1]);
		c->rep[i] = rep[i][0];
	}
	return 0;
}

static inline void ref_conc_close(struct ref_conc *c)
{
	unsigned int i;

	close(c->req);
	for (i = 0; i < c->threads; i++)
		close(c->rep[i]);
	ref__reap(c->srv);
}

/* ---- spawn ---- */

struct ref_spawn {
	const char *helper;
	int devnull;
	long rss_kb;		/* resident kB after the last first reply */
	/*
	 * Copy the binary into a fresh memfd before each fork and exec that,
	 * as the SDK copies its blob into a shmem file and execs it.  1: the
	 * copy is timed too; 2: the clock starts after it (fork+exec of code
	 * at pages never run before, as the SDK's own start is).
	 */
	int copy;
	char *blob;
	size_t size;
};

static inline int ref_spawn_open(struct ref_spawn *s, const char *helper)
{
	memset(s, 0, sizeof(*s));
	s->helper = helper;
	s->rss_kb = -1;
	s->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	return s->devnull < 0 ? -1 : 0;
}

/*
 * ref_spawn_open() for the variant that copies @helper before each exec;
 * @untimed: the copy is not part of the figure.
 */
static inline int ref_spawn_open_copy(struct ref_spawn *s, const char *helper,
				      int untimed)
{
	struct stat st;
	int fd, ret = -1;

	if (ref_spawn_open(s, helper))
		return -1;
	s->copy = untimed ? 2 : 1;
	fd = open(helper, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && st.st_size > 0) {
		s->size = (size_t)st.st_size;
		s->blob = malloc(s->size);
		if (s->blob && !bench_read_full(fd, s->blob, s->size))
			ret = 0;
	}
	close(fd);
	return ret;
}

/* Send one request and read its reply of exactly @rep_len bytes. */
static inline int ref__frame_call(int wfd, int rfd, __u16 op,
				  const void *req, __u32 req_len, void *rep,
				  __u32 rep_len)
{
	struct umh_hdr h;

	umh_hdr_init(&h, op, op + 1u, req_len, 0, 0, rep_len);
	if (bench_write_full(wfd, &h, sizeof(h)) ||
	    bench_write_full(wfd, req, req_len) ||
	    bench_read_full(rfd, &h, sizeof(h)))
		return -1;
	if (umh_hdr_check(&h, true, rep_len) || h.status || h.len != rep_len ||
	    h.id != op + 1u) {
		errno = EPROTO;
		return -1;
	}
	return bench_read_full(rfd, rep, rep_len);
}

static inline int ref_spawn_batch(void *ctx, double *out, unsigned int n)
{
	struct ref_spawn *s = ctx;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct umh_hello hello = {
			.proto_id = ECHO_PROTO_ID,
			.proto_version = ECHO_PROTO_VERSION,
			.max_payload = UMH_DEFAULT_MAX_PAYLOAD,
		}, hrep;
		struct echo_ping ping = { .cookie = 42 };
		struct echo_pong pong = { 0 };
		int req[2], rep[2], ret;
		uint64_t t0;
		pid_t pid;

		int mfd = -1;

		if (pipe2(req, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
			return -1;
		t0 = bench_now_ns();
		if (s->copy) {
			mfd = memfd_create("echo", MFD_CLOEXEC);
			if (mfd < 0 || bench_write_full(mfd, s->blob, s->size))
				return -1;
			if (s->copy == 2)
				t0 = bench_now_ns();
		}
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid) {
			char *argv[] = { "echo", NULL };
			char *envp[] = { NULL };

			if (dup2(req[0], 0) < 0 || dup2(rep[1], 1) < 0 ||
			    dup2(s->devnull, 2) < 0)
				_exit(127);
			if (mfd >= 0)
				fexecve(mfd, argv, envp);
			else
				execve(s->helper, argv, envp);
			_exit(127);
		}
		if (mfd >= 0)
			close(mfd);
		close(req[0]);
		close(rep[1]);
		ret = ref__frame_call(req[1], rep[0], UMH_OP_HELLO, &hello,
				      sizeof(hello), &hrep, sizeof(hrep));
		if (!ret)
			ret = ref__frame_call(req[1], rep[0], ECHO_OP_PING,
					      &ping, sizeof(ping), &pong,
					      sizeof(pong));
		out[i] = (double)(bench_now_ns() - t0);
		if (!ret)
			s->rss_kb = ref_rss_kb(pid);
		close(req[1]);		/* EOF: the helper exits */
		close(rep[0]);
		if (waitpid(pid, NULL, 0) < 0 || ret)
			return -1;
		if (pong.cookie != 42 || (pid_t)pong.pid != pid) {
			errno = EPROTO;
			return -1;
		}
	}
	return 0;
}

static inline void ref_spawn_close(struct ref_spawn *s)
{
	close(s->devnull);
	free(s->blob);
}

#endif /* _BENCH_REF_H */
