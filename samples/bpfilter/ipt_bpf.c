// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ipt_bpf: compile a translated filter table into the bpfilter data plane's
 * eBPF program.  The design (layout, registers, stack) is described at the
 * top of ipt_bpf.h; the semantics are ipt_do_table()'s and its callees' in
 * Linux 6.1: ip_packet_match(), tcp_mt(), udp_mt(), icmp_match(),
 * multiport_mt() (revision 1) and comment_mt().
 *
 * Compilation runs in three steps:
 *
 *  1. every entry is emitted once on its own and the code thrown away, to
 *     learn whether it always leaves (no path falls to the next entry) and
 *     whether its target is reachable at all (a condition known false at
 *     compile time ends an entry early);
 *  2. from the hook entries, the entries that run are found by walking
 *     fall-throughs, jumps and gotos; every hook entry and every target
 *     of a reachable jump or goto starts a subprogram.  Nothing else is
 *     emitted: the verifier refuses unreachable instructions;
 *  3. main, then the subprograms in table order, are emitted; calls are
 *     patched once every subprogram's place is known and the deepest call
 *     chain is checked against the verifier's frame limit.
 *
 * Jumps are never counted by hand: a forward jump records its index in a
 * label and is patched when the label's place is emitted.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <linux/bpf.h>
#include <linux/ip.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "ipt_bpf.h"

/* The verifier's MAX_CALL_FRAMES: main and seven nested subprograms. */
#define MAX_FRAMES	8
#define NO_SUB		(~0U)
/* callees that are not entries: the two leaf subprograms */
_Static_assert(IPT_BPF_PKT_SIZE == BPFILTER_SCRATCH,
	       "the scratch area is the parsed packet");
/*
 * The verifier's own limit on the instructions it goes through
 * (BPF_COMPLEXITY_LIMIT_INSNS); a table that needs more is refused here,
 * before the kernel would spend memory and time on it.
 */
#define VERIFY_MAX	1000000U
#define CALL_IFACE	(~1U)
#define CALL_IFBITS	(~2U)
#define IS_LEAF(callee)	((callee) == CALL_IFACE || (callee) == CALL_IFBITS)
/* an exit is placed before its first jump gets longer than this */
#define EXIT_REACH	30000

/* ---- instructions, in the kernel's filter.h vocabulary ---- */

static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off,
			    __s32 imm)
{
	struct bpf_insn i;

	memset(&i, 0, sizeof(i));
	i.code = code;
	i.dst_reg = dst;
	i.src_reg = src;
	i.off = off;
	i.imm = imm;
	return i;
}

#define MOV64_IMM(d, v)		insn(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, v)
#define MOV64_REG(d, s)		insn(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ALU64_IMM(op, d, v)	insn(BPF_ALU64 | (op) | BPF_K, d, 0, 0, v)
#define ALU64_REG(op, d, s)	insn(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define ALU32_IMM(op, d, v)	insn(BPF_ALU | (op) | BPF_K, d, 0, 0, v)
#define BSWAP16(d)		insn(BPF_ALU | BPF_END | BPF_TO_BE, d, 0, 0, 16)
#define BSWAP32(d)		insn(BPF_ALU | BPF_END | BPF_TO_BE, d, 0, 0, 32)
#define LDX(sz, d, s, o)	insn(BPF_LDX | (sz) | BPF_MEM, d, s, o, 0)
#define STX(sz, d, s, o)	insn(BPF_STX | (sz) | BPF_MEM, d, s, o, 0)
/* *(u64 *)(d + o) += s, atomically (the one atomic bpfilter_dp allows) */
#define XADD64(d, s, o)		insn(BPF_STX | BPF_DW | BPF_ATOMIC, d, s, o, BPF_ADD)
#define ST_IMM(sz, d, o, v)	insn(BPF_ST | (sz) | BPF_MEM, d, 0, o, v)
#define JMP_IMM(op, d, v, o)	insn(BPF_JMP | (op) | BPF_K, d, 0, o, v)
#define JMP_REG(op, d, s, o)	insn(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define JMP32_IMM(op, d, v, o)	insn(BPF_JMP32 | (op) | BPF_K, d, 0, o, v)
#define JA(o)			insn(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL_HELPER(f)		insn(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define CALL_SUB()		insn(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0)
#define EXIT()			insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

enum { R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10 };

/* Registers kept by main and every subprogram (see ipt_bpf.h). */
#define R_CTX	R6
#define R_PKT	R7
#define R_DEPTH	R8
#define R_CNT	R9	/* this CPU's block of BPFILTER_MAP_COUNTERS */
#define R_ACC	R5	/* the entry's mismatches, gathered (see acc_add()) */

/* Offsets of the IPv4 header fields in PKT. */
#define IP_VIHL		(IPT_BPF_PKT_IP + 0)
#define IP_FRAG		(IPT_BPF_PKT_IP + 6)
#define IP_PROTO	(IPT_BPF_PKT_IP + 9)
#define IP_SADDR	(IPT_BPF_PKT_IP + 12)
#define IP_DADDR	(IPT_BPF_PKT_IP + 16)
#define L4(o)		(IPT_BPF_PKT_L4 + (o))
#define TCP_OPT_MAX	40
#define IP_OFFSET	0x1FFF	/* include/net/ip.h */

/* ---- the generator's state ---- */

/* Forward jumps to one place, patched when it is emitted. */
struct label {
	unsigned int *pc;
	unsigned int n, cap;
};

struct call_fix {
	unsigned int pc;	/* the call instruction */
	unsigned int callee;	/* entry index its subprogram starts at */
};

struct ent {
	const struct ipt_entry *e;
	unsigned int off;
	unsigned int sub;	/* subprogram starting here, or NO_SUB */
	bool terminal;		/* no path reaches the next entry */
	bool target_live;	/* the target's code is emitted */
	bool reach;
	bool queued;	/* a goto target on find_subprograms()' list */
};

struct sub {
	unsigned int idx;	/* entry it starts at */
	unsigned int pc;
	unsigned int first_call, end_call;	/* its calls in cg.calls */
	int frames;		/* deepest chain from it, itself included */
	unsigned int end_pc;	/* one past its last instruction */
	unsigned long long cost; /* verify_cost(), 0 until computed */
};

struct cg {
	const struct ipt_table *t;
	struct bpf_insn *insns;
	unsigned int n, cap;
	int err;
	struct call_fix *calls;
	unsigned int n_calls, cap_calls;
	struct bpfilter_iface *ifaces;
	unsigned int n_ifaces, cap_ifaces;
	struct ent *ents;
	struct sub *subs;
	unsigned int n_subs;
	unsigned int n_trees;	/* emit_group() */
	unsigned int grp_bias;	/* emit_group(): r3 is this entry's counter */
	/* entries grp_length() went through; bounded by GRP_WORK() */
	unsigned long long grp_work;
	/*
	 * grp_length()'s scratch, GRP_MAX entries; shared by the nested
	 * emit_run() of a goto, which runs only between two uses of it.
	 */
	struct grp_rule *grp;
	unsigned int stacksize;	/* ipt_do_table()'s: ERROR entries */
	struct label next;	/* the current entry's "no match" */
	struct label exit;	/* the current function's exit */
	bool acc;		/* R_ACC holds the entry's mismatches so far */
	/*
	 * R_ACC's only test, when it is one comparison ending at insn
	 * one_end: acc_flush() then emits that comparison as the jump.
	 */
	struct {
		bool valid;
		__u8 op;	/* BPF_JNE or BPF_JEQ: the mismatch */
		int reg;
		__u32 v;
		unsigned int start, end;
	} one;
	bool used_iface;	/* the iface leaf subprogram is called */
	bool has_iface;		/* some entry matches an interface */
	char *why;
	size_t why_len;
	bool analysing;		/* analyse_entries(): gotos are not followed */
	unsigned int inline_depth;
};

static __attribute__((format(printf, 3, 4)))
int fail(struct cg *c, int err, const char *fmt, ...)
{
	va_list ap;

	if (c->err)
		return c->err;
	c->err = err;
	if (c->why && c->why_len) {
		va_start(ap, fmt);
		vsnprintf(c->why, c->why_len, fmt, ap);
		va_end(ap);
	}
	return err;
}

static bool grow(struct cg *c, void **p, unsigned int *cap, unsigned int need,
		 size_t elem)
{
	unsigned int ncap = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return true;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, (size_t)ncap * elem);
	if (!np) {
		fail(c, -ENOMEM, "out of memory");
		return false;
	}
	*p = np;
	*cap = ncap;
	return true;
}

static void emit(struct cg *c, struct bpf_insn i)
{
	if (c->err)
		return;
	if (c->n >= BPFILTER_MAX_INSNS) {
		fail(c, -E2BIG, "program longer than %u instructions",
		     BPFILTER_MAX_INSNS);
		return;
	}
	if (!grow(c, (void **)&c->insns, &c->cap, c->n + 1, sizeof(i)))
		return;
	c->insns[c->n++] = i;
}

/* BPF_LD_IMM64 of a map named by its bpfilter_map index. */
static void emit_ld_map(struct cg *c, int reg, enum bpfilter_map map)
{
	emit(c, insn(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD, 0,
		     map));
	emit(c, insn(0, 0, 0, 0, 0));
}

/* Emit a jump whose offset @l will get; a jump insn built with off 0. */
static void emit_jmp(struct cg *c, struct label *l, struct bpf_insn j)
{
	if (c->err)
		return;
	if (!grow(c, (void **)&l->pc, &l->cap, l->n + 1, sizeof(*l->pc)))
		return;
	l->pc[l->n++] = c->n;
	emit(c, j);
}

/* Place @l here: patch its jumps. */
static void label_here(struct cg *c, struct label *l)
{
	unsigned int i;

	for (i = 0; i < l->n && !c->err; i++) {
		long d = (long)c->n - (long)l->pc[i] - 1;

		if (d > INT16_MAX) {
			fail(c, -E2BIG, "jump over %ld instructions", d);
			break;
		}
		c->insns[l->pc[i]].off = (__s16)d;
	}
	l->n = 0;
}

static void label_free(struct label *l)
{
	free(l->pc);
	memset(l, 0, sizeof(*l));
}

