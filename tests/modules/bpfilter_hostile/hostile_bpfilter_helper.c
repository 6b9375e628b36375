// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The bpfilter helper with a compiler that lies on request.
 *
 * Everything is the sample's helper (bpfilter_helper.c is included whole),
 * except that its COMPILE answer passes through hostile_compile(): when the
 * table carries a comment "hostile:<how>" (iptables-legacy -m comment
 * --comment hostile:loop ...), the program the sample's generator emitted
 * is broken that way before it goes to the module.  "hostile:stale" lies
 * in the REPLACE answer instead, and the helper then refuses to restore
 * (hostile_replace()).  Without such a comment the helper is honest.
 * tests/guest/bpfilter_hostile_tests.sh checks that the module refuses
 * each broken program, counts it, and keeps the old one in force; and
 * that it replaces a helper that keeps a table it refused.
 */
#include <linux/bpf.h>
#include <string.h>

#include <umh_sdk/helper.h>

/* Take the dispatch table main() hands to the runtime. */
static int hostile_run(const struct umh_proto *proto,
		       const umh_handler_fn *handlers, void *ctx,
		       const struct umh_sandbox *sb);
#define umh_helper_run hostile_run
#include "../../../samples/bpfilter/bpfilter_helper.c"
#undef umh_helper_run

#define TAG	"hostile:"

static umh_handler_fn honest_compile, honest_replace, honest_restore;

/* Set once this helper took a "hostile:stale" table. */
static int holds_stale;

/* The word after "hostile:" in the request (a comment match's text). */
static const char *hostile_how(const void *req, size_t len, char *buf,
			       size_t size)
{
	const char *p = memmem(req, len, TAG, strlen(TAG));
	size_t n = 0;

	if (!p)
		return NULL;
	p += strlen(TAG);
	while (n + 1 < size && p + n < (const char *)req + len &&
	       p[n] >= 'a' && p[n] <= 'z')
		n++;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

/* The first instruction with this code (and src_reg, when @src >= 0). */
static struct bpf_insn *find_insn(struct bpf_insn *insn, __u32 n, __u8 code,
				  int src)
{
	__u32 i;

	for (i = 0; i < n; i++)
		if (insn[i].code == code && (src < 0 || insn[i].src_reg == src))
			return &insn[i];
	return NULL;
}

static int hostile_compile(void *ctx, const void *req, size_t len,
			   struct umh_out *out)
{
	struct bpfilter_prog_hdr *hdr;
	struct bpf_insn *insn, *in;
	char how[32];
	int ret;

	ret = honest_compile(ctx, req, len, out);
	if (ret || !hostile_how(req, len, how, sizeof(how)))
		return ret;
	if (!strcmp(how, "stale"))
		return 0;	/* the lie is in the replace (below) */
	hdr = out->buf;
	insn = (struct bpf_insn *)((char *)out->buf + sizeof(*hdr) +
				   hdr->n_ifaces * sizeof(struct bpfilter_iface));
	umh_info("hostile: breaking the program (%u instructions): %s",
		 hdr->n_insns, how);
	if (!strcmp(how, "loop")) {
		/* ja -1: jumps to itself for ever */
		insn[0] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA, .off = -1 };
	} else if (!strcmp(how, "oob")) {
		/* r0 = *(u64 *)(r10 + 8): above the stack */
		insn[0] = (struct bpf_insn){ .code = BPF_LDX | BPF_MEM | BPF_DW,
					     .dst_reg = BPF_REG_0,
					     .src_reg = BPF_REG_10, .off = 8 };
	} else if (!strcmp(how, "map")) {
		/* a map the module did not create for it */
		in = find_insn(insn, hdr->n_insns, BPF_LD | BPF_IMM | BPF_DW,
			       BPF_PSEUDO_MAP_FD);
		if (in)
			in->imm = 7;
	} else if (!strcmp(how, "mapvalue")) {
		in = find_insn(insn, hdr->n_insns, BPF_LD | BPF_IMM | BPF_DW,
			       BPF_PSEUDO_MAP_FD);
		if (in)
			in->src_reg = BPF_PSEUDO_MAP_VALUE;
	} else if (!strcmp(how, "helper")) {
		/* bpf_ktime_get_ns(), off the allowlist */
		in = find_insn(insn, hdr->n_insns, BPF_JMP | BPF_CALL, 0);
		if (in)
			in->imm = BPF_FUNC_ktime_get_ns;
	} else if (!strcmp(how, "kfunc")) {
		in = find_insn(insn, hdr->n_insns, BPF_JMP | BPF_CALL, 0);
		if (in)
			in->src_reg = BPF_PSEUDO_KFUNC_CALL;
	} else if (!strcmp(how, "atomic")) {
		/* an exchange: of the atomics only a plain add is allowed */
		insn[0] = (struct bpf_insn){ .code = BPF_STX | BPF_ATOMIC | BPF_DW,
					     .dst_reg = BPF_REG_10,
					     .src_reg = BPF_REG_1, .off = -8,
					     .imm = BPF_XCHG };
	} else if (!strcmp(how, "fetchadd")) {
		insn[0] = (struct bpf_insn){ .code = BPF_STX | BPF_ATOMIC | BPF_DW,
					     .dst_reg = BPF_REG_10,
					     .src_reg = BPF_REG_1, .off = -8,
					     .imm = BPF_ADD | BPF_FETCH };
	} else if (!strcmp(how, "atomicword")) {
		insn[0] = (struct bpf_insn){ .code = BPF_STX | BPF_ATOMIC | BPF_W,
					     .dst_reg = BPF_REG_10,
					     .src_reg = BPF_REG_1, .off = -8,
					     .imm = BPF_ADD };
	} else if (!strcmp(how, "ldabs")) {
		insn[0] = (struct bpf_insn){ .code = BPF_LD | BPF_ABS | BPF_B };
	} else if (!strcmp(how, "number")) {
		hdr->number++;
	} else if (!strcmp(how, "count")) {
		/* more instructions than the reply holds */
		hdr->n_insns++;
	} else if (!strcmp(how, "huge")) {
		/* a program over the size cap: the reply cannot hold it */
		if (!umh_out_alloc(out, BPFILTER_MAX_PROG + 8))
			return -errno;
	} else if (!strcmp(how, "verdict")) {
		/* a valid program whose verdict is no verdict: r0 = 7; exit */
		insn[0] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
					     .dst_reg = BPF_REG_0, .imm = 7 };
		insn[1] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
		hdr->n_insns = 2;
		out->len = sizeof(*hdr) +
			   hdr->n_ifaces * sizeof(struct bpfilter_iface) +
			   2 * sizeof(struct bpf_insn);
	} else {
		umh_err("hostile: unknown behaviour '%s'", how);
		return -EINVAL;
	}
	return 0;
}

