// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Runs the echo sample's helper (argv[1]) the way the kernel runs it, via
 * tools/umh_host/umh_host.h, and checks its runtime end to end: handshake,
 * every op, size limits, refusals that keep the helper serving, pipelining,
 * malformed and truncated input, exit statuses, timeouts.
 *
 *	test_dispatch PATH-TO-ECHO-HELPER
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../../samples/echo_umh/echo_proto.h"
#include <umh_sdk/helper.h>	/* for UMH_EXIT_* only */
#include "umh_host.h"
#include "tap.h"

static const char *helper_path;

/* The first op number past the sample's table. */
#define UNKNOWN_OP	((unsigned int)echo_umh_proto.n_ops)

/* ---- helper stderr capture ---- */

#define LOG_MAX 256

static struct {
	char line[LOG_MAX][UMH_HOST_ERR_LINE + 1];
	int level[LOG_MAX];
	int n;
} logs;

static void log_capture(void *arg, const char *name, int level,
			const char *line)
{
	(void)arg;
	tap_diag("  [%s <%d>] %s", name, level, line);
	if (logs.n < LOG_MAX) {
		snprintf(logs.line[logs.n], sizeof(logs.line[0]), "%s", line);
		logs.level[logs.n++] = level;
	}
}

/* Index of the first captured line containing @needle, or -1. */
static int log_find(const char *needle)
{
	int i;

	for (i = 0; i < logs.n; i++)
		if (strstr(logs.line[i], needle))
			return i;
	return -1;
}

/* ---- sessions ---- */

static void host_setup(struct umh_host *h)
{
	umh_host_init(h);
	h->log = log_capture;
	h->timeout_ms = 10000;
}

/* Spawn the helper; handshake unless @no_hello.  True on success. */
static bool start(struct umh_host *h, bool no_hello)
{
	int r;

	host_setup(h);
	r = umh_host_spawn(h, helper_path, "echo");
	if (r) {
		tap_diag("spawn %s: %s", helper_path, strerror(-r));
		return false;
	}
	if (no_hello)
		return true;
	r = umh_host_hello(h, &echo_umh_proto);
	if (r)
		tap_diag("hello: %d (%s)", r, strerror(-r));
	return r == 0;
}

/*
 * Close the helper's input, reap it; return its exit code (negative: the
 * signal), or -1000 if it did not exit within 5 s (it is killed then).
 */
static int finish(struct umh_host *h)
{
	int st, r;

	umh_host_close_input(h);
	r = umh_host_wait(h, &st, 5000);
	if (r) {
		tap_diag("helper pid %d did not exit: %s", (int)h->pid,
			 strerror(-r));
		umh_host_destroy(h);
		return -1000;
	}
	umh_host_destroy(h);
	return umh_host_exit_code(st);
}

/* Wait (bounded) for the helper to exit on its own, input left open. */
static int wait_exit(struct umh_host *h)
{
	int st, r;

	r = umh_host_wait(h, &st, 5000);
	if (r) {
		tap_diag("helper pid %d did not exit: %s", (int)h->pid,
			 strerror(-r));
		umh_host_destroy(h);
		return -1000;
	}
	umh_host_destroy(h);
	return umh_host_exit_code(st);
}

/* After everything was answered: the reply stream ends with no more bytes. */
static bool no_more_replies(struct umh_host *h)
{
	unsigned char b;
	size_t got = 1;
	int r;

	umh_host_close_input(h);
	r = umh_host_read_reply_raw(h, &b, 1, &got, 5000);
	if (r != -ECONNRESET || got)
		tap_diag("after EOF: read_reply_raw %d, %zu unexpected bytes", r,
			 got);
	return r == -ECONNRESET && got == 0;
}

static __u64 rng_state = 0x9e3779b97f4a7c15ULL;

static void fill_random(unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		rng_state ^= rng_state << 13;
		rng_state ^= rng_state >> 7;
		rng_state ^= rng_state << 17;
		p[i] = (unsigned char)(rng_state >> 32);
	}
}

static int ping(struct umh_host *h, __u32 cookie, struct echo_pong *pong)
{
	struct echo_ping req = { .cookie = cookie };
	size_t len = 0;
	int r;

	memset(pong, 0, sizeof(*pong));
	r = umh_host_call(h, ECHO_OP_PING, &req, sizeof(req), pong,
			  sizeof(*pong), &len, 0);
	if (!r && (len != sizeof(*pong) || pong->cookie != cookie))
		return -1000;
	return r;
}

/* ---- spawning ---- */

static void test_spawn_errors(void)
{
	char path[] = "/tmp/umh_test_noexecXXXXXX";
	struct umh_host h;
	int fd, r;

	host_setup(&h);
	r = umh_host_spawn(&h, "/nonexistent/umh_helper", "echo");
	is(r, -ENOENT, "spawn of a missing file: -ENOENT");
	umh_host_destroy(&h);

	host_setup(&h);
	r = umh_host_spawn(&h, helper_path, "bad-name");
	is(r, -EINVAL, "spawn with a name the kernel refuses ('-'): -EINVAL");
	umh_host_destroy(&h);

	host_setup(&h);
	r = umh_host_spawn(&h, helper_path, "a_name_that_is_33_characters_long");
	is(r, -EINVAL, "spawn with a 33-character name: -EINVAL");
	umh_host_destroy(&h);

	host_setup(&h);
	r = umh_host_spawn(&h, helper_path, "a_name_that_is_32_characters_lon");
	is(r, 0, "spawn with a 32-character name works");
	is(finish(&h), 0, "...and that helper exits 0 on EOF");

	fd = mkstemp(path);
	if (fd >= 0) {
		if (write(fd, "garbage, not an ELF file\n", 25) != 25)
			tap_diag("write %s failed", path);
		close(fd);
		chmod(path, 0700);
		host_setup(&h);
		r = umh_host_spawn(&h, path, "echo");
		is(r, -ENOEXEC, "spawn of an executable non-ELF file: -ENOEXEC");
		umh_host_destroy(&h);
		unlink(path);
	} else {
		ok(0, "mkstemp for the -ENOEXEC test");
	}
}