/* A call to a subprogram: the entry it starts at, or CALL_*. */
static void emit_call(struct cg *c, unsigned int callee)
{
	if (c->err)
		return;
	if (!grow(c, (void **)&c->calls, &c->cap_calls, c->n_calls + 1,
		  sizeof(*c->calls)))
		return;
	c->calls[c->n_calls].pc = c->n;
	c->calls[c->n_calls].callee = callee;
	c->n_calls++;
	emit(c, CALL_SUB());
}

/*
 * Leave the function with r0.  Every exit of a function is one shared
 * "exit" instruction: the verifier then meets one state per return value
 * there and prunes the others, instead of processing a function exit (on
 * 6.18, a stack liveness update over the whole function) per rule.
 */
static void emit_exit(struct cg *c)
{
	emit_jmp(c, &c->exit, JA(0));
}

/*
 * Place the pending exit here if the program flows no further (@end) or
 * its first jump is getting out of reach, jumping over it otherwise.
 */
static void flush_exit(struct cg *c, bool end)
{
	if (!c->exit.n)
		return;
	if (!end && c->n - c->exit.pc[0] < EXIT_REACH)
		return;
	if (!end)
		emit(c, JA(1));
	label_here(c, &c->exit);
	emit(c, EXIT());
}

/*
 * An entry's tests do not jump: each leaves a value that is non-zero when
 * the packet fails it, ORed into R_ACC, and the entry jumps to the next
 * one once, when R_ACC is non-zero (acc_flush()).  A jump per test would
 * leave the verifier one pending branch per test while it follows the
 * rest of the program (it keeps at most 8,192); one jump per entry leaves
 * none when the entry's target ends the path.  R_ACC stays below 2^32.
 */
static void acc_add(struct cg *c, int reg)
{
	c->one.valid = false;
	if (c->acc)
		emit(c, ALU64_REG(BPF_OR, R_ACC, reg));
	else
		emit(c, MOV64_REG(R_ACC, reg));
	c->acc = true;
}

/*
 * The entry's one jump to the next entry, for what R_ACC gathered.  When
 * that is one comparison, its code is taken back and the comparison is
 * the jump (an address rule is then three instructions).
 */
static void acc_flush(struct cg *c)
{
	if (!c->acc)
		return;
	if (c->one.valid && c->one.end == c->n) {
		c->n = c->one.start;
		emit_jmp(c, &c->next, JMP32_IMM(c->one.op, c->one.reg,
						(__s32)c->one.v, 0));
	} else {
		emit_jmp(c, &c->next, JMP_IMM(BPF_JNE, R_ACC, 0, 0));
	}
	c->acc = false;
	c->one.valid = false;
}

/* Remember a first test that is one comparison (see acc_flush()). */
static void acc_one(struct cg *c, bool first, unsigned int start, __u8 op,
		   int reg, __u32 v)
{
	if (!first)
		return;
	c->one.valid = true;
	c->one.op = op;
	c->one.reg = reg;
	c->one.v = v;
	c->one.start = start;
	c->one.end = c->n;
}

/* A mismatch when @reg (below 2^32) differs from @v. */
static void acc_ne(struct cg *c, int reg, __u32 v)
{
	unsigned int start = c->n;
	bool first = !c->acc;

	if (v)
		emit(c, ALU32_IMM(BPF_XOR, reg, (__s32)v));
	acc_add(c, reg);
	acc_one(c, first, start, BPF_JNE, reg, v);
}

/* @reg (below 2^32) becomes 1 when it equals @v, else 0. */
static void emit_is(struct cg *c, int reg, __u32 v)
{
	if (v)
		emit(c, ALU32_IMM(BPF_XOR, reg, (__s32)v));
	emit(c, ALU64_IMM(BPF_SUB, reg, 1));
	emit(c, ALU64_IMM(BPF_RSH, reg, 63));
}

/* A mismatch when @reg (below 2^32) equals @v. */
static void acc_eq(struct cg *c, int reg, __u32 v)
{
	unsigned int start = c->n;
	bool first = !c->acc;

	emit_is(c, reg, v);
	acc_add(c, reg);
	acc_one(c, first, start, BPF_JEQ, reg, v);
}

/*
 * "Hotdrop": the packet is dropped at once, the entry not counted, when
 * @reg (0 or 1) is 1 and the entry's tests so far all passed.  Computed
 * without a jump to the next entry: the one jump here skips a drop, a
 * path the verifier ends at once.  Uses r0.
 */
static void emit_hotdrop_if(struct cg *c, int reg)
{
	if (c->acc) {
		c->one.valid = false;	/* R_ACC is read here */
		emit(c, MOV64_REG(R0, R_ACC));
		emit(c, ALU64_IMM(BPF_SUB, R0, 1));
		emit(c, ALU64_IMM(BPF_RSH, R0, 63));
		emit(c, ALU64_REG(BPF_AND, reg, R0));
	}
	emit(c, JMP_IMM(BPF_JEQ, reg, 0, 2));
	emit(c, MOV64_IMM(R0, NF_DROP));
	emit_exit(c);
}

/* Hotdrop unless @reg op @v; for tests that run with R_ACC flushed. */
static void emit_hotdrop_unless(struct cg *c, __u8 op, int reg, __s32 v)
{
	emit(c, JMP_IMM(op, reg, v, 2));
	emit(c, MOV64_IMM(R0, NF_DROP));
	emit_exit(c);
}

/*
 * What a condition emitter returns: CONT when the entry may still match,
 * NEVER when it knows at compile time that it cannot (it emitted nothing
 * for that condition; the entry's remaining code is not emitted).
 */
enum { CONT = 0, NEVER = 1 };

/* ---- ip_packet_match() ---- */

/* NF_INVF(inv, (addr & msk) != want) means no match. */
static int emit_addr(struct cg *c, int off, __u32 want, __u32 msk, bool inv)
{
	if (!msk)
		return ((want != 0) != inv) ? NEVER : CONT;
	emit(c, LDX(BPF_W, R1, R_PKT, off));
	if (msk != 0xFFFFFFFFU)
		emit(c, ALU32_IMM(BPF_AND, R1, (__s32)msk));
	if (inv)
		acc_eq(c, R1, want);
	else
		acc_ne(c, R1, want);
	return CONT;
}

/* Pattern index of (name, mask), added if new. */
static int iface_index(struct cg *c, const char *name,
		       const unsigned char *mask)
{
	struct bpfilter_iface *p;
	unsigned int j;

	for (j = 0; j < c->n_ifaces; j++) {
		p = &c->ifaces[j];
		if (!memcmp(p->name, name, IFNAMSIZ) &&
		    !memcmp(p->mask, mask, IFNAMSIZ))
			return (int)j;
	}
	if (c->n_ifaces >= BPFILTER_MAX_IFACES)
		return fail(c, -E2BIG, "more than %u interface patterns",
			    BPFILTER_MAX_IFACES);
	if (!grow(c, (void **)&c->ifaces, &c->cap_ifaces, c->n_ifaces + 1,
		  sizeof(*p)))
		return c->err;
	p = &c->ifaces[c->n_ifaces];
	memcpy(p->name, name, IFNAMSIZ);
	memcpy(p->mask, mask, IFNAMSIZ);
	return (int)c->n_ifaces++;
}

/*
 * ifname_compare_aligned() against the device in cb[] (@pkt_off holds its
 * ifindex), inverted by @inv.  No device compares the empty name, which is
 * known here; a device is looked up in BPFILTER_MAP_IFACES.
 */
static int emit_iface(struct cg *c, int pkt_off, const char *name,
		      const unsigned char *mask, bool inv)
{
	struct label done = { 0 };
	bool any = false, empty = true;
	int k, j;

	for (k = 0; k < IFNAMSIZ; k++) {
		if (mask[k])
			any = true;
		if (name[k] & mask[k])
			empty = false;
	}
	if (!any)	/* every name matches */
		return inv ? NEVER : CONT;
	j = iface_index(c, name, mask);
	if (j < 0)
		return CONT;

	emit(c, LDX(BPF_W, R1, R_PKT, pkt_off));
	/* no device: the empty name, compared now */
	emit_jmp(c, empty != inv ? &done : &c->next,
		 JMP_IMM(BPF_JEQ, R1, 0, 0));
	/* a device: bit j of its entry (none: no pattern matches) */
	if (j < IPT_BPF_IFB_WORDS * 64) {
		/* main copied the words of its entry into PKT */
		emit(c, LDX(BPF_DW, R0, R_PKT,
			    (pkt_off == IPT_BPF_PKT_IN ? IPT_BPF_PKT_IN_BITS :
			     IPT_BPF_PKT_OUT_BITS) + (j / 64) * 8));
		if (j % 64)
			emit(c, ALU64_IMM(BPF_RSH, R0, j % 64));
		emit(c, ALU64_IMM(BPF_AND, R0, 1));
	} else {
		emit(c, MOV64_IMM(R2, (j / 64) * 8));
		emit(c, MOV64_IMM(R3, j % 64));
		emit_call(c, CALL_IFACE);
		c->used_iface = true;
	}
	emit_jmp(c, &c->next, JMP_IMM(inv ? BPF_JNE : BPF_JEQ, R0, 0, 0));
	label_here(c, &done);
	label_free(&done);
	return CONT;
}

static int emit_ip_match(struct cg *c, const struct ipt_ip *ip)
{
	bool frag_inv = ip->invflags & IPT_INV_FRAG;

	/*
	 * The interfaces first: their test calls a leaf, which takes r1-r5,
	 * before R_ACC gathers anything (ip_packet_match() has no order).
	 */
	if (emit_iface(c, IPT_BPF_PKT_IN, ip->iniface, ip->iniface_mask,
		       ip->invflags & IPT_INV_VIA_IN) ||
	    emit_iface(c, IPT_BPF_PKT_OUT, ip->outiface, ip->outiface_mask,
		       ip->invflags & IPT_INV_VIA_OUT))
		return NEVER;
	if (emit_addr(c, IP_SADDR, ip->src.s_addr, ip->smsk.s_addr,
		      ip->invflags & IPT_INV_SRCIP) ||
	    emit_addr(c, IP_DADDR, ip->dst.s_addr, ip->dmsk.s_addr,
		      ip->invflags & IPT_INV_DSTIP))
		return NEVER;
	if (ip->proto) {
		emit(c, LDX(BPF_B, R1, R_PKT, IP_PROTO));
		if (ip->invflags & IPT_INV_PROTO)
			acc_eq(c, R1, ip->proto);
		else
			acc_ne(c, R1, ip->proto);
	}
	/* NF_INVF(IPT_INV_FRAG, (flags & IPT_F_FRAG) && !isfrag) */
	if (!(ip->flags & IPT_F_FRAG)) {
		if (frag_inv)
			return NEVER;
	} else {
		emit(c, LDX(BPF_W, R1, R_PKT, IPT_BPF_PKT_FRAGOFF));
		if (frag_inv)
			acc_ne(c, R1, 0);
		else
			acc_eq(c, R1, 0);
	}
	return CONT;
}

