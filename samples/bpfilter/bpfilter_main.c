// SPDX-License-Identifier: GPL-2.0
/*
 * bpfilter: the iptables sockopt ABI, served by a user-mode helper.
 *
 * The module takes the IPv4 iptables sockopt range (the one ip_tables.ko
 * registers, so the two cannot be loaded together) and answers the
 * unmodified iptables-legacy binary.  It checks privilege and sizes, copies
 * every user buffer into the kernel, and forwards the bytes to its helper
 * through the typed RPC of bpfilter_proto.h; user addresses and pids never
 * leave the kernel.  The helper validates rulesets as strictly as
 * netfilter's translate_table() and keeps the filter table.
 *
 * The module keeps the last ruleset the helper accepted, with its counters,
 * and replays it into every restarted helper (on_start), so a helper crash
 * loses nothing.  Documentation/bpfilter.rst has the design.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sockptr.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include <umh_sdk/umh_blob.h>

#include "bpfilter_dp.h"
#include "bpfilter_proto.h"

UMH_BLOB_DECLARE(bpfilter);

/* The one table this sample serves. */
#define BPFILTER_TABLE		"filter"
/* x_tables.c's limit on a table's entries and offsets (private there). */
#define BPFILTER_XT_MAX_TABLE_SIZE	(512 * 1024 * 1024)

static unsigned int timeout_ms = 10000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "helper call timeout (ms)");

static unsigned int max_restarts = 5;
module_param(max_restarts, uint, 0444);
MODULE_PARM_DESC(max_restarts, "helper restarts allowed per restart window");

static unsigned int restart_window_ms = 60000;
module_param(restart_window_ms, uint, 0444);
MODULE_PARM_DESC(restart_window_ms, "restart window (ms)");

static struct umh_blob *bpf_ub;

/* Serialises the changing commands, as netfilter's table mutex does. */
static DEFINE_MUTEX(bpf_set_lock);

/*
 * struct bpf_state - the last ruleset the helper accepted, ready to replay
 * @ref:	held by bpf_state and by a replay in progress
 * @number:	entries in the table
 * @len:	bytes in @data
 * @data:	a RESTORE request: struct ipt_replace (num_counters ==
 *		@number), the entries, then @number counters
 */
struct bpf_state {
	struct kref ref;
	u32 number;
	size_t len;
	u8 data[];
};

/*
 * bpf_state is what a new helper is given: the helper's own initial table
 * (read once at load) until the first change.  bpf_starts counts helper
 * starts that took a replay snapshot.  Both under bpf_state_lock, which is
 * never held across a helper call.
 */
static DEFINE_MUTEX(bpf_state_lock);
static struct bpf_state *bpf_state;
static unsigned long bpf_starts;

static struct bpf_state *bpf_state_alloc(u32 number, size_t len)
{
	struct bpf_state *st;

	st = kvmalloc(struct_size(st, data, len), GFP_KERNEL_ACCOUNT);
	if (!st)
		return NULL;
	kref_init(&st->ref);
	st->number = number;
	st->len = len;
	return st;
}

static void bpf_state_release(struct kref *ref)
{
	kvfree(container_of(ref, struct bpf_state, ref));
}

static void bpf_state_put(struct bpf_state *st)
{
	if (st)
		kref_put(&st->ref, bpf_state_release);
}

static struct xt_counters *bpf_state_counters(struct bpf_state *st)
{
	return (struct xt_counters *)(st->data + st->len -
				      st->number * sizeof(struct xt_counters));
}

static struct bpf_state *bpf_state_get(unsigned long *starts)
{
	struct bpf_state *st;

	mutex_lock(&bpf_state_lock);
	st = bpf_state;
	if (st)
		kref_get(&st->ref);
	if (starts)
		*starts = bpf_starts;
	mutex_unlock(&bpf_state_lock);
	return st;
}