/* ---- handshake ---- */

static void test_hello(void)
{
	struct umh_proto wrong = echo_umh_proto;
	struct umh_hello req, rep;
	struct echo_pong pong;
	struct umh_host h;
	size_t len = 0;
	int r;

	logs.n = 0;
	if (!ok(start(&h, false), "spawn + hello with the echo protocol")) {
		umh_host_destroy(&h);
		return;
	}
	is(h.hello.proto_id, ECHO_PROTO_ID, "hello reply: proto id");
	is(h.hello.proto_version, ECHO_PROTO_VERSION, "hello reply: version");
	is(h.hello.max_payload, UMH_DEFAULT_MAX_PAYLOAD,
	   "hello reply: max_payload = ours (16 MiB)");
	is(h.hello.pid, h.pid, "hello reply: pid is the helper's pid");
	ok(h.hello.flags == 0 && h.hello.reserved == 0,
	   "hello reply: flags and reserved are 0");
	is(h.next_id, 1, "hello used request id 1");

	/* The kernel's health check is another hello, mid-session. */
	is(ping(&h, 11, &pong), 0, "ping after hello");
	is(umh_host_hello(&h, &echo_umh_proto), 0, "second hello (health check)");
	is(h.next_id, 3, "ids keep increasing (3)");

	/* Another protocol id: the helper answers, with its own id. */
	memset(&req, 0, sizeof(req));
	req.proto_id = 0x12345678;
	req.proto_version = ECHO_PROTO_VERSION;
	req.max_payload = UMH_DEFAULT_MAX_PAYLOAD;
	memset(&rep, 0, sizeof(rep));
	r = umh_host_call_raw(&h, UMH_OP_HELLO, &req, sizeof(req), sizeof(rep),
			      true, &rep, sizeof(rep), &len, 0);
	is(r, 0, "hello naming another protocol is answered (status 0)");
	ok(rep.proto_id == ECHO_PROTO_ID && rep.proto_version == ECHO_PROTO_VERSION,
	   "...with the helper's own protocol id %#x and version %u",
	   rep.proto_id, rep.proto_version);
	is(len, sizeof(rep), "...in a %zu-byte reply", sizeof(rep));
	is(ping(&h, 12, &pong), 0, "the helper keeps serving after it");

	/* Another version: same. */
	req.proto_id = ECHO_PROTO_ID;
	req.proto_version = ECHO_PROTO_VERSION + 1;
	r = umh_host_call_raw(&h, UMH_OP_HELLO, &req, sizeof(req), sizeof(rep),
			      true, &rep, sizeof(rep), &len, 0);
	ok(r == 0 && rep.proto_version == ECHO_PROTO_VERSION,
	   "hello naming another version: answered with version %u",
	   rep.proto_version);

	/* Smaller payload cap: the helper adopts it. */
	req.proto_version = ECHO_PROTO_VERSION;
	req.max_payload = 4096;
	r = umh_host_call_raw(&h, UMH_OP_HELLO, &req, sizeof(req), sizeof(rep),
			      true, &rep, sizeof(rep), &len, 0);
	ok(r == 0 && rep.max_payload == 4096,
	   "hello with max_payload 4096: helper's cap becomes %u",
	   rep.max_payload);
	req.max_payload = 1 << 20;
	r = umh_host_call_raw(&h, UMH_OP_HELLO, &req, sizeof(req), sizeof(rep),
			      true, &rep, sizeof(rep), &len, 0);
	ok(r == 0 && rep.max_payload == 1 << 20,
	   "a later hello sets it again: the kernel's cap governs (%u)",
	   rep.max_payload);
	req.max_payload = 0;
	r = umh_host_call_raw(&h, UMH_OP_HELLO, &req, sizeof(req), sizeof(rep),
			      true, &rep, sizeof(rep), &len, 0);
	ok(r == 0 && rep.max_payload == 1 << 20,
	   "hello with max_payload 0 leaves the cap alone (%u)", rep.max_payload);
	req.max_payload = UMH_ABS_MAX_PAYLOAD + 1;
	r = umh_host_call_raw(&h, UMH_OP_HELLO, &req, sizeof(req), sizeof(rep),
			      true, &rep, sizeof(rep), &len, 0);
	ok(r == 0 && rep.max_payload == 1 << 20,
	   "hello with max_payload above UMH_ABS_MAX_PAYLOAD is ignored (%u)",
	   rep.max_payload);
	ok(no_more_replies(&h), "no reply beyond those asked for");
	is(h.violations, 0, "no protocol violation");
	is(finish(&h), 0, "clean EOF after the handshakes: exit 0");
	ok(log_find("echo helper") >= 0 &&
	   logs.level[log_find("echo helper")] == 6,
	   "startup line reached the log at level 6 with '<6>' stripped");
	ok(log_find("kernel expects protocol 0x12345678") >= 0 &&
	   logs.level[log_find("kernel expects protocol 0x12345678")] == 3,
	   "mismatching hello logged as an error (level 3)");

	/* umh_host_hello() rejects the mismatch and kills, like the kernel. */
	wrong.id = 0x12345678;
	if (!ok(start(&h, true), "spawn")) {
		umh_host_destroy(&h);
		return;
	}
	is(umh_host_hello(&h, &wrong), -EPROTO,
	   "kernel-side hello with the wrong id: -EPROTO");
	is(h.hello.proto_id, ECHO_PROTO_ID, "...the reply carried the helper's id");
	is(wait_exit(&h), -SIGKILL, "...and the helper was killed (SIGKILL)");
}

