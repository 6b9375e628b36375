/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The bpfilter sample's protocol between the module (which owns the iptables
 * sockopt ABI) and its helper (which validates and keeps the ruleset).
 *
 * The module copies every user buffer into the kernel, checks its size, and
 * forwards bytes; user addresses and pids never reach the helper.  Errors
 * the helper returns are the errno netfilter would return, and the module
 * hands them back to the iptables caller unchanged.
 */
#ifndef _BPFILTER_PROTO_H
#define _BPFILTER_PROTO_H

#ifdef __KERNEL__
#include <linux/netfilter_ipv4/ip_tables.h>
#else
#include <linux/netfilter_ipv4/ip_tables.h>
#endif
#include <umh_sdk/rpc.h>

#define BPFILTER_PROTO_ID	0x46504249U	/* "IBPF" */
#define BPFILTER_PROTO_VERSION	2

/*
 * Largest table (the entries of struct ipt_replace, in bytes).  netfilter
 * itself only refuses a table larger than RAM; a bigger one is refused here
 * with -ENOMEM, the errno netfilter gives when it cannot allocate a table.
 */
#define BPFILTER_MAX_TABLE	(32U << 20)
/* The smallest entry is an ipt_entry with a bare xt_entry_target. */
#define BPFILTER_MIN_ENTRY	(sizeof(struct ipt_entry) + \
				 sizeof(struct xt_entry_target))
#define BPFILTER_MAX_ENTRIES	(BPFILTER_MAX_TABLE / BPFILTER_MIN_ENTRY)
#define BPFILTER_MAX_COUNTERS	(BPFILTER_MAX_ENTRIES * \
				 sizeof(struct xt_counters))
/* A restore carries a replace, its entries and one counter per entry. */
#define BPFILTER_MAX_RESTORE	(sizeof(struct ipt_replace) + \
				 BPFILTER_MAX_TABLE + BPFILTER_MAX_COUNTERS)
#define BPFILTER_MAX_PAYLOAD	BPFILTER_MAX_RESTORE

enum bpfilter_op {
	BPFILTER_OP_REPLACE = 1,
	BPFILTER_OP_ADD_COUNTERS = 2,
	BPFILTER_OP_GET_INFO = 3,
	BPFILTER_OP_GET_ENTRIES = 4,
	BPFILTER_OP_GET_REVISION = 5,
	BPFILTER_OP_RESTORE = 6,
	BPFILTER_OP_COMPILE = 7,
};

/*
 * The data plane: the program the helper compiles for a table.
 *
 * The module runs one BPF_PROG_TYPE_SOCKET_FILTER program from its own
 * netfilter hooks (LOCAL_IN, FORWARD, LOCAL_OUT, priority NF_IP_PRI_FILTER,
 * init_net), with skb->data at the IP header.  Before each run it fills
 * struct __sk_buff cb[] as below (cb[3] and cb[4] are zero) and restores
 * the skb's own cb afterwards.
 */
enum bpfilter_cb {
	BPFILTER_CB_HOOK = 0,	/* NF_INET_LOCAL_IN, _FORWARD or _LOCAL_OUT */
	BPFILTER_CB_IN = 1,	/* state->in->ifindex, 0 without a device */
	BPFILTER_CB_OUT = 2,	/* state->out->ifindex, 0 without a device */
};

/*
 * The program returns a netfilter verdict: NF_DROP, NF_ACCEPT or NF_QUEUE
 * (a standard target's -verdict - 1); the module drops on anything else.
 *
 * Maps are named by BPF_LD_IMM64 with src_reg BPF_PSEUDO_MAP_FD and imm
 * one of these indexes; the module creates the maps for each program and
 * patches in their fds.  Nothing else may name a map.
 *
 * BPFILTER_MAP_COUNTERS: BPF_MAP_TYPE_ARRAY, key __u32 CPU number
 *	(bpf_get_smp_processor_id(); max_entries = nr_cpu_ids), value
 *	number struct xt_counters, one per entry in table order (the order
 *	of GET_ENTRIES' counters), then BPFILTER_SCRATCH bytes the program
 *	may use as it likes while it runs (bottom halves are off: nothing
 *	else runs it on that CPU meanwhile).  The program looks up its CPU's block
 *	once per packet and adds 1 and skb->len to an entry's slot wherever
 *	ip_tables' ipt_do_table() would ADD_COUNTER() that entry.  (A
 *	per-CPU array would cost a lookup per counted entry, and its value
 *	is limited to 32 KiB.)
 * BPFILTER_MAP_IFACES: BPF_MAP_TYPE_HASH, key __u32 ifindex, value
 *	BPFILTER_IFACE_WORDS(n_ifaces) __u64 words; bit (j % 64) of word
 *	(j / 64) is set when the device's name matches pattern j as
 *	ip_tables' ifname_compare_aligned() compares them.  The module keeps
 *	an entry for every device of init_net that matches at least one
 *	pattern (a device with no entry matches none) and updates it as
 *	devices appear, disappear and are renamed.  An ifindex of 0 (no
 *	device) is never looked up: the program compares the empty name.
 *
 * Helper functions the program may call: BPF_FUNC_map_lookup_elem,
 * BPF_FUNC_skb_load_bytes and BPF_FUNC_get_smp_processor_id, and its own
 * subprograms (BPF_PSEUDO_CALL).
 * Of the atomics only BPF_STX | BPF_ATOMIC | BPF_DW with imm BPF_ADD (a
 * counter's add, no fetch).  No LD_ABS/LD_IND, no other BPF_LD_IMM64
 * pseudo source.
 */