/* ---- matches ---- */

/*
 * The common start of tcp, udp, icmp and multiport: a fragment other than
 * the first does not match (tcp hotdrops fragment offset 1), and fewer
 * than @need bytes at thoff hotdrop.
 */
static void emit_l4_start(struct cg *c, bool tcp, int need)
{
	int hot = tcp ? IPT_BPF_PKT_HOT_TCP : need == 8 ? IPT_BPF_PKT_HOT_8 :
		  IPT_BPF_PKT_HOT_4;

	if ((tcp && need != 20) || (!tcp && need != 8 && need != 4)) {
		fail(c, -EINVAL, "no hotdrop flag for %d bytes", need);
		return;
	}
	/* main computed whether this match hotdrops the packet */
	emit(c, LDX(BPF_B, R1, R_PKT, hot));
	emit_hotdrop_if(c, R1);
	/* not the first fragment: no match */
	emit(c, LDX(BPF_W, R1, R_PKT, IPT_BPF_PKT_FRAGOFF));
	acc_add(c, R1);
}

/* A big-endian u16 of the L4 header into @reg. */
static void emit_port(struct cg *c, int reg, int off)
{
	emit(c, LDX(BPF_H, reg, R_PKT, L4(off)));
	emit(c, BSWAP16(reg));
}

/*
 * @reg (below 2^16) becomes 1 when it is outside [lo, hi], 0 inside;
 * lo <= hi, and the range is not every value.  @tmp is taken.
 */
static void emit_outside(struct cg *c, int reg, int tmp, unsigned int lo,
			 unsigned int hi)
{
	if (lo == hi) {		/* reg != lo */
		if (lo)
			emit(c, ALU64_IMM(BPF_XOR, reg, lo));
		emit(c, ALU64_IMM(BPF_ADD, reg, 0x7FFFFFFF));
		emit(c, ALU64_IMM(BPF_RSH, reg, 31));
	} else if (!lo) {	/* reg > hi */
		emit(c, ALU64_IMM(BPF_SUB, reg, hi + 1));
		emit(c, ALU64_IMM(BPF_RSH, reg, 63));
		emit(c, ALU64_IMM(BPF_XOR, reg, 1));
	} else if (hi == 0xFFFF) {	/* reg < lo */
		emit(c, ALU64_IMM(BPF_SUB, reg, lo));
		emit(c, ALU64_IMM(BPF_RSH, reg, 63));
	} else {		/* (reg - lo) < 0 or (hi - reg) < 0 */
		emit(c, MOV64_IMM(tmp, hi));
		emit(c, ALU64_REG(BPF_SUB, tmp, reg));
		emit(c, ALU64_IMM(BPF_SUB, reg, lo));
		emit(c, ALU64_REG(BPF_OR, reg, tmp));
		emit(c, ALU64_IMM(BPF_RSH, reg, 63));
	}
}

/* port_match(): (lo <= port <= hi) ^ inv, the port at L4 offset @off. */
static int emit_port_range(struct cg *c, int off, unsigned int lo,
			   unsigned int hi, bool inv)
{
	bool empty = lo > hi, full = lo == 0 && hi == 0xFFFF;
	int reg = R1;

	if (empty || full)
		return (full == inv) ? NEVER : CONT;
	emit_port(c, reg, off);
	if (!inv && lo == hi) {
		acc_ne(c, reg, lo);
		return CONT;
	}
	emit_outside(c, reg, R4, lo, hi);
	if (inv)
		emit(c, ALU64_IMM(BPF_XOR, reg, 1));
	acc_add(c, reg);
	return CONT;
}

/*
 * tcp_find_option(), the loop unrolled over the 40 possible positions of
 * i (the verifier allows no variable stack offset without CAP_PERFMON).
 * At position p the code runs only when i == p; i only grows.
 */
static void emit_tcp_option(struct cg *c, __u8 option, bool inv)
{
	struct label found = { 0 }, notfound = { 0 }, step = { 0 };
	struct label done = { 0 };
	int p;

	/* the test below jumps and calls a helper: R_ACC decided first */
	acc_flush(c);
	/* doff * 4 < sizeof(struct tcphdr): hotdrop */
	emit(c, LDX(BPF_B, R4, R_PKT, L4(12)));
	emit(c, ALU64_IMM(BPF_RSH, R4, 4));
	emit(c, ALU64_IMM(BPF_LSH, R4, 2));
	emit_hotdrop_unless(c, BPF_JGE, R4, 20);
	/* no options: the result is inv */
	emit(c, JMP_IMM(BPF_JGT, R4, 20, 1));
	emit_jmp(c, inv ? &done : &c->next, JA(0));
	/* the optlen bytes at thoff + 20 must exist, else hotdrop */
	emit(c, ALU64_IMM(BPF_SUB, R4, 20));		/* [1, 40] */
	emit(c, LDX(BPF_W, R1, R_PKT, IPT_BPF_PKT_LEN));
	emit(c, LDX(BPF_W, R2, R_PKT, IPT_BPF_PKT_THOFF));
	emit(c, ALU64_REG(BPF_SUB, R1, R2));
	emit(c, ALU64_IMM(BPF_SUB, R1, 20));
	emit(c, JMP_REG(BPF_JSGE, R1, R4, 2));
	emit(c, MOV64_IMM(R0, NF_DROP));
	emit_exit(c);
	/*
	 * r4 is [1, 40] already; 6.12's verifier can lose that on the way
	 * (it saw r4 unbounded after the first test above), and r4 is the
	 * helper's size: say it again where the call is.
	 */
	emit(c, ALU64_IMM(BPF_AND, R4, 0x3f));
	emit_hotdrop_unless(c, BPF_JLE, R4, TCP_OPT_MAX);
	emit_hotdrop_unless(c, BPF_JGE, R4, 1);
	emit(c, MOV64_REG(R1, R_CTX));
	emit(c, ALU64_IMM(BPF_ADD, R2, 20));
	emit(c, MOV64_REG(R3, R_PKT));
	emit(c, ALU64_IMM(BPF_ADD, R3, IPT_BPF_PKT_OPT));
	emit(c, CALL_HELPER(BPF_FUNC_skb_load_bytes));
	emit_hotdrop_unless(c, BPF_JEQ, R0, 0);

	/* r3 = i, r4 = optlen, r5 = op[i] */
	emit(c, LDX(BPF_B, R4, R_PKT, L4(12)));
	emit(c, ALU64_IMM(BPF_RSH, R4, 4));
	emit(c, ALU64_IMM(BPF_LSH, R4, 2));
	emit(c, ALU64_IMM(BPF_SUB, R4, 20));
	emit(c, MOV64_IMM(R3, 0));
	for (p = 0; p < TCP_OPT_MAX; p++) {
		label_here(c, &step);
		emit_jmp(c, &step, JMP_IMM(BPF_JNE, R3, p, 0));
		emit_jmp(c, &notfound, JMP_IMM(BPF_JLE, R4, p, 0));
		emit(c, LDX(BPF_B, R5, R_PKT, IPT_BPF_PKT_OPT + p));
		emit_jmp(c, &found, JMP_IMM(BPF_JEQ, R5, option, 0));
		emit(c, MOV64_IMM(R3, p + 1));
		if (p == TCP_OPT_MAX - 1)
			continue;	/* i >= 40 >= optlen whatever follows */
		emit_jmp(c, &step, JMP_IMM(BPF_JLT, R5, 2, 0));
		/* i += op[i + 1] ? : 1 */
		emit(c, LDX(BPF_B, R5, R_PKT, IPT_BPF_PKT_OPT + p + 1));
		emit_jmp(c, &step, JMP_IMM(BPF_JEQ, R5, 0, 0));
		emit(c, MOV64_REG(R3, R5));
		emit(c, ALU64_IMM(BPF_ADD, R3, p));
	}
	label_here(c, &step);
	label_here(c, &notfound);
	/* not found: the result is inv; found: !inv */
	if (inv) {
		emit_jmp(c, &done, JA(0));
		label_here(c, &found);
		emit_jmp(c, &c->next, JA(0));
	} else {
		emit_jmp(c, &c->next, JA(0));
		label_here(c, &found);
	}
	label_here(c, &done);
	label_free(&found);
	label_free(&notfound);
	label_free(&step);
	label_free(&done);
}

static int emit_tcp(struct cg *c, const struct xt_tcp *m)
{
	bool flags_inv = m->invflags & XT_TCP_INV_FLAGS;

	emit_l4_start(c, true, 20);
	if (emit_port_range(c, 0, m->spts[0], m->spts[1],
			    m->invflags & XT_TCP_INV_SRCPT))
		return NEVER;
	if (emit_port_range(c, 2, m->dpts[0], m->dpts[1],
			    m->invflags & XT_TCP_INV_DSTPT))
		return NEVER;
	/* NF_INVF(XT_TCP_INV_FLAGS, (th[13] & flg_mask) == flg_cmp) */
	if (m->flg_cmp & ~m->flg_mask) {
		if (!flags_inv)
			return NEVER;
	} else if (!m->flg_mask) {
		if (flags_inv)
			return NEVER;
	} else {
		emit(c, LDX(BPF_B, R1, R_PKT, L4(13)));
		emit(c, ALU64_IMM(BPF_AND, R1, m->flg_mask));
		if (flags_inv)
			acc_eq(c, R1, m->flg_cmp);
		else
			acc_ne(c, R1, m->flg_cmp);
	}
	if (m->option)
		emit_tcp_option(c, m->option, m->invflags & XT_TCP_INV_OPTION);
	return CONT;
}

static int emit_udp(struct cg *c, const struct xt_udp *m)
{
	emit_l4_start(c, false, 8);
	if (emit_port_range(c, 0, m->spts[0], m->spts[1],
			    m->invflags & XT_UDP_INV_SRCPT))
		return NEVER;
	return emit_port_range(c, 2, m->dpts[0], m->dpts[1],
			       m->invflags & XT_UDP_INV_DSTPT);
}

