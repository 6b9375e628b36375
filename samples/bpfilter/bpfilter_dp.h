/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bpfilter sample's data plane: the program its helper compiles for the
 * filter table, loaded, run from the module's own netfilter hooks and
 * swapped atomically.  Documentation/bpfilter.rst has the design.
 */
#ifndef _BPFILTER_DP_H
#define _BPFILTER_DP_H

#include <linux/netfilter/x_tables.h>
#include <linux/types.h>

struct bpf_dp;

int bpf_dp_init(void);
int bpf_dp_hook_up(void);
void bpf_dp_exit(void);
struct bpf_dp *bpf_dp_load(void *prog, size_t len, u32 number);
void bpf_dp_free(struct bpf_dp *dp);
int bpf_dp_stage(struct bpf_dp *dp);
void bpf_dp_install(struct bpf_dp *dp, struct xt_counters *old, u32 n_old);
int bpf_dp_add_counters(void *entries, size_t size);
size_t bpf_dp_prog_cap(u32 number);
void bpf_dp_refuse_size(size_t cap);

#endif /* _BPFILTER_DP_H */
