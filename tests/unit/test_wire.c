// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the frame codec (<umh_sdk/wire.h>) and of the protocol
 * tables (<umh_sdk/rpc.h>): every accept/reject branch of umh_hdr_check(),
 * umh_proto_op(), umh_op_check_req()/umh_op_check_rep(), and the tables
 * UMH_PROTO_DEFINE() generates for all four kind pairs.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <umh_sdk/wire.h>
#include <umh_sdk/rpc.h>

#include "../../samples/echo_umh/echo_proto.h"
#include "tap.h"

/* ---- a protocol with all four kind pairs and a hole at op 4 ---- */

struct t_small {
	__u32 x;
};

struct t_big {
	__u64 y;
	__u32 z;
	__u32 pad;
};

#define T_VAR_REQ	100
#define T_VAR_REP	3000

/* Listed out of order on purpose: the table is indexed by op number. */
#define T_OPS(OP)							\
	OP(tp, vv, 5, UMH_VAR(T_VAR_REQ), UMH_VAR(T_VAR_REP))		\
	OP(tp, ff, 1, UMH_FIXED(struct t_small), UMH_FIXED(struct t_big)) \
	OP(tp, fv, 2, UMH_FIXED(struct t_big), UMH_VAR(T_VAR_REP))	\
	OP(tp, vf, 3, UMH_VAR(T_VAR_REQ), UMH_FIXED(struct t_small))

UMH_PROTO_DEFINE(tp, 0x54455354U, 7, T_OPS)

/* The highest op number is allowed, and sizes the table. */
#define TOP_OPS(OP)							\
	OP(top, last, UMH_OP_MAX, UMH_FIXED(struct t_small), UMH_VAR(0))

UMH_PROTO_DEFINE(top, 1, 1, TOP_OPS)

/* Fixed sides bigger than the handshake; variable ones do not count. */
struct t_req100 {
	char b[100];
};

struct t_rep60 {
	char b[60];
};

#define BIG_OPS(OP)							\
	OP(big, a, 1, UMH_FIXED(struct t_req100), UMH_VAR(5000))	\
	OP(big, b, 3, UMH_VAR(9000), UMH_FIXED(struct t_rep60))

UMH_PROTO_DEFINE(big, 2, 1, BIG_OPS)

#define BIGREP_OPS(OP)							\
	OP(bigrep, b, 2, UMH_VAR(9000), UMH_FIXED(struct t_rep60))

UMH_PROTO_DEFINE(bigrep, 3, 1, BIGREP_OPS)

/* ---- helpers ---- */

static struct umh_hdr req_hdr(void)
{
	struct umh_hdr h;

	umh_hdr_init(&h, 1, 42, 10, 0, 0, 100);
	return h;
}

static struct umh_hdr rep_hdr(void)
{
	struct umh_hdr h;

	umh_hdr_init(&h, 1, 42, 10, 0, UMH_F_REPLY, 0);
	return h;
}

static void test_layout(void)
{
	struct umh_hdr h;
	unsigned char bytes[sizeof(h)];

	is(sizeof(struct umh_hdr), 32, "umh_hdr is 32 bytes");
	is(offsetof(struct umh_hdr, magic), 0, "umh_hdr.magic at 0");
	is(offsetof(struct umh_hdr, version), 4, "umh_hdr.version at 4");
	is(offsetof(struct umh_hdr, op), 6, "umh_hdr.op at 6");
	is(offsetof(struct umh_hdr, id), 8, "umh_hdr.id at 8");
	is(offsetof(struct umh_hdr, len), 12, "umh_hdr.len at 12");
	is(offsetof(struct umh_hdr, status), 16, "umh_hdr.status at 16");
	is(offsetof(struct umh_hdr, flags), 20, "umh_hdr.flags at 20");
	is(offsetof(struct umh_hdr, max_reply), 24, "umh_hdr.max_reply at 24");
	is(offsetof(struct umh_hdr, reserved), 28, "umh_hdr.reserved at 28");
	is(sizeof(struct umh_hello), 24, "umh_hello is 24 bytes");
	is(offsetof(struct umh_hello, proto_id), 0, "umh_hello.proto_id at 0");
	is(offsetof(struct umh_hello, proto_version), 4,
	   "umh_hello.proto_version at 4");
	is(offsetof(struct umh_hello, max_payload), 8,
	   "umh_hello.max_payload at 8");
	is(offsetof(struct umh_hello, pid), 12, "umh_hello.pid at 12");
	is(offsetof(struct umh_hello, flags), 16, "umh_hello.flags at 16");
	is(offsetof(struct umh_hello, reserved), 20, "umh_hello.reserved at 20");

	memset(&h, 0xa5, sizeof(h));
	umh_hdr_init(&h, 0x1234, 0xdeadbeef, 77, -5, UMH_F_REPLY, 99);
	memcpy(bytes, &h, sizeof(h));
	ok(!memcmp(bytes, "UMH1", 4), "magic reads \"UMH1\" in memory");
	ok(h.magic == UMH_WIRE_MAGIC && h.version == UMH_WIRE_VERSION &&
	   h.op == 0x1234 && h.id == 0xdeadbeef && h.len == 77 &&
	   h.status == -5 && h.flags == UMH_F_REPLY && h.max_reply == 99,
	   "umh_hdr_init() sets every field");
	is(h.reserved, 0, "umh_hdr_init() clears reserved (was 0xa5a5a5a5)");
}