/* icmp_type_code_match() */
static int emit_icmp(struct cg *c, const struct ipt_icmp *m)
{
	bool inv = m->invflags & IPT_ICMP_INV;
	bool all_codes = m->code[0] == 0 && m->code[1] == 0xFF;

	emit_l4_start(c, false, 8);
	if (m->type == 0xFF)
		return inv ? NEVER : CONT;
	if (m->code[0] > m->code[1]) {
		if (!inv)
			return NEVER;
		return CONT;
	}
	emit(c, LDX(BPF_B, R1, R_PKT, L4(0)));
	if (!inv) {
		acc_ne(c, R1, m->type);
		if (!all_codes) {
			emit(c, LDX(BPF_B, R1, R_PKT, L4(1)));
			emit_outside(c, R1, R4, m->code[0],
				     m->code[1] == 0xFF ? 0xFFFF : m->code[1]);
			acc_add(c, R1);
		}
		return CONT;
	}
	/* inverted: no match when the type is it and the code in range */
	emit_is(c, R1, m->type);
	if (!all_codes) {
		emit(c, LDX(BPF_B, R2, R_PKT, L4(1)));
		emit_outside(c, R2, R4, m->code[0],
			     m->code[1] == 0xFF ? 0xFFFF : m->code[1]);
		emit(c, ALU64_IMM(BPF_XOR, R2, 1));
		emit(c, ALU64_REG(BPF_AND, R1, R2));
	}
	acc_add(c, R1);
	return CONT;
}

/* r0 &= (@reg outside [lo, hi]), r1 and r4 taken */
static void emit_and_outside(struct cg *c, int reg, unsigned int lo,
			     unsigned int hi)
{
	if (lo > hi)
		return;			/* never inside: r0 &= 1 */
	if (lo == 0 && hi == 0xFFFF) {
		emit(c, MOV64_IMM(R0, 0));	/* always inside */
		return;
	}
	emit(c, MOV64_REG(R1, reg));
	emit_outside(c, R1, R4, lo, hi);
	emit(c, ALU64_REG(BPF_AND, R0, R1));
}

/* multiport_mt() with ports_match_v1() unrolled over the ports. */
static int emit_multiport(struct cg *c, const struct xt_multiport_v1 *m)
{
	/* bool results of "return true ^ invert" and "return invert" */
	bool hit = (1 ^ m->invert) != 0, miss = m->invert != 0;
	unsigned int i;

	emit_l4_start(c, false, 4);
	if (hit == miss)
		return hit ? CONT : NEVER;
	if (!m->count)
		return miss ? CONT : NEVER;
	emit_port(c, R2, 0);	/* src */
	emit_port(c, R3, 2);	/* dst */
	/* r0: 1 while no port seen so far is in a range */
	emit(c, MOV64_IMM(R0, 1));
	for (i = 0; i < m->count && i < XT_MULTI_PORTS; i++) {
		unsigned int s = m->ports[i], e = s;

		if (m->pflags[i] && i + 1 < XT_MULTI_PORTS)
			e = m->ports[++i];
		if (m->flags == XT_MULTIPORT_DESTINATION ||
		    m->flags == XT_MULTIPORT_EITHER)
			emit_and_outside(c, R3, s, e);
		if (m->flags == XT_MULTIPORT_SOURCE ||
		    m->flags == XT_MULTIPORT_EITHER)
			emit_and_outside(c, R2, s, e);
	}
	/* a hit is "return !invert": no hit fails, or a hit fails */
	if (!hit)
		emit(c, ALU64_IMM(BPF_XOR, R0, 1));
	acc_add(c, R0);
	return CONT;
}

/* One match of an entry; its data follows the xt_entry_match header. */
static int emit_match(struct cg *c, const struct xt_entry_match *m,
		      unsigned int idx)
{
	const char *name = m->u.user.name;
	const void *data = m->data;

	if (!strcmp(name, "tcp")) {
		struct xt_tcp v;

		memcpy(&v, data, sizeof(v));
		return emit_tcp(c, &v);
	}
	if (!strcmp(name, "udp")) {
		struct xt_udp v;

		memcpy(&v, data, sizeof(v));
		return emit_udp(c, &v);
	}
	if (!strcmp(name, "icmp")) {
		struct ipt_icmp v;

		memcpy(&v, data, sizeof(v));
		return emit_icmp(c, &v);
	}
	if (!strcmp(name, "multiport") && m->u.user.revision == 1) {
		struct xt_multiport_v1 v;

		memcpy(&v, data, sizeof(v));
		return emit_multiport(c, &v);
	}
	if (!strcmp(name, "comment"))
		return CONT;
	fail(c, -EOPNOTSUPP, "entry %u: match '%.*s' rev %u not compiled", idx,
	     XT_EXTENSION_MAXNAMELEN, name, m->u.user.revision);
	return NEVER;
}

/* ADD_COUNTER(entry idx, skb->len, 1), in the count subprogram. */
static void emit_count(struct cg *c, unsigned int idx)
{
	long off = (long)idx * (long)sizeof(struct xt_counters);
	int base = R_CNT;

	/* beyond an instruction's 16-bit offset: point r1 at the slot */
	if (off + (long)offsetof(struct xt_counters, bcnt) > 32767) {
		emit(c, MOV64_REG(R1, R_CNT));
		emit(c, ALU64_IMM(BPF_ADD, R1, (__s32)off));
		base = R1;
		off = 0;
	}
	emit(c, LDX(BPF_DW, R2, base, off + offsetof(struct xt_counters, pcnt)));
	emit(c, ALU64_IMM(BPF_ADD, R2, 1));
	emit(c, STX(BPF_DW, base, R2, off + offsetof(struct xt_counters, pcnt)));
	emit(c, LDX(BPF_DW, R2, base, off + offsetof(struct xt_counters, bcnt)));
	emit(c, LDX(BPF_W, R3, R_PKT, IPT_BPF_PKT_LEN));
	emit(c, ALU64_REG(BPF_ADD, R2, R3));
	emit(c, STX(BPF_DW, base, R2, off + offsetof(struct xt_counters, bcnt)));
}

/* The entry index at table offset @off, or -1. */
static long idx_at(const struct cg *c, unsigned int off)
{
	size_t lo = 0, hi = c->t->number;

	while (hi > lo) {
		size_t m = lo + (hi - lo) / 2;

		if (c->ents[m].off > off)
			hi = m;
		else if (c->ents[m].off < off)
			lo = m + 1;
		else
			return (long)m;
	}
	return -1;
}

static const struct xt_entry_target *target_of(const struct ipt_entry *e)
{
	return (const void *)((const char *)e + e->target_offset);
}

/* The standard target's verdict or jump offset. */
static int verdict_of(const struct ipt_entry *e)
{
	const struct xt_standard_target *st = (const void *)target_of(e);
	int v;

	memcpy(&v, &st->verdict, sizeof(v));
	return v;
}

/* The entry a jump or goto of entry @idx enters, or -1 for none. */
static long jump_target(const struct cg *c, unsigned int idx)
{
	const struct ipt_entry *e = c->ents[idx].e;
	int v;

	if (target_of(e)->u.user.name[0])
		return -1;
	v = verdict_of(e);
	if (v < 0)
		return -1;
	if ((unsigned int)v == c->ents[idx].off + e->next_offset &&
	    !(e->ip.flags & IPT_F_GOTO))
		return -1;	/* to the next entry, nothing pushed */
	return idx_at(c, (unsigned int)v);
}

static void emit_inline(struct cg *c, unsigned int k);

/* Call the subprogram at entry @callee with the stack depth in r3. */
static void emit_call_sub(struct cg *c, unsigned int callee, bool push)
{
	emit(c, MOV64_REG(R1, R_CTX));
	emit(c, MOV64_REG(R2, R_PKT));
	emit(c, MOV64_REG(R3, R_DEPTH));
	if (push)
		emit(c, ALU64_IMM(BPF_ADD, R3, 1));
	emit(c, MOV64_REG(R4, R_CNT));
	emit_call(c, callee);
}

/* The target; returns true when execution goes on to the next entry. */
static bool emit_target(struct cg *c, unsigned int idx)
{
	const struct ipt_entry *e = c->ents[idx].e;
	const struct xt_entry_target *t = target_of(e);
	long k;
	int v;

	if (!strcmp(t->u.user.name, XT_ERROR_TARGET)) {
		/* ipt_error(): NF_DROP */
		emit(c, MOV64_IMM(R0, NF_DROP));
		emit_exit(c);
		return false;
	}
	if (t->u.user.name[0]) {
		fail(c, -EOPNOTSUPP, "entry %u: target '%.*s' not compiled",
		     idx, XT_EXTENSION_MAXNAMELEN, t->u.user.name);
		return false;
	}
	v = verdict_of(e);
	if (v < 0) {
		emit(c, MOV64_IMM(R0, v == XT_RETURN ? (__s32)IPT_BPF_RET :
				  -v - 1));
		emit_exit(c);
		return false;
	}
	k = jump_target(c, idx);
	if (k < 0) {
		if ((unsigned int)v == c->ents[idx].off + e->next_offset)
			return true;
		fail(c, -EOPNOTSUPP, "entry %u: jump to %d, not an entry",
		     idx, v);
		return false;
	}
	if (e->ip.flags & IPT_F_GOTO) {
		/*
		 * A goto pushes nothing: the chain's entries run here, in
		 * this subprogram, and its RETURN leaves this subprogram as
		 * it leaves the goto's chain.  No call frame, so gotos nest
		 * as deep as the table does.
		 */
		if (c->analysing)
			emit_exit(c);
		else
			emit_inline(c, (unsigned int)k);
		return false;
	}
	/* ipt_do_table(): a jump stack full drops the packet */
	emit(c, JMP_IMM(BPF_JLT, R_DEPTH, c->stacksize, 2));
	emit(c, MOV64_IMM(R0, NF_DROP));
	emit_exit(c);
	emit_call_sub(c, (unsigned int)k, true);
	emit(c, JMP_IMM(BPF_JEQ, R0, IPT_BPF_RET, 1));
	emit_exit(c);
	return true;
}

/*
 * One entry: its ip match, its matches, its counter and its target, a
 * failed match jumping to the end.  Sets the entry's terminal and
 * target_live.
 */
