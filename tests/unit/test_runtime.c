// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The helper runtime of <umh_sdk/helper.h>, in process: this program
 * declares a test protocol and its handlers, forks itself (via
 * umh_host_spawn_fn()) and the child runs UMH_HELPER_RUN() on the helper
 * fds, exactly as an exec'd helper would.  The parent drives it through
 * tools/umh_host/umh_host.h.
 *
 * Covers: the status filter (positive or < -511 -> -EIO), fixed replies
 * (always the declared size, zeroed), variable replies above max_reply
 * (-EMSGSIZE), umh_out_alloc()/umh_out_set() limits, holes and unknown
 * ops, the handler context, logging through stderr, a frame arriving one
 * byte at a time, EINTR, a crashing handler, small replies to requests
 * that came together leaving together but never waiting for a handler that
 * was slow, and the host's own checks of replies that break the protocol
 * (garbage, unknown id, wrong op, wrong size, truncated reply).
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>

#include <umh_sdk/helper.h>
#include "umh_host.h"
#include "tap.h"

/* ---- the test protocol ---- */

struct rt_status_req {
	__s32 status;		/* returned by the handler */
	__u32 nowrite;		/* don't touch the reply */
};

struct rt_status_rep {
	__u32 a;
	__s32 b;
	__u64 c;
};

enum { VR_ALLOC, VR_SET, VR_CHEAT, VR_FAIL, VR_MAX, VR_ALLOC2 };

struct rt_var_req {
	__u32 mode;
	__u32 len;
	__u32 fill;
	__u32 pad;
};

struct rt_vf_rep {
	__u32 len;
	__u32 sum;
};

struct rt_ctx_req {
	__u32 pad;
};

struct rt_ctx_rep {
	__u32 magic;
	__u32 calls;
};

struct rt_gate {
	__u32 block;		/* wait for SIGUSR1 first */
};

enum { INJ_WRITE, INJ_WRITE_EXIT, INJ_ABORT };

#define RT_VAR_MAX	4096
#define RT_REV_REQ	100
#define RT_REV_REP	200
#define RT_VF_REQ	64
#define RT_LOG_MAX	2000
#define RT_INJ_MAX	1024

#define RT_OPS(OP)							\
	OP(rt, status, 1, UMH_FIXED(struct rt_status_req),		\
	   UMH_FIXED(struct rt_status_rep))				\
	OP(rt, varrep, 2, UMH_FIXED(struct rt_var_req), UMH_VAR(RT_VAR_MAX)) \
	OP(rt, rev, 3, UMH_VAR(RT_REV_REQ), UMH_VAR(RT_REV_REP))	\
	OP(rt, vf, 5, UMH_VAR(RT_VF_REQ), UMH_FIXED(struct rt_vf_rep))	\
	OP(rt, log, 6, UMH_VAR(RT_LOG_MAX), UMH_VAR(0))			\
	OP(rt, ctx, 7, UMH_FIXED(struct rt_ctx_req),			\
	   UMH_FIXED(struct rt_ctx_rep))				\
	OP(rt, inject, 8, UMH_VAR(RT_INJ_MAX), UMH_VAR(0))		\
	OP(rt, gate, 9, UMH_FIXED(struct rt_gate), UMH_FIXED(struct rt_gate))

UMH_PROTO_DEFINE(rt, 0x52554e54U, 3, RT_OPS)
UMH_HELPER_DEFINE(rt, RT_OPS)
UMH_HELPER_SANDBOX(rt, UMH_NO_CAPS, UMH_NO_SYSCALLS)

/* ---- the handlers (run in the forked child) ---- */

struct rt_ctx {
	__u32 magic;
	__u32 calls;
};

static unsigned char rt_static[2 * RT_VAR_MAX];

int rt_handle_status(void *ctx, const struct rt_status_req *req,
		     struct rt_status_rep *rep)
{
	(void)ctx;
	if (!req->nowrite) {
		rep->a = 0x11111111;
		rep->b = req->status;
		rep->c = 0x2222222222222222ULL;
	}
	return req->status;
}

int rt_handle_varrep(void *ctx, const struct rt_var_req *req,
		     struct umh_out *out)
{
	unsigned char *p;
	__u32 max;

	(void)ctx;
	memset(rt_static, (int)req->fill, sizeof(rt_static));
	switch (req->mode) {
	case VR_ALLOC:
		errno = 0;
		p = umh_out_alloc(out, req->len);
		if (!p)
			return errno ? -errno : -EFAULT;
		memset(p, (int)req->fill, req->len);
		return 0;
	case VR_SET:
		if (req->len > sizeof(rt_static))
			return -E2BIG;
		return umh_out_set(out, rt_static, req->len);
	case VR_CHEAT:		/* bypass the helpers' limits */
		if (req->len > sizeof(rt_static))
			return -E2BIG;
		out->data = rt_static;
		out->len = req->len;
		return 0;
	case VR_FAIL:
		p = umh_out_alloc(out, req->len);
		if (p)
			memset(p, (int)req->fill, req->len);
		return -ENOSPC;
	case VR_MAX:
		max = (__u32)out->max;
		p = umh_out_alloc(out, sizeof(max));
		if (!p)
			return -errno;
		memcpy(p, &max, sizeof(max));
		return 0;
	case VR_ALLOC2:		/* the last allocation counts */
		p = umh_out_alloc(out, req->len + 7);
		if (p)
			memset(p, 0xee, req->len + 7);
		p = umh_out_alloc(out, req->len);
		if (!p)
			return -errno;
		memset(p, (int)req->fill, req->len);
		return 0;
	}
	return -EINVAL;
}

int rt_handle_rev(void *ctx, const void *req, size_t len, struct umh_out *out)
{
	const unsigned char *in = req;
	unsigned char *p;
	size_t i;

	(void)ctx;
	p = umh_out_alloc(out, len);
	if (!p)
		return -errno;
	for (i = 0; i < len; i++)
		p[i] = in[len - 1 - i];
	return 0;
}

