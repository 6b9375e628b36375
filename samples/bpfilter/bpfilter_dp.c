// SPDX-License-Identifier: GPL-2.0
/*
 * bpfilter data plane: the helper's program, checked, loaded and enforced.
 *
 * The helper compiles the filter table into a BPF_PROG_TYPE_SOCKET_FILTER
 * program (bpfilter_proto.h has the contract).  The helper is not trusted:
 * the module checks every instruction against an allowlist (its own two
 * maps, three helper functions, subprogram calls, no atomic but a 64-bit
 * add, no legacy packet loads) before the kernel's verifier sees it, so a
 * compromised helper cannot reach anything the verifier would let a
 * CAP_BPF caller reach beyond that.  The load runs on a dedicated
 * workqueue under a kernel credential holding only CAP_BPF: the file
 * descriptors it creates land in the kthreads' table, never in the
 * iptables process's, and are closed when the load ends, the module
 * keeping references.  (They are close-on-exec, and a helper started
 * meanwhile takes its fds 0..3 over from its copy of that table.)  The
 * program and its maps are charged to the memory cgroup of the caller
 * that asked for the load, not to the workqueue's kthread (the root).
 *
 * The program runs from the module's own hooks at LOCAL_IN, FORWARD and
 * LOCAL_OUT at NF_IP_PRI_FILTER in init_net, the place and priority of
 * iptable_filter.  A new program replaces the old one under RCU: a packet
 * sees one or the other, and the old one's counters are read only after
 * no CPU can still be running it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bpf.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/fdtable.h>
#include <linux/filter.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/rtnetlink.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include <umh_sdk/compat.h>

#include "bpfilter_dp.h"
#include "bpfilter_proto.h"

UMH_IMPORT_NS_BPF_INTERNAL();

/*
 * Devices of init_net that may match interface patterns: the interface
 * map's size.  A ruleset that more devices match is refused, and so is a
 * device that would be one too many (bpf_dp_netdev_event()).
 */
static unsigned int max_devices = 65536;
module_param(max_devices, uint, 0444);
MODULE_PARM_DESC(max_devices,
		 "devices that may match a ruleset's -i/-o patterns (1..65536)");

static unsigned int programs_loaded;
module_param(programs_loaded, uint, 0444);
MODULE_PARM_DESC(programs_loaded, "programs loaded (read only)");

static unsigned int programs_refused;
module_param(programs_refused, uint, 0444);
MODULE_PARM_DESC(programs_refused,
		 "helper programs refused by the allowlist or the verifier (read only)");

/**
 * struct bpf_dp - one loaded ruleset
 * @prog:	the program (a reference)
 * @maps:	its maps, by enum bpfilter_map (references)
 * @number:	entries of the table: slots of the counters map
 * @n_ifaces:	interface patterns
 * @words:	u64 words of an interface map value
 * @bits:	scratch value for interface map updates (under RTNL)
 * @ifaces:	the patterns
 */
struct bpf_dp {
	struct bpf_prog *prog;
	struct bpf_map *maps[BPFILTER_NR_MAPS];
	u32 number;
	u32 n_ifaces;
	u32 words;
	u64 *bits;
	struct bpfilter_iface ifaces[];
};

/* The ruleset in force; changed under RTNL, read under RCU. */
static struct bpf_dp __rcu *bpf_dp_active;
static struct workqueue_struct *bpf_dp_wq;
static const struct cred *bpf_dp_cred;
static bool bpf_dp_hooked;