static void emit_entry(struct cg *c, unsigned int idx)
{
	struct ent *en = &c->ents[idx];
	const struct ipt_entry *e = en->e;
	unsigned int off = sizeof(*e), start = c->n;
	bool falls = true;
	int st;

	c->next.n = 0;
	c->acc = false;
	c->one.valid = false;
	en->target_live = false;
	st = emit_ip_match(c, &e->ip);
	while (st == CONT && off < e->target_offset && !c->err) {
		const struct xt_entry_match *m = (const void *)((const char *)e +
								off);

		st = emit_match(c, m, idx);
		off += m->u.match_size;
	}
	if (st == CONT) {
		acc_flush(c);
		emit_count(c, idx);
		falls = emit_target(c, idx);
		en->target_live = true;
	} else if (c->n != start) {
		c->acc = false;
		emit_jmp(c, &c->next, JA(0));
	}
	en->terminal = !falls && !c->next.n;
	label_here(c, &c->next);
}

/* ---- classification: a run of one-field rules as a decision tree ---- */

/*
 * A run of at least GRP_MIN consecutive entries that each test one field
 * the same way (the source or destination address against a prefix, or
 * the tcp or udp source or destination port against a range, nothing
 * else) and end the packet's traversal (ACCEPT, DROP: an absolute
 * verdict) is compiled as a binary search over that field's value: the
 * first entry of the run that matches is known at compile time for every
 * value, so a packet takes log2(run) comparisons instead of one test per
 * entry, and the counters and verdicts are ipt_do_table()'s.  Other
 * entries stay straight-line code.
 */
#define GRP_MIN		4
/*
 * A leaf counts at a 16-bit offset from r3, which points at the counter
 * of the run's middle entry when the run is longer than GRP_MAX / 2; and
 * a tree of GRP_MAX leaves (4 to 5 instructions each) stays within
 * reach of the 16-bit jumps from its leaves to its tails.
 */
#define GRP_MAX		4096
/*
 * What grp_length() may go through for a table of @n entries: a few
 * times each entry for any table that is not built to be slow (a run is
 * gone through three times, straight-line entries once or twice).  A
 * table where each entry starts a long run that the first rules cover
 * would take n * GRP_MAX: past the bound, the rest is straight-line code.
 */
#define GRP_WORK(n)	(16ULL * (n) + (1ULL << 20))
#define GRP_NOBODY	(~0U)

enum grp_field { GF_SADDR = 1, GF_DADDR, GF_SPORT, GF_DPORT };

struct grp_rule {
	enum grp_field field;
	__u16 proto;
	__u32 lo, hi;		/* host order, inclusive */
	unsigned int verdict;	/* NF_* */
};

/* [lo, hi] of the values an elementary segment holds: from lo up. */
struct grp_seg {
	__u32 lo;
	unsigned int owner;	/* index in the run, or GRP_NOBODY */
};

static bool all_zero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* The range of a prefix @addr/@msk (network order); false if no prefix. */
static bool grp_prefix(__u32 addr, __u32 msk, struct grp_rule *g)
{
	__u32 m = ntohl(msk), a = ntohl(addr), x = ~m;

	if (!m || (x & (x + 1)) || (a & x))
		return false;
	g->lo = a;
	g->hi = a | x;
	return true;
}

/* Entry @idx as one field's range, if it has the shape a run needs. */
static bool grp_shape(const struct cg *c, unsigned int idx, struct grp_rule *g)
{
	const struct ipt_entry *e = c->ents[idx].e;
	const struct ipt_ip *ip = &e->ip;
	const __u16 *sp = NULL, *dp = NULL;
	unsigned int off = sizeof(*e);
	struct xt_tcp t;
	struct xt_udp u;
	int v;

	if (target_of(e)->u.user.name[0])
		return false;
	v = verdict_of(e);
	if (v >= 0 || v == XT_RETURN || -v - 1 > NF_MAX_VERDICT)
		return false;
	if (ip->flags || ip->invflags ||
	    !all_zero(ip->iniface_mask, IFNAMSIZ) ||
	    !all_zero(ip->outiface_mask, IFNAMSIZ))
		return false;
	memset(g, 0, sizeof(*g));
	g->verdict = (unsigned int)(-v - 1);
	g->proto = ip->proto;
	if (ip->smsk.s_addr && !ip->dmsk.s_addr && !ip->dst.s_addr &&
	    !ip->proto) {
		g->field = GF_SADDR;
		if (!grp_prefix(ip->src.s_addr, ip->smsk.s_addr, g))
			return false;
	} else if (ip->dmsk.s_addr && !ip->smsk.s_addr && !ip->src.s_addr &&
		   !ip->proto) {
		g->field = GF_DADDR;
		if (!grp_prefix(ip->dst.s_addr, ip->dmsk.s_addr, g))
			return false;
	} else if (ip->smsk.s_addr || ip->dmsk.s_addr || ip->src.s_addr ||
		   ip->dst.s_addr ||
		   (ip->proto != IPPROTO_TCP && ip->proto != IPPROTO_UDP)) {
		return false;
	}
	while (off < e->target_offset) {
		const struct xt_entry_match *m = (const void *)((const char *)e +
								off);
		const char *name = m->u.user.name;

		off += m->u.match_size;
		if (!strcmp(name, "comment"))
			continue;
		if (g->field || sp || m->u.user.revision)
			return false;
		if (ip->proto == IPPROTO_TCP && !strcmp(name, "tcp")) {
			memcpy(&t, m->data, sizeof(t));
			if (t.flg_mask || t.flg_cmp || t.option || t.invflags)
				return false;
			sp = t.spts;
			dp = t.dpts;
		} else if (ip->proto == IPPROTO_UDP && !strcmp(name, "udp")) {
			memcpy(&u, m->data, sizeof(u));
			if (u.invflags)
				return false;
			sp = u.spts;
			dp = u.dpts;
		} else {
			return false;
		}
	}
	if (g->field)
		return true;
	if (!sp)
		return false;
	if (sp[0] == 0 && sp[1] == 0xFFFF && dp[0] <= dp[1]) {
		g->field = GF_DPORT;
		g->lo = dp[0];
		g->hi = dp[1];
	} else if (dp[0] == 0 && dp[1] == 0xFFFF && sp[0] <= sp[1]) {
		g->field = GF_SPORT;
		g->lo = sp[0];
		g->hi = sp[1];
	} else {
		return false;
	}
	/* a full range tests nothing: ordinary code is as short */
	return g->lo || g->hi != 0xFFFF;
}

/*
 * The run starting at entry @k: how many entries (at most GRP_MAX; 0 when
 * fewer than GRP_MIN), their ranges in @g.  It stops before an entry that
 * starts a subprogram (a call or a fall enters there).
 */
static unsigned int grp_run(const struct cg *c, unsigned int k,
			    struct grp_rule *g)
{
	unsigned int n = 0;

	while (k + n < c->t->number && n < GRP_MAX) {
		if (n && c->ents[k + n].sub != NO_SUB)
			break;
		if (!grp_shape(c, k + n, &g[n]))
			break;
		if (n && (g[n].field != g[0].field || g[n].proto != g[0].proto))
			break;
		n++;
	}
	return n;
}

/*
 * Sorting and searching by hand: glibc's qsort() asks sysconf() for the
 * machine's memory (the sysinfo system call) once an array is over 1 KiB,
 * and the helper's seccomp sandbox kills it for that.
 */
static void sift_u32(__u32 *a, unsigned int i, unsigned int n)
{
	for (;;) {
		unsigned int l = 2 * i + 1, m = i;
		__u32 t;

		if (l < n && a[l] > a[m])
			m = l;
		if (l + 1 < n && a[l + 1] > a[m])
			m = l + 1;
		if (m == i)
			return;
		t = a[i];
		a[i] = a[m];
		a[m] = t;
		i = m;
	}
}

static void sort_u32(__u32 *a, unsigned int n)
{
	unsigned int i;
	__u32 t;

	for (i = n / 2; i-- > 0;)
		sift_u32(a, i, n);
	for (i = n; i-- > 1;) {
		t = a[0];
		a[0] = a[i];
		a[i] = t;
		sift_u32(a, 0, i);
	}
}

/* The index of @v, which is one of the sorted @pts. */
static unsigned int seg_at(const __u32 *pts, unsigned int n, __u32 v)
{
	unsigned int lo = 0, hi = n;

	while (hi - lo > 1) {
		unsigned int m = lo + (hi - lo) / 2;

		if (pts[m] <= v)
			lo = m;
		else
			hi = m;
	}
	return lo;
}

static unsigned int unpainted(unsigned int *nxt, unsigned int k)
{
	unsigned int r = k, t;

	while (nxt[r] != r)
		r = nxt[r];
	while (nxt[k] != r) {	/* path compression */
		t = nxt[k];
		nxt[k] = r;
		k = t;
	}
	return r;
}

/*
 * The field's values cut into segments where the first matching rule of
 * the run is the same; neighbours with the same owner merged.  Returns
 * their number (0 on allocation failure), the segments in *@out.
 */
static unsigned int grp_segments(struct cg *c, const struct grp_rule *g,
				 unsigned int n, __u32 max, struct grp_seg **out)
{
	unsigned int np = 0, i, k, end, ns = 0, *nxt, *owner;
	struct grp_seg *s;
	__u32 *pts;

	pts = malloc((2 * (size_t)n + 1) * sizeof(*pts));
	nxt = malloc((2 * (size_t)n + 2) * sizeof(*nxt));
	owner = malloc((2 * (size_t)n + 1) * sizeof(*owner));
	s = malloc((2 * (size_t)n + 1) * sizeof(*s));
	if (!pts || !nxt || !owner || !s) {
		fail(c, -ENOMEM, "out of memory");
		goto out;
	}
	pts[np++] = 0;
	for (i = 0; i < n; i++) {
		pts[np++] = g[i].lo;
		if (g[i].hi != max)
			pts[np++] = g[i].hi + 1;
	}
	sort_u32(pts, np);
	for (i = 1, k = 1; i < np; i++)
		if (pts[i] != pts[k - 1])
			pts[k++] = pts[i];
	np = k;
	for (i = 0; i <= np; i++)
		nxt[i] = i;
	for (i = 0; i < np; i++)
		owner[i] = GRP_NOBODY;
	/* in rule order, each rule owns what no earlier rule took */
	for (i = 0; i < n; i++) {
		end = g[i].hi == max ? np : seg_at(pts, np, g[i].hi + 1);
		for (k = unpainted(nxt, seg_at(pts, np, g[i].lo)); k < end;
		     k = unpainted(nxt, k + 1)) {
			owner[k] = i;
			nxt[k] = k + 1;
		}
	}
	for (i = 0; i < np; i++) {
		if (ns && s[ns - 1].owner == owner[i])
			continue;
		s[ns].lo = pts[i];
		s[ns].owner = owner[i];
		ns++;
	}
out:
	free(pts);
	free(nxt);
	free(owner);
	if (c->err) {
		free(s);
		return 0;
	}
	*out = s;
	return ns;
}