enum bpfilter_map {
	BPFILTER_MAP_COUNTERS = 0,
	BPFILTER_MAP_IFACES = 1,
	BPFILTER_NR_MAPS
};

/* Largest program and pattern set the module takes. */
#define BPFILTER_MAX_INSNS	1000000U
#define BPFILTER_MAX_IFACES	4096U
#define BPFILTER_SCRATCH	160U
#define BPFILTER_IFACE_WORDS(n)	((n) ? ((n) + 63U) / 64U : 1U)

/* An interface pattern: ipt_ip's iniface/iniface_mask (or out...). */
struct bpfilter_iface {
	char name[IFNAMSIZ];
	unsigned char mask[IFNAMSIZ];
};

/*
 * COMPILE's reply: this header, n_ifaces struct bpfilter_iface, then
 * n_insns struct bpf_insn (8 bytes each).
 */
struct bpfilter_prog_hdr {
	__u32 number;		/* entries in the table (counters' size) */
	__u32 n_insns;
	__u32 n_ifaces;
	__u32 pad;
};

#define BPFILTER_MAX_PROG	(sizeof(struct bpfilter_prog_hdr) + \
				 BPFILTER_MAX_IFACES * \
				 sizeof(struct bpfilter_iface) + \
				 BPFILTER_MAX_INSNS * 8U)

/* A reply that carries nothing but success. */
struct bpfilter_ack {
	__u32 number;		/* entries in the table now */
	__u32 pad;
};

/* GET_REVISION_MATCH / GET_REVISION_TARGET */
struct bpfilter_rev_req {
	char name[XT_EXTENSION_MAXNAMELEN];
	__u8 revision;
	__u8 target;		/* 1: a target, 0: a match */
	__u8 pad[2];
};

struct bpfilter_rev_rep {
	__s32 revision;		/* the highest revision the helper supports */
	__u32 pad;
};

/*
 * REPLACE: struct ipt_replace (its counters pointer zeroed by the module)
 * followed by ipt_replace.size bytes of entries.  The reply is the old
 * table's counters, ipt_replace.num_counters of them.
 *
 * ADD_COUNTERS: struct xt_counters_info followed by num_counters counters.
 *
 * GET_INFO: struct ipt_getinfo with the name set; the reply is filled in.
 *
 * GET_ENTRIES: struct ipt_get_entries (name and size); the reply is
 * exactly size bytes of entries, counters included.
 *
 * COMPILE: the same request as REPLACE; the helper makes every check
 * REPLACE makes (the errno too) but keeps its table, and answers with the
 * table's program (struct bpfilter_prog_hdr and what follows it).
 *
 * RESTORE: what the module replays into a new helper: a REPLACE request
 * (num_counters is the number of entries) followed by that many counters.
 */
#define BPFILTER_OPS(OP)						\
	OP(bpfilter, replace, BPFILTER_OP_REPLACE,			\
	   UMH_VAR(sizeof(struct ipt_replace) + BPFILTER_MAX_TABLE),	\
	   UMH_VAR(BPFILTER_MAX_COUNTERS))				\
	OP(bpfilter, add_counters, BPFILTER_OP_ADD_COUNTERS,		\
	   UMH_VAR(sizeof(struct xt_counters_info) + BPFILTER_MAX_COUNTERS), \
	   UMH_FIXED(struct bpfilter_ack))				\
	OP(bpfilter, get_info, BPFILTER_OP_GET_INFO,			\
	   UMH_FIXED(struct ipt_getinfo), UMH_FIXED(struct ipt_getinfo)) \
	OP(bpfilter, get_entries, BPFILTER_OP_GET_ENTRIES,		\
	   UMH_FIXED(struct ipt_get_entries), UMH_VAR(BPFILTER_MAX_TABLE)) \
	OP(bpfilter, get_revision, BPFILTER_OP_GET_REVISION,		\
	   UMH_FIXED(struct bpfilter_rev_req),				\
	   UMH_FIXED(struct bpfilter_rev_rep))				\
	OP(bpfilter, restore, BPFILTER_OP_RESTORE,			\
	   UMH_VAR(BPFILTER_MAX_RESTORE), UMH_FIXED(struct bpfilter_ack)) \
	OP(bpfilter, compile, BPFILTER_OP_COMPILE,			\
	   UMH_VAR(sizeof(struct ipt_replace) + BPFILTER_MAX_TABLE),	\
	   UMH_VAR(BPFILTER_MAX_PROG))

UMH_PROTO_DEFINE(bpfilter, BPFILTER_PROTO_ID, BPFILTER_PROTO_VERSION,
		 BPFILTER_OPS)

#endif /* _BPFILTER_PROTO_H */