static unsigned int bpf_dp_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	struct bpf_dp *dp = rcu_dereference(bpf_dp_active);
	u32 saved[BPF_SKB_CB_LEN / sizeof(u32)];
	u32 *cb;
	u32 ret;

	if (unlikely(!dp))
		return NF_ACCEPT;
	/*
	 * The program reads the hook and the devices in cb[]; the skb's own
	 * cb (IPCB here) is put back afterwards.  Not bpf_prog_run_save_cb():
	 * it clears cb[] before the run.
	 */
	BUILD_BUG_ON(sizeof(saved) != 20);
	cb = (u32 *)bpf_skb_cb(skb);
	memcpy(saved, cb, sizeof(saved));
	memset(cb, 0, sizeof(saved));
	cb[BPFILTER_CB_HOOK] = state->hook;
	cb[BPFILTER_CB_IN] = state->in ? state->in->ifindex : 0;
	cb[BPFILTER_CB_OUT] = state->out ? state->out->ifindex : 0;
	/* Per-CPU counters: no softirq may run the program in between. */
	local_bh_disable();
	ret = bpf_prog_run(dp->prog, skb);
	local_bh_enable();
	memcpy(cb, saved, sizeof(saved));

	switch (ret) {
	case NF_ACCEPT:
	case NF_DROP:
	case NF_QUEUE:
		return ret;
	default:
		return NF_DROP;
	}
}

static const struct nf_hook_ops bpf_dp_ops[] = {
	{
		.hook = bpf_dp_hook,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_LOCAL_IN,
		.priority = NF_IP_PRI_FILTER,
	},
	{
		.hook = bpf_dp_hook,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_FORWARD,
		.priority = NF_IP_PRI_FILTER,
	},
	{
		.hook = bpf_dp_hook,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_LOCAL_OUT,
		.priority = NF_IP_PRI_FILTER,
	},
};

/* ---- interfaces ---- */

/* ip_tables' ifname_compare_aligned(): every byte under the mask equal. */
static bool bpf_dp_iface_match(const char *name,
			       const struct bpfilter_iface *pat)
{
	unsigned int i;

	for (i = 0; i < IFNAMSIZ; i++)
		if ((name[i] ^ pat->name[i]) & pat->mask[i])
			return false;
	return true;
}

/*
 * Bring @dev's entry of @dp's interface map up to date.  Under RTNL.
 * Return: 0, or why the entry could not be stored (-ENOMEM, -E2BIG: more
 * matching devices than the map holds); the device then matches no
 * pattern of @dp.
 */
static int bpf_dp_dev_update(struct bpf_dp *dp, struct net_device *dev)
{
	struct bpf_map *map = dp->maps[BPFILTER_MAP_IFACES];
	char name[IFNAMSIZ];
	u32 key = dev->ifindex;
	bool any = false;
	unsigned int j;
	int err;

	if (!dp->n_ifaces)
		return 0;
	memcpy(name, dev->name, sizeof(name));
	memset(dp->bits, 0, dp->words * sizeof(u64));
	for (j = 0; j < dp->n_ifaces; j++) {
		if (bpf_dp_iface_match(name, &dp->ifaces[j])) {
			dp->bits[j / 64] |= BIT_ULL(j % 64);
			any = true;
		}
	}
	migrate_disable();
	rcu_read_lock();
	if (any)
		err = map->ops->map_update_elem(map, &key, dp->bits, BPF_ANY);
	else
		err = map->ops->map_delete_elem(map, &key);
	rcu_read_unlock();
	migrate_enable();
	return err == -ENOENT ? 0 : err;
}

static void bpf_dp_dev_remove(struct bpf_dp *dp, int ifindex)
{
	struct bpf_map *map = dp->maps[BPFILTER_MAP_IFACES];
	u32 key = ifindex;

	if (!dp->n_ifaces)
		return;
	migrate_disable();
	rcu_read_lock();
	map->ops->map_delete_elem(map, &key);
	rcu_read_unlock();
	migrate_enable();
}

/*
 * A ruleset loaded and about to be put in force (bpf_dp_stage()): its
 * interface map is kept up to date along with the active one's.  Set and
 * cleared by the holder of the module's set lock, under RTNL.
 */
static struct bpf_dp *bpf_dp_staged;

/*
 * A device registered or renamed gets its entries in the rulesets' maps
 * before anything can send through it.  One that cannot be stored is
 * refused (the registration or the rename fails with the errno), rather
 * than left matching none of the patterns it should match; except one
 * moved in from another namespace, which the kernel cannot refuse.
 */
