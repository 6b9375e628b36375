// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Fuzz target "rep": the helper's reply stream decoded as the kernel
 * decodes it (kernel/umh_proc.c, umh_rx() and umh_rx_claim()).
 *
 * Input: [protocol byte][u32 payload cap][u32 first id][u8 calls]
 *        then per call [u8 op][u32 reply buffer size], then the reply
 *        stream the helper writes.
 *
 * The calls are set up as umh_blob_call() sets them up (the reply bound
 * from umh_op_rep_max(), a fixed reply's buffer exactly its size; hello
 * is a fixed 24-byte reply) with ids from ++next_id, each with a reply
 * buffer of exactly rep_cap bytes.  Then, per reply frame, the same
 * decisions as the kernel, with the same inline functions:
 * umh_hdr_check(reply, cap), the pending call with that id,
 * umh_rep_check() against its op and buffer, and the payload copied into
 * the caller's buffer.  A check that lets a reply overrun its buffer is
 * an AddressSanitizer report; the properties an accepted reply promises
 * the caller (status range, payload length) are checked as well.
 *
 * Not covered: the list locking, partial reads and the abandon/cut paths
 * of umh_rx(), which need the kernel; the id lookup and the copy loop
 * here are a model of umh_rx_claim()/umh_rx(), not that code.
 */
#include "fuzz.h"

#include "echo_proto.h"
#include "bpfilter_proto.h"

#define MAX_CALLS	8
/* The caller's buffer for a variable reply, bounded to keep runs fast. */
#define MAX_REP_BUF	(64U << 10)

static const struct umh_proto *protos[] = {
	&echo_umh_proto, &bpfilter_umh_proto,
};

struct call {
	const struct umh_op_desc *d;	/* NULL: hello */
	__u16 op;
	__u32 id;
	__u32 rep_cap;
	bool fixed;
	bool pending;
	uint8_t *rep;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct call calls[MAX_CALLS];
	const struct umh_proto *p;
	unsigned int i, n = 0, ncalls;
	__u32 cap, next_id;

	if (size < 1 + 4 + 4 + 1)
		return 0;
	p = protos[fuzz_u8(&in) % 2];
	cap = fuzz_u32(&in) % (UMH_ABS_MAX_PAYLOAD + 1);
	if (!cap)
		cap = UMH_DEFAULT_MAX_PAYLOAD;
	/* the smallest cap umh_blob_create() accepts for this protocol */
	if (cap < umh_proto_min_payload(p))
		cap = umh_proto_min_payload(p);
	next_id = fuzz_u32(&in);
	ncalls = fuzz_u8(&in) % MAX_CALLS + 1;

	/* umh_blob_call() / umh_hello() -> umh_proc_call() */
	for (i = 0; i < ncalls; i++) {
		__u16 op = fuzz_u8(&in);
		__u32 rep_cap = fuzz_u32(&in);
		struct call *c = &calls[n];

		memset(c, 0, sizeof(*c));
		if (op == UMH_OP_HELLO) {
			c->rep_cap = sizeof(struct umh_hello);
			c->fixed = true;
		} else {
			c->d = umh_proto_op(p, op);
			if (!c->d)
				continue;	/* -EOPNOTSUPP, nothing sent */
			c->fixed = !c->d->rep_var;
			if (c->fixed)
				rep_cap = c->d->rep_size;
			if (rep_cap > umh_op_rep_max(c->d, cap))
				rep_cap = umh_op_rep_max(c->d, cap);
			if (!c->fixed && rep_cap > MAX_REP_BUF)
				rep_cap = MAX_REP_BUF;
			c->rep_cap = rep_cap;
		}
		c->op = op;
		c->id = ++next_id;
		c->pending = true;
		c->rep = fuzz_alloc(c->rep_cap);
		n++;
	}

	/* umh_rx(): header, claim, payload into the caller's buffer */
	while (in.left >= sizeof(struct umh_hdr)) {
		struct umh_hdr h;
		struct call *c = NULL;
		size_t got;

		fuzz_take(&in, &h, sizeof(h));
		if (umh_hdr_check(&h, true, cap))
			break;			/* malformed reply header */
		for (i = 0; i < n; i++)
			if (calls[i].pending && calls[i].id == h.id)
				c = &calls[i];
		if (!c)
			break;			/* reply to no pending request */
		if (umh_rep_check(&h, c->op, c->rep_cap, c->fixed))
			break;			/* wrong op or size */

		c->pending = false;
		/* the reader copies into call->rep + rgot, rep_len = rgot */
		got = h.len < in.left ? h.len : in.left;
		if (got)
			memcpy(c->rep, in.p, got);
		fuzz_escape(c->rep);
		in.p += got;
		in.left -= got;
		/* what the caller is promised */
		FUZZ_CHECK(h.status <= 0 && h.status >= -UMH_MAX_STATUS_ERRNO);
		FUZZ_CHECK(h.len <= cap);
		if (h.status) {
			FUZZ_CHECK(h.len == 0);
		} else if (c->d) {
			FUZZ_CHECK(umh_op_check_rep(c->d, h.len, c->rep_cap) == 0);
			FUZZ_CHECK(h.len <= umh_op_rep_max(c->d, cap));
		} else {
			FUZZ_CHECK(h.len == sizeof(struct umh_hello));
		}
		if (got < h.len)
			break;			/* -EPIPE */
	}

	for (i = 0; i < n; i++)
		free(calls[i].rep);
	return 0;
}
