// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Fuzz target "helper": the helper runtime end to end, with the real
 * handlers of the echo and the bpfilter samples.
 *
 * Input: [protocol byte][request stream].
 *
 * The sample helpers' sources are compiled into this file (their main()
 * renamed, echo's nanosleep() made instant) and umh_helper_run() is
 * called unchanged: the stream is its fd 0 (a memfd), its replies go to
 * fd 1 (another memfd) and its log lines to /dev/null (FUZZ_VERBOSE=1
 * keeps them).  Sanitizer reports keep going to the real stderr.  State
 * is reset per input: echo's counters and tag, bpfilter's filter table.
 *
 * The replies are then checked the way the kernel would check them
 * (umh_hdr_check(reply), ids, umh_rep_check() with the bound the kernel
 * would have set, umh_op_check_rep()), one per request in order, and a
 * clean exit must mean every request was answered.  Echo's replies are
 * checked for content too (echo returns its payload, add the sum).
 *
 * Inputs in which a frame claims more than 16 MiB (possible only after a
 * hello raised the cap) are skipped: they cost a huge allocation per run
 * and exercise nothing that 16 MiB does not.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <sanitizer/common_interface_defs.h>

#include "fuzz.h"

/* echo's sleep op must not sleep here; only its file sees this. */
static int fuzz_nanosleep(const struct timespec *req, struct timespec *rem)
{
	(void)req;
	(void)rem;
	return 0;
}
#define nanosleep fuzz_nanosleep
#define main echo_helper_main
#include "../../samples/echo_umh/echo_umh_helper.c"
#undef main
#undef nanosleep
#define main bpfilter_helper_main
#include "../../samples/bpfilter/bpfilter_helper.c"
#undef main

/*
 * The samples' sandboxes would confine the fuzzer process itself (its
 * first sanitizer or libFuzzer system call outside the allowlist ends in
 * SIGSYS), so the runtime runs here with none; the sandbox has its own
 * tests (tests/unit/test_sandbox.c, the sandbox guest suite).
 */
static const struct umh_sandbox fuzz_no_sandbox = {
	.off = 1,
	.why_off = "fuzzing the runtime in-process",
};

static int fd_in, fd_out, fd_null, saved[3], cwd;
static bool verbose;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int i;

	(void)argc;
	(void)argv;
	fd_in = memfd_create("fuzz-in", MFD_CLOEXEC);
	fd_out = memfd_create("fuzz-out", MFD_CLOEXEC);
	fd_null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	/* the runtime leaves its working directory; libFuzzer's paths need it */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < 3; i++)
		saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 10);
	FUZZ_CHECK(fd_in >= 0 && fd_out >= 0 && fd_null >= 0 && cwd >= 0);
	FUZZ_CHECK(saved[0] >= 0 && saved[1] >= 0 && saved[2] >= 0);
	/* sanitizer reports must not follow fd 2 into /dev/null */
	__sanitizer_set_report_fd((void *)(intptr_t)saved[2]);
	verbose = getenv("FUZZ_VERBOSE") != NULL;
	return 0;
}

static void redirect(int in, int out, int err)
{
	FUZZ_CHECK(dup2(in, 0) == 0);
	FUZZ_CHECK(dup2(out, 1) == 1);
	FUZZ_CHECK(dup2(err, 2) == 2);
}

static int run(int proto, const uint8_t *s, size_t n)
{
	int ret;

	FUZZ_CHECK(ftruncate(fd_in, 0) == 0);
	FUZZ_CHECK(ftruncate(fd_out, 0) == 0);
	FUZZ_CHECK(n == 0 || pwrite(fd_in, s, n, 0) == (ssize_t)n);
	FUZZ_CHECK(lseek(fd_in, 0, SEEK_SET) == 0);
	FUZZ_CHECK(lseek(fd_out, 0, SEEK_SET) == 0);
	redirect(fd_in, fd_out, verbose ? saved[2] : fd_null);
	if (proto == 0) {
		served = 0;
		memset(tag, 0, sizeof(tag));
		ret = umh_helper_run(&echo_umh_proto, echo_umh_handlers, NULL,
				     &fuzz_no_sandbox);
	} else {
		ipt_table_free(&filter);
		if (ipt_table_init_filter(&filter))
			abort();
		ret = umh_helper_run(&bpfilter_umh_proto,
				     bpfilter_umh_handlers, NULL,
				     &fuzz_no_sandbox);
	}
	redirect(saved[0], saved[1], saved[2]);
	FUZZ_CHECK(fchdir(cwd) == 0);
	return ret;
}

static __u32 min32(__u32 a, __u32 b)
{
	return a < b ? a : b;
}