static int bpf_dp_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct bpf_dp *dp[2];
	int i, err = 0;

	if (!net_eq(dev_net(dev), &init_net))
		return NOTIFY_DONE;
	dp[0] = rcu_dereference_protected(bpf_dp_active, lockdep_rtnl_is_held());
	dp[1] = bpf_dp_staged;
	for (i = 0; i < ARRAY_SIZE(dp); i++) {
		if (!dp[i])
			continue;
		switch (event) {
		case NETDEV_REGISTER:
		case NETDEV_CHANGENAME:
			if (!err)
				err = bpf_dp_dev_update(dp[i], dev);
			break;
		case NETDEV_UNREGISTER:
			bpf_dp_dev_remove(dp[i], dev->ifindex);
			break;
		}
	}
	if (err) {
		/*
		 * A device moved in from another namespace cannot be refused
		 * (the move ignores this answer): it matches no pattern.
		 */
		pr_err_ratelimited("interface %s: the ruleset cannot store its -i/-o entry (%d; max_devices is %u): refused, or if moved in from another namespace, matching none of its patterns\n",
				   dev->name, err, max_devices);
		return notifier_from_errno(err);
	}
	return NOTIFY_DONE;
}

static struct notifier_block bpf_dp_netdev_nb = {
	.notifier_call = bpf_dp_netdev_event,
};

/* ---- loading ---- */

/*
 * The allowlist, applied before the verifier: the program may use only
 * what the contract in bpfilter_proto.h names.  Map references become
 * the fds in @fds.  -EPROTO for anything else.
 */
static int bpf_dp_check(struct bpf_insn *insn, u32 n, const int *fds)
{
	u32 i;

	for (i = 0; i < n; i++) {
		struct bpf_insn *in = &insn[i];
		u8 class = BPF_CLASS(in->code);

		switch (class) {
		case BPF_ALU:
		case BPF_ALU64:
		case BPF_JMP32:
		case BPF_ST:
			break;
		case BPF_LDX:
			if (BPF_MODE(in->code) != BPF_MEM)
				goto bad;
			break;
		case BPF_STX:
			/* of the atomics, only a 64-bit add without fetch */
			if (BPF_MODE(in->code) == BPF_ATOMIC &&
			    BPF_SIZE(in->code) == BPF_DW && in->imm == BPF_ADD)
				break;
			if (BPF_MODE(in->code) != BPF_MEM)
				goto bad;
			break;
		case BPF_JMP:
			if (BPF_OP(in->code) != BPF_CALL)
				break;
			if (in->src_reg == BPF_PSEUDO_CALL)
				break;
			if (in->src_reg ||
			    (in->imm != BPF_FUNC_map_lookup_elem &&
			     in->imm != BPF_FUNC_skb_load_bytes &&
			     in->imm != BPF_FUNC_get_smp_processor_id))
				goto bad;
			break;
		case BPF_LD:
			if (in->code != (BPF_LD | BPF_IMM | BPF_DW) || i + 1 >= n)
				goto bad;
			if (in->src_reg == BPF_PSEUDO_MAP_FD) {
				if (in->imm < 0 || in->imm >= BPFILTER_NR_MAPS)
					goto bad;
				in->imm = fds[in->imm];
			} else if (in->src_reg) {
				goto bad;
			}
			i++;
			break;
		default:
			goto bad;
		}
	}
	return 0;
bad:
	pr_warn("helper program refused: instruction %u (code 0x%02x src %u imm %d) is not allowed\n",
		i, insn[i].code, insn[i].src_reg, insn[i].imm);
	return -EPROTO;
}

/*
 * One load, shared by its caller and the worker.  The caller waits
 * killably; a caller that is killed leaves the load to the worker, which
 * frees it when the verifier is done.  @state says who frees it.  At most
 * one abandoned load is in flight: the next load waits for it first, so
 * repeated kills cannot pile up replies and verifier runs.
 */
enum {
	BPF_DP_LOAD_RUNNING,
	BPF_DP_LOAD_DONE,
	BPF_DP_LOAD_ABANDONED,
};

static atomic_t bpf_dp_abandoned = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(bpf_dp_abandoned_wq);