static __u32 grp_max(const struct grp_rule *g)
{
	return g->field == GF_SADDR || g->field == GF_DADDR ? 0xFFFFFFFFU :
							      0xFFFF;
}

/*
 * How many entries from @k to compile as one tree (0: none).  A run whose
 * prefixes cover every address ends before the rule that completes the
 * cover: every entry after a tree stays reachable, as after straight-line
 * code, which is what find_subprograms() assumed.  The first m rules
 * cover every value when every segment's first owner is one of them: the
 * run ends before the greatest owner.
 */
static unsigned int grp_length(struct cg *c, unsigned int k,
			       struct grp_rule *g)
{
	struct grp_seg *s = NULL;
	unsigned int n, ns, i, last = 0;

	if (c->grp_work > GRP_WORK(c->t->number))
		return 0;
	n = grp_run(c, k, g);
	c->grp_work += n + 1;
	if (n < GRP_MIN)
		return 0;
	c->grp_work += n;
	ns = grp_segments(c, g, n, grp_max(g), &s);
	for (i = 0; i < ns; i++) {
		if (s[i].owner == GRP_NOBODY)
			break;
		if (s[i].owner > last)
			last = s[i].owner;
	}
	if (ns && i == ns)
		n = last;
	free(s);
	return n >= GRP_MIN && !c->err ? n : 0;
}

/* Where a tree's jump at @pc lands: here. */
static void patch_here(struct cg *c, unsigned int pc)
{
	long d = (long)c->n - (long)pc - 1;

	if (c->err)
		return;
	if (d > INT16_MAX) {
		fail(c, -E2BIG, "jump over %ld instructions", d);
		return;
	}
	c->insns[pc].off = (__s16)d;
}

#define CNT_P	offsetof(struct xt_counters, pcnt)
#define CNT_B	offsetof(struct xt_counters, bcnt)

/*
 * Binary search of r1 over segments [a, b): a leaf with an owner counts
 * it and jumps to its verdict's tail; one without goes on after the run
 * (@end).
 */
static void emit_tree(struct cg *c, const struct grp_seg *s, unsigned int a,
		      unsigned int b, const struct grp_rule *g,
		      struct label *end, struct label *tails)
{
	unsigned int m = a + (b - a) / 2, pc;

	if (c->err)
		return;
	if (b - a == 1) {
		unsigned int o = s[a].owner;
		int off;

		if (o == GRP_NOBODY) {
			emit_jmp(c, end, JA(0));
			return;
		}
		/* ADD_COUNTER(): r3 the counter of entry grp_bias of the run */
		off = ((int)o - (int)c->grp_bias) *
		      (int)sizeof(struct xt_counters);
		emit(c, XADD64(R3, R4, off + CNT_P));
		emit(c, XADD64(R3, R5, off + CNT_B));
		emit_jmp(c, &tails[g[o].verdict], JA(0));
		return;
	}
	/* a half that is one segment without owner: jump straight on */
	if (b - m == 1 && s[m].owner == GRP_NOBODY) {
		emit_jmp(c, end, JMP32_IMM(BPF_JGE, R1, (__s32)s[m].lo, 0));
		emit_tree(c, s, a, m, g, end, tails);
		return;
	}
	if (m - a == 1 && s[a].owner == GRP_NOBODY) {
		emit_jmp(c, end, JMP32_IMM(BPF_JLT, R1, (__s32)s[m].lo, 0));
		emit_tree(c, s, m, b, g, end, tails);
		return;
	}
	pc = c->n;
	emit(c, JMP32_IMM(BPF_JGE, R1, (__s32)s[m].lo, 0));
	emit_tree(c, s, a, m, g, end, tails);
	patch_here(c, pc);
	emit_tree(c, s, m, b, g, end, tails);
}

/*
 * The run of @n entries from @first (grp_run()).  Its tests before the
 * field are the first entry's (all have them): a port run's protocol,
 * hotdrop and fragment tests, as emit_l4_start().  Each leaf counts its
 * entry at a constant offset (a variable one would have the verifier,
 * without CAP_PERFMON, follow speculative paths that multiply) with two
 * atomic adds (this CPU's block: not for atomicity, for two instructions
 * instead of six), then jumps to its verdict's tail.
 */
static void emit_group(struct cg *c, unsigned int first, unsigned int n,
		       const struct grp_rule *g)
{
	struct label end = { 0 }, tails[NF_MAX_VERDICT + 1];
	unsigned int ns, v;
	struct grp_seg *s = NULL;
	bool port = grp_max(g) == 0xFFFF;

	memset(tails, 0, sizeof(tails));
	c->n_trees++;
	/* every exit jump of the run stays in reach of the next flush */
	if (c->exit.n) {
		emit(c, JA(1));
		label_here(c, &c->exit);
		emit(c, EXIT());
	}
	c->acc = false;
	c->one.valid = false;
	if (port) {
		bool tcp = g[0].proto == IPPROTO_TCP;

		emit(c, LDX(BPF_B, R1, R_PKT, IP_PROTO));
		emit_jmp(c, &end, JMP_IMM(BPF_JNE, R1, g[0].proto, 0));
		emit(c, LDX(BPF_B, R1, R_PKT,
			    tcp ? IPT_BPF_PKT_HOT_TCP : IPT_BPF_PKT_HOT_8));
		emit_hotdrop_if(c, R1);
		emit(c, LDX(BPF_W, R1, R_PKT, IPT_BPF_PKT_FRAGOFF));
		emit_jmp(c, &end, JMP_IMM(BPF_JNE, R1, 0, 0));
		emit_port(c, R1, g[0].field == GF_SPORT ? 0 : 2);
	} else {
		emit(c, LDX(BPF_W, R1, R_PKT,
			    g[0].field == GF_SADDR ? IP_SADDR : IP_DADDR));
		emit(c, BSWAP32(R1));
	}
	/* r3: the counter of the run's first entry, or of its middle one */
	c->grp_bias = n > GRP_MAX / 2 ? GRP_MAX / 2 : 0;
	emit(c, MOV64_REG(R3, R_CNT));
	if (first + c->grp_bias)
		emit(c, ALU64_IMM(BPF_ADD, R3,
				  (__s32)((first + c->grp_bias) *
					  sizeof(struct xt_counters))));
	emit(c, MOV64_IMM(R4, 1));
	emit(c, LDX(BPF_W, R5, R_PKT, IPT_BPF_PKT_LEN));
	ns = grp_segments(c, g, n, grp_max(g), &s);
	if (ns)
		emit_tree(c, s, 0, ns, g, &end, tails);
	free(s);

	for (v = 0; v <= NF_MAX_VERDICT; v++) {
		if (!tails[v].n)
			continue;
		label_here(c, &tails[v]);
		emit(c, MOV64_IMM(R0, (__s32)v));
		emit_exit(c);
	}
	for (v = 0; v <= NF_MAX_VERDICT; v++)
		label_free(&tails[v]);
	label_here(c, &end);
	label_free(&end);
}

/*
 * The entries from @k, in order, until one always leaves; a fall into
 * the start of a subprogram calls it and leaves with its result (a fall
 * pushes nothing, as a goto).
 */
static void emit_run(struct cg *c, unsigned int k)
{
	struct grp_rule *g = c->grp;
	unsigned int i, n;

	for (i = k; !c->err; i++) {
		flush_exit(c, false);
		n = grp_length(c, i, g);
		if (n) {
			emit_group(c, i, n, g);
			i += n - 1;
		} else {
			emit_entry(c, i);
			if (c->ents[i].terminal)
				break;
		}
		if (i + 1 >= c->t->number) {
			/* translate_table() lets no chain fall off the end */
			fail(c, -EINVAL, "entry %u falls off the table", i);
			break;
		}
		if (c->ents[i + 1].sub != NO_SUB) {
			emit_call_sub(c, i + 1, false);
			emit_exit(c);
			break;
		}
	}
}

/* A goto's chain, here: emit_run() with the goto entry's own labels kept. */
static void emit_inline(struct cg *c, unsigned int k)
{
	struct label saved = c->next;

	memset(&c->next, 0, sizeof(c->next));
	if (++c->inline_depth > c->t->number)
		fail(c, -ELOOP, "gotos nested deeper than the table");
	emit_run(c, k);
	label_free(&c->next);
	c->next = saved;
	c->inline_depth--;
}

/* ---- layout ---- */

/*
 * Step 1: each entry's terminal and target_live, from its code emitted
 * alone and thrown away.
 */
static void analyse_entries(struct cg *c)
{
	unsigned int i;

	c->analysing = true;
	for (i = 0; i < c->t->number && !c->err; i++) {
		unsigned int n = c->n, calls = c->n_calls, ifs = c->n_ifaces;
		unsigned int exits = c->exit.n;

		emit_entry(c, i);
		c->n = n;
		c->n_calls = calls;
		c->n_ifaces = ifs;
		c->exit.n = exits;
	}
	c->analysing = false;
}

