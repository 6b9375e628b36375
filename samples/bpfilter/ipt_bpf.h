/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ipt_bpf: the bpfilter helper's code generator.  It compiles a translated
 * filter table (ipt_table.h) into the eBPF SOCKET_FILTER program that
 * bpfilter_proto.h specifies, with ipt_do_table()'s semantics (Linux 6.1
 * net/ipv4/netfilter/ip_tables.c): same verdict, same counters.
 *
 * Pure user-space C11: no libbpf, no bpf() system call; the module loads
 * what this produces.
 *
 * Layout.  Control flow is real code, not an interpreter:
 *
 *  - insn 0 is the main program.  It parses the packet into a struct on its
 *    own stack (PKT below), then branches on cb[0] (the hook).  For a valid
 *    hook h it calls the subprogram of hook_entry[h]; if that returns
 *    IPT_BPF_RET (a RETURN at the top level) it runs the underflow entry of
 *    h inline (an unconditional ACCEPT or DROP, counted).  Any other hook
 *    is NF_ACCEPT.
 *  - Every offset execution can enter otherwise than by falling through (a
 *    hook entry, a jump or goto target) starts a BPF subprogram S_T that
 *    runs the entries from T in table order.  Each entry is emitted once:
 *    its ip match and matches (a failure jumps to the next entry, a
 *    hotdrop returns NF_DROP), its counter update, its target.  A verdict
 *    returns it; RETURN returns IPT_BPF_RET; ERROR returns NF_DROP; a jump
 *    that pushes is "call S_v; if r0 != IPT_BPF_RET, exit with r0", a goto
 *    (or falling into the start of another subprogram) is "call S_v; exit".
 *    So a RETURN pops exactly the frame ipt_do_table()'s jump stack would.
 *
 * Registers.  Main and every subprogram keep the ctx (struct __sk_buff) in
 * r6, a pointer to main's PKT in r7 and the jump-stack depth (ipt_do_table's
 * stackidx, compared with its stacksize: the number of ERROR entries) in
 * r8.  Subprograms are called with r1 = ctx, r2 = PKT, r3 = depth.  r0-r5
 * are scratch inside one entry and dead between entries, so the verifier
 * prunes at every entry boundary.
 *
 * Leaf subprograms, placed last, do the interface map's lookups:
 * ifbits(r1 = ifindex, r2 = where in PKT), which main calls for the in and
 * the out device to copy the first IPT_BPF_IFB_WORDS words of its entry
 * into PKT (entries test those bits in place), and, only for a table with
 * more patterns, iface(r1 = ifindex, r2 = byte offset of the pattern's
 * word, r3 = its bit) -> r0 = the bit.  Few call sites per map keep the
 * kernel from rewriting the whole program once per inlined lookup.  The
 * counters need none: main looks this CPU's block up once.  Every exit of
 * a function is one shared exit insn (one per 30000 insns), so the
 * verifier prunes there.
 *
 * Memory.  PKT (IPT_BPF_PKT_* offsets below) is the scratch area after
 * this CPU's counters in BPFILTER_MAP_COUNTERS, not the stack: the
 * verifier tracks stack contents, and fields narrowed by one rule's tests
 * would keep the paths reaching the next rule apart.  Main and the leaf:
 * a map key at fp-8.  Chain subprograms: no stack.  The verifier's
 * limits: 8 call frames (main and the interface leaf included) and 512
 * bytes over them; a table nested deeper is refused with -EOPNOTSUPP.
 *
 * Maps: BPF_LD_IMM64 with src_reg BPF_PSEUDO_MAP_FD and imm
 * BPFILTER_MAP_COUNTERS or BPFILTER_MAP_IFACES, patched by the loader.
 */
#ifndef _BPFILTER_IPT_BPF_H
#define _BPFILTER_IPT_BPF_H

#include <stddef.h>
#include <linux/bpf.h>

#include "bpfilter_proto.h"
#include "ipt_table.h"

/* What a subprogram returns when a RETURN popped the frame it started in. */
#define IPT_BPF_RET		0xffU

/*
 * PKT: where main parses the packet, the BPFILTER_SCRATCH bytes after the
 * counters in this CPU's block of BPFILTER_MAP_COUNTERS; offsets from its
 * start.
 */
#define IPT_BPF_PKT_SIZE	160
#define IPT_BPF_PKT_IP		0	/* the IPv4 header, 20 bytes */
#define IPT_BPF_PKT_L4		24	/* first bytes at thoff, 20 bytes */
#define IPT_BPF_PKT_L4AVAIL	44	/* u32: 0, 4, 8 or 20 of them loaded */
/*
 * The scalars below have 8-byte slots, from when PKT lived on the stack
 * (Linux 6.1's verifier refuses a narrower store into a stack slot that
 * holds a spilled register).  PKT is map memory now: the hotdrop bytes
 * share LEN's slot.
 */
#define IPT_BPF_PKT_LEN		48	/* u32 skb->len */
/* u8 each, 0 or 1: the L4 matches' hotdrops (emit_hot_flags()) */
#define IPT_BPF_PKT_HOT_TCP	52
#define IPT_BPF_PKT_HOT_8	53
#define IPT_BPF_PKT_HOT_4	54
#define IPT_BPF_PKT_FRAGOFF	56	/* ntohs(frag_off) & IP_OFFSET */
#define IPT_BPF_PKT_THOFF	64	/* ihl * 4 */
#define IPT_BPF_PKT_IN		72	/* cb[BPFILTER_CB_IN] */
#define IPT_BPF_PKT_OUT		80	/* cb[BPFILTER_CB_OUT] */
#define IPT_BPF_PKT_OPT		88	/* TCP options, 40 bytes */
/*
 * The first IPT_BPF_IFB_WORDS words of the in and out devices' entries in
 * BPFILTER_MAP_IFACES (bits of patterns 0..127), copied once per packet;
 * an entry matching a pattern past them calls the iface leaf.
 */
#define IPT_BPF_IFB_WORDS	2
#define IPT_BPF_PKT_IN_BITS	128
#define IPT_BPF_PKT_OUT_BITS	144
#define IPT_BPF_KEY_FP		(-8)	/* u32 map key, in the leaves */

/**
 * struct ipt_bpf_prog - a compiled table
 * @number:	entries of the table (the counters map's size)
 * @insns:	the program
 * @n_insns:	its length
 * @ifaces:	interface patterns; bit j of BPFILTER_MAP_IFACES is @ifaces[j]
 * @n_ifaces:	their number
 * @n_subprogs:	subprograms besides main (for the log)
 * @n_trees:	runs of one-field rules compiled as a decision tree (for the
 *		log)
 * @max_frames:	deepest call chain, main included (for the log)
 */
struct ipt_bpf_prog {
	unsigned int number;
	struct bpf_insn *insns;
	unsigned int n_insns;
	struct bpfilter_iface *ifaces;
	unsigned int n_ifaces;
	unsigned int n_subprogs;
	unsigned int n_trees;
	unsigned int max_frames;
};

int ipt_bpf_compile(const struct ipt_table *t, struct ipt_bpf_prog *out,
		    char *why, size_t why_len);

void ipt_bpf_free(struct ipt_bpf_prog *p);

#endif /* _BPFILTER_IPT_BPF_H */