struct bpf_dp_load {
	struct work_struct work;
	struct completion done;
	atomic_t state;
	struct mem_cgroup *memcg;	/* the caller's, charged for it all */
	struct bpf_dp *dp;
	void *prog;			/* the helper's reply, owned */
	struct bpf_insn *insn;		/* in @prog */
	u32 n_insns;
	int ret;
};

static void bpf_dp_load_free(struct bpf_dp_load *ld)
{
	bpf_dp_free(ld->dp);
	kvfree(ld->prog);
	mem_cgroup_put(ld->memcg);
	kfree(ld);
}

static int bpf_dp_sys(int cmd, union bpf_attr *attr)
{
	return kern_sys_bpf(cmd, attr, sizeof(*attr));
}

static int bpf_dp_map_create(u32 type, u32 value_size, u32 max_entries,
			     u32 flags, const char *name)
{
	union bpf_attr attr = {
		.map_type = type,
		.key_size = sizeof(u32),
		.value_size = value_size,
		.max_entries = max_entries,
		.map_flags = flags,
	};

	strscpy(attr.map_name, name, sizeof(attr.map_name));
	return bpf_dp_sys(BPF_MAP_CREATE, &attr);
}

/*
 * Runs on bpf_dp_wq under bpf_dp_cred: fds go to the kthreads' table and
 * are closed before this returns.  What it allocates is charged to the
 * caller's memory cgroup.  Hands the load back to its caller, or frees it
 * if the caller is gone.
 */
static void bpf_dp_load_fn(struct work_struct *work)
{
	struct bpf_dp_load *ld = container_of(work, struct bpf_dp_load, work);
	static const char license[] = "GPL";
	struct bpf_dp *dp = ld->dp;
	int fds[BPFILTER_NR_MAPS] = { -1, -1 };
	struct mem_cgroup *old_memcg;
	const struct cred *old;
	union bpf_attr attr;
	struct bpf_prog *prog;
	int i, pfd = -1, ret;

	old = override_creds(bpf_dp_cred);
	old_memcg = set_active_memcg(ld->memcg);
	fds[BPFILTER_MAP_COUNTERS] =
		bpf_dp_map_create(BPF_MAP_TYPE_ARRAY,
				  dp->number * sizeof(struct xt_counters) +
				  BPFILTER_SCRATCH, nr_cpu_ids, 0,
				  "bpfilter_cnt");
	/*
	 * A ruleset without -i/-o never fills the interface map, and a hash
	 * map's buckets are allocated and initialised at creation: 65536 of
	 * them were most of replacing a small table.
	 */
	fds[BPFILTER_MAP_IFACES] =
		bpf_dp_map_create(BPF_MAP_TYPE_HASH, dp->words * sizeof(u64),
				  dp->n_ifaces ? max_devices : 1,
				  BPF_F_NO_PREALLOC, "bpfilter_if");
	ret = min(fds[0], fds[1]);
	if (ret < 0) {
		pr_err("creating the program's maps failed: %d\n", ret);
		goto out;
	}
	for (i = 0; i < BPFILTER_NR_MAPS; i++) {
		dp->maps[i] = bpf_map_get(fds[i]);
		if (IS_ERR(dp->maps[i])) {
			ret = PTR_ERR(dp->maps[i]);
			dp->maps[i] = NULL;
			goto out;
		}
	}
	ret = bpf_dp_check(ld->insn, ld->n_insns, fds);
	if (ret)
		goto out;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (u64)(unsigned long)ld->insn;
	attr.insn_cnt = ld->n_insns;
	attr.license = (u64)(unsigned long)license;
	strscpy(attr.prog_name, "bpfilter", sizeof(attr.prog_name));
	/* No log: the verifier takes log_buf as a user pointer. */
	pfd = bpf_dp_sys(BPF_PROG_LOAD, &attr);
	if (pfd < 0) {
		ret = pfd;
		pr_warn("the verifier refused the helper's program (%u instructions): %d\n",
			ld->n_insns, ret);
		goto out;
	}
	prog = bpf_prog_get_type_dev(pfd, BPF_PROG_TYPE_SOCKET_FILTER, false);
	if (IS_ERR(prog)) {
		ret = PTR_ERR(prog);
		goto out;
	}
	dp->prog = prog;
	ret = 0;
out:
	if (pfd >= 0)
		close_fd(pfd);
	for (i = 0; i < BPFILTER_NR_MAPS; i++)
		if (fds[i] >= 0)
			close_fd(fds[i]);
	set_active_memcg(old_memcg);
	revert_creds(old);
	ld->ret = ret;
	if (atomic_cmpxchg(&ld->state, BPF_DP_LOAD_RUNNING,
			   BPF_DP_LOAD_DONE) == BPF_DP_LOAD_ABANDONED) {
		pr_info("a load whose caller was killed ended (%u instructions): %d\n",
			ld->n_insns, ret);
		bpf_dp_load_free(ld);
		atomic_dec(&bpf_dp_abandoned);
		wake_up_all(&bpf_dp_abandoned_wq);
		return;
	}
	complete(&ld->done);
}