static int bpf_restore(struct umh_blob *ub, struct bpf_state *st)
{
	struct bpfilter_ack ack;
	int ret;

	ret = bpfilter_call_restore_tmo(ub, st->data, st->len, &ack,
					timeout_ms);
	if (!ret && ack.number != st->number) {
		pr_err("helper restored %u entries, not %u\n", ack.number,
		       st->number);
		ret = -EPROTO;
	}
	return ret;
}

/*
 * on_start: give a new helper the ruleset the old one had.  No other
 * caller reaches the helper until this returns.
 */
static int bpf_on_start(struct umh_blob *ub, void *priv)
{
	struct bpf_state *st;
	int ret;

	mutex_lock(&bpf_state_lock);
	bpf_starts++;
	st = bpf_state;
	if (st)
		kref_get(&st->ref);
	mutex_unlock(&bpf_state_lock);
	if (!st)
		return 0;
	ret = bpf_restore(ub, st);
	if (ret)
		pr_err("replaying %u entries into the new helper failed: %d\n",
		       st->number, ret);
	bpf_state_put(st);
	return ret;
}

/*
 * Give the helper the state the module holds: after a restart that may
 * have replayed an older state, or after the helper broke the protocol
 * in the middle of a change it may have applied.  A helper that refuses
 * it while it runs on would go on answering from a table that is not
 * the one in force: it is replaced, and the new one's on_start replays
 * the module's state.  (One that is gone or timed out is being restarted
 * already, and the helper that runs next has the state from on_start.)
 */
static void bpf_resync(void)
{
	struct bpf_state *st = bpf_state_get(NULL);
	pid_t pid = umh_blob_pid(bpf_ub);
	int ret;

	ret = bpf_restore(bpf_ub, st);
	if (ret) {
		pr_err("putting the ruleset back into the helper failed: %d\n",
		       ret);
		umh_blob_restart(bpf_ub, pid,
				 "its ruleset is not the one in force");
	}
	bpf_state_put(st);
}

/*
 * Make @st the state to replay, after the helper accepted it.  A helper
 * that started since @starts may have been given the previous state: give
 * it this one.  Called under bpf_set_lock, so @st stays the current state.
 * The change is made: whatever the resync does, the caller is told so.
 */
static void bpf_commit(struct bpf_state *st, unsigned long starts)
{
	struct bpf_state *old;
	bool raced;

	mutex_lock(&bpf_state_lock);
	old = bpf_state;
	bpf_state = st;
	raced = bpf_starts != starts;
	mutex_unlock(&bpf_state_lock);
	bpf_state_put(old);
	if (raced)
		bpf_resync();
}

/*
 * Have the helper compile the table in @req (a REPLACE request) and load
 * its program; the helper's table stays as it was.
 */
static struct bpf_dp *bpf_compile(const void *req, size_t len, u32 number)
{
	size_t cap = bpf_dp_prog_cap(number), rep_len;
	struct bpf_dp *dp;
	void *buf;
	int ret;

	for (;;) {
		buf = kvmalloc(cap, GFP_KERNEL_ACCOUNT);
		if (!buf)
			return ERR_PTR(-ENOMEM);
		ret = bpfilter_call_compile_tmo(bpf_ub, req, len, buf, cap,
						&rep_len, timeout_ms);
		if (ret != -EMSGSIZE || cap == BPFILTER_MAX_PROG)
			break;
		/* Larger than the first guess: ask again with room for any. */
		kvfree(buf);
		cap = BPFILTER_MAX_PROG;
	}
	if (ret == -EMSGSIZE) {
		bpf_dp_refuse_size(cap);
		ret = -E2BIG;
	}
	if (ret) {
		kvfree(buf);
		return ERR_PTR(ret);
	}
	dp = bpf_dp_load(buf, rep_len, number);	/* frees buf */
	/* A verifier refusal is not the caller's missing privilege. */
	if (dp == ERR_PTR(-EACCES) || dp == ERR_PTR(-EPERM))
		dp = ERR_PTR(-EINVAL);
	return dp;
}