/*
 * "hostile:stale": take the table, but answer with one counter too few,
 * so that the module refuses the change and puts its ruleset back; then
 * refuse that (and any) restore, keeping the table the module refused.
 */
static int hostile_replace(void *ctx, const void *req, size_t len,
			   struct umh_out *out)
{
	char how[32];
	int ret;

	ret = honest_replace(ctx, req, len, out);
	if (ret || !hostile_how(req, len, how, sizeof(how)) ||
	    strcmp(how, "stale"))
		return ret;
	if (out->len >= sizeof(struct xt_counters))
		out->len -= sizeof(struct xt_counters);
	holds_stale = 1;
	umh_info("hostile: took the table, answering with %zu bytes of counters",
		 out->len);
	return 0;
}

static int hostile_restore(void *ctx, const void *req, size_t len,
			   struct umh_out *out)
{
	if (holds_stale) {
		umh_info("hostile: refusing the restore, keeping the stale table");
		return -ENOMEM;
	}
	return honest_restore(ctx, req, len, out);
}

static int hostile_run(const struct umh_proto *proto,
		       const umh_handler_fn *handlers, void *ctx,
		       const struct umh_sandbox *sb)
{
	static umh_handler_fn table[BPFILTER_OP_COMPILE + 1];

	_Static_assert(sizeof(bpfilter_umh_handlers) == sizeof(table),
		       "the dispatch table changed");
	memcpy(table, handlers, sizeof(table));
	honest_compile = table[BPFILTER_OP_COMPILE];
	table[BPFILTER_OP_COMPILE] = hostile_compile;
	honest_replace = table[BPFILTER_OP_REPLACE];
	table[BPFILTER_OP_REPLACE] = hostile_replace;
	honest_restore = table[BPFILTER_OP_RESTORE];
	table[BPFILTER_OP_RESTORE] = hostile_restore;
	return umh_helper_run(proto, table, ctx, sb);
}