/* Step 2: the entries that run, and the subprograms' starts. */
static int find_subprograms(struct cg *c)
{
	unsigned int *work, n_work = 0, i, h;

	/* an entry goes on the list at most twice: as a goto's, a call's */
	work = malloc((2 * (size_t)c->t->number + 1) * sizeof(*work));
	if (!work)
		return fail(c, -ENOMEM, "out of memory");
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		long k;

		if (!(c->t->valid_hooks & (1U << h)))
			continue;
		k = idx_at(c, c->t->hook_entry[h]);
		if (k < 0 || idx_at(c, c->t->underflow[h]) < 0) {
			free(work);
			return fail(c, -EINVAL, "hook %u: no entry", h);
		}
		if (c->ents[k].sub == NO_SUB) {
			c->ents[k].sub = 0;
			work[n_work++] = (unsigned int)k;
		}
	}
	while (n_work) {
		unsigned int j = work[--n_work];

		for (i = j; i < c->t->number; i++) {
			struct ent *en = &c->ents[i];
			long k;

			if ((i != j && en->sub != NO_SUB) || en->reach)
				break;
			en->reach = true;
			k = en->target_live ? jump_target(c, i) : -1;
			if (k >= 0 && (en->e->ip.flags & IPT_F_GOTO)) {
				/* inlined where it is gone to: no subprogram */
				if (!c->ents[k].queued && !c->ents[k].reach) {
					c->ents[k].queued = true;
					work[n_work++] = (unsigned int)k;
				}
			} else if (k >= 0 && c->ents[k].sub == NO_SUB) {
				c->ents[k].sub = 0;
				work[n_work++] = (unsigned int)k;
			}
			if (en->terminal)
				break;
		}
	}
	free(work);

	for (i = 0; i < c->t->number; i++)
		if (c->ents[i].sub != NO_SUB)
			c->n_subs++;
	c->subs = calloc(c->n_subs ? c->n_subs : 1, sizeof(*c->subs));
	if (!c->subs)
		return fail(c, -ENOMEM, "out of memory");
	c->n_subs = 0;
	for (i = 0; i < c->t->number; i++) {
		if (c->ents[i].sub == NO_SUB)
			continue;
		c->ents[i].sub = c->n_subs;
		c->subs[c->n_subs++].idx = i;
	}
	return 0;
}

/* PKT[off] = first fragment && r2 (L4AVAIL) < need, or offset 1 if 20 */
static void emit_hot_flag(struct cg *c, int need, int off)
{
	emit(c, MOV64_REG(R4, R2));
	emit(c, ALU64_IMM(BPF_SUB, R4, need));
	emit(c, ALU64_IMM(BPF_RSH, R4, 63));	/* avail < need */
	emit(c, ALU64_REG(BPF_AND, R4, R3));
	if (need == 20) {
		emit(c, MOV64_REG(R0, R1));
		emit_is(c, R0, 1);		/* offset 1 */
		emit(c, ALU64_REG(BPF_OR, R4, R0));
	}
	emit(c, STX(BPF_B, R_PKT, R4, off));
}

/*
 * The hotdrops of tcp_mt(), udp_mt(), icmp_match() and multiport_mt(),
 * once per packet: HOT_TCP is "fragment offset 1, or the first fragment
 * without 20 bytes at thoff", HOT_8 and HOT_4 "the first fragment without
 * 8 (4) bytes".  An entry then tests one byte (emit_l4_start()).
 */
static void emit_hot_flags(struct cg *c)
{
	emit(c, LDX(BPF_W, R1, R_PKT, IPT_BPF_PKT_FRAGOFF));
	emit(c, MOV64_REG(R3, R1));
	emit_is(c, R3, 0);			/* r3: first fragment */
	emit(c, LDX(BPF_W, R2, R_PKT, IPT_BPF_PKT_L4AVAIL));
	emit_hot_flag(c, 4, IPT_BPF_PKT_HOT_4);
	emit_hot_flag(c, 8, IPT_BPF_PKT_HOT_8);
	emit_hot_flag(c, 20, IPT_BPF_PKT_HOT_TCP);
}

/* ifbits(r1 = ifindex of PKT's @dev, r2 = PKT + @bits), if there is one */
static void emit_ifbits(struct cg *c, int dev, int bits)
{
	emit(c, LDX(BPF_W, R1, R_PKT, dev));
	emit(c, JMP_IMM(BPF_JEQ, R1, 0, 3));
	emit(c, MOV64_REG(R2, R_PKT));
	emit(c, ALU64_IMM(BPF_ADD, R2, bits));
	emit_call(c, CALL_IFBITS);
}

/*
 * Main: parse the packet into PKT, then run the hook's chain and, if it
 * returns from the top level, the hook's underflow entry.
 */
static void emit_main(struct cg *c)
{
	struct label l4_done = { 0 }, hooks[NF_INET_NUMHOOKS];
	static const int sizes[] = { 20, 8, 4 };
	enum { N_SIZES = 3 };
	unsigned int h, i;

	memset(hooks, 0, sizeof(hooks));
	emit(c, MOV64_REG(R_CTX, R1));
	/*
	 * This CPU's block of the counters map: the counters, then the
	 * scratch area where the packet is parsed (PKT).  Not main's stack:
	 * the verifier follows what is stored on the stack, and a field
	 * narrowed by one rule's test would then differ between the paths
	 * that reach the next rule, which it could no longer prune (Linux
	 * 6.12 refused 10,000 rules so).  Map memory it does not follow.
	 */
	emit(c, CALL_HELPER(BPF_FUNC_get_smp_processor_id));
	emit(c, STX(BPF_DW, R10, R0, IPT_BPF_KEY_FP));
	emit(c, MOV64_REG(R2, R10));
	emit(c, ALU64_IMM(BPF_ADD, R2, IPT_BPF_KEY_FP));
	emit_ld_map(c, R1, BPFILTER_MAP_COUNTERS);
	emit(c, CALL_HELPER(BPF_FUNC_map_lookup_elem));
	emit(c, JMP_IMM(BPF_JNE, R0, 0, 2));
	emit(c, MOV64_IMM(R0, NF_DROP));
	emit_exit(c);
	emit(c, MOV64_REG(R_CNT, R0));
	emit(c, MOV64_REG(R_PKT, R0));
	emit(c, ALU64_IMM(BPF_ADD, R_PKT,
			  (__s32)(c->t->number * sizeof(struct xt_counters))));
	/* everything the subprograms may read is initialised */
	for (i = 0; i < IPT_BPF_PKT_SIZE; i += 8)
		emit(c, ST_IMM(BPF_DW, R_PKT, (int)i, 0));
	/* no complete IPv4 header: drop */
	emit(c, MOV64_REG(R1, R_CTX));
	emit(c, MOV64_IMM(R2, 0));
	emit(c, MOV64_REG(R3, R_PKT));
	emit(c, MOV64_IMM(R4, 20));
	emit(c, CALL_HELPER(BPF_FUNC_skb_load_bytes));
	emit_hotdrop_unless(c, BPF_JEQ, R0, 0);

	emit(c, LDX(BPF_W, R1, R_CTX, offsetof(struct __sk_buff, len)));
	emit(c, STX(BPF_DW, R_PKT, R1, IPT_BPF_PKT_LEN));
	emit(c, LDX(BPF_W, R1, R_CTX,
		    offsetof(struct __sk_buff, cb[BPFILTER_CB_IN])));
	emit(c, STX(BPF_DW, R_PKT, R1, IPT_BPF_PKT_IN));
	emit(c, LDX(BPF_W, R1, R_CTX,
		    offsetof(struct __sk_buff, cb[BPFILTER_CB_OUT])));
	emit(c, STX(BPF_DW, R_PKT, R1, IPT_BPF_PKT_OUT));
	/*
	 * The devices' pattern bits, looked up once per packet rather than
	 * once per entry that matches an interface: the first
	 * IPT_BPF_IFB_WORDS words of each device's entry go to PKT (they
	 * stay 0 without a device or an entry).
	 */
	if (c->has_iface) {
		emit_ifbits(c, IPT_BPF_PKT_IN, IPT_BPF_PKT_IN_BITS);
		emit_ifbits(c, IPT_BPF_PKT_OUT, IPT_BPF_PKT_OUT_BITS);
	}
	/* thoff = ihl * 4 */
	emit(c, LDX(BPF_B, R1, R_PKT, IP_VIHL));
	emit(c, ALU64_IMM(BPF_AND, R1, 0xF));
	emit(c, ALU64_IMM(BPF_LSH, R1, 2));
	emit(c, STX(BPF_DW, R_PKT, R1, IPT_BPF_PKT_THOFF));
	/* fragoff = ntohs(frag_off) & IP_OFFSET */
	emit(c, LDX(BPF_H, R1, R_PKT, IP_FRAG));
	emit(c, BSWAP16(R1));
	emit(c, ALU64_IMM(BPF_AND, R1, IP_OFFSET));
	emit(c, STX(BPF_DW, R_PKT, R1, IPT_BPF_PKT_FRAGOFF));
	/* the first 20, 8 or 4 bytes at thoff, as many as there are */
	emit_jmp(c, &l4_done, JMP_IMM(BPF_JNE, R1, 0, 0));
	emit(c, LDX(BPF_W, R8, R_PKT, IPT_BPF_PKT_LEN));
	emit(c, LDX(BPF_W, R1, R_PKT, IPT_BPF_PKT_THOFF));
	emit(c, ALU64_REG(BPF_SUB, R8, R1));
	for (i = 0; i < N_SIZES; i++) {
		emit(c, JMP_IMM(BPF_JSLT, R8, sizes[i], 9));
		emit(c, MOV64_REG(R1, R_CTX));
		emit(c, LDX(BPF_W, R2, R_PKT, IPT_BPF_PKT_THOFF));
		emit(c, MOV64_REG(R3, R_PKT));
		emit(c, ALU64_IMM(BPF_ADD, R3, IPT_BPF_PKT_L4));
		emit(c, MOV64_IMM(R4, sizes[i]));
		emit(c, CALL_HELPER(BPF_FUNC_skb_load_bytes));
		emit_jmp(c, &l4_done, JMP_IMM(BPF_JNE, R0, 0, 0));
		emit(c, ST_IMM(BPF_W, R_PKT, IPT_BPF_PKT_L4AVAIL, sizes[i]));
		emit_jmp(c, &l4_done, JA(0));
	}
	label_here(c, &l4_done);
	label_free(&l4_done);
	emit_hot_flags(c);
	emit(c, MOV64_IMM(R_DEPTH, 0));

	emit(c, LDX(BPF_W, R1, R_CTX,
		    offsetof(struct __sk_buff, cb[BPFILTER_CB_HOOK])));
	for (h = 0; h < NF_INET_NUMHOOKS; h++)
		if (c->t->valid_hooks & (1U << h))
			emit_jmp(c, &hooks[h], JMP_IMM(BPF_JEQ, R1, h, 0));
	emit(c, MOV64_IMM(R0, NF_ACCEPT));
	emit_exit(c);
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(c->t->valid_hooks & (1U << h)))
			continue;
		label_here(c, &hooks[h]);
		label_free(&hooks[h]);
		emit_call_sub(c, (unsigned int)idx_at(c, c->t->hook_entry[h]),
			      false);
		emit(c, JMP_IMM(BPF_JEQ, R0, IPT_BPF_RET, 1));
		emit_exit(c);
		/* RETURN at the top level: the underflow entry */
		i = (unsigned int)idx_at(c, c->t->underflow[h]);
		emit_entry(c, i);
		if (!c->ents[i].terminal) {
			emit(c, MOV64_IMM(R0, NF_DROP));
			emit_exit(c);
		}
	}
	flush_exit(c, true);
}