int rt_handle_vf(void *ctx, const void *req, size_t len,
		 struct rt_vf_rep *rep)
{
	const unsigned char *in = req;
	size_t i;

	(void)ctx;
	rep->len = (__u32)len;
	for (i = 0; i < len; i++)
		rep->sum += in[i];
	return 0;
}

int rt_handle_log(void *ctx, const void *req, size_t len, struct umh_out *out)
{
	const char *s = req;

	(void)ctx;
	(void)out;
	if (len < 1)
		return -EINVAL;
	if (s[0] == 'R') {	/* raw bytes to stderr, no framing at all */
		if (write(2, s + 1, len - 1) < 0)
			return -errno;
		return 0;
	}
	umh_log(s[0], "%.*s", (int)(len - 1), s + 1);
	return 0;
}

int rt_handle_ctx(void *ctx, const struct rt_ctx_req *req,
		  struct rt_ctx_rep *rep)
{
	struct rt_ctx *c = ctx;

	(void)req;
	rep->magic = c->magic;
	rep->calls = ++c->calls;
	return 0;
}

/* Write the request's bytes (after a u32 action) straight to fd 1. */
int rt_handle_inject(void *ctx, const void *req, size_t len,
		     struct umh_out *out)
{
	const unsigned char *p = req;
	__u32 action;

	(void)ctx;
	(void)out;
	if (len < sizeof(action))
		return -EINVAL;
	memcpy(&action, p, sizeof(action));
	if (action == INJ_ABORT)
		abort();
	if (write(1, p + sizeof(action), len - sizeof(action)) < 0)
		return -errno;
	if (action == INJ_WRITE_EXIT)
		_exit(0);
	return 0;
}

static volatile sig_atomic_t rt_released;

/*
 * Block until SIGUSR1 (run_helper_eintr()) if asked to (1): a slow
 * handler; or spin for 2 ms (2): slow, with no signal to race (the
 * sandbox allows no sleep but the runtime's own).
 */
int rt_handle_gate(void *ctx, const struct rt_gate *req, struct rt_gate *rep)
{
	sigset_t usr1, old;

	(void)ctx;
	if (req->block == 2) {
		__u64 t0 = umh__now_ns();

		while (umh__now_ns() - t0 < 2000000)
			;
	} else if (req->block) {
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, &old);
		while (!rt_released)
			ppoll(NULL, 0, NULL, &old);
		rt_released = 0;
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	rep->block = req->block;
	return 0;
}

static struct rt_ctx rt_ctx = { .magic = 0xc0de };

static int run_helper(void *arg)
{
	(void)arg;
	return UMH_HELPER_RUN(rt, &rt_ctx);
}

static void on_usr1(int sig)
{
	(void)sig;
	rt_released = 1;
}

/* Same, with a SIGUSR1 handler that interrupts system calls (EINTR). */
static int run_helper_eintr(void *arg)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	return run_helper(arg);
}

/* ---- the parent's side ---- */

#define LOG_MAX 64

static struct {
	char line[LOG_MAX][UMH_HOST_ERR_LINE + 1];
	int level[LOG_MAX];
	int n;
} logs;

static void log_capture(void *arg, const char *name, int level,
			const char *line)
{
	(void)arg;
	tap_diag("  [%s <%d>] %.100s%s", name, level, line,
		 strlen(line) > 100 ? "..." : "");
	if (logs.n < LOG_MAX) {
		snprintf(logs.line[logs.n], sizeof(logs.line[0]), "%s", line);
		logs.level[logs.n++] = level;
	}
}

static int log_find(const char *needle)
{
	int i;

	for (i = 0; i < logs.n; i++)
		if (strstr(logs.line[i], needle))
			return i;
	return -1;
}

static bool start_fn(struct umh_host *h, int (*fn)(void *))
{
	int r;

	umh_host_init(h);
	h->log = log_capture;
	r = umh_host_spawn_fn(h, "rt", fn, NULL);
	if (r) {
		tap_diag("spawn: %d", r);
		return false;
	}
	r = umh_host_hello(h, &rt_umh_proto);
	if (r)
		tap_diag("hello: %d", r);
	return r == 0;
}

static bool start(struct umh_host *h)
{
	return start_fn(h, run_helper);
}

static int finish(struct umh_host *h)
{
	int st, r;

	umh_host_close_input(h);
	r = umh_host_wait(h, &st, 5000);
	umh_host_destroy(h);
	return r ? -1000 : umh_host_exit_code(st);
}

static int wait_exit(struct umh_host *h)
{
	int st, r;

	r = umh_host_wait(h, &st, 5000);
	umh_host_destroy(h);
	return r ? -1000 : umh_host_exit_code(st);
}

static int call_status(struct umh_host *h, __s32 status, __u32 nowrite,
		       struct rt_status_rep *rep)
{
	struct rt_status_req req = { .status = status, .nowrite = nowrite };

	memset(rep, 0xcc, sizeof(*rep));
	return umh_host_call(h, 1, &req, sizeof(req), rep, sizeof(*rep), NULL,
			     0);
}

static int call_var(struct umh_host *h, __u32 mode, __u32 len, __u32 fill,
		    void *rep, size_t cap, size_t *rep_len)
{
	struct rt_var_req req = { .mode = mode, .len = len, .fill = fill };

	*rep_len = 0xdead;
	return umh_host_call(h, 2, &req, sizeof(req), rep, cap, rep_len, 0);
}