static void test_bad_hello(void)
{
	struct umh_hello hello = { .proto_id = ECHO_PROTO_ID,
				   .proto_version = ECHO_PROTO_VERSION };
	unsigned char rep[64];
	struct umh_host h;
	int r;

	if (!start(&h, true))
		return;
	r = umh_host_call_raw(&h, UMH_OP_HELLO, &hello, 8, sizeof(hello),
			      true, rep, sizeof(rep), NULL, 0);
	ok(r < 0 && !h.last_from_helper,
	   "hello with an 8-byte payload is not answered (%d)", r);
	is(wait_exit(&h), UMH_EXIT_PROTO,
	   "...the helper exits with UMH_EXIT_PROTO (malformed frame)");

	if (!start(&h, true))
		return;
	r = umh_host_call_raw(&h, UMH_OP_HELLO, &hello, sizeof(hello), 100,
			      false, rep, sizeof(rep), NULL, 0);
	ok(r < 0 && !h.last_from_helper,
	   "hello with max_reply 100 is not answered (%d)", r);
	is(wait_exit(&h), UMH_EXIT_PROTO,
	   "...the helper exits with UMH_EXIT_PROTO (malformed frame)");
}

/* ---- the ops ---- */

static void test_ops(void)
{
	struct echo_pong pong, pong2;
	struct echo_add add;
	struct echo_sum sum;
	struct echo_sleep sl, slr;
	struct echo_sink_rep sink;
	struct umh_host h;
	unsigned char *buf;
	long long t0, dt;
	__u64 want;
	size_t len = 0, i;
	int r;

	if (!ok(start(&h, false), "spawn + hello")) {
		umh_host_destroy(&h);
		return;
	}
	is(ping(&h, 0xc0ffee, &pong), 0, "ping: cookie 0xc0ffee echoed");
	is(pong.pid, h.pid, "ping: pid is the helper's");
	is(pong.served, 1, "ping: first request served");
	is(ping(&h, 7, &pong2), 0, "ping again");
	is(pong2.served, 2, "ping: served counts (2)");

	add.a = 2;
	add.b = 3;
	r = umh_host_call(&h, ECHO_OP_ADD, &add, sizeof(add), &sum, sizeof(sum),
			  &len, 0);
	ok(r == 0 && sum.sum == 5 && len == sizeof(sum), "add 2 + 3 = %lld",
	   (long long)sum.sum);
	add.a = -7;
	add.b = 3;
	r = umh_host_call(&h, ECHO_OP_ADD, &add, sizeof(add), &sum, sizeof(sum),
			  &len, 0);
	ok(r == 0 && sum.sum == -4, "add -7 + 3 = %lld", (long long)sum.sum);
	add.a = INT64_MAX;
	add.b = 1;
	r = umh_host_call(&h, ECHO_OP_ADD, &add, sizeof(add), &sum, sizeof(sum),
			  &len, 0);
	ok(r == 0 && sum.sum == INT64_MIN, "add INT64_MAX + 1 wraps to INT64_MIN");

	sl.ms = 50;
	sl.pad = 0;
	t0 = umh_host__now_ms();
	r = umh_host_call(&h, ECHO_OP_SLEEP, &sl, sizeof(sl), &slr, sizeof(slr),
			  &len, 2000);
	dt = umh_host__now_ms() - t0;
	ok(r == 0 && slr.ms == 50 && dt >= 50,
	   "sleep 50 ms: answered after %lld ms", dt);

	buf = malloc(UMH_DEFAULT_MAX_PAYLOAD);
	if (!buf)
		abort();
	fill_random(buf, 100000);
	for (want = 0, i = 0; i < 100000; i++)
		want += buf[i];
	r = umh_host_call(&h, ECHO_OP_SINK, buf, 100000, &sink, sizeof(sink),
			  &len, 0);
	ok(r == 0 && sink.len == 100000 && sink.sum == want,
	   "sink 100000 bytes: len %llu sum %llu (want %llu)",
	   (unsigned long long)sink.len, (unsigned long long)sink.sum,
	   (unsigned long long)want);
	r = umh_host_call(&h, ECHO_OP_SINK, NULL, 0, &sink, sizeof(sink),
			  &len, 0);
	ok(r == 0 && sink.len == 0 && sink.sum == 0, "sink 0 bytes");
	memset(buf, 0xff, UMH_DEFAULT_MAX_PAYLOAD);
	r = umh_host_call(&h, ECHO_OP_SINK, buf, UMH_DEFAULT_MAX_PAYLOAD, &sink,
			  sizeof(sink), &len, 0);
	ok(r == 0 && sink.len == UMH_DEFAULT_MAX_PAYLOAD &&
	   sink.sum == 255ULL * UMH_DEFAULT_MAX_PAYLOAD,
	   "sink 16 MiB (the channel cap)");
	r = umh_host_call(&h, ECHO_OP_SINK, buf, UMH_DEFAULT_MAX_PAYLOAD + 1,
			  &sink, sizeof(sink), &len, 0);
	ok(r == -EMSGSIZE && !h.last_from_helper,
	   "sink 16 MiB + 1: refused locally with -EMSGSIZE, as the kernel does");
	free(buf);

	{
		struct echo_tag tg, tgr;

		memset(&tg, 0, sizeof(tg));
		strcpy(tg.tag, "hello");
		r = umh_host_call(&h, ECHO_OP_TAG, &tg, sizeof(tg), &tgr,
				  sizeof(tgr), &len, 0);
		ok(r == 0 && !strcmp(tgr.tag, "hello"), "tag \"hello\" set");
		r = ping(&h, 9, &pong);
		ok(r == 0 && !memcmp(pong.tag, tg.tag, sizeof(tg.tag)),
		   "ping reports the tag");
		memset(tg.tag, 'x', sizeof(tg.tag));
		r = umh_host_call(&h, ECHO_OP_TAG, &tg, sizeof(tg), &tgr,
				  sizeof(tgr), &len, 0);
		ok(r == 0 && tgr.tag[sizeof(tgr.tag) - 1] == '\0' &&
		   strlen(tgr.tag) == sizeof(tgr.tag) - 1,
		   "unterminated tag is cut to %zu characters + NUL",
		   sizeof(tgr.tag) - 1);
	}
	is(ping(&h, 8, &pong), 0, "still serving");
	is(pong.served, 13, "served counted every op (13)");
	ok(no_more_replies(&h), "no reply beyond those asked for");
	is(h.violations, 0, "no protocol violation");
	is(finish(&h), 0, "clean EOF: exit 0");
}