/**
 * bpf_dp_free() - release a ruleset that is not in force
 * @dp:	the ruleset (may be NULL)
 */
void bpf_dp_free(struct bpf_dp *dp)
{
	int i;

	if (!dp)
		return;
	if (READ_ONCE(bpf_dp_staged) == dp) {
		rtnl_lock();
		/* Another replace may have staged its own since. */
		if (bpf_dp_staged == dp)
			WRITE_ONCE(bpf_dp_staged, NULL);
		rtnl_unlock();
	}
	if (dp->prog)
		bpf_prog_put(dp->prog);
	for (i = 0; i < BPFILTER_NR_MAPS; i++)
		if (dp->maps[i])
			bpf_map_put(dp->maps[i]);
	kfree(dp->bits);
	kvfree(dp);
}

/**
 * bpf_dp_prog_cap() - reply room to ask the helper's program in first
 * @number:	entries of the table
 *
 * Enough for any program the sample's helper emits for a table this size;
 * a helper that needs more answers -EMSGSIZE and is asked again with
 * BPFILTER_MAX_PROG.
 *
 * Return: a size in bytes, at most BPFILTER_MAX_PROG.
 */
size_t bpf_dp_prog_cap(u32 number)
{
	u64 cap = sizeof(struct bpfilter_prog_hdr) +
		  (u64)min_t(u64, 2ULL * number, BPFILTER_MAX_IFACES) *
		  sizeof(struct bpfilter_iface) +
		  min_t(u64, 128ULL * number + 4096, BPFILTER_MAX_INSNS) *
		  sizeof(struct bpf_insn);

	return min_t(u64, cap, BPFILTER_MAX_PROG);
}

/**
 * bpf_dp_load() - check and load the program the helper compiled
 * @prog:	COMPILE's reply (struct bpfilter_prog_hdr and what follows),
 *		kvmalloc()ed; taken over and freed, its instructions patched
 *		in place first
 * @len:	bytes in @prog
 * @number:	entries of the table it was compiled for
 *
 * Waits for the verifier killably: a caller killed meanwhile gets -EINTR
 * at once, and the verifier's work is finished and thrown away in the
 * background (a log line when it ends; not counted).  A load abandoned so
 * is waited for, killably, before the next one starts.
 *
 * Context: process context, may sleep; not under RTNL.
 *
 * Return: the loaded ruleset, not yet in force; ERR_PTR(-EPROTO) for a
 * reply that breaks the contract (counted in programs_refused, as is a
 * program the verifier refuses: its errno), -ENOMEM, -EINTR.
 */
struct bpf_dp *bpf_dp_load(void *prog, size_t len, u32 number)
{
	struct bpfilter_prog_hdr hdr;
	struct bpf_dp_load *ld;
	struct bpf_dp *dp;
	size_t ifs_len;
	int ret;