static bool all_bytes(const unsigned char *p, size_t len, unsigned char v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* ---- the process umh_host_spawn() makes ---- */

#define PROBE_NAME	"umh_probe"

/*
 * Run when this program is exec'd by umh_host_spawn() as PROBE_NAME: check
 * the environment the kernel gives a helper.  Exit status: a bit per
 * failed check, 0 if all passed.
 */
static int probe(int argc, char **argv)
{
	static const int want_acc[3] = { O_RDONLY, O_WRONLY, O_WRONLY };
	struct sigaction sa;
	sigset_t mask;
	struct stat st;
	int fd, bad = 0, nenv = 0;
	char **e;

	for (fd = 0; fd < 3; fd++) {
		int fl = fcntl(fd, F_GETFL);

		if (fstat(fd, &st) || !S_ISFIFO(st.st_mode))
			bad |= 1;		/* 0, 1, 2 are pipes */
		if (fl < 0 || (fl & O_ACCMODE) != want_acc[fd])
			bad |= 2;		/* in the right direction */
		if (fl < 0 || (fl & O_NONBLOCK))
			bad |= 4;		/* and blocking */
	}
	for (fd = 3; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			bad |= 8;		/* nothing else is open */
	if (sigprocmask(SIG_SETMASK, NULL, &mask) || sigismember(&mask, SIGUSR1) ||
	    sigismember(&mask, SIGTERM))
		bad |= 16;			/* no signal blocked */
	if (sigaction(SIGPIPE, NULL, &sa) || sa.sa_handler != SIG_DFL)
		bad |= 32;			/* default dispositions */
	for (e = environ; *e; e++) {
		nenv++;
		if (strcmp(*e, "HOME=/") &&
		    strcmp(*e, "PATH=/sbin:/bin:/usr/sbin:/usr/bin"))
			bad |= 64;		/* the kernel's environment */
	}
	if (nenv != 2)
		bad |= 64;
	if (argc != 1 || strcmp(argv[0], PROBE_NAME))
		bad |= 128;			/* argv = { name } */
	umh_err("probe result %d", bad);
	return bad;
}

static void test_spawn_env(void)
{
	struct umh_host h;
	int st = -1, r;

	sigset_t block, old;
	int leak;

	/* Give the child something to get rid of: an inheritable fd, a mask. */
	leak = dup(2);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	logs.n = 0;
	umh_host_init(&h);
	h.log = log_capture;
	r = umh_host_spawn(&h, "/proc/self/exe", PROBE_NAME);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (leak >= 0)
		close(leak);
	is(r, 0, "exec of this program as '%s'", PROBE_NAME);
	r = umh_host_wait(&h, &st, 5000);
	umh_host_destroy(&h);
	ok(r == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "exec'd helper sees fds 0/1/2 as blocking pipes, nothing else open, no blocked signals, default SIGPIPE, the kernel's env and argv (failed checks: %d)",
	   r == 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	ok(logs.n == 1 && logs.level[0] == 3 &&
	   !strcmp(logs.line[0], "probe result 0"),
	   "its stderr line was forwarded");
}

/* ---- umh_out_*(), no process involved ---- */

static void test_out_unit(void)
{
	struct umh_out out;
	unsigned char data[16];
	void *p, *q;
	int r;

	memset(&out, 0, sizeof(out));
	out.max = 10;
	errno = 0;
	p = umh_out_alloc(&out, 10);
	ok(p && out.data == p && out.len == 10 && out.cap >= 10,
	   "umh_out_alloc(max): buffer of 10");
	errno = 0;
	q = umh_out_alloc(&out, 11);
	ok(!q && errno == EMSGSIZE, "umh_out_alloc(max + 1): NULL, EMSGSIZE");
	q = umh_out_alloc(&out, 5);
	ok(q == p && out.len == 5, "smaller umh_out_alloc() reuses the buffer");
	out.max = 1 << 20;
	q = umh_out_alloc(&out, 1 << 20);
	if (q)
		memset(q, 1, 1 << 20);
	ok(q && out.cap >= (1U << 20) && out.len == 1U << 20,
	   "umh_out_alloc() grows the buffer to 1 MiB");
	q = umh_out_alloc(&out, 0);
	ok(q != NULL && out.len == 0, "umh_out_alloc(0) with a buffer: non-NULL");
	out.max = 10;
	r = umh_out_set(&out, data, 10);
	ok(r == 0 && out.data == data && out.len == 10, "umh_out_set(max): 0");
	r = umh_out_set(&out, data, 11);
	is(r, -EMSGSIZE, "umh_out_set(max + 1): -EMSGSIZE");
	r = umh_out_set(&out, NULL, 0);
	ok(r == 0 && out.len == 0, "umh_out_set(NULL, 0): 0");
	free(out.buf);

	memset(&out, 0, sizeof(out));
	out.max = 0;
	errno = 0;
	q = umh_out_alloc(&out, 1);
	ok(!q && errno == EMSGSIZE, "max 0: umh_out_alloc(1) -> NULL, EMSGSIZE");
	errno = 0;
	q = umh_out_alloc(&out, 0);
	ok(q != NULL || errno != 0,
	   "max 0, no buffer yet: umh_out_alloc(0) succeeds or sets errno (got %p, errno %d)",
	   q, errno);
	is(umh_out_set(&out, NULL, 0), 0, "max 0: umh_out_set(NULL, 0): 0");
	is(umh_out_set(&out, data, 1), -EMSGSIZE, "max 0: umh_out_set(1): -EMSGSIZE");
	free(out.buf);
}

/* ---- through the runtime ---- */

static void test_status_filter(void)
{
	static const struct {
		__s32 in, out;
	} cases[] = {
		{ -1, -1 }, { -EIO, -EIO }, { -ENOSPC, -ENOSPC },
		{ -UMH_MAX_STATUS_ERRNO, -UMH_MAX_STATUS_ERRNO },
		{ -UMH_MAX_STATUS_ERRNO - 1, -EIO },	/* -ERESTARTSYS */
		{ -4096, -EIO }, { INT_MIN, -EIO },
		{ 1, -EIO }, { 512, -EIO }, { INT_MAX, -EIO },
	};
	struct rt_status_rep rep;
	struct umh_host h;
	size_t i;
	int r;

	logs.n = 0;
	if (!ok(start(&h), "fork + hello with the test protocol")) {
		umh_host_destroy(&h);
		return;
	}
	r = call_status(&h, 0, 0, &rep);
	ok(r == 0 && rep.a == 0x11111111 && rep.b == 0 &&
	   rep.c == 0x2222222222222222ULL, "FF handler returning 0: its reply");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = call_status(&h, cases[i].in, 0, &rep);
		ok(r == cases[i].out && h.last_from_helper,
		   "handler returning %d: caller gets %d (got %d)",
		   cases[i].in, cases[i].out, r);
	}
	r = call_status(&h, 0, 0, &rep);
	is(r, 0, "still serving");
	is(h.violations, 0, "no protocol violation");
	is(finish(&h), 0, "EOF: exit 0");
	ok(log_find("handler of status returned 1; sending -EIO") >= 0,
	   "the runtime logged the bad status");
}

static void test_fixed_replies(void)
{
	struct rt_status_req sreq = { 0, 0 };
	struct rt_status_rep rep;
	unsigned char big[RT_VAR_MAX];
	struct umh_host h;
	size_t len = 0;
	int r;

	if (!ok(start(&h), "fork + hello")) {
		umh_host_destroy(&h);
		return;
	}
	/* Dirty the runtime's reply buffer, then ask for an untouched FF reply. */
	r = call_var(&h, VR_ALLOC, RT_VAR_MAX, 0xaa, big, sizeof(big), &len);
	ok(r == 0 && len == RT_VAR_MAX && all_bytes(big, len, 0xaa),
	   "FV reply of 4096 x 0xaa (fills the runtime's buffer)");
	r = call_status(&h, 0, 1, &rep);
	ok(r == 0 && all_bytes((unsigned char *)&rep, sizeof(rep), 0),
	   "FF handler that writes nothing: reply is all zeros, not stale bytes");

	/* A larger max_reply does not make a fixed reply longer. */
	memset(big, 0, sizeof(big));
	r = umh_host_call_raw(&h, 1, &sreq, sizeof(sreq), 1000, false, big,
			      sizeof(big), &len, 0);
	ok(r == 0 && len == sizeof(struct rt_status_rep),
	   "FF reply with max_reply 1000: exactly %zu bytes (got %zu)",
	   sizeof(struct rt_status_rep), len);
	r = umh_host_call_raw(&h, 1, &sreq, sizeof(sreq),
			      sizeof(struct rt_status_rep) - 1, true, big,
			      sizeof(big), &len, 0);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "FF with max_reply one byte short: -EMSGSIZE from the helper");

	/* VF */
	memset(big, 3, RT_VF_REQ + 1);
	{
		struct rt_vf_rep vf;

		r = umh_host_call(&h, 5, big, RT_VF_REQ, &vf, sizeof(vf), &len, 0);
		ok(r == 0 && vf.len == RT_VF_REQ && vf.sum == 3 * RT_VF_REQ,
		   "VF at its max: len %u sum %u", vf.len, vf.sum);
		r = umh_host_call(&h, 5, NULL, 0, &vf, sizeof(vf), &len, 0);
		ok(r == 0 && vf.len == 0 && vf.sum == 0, "VF empty request");
		r = umh_host_call_raw(&h, 5, big, RT_VF_REQ + 1, sizeof(vf), true,
				      &vf, sizeof(vf), &len, 0);
		ok(r == -EMSGSIZE && h.last_from_helper,
		   "VF request max + 1: -EMSGSIZE from the helper");
	}
	is(h.violations, 0, "no protocol violation");
	is(finish(&h), 0, "EOF: exit 0");
}

static void test_var_replies(void)
{
	unsigned char big[2 * RT_VAR_MAX], in[RT_REV_REQ + 1];
	struct umh_host h;
	size_t len = 0, i;
	__u32 max;
	int r;

	/* First request of a fresh helper: no reply buffer exists yet. */
	if (!ok(start(&h), "fork + hello")) {
		umh_host_destroy(&h);
		return;
	}
	r = call_var(&h, VR_ALLOC, 0, 0, big, sizeof(big), &len);
	ok(r == 0 && len == 0,
	   "first request: umh_out_alloc(out, 0) gives an empty reply (status %d)",
	   r);

	r = call_var(&h, VR_ALLOC, RT_VAR_MAX, 0x11, big, sizeof(big), &len);
	ok(r == 0 && len == RT_VAR_MAX && all_bytes(big, len, 0x11),
	   "umh_out_alloc() at the declared max (4096)");
	r = call_var(&h, VR_ALLOC, RT_VAR_MAX + 1, 0x11, big, sizeof(big), &len);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "umh_out_alloc() declared max + 1: -EMSGSIZE");
	r = call_var(&h, VR_ALLOC, 101, 0x11, big, 100, &len);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "umh_out_alloc(101) with max_reply 100: -EMSGSIZE");
	r = call_var(&h, VR_ALLOC, 100, 0x12, big, 100, &len);
	ok(r == 0 && len == 100 && all_bytes(big, 100, 0x12),
	   "umh_out_alloc(100) with max_reply 100: ok");
	r = call_var(&h, VR_ALLOC2, 50, 0x13, big, 100, &len);
	ok(r == 0 && len == 50 && all_bytes(big, 50, 0x13),
	   "two umh_out_alloc() calls: the last one is the reply");

	r = call_var(&h, VR_SET, RT_VAR_MAX, 0x21, big, sizeof(big), &len);
	ok(r == 0 && len == RT_VAR_MAX && all_bytes(big, len, 0x21),
	   "umh_out_set() at the declared max");
	r = call_var(&h, VR_SET, RT_VAR_MAX + 1, 0x21, big, sizeof(big), &len);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "umh_out_set() declared max + 1: -EMSGSIZE");
	r = call_var(&h, VR_SET, 8, 0x22, big, 7, &len);
	ok(r == -EMSGSIZE, "umh_out_set(8) with max_reply 7: -EMSGSIZE");
	r = call_var(&h, VR_SET, 0, 0x22, big, 0, &len);
	ok(r == 0 && len == 0, "umh_out_set(0) with max_reply 0: ok");

	/* A handler that ignores the limits is caught by the runtime. */
	r = call_var(&h, VR_CHEAT, RT_VAR_MAX + 1, 0x31, big, sizeof(big), &len);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "handler setting a reply above the declared max: runtime sends -EMSGSIZE");
	r = call_var(&h, VR_CHEAT, 201, 0x31, big, 200, &len);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "handler setting a reply above max_reply: runtime sends -EMSGSIZE");
	r = call_var(&h, VR_CHEAT, 200, 0x32, big, 200, &len);
	ok(r == 0 && len == 200 && all_bytes(big, 200, 0x32),
	   "handler setting a reply of exactly max_reply: ok");

	r = call_var(&h, VR_FAIL, 100, 0x41, big, sizeof(big), &len);
	ok(r == -ENOSPC && h.last_from_helper,
	   "handler failing after filling a reply: -ENOSPC, no payload");

	/* out->max = min(declared max, max_reply, negotiated cap) */
	r = call_var(&h, VR_MAX, 0, 0, &max, sizeof(max), &len);
	ok(r == 0 && max == 4, "out->max with max_reply 4: %u", max);
	r = umh_host_call_raw(&h, 2, &(struct rt_var_req){ .mode = VR_MAX },
			      sizeof(struct rt_var_req), 100000, false, big,
			      sizeof(big), &len, 0);
	memcpy(&max, big, sizeof(max));
	ok(r == 0 && max == RT_VAR_MAX,
	   "out->max with max_reply 100000: the declared max %u", max);

	/* VV */
	for (i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)i;
	r = umh_host_call(&h, 3, in, RT_REV_REQ, big, RT_REV_REP, &len, 0);
	ok(r == 0 && len == RT_REV_REQ && big[0] == RT_REV_REQ - 1 &&
	   big[RT_REV_REQ - 1] == 0, "VV reverse of 100 bytes");
	r = umh_host_call(&h, 3, in, RT_REV_REQ + 1, big, RT_REV_REP, &len, 0);
	ok(r == -EMSGSIZE && !h.last_from_helper,
	   "VV request max + 1: refused locally");
	r = umh_host_call_raw(&h, 3, in, RT_REV_REQ + 1, RT_REV_REP, false, big,
			      sizeof(big), &len, 0);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "VV request max + 1 sent anyway: -EMSGSIZE from the helper");
	r = umh_host_call(&h, 3, in, 10, big, 9, &len, 0);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "VV reply of 10 with max_reply 9: -EMSGSIZE");

	/* holes and unknown ops */
	r = umh_host_call_raw(&h, 4, in, 10, 100, false, big, sizeof(big),
			      &len, 0);
	ok(r == -EOPNOTSUPP && h.last_from_helper, "op 4 (hole): -EOPNOTSUPP");
	r = umh_host_call_raw(&h, 10, NULL, 0, 100, false, big, sizeof(big),
			      &len, 0);
	ok(r == -EOPNOTSUPP && h.last_from_helper,
	   "op 10 (past the table): -EOPNOTSUPP");
	r = call_var(&h, VR_ALLOC, 10, 0x51, big, sizeof(big), &len);
	ok(r == 0 && len == 10, "still serving");
	is(h.violations, 0, "no protocol violation");
	is(finish(&h), 0, "EOF: exit 0");

	/* A smaller negotiated cap bounds variable replies too. */
	umh_host_init(&h);
	h.log = log_capture;
	h.max_payload = 1000;
	if (umh_host_spawn_fn(&h, "rt", run_helper, NULL) == 0 &&
	    umh_host_hello(&h, &rt_umh_proto) == 0) {
		ok(h.hello.max_payload == 1000, "hello with cap 1000");
		r = call_var(&h, VR_MAX, 0, 0, big, sizeof(big), &len);
		memcpy(&max, big, sizeof(max));
		ok(r == 0 && max == 1000, "out->max is the cap: %u", max);
		r = call_var(&h, VR_ALLOC, 1001, 0x61, big, sizeof(big), &len);
		ok(r == -EMSGSIZE, "umh_out_alloc(cap + 1): -EMSGSIZE");
		r = call_var(&h, VR_ALLOC, 1000, 0x61, big, sizeof(big), &len);
		ok(r == 0 && len == 1000, "umh_out_alloc(cap): ok");
		is(finish(&h), 0, "EOF: exit 0");
	} else {
		ok(0, "fork + hello with cap 1000");
		umh_host_destroy(&h);
	}
}