/* Each reply against its request, as the kernel would take it. */
static void check_replies(const struct umh_proto *p, const uint8_t *s,
			  size_t n, const uint8_t *o, size_t on, int ret)
{
	__u32 cap = UMH_DEFAULT_MAX_PAYLOAD;
	size_t ro = 0, oo = 0;

	while (oo < on) {
		const struct umh_op_desc *d = NULL;
		struct umh_hdr rq, rp;
		const uint8_t *qp, *pp;
		__u32 rep_cap = 0;
		bool fixed = false;

		FUZZ_CHECK(on - oo >= sizeof(rp));
		FUZZ_CHECK(n - ro >= sizeof(rq));
		memcpy(&rp, o + oo, sizeof(rp));
		memcpy(&rq, s + ro, sizeof(rq));
		/* the helper answers only a well-formed, complete request */
		FUZZ_CHECK(umh_hdr_check(&rq, false, cap) == 0);
		FUZZ_CHECK(n - ro - sizeof(rq) >= rq.len);
		FUZZ_CHECK(on - oo - sizeof(rp) >= rp.len);
		qp = s + ro + sizeof(rq);
		pp = o + oo + sizeof(rp);

		FUZZ_CHECK(umh_hdr_check(&rp, true, UMH_ABS_MAX_PAYLOAD) == 0);
		FUZZ_CHECK(rp.id == rq.id && rp.op == rq.op);
		if (rq.op == UMH_OP_HELLO) {
			rep_cap = sizeof(struct umh_hello);
			fixed = true;
		} else if ((d = umh_proto_op(p, rq.op))) {
			fixed = !d->rep_var;
			rep_cap = fixed ? d->rep_size :
				  min32(rq.max_reply, umh_op_rep_max(d, cap));
		} else {
			FUZZ_CHECK(rp.status == -EOPNOTSUPP);
		}
		FUZZ_CHECK(umh_rep_check(&rp, rq.op, rep_cap, fixed) == 0);
		if (d && !rp.status)
			FUZZ_CHECK(umh_op_check_rep(d, rp.len, rep_cap) == 0);
		/* a kernel with this cap (one umh_blob_create() accepts)
		 * takes the reply */
		if (cap >= umh_proto_min_payload(p))
			FUZZ_CHECK(umh_hdr_check(&rp, true, cap) == 0);

		if (rq.op == UMH_OP_HELLO && !rp.status) {
			struct umh_hello hq, hp;

			memcpy(&hq, qp, sizeof(hq));
			memcpy(&hp, pp, sizeof(hp));
			if (hq.max_payload && hq.max_payload <= UMH_ABS_MAX_PAYLOAD)
				cap = hq.max_payload;
			FUZZ_CHECK(hp.max_payload == cap);
			FUZZ_CHECK(hp.proto_id == p->id &&
				   hp.proto_version == p->version);
		}
		if (p == &echo_umh_proto && !rp.status && rq.op == ECHO_OP_ECHO) {
			FUZZ_CHECK(rp.len == rq.len);
			FUZZ_CHECK(memcmp(pp, qp, rq.len) == 0);
		}
		if (p == &echo_umh_proto && !rp.status && rq.op == ECHO_OP_ADD) {
			struct echo_add a;
			struct echo_sum sum;

			memcpy(&a, qp, sizeof(a));
			memcpy(&sum, pp, sizeof(sum));
			FUZZ_CHECK(sum.sum == (__s64)((__u64)a.a + (__u64)a.b));
		}
		ro += sizeof(rq) + rq.len;
		oo += sizeof(rp) + rp.len;
	}
	/* EOF at a frame boundary after answering everything */
	if (ret == 0)
		FUZZ_CHECK(ro == n);
	else
		FUZZ_CHECK(ret == UMH_EXIT_IO || ret == UMH_EXIT_PROTO);
}

/*
 * Structure-aware mutation: half of the time, instead of libFuzzer's
 * byte-level mutation, pick one frame of the stream and set one header
 * field to a value that sits on a boundary the runtime checks: max_reply
 * below or at the payload, len one off, another op, the hello's cap.
 */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	size_t off = 1, frames[64], nf = 0;
	struct umh_hdr h;
	uint8_t *at;

	srand(seed);
	if (size < 1 + sizeof(h) || rand() % 2)
		return LLVMFuzzerMutate(data, size, max_size);
	while (nf < 64 && size - off >= sizeof(h)) {
		frames[nf++] = off;
		memcpy(&h, data + off, sizeof(h));
		if (h.len > size - off - sizeof(h))
			break;
		off += sizeof(h) + h.len;
	}
	at = data + frames[rand() % nf];
	memcpy(&h, at, sizeof(h));
	switch (rand() % 6) {
	case 0:
		h.max_reply = h.max_reply ? (__u32)rand() % h.max_reply : 0;
		break;
	case 1:
		h.max_reply = h.len + (__u32)(rand() % 3) - 1;
		break;
	case 2:
		h.len += (__u32)(rand() % 3) - 1;
		break;
	case 3:
		h.op = (__u16)(rand() % 8);
		break;
	case 4:
		h.id = (__u32)rand();
		break;
	default:
		if (h.op == UMH_OP_HELLO && h.len == sizeof(struct umh_hello) &&
		    (size_t)(at - data) + sizeof(h) + h.len <= size) {
			__u32 cap = (__u32)rand() % 4096;

			memcpy(at + sizeof(h) +
			       offsetof(struct umh_hello, max_payload),
			       &cap, sizeof(cap));
		}
		break;
	}
	memcpy(at, &h, sizeof(h));
	return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct umh_proto *p;
	const uint8_t *s = data + 1;
	size_t n = size - 1, off = 0, on;
	uint8_t *out;
	int proto, ret;
	off_t end;

	if (size < 1)
		return 0;
	proto = data[0] & 1;
	p = proto ? &bpfilter_umh_proto : &echo_umh_proto;
	while (n - off >= sizeof(struct umh_hdr)) {
		struct umh_hdr h;

		memcpy(&h, s + off, sizeof(h));
		if (h.len > UMH_DEFAULT_MAX_PAYLOAD)
			return 0;
		off += sizeof(h) + h.len;
		if (off > n)
			break;
	}

	ret = run(proto, s, n);

	end = lseek(fd_out, 0, SEEK_END);
	FUZZ_CHECK(end >= 0);
	on = (size_t)end;
	out = fuzz_alloc(on);
	FUZZ_CHECK(on == 0 || pread(fd_out, out, on, 0) == (ssize_t)on);
	if (verbose)
		fprintf(stderr, "helper exited %d after %zu reply bytes\n", ret,
			on);
	check_replies(p, s, n, out, on, ret);
	free(out);
	return 0;
}
