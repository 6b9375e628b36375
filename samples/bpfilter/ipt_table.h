/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ipt_table: the bpfilter helper's model of one iptables table.
 *
 * Pure user-space C11, no I/O: it validates a struct ipt_replace as
 * strictly as netfilter's translate_table() (net/ipv4/netfilter/ip_tables.c)
 * and keeps the table in the form GET_ENTRIES returns it.  Every error is
 * the errno netfilter returns for the same input; *why gets a one-line
 * reason for the log.
 */
#ifndef _BPFILTER_IPT_TABLE_H
#define _BPFILTER_IPT_TABLE_H

#include <stddef.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#define IPT_TABLE_WHY_LEN	160

/**
 * struct ipt_table - one table, as GET_INFO and GET_ENTRIES report it
 * @name:	table name ("filter")
 * @valid_hooks: bit mask of the hooks the table has
 * @hook_entry:	offset of each hook's first rule
 * @underflow:	offset of each hook's policy rule
 * @number:	number of entries
 * @size:	bytes of entries
 * @entries:	the entries as netfilter keeps them after translation
 *		(comefrom as mark_source_chains() leaves it, counters zero)
 * @counters:	one counter per entry
 */
struct ipt_table {
	char name[XT_TABLE_MAXNAMELEN];
	unsigned int valid_hooks;
	unsigned int hook_entry[NF_INET_NUMHOOKS];
	unsigned int underflow[NF_INET_NUMHOOKS];
	unsigned int number;
	unsigned int size;
	void *entries;
	struct xt_counters *counters;
};

/*
 * Build the filter table exactly as iptable_filter creates it (INPUT,
 * FORWARD, OUTPUT with ACCEPT policies).  0 or -ENOMEM.
 */
int ipt_table_init_filter(struct ipt_table *t);

void ipt_table_free(struct ipt_table *t);

/*
 * Validate and translate @repl (header) and @entries (repl->size bytes):
 * everything translate_table() checks (entry sizes, alignment, offsets,
 * hook entries and underflows, standard and ERROR targets, jumps, loops,
 * matches and their data) plus the extensions this sample supports.  On
 * success *@nt is a new table with zero counters (repl->num_counters and
 * repl->valid_hooks are not compared with any current table here).
 */
int ipt_table_translate(const struct ipt_replace *repl, const void *entries,
			struct ipt_table *nt, char *why, size_t why_len);

/*
 * Copy the entries with the counters filled in, exactly the bytes that
 * GET_ENTRIES returns; @dst has t->size bytes.
 */
void ipt_table_dump(const struct ipt_table *t, void *dst);

/*
 * The answer to IPT_SO_GET_REVISION_MATCH (@target 0) or _TARGET (1):
 * the highest supported revision when @revision is supported, otherwise
 * -EPROTONOSUPPORT if the extension is known, -ENOENT if not.
 */
int ipt_revision(const char *name, unsigned int revision, int target);

#endif /* _BPFILTER_IPT_TABLE_H */