static void test_hdr_check(void)
{
	struct umh_hdr h;

	h = req_hdr();
	is(umh_hdr_check(&h, false, 10), 0, "valid request accepted");
	h = rep_hdr();
	is(umh_hdr_check(&h, true, 10), 0, "valid reply accepted");

	/* magic and version */
	h = req_hdr();
	h.magic = 0x32484d55U;	/* "UMH2" */
	is(umh_hdr_check(&h, false, 1000), -EBADMSG, "bad magic: request -EBADMSG");
	h = rep_hdr();
	h.magic = 0;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG, "bad magic: reply -EBADMSG");
	h = req_hdr();
	h.magic = __builtin_bswap32(UMH_WIRE_MAGIC);
	is(umh_hdr_check(&h, false, 1000), -EBADMSG,
	   "byte-swapped magic -EBADMSG");
	h = req_hdr();
	h.version = 0;
	is(umh_hdr_check(&h, false, 1000), -EBADMSG, "version 0 -EBADMSG");
	h = req_hdr();
	h.version = UMH_WIRE_VERSION + 1;
	is(umh_hdr_check(&h, false, 1000), -EBADMSG, "version 2 -EBADMSG");
	h = rep_hdr();
	h.version = 0xffff;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG, "reply version 0xffff -EBADMSG");

	/* flags and reserved */
	h = req_hdr();
	h.flags = 0x2;
	is(umh_hdr_check(&h, false, 1000), -EBADMSG, "unknown flag 0x2 -EBADMSG");
	h = rep_hdr();
	h.flags = UMH_F_REPLY | 0x80000000U;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG,
	   "reply with unknown flag 0x80000000 -EBADMSG");
	h = req_hdr();
	h.reserved = 1;
	is(umh_hdr_check(&h, false, 1000), -EBADMSG, "request reserved != 0 -EBADMSG");
	h = rep_hdr();
	h.reserved = 0x80000000U;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG, "reply reserved != 0 -EBADMSG");

	/* direction */
	h = rep_hdr();
	is(umh_hdr_check(&h, false, 1000), -EBADMSG,
	   "reply frame where a request is expected -EBADMSG");
	h = req_hdr();
	h.max_reply = 0;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG,
	   "request frame (no UMH_F_REPLY) where a reply is expected -EBADMSG");

	/* op range */
	h = req_hdr();
	h.op = UMH_OP_MAX;
	is(umh_hdr_check(&h, false, 1000), 0, "op UMH_OP_MAX accepted");
	h.op = UMH_OP_MAX + 1;
	is(umh_hdr_check(&h, false, 1000), -EBADMSG, "op UMH_OP_MAX+1 -EBADMSG");
	h = rep_hdr();
	h.op = 0xffff;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG, "reply op 0xffff -EBADMSG");
	h = req_hdr();
	h.op = UMH_OP_HELLO;
	is(umh_hdr_check(&h, false, 1000), 0, "op 0 (hello) accepted");

	/* replies: max_reply, status */
	h = rep_hdr();
	h.max_reply = 1;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG, "reply with max_reply != 0 -EBADMSG");
	h = rep_hdr();
	h.len = 0;
	h.status = 1;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG, "reply status 1 (> 0) -EBADMSG");
	h.status = INT_MAX;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG, "reply status INT_MAX -EBADMSG");
	h.status = -1;
	is(umh_hdr_check(&h, true, 1000), 0, "reply status -1 accepted");
	h.status = -UMH_MAX_STATUS_ERRNO;
	is(umh_hdr_check(&h, true, 1000), 0, "reply status -511 accepted");
	h.status = -UMH_MAX_STATUS_ERRNO - 1;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG,
	   "reply status -512 (-ERESTARTSYS) -EBADMSG");
	h.status = INT_MIN;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG, "reply status INT_MIN -EBADMSG");
	h = rep_hdr();
	h.status = -EIO;
	h.len = 1;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG,
	   "error reply with a 1-byte payload -EBADMSG");
	h.len = 0;
	is(umh_hdr_check(&h, true, 1000), 0, "error reply without payload accepted");
	h = rep_hdr();
	h.status = -EIO;
	h.len = 2000;
	is(umh_hdr_check(&h, true, 1000), -EBADMSG,
	   "error reply with oversized payload: malformed (-EBADMSG) wins over -EMSGSIZE");

	/* requests: status */
	h = req_hdr();
	h.status = -1;
	is(umh_hdr_check(&h, false, 1000), -EBADMSG, "request with status -1 -EBADMSG");
	h.status = 1;
	is(umh_hdr_check(&h, false, 1000), -EBADMSG, "request with status 1 -EBADMSG");
	h = req_hdr();
	h.max_reply = 0xffffffffU;
	is(umh_hdr_check(&h, false, 1000), 0, "request max_reply is not bounded by the codec");

	/* payload bound */
	h = req_hdr();
	h.len = 1000;
	is(umh_hdr_check(&h, false, 1000), 0, "request len == max accepted");
	h.len = 1001;
	is(umh_hdr_check(&h, false, 1000), -EMSGSIZE, "request len == max+1 -EMSGSIZE");
	h = rep_hdr();
	h.len = 0xffffffffU;
	is(umh_hdr_check(&h, true, UMH_ABS_MAX_PAYLOAD), -EMSGSIZE,
	   "reply len 4 GiB-1 -EMSGSIZE");
	h.len = 0;
	is(umh_hdr_check(&h, true, 0), 0, "len 0 with max 0 accepted");
	h.len = 1;
	is(umh_hdr_check(&h, true, 0), -EMSGSIZE, "len 1 with max 0 -EMSGSIZE");
	h = req_hdr();
	h.magic = 0;
	h.len = 0xffffffffU;
	is(umh_hdr_check(&h, false, 1), -EBADMSG,
	   "bad magic and oversized: -EBADMSG wins");
}