static void test_ctx_and_log(void)
{
	struct rt_ctx_req creq = { 0 };
	struct rt_ctx_rep crep;
	char msg[1200], raw[601];
	struct umh_host h;
	int r, i;

	logs.n = 0;
	if (!ok(start(&h), "fork + hello")) {
		umh_host_destroy(&h);
		return;
	}
	r = umh_host_call(&h, 7, &creq, sizeof(creq), &crep, sizeof(crep),
			  NULL, 0);
	ok(r == 0 && crep.magic == 0xc0de && crep.calls == 1,
	   "handler gets the ctx passed to UMH_HELPER_RUN()");
	r = umh_host_call(&h, 7, &creq, sizeof(creq), &crep, sizeof(crep),
			  NULL, 0);
	ok(r == 0 && crep.calls == 2, "...the same ctx every time");

	snprintf(msg, sizeof(msg), "%cerror line one", 3);
	r = umh_host_call(&h, 6, msg, strlen(msg + 1) + 1, NULL, 0, NULL, 0);
	snprintf(msg, sizeof(msg), "%cdebug line", 7);
	r |= umh_host_call(&h, 6, msg, strlen(msg + 1) + 1, NULL, 0, NULL, 0);
	snprintf(msg, sizeof(msg), "%ccritical line", 1);
	r |= umh_host_call(&h, 6, msg, strlen(msg + 1) + 1, NULL, 0, NULL, 0);
	snprintf(msg, sizeof(msg), "%ctab\there\x7f\x80!", 4);
	r |= umh_host_call(&h, 6, msg, strlen(msg + 1) + 1, NULL, 0, NULL, 0);
	msg[0] = 5;
	for (i = 1; i <= 1000; i++)
		msg[i] = (char)('a' + i % 26);
	r |= umh_host_call(&h, 6, msg, 1001, NULL, 0, NULL, 0);
	/* 600 bytes written raw, then a newline in a second write */
	raw[0] = 'R';
	for (i = 1; i <= 600; i++)
		raw[i] = (char)('A' + (i - 1) / 256);
	r |= umh_host_call(&h, 6, raw, 601, NULL, 0, NULL, 0);
	r |= umh_host_call(&h, 6, "R\n", 2, NULL, 0, NULL, 0);
	is(r, 0, "log calls answered");
	is(finish(&h), 0, "EOF: exit 0");

	i = log_find("error line one");
	ok(i >= 0 && logs.level[i] == 3 && !strcmp(logs.line[i], "error line one"),
	   "umh_log(3): line at level 3, '<3>' stripped");
	i = log_find("debug line");
	ok(i >= 0 && logs.level[i] == 7, "umh_log(7): level 7");
	i = log_find("critical line");
	ok(i >= 0 && logs.level[i] == 3,
	   "umh_log(1): clamped to level 3 as the kernel does");
	i = log_find("tab?here?" "?!");
	ok(i >= 0 && logs.level[i] == 4,
	   "control and non-ASCII bytes shown as '?'");
	i = log_find("bcdefghij");
	ok(i >= 0 && logs.level[i] == 5 && strlen(logs.line[i]) == 251 &&
	   !strncmp(logs.line[i], msg + 1, 251),
	   "a 1000-byte message becomes one 251-byte line (256-byte buffer)");
	ok(logs.n >= 5 && !strncmp(logs.line[5], "AAA", 3),
	   "five umh_log() calls, five log lines: no continuation line");
	ok(logs.n == 8 && strlen(logs.line[5]) == 256 &&
	   all_bytes((unsigned char *)logs.line[5], 256, 'A') &&
	   strlen(logs.line[6]) == 256 &&
	   all_bytes((unsigned char *)logs.line[6], 256, 'B') &&
	   strlen(logs.line[7]) == 88 &&
	   all_bytes((unsigned char *)logs.line[7], 88, 'C'),
	   "a raw 600-byte stderr line is split into 256 + 256 + 88, as the kernel does");
	ok(logs.n == 8 && logs.level[5] == 6 && logs.level[7] == 6,
	   "unprefixed stderr lines are logged at level 6 (info)");
}