/* IPT_SO_SET_REPLACE: checks in the order of netfilter's do_replace(). */
static int bpf_replace(sockptr_t arg, unsigned int len)
{
	struct xt_counters __user *ucounters;
	struct bpf_dp *dp = NULL;
	struct xt_counters *old;
	struct ipt_replace tmp;
	struct bpf_state *st;
	unsigned long starts;
	size_t req_len, cap, rep_len;
	int ret;

	if (len < sizeof(tmp))
		return -EINVAL;
	if (copy_from_sockptr(&tmp, arg, sizeof(tmp)))
		return -EFAULT;
	if (tmp.num_counters >= INT_MAX / sizeof(struct xt_counters))
		return -ENOMEM;
	if (tmp.num_counters == 0 || (u64)len < (u64)tmp.size + sizeof(tmp))
		return -EINVAL;
	if (tmp.size > BPFILTER_MAX_TABLE) {
		pr_warn_ratelimited("%s[%d]: replace of %u bytes: the limit is %u\n",
				    current->comm, task_pid_nr(current),
				    tmp.size, BPFILTER_MAX_TABLE);
		return -ENOMEM;
	}
	/*
	 * translate_table() cannot allocate offsets for that many entries
	 * (-ENOMEM); fewer that still do not fit in size end in -EINVAL.
	 */
	if (tmp.num_entries > BPFILTER_XT_MAX_TABLE_SIZE / sizeof(unsigned int))
		return -ENOMEM;
	if (tmp.num_entries > tmp.size / BPFILTER_MIN_ENTRY)
		return -EINVAL;
	tmp.name[sizeof(tmp.name) - 1] = '\0';
	ucounters = tmp.counters;
	tmp.counters = NULL;

	/*
	 * The request is sent out of the buffer that becomes the replay
	 * state, so nothing can fail once the helper has said yes.
	 */
	req_len = sizeof(tmp) + tmp.size;
	st = bpf_state_alloc(tmp.num_entries, req_len +
			     (size_t)tmp.num_entries * sizeof(struct xt_counters));
	/*
	 * No table has more entries than BPFILTER_MAX_ENTRIES: with more
	 * counters the helper can only refuse (-EAGAIN, as netfilter does
	 * for a count that differs from the table's), so no reply room.
	 */
	cap = 0;
	old = NULL;
	if (tmp.num_counters <= BPFILTER_MAX_ENTRIES) {
		cap = (size_t)tmp.num_counters * sizeof(struct xt_counters);
		old = kvmalloc(cap, GFP_KERNEL_ACCOUNT);
	}
	ret = -ENOMEM;
	if (!st || (cap && !old))
		goto out;
	memcpy(st->data, &tmp, sizeof(tmp));
	memset(st->data + req_len, 0, st->len - req_len);
	ret = -EFAULT;
	if (copy_from_sockptr_offset(st->data + sizeof(tmp), arg, sizeof(tmp),
				     tmp.size))
		goto out;

	/* Killable: the holder may wait up to two calls' timeouts. */
	ret = mutex_lock_killable(&bpf_set_lock);
	if (ret)
		goto out;
	mutex_lock(&bpf_state_lock);
	starts = bpf_starts;
	mutex_unlock(&bpf_state_lock);
	/*
	 * The new program is loaded before the helper takes the table, so a
	 * table whose program cannot be loaded leaves everything as it was.
	 */
	dp = bpf_compile(st->data, req_len, tmp.num_entries);
	if (IS_ERR(dp)) {
		ret = PTR_ERR(dp);
		dp = NULL;
		goto out_unlock;
	}
	ret = bpf_dp_stage(dp);
	if (ret)
		goto out_unlock;
	ret = bpfilter_call_replace_tmo(bpf_ub, st->data, req_len, old, cap,
					&rep_len, timeout_ms);
	if (!ret && (!cap || rep_len != cap)) {
		pr_err("helper accepted a replace but returned %zu bytes of old counters, not %zu\n",
		       rep_len, cap);
		bpf_resync();
		ret = -EPROTO;
	}
	if (!ret) {
		/*
		 * In force once this returns; the old program's packets are
		 * added to the counters the caller gets back.
		 */
		bpf_dp_install(dp, old, tmp.num_counters);
		dp = NULL;
		/* Replay form: counters for the new entries, all zero. */
		((struct ipt_replace *)st->data)->num_counters = st->number;
		bpf_commit(st, starts);
		st = NULL;
	}
out_unlock:
	mutex_unlock(&bpf_set_lock);
	bpf_dp_free(dp);
	/* Like netfilter: the new table is in place, a bad pointer is silent. */
	if (!ret && copy_to_user(ucounters, old, cap))
		net_warn_ratelimited("%s: counters copy to user failed while replacing table\n",
				     KBUILD_MODNAME);
out:
	kvfree(old);
	bpf_state_put(st);
	return ret;
}