static void test_echo_sizes(void)
{
	static const size_t sizes[] = { 0, 1, 65536 + 1, ECHO_MAX };
	unsigned char *in, *out;
	struct echo_pong pong;
	struct umh_host h;
	__u32 id_before;
	size_t i, len;
	int r;

	in = malloc(ECHO_MAX + 1);
	out = malloc(ECHO_MAX + 1);
	if (!in || !out)
		abort();
	if (!ok(start(&h, false), "spawn + hello")) {
		umh_host_destroy(&h);
		free(in);
		free(out);
		return;
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		fill_random(in, sizes[i]);
		memset(out, 0x5a, ECHO_MAX + 1);
		len = 12345;
		r = umh_host_call(&h, ECHO_OP_ECHO, in, sizes[i], out, ECHO_MAX,
				  &len, 0);
		ok(r == 0 && len == sizes[i] && !memcmp(in, out, sizes[i]) &&
		   out[sizes[i]] == 0x5a,
		   "echo of %zu bytes comes back identical (status %d, len %zu)",
		   sizes[i], r, len);
	}

	fill_random(in, ECHO_MAX + 1);
	id_before = h.next_id;
	r = umh_host_call(&h, ECHO_OP_ECHO, in, ECHO_MAX + 1, out, ECHO_MAX,
			  &len, 0);
	ok(r == -EMSGSIZE && !h.last_from_helper && h.next_id == id_before,
	   "echo of 1 MiB + 1 refused locally (-EMSGSIZE), nothing sent");
	r = umh_host_call_raw(&h, ECHO_OP_ECHO, in, ECHO_MAX + 1, ECHO_MAX,
			      false, out, ECHO_MAX, &len, 0);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "echo of 1 MiB + 1 sent anyway: the helper refuses it (-EMSGSIZE)");
	is(ping(&h, 21, &pong), 0, "...and keeps serving (payload skipped)");

	/* Variable reply larger than max_reply. */
	fill_random(in, 100);
	r = umh_host_call(&h, ECHO_OP_ECHO, in, 100, out, 99, &len, 0);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "echo of 100 bytes with max_reply 99: helper answers -EMSGSIZE");
	r = umh_host_call(&h, ECHO_OP_ECHO, in, 100, out, 100, &len, 0);
	ok(r == 0 && len == 100 && !memcmp(in, out, 100),
	   "echo of 100 bytes with max_reply 100: ok");
	r = umh_host_call(&h, ECHO_OP_ECHO, in, 1, out, 0, &len, 0);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "echo of 1 byte with max_reply 0: -EMSGSIZE");
	r = umh_host_call(&h, ECHO_OP_ECHO, NULL, 0, out, 0, &len, 0);
	ok(r == 0 && len == 0, "echo of 0 bytes with max_reply 0: ok");
	is(ping(&h, 22, &pong), 0, "still serving");
	ok(no_more_replies(&h), "no reply beyond those asked for");
	is(h.violations, 0, "no protocol violation");
	is(finish(&h), 0, "clean EOF: exit 0");
	free(in);
	free(out);
}

