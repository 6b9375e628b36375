// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Fuzz target "req": a request frame decoded as the helper decodes it,
 * for the echo and the bpfilter protocols.
 *
 * Input: [protocol byte][u32 payload cap][32-byte header][payload...].
 *
 * 1. The helper's checks, in the runtime's order (<umh_sdk/helper.h>):
 *    umh_hdr_check(request), then for the hello the exact sizes that
 *    umh__hello() insists on, for an op umh_proto_op(),
 *    umh_op_check_req() and the fixed-reply max_reply test.  What is
 *    accepted is then read the way the runtime and the handlers read it:
 *    a fixed request as its full struct, a variable one byte by byte, from
 *    a buffer of exactly the header's len, so AddressSanitizer sees a
 *    length check that lets too short a payload through.  The properties
 *    the header promises once accepted are checked too.
 * 2. The kernel's encoder against that decoder: the same op, length and
 *    reply buffer, put through umh_blob_call()'s checks (the same rpc.h
 *    functions) and umh_hdr_init(), must make a frame the helper accepts
 *    with the reply bound the kernel meant.
 */
#include "fuzz.h"

#include "echo_proto.h"
#include "bpfilter_proto.h"

static const struct umh_proto *protos[] = {
	&echo_umh_proto, &bpfilter_umh_proto,
};

static void helper_decode(const struct umh_proto *p, __u32 cap,
			  const struct umh_hdr *h, const uint8_t *rest,
			  size_t rest_len)
{
	const struct umh_op_desc *d;
	uint8_t *payload;
	int r;

	r = umh_hdr_check(h, false, cap);
	if (r == 0 || r == -EMSGSIZE) {
		/* Well formed: every field the helper relies on. */
		FUZZ_CHECK(h->magic == UMH_WIRE_MAGIC);
		FUZZ_CHECK(h->version == UMH_WIRE_VERSION);
		FUZZ_CHECK(h->flags == 0 && h->reserved == 0 && h->status == 0);
		FUZZ_CHECK(h->op <= UMH_OP_MAX);
		FUZZ_CHECK((r == 0) == (h->len <= cap));
	} else {
		FUZZ_CHECK(r == -EBADMSG);
	}
	if (r)
		return;			/* the helper exits UMH_EXIT_PROTO */
	if (h->len > rest_len)
		return;			/* truncated: UMH_EXIT_IO */
	payload = fuzz_dup(rest, h->len);

	if (h->op == UMH_OP_HELLO) {
		if (h->len == sizeof(struct umh_hello) &&
		    h->max_reply == sizeof(struct umh_hello))
			fuzz_read(payload, sizeof(struct umh_hello));
		free(payload);
		return;
	}
	d = umh_proto_op(p, h->op);
	if (!d) {
		FUZZ_CHECK(h->op >= p->n_ops || !p->ops[h->op].name);
		free(payload);
		return;			/* -EOPNOTSUPP */
	}
	FUZZ_CHECK(d->op == h->op && d->name);
	r = umh_op_check_req(d, h->len, cap);
	if (!r && !d->rep_var && h->max_reply < d->rep_size)
		r = -EMSGSIZE;
	if (!r) {
		/* a handler reads a fixed request as its whole struct */
		if (!d->req_var) {
			fuzz_read(payload, d->req_size);
		} else {
			FUZZ_CHECK(h->len <= d->req_size && h->len <= cap);
			fuzz_read(payload, h->len);
		}
		/* the handler's reply bound, as umh__dispatch() sets it */
		FUZZ_CHECK(umh_op_rep_max(d, cap) <= d->rep_size);
	}
	free(payload);
}

/* What umh_blob_call() + umh_proc_call() send for the same call. */
static void kernel_encode(const struct umh_proto *p, __u32 cap, __u16 op,
			  __u32 len, __u32 rep_cap, __u32 id)
{
	const struct umh_op_desc *d = umh_proto_op(p, op);
	struct umh_hdr h;

	/* umh_blob_create() refuses a cap the protocol cannot live with */
	if (cap < umh_proto_min_payload(p))
		return;
	if (!d || umh_op_check_req(d, len, cap))
		return;
	if (!d->rep_var)
		rep_cap = d->rep_size;	/* the typed call passes sizeof() */
	rep_cap = rep_cap < umh_op_rep_max(d, cap) ? rep_cap :
		  umh_op_rep_max(d, cap);
	umh_hdr_init(&h, op, id, len, 0, 0, rep_cap);
	FUZZ_CHECK(umh_hdr_check(&h, false, cap) == 0);
	FUZZ_CHECK(umh_proto_op(p, h.op) == d);
	FUZZ_CHECK(umh_op_check_req(d, h.len, cap) == 0);
	FUZZ_CHECK(d->rep_var || h.max_reply >= d->rep_size);
	/* the helper's out.max is the kernel's rep_cap */
	if (d->rep_var)
		FUZZ_CHECK((h.max_reply < umh_op_rep_max(d, cap) ?
			    h.max_reply : umh_op_rep_max(d, cap)) == rep_cap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	const struct umh_proto *p;
	struct umh_hdr h;
	__u32 cap;

	if (size < 1 + 4 + sizeof(h))
		return 0;
	p = protos[fuzz_u8(&in) % 2];
	/* a cap the kernel accepts: 1 .. UMH_ABS_MAX_PAYLOAD (0 is 16 MiB) */
	cap = fuzz_u32(&in) % (UMH_ABS_MAX_PAYLOAD + 1);
	if (!cap)
		cap = UMH_DEFAULT_MAX_PAYLOAD;
	fuzz_take(&in, &h, sizeof(h));

	helper_decode(p, cap, &h, in.p, in.left);
	kernel_encode(p, cap, h.op, h.len, h.max_reply, h.id);
	return 0;
}