static void test_byte_by_byte_and_eintr(void)
{
	struct {
		struct umh_hdr hdr;
		struct rt_status_req req;
	} f;
	struct {
		struct umh_hdr hdr;
		struct rt_status_rep rep;
	} rf;
	struct rt_status_rep rep;
	unsigned char big[RT_VAR_MAX];
	struct umh_host h;
	size_t i, got = 0, len = 0;
	int r = 0;

	_Static_assert(sizeof(f) == 40 && sizeof(rf) == 48, "no padding");
	if (!ok(start_fn(&h, run_helper_eintr), "fork + hello (SIGUSR1 handler)")) {
		umh_host_destroy(&h);
		return;
	}
	umh_hdr_init(&f.hdr, 1, 1000, sizeof(f.req), 0, 0, sizeof(rf.rep));
	f.req.status = 0;
	f.req.nowrite = 0;
	for (i = 0; i < sizeof(f); i++) {
		r |= umh_host_send_raw(&h, (char *)&f + i, 1, 0);
		usleep(1000);
		if (i % 4 == 0)
			umh_host_kill(&h, SIGUSR1);
	}
	is(r, 0, "a frame sent one byte at a time, signals in between");
	r = umh_host_read_reply_raw(&h, &rf, sizeof(rf), &got, 5000);
	ok(r == 0 && rf.hdr.id == 1000 && rf.hdr.status == 0 &&
	   rf.rep.a == 0x11111111, "...is answered once whole");

	for (i = 0; i < 20; i++) {
		umh_host_kill(&h, SIGUSR1);
		usleep(500);
	}
	r = call_status(&h, -EPERM, 0, &rep);
	is(r, -EPERM, "calls work after 20 interrupted reads (EINTR)");
	r = call_var(&h, VR_ALLOC, RT_VAR_MAX, 0x77, big, sizeof(big), &len);
	ok(r == 0 && len == RT_VAR_MAX && all_bytes(big, len, 0x77),
	   "and a 4 KiB reply");
	is(h.violations, 0, "no protocol violation");
	is(finish(&h), 0, "EOF: exit 0");
}