	if (len < sizeof(hdr))
		goto proto;
	memcpy(&hdr, prog, sizeof(hdr));
	if (hdr.number != number || hdr.pad || !hdr.n_insns ||
	    hdr.n_insns > BPFILTER_MAX_INSNS ||
	    hdr.n_ifaces > BPFILTER_MAX_IFACES)
		goto proto;
	ifs_len = (size_t)hdr.n_ifaces * sizeof(struct bpfilter_iface);
	if (len != sizeof(hdr) + ifs_len +
		   (size_t)hdr.n_insns * sizeof(struct bpf_insn))
		goto proto;

	/*
	 * Under the caller's bpf_set_lock, so other commands wait too: for
	 * the rest of one verifier run at most, killably.
	 */
	if (wait_event_killable(bpf_dp_abandoned_wq,
				!atomic_read(&bpf_dp_abandoned))) {
		kvfree(prog);
		return ERR_PTR(-EINTR);
	}
	ld = kzalloc(sizeof(*ld), GFP_KERNEL_ACCOUNT);
	if (!ld) {
		kvfree(prog);
		return ERR_PTR(-ENOMEM);
	}
	ld->prog = prog;
	/* current's active memcg, else its mm's: what charges current */
	ld->memcg = get_mem_cgroup_from_mm(NULL);
	dp = kvzalloc(struct_size(dp, ifaces, hdr.n_ifaces), GFP_KERNEL_ACCOUNT);
	if (!dp) {
		bpf_dp_load_free(ld);
		return ERR_PTR(-ENOMEM);
	}
	ld->dp = dp;
	dp->number = number;
	dp->n_ifaces = hdr.n_ifaces;
	dp->words = BPFILTER_IFACE_WORDS(hdr.n_ifaces);
	memcpy(dp->ifaces, prog + sizeof(hdr), ifs_len);
	dp->bits = kcalloc(dp->words, sizeof(u64), GFP_KERNEL_ACCOUNT);
	if (!dp->bits) {
		bpf_dp_load_free(ld);
		return ERR_PTR(-ENOMEM);
	}

	ld->insn = prog + sizeof(hdr) + ifs_len;
	ld->n_insns = hdr.n_insns;
	init_completion(&ld->done);
	atomic_set(&ld->state, BPF_DP_LOAD_RUNNING);
	INIT_WORK(&ld->work, bpf_dp_load_fn);
	queue_work(bpf_dp_wq, &ld->work);
	if (wait_for_completion_killable(&ld->done)) {
		/* Counted first: the worker may free @ld as soon as we let go. */
		atomic_inc(&bpf_dp_abandoned);
		if (atomic_cmpxchg(&ld->state, BPF_DP_LOAD_RUNNING,
				   BPF_DP_LOAD_ABANDONED) == BPF_DP_LOAD_RUNNING) {
			/* @ld is the worker's now: not touched again. */
			pr_info("%s[%d] killed while its program (%u instructions) was being verified: the load finishes in the background\n",
				current->comm, task_pid_nr(current), hdr.n_insns);
			return ERR_PTR(-EINTR);
		}
		atomic_dec(&bpf_dp_abandoned);
		wake_up_all(&bpf_dp_abandoned_wq);
		/* Done as the signal came: complete() is on its way. */
		wait_for_completion(&ld->done);
	}
	ret = ld->ret;
	if (ret) {
		if (ret != -ENOMEM)
			programs_refused++;
		bpf_dp_load_free(ld);
		return ERR_PTR(ret);
	}
	programs_loaded++;
	ld->dp = NULL;
	bpf_dp_load_free(ld);
	return dp;

proto:
	pr_warn("helper program refused: a %zu-byte reply for a table of %u entries breaks the contract\n",
		len, number);
	programs_refused++;
	kvfree(prog);
	return ERR_PTR(-EPROTO);
}

/**
 * bpf_dp_refuse_size() - count a program the channel could not carry
 * @cap:	the largest reply the module accepts
 *
 * A helper whose program does not fit BPFILTER_MAX_PROG answers
 * -EMSGSIZE; that is a refused program too.
 */
void bpf_dp_refuse_size(size_t cap)
{
	pr_warn("helper program refused: larger than %zu bytes\n", cap);
	programs_refused++;
}