/*
 * The leaf subprogram shared by every entry that matches an interface:
 * each map lookup call site costs the kernel a rewrite of the whole
 * program when it inlines the lookup, so there is one.  (Counting needs
 * no lookup per entry: main looks up this CPU's block of counters once,
 * and emit_count() adds to it in place.)
 *
 * iface(r1 = ifindex, r2 = byte offset of the word, r3 = bit): that bit
 * of the device's BPFILTER_MAP_IFACES entry, 0 without an entry.
 */
/*
 * A leaf's lookup of the device r1 in the interface map, r2 kept in r6:
 * r0 the entry; without one the leaf returns 0.
 */
static void emit_iface_lookup(struct cg *c)
{
	emit(c, STX(BPF_W, R10, R1, IPT_BPF_KEY_FP));
	emit(c, MOV64_REG(R6, R2));
	emit(c, MOV64_REG(R2, R10));
	emit(c, ALU64_IMM(BPF_ADD, R2, IPT_BPF_KEY_FP));
	emit_ld_map(c, R1, BPFILTER_MAP_IFACES);
	emit(c, CALL_HELPER(BPF_FUNC_map_lookup_elem));
	emit(c, JMP_IMM(BPF_JNE, R0, 0, 1));
	emit(c, EXIT());
}

static void emit_leaves(struct cg *c, unsigned int *iface_pc,
			unsigned int *ifbits_pc)
{
	unsigned int w, words = BPFILTER_IFACE_WORDS(c->n_ifaces);

	if (c->has_iface) {
		/*
		 * ifbits(r1 = ifindex, r2 = where in PKT): copy the first
		 * words of the device's entry there.
		 */
		*ifbits_pc = c->n;
		emit_iface_lookup(c);
		for (w = 0; w < words && w < IPT_BPF_IFB_WORDS; w++) {
			emit(c, LDX(BPF_DW, R1, R0, (int)w * 8));
			emit(c, STX(BPF_DW, R6, R1, (int)w * 8));
		}
		emit(c, EXIT());
	}
	if (!c->used_iface)
		return;
	*iface_pc = c->n;
	emit(c, MOV64_REG(R7, R3));
	emit_iface_lookup(c);
	emit(c, ALU64_REG(BPF_ADD, R0, R6));
	emit(c, LDX(BPF_DW, R0, R0, 0));
	emit(c, ALU64_REG(BPF_RSH, R0, R7));
	emit(c, ALU64_IMM(BPF_AND, R0, 1));
	emit(c, EXIT());
}

/*
 * A subprogram: the entries from its start, until one always leaves or
 * the next subprogram starts (then "call it; exit").
 */
static void emit_sub(struct cg *c, struct sub *s)
{
	s->pc = c->n;
	s->first_call = c->n_calls;
	emit(c, MOV64_REG(R_CTX, R1));
	emit(c, MOV64_REG(R_PKT, R2));
	emit(c, MOV64_REG(R_DEPTH, R3));
	emit(c, MOV64_REG(R_CNT, R4));
	emit_run(c, s->idx);
	flush_exit(c, true);
	s->end_call = c->n_calls;
	s->end_pc = c->n;
}

/*
 * What the verifier goes through to verify subprogram @k once: its own
 * instructions, and every callee again at each call site (the verifier
 * checks a static subprogram in its caller's context, per call site, and
 * never prunes across call sites).  Memoised; saturates at @cap.  A chain
 * jumped to from many rules of a chain that is itself jumped to from many
 * rules multiplies: such tables are refused before the kernel spends its
 * memory on them.
 */
static unsigned long long verify_cost(struct cg *c, unsigned int k,
				      unsigned long long cap)
{
	struct sub *s = &c->subs[k];
	unsigned long long cost;
	unsigned int i;

	if (s->cost)
		return s->cost;
	cost = s->end_pc - s->pc;
	for (i = s->first_call; i < s->end_call && cost < cap; i++) {
		unsigned int callee = c->calls[i].callee;

		if (IS_LEAF(callee))
			cost += 16;
		else
			cost += verify_cost(c, c->ents[callee].sub, cap);
	}
	if (cost > cap)
		cost = cap;
	s->cost = cost;
	return s->cost;
}

/* The deepest call chain from subprogram @k, @k included (memoised). */
static int sub_frames(struct cg *c, unsigned int k, int level)
{
	struct sub *s = &c->subs[k];
	unsigned int i;
	int best = 0;

	if (s->frames > 0)
		return s->frames;
	if (level > MAX_FRAMES)
		return MAX_FRAMES + 1;	/* too deep; no need to know more */
	for (i = s->first_call; i < s->end_call; i++) {
		unsigned int callee = c->calls[i].callee;
		int f = IS_LEAF(callee) ? 1 :
			sub_frames(c, c->ents[callee].sub, level + 1);

		if (f > best)
			best = f;
	}
	s->frames = best + 1;
	return s->frames;
}

/**
 * ipt_bpf_compile() - compile a table into the data plane's program
 * @t:		a table ipt_table_translate() accepted
 * @out:	filled in on success (free with ipt_bpf_free())
 * @why:	a one-line reason on failure (may be NULL)
 * @why_len:	size of @why
 *
 * Produces the SOCKET_FILTER program and interface patterns that
 * bpfilter_proto.h describes, with ipt_do_table()'s verdicts and
 * counters.  The program is not verified here: the kernel's verifier has
 * the last word (its complexity limit may still refuse a big table whose
 * chains are jumped to from many places).
 *
 * Return: 0; -E2BIG if the program or the pattern set is larger than
 * BPFILTER_MAX_INSNS or BPFILTER_MAX_IFACES; -EOPNOTSUPP for a table the
 * generator cannot express (an extension it does not know, chains nested
 * deeper than the verifier's call frames); -ENOMEM.
 */
int ipt_bpf_compile(const struct ipt_table *t, struct ipt_bpf_prog *out,
		    char *why, size_t why_len)
{
	unsigned int i, off = 0, iface_pc = 0, ifbits_pc = 0;
	struct cg c;
	unsigned long long cost;
	int frames = 1;

	memset(&c, 0, sizeof(c));
	c.t = t;
	c.why = why;
	c.why_len = why_len;
	if (why && why_len)
		why[0] = '\0';
	c.ents = calloc(t->number ? t->number : 1, sizeof(*c.ents));
	if (!c.ents) {
		fail(&c, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < t->number; i++) {
		const struct ipt_entry *e;

		e = (const void *)((const char *)t->entries + off);
		c.ents[i].e = e;
		c.ents[i].off = off;
		c.ents[i].sub = NO_SUB;
		if (!strcmp(target_of(e)->u.user.name, XT_ERROR_TARGET))
			c.stacksize++;
		if (!all_zero(e->ip.iniface_mask, IFNAMSIZ) ||
		    !all_zero(e->ip.outiface_mask, IFNAMSIZ))
			c.has_iface = true;
		off += e->next_offset;
	}

	c.grp = malloc(GRP_MAX * sizeof(*c.grp));
	if (!c.grp) {
		fail(&c, -ENOMEM, "out of memory");
		goto out;
	}
	analyse_entries(&c);
	if (c.err || find_subprograms(&c))
		goto out;
	c.n = 0;
	c.n_calls = 0;
	c.n_ifaces = 0;
	c.used_iface = false;
	emit_main(&c);
	for (i = 0; i < c.n_subs && !c.err; i++)
		emit_sub(&c, &c.subs[i]);
	emit_leaves(&c, &iface_pc, &ifbits_pc);
	if (c.err)
		goto out;

	/* calls: pc-relative; main's calls come first */
	for (i = 0; i < c.n_calls; i++) {
		struct call_fix *f = &c.calls[i];
		unsigned int to = f->callee == CALL_IFACE ? iface_pc :
				  f->callee == CALL_IFBITS ? ifbits_pc :
				  c.subs[c.ents[f->callee].sub].pc;

		c.insns[f->pc].imm = (__s32)((long)to - (long)f->pc - 1);
	}
	for (i = 0; i < c.n_calls && (!c.n_subs || i < c.subs[0].first_call);
	     i++) {
		unsigned int callee = c.calls[i].callee;
		int f = 1 + (IS_LEAF(callee) ? 1 :
			     sub_frames(&c, c.ents[callee].sub, 2));

		if (f > frames)
			frames = f;
	}
	if (frames > MAX_FRAMES) {
		fail(&c, -EOPNOTSUPP,
		     "chains nested too deep: more than %d BPF call frames",
		     MAX_FRAMES);
		goto out;
	}
	cost = c.n_subs ? c.subs[0].pc : c.n;
	for (i = 0; i < c.n_calls && (!c.n_subs || i < c.subs[0].first_call);
	     i++) {
		unsigned int callee = c.calls[i].callee;

		if (!IS_LEAF(callee))
			cost += verify_cost(&c, c.ents[callee].sub, VERIFY_MAX);
	}
	if (cost >= VERIFY_MAX) {
		fail(&c, -E2BIG,
		     "the verifier would go through more than %u instructions (chains jumped to from many rules, nested)",
		     VERIFY_MAX);
		goto out;
	}

	memset(out, 0, sizeof(*out));
	out->number = t->number;
	out->insns = c.insns;
	out->n_insns = c.n;
	out->ifaces = c.ifaces;
	out->n_ifaces = c.n_ifaces;
	out->n_subprogs = c.n_subs;
	out->n_trees = c.n_trees;
	out->max_frames = (unsigned int)frames;
	c.insns = NULL;
	c.ifaces = NULL;
out:
	free(c.insns);
	free(c.ifaces);
	free(c.calls);
	free(c.ents);
	free(c.subs);
	free(c.grp);
	label_free(&c.next);
	label_free(&c.exit);
	return c.err;
}

/**
 * ipt_bpf_free() - release a compiled program
 * @p:	what ipt_bpf_compile() filled in; zeroed afterwards
 */
void ipt_bpf_free(struct ipt_bpf_prog *p)
{
	free(p->insns);
	free(p->ifaces);
	memset(p, 0, sizeof(*p));
}