/* IPT_SO_SET_ADD_COUNTERS: checks in the order of xt_copy_counters(). */
static int bpf_add_counters(sockptr_t arg, unsigned int len)
{
	struct xt_counters_info tmp;
	struct xt_counters *add, *ctr;
	struct bpfilter_ack ack;
	struct bpf_state *cur = NULL, *st = NULL;
	unsigned long starts;
	void *req;
	u32 i;
	int ret;

	if (len <= sizeof(tmp))
		return -EINVAL;
	if (copy_from_sockptr(&tmp, arg, sizeof(tmp)))
		return -EFAULT;
	tmp.name[sizeof(tmp.name) - 1] = '\0';
	if ((u64)tmp.num_counters * sizeof(struct xt_counters) !=
	    (u64)len - sizeof(tmp))
		return -EINVAL;
	/* No table has that many entries: netfilter's number check fails. */
	if (tmp.num_counters > BPFILTER_MAX_ENTRIES)
		return strcmp(tmp.name, BPFILTER_TABLE) ? -ENOENT : -EINVAL;

	req = kvmalloc(len, GFP_KERNEL_ACCOUNT);
	if (!req)
		return -ENOMEM;
	memcpy(req, &tmp, sizeof(tmp));
	ret = -EFAULT;
	if (copy_from_sockptr_offset(req + sizeof(tmp), arg, sizeof(tmp),
				     len - sizeof(tmp)))
		goto out;
	add = req + sizeof(tmp);

	ret = mutex_lock_killable(&bpf_set_lock);
	if (ret)
		goto out;
	/* The replay state gets the same additions, in a copy. */
	cur = bpf_state_get(&starts);
	if (cur->number == tmp.num_counters) {
		ret = -ENOMEM;
		st = bpf_state_alloc(cur->number, cur->len);
		if (!st)
			goto out_unlock;
		memcpy(st->data, cur->data, cur->len);
	}
	ret = bpfilter_call_add_counters_tmo(bpf_ub, req, len, &ack,
					     timeout_ms);
	if (ret)
		goto out_unlock;
	if (!st || ack.number != st->number) {
		pr_err("helper added %u counters to a table of %u entries\n",
		       tmp.num_counters, cur->number);
		bpf_resync();
		ret = -EPROTO;
		goto out_unlock;
	}
	ctr = bpf_state_counters(st);
	for (i = 0; i < st->number; i++) {
		ctr[i].pcnt += add[i].pcnt;
		ctr[i].bcnt += add[i].bcnt;
	}
	bpf_commit(st, starts);
	st = NULL;
out_unlock:
	mutex_unlock(&bpf_set_lock);
out:
	bpf_state_put(cur);
	bpf_state_put(st);
	kvfree(req);
	return ret;
}

/* IPT_SO_GET_INFO */
static int bpf_get_info(void __user *user, int *len)
{
	struct ipt_getinfo req = {}, rep;
	int ret;

	if (*len != sizeof(req))
		return -EINVAL;
	if (copy_from_user(req.name, user, sizeof(req.name)))
		return -EFAULT;
	req.name[sizeof(req.name) - 1] = '\0';
	ret = bpfilter_call_get_info_tmo(bpf_ub, &req, &rep, timeout_ms);
	if (ret)
		return ret;
	/* Only the numbers come from the helper; the name is the caller's. */
	strscpy_pad(rep.name, req.name, sizeof(rep.name));
	return copy_to_user(user, &rep, sizeof(rep)) ? -EFAULT : 0;
}