/* ---- counters ---- */

/*
 * Add the program's counts for entries [0, n) to @c: one block of
 * counters per CPU, summed.  The blocks are written by the program with
 * bottom halves off on their own CPU; readers take what is there.
 */
static void bpf_dp_sum(const struct bpf_dp *dp, struct xt_counters *c, u32 n)
{
	struct bpf_map *map = dp->maps[BPFILTER_MAP_COUNTERS];
	u32 cpu, i;

	n = min(n, dp->number);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		const struct xt_counters *v;

		rcu_read_lock();
		v = map->ops->map_lookup_elem(map, &cpu);
		for (i = 0; v && i < n; i++) {
			c[i].pcnt += READ_ONCE(v[i].pcnt);
			c[i].bcnt += READ_ONCE(v[i].bcnt);
		}
		rcu_read_unlock();
		cond_resched();
	}
}

/**
 * bpf_dp_stage() - ready a loaded ruleset to be put in force
 * @dp:		from bpf_dp_load()
 *
 * Fills @dp's interface map for the devices there are now, and keeps it
 * up to date as devices come, go and are renamed, until bpf_dp_install()
 * or bpf_dp_free().  Called with the module's set lock held, before the
 * helper is given the table, so that a ruleset whose devices cannot all
 * be stored is refused while nothing has changed.
 *
 * Return: 0, -ENOMEM, or -E2BIG if more devices match the ruleset's
 * interface patterns than max_devices.
 */
int bpf_dp_stage(struct bpf_dp *dp)
{
	struct net_device *dev;
	int err = 0;

	rtnl_lock();
	for_each_netdev(&init_net, dev) {
		/* Up to 4,096 patterns a device, for thousands of devices. */
		cond_resched();
		err = bpf_dp_dev_update(dp, dev);
		if (err) {
			pr_warn("ruleset refused: interface %s cannot be stored for its -i/-o patterns (%d; max_devices is %u)\n",
				dev->name, err, max_devices);
			break;
		}
	}
	if (!err)
		WRITE_ONCE(bpf_dp_staged, dp);
	rtnl_unlock();
	return err;
}

/**
 * bpf_dp_install() - put a ruleset in force
 * @dp:		from bpf_dp_stage()
 * @old:	the replaced table's counters; the packets the replaced
 *		program counted are added (may be NULL)
 * @n_old:	entries in @old; they are added only if the replaced
 *		program was compiled for that many
 *
 * Makes @dp the program every hook runs, waits until no CPU runs the old
 * one, then reads and frees it.  Called with the module's set lock held.
 */
void bpf_dp_install(struct bpf_dp *dp, struct xt_counters *old, u32 n_old)
{
	struct bpf_dp *prev;

	rtnl_lock();
	WARN_ON_ONCE(bpf_dp_staged != dp);
	WRITE_ONCE(bpf_dp_staged, NULL);
	prev = rcu_replace_pointer(bpf_dp_active, dp, lockdep_rtnl_is_held());
	rtnl_unlock();
	if (!prev)
		return;
	/*
	 * The replaced program's counters go back to the caller, so wait
	 * here for every CPU to leave it.  Expedited: a normal grace period
	 * was most of a replace (tens of ms, against the tens of us that
	 * ip_tables' per-CPU sequence counters cost), and a replace is an
	 * administrator's command, not a fast path that IPIs would tax.
	 */
	synchronize_rcu_expedited();
	if (old && prev->number == n_old)
		bpf_dp_sum(prev, old, n_old);
	bpf_dp_free(prev);
}

/**
 * bpf_dp_add_counters() - add the packets counted in force to GET_ENTRIES
 * @entries:	GET_ENTRIES' entries from the helper (not trusted)
 * @size:	bytes in @entries
 *
 * Called with the module's set lock held, so the table the helper has is
 * the one in force.
 *
 * Return: 0, or -EPROTO when the entries do not walk to the program's
 * number of entries.
 */