static void test_refusals(void)
{
	unsigned char big[1000], rep[256];
	struct echo_ping pingreq = { .cookie = 1 };
	struct echo_add add = { 1, 2 };
	struct echo_pong pong;
	struct umh_host h;
	__u32 id_before;
	int r;

	if (!ok(start(&h, false), "spawn + hello")) {
		umh_host_destroy(&h);
		return;
	}
	memset(big, 0x42, sizeof(big));

	/* local refusals, as umh_blob_call() */
	id_before = h.next_id;
	r = umh_host_call(&h, UNKNOWN_OP, NULL, 0, rep, sizeof(rep), NULL, 0);
	ok(r == -EOPNOTSUPP && !h.last_from_helper && h.next_id == id_before,
	   "unknown op %u: refused locally (-EOPNOTSUPP)", UNKNOWN_OP);
	r = umh_host_call(&h, ECHO_OP_ADD, &add, sizeof(add) - 1, rep,
			  sizeof(struct echo_sum), NULL, 0);
	ok(r == -EINVAL && !h.last_from_helper,
	   "add with a 15-byte request: refused locally (-EINVAL)");
	r = umh_host_call(&h, ECHO_OP_ADD, &add, sizeof(add), rep,
			  sizeof(struct echo_sum) + 1, NULL, 0);
	ok(r == -EINVAL && !h.last_from_helper,
	   "add with a reply buffer of the wrong size: refused locally (-EINVAL)");

	/* the helper's own refusals */
	r = umh_host_call_raw(&h, UNKNOWN_OP, NULL, 0, 64, false, rep,
			      sizeof(rep), NULL, 0);
	ok(r == -EOPNOTSUPP && h.last_from_helper,
	   "unknown op %u sent anyway: helper answers -EOPNOTSUPP", UNKNOWN_OP);
	is(ping(&h, 31, &pong), 0, "...and keeps serving");
	r = umh_host_call_raw(&h, UMH_OP_MAX, big, sizeof(big), 64, false, rep,
			      sizeof(rep), NULL, 0);
	ok(r == -EOPNOTSUPP && h.last_from_helper,
	   "unknown op UMH_OP_MAX with 1000 payload bytes: -EOPNOTSUPP");
	is(ping(&h, 32, &pong), 0, "...and keeps serving (payload skipped)");
	r = umh_host_call_raw(&h, ECHO_OP_ADD, &add, sizeof(add) - 1,
			      sizeof(struct echo_sum), true, rep, sizeof(rep),
			      NULL, 0);
	ok(r == -EINVAL && h.last_from_helper,
	   "add with a 15-byte request: helper answers -EINVAL");
	is(ping(&h, 33, &pong), 0, "...and keeps serving");
	r = umh_host_call_raw(&h, ECHO_OP_ADD, big, sizeof(add) + 1,
			      sizeof(struct echo_sum), true, rep, sizeof(rep),
			      NULL, 0);
	ok(r == -EINVAL && h.last_from_helper,
	   "add with a 17-byte request: helper answers -EINVAL");
	r = umh_host_call_raw(&h, ECHO_OP_PING, big, sizeof(big),
			      sizeof(pong), true, rep, sizeof(rep), NULL, 0);
	ok(r == -EINVAL && h.last_from_helper,
	   "ping with a 1000-byte request: helper answers -EINVAL");
	r = umh_host_call_raw(&h, ECHO_OP_PING, NULL, 0, sizeof(pong), true,
			      rep, sizeof(rep), NULL, 0);
	ok(r == -EINVAL && h.last_from_helper,
	   "ping with an empty request: helper answers -EINVAL");
	is(ping(&h, 34, &pong), 0, "...and keeps serving");
	is(pong.served, 4, "refused requests were not served by handlers (4 pings)");

	/* fixed reply, max_reply too small */
	r = umh_host_call_raw(&h, ECHO_OP_PING, &pingreq, sizeof(pingreq),
			      sizeof(pong) - 1, true, rep, sizeof(rep), NULL, 0);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "ping with max_reply %zu (pong is %zu bytes): helper answers -EMSGSIZE",
	   sizeof(pong) - 1, sizeof(pong));
	r = umh_host_call_raw(&h, ECHO_OP_PING, &pingreq, sizeof(pingreq), 0,
			      true, rep, sizeof(rep), NULL, 0);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "ping with max_reply 0: helper answers -EMSGSIZE");
	r = umh_host_call_raw(&h, ECHO_OP_SINK, big, 10, 0, true, rep,
			      sizeof(rep), NULL, 0);
	ok(r == -EMSGSIZE && h.last_from_helper,
	   "sink (VF) with max_reply 0: helper answers -EMSGSIZE");
	is(ping(&h, 35, &pong), 0, "...and keeps serving");
	is(pong.served, 5, "...without running the handlers (5 served)");
	ok(no_more_replies(&h), "no reply beyond those asked for");
	is(h.violations, 0, "no protocol violation");
	is(finish(&h), 0, "clean EOF: exit 0");
}

/* ---- pipelining ---- */

#define NPIPE 1000

struct sent {
	__u32 id;
	int kind;	/* 0 ping, 1 add, 2 echo */
	__u32 arg;
};