/* IPT_SO_GET_ENTRIES */
static int bpf_get_entries(struct ipt_get_entries __user *uptr, int *len)
{
	struct ipt_get_entries get;
	size_t cap, rep_len;
	void *buf = NULL;
	int ret;

	if (*len < sizeof(get))
		return -EINVAL;
	if (copy_from_user(&get, uptr, sizeof(get)))
		return -EFAULT;
	if (*len != sizeof(get) + get.size)
		return -EINVAL;
	get.name[sizeof(get.name) - 1] = '\0';
	/*
	 * No table is larger than BPFILTER_MAX_TABLE, so the helper answers
	 * a larger size with -EAGAIN (or -ENOENT) without sending entries.
	 */
	cap = get.size <= BPFILTER_MAX_TABLE ? get.size : 0;
	if (cap) {
		buf = kvmalloc(cap, GFP_KERNEL_ACCOUNT);
		if (!buf)
			return -ENOMEM;
	}
	/*
	 * Under the set lock, as netfilter holds its table mutex: the table
	 * the helper returns is the one whose program counts in force.
	 */
	ret = mutex_lock_killable(&bpf_set_lock);
	if (ret)
		goto out;
	ret = bpfilter_call_get_entries_tmo(bpf_ub, &get, buf, cap, &rep_len,
					    timeout_ms);
	if (!ret && rep_len != get.size) {
		pr_err("helper returned %zu bytes of entries, not %u\n",
		       rep_len, get.size);
		ret = -EPROTO;
	}
	if (!ret)
		ret = bpf_dp_add_counters(buf, rep_len);
	mutex_unlock(&bpf_set_lock);
	if (!ret && copy_to_user(uptr->entrytable, buf, rep_len))
		ret = -EFAULT;
out:
	kvfree(buf);
	return ret;
}

/* IPT_SO_GET_REVISION_MATCH and IPT_SO_GET_REVISION_TARGET */
static int bpf_get_revision(void __user *user, int *len, bool target)
{
	struct bpfilter_rev_req req = {};
	struct bpfilter_rev_rep rep;
	struct xt_get_revision rev;
	int ret;

	if (*len != sizeof(rev))
		return -EINVAL;
	if (copy_from_user(&rev, user, sizeof(rev)))
		return -EFAULT;
	BUILD_BUG_ON(sizeof(req.name) != sizeof(rev.name));
	strscpy_pad(req.name, rev.name, sizeof(req.name));
	req.revision = rev.revision;
	req.target = target;
	ret = bpfilter_call_get_revision_tmo(bpf_ub, &req, &rep, timeout_ms);
	if (ret)
		return ret;
	if (rep.revision < 0 || rep.revision > U8_MAX) {
		pr_err("helper answered revision %d for %s\n", rep.revision,
		       req.name);
		return -EPROTO;
	}
	/* Like netfilter: the best revision is getsockopt()'s return value. */
	return rep.revision;
}

