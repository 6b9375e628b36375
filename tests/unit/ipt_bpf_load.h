/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipt_bpf_load.h: load what samples/bpfilter/ipt_bpf.c generates from user
 * space, as the module does in the kernel: the bpf() system call, the two
 * maps, the map fds patched into the program.  Shared by the unit test
 * (tests/unit/test_ipt_bpf.c) and the benchmark (bench/bpf_bench.c).
 */
#ifndef _IPT_BPF_LOAD_H
#define _IPT_BPF_LOAD_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "../../samples/bpfilter/ipt_bpf.h"

static inline int ibl_sys_bpf(int cmd, union bpf_attr *a)
{
	return (int)syscall(SYS_bpf, cmd, a, sizeof(*a));
}

static inline int ibl_map_create(unsigned int type, unsigned int vsize,
				 unsigned int n)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = 4;
	a.value_size = vsize;
	a.max_entries = n ? n : 1;
	return ibl_sys_bpf(BPF_MAP_CREATE, &a);
}

/* BPF_MAP_UPDATE_ELEM (@update) or BPF_MAP_LOOKUP_ELEM of a u32 key */
static inline int ibl_map_elem(int fd, __u32 key, void *val, int update)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (__u32)fd;
	a.key = (__u64)(uintptr_t)&key;
	a.value = (__u64)(uintptr_t)val;
	return ibl_sys_bpf(update ? BPF_MAP_UPDATE_ELEM : BPF_MAP_LOOKUP_ELEM,
			   &a);
}

/* The number of possible CPUs (an array map's blocks), or -1. */
static inline int ibl_possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	int lo, hi, n = 0;
	char sep;

	if (!f)
		return -1;
	while (fscanf(f, "%d", &lo) == 1) {
		hi = lo;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
			if (fscanf(f, "%d", &hi) != 1)
				break;
			if (fscanf(f, "%c", &sep) != 1)
				sep = '\n';
		}
		n += hi - lo + 1;
		if (sep != ',')
			break;
	}
	fclose(f);
	return n;
}

/*
 * The counters map as the module makes it: an array of one block per CPU
 * (@ncpus), each the entries' counters and the scratch area.
 */
static inline int ibl_counters_map(const struct ipt_bpf_prog *bp, int ncpus)
{
	return ibl_map_create(BPF_MAP_TYPE_ARRAY,
			      bp->number * sizeof(struct xt_counters) +
			      BPFILTER_SCRATCH, (unsigned int)ncpus);
}

/* Patch the maps' fds into @insns (a copy of a struct ipt_bpf_prog's). */
static inline void ibl_patch_maps(struct bpf_insn *insns, unsigned int n,
				  int counters, int ifaces)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (insns[i].code != (BPF_LD | BPF_DW | BPF_IMM))
			continue;
		if (insns[i].src_reg == BPF_PSEUDO_MAP_FD)
			insns[i].imm = insns[i].imm == BPFILTER_MAP_COUNTERS ?
				       counters : ifaces;
		i++;
	}
}

/* BPF_PROG_LOAD as a SOCKET_FILTER, with a verifier log if @log. */
static inline int ibl_prog_load(const struct bpf_insn *insns, unsigned int n,
				char *log, unsigned int log_size,
				unsigned int log_level)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (__u64)(uintptr_t)insns;
	a.insn_cnt = n;
	a.license = (__u64)(uintptr_t)"GPL";
	if (log) {
		a.log_buf = (__u64)(uintptr_t)log;
		a.log_size = log_size;
		a.log_level = log_level;
		log[0] = '\0';
	}
	return ibl_sys_bpf(BPF_PROG_LOAD, &a);
}

/*
 * BPF_PROG_TEST_RUN of @fd on @data (an ethernet frame) with @ctx, @repeat
 * times.  Return 0 or -1; *@retval and *@ns (the mean time of one run).
 */
static inline int ibl_prog_run(int fd, const void *data, unsigned int len,
			       const struct __sk_buff *ctx,
			       unsigned int repeat, __u32 *retval, __u32 *ns)
{
	union bpf_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (__u32)fd;
	a.test.data_in = (__u64)(uintptr_t)data;
	a.test.data_size_in = len;
	a.test.ctx_in = (__u64)(uintptr_t)ctx;
	a.test.ctx_size_in = sizeof(*ctx);
	a.test.repeat = repeat;
	ret = ibl_sys_bpf(BPF_PROG_TEST_RUN, &a);
	*retval = a.test.retval;
	if (ns)
		*ns = a.test.duration;
	return ret;
}

#endif /* _IPT_BPF_LOAD_H */