static void test_proto_table(void)
{
	const struct umh_op_desc *d;
	unsigned int i;

	ok(!strcmp(tp_umh_proto.name, "tp"), "proto name is \"tp\"");
	is(tp_umh_proto.id, 0x54455354U, "proto id");
	is(tp_umh_proto.version, 7, "proto version");
	is(tp_umh_proto.n_ops, 6, "n_ops is highest op + 1");
	is(sizeof(tp_umh_ops) / sizeof(tp_umh_ops[0]), 6, "table has 6 entries");
	ok(tp_umh_proto.ops == tp_umh_ops, "proto points at its table");
	ok(tp_umh_ops[0].name == NULL, "entry 0 (hello) is unused");
	ok(tp_umh_ops[4].name == NULL, "entry 4 (hole) is unused");
	for (i = 1; i < 6; i++)
		if (tp_umh_ops[i].name && tp_umh_ops[i].op != i)
			break;
	is(i, 6, "every used entry sits at its op number");

	d = &tp_umh_ops[1];
	ok(!strcmp(d->name, "ff") && d->req_size == sizeof(struct t_small) &&
	   d->rep_size == sizeof(struct t_big) && !d->req_var && !d->rep_var,
	   "FF op: sizes %u/%u, not variable", d->req_size, d->rep_size);
	d = &tp_umh_ops[2];
	ok(!strcmp(d->name, "fv") && d->req_size == sizeof(struct t_big) &&
	   d->rep_size == T_VAR_REP && !d->req_var && d->rep_var,
	   "FV op: fixed request, variable reply up to %u", d->rep_size);
	d = &tp_umh_ops[3];
	ok(!strcmp(d->name, "vf") && d->req_size == T_VAR_REQ &&
	   d->rep_size == sizeof(struct t_small) && d->req_var && !d->rep_var,
	   "VF op: variable request up to %u, fixed reply", d->req_size);
	d = &tp_umh_ops[5];
	ok(!strcmp(d->name, "vv") && d->req_size == T_VAR_REQ &&
	   d->rep_size == T_VAR_REP && d->req_var && d->rep_var,
	   "VV op: both variable");

	ok(tp__umh_op_known(1) && tp__umh_op_known(2) && tp__umh_op_known(3) &&
	   tp__umh_op_known(5), "generated op_known() knows 1, 2, 3, 5");
	ok(!tp__umh_op_known(0) && !tp__umh_op_known(4) && !tp__umh_op_known(6),
	   "generated op_known() rejects 0, 4, 6");

	is(top_umh_proto.n_ops, UMH_OP_MAX + 1, "op UMH_OP_MAX gives a full table");
	d = umh_proto_op(&top_umh_proto, UMH_OP_MAX);
	ok(d && d->op == UMH_OP_MAX && !strcmp(d->name, "last"),
	   "umh_proto_op() finds op UMH_OP_MAX");
	ok(d && d->rep_var && d->rep_size == 0, "UMH_VAR(0) is a variable side of max 0");
	ok(!umh_proto_op(&top_umh_proto, 1), "lower ops of that table are holes");

	/* the sample protocol */
	is(echo_umh_proto.id, ECHO_PROTO_ID, "echo: id");
	d = umh_proto_op(&echo_umh_proto, ECHO_OP_SINK);
	ok(d && d->req_var && d->req_size == UMH_DEFAULT_MAX_PAYLOAD &&
	   !d->rep_var && d->rep_size == sizeof(struct echo_sink_rep),
	   "echo: sink is VF, request up to 16 MiB");
	d = umh_proto_op(&echo_umh_proto, ECHO_OP_ECHO);
	ok(d && d->req_var && d->rep_var && d->req_size == ECHO_MAX &&
	   d->rep_size == ECHO_MAX, "echo: echo is VV up to 1 MiB");
}