/* ---- small replies that leave together ---- */

struct rt_frame {
	struct umh_hdr hdr;
	union {
		struct rt_status_req status;
		struct rt_gate gate;
	};
};

/* A request frame of op 1 (status 0) or 9 (gate) with the next id. */
static size_t rt_frame(struct umh_host *h, struct rt_frame *f, __u16 op,
		       __u32 block)
{
	size_t len = op == 9 ? sizeof(f->gate) : sizeof(f->status);
	size_t rep = op == 9 ? sizeof(struct rt_gate) :
			       sizeof(struct rt_status_rep);

	memset(f, 0, sizeof(*f));
	umh_hdr_init(&f->hdr, op, ++h->next_id, (__u32)len, 0, 0, (__u32)rep);
	f->gate.block = block;
	return sizeof(f->hdr) + len;
}

/* The helper's write system calls so far (/proc/<pid>/io), or -1. */
static long long rt_syscw(pid_t pid)
{
	char path[64], line[128];
	long long v = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "syscw: %lld", &v) == 1)
			break;
	fclose(fp);
	return v;
}

/* Send @n frames in one write; read @n replies of @rep_len bytes. */
static int rt_batch(struct umh_host *h, const __u16 *ops, const __u32 *block,
		    int n, unsigned char *rep, size_t rep_len)
{
	unsigned char buf[8 * sizeof(struct rt_frame)];
	struct rt_frame f;
	size_t len = 0, got;
	int i;

	for (i = 0; i < n; i++) {
		size_t fl = rt_frame(h, &f, ops[i], block[i]);

		memcpy(buf + len, &f, fl);
		len += fl;
	}
	if (umh_host_send_raw(h, buf, len, 0))
		return -1;
	return rep ? umh_host_read_reply_raw(h, rep, rep_len, &got, 5000) : 0;
}