static void test_pipeline(void)
{
	static struct sent sent[NPIPE];
	static unsigned char seen[NPIPE];
	unsigned char payload[400];
	struct umh_host h;
	int i, r, bad = 0, unknown = 0, sendfail = 0, recvfail = 0;
	__u64 served_max = 0;

	if (!ok(start(&h, false), "spawn + hello")) {
		umh_host_destroy(&h);
		return;
	}
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < NPIPE; i++) {
		sent[i].kind = i % 3;
		sent[i].arg = (__u32)i * 7919U;
		if (sent[i].kind == 0) {
			struct echo_ping p = { .cookie = sent[i].arg };

			r = umh_host_send(&h, ECHO_OP_PING, &p, sizeof(p),
					  sizeof(struct echo_pong), true,
					  &sent[i].id, 0);
		} else if (sent[i].kind == 1) {
			struct echo_add a = { .a = i, .b = sent[i].arg };

			r = umh_host_send(&h, ECHO_OP_ADD, &a, sizeof(a),
					  sizeof(struct echo_sum), true,
					  &sent[i].id, 0);
		} else {
			size_t n = (size_t)(i * 37) % sizeof(payload);

			memset(payload, (unsigned char)i, n);
			sent[i].arg = (__u32)n;
			r = umh_host_send(&h, ECHO_OP_ECHO, payload, (__u32)n,
					  sizeof(payload), false, &sent[i].id, 0);
		}
		if (r)
			sendfail++;
	}
	is(sendfail, 0, "%d requests written before reading any reply", NPIPE);
	is(h.npend, NPIPE, "all %d pending", NPIPE);
	for (i = 0; i < NPIPE; i++) {
		struct umh_hdr hdr;
		const void *p;
		int k;

		r = umh_host_recv(&h, &hdr, &p, 0);
		if (r) {
			recvfail++;
			tap_diag("recv %d: %d", i, r);
			break;
		}
		k = (int)(hdr.id - sent[0].id);
		if (k < 0 || k >= NPIPE || sent[k].id != hdr.id || seen[k]) {
			unknown++;
			continue;
		}
		seen[k] = 1;
		if (hdr.status) {
			bad++;
			continue;
		}
		if (sent[k].kind == 0) {
			const struct echo_pong *pg = p;

			if (hdr.op != ECHO_OP_PING || pg->cookie != sent[k].arg)
				bad++;
			if (pg->served > served_max)
				served_max = pg->served;
		} else if (sent[k].kind == 1) {
			const struct echo_sum *s = p;

			if (hdr.op != ECHO_OP_ADD ||
			    s->sum != (__s64)k + (__s64)sent[k].arg)
				bad++;
		} else {
			const unsigned char *e = p;
			__u32 j;

			if (hdr.op != ECHO_OP_ECHO || hdr.len != sent[k].arg)
				bad++;
			for (j = 0; j < hdr.len; j++)
				if (e[j] != (unsigned char)k)
					break;
			if (j != hdr.len)
				bad++;
		}
	}
	is(recvfail, 0, "every reply received");
	is(unknown, 0, "every reply id matches exactly one request sent");
	for (i = 0; i < NPIPE && seen[i]; i++)
		;
	is(i, NPIPE, "every request got its reply");
	is(bad, 0, "every reply carries its request's answer");
	is(h.npend, 0, "nothing pending");
	ok(served_max >= NPIPE - 3, "helper served them all (%llu)",
	   (unsigned long long)served_max);
	ok(no_more_replies(&h), "no reply beyond those asked for");
	is(h.violations, 0, "no protocol violation");
	is(finish(&h), 0, "clean EOF: exit 0");
}

/* ---- raw frames ---- */

/* A request with an id the host never used: the reply carries that id. */
static void test_raw_ids(void)
{
	struct {
		struct umh_hdr hdr;
		struct echo_ping ping;
	} f;
	struct {
		struct umh_hdr hdr;
		struct echo_pong pong;
	} rf;
	struct echo_pong pong;
	struct umh_host h;
	size_t got = 0;
	int r;

	_Static_assert(sizeof(f) == sizeof(struct umh_hdr) + sizeof(struct echo_ping) &&
		       sizeof(rf) == sizeof(struct umh_hdr) + sizeof(struct echo_pong),
		       "no padding");
	if (!ok(start(&h, false), "spawn + hello")) {
		umh_host_destroy(&h);
		return;
	}
	umh_hdr_init(&f.hdr, ECHO_OP_PING, 0xdeadbeef, sizeof(f.ping), 0, 0,
		     sizeof(struct echo_pong));
	f.ping.cookie = 77;
	f.ping.pad = 0;
	r = umh_host_send_raw(&h, &f, sizeof(f), 0);
	is(r, 0, "raw ping frame with id 0xdeadbeef sent");
	r = umh_host_read_reply_raw(&h, &rf, sizeof(rf), &got, 5000);
	ok(r == 0 && got == sizeof(rf), "its reply: %zu bytes", got);
	is(umh_hdr_check(&rf.hdr, true, sizeof(struct echo_pong)), 0,
	   "reply header is well formed");
	is(rf.hdr.id, 0xdeadbeef, "reply carries the request's id");
	ok(rf.hdr.op == ECHO_OP_PING && rf.hdr.status == 0 &&
	   rf.hdr.len == sizeof(struct echo_pong) && rf.pong.cookie == 77,
	   "reply op, status, length and cookie");

	/* Id 0 and the same id twice: answered as asked, no more. */
	umh_hdr_init(&f.hdr, ECHO_OP_PING, 0, sizeof(f.ping), 0, 0,
		     sizeof(struct echo_pong));
	r = umh_host_send_raw(&h, &f, sizeof(f), 0);
	r |= umh_host_send_raw(&h, &f, sizeof(f), 0);
	r |= umh_host_read_reply_raw(&h, &rf, sizeof(rf), &got, 5000);
	ok(r == 0 && rf.hdr.id == 0, "request id 0: reply id 0");
	r = umh_host_read_reply_raw(&h, &rf, sizeof(rf), &got, 5000);
	ok(r == 0 && rf.hdr.id == 0, "same id again: answered again");
	r = umh_host_read_reply_raw(&h, &rf, 1, &got, 300);
	ok(r == -ETIMEDOUT && got == 0, "and nothing more within 300 ms");

	/* The tracked path still works after the raw exchange. */
	is(ping(&h, 41, &pong), 0, "tracked ping after the raw frames");
	ok(no_more_replies(&h), "no reply beyond those asked for");
	is(h.violations, 0, "no protocol violation");
	is(finish(&h), 0, "clean EOF: exit 0");
}