static void test_proto_op(void)
{
	ok(umh_proto_op(&tp_umh_proto, UMH_OP_HELLO) == NULL,
	   "umh_proto_op(0): hello is not a protocol op");
	ok(umh_proto_op(&tp_umh_proto, 1) == &tp_umh_ops[1], "umh_proto_op(1)");
	ok(umh_proto_op(&tp_umh_proto, 2) == &tp_umh_ops[2], "umh_proto_op(2)");
	ok(umh_proto_op(&tp_umh_proto, 3) == &tp_umh_ops[3], "umh_proto_op(3)");
	ok(umh_proto_op(&tp_umh_proto, 4) == NULL, "umh_proto_op(4): hole -> NULL");
	ok(umh_proto_op(&tp_umh_proto, 5) == &tp_umh_ops[5], "umh_proto_op(5): last op");
	ok(umh_proto_op(&tp_umh_proto, 6) == NULL, "umh_proto_op(n_ops) -> NULL");
	ok(umh_proto_op(&tp_umh_proto, UMH_OP_MAX) == NULL,
	   "umh_proto_op(UMH_OP_MAX) -> NULL");
	ok(umh_proto_op(&tp_umh_proto, 0xffffffffU) == NULL,
	   "umh_proto_op(UINT32_MAX) -> NULL");
	ok(umh_proto_op(&tp_umh_proto, 0x10001U) == NULL,
	   "umh_proto_op(0x10001) -> NULL (no 16-bit truncation)");
}