/* Privilege first, like ip_tables; then the namespace this sample serves. */
static int bpf_check_caller(struct sock *sk)
{
	struct net *net = sock_net(sk);

	if (!ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	/* The structures' 32-bit layouts are not translated. */
	if (in_compat_syscall()) {
		pr_info_ratelimited("%s[%d]: 32-bit callers are not supported\n",
				    current->comm, task_pid_nr(current));
		return -EOPNOTSUPP;
	}
	if (!net_eq(net, &init_net)) {
		pr_info_ratelimited("%s[%d]: only the initial network namespace is served\n",
				    current->comm, task_pid_nr(current));
		return -EOPNOTSUPP;
	}
	return 0;
}

static int bpf_set_ctl(struct sock *sk, int cmd, sockptr_t arg,
		       unsigned int len)
{
	int ret = bpf_check_caller(sk);

	if (ret)
		return ret;
	switch (cmd) {
	case IPT_SO_SET_REPLACE:
		return bpf_replace(arg, len);
	case IPT_SO_SET_ADD_COUNTERS:
		return bpf_add_counters(arg, len);
	default:
		return -EINVAL;
	}
}

static int bpf_get_ctl(struct sock *sk, int cmd, void __user *user, int *len)
{
	int ret = bpf_check_caller(sk);

	if (ret)
		return ret;
	switch (cmd) {
	case IPT_SO_GET_INFO:
		return bpf_get_info(user, len);
	case IPT_SO_GET_ENTRIES:
		return bpf_get_entries(user, len);
	case IPT_SO_GET_REVISION_MATCH:
		return bpf_get_revision(user, len, false);
	case IPT_SO_GET_REVISION_TARGET:
		return bpf_get_revision(user, len, true);
	default:
		return -EINVAL;
	}
}

static struct nf_sockopt_ops bpf_sockopts = {
	.pf		= PF_INET,
	.set_optmin	= IPT_BASE_CTL,
	.set_optmax	= IPT_SO_SET_MAX + 1,
	.set		= bpf_set_ctl,
	.get_optmin	= IPT_BASE_CTL,
	.get_optmax	= IPT_SO_GET_MAX + 1,
	.get		= bpf_get_ctl,
	.owner		= THIS_MODULE,
};

/*
 * /proc/net/ip_tables_names, in every network namespace: iptables-legacy-save
 * lists the tables to dump from it, and iptables-legacy runs "modprobe
 * ip_tables" where it is missing.  Other namespaces list the table too, so
 * that their callers get this module's error rather than a module load.
 */
static int bpf_names_show(struct seq_file *m, void *v)
{
	seq_puts(m, BPFILTER_TABLE "\n");
	return 0;
}

static int __net_init bpf_net_init(struct net *net)
{
	if (!proc_create_single("ip_tables_names", 0440, net->proc_net,
				bpf_names_show))
		return -ENOMEM;
	return 0;
}

static void __net_exit bpf_net_exit(struct net *net)
{
	remove_proc_entry("ip_tables_names", net->proc_net);
}

static struct pernet_operations bpf_net_ops = {
	.init = bpf_net_init,
	.exit = bpf_net_exit,
};

static bool bpf_net_registered;

/*
 * Read the helper's initial table (the one iptable_filter would create),
 * so that even counters added to it survive a helper restart.
 */
static int __init bpf_state_init(void)
{
	struct ipt_getinfo req = { .name = BPFILTER_TABLE }, info;
	struct ipt_get_entries get = { .name = BPFILTER_TABLE };
	struct ipt_replace *repl;
	struct bpf_state *st;
	size_t len, rep_len;
	int ret;

	ret = bpfilter_call_get_info_tmo(bpf_ub, &req, &info, timeout_ms);
	if (ret)
		return ret;
	if (info.size > BPFILTER_MAX_TABLE ||
	    info.num_entries > info.size / BPFILTER_MIN_ENTRY)
		return -EPROTO;
	len = sizeof(*repl) + info.size +
	      (size_t)info.num_entries * sizeof(struct xt_counters);
	st = bpf_state_alloc(info.num_entries, len);
	if (!st)
		return -ENOMEM;
	memset(st->data, 0, len);
	repl = (struct ipt_replace *)st->data;
	strscpy(repl->name, BPFILTER_TABLE, sizeof(repl->name));
	repl->valid_hooks = info.valid_hooks;
	repl->num_entries = info.num_entries;
	repl->size = info.size;
	memcpy(repl->hook_entry, info.hook_entry, sizeof(repl->hook_entry));
	memcpy(repl->underflow, info.underflow, sizeof(repl->underflow));
	repl->num_counters = info.num_entries;
	get.size = info.size;
	ret = bpfilter_call_get_entries_tmo(bpf_ub, &get, repl->entries,
					    info.size, &rep_len, timeout_ms);
	if (!ret && rep_len != info.size)
		ret = -EPROTO;
	if (ret) {
		bpf_state_put(st);
		return ret;
	}
	/* Replays carry the counters separately; the entries' own are 0. */
	mutex_lock(&bpf_state_lock);
	bpf_state = st;
	mutex_unlock(&bpf_state_lock);
	return 0;
}

/*
 * Enforce the initial table (its policies count packets too), then hook:
 * from here on every packet meets a program.
 */
static int __init bpf_enforce_initial(void)
{
	const struct ipt_replace *repl = (const void *)bpf_state->data;
	struct bpf_dp *dp;
	int ret;

	dp = bpf_compile(bpf_state->data, sizeof(*repl) + repl->size,
			 bpf_state->number);
	if (IS_ERR(dp)) {
		pr_err("loading the initial table's program failed: %ld\n",
		       PTR_ERR(dp));
		return PTR_ERR(dp);
	}
	ret = bpf_dp_stage(dp);
	if (ret) {
		bpf_dp_free(dp);
		return ret;
	}
	bpf_dp_install(dp, NULL, 0);
	return bpf_dp_hook_up();
}

static int __init bpfilter_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "bpfilter",
		.owner = THIS_MODULE,
		.proto = &bpfilter_umh_proto,
		.call_timeout_ms = timeout_ms,
		.max_payload = BPFILTER_MAX_PAYLOAD,
		.max_restarts = max_restarts,
		.restart_window_ms = restart_window_ms,
		.on_start = bpf_on_start,
	};
	int ret;

	bpf_ub = umh_blob_create(&cfg, UMH_BLOB_DATA(bpfilter),
				 UMH_BLOB_SIZE(bpfilter));
	if (IS_ERR(bpf_ub))
		return PTR_ERR(bpf_ub);
	ret = umh_blob_start(bpf_ub);
	if (ret)
		goto err_destroy;
	ret = bpf_state_init();
	if (ret) {
		pr_err("reading the helper's initial table failed: %d\n", ret);
		goto err_destroy;
	}
	ret = bpf_dp_init();
	if (ret)
		goto err_destroy;
	ret = bpf_enforce_initial();
	if (ret)
		goto err_dp;
	/*
	 * The sockopt range last of what can fail: once it is registered,
	 * callers may be in the handlers (nf_sockopt_find() takes a module
	 * reference while the module is still loading), and a failed init
	 * would free the module under them.  If ip_tables holds the range,
	 * its proc files exist too, and creating ours before would trip the
	 * kernel's duplicate entry warning; so they come after, and the
	 * module serves the sockopts without them if they cannot be made.
	 */
	ret = nf_register_sockopt(&bpf_sockopts);
	if (ret) {
		if (ret == -EBUSY)
			pr_err("the iptables sockopt range is taken: unload ip_tables first\n");
		else
			pr_err("nf_register_sockopt failed: %d\n", ret);
		goto err_dp;
	}
	ret = register_pernet_subsys(&bpf_net_ops);
	if (ret)
		pr_err("cannot create /proc/net/ip_tables_names: %d; iptables-legacy-save will find no table\n",
		       ret);
	bpf_net_registered = !ret;
	pr_info("serving the iptables filter table (helper pid %d)\n",
		umh_blob_pid(bpf_ub));
	return 0;

err_dp:
	bpf_dp_exit();
err_destroy:
	umh_blob_destroy(bpf_ub);
	bpf_state_put(bpf_state);
	bpf_state = NULL;
	return ret;
}

static void __exit bpfilter_exit(void)
{
	/* Callers hold a module reference: none is in flight after this. */
	if (bpf_net_registered)
		unregister_pernet_subsys(&bpf_net_ops);
	nf_unregister_sockopt(&bpf_sockopts);
	bpf_dp_exit();
	umh_blob_destroy(bpf_ub);
	bpf_state_put(bpf_state);
	bpf_state = NULL;
}

module_init(bpfilter_init);
module_exit(bpfilter_exit);
MODULE_DESCRIPTION("iptables filter table served by an embedded user-mode helper and enforced with BPF");
MODULE_LICENSE("GPL");
