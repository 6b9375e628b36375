// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Fuzz target "ipt": the bpfilter sample's ruleset parser,
 * ipt_table_translate() (samples/bpfilter/ipt_table.c).
 *
 * Input: a struct ipt_replace followed by its entries, the layout of a
 * REPLACE request.  ipt_replace.size is set to the number of entry bytes,
 * as the helper's translate() guarantees before it calls the parser;
 * every other field (num_entries, valid_hooks, hook_entry, underflow) is
 * the fuzzer's.  The entries are passed in a buffer of exactly that size.
 *
 * Checked besides memory safety:
 *  - a refusal leaves the output table untouched, returns one of the
 *    documented errnos and a NUL-terminated reason;
 *  - an accepted table has the header's size, count and hooks, every
 *    valid hook's entry and underflow inside the table, zero counters;
 *  - its GET_ENTRIES form (ipt_table_dump()) translated again with the
 *    same header is accepted and gives identical entries, hooks and
 *    underflows: the dump is a fixed point.
 */
#include <errno.h>

#include "fuzz.h"
#include "ipt_table.h"

static bool errno_ok(int err)
{
	return err == -EINVAL || err == -ELOOP || err == -ENOENT ||
	       err == -EPROTOTYPE || err == -ENOMEM;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[IPT_TABLE_WHY_LEN];
	struct ipt_table nt, nt2, poison;
	struct ipt_replace repl;
	void *entries, *dump;
	unsigned int h, i;
	int ret;

	if (size < sizeof(repl))
		return 0;
	memcpy(&repl, data, sizeof(repl));
	repl.size = (unsigned int)(size - sizeof(repl));
	entries = fuzz_dup(data + sizeof(repl), repl.size);

	memset(&poison, 0xA5, sizeof(poison));
	nt = poison;
	memset(why, 'x', sizeof(why));
	ret = ipt_table_translate(&repl, entries, &nt, why, sizeof(why));
	free(entries);
	FUZZ_CHECK(memchr(why, '\0', sizeof(why)) != NULL);
	if (ret) {
		FUZZ_CHECK(errno_ok(ret));
		FUZZ_CHECK(memcmp(&nt, &poison, sizeof(nt)) == 0);
		return 0;
	}
	FUZZ_CHECK(why[0] == '\0');
	FUZZ_CHECK(nt.size == repl.size && nt.number == repl.num_entries);
	FUZZ_CHECK(nt.valid_hooks == repl.valid_hooks);
	FUZZ_CHECK(nt.size >= nt.number *
		   (sizeof(struct ipt_entry) + sizeof(struct xt_entry_target)));
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(repl.valid_hooks & (1U << h)))
			continue;
		FUZZ_CHECK(nt.hook_entry[h] == repl.hook_entry[h]);
		FUZZ_CHECK(nt.underflow[h] == repl.underflow[h]);
		FUZZ_CHECK(nt.hook_entry[h] < nt.size && nt.underflow[h] < nt.size);
	}
	for (i = 0; i < nt.number; i++)
		FUZZ_CHECK(nt.counters[i].pcnt == 0 && nt.counters[i].bcnt == 0);

	dump = fuzz_alloc(nt.size);
	ipt_table_dump(&nt, dump);
	FUZZ_CHECK(memcmp(dump, nt.entries, nt.size) == 0);
	ret = ipt_table_translate(&repl, dump, &nt2, why, sizeof(why));
	FUZZ_CHECK(ret == 0);
	FUZZ_CHECK(nt2.size == nt.size && nt2.number == nt.number);
	FUZZ_CHECK(memcmp(nt2.entries, nt.entries, nt.size) == 0);
	FUZZ_CHECK(memcmp(nt2.hook_entry, nt.hook_entry,
			  sizeof(nt.hook_entry)) == 0);
	FUZZ_CHECK(memcmp(nt2.underflow, nt.underflow,
			  sizeof(nt.underflow)) == 0);
	free(dump);
	ipt_table_free(&nt2);
	ipt_table_free(&nt);
	return 0;
}