static void test_op_checks(void)
{
	const struct umh_op_desc *ff = &tp_umh_ops[1], *fv = &tp_umh_ops[2];
	const struct umh_op_desc *vf = &tp_umh_ops[3], *vv = &tp_umh_ops[5];
	const __u32 cap = UMH_DEFAULT_MAX_PAYLOAD;

	/* fixed requests: exact size only, whatever the cap */
	is(umh_op_check_req(ff, sizeof(struct t_small), cap), 0, "FF request exact size ok");
	is(umh_op_check_req(ff, sizeof(struct t_small) - 1, cap), -EINVAL,
	   "FF request one byte short -EINVAL");
	is(umh_op_check_req(ff, sizeof(struct t_small) + 1, cap), -EINVAL,
	   "FF request one byte long -EINVAL");
	is(umh_op_check_req(ff, 0, cap), -EINVAL, "FF request empty -EINVAL");
	is(umh_op_check_req(ff, (1ULL << 32) + sizeof(struct t_small), cap),
	   -EINVAL, "FF request 4 GiB + size -EINVAL (64-bit length)");
	is(umh_op_check_req(fv, sizeof(struct t_big), 1), 0,
	   "FV fixed request ok even if larger than the cap");
	is(umh_op_req_max(ff, 1), sizeof(struct t_small),
	   "umh_op_req_max() of a fixed request ignores the cap");

	/* variable requests */
	is(umh_op_check_req(vf, 0, cap), 0, "VF request empty ok");
	is(umh_op_check_req(vf, T_VAR_REQ, cap), 0, "VF request at its max ok");
	is(umh_op_check_req(vf, T_VAR_REQ + 1, cap), -EMSGSIZE,
	   "VF request max+1 -EMSGSIZE");
	is(umh_op_check_req(vv, 50, 40), -EMSGSIZE,
	   "VV request within declared max but above the cap -EMSGSIZE");
	is(umh_op_check_req(vv, 40, 40), 0, "VV request at the cap ok");
	is(umh_op_check_req(vv, (1ULL << 32) + 1, cap), -EMSGSIZE,
	   "VV request 4 GiB + 1 -EMSGSIZE (64-bit length)");
	is(umh_op_req_max(vv, 40), 40, "umh_op_req_max(): cap below declared max");
	is(umh_op_req_max(vv, cap), T_VAR_REQ, "umh_op_req_max(): declared max below cap");

	/* replies */
	is(umh_op_rep_max(ff, 1), sizeof(struct t_big),
	   "umh_op_rep_max() of a fixed reply ignores the cap");
	is(umh_op_rep_max(fv, 1000), 1000, "umh_op_rep_max(): cap below declared max");
	is(umh_op_rep_max(fv, cap), T_VAR_REP, "umh_op_rep_max(): declared max below cap");
	is(umh_op_check_rep(ff, sizeof(struct t_big), 0), 0,
	   "FF reply exact size ok (max_reply irrelevant)");
	is(umh_op_check_rep(ff, sizeof(struct t_big) - 1, 1000), -EBADMSG,
	   "FF reply short -EBADMSG");
	is(umh_op_check_rep(ff, sizeof(struct t_big) + 1, 1000), -EBADMSG,
	   "FF reply long -EBADMSG");
	is(umh_op_check_rep(vf, 0, 1000), -EBADMSG, "VF fixed reply empty -EBADMSG");
	is(umh_op_check_rep(fv, 0, 0), 0, "FV reply empty ok");
	is(umh_op_check_rep(fv, 500, 500), 0, "FV reply == max_reply ok");
	is(umh_op_check_rep(fv, 501, 500), -EBADMSG, "FV reply > max_reply -EBADMSG");
	is(umh_op_check_rep(vv, (1ULL << 32) + 10, 500), -EBADMSG,
	   "VV reply 4 GiB + 10 -EBADMSG (64-bit length)");
}

/* umh_rep_check(): the kernel's check of a reply against its request. */
static void test_rep_check(void)
{
	struct umh_hdr h = rep_hdr();

	h.op = 3;
	h.len = 8;
	is(umh_rep_check(&h, 3, 8, true), 0, "rep_check: fixed reply of exactly rep_cap");
	is(umh_rep_check(&h, 2, 8, true), -EBADMSG, "rep_check: other op -EBADMSG");
	is(umh_rep_check(&h, 3, 9, true), -EMSGSIZE, "rep_check: fixed reply shorter than rep_cap -EMSGSIZE");
	is(umh_rep_check(&h, 3, 7, true), -EMSGSIZE, "rep_check: fixed reply longer than rep_cap -EMSGSIZE");
	is(umh_rep_check(&h, 3, 8, false), 0, "rep_check: variable reply of rep_cap accepted");
	is(umh_rep_check(&h, 3, 100, false), 0, "rep_check: variable reply below rep_cap accepted");
	is(umh_rep_check(&h, 3, 7, false), -EMSGSIZE, "rep_check: variable reply past rep_cap -EMSGSIZE");
	h.len = 0;
	is(umh_rep_check(&h, 3, 0, false), 0, "rep_check: empty variable reply, rep_cap 0");
	h.status = -EIO;
	is(umh_rep_check(&h, 3, 8, true), 0, "rep_check: error reply to a fixed op (no payload)");
	h.len = 0xffffffffU;
	is(umh_rep_check(&h, 3, 8, true), 0,
	   "rep_check: error reply's len is umh_hdr_check()'s business");
	is(umh_rep_check(&h, 4, 8, true), -EBADMSG, "rep_check: error reply to another op -EBADMSG");
}

/* umh_proto_min_payload(): the cap below which a protocol cannot work. */
static void test_min_payload(void)
{
	is(umh_proto_min_payload(&tp_umh_proto), sizeof(struct umh_hello),
	   "min_payload: small fixed sides and variable ones: the hello's 24");
	is(umh_proto_min_payload(&top_umh_proto), sizeof(struct umh_hello),
	   "min_payload: a sparse full-size table: 24");
	is(umh_proto_min_payload(&big_umh_proto), 100,
	   "min_payload: the largest fixed request (100), variable maxima ignored");
	is(umh_proto_min_payload(&bigrep_umh_proto), 60,
	   "min_payload: a fixed reply (60) counts too");
}

int main(void)
{
	tap_watchdog(30);
	test_layout();
	test_hdr_check();
	test_rep_check();
	test_min_payload();
	test_proto_table();
	test_proto_op();
	test_op_checks();
	return tap_done();
}