/*
 * A quick request, then the gate blocking until SIGUSR1: the quick reply
 * must leave before the gate is released (a held one would time out).
 */
static void rt_gate_not_waited(struct umh_host *h, const char *what,
			       size_t gate_rep, size_t st_rep)
{
	static const __u16 gated[2] = { 1, 9 };
	static const __u32 blocks[2] = { 0, 1 };
	unsigned char rep[sizeof(struct umh_hdr) + sizeof(struct rt_gate) +
			  sizeof(struct umh_hdr) + sizeof(struct rt_status_rep)];
	struct umh_hdr hdr;
	int r;

	r = rt_batch(h, gated, blocks, 2, rep, st_rep);
	memcpy(&hdr, rep, sizeof(hdr));
	ok(r == 0 && hdr.id == h->next_id - 1 && hdr.status == 0,
	   "a reply does not wait for a handler %s (%d)", what, r);
	usleep(2000);
	umh_host_kill(h, SIGUSR1);
	r = umh_host_read_reply_raw(h, rep, gate_rep, NULL, 5000);
	memcpy(&hdr, rep, sizeof(hdr));
	ok(r == 0 && hdr.id == h->next_id, "...whose reply comes once it is done");
}

static void test_held_replies(void)
{
	const size_t st_rep = sizeof(struct umh_hdr) +
			      sizeof(struct rt_status_rep);
	const size_t gate_rep = sizeof(struct umh_hdr) + sizeof(struct rt_gate);
	static const __u16 three[3] = { 1, 1, 1 }, gated[2] = { 1, 9 };
	static const __u16 gate_first[2] = { 9, 1 };
	static const __u32 none[3], blocks[2] = { 0, 1 };
	static const __u32 unblocked[2], slow_first[2] = { 2, 0 };
	unsigned char rep[3 * sizeof(struct umh_hdr) +
			  3 * sizeof(struct rt_status_rep)];
	struct umh_hdr hdr;
	long long w0, w1 = -1;
	int i, r, fewer = 0;
	struct umh_host h;

	if (!ok(start_fn(&h, run_helper_eintr), "fork + hello (SIGUSR1 handler)")) {
		umh_host_destroy(&h);
		return;
	}
	/*
	 * Three quick requests in one write: the replies leave in fewer
	 * writes than three.  Up to five tries: a reply held longer than
	 * UMH__HOLD_NS (the helper preempted) leaves at once.
	 */
	w0 = rt_syscw(h.pid);
	for (i = 0; i < 5 && w0 >= 0 && !fewer; i++) {
		w0 = rt_syscw(h.pid);
		r = rt_batch(&h, three, none, 3, rep, 3 * st_rep);
		w1 = rt_syscw(h.pid);
		if (r || w1 < 0)
			break;
		memcpy(&hdr, rep + 2 * st_rep, sizeof(hdr));
		fewer = hdr.id == h.next_id && w1 - w0 < 3;
	}
	if (w0 < 0 || w1 < 0)
		ok(1, "3 requests in one write # SKIP /proc/%d/io unreadable",
		   (int)h.pid);
	else
		ok(fewer, "3 requests in one write: 3 replies in %lld writes",
		   w1 - w0);

	/*
	 * A quick reply, then a handler that blocks until SIGUSR1: the
	 * reply leaves before it (the gate op was never timed), and again
	 * once the gate op has been slow.  A held reply would time out.
	 */
	for (i = 0; i < 2; i++) {
		r = rt_batch(&h, gated, blocks, 2, rep, st_rep);
		memcpy(&hdr, rep, sizeof(hdr));
		ok(r == 0 && hdr.id == h.next_id - 1 && hdr.status == 0,
		   "a reply does not wait for a handler %s (%d)",
		   i ? "that was slow the last time" : "never timed", r);
		usleep(2000);		/* the gate is slow: over 200 us */
		umh_host_kill(&h, SIGUSR1);
		r = umh_host_read_reply_raw(&h, rep, gate_rep, NULL, 5000);
		memcpy(&hdr, rep, sizeof(hdr));
		ok(r == 0 && hdr.id == h.next_id, "...whose reply comes once it is done");
	}

	/*
	 * One quick timed run (a request buffered behind the gate) is not
	 * enough for a reply to wait for the gate's next run.
	 */
	r = rt_batch(&h, gate_first, unblocked, 2, rep, gate_rep + st_rep);
	ok(r == 0, "the gate timed once, quick (%d)", r);
	rt_gate_not_waited(&h, "that was quick once", gate_rep, st_rep);
	/*
	 * Slow once while timed (2 ms), then quick many times: its reply
	 * still does not wait for it.
	 */
	r = rt_batch(&h, gate_first, slow_first, 2, rep, gate_rep + st_rep);
	ok(r == 0, "the gate timed once, slow (%d)", r);
	for (i = 0; i < 2 * UMH__QUICK_RUNS && !r; i++)
		r = rt_batch(&h, gate_first, unblocked, 2, rep,
			     gate_rep + st_rep);
	ok(r == 0, "then timed %d times, quick (%d)", 2 * UMH__QUICK_RUNS, r);
	rt_gate_not_waited(&h, "that was slow once, quick since", gate_rep,
			   st_rep);
	is(h.violations, 0, "no protocol violation");
	is(finish(&h), 0, "EOF: exit 0");
}

/* ---- replies that break the protocol: the host must catch them ---- */

