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
#define BPFILTER_PROTO_VERSION	1

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
};

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
	   UMH_VAR(BPFILTER_MAX_RESTORE), UMH_FIXED(struct bpfilter_ack))

UMH_PROTO_DEFINE(bpfilter, BPFILTER_PROTO_ID, BPFILTER_PROTO_VERSION,
		 BPFILTER_OPS)

#endif /* _BPFILTER_PROTO_H */