struct bad_frame {
	const char *what;
	void (*mangle)(struct umh_hdr *h);
};

static void m_magic(struct umh_hdr *h) { h->magic = 0x0badf00d; }
static void m_version(struct umh_hdr *h) { h->version = 2; }
static void m_flag_reply(struct umh_hdr *h) { h->flags = UMH_F_REPLY; }
static void m_flag_unknown(struct umh_hdr *h) { h->flags = 0x100; }
static void m_reserved(struct umh_hdr *h) { h->reserved = 1; }
static void m_status(struct umh_hdr *h) { h->status = -5; }
static void m_op(struct umh_hdr *h) { h->op = UMH_OP_MAX + 1; }
static void m_len(struct umh_hdr *h) { h->len = UMH_DEFAULT_MAX_PAYLOAD + 1; }

static void test_malformed(void)
{
	static const struct bad_frame bad[] = {
		{ "bad magic", m_magic },
		{ "wire version 2", m_version },
		{ "UMH_F_REPLY on a request", m_flag_reply },
		{ "unknown flag", m_flag_unknown },
		{ "reserved != 0", m_reserved },
		{ "request with a status", m_status },
		{ "op > UMH_OP_MAX", m_op },
		{ "len > max_payload (16 MiB)", m_len },
	};
	struct echo_ping pingreq = { .cookie = 5 };
	struct umh_host h;
	struct umh_hdr hdr;
	unsigned char b;
	size_t i, got;
	int r;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!start(&h, false)) {
			ok(0, "spawn + hello");
			umh_host_destroy(&h);
			continue;
		}
		umh_hdr_init(&hdr, ECHO_OP_PING, 99, sizeof(pingreq), 0, 0,
			     sizeof(struct echo_pong));
		bad[i].mangle(&hdr);
		r = umh_host_send_raw(&h, &hdr, sizeof(hdr), 0);
		r |= umh_host_send_raw(&h, &pingreq, sizeof(pingreq), 0);
		r |= umh_host_read_reply_raw(&h, &b, 1, &got, 5000);
		ok(r == -ECONNRESET && got == 0,
		   "%s: no reply, reply stream closed", bad[i].what);
		is(wait_exit(&h), UMH_EXIT_PROTO,
		   "%s: helper exits UMH_EXIT_PROTO", bad[i].what);
	}

	/* Above a negotiated cap: 4097 bytes after hello said 4096. */
	if (start(&h, true)) {
		struct umh_hello hello = { .proto_id = ECHO_PROTO_ID,
					   .proto_version = ECHO_PROTO_VERSION,
					   .max_payload = 4096 };
		struct umh_hello rep;

		r = umh_host_call_raw(&h, UMH_OP_HELLO, &hello, sizeof(hello),
				      sizeof(rep), true, &rep, sizeof(rep),
				      NULL, 0);
		ok(r == 0 && rep.max_payload == 4096, "hello with cap 4096");
		umh_hdr_init(&hdr, ECHO_OP_ECHO, 2, 4097, 0, 0, 4096);
		r = umh_host_send_raw(&h, &hdr, sizeof(hdr), 0);
		r |= umh_host_read_reply_raw(&h, &b, 1, &got, 5000);
		ok(r == -ECONNRESET && got == 0,
		   "4097-byte request header with cap 4096: no reply");
		is(wait_exit(&h), UMH_EXIT_PROTO,
		   "...helper exits UMH_EXIT_PROTO");
	} else {
		umh_host_destroy(&h);
	}
}