struct inj {
	__u32 action;
	unsigned char bytes[RT_INJ_MAX - 4];
};

/* Make the helper write @n bytes of @frame to fd 1 while handling a call. */
static int inject(struct umh_host *h, __u32 action, const void *frame,
		  size_t n, __u32 max_reply, bool fixed)
{
	struct inj req;

	req.action = action;
	memcpy(req.bytes, frame, n);
	return umh_host_call_raw(h, 8, &req, (__u32)(4 + n), max_reply, fixed,
				 NULL, 0, NULL, 3000);
}

static void test_host_checks(void)
{
	struct {
		struct umh_hdr hdr;
		unsigned char payload[16];
	} f;
	struct umh_host h;
	__u32 id;
	int r;

	/* garbage */
	if (start(&h)) {
		memset(&f, 0x5a, sizeof(f));
		r = inject(&h, INJ_WRITE, &f, sizeof(f.hdr), 0, false);
		ok(r == -EPROTO && h.violations == 1 &&
		   strstr(h.why, "malformed reply header"),
		   "garbage on the helper's stdout: -EPROTO, malformed reply header");
		is(wait_exit(&h), -SIGKILL, "...the helper is killed");
	} else {
		umh_host_destroy(&h);
	}

	/* a reply for an id nobody asked for */
	if (start(&h)) {
		id = h.next_id + 1;
		umh_hdr_init(&f.hdr, 8, id + 1000, 0, 0, UMH_F_REPLY, 0);
		r = inject(&h, INJ_WRITE, &f, sizeof(f.hdr), 0, false);
		ok(r == -EPROTO && strstr(h.why, "reply to no pending request"),
		   "reply with an id never sent: -EPROTO (%s)", h.why);
		is(wait_exit(&h), -SIGKILL, "...the helper is killed");
	} else {
		umh_host_destroy(&h);
	}

	/* right id, wrong op */
	if (start(&h)) {
		id = h.next_id + 1;
		umh_hdr_init(&f.hdr, 3, id, 0, 0, UMH_F_REPLY, 0);
		r = inject(&h, INJ_WRITE, &f, sizeof(f.hdr), 0, false);
		ok(r == -EPROTO && strstr(h.why, "reply op differs"),
		   "reply with the right id and another op: -EPROTO (%s)", h.why);
		is(wait_exit(&h), -SIGKILL, "...the helper is killed");
	} else {
		umh_host_destroy(&h);
	}

	/* variable reply above max_reply */
	if (start(&h)) {
		id = h.next_id + 1;
		umh_hdr_init(&f.hdr, 8, id, 16, 0, UMH_F_REPLY, 0);
		r = inject(&h, INJ_WRITE, &f, sizeof(f), 15, false);
		ok(r == -EPROTO && strstr(h.why, "reply size does not fit"),
		   "16-byte reply with max_reply 15: -EPROTO (%s)", h.why);
		is(wait_exit(&h), -SIGKILL, "...the helper is killed");
	} else {
		umh_host_destroy(&h);
	}

	/* fixed reply of the wrong size */
	if (start(&h)) {
		id = h.next_id + 1;
		umh_hdr_init(&f.hdr, 8, id, 8, 0, UMH_F_REPLY, 0);
		r = inject(&h, INJ_WRITE, &f, sizeof(f.hdr) + 8, 16, true);
		ok(r == -EPROTO && strstr(h.why, "reply size does not fit"),
		   "8-byte reply where exactly 16 are due: -EPROTO (%s)", h.why);
		is(wait_exit(&h), -SIGKILL, "...the helper is killed");
	} else {
		umh_host_destroy(&h);
	}

	/* positive status */
	if (start(&h)) {
		id = h.next_id + 1;
		umh_hdr_init(&f.hdr, 8, id, 0, 5, UMH_F_REPLY, 0);
		r = inject(&h, INJ_WRITE, &f, sizeof(f.hdr), 0, false);
		ok(r == -EPROTO && strstr(h.why, "malformed reply header"),
		   "reply with status 5: -EPROTO (%s)", h.why);
		is(wait_exit(&h), -SIGKILL, "...the helper is killed");
	} else {
		umh_host_destroy(&h);
	}

	/* a reply cut short by the helper's exit */
	if (start(&h)) {
		id = h.next_id + 1;
		umh_hdr_init(&f.hdr, 8, id, 16, 0, UMH_F_REPLY, 0);
		r = inject(&h, INJ_WRITE_EXIT, &f, sizeof(f.hdr) + 5, 16, false);
		is(r, -EPIPE, "reply cut short by EOF: -EPIPE");
		is(h.violations, 0, "...not counted as a violation");
		is(wait_exit(&h), 0, "...the helper had exited (0)");
	} else {
		umh_host_destroy(&h);
	}

	/* a handler that crashes */
	if (start(&h)) {
		r = inject(&h, INJ_ABORT, &f, 0, 0, false);
		is(r, -ECONNRESET, "handler calling abort(): -ECONNRESET");
		is(wait_exit(&h), -SIGABRT, "...the helper died of SIGABRT");
	} else {
		umh_host_destroy(&h);
	}

	/* sanity: the same injection path with a valid frame is not a violation */
	if (start(&h)) {
		r = inject(&h, INJ_WRITE, &f, 0, 0, false);
		ok(r == 0 && h.violations == 0, "injecting nothing: plain empty reply");
		is(finish(&h), 0, "EOF: exit 0");
	} else {
		umh_host_destroy(&h);
	}
}

int main(int argc, char **argv)
{
	if (argc >= 1 && !strcmp(argv[0], PROBE_NAME))
		return probe(argc, argv);
	signal(SIGPIPE, SIG_IGN);	/* the helper must not inherit this */
	tap_watchdog(120);
	test_spawn_env();
	test_out_unit();
	test_status_filter();
	test_fixed_replies();
	test_var_replies();
	test_ctx_and_log();
	test_byte_by_byte_and_eintr();
	test_held_replies();
	test_host_checks();
	return tap_done();
}