int bpf_dp_add_counters(void *entries, size_t size)
{
	const size_t coff = offsetof(struct ipt_entry, counters);
	struct xt_counters *sum;
	struct bpf_dp *dp;
	size_t off = 0;
	u32 i = 0;

	/* Only bpf_dp_install() changes it, under the same set lock. */
	dp = rcu_dereference_protected(bpf_dp_active, true);
	if (!dp)
		return 0;
	sum = kvcalloc(dp->number, sizeof(*sum), GFP_KERNEL_ACCOUNT);
	if (!sum)
		return -ENOMEM;
	bpf_dp_sum(dp, sum, dp->number);
	while (off < size) {
		struct ipt_entry e;

		if (size - off < sizeof(e) || i >= dp->number)
			break;
		memcpy(&e, entries + off, sizeof(e));
		if (e.next_offset < sizeof(e) || e.next_offset > size - off)
			break;
		e.counters.pcnt += sum[i].pcnt;
		e.counters.bcnt += sum[i].bcnt;
		memcpy(entries + off + coff, &e.counters, sizeof(e.counters));
		off += e.next_offset;
		i++;
	}
	kvfree(sum);
	if (off != size || i != dp->number) {
		pr_err("helper's entries do not walk to the %u of the program in force\n",
		       dp->number);
		return -EPROTO;
	}
	return 0;
}

/* ---- set up ---- */

static const struct cred *bpf_dp_make_cred(void)
{
	struct cred *c = prepare_kernel_cred(&init_task);

	if (!c)
		return NULL;
	cap_clear(c->cap_inheritable);
	cap_clear(c->cap_permitted);
	cap_clear(c->cap_effective);
	cap_clear(c->cap_bset);
	cap_clear(c->cap_ambient);
	cap_raise(c->cap_permitted, CAP_BPF);
	cap_raise(c->cap_effective, CAP_BPF);
	return c;
}

/**
 * bpf_dp_init() - set up loading and register the hooks
 *
 * The hooks pass every packet until the first bpf_dp_install().
 *
 * Return: 0 or a negative errno, with nothing left set up.
 */
int bpf_dp_init(void)
{
	int ret = -ENOMEM;

	if (!max_devices || max_devices > 65536) {
		pr_err("max_devices is %u: it must be 1..65536\n", max_devices);
		return -EINVAL;
	}
	bpf_dp_cred = bpf_dp_make_cred();
	if (!bpf_dp_cred)
		return -ENOMEM;
	bpf_dp_wq = alloc_ordered_workqueue("bpfilter_load", 0);
	if (!bpf_dp_wq)
		goto err_cred;
	ret = register_netdevice_notifier(&bpf_dp_netdev_nb);
	if (ret)
		goto err_wq;
	return 0;

err_wq:
	destroy_workqueue(bpf_dp_wq);
err_cred:
	put_cred(bpf_dp_cred);
	return ret;
}

/**
 * bpf_dp_hook_up() - start enforcing
 *
 * Return: 0 or the errno of nf_register_net_hooks().
 */
int bpf_dp_hook_up(void)
{
	int ret = nf_register_net_hooks(&init_net, bpf_dp_ops,
					ARRAY_SIZE(bpf_dp_ops));

	if (ret)
		pr_err("registering the netfilter hooks failed: %d\n", ret);
	else
		bpf_dp_hooked = true;
	return ret;
}

/**
 * bpf_dp_exit() - unregister the hooks and free the ruleset in force
 */
void bpf_dp_exit(void)
{
	struct bpf_dp *dp;

	if (bpf_dp_hooked)
		nf_unregister_net_hooks(&init_net, bpf_dp_ops,
					ARRAY_SIZE(bpf_dp_ops));
	bpf_dp_hooked = false;
	unregister_netdevice_notifier(&bpf_dp_netdev_nb);
	rtnl_lock();
	dp = rcu_replace_pointer(bpf_dp_active, NULL, lockdep_rtnl_is_held());
	rtnl_unlock();
	synchronize_net();
	bpf_dp_free(dp);
	destroy_workqueue(bpf_dp_wq);
	put_cred(bpf_dp_cred);
}