static void test_truncated(void)
{
	unsigned char junk[100];
	struct umh_host h;
	struct umh_hdr hdr;
	unsigned char b;
	size_t got;
	int r;

	memset(junk, 0x33, sizeof(junk));

	/* EOF right away, before hello */
	if (start(&h, true))
		is(finish(&h), 0, "EOF before any request: exit 0");
	else
		umh_host_destroy(&h);

	/* EOF in the middle of a header */
	if (start(&h, false)) {
		umh_hdr_init(&hdr, ECHO_OP_ECHO, 2, 10, 0, 0, 10);
		r = umh_host_send_raw(&h, &hdr, 17, 0);
		is(r, 0, "17 of 32 header bytes sent");
		is(finish(&h), UMH_EXIT_IO, "EOF mid-header: exit UMH_EXIT_IO");
	} else {
		umh_host_destroy(&h);
	}

	/* a single byte */
	if (start(&h, false)) {
		r = umh_host_send_raw(&h, junk, 1, 0);
		is(finish(&h), UMH_EXIT_IO, "EOF after 1 header byte: exit UMH_EXIT_IO");
	} else {
		umh_host_destroy(&h);
	}

	/* EOF right after a header announcing a payload */
	if (start(&h, false)) {
		umh_hdr_init(&hdr, ECHO_OP_ECHO, 2, 100, 0, 0, 100);
		r = umh_host_send_raw(&h, &hdr, sizeof(hdr), 0);
		is(finish(&h), UMH_EXIT_IO,
		   "EOF after a header, before its payload: exit UMH_EXIT_IO");
	} else {
		umh_host_destroy(&h);
	}

	/* EOF in the middle of a payload */
	if (start(&h, false)) {
		umh_hdr_init(&hdr, ECHO_OP_ECHO, 2, 100, 0, 0, 100);
		r = umh_host_send_raw(&h, &hdr, sizeof(hdr), 0);
		r |= umh_host_send_raw(&h, junk, 50, 0);
		is(r, 0, "header + 50 of 100 payload bytes sent");
		r = umh_host_read_reply_raw(&h, &b, 1, &got, 200);
		ok(r == -ETIMEDOUT && got == 0, "no reply to a half-sent request");
		is(finish(&h), UMH_EXIT_IO, "EOF mid-payload: exit UMH_EXIT_IO");
	} else {
		umh_host_destroy(&h);
	}

	/* EOF in the middle of the payload of a request being refused */
	if (start(&h, false)) {
		umh_hdr_init(&hdr, 77, 2, 100, 0, 0, 100);
		r = umh_host_send_raw(&h, &hdr, sizeof(hdr), 0);
		r |= umh_host_send_raw(&h, junk, 50, 0);
		is(finish(&h), UMH_EXIT_IO,
		   "EOF mid-payload of a refused (unknown op) request: exit UMH_EXIT_IO");
	} else {
		umh_host_destroy(&h);
	}

	/* EOF in the middle of a hello payload */
	if (start(&h, true)) {
		umh_hdr_init(&hdr, UMH_OP_HELLO, 1, sizeof(struct umh_hello), 0, 0,
			     sizeof(struct umh_hello));
		r = umh_host_send_raw(&h, &hdr, sizeof(hdr), 0);
		r |= umh_host_send_raw(&h, junk, 10, 0);
		is(finish(&h), UMH_EXIT_IO, "EOF mid-hello payload: exit UMH_EXIT_IO");
	} else {
		umh_host_destroy(&h);
	}
}

/* ---- timeouts and deaths ---- */

static void test_timeout_and_death(void)
{
	struct echo_sleep sl = { .ms = 3000 }, slr;
	struct echo_pong pong;
	struct umh_host h;
	long long t0, dt;
	int r;

	if (!ok(start(&h, false), "spawn + hello")) {
		umh_host_destroy(&h);
		return;
	}
	t0 = umh_host__now_ms();
	r = umh_host_call(&h, ECHO_OP_SLEEP, &sl, sizeof(sl), &slr, sizeof(slr),
			  NULL, 200);
	dt = umh_host__now_ms() - t0;
	ok(r == -ETIMEDOUT && dt >= 200 && dt < 2000,
	   "sleep 3000 ms with a 200 ms deadline: -ETIMEDOUT after %lld ms", dt);
	is(ping(&h, 1, &pong), -ETIMEDOUT,
	   "the generation is over: later calls fail with the same error");
	is(wait_exit(&h), -SIGKILL, "the helper that missed its deadline was killed");

	/* A helper that does not read: the request cannot even be written. */
	if (!ok(start(&h, false), "spawn + hello")) {
		umh_host_destroy(&h);
		return;
	}
	{
		struct {
			struct umh_hdr hdr;
			struct echo_sleep sl;
		} f;
		unsigned char *big = calloc(1, ECHO_MAX);

		umh_hdr_init(&f.hdr, ECHO_OP_SLEEP, 777, sizeof(f.sl), 0, 0,
			     sizeof(f.sl));
		f.sl.ms = 3000;
		f.sl.pad = 0;
		r = umh_host_send_raw(&h, &f, sizeof(f), 0);
		t0 = umh_host__now_ms();
		r |= umh_host_call(&h, ECHO_OP_ECHO, big, ECHO_MAX, big,
				   ECHO_MAX, NULL, 300);
		dt = umh_host__now_ms() - t0;
		ok(r == -ETIMEDOUT && !h.last_from_helper && dt >= 300 && dt < 2500,
		   "1 MiB request to a helper that is busy for 3 s: -ETIMEDOUT after %lld ms",
		   dt);
		ok(h.dead == -ETIMEDOUT, "...the request was cut short: generation over");
		is(wait_exit(&h), -SIGKILL, "...and the helper was killed");
		free(big);
	}

	if (!ok(start(&h, false), "spawn + hello")) {
		umh_host_destroy(&h);
		return;
	}
	is(ping(&h, 2, &pong), 0, "ping");
	is(umh_host_kill(&h, SIGKILL), 0, "helper killed from outside");
	r = ping(&h, 3, &pong);
	is(r, -ECONNRESET, "next call: -ECONNRESET (reply stream ended)");
	is(wait_exit(&h), -SIGKILL, "reaped: killed by SIGKILL");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s ECHO-HELPER\n", argv[0]);
		return 2;
	}
	helper_path = argv[1];
	signal(SIGPIPE, SIG_IGN);
	tap_watchdog(240);
	tap_diag("echo helper: %s", helper_path);

	test_spawn_errors();
	test_hello();
	test_bad_hello();
	test_ops();
	test_echo_sizes();
	test_refusals();
	test_pipeline();
	test_raw_ids();
	test_malformed();
	test_truncated();
	test_timeout_and_death();
	return tap_done();
}
