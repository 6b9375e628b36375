// SPDX-License-Identifier: GPL-2.0
/*
 * umh-sdk kernel side: the status view, /sys/module/<owner>/umh_<name>/.
 */
#define pr_fmt(fmt) "umh: " fmt

#include "umh_internal.h"

#define to_umh_blob(k) container_of(k, struct umh_blob, kobj)

static const char *const umh_state_names[] = {
	[UMH_BLOB_STOPPED] = "stopped",
	[UMH_BLOB_STARTING] = "starting",
	[UMH_BLOB_RUNNING] = "running",
	[UMH_BLOB_RESTARTING] = "restarting",
	[UMH_BLOB_FAILED] = "failed",
};

/*
 * What the running helper's confinement looks like from the kernel: the
 * same facts as NoNewPrivs, Seccomp and CapEff in /proc/<pid>/status, for
 * a quick look (and an alarm if "seccomp=off").
 */
static ssize_t umh_sandbox_show(struct umh_blob *ub, char *buf)
{
	struct task_struct *t = NULL;
	kernel_cap_t eff;
	int mode = 0;
	bool nnp;
	u64 caps = 0;
	int i;

	mutex_lock(&ub->lock);
	if (ub->proc && !READ_ONCE(ub->proc->dead) && ub->proc->task)
		t = get_task_struct(ub->proc->task);
	mutex_unlock(&ub->lock);
	if (!t)
		return sysfs_emit(buf, "none\n");
#ifdef CONFIG_SECCOMP
	mode = READ_ONCE(t->seccomp.mode);
#endif
	nnp = task_no_new_privs(t);
	rcu_read_lock();
	eff = __task_cred(t)->cap_effective;
	rcu_read_unlock();
	put_task_struct(t);
	/* kernel_cap_t is a u64 from 6.3, two u32 before. */
	for (i = 0; i <= CAP_LAST_CAP; i++)
		if (cap_raised(eff, i))
			caps |= 1ULL << i;
	return sysfs_emit(buf, "seccomp=%s no_new_privs=%d cap_eff=%016llx\n",
			  mode == SECCOMP_MODE_FILTER ? "filter" :
			  mode ? "other" : "off", nnp, caps);
}

/* Where the last successful start spent its time (enum umh_start_stage). */
static ssize_t umh_start_show(struct umh_blob *ub, char *buf)
{
	u32 us[UMH_START_NR];

	mutex_lock(&ub->lock);
	memcpy(us, ub->start_us, sizeof(us));
	mutex_unlock(&ub->lock);
	return sysfs_emit(buf,
			  "wait=%u teardown=%u fifos=%u reader=%u exec=%u hello=%u on_start=%u\n",
			  us[UMH_START_WAIT], us[UMH_START_TEARDOWN],
			  us[UMH_START_FIFOS], us[UMH_START_READER],
			  us[UMH_START_EXEC], us[UMH_START_HELLO],
			  us[UMH_START_ON_START]);
}

enum umh_status_kind {
	UMH_ST_ATOMIC64,	/* an atomic64_t counter */
	UMH_ST_ATOMIC,		/* an atomic_t counter */
	UMH_ST_UINT,		/* an unsigned int, read with READ_ONCE() */
	UMH_ST_INT,		/* an int, read with READ_ONCE() */
	UMH_ST_STATE,
	UMH_ST_PID,
	UMH_ST_SANDBOX,
	UMH_ST_PROTOCOL,
	UMH_ST_START,
};

/* One file of the status view: what it shows and where that lives. */
struct umh_status_attr {
	struct kobj_attribute attr;
	enum umh_status_kind kind;
	size_t off;		/* of the field in struct umh_blob */
};

static ssize_t umh_status_show(struct kobject *k, struct kobj_attribute *a,
			       char *buf)
{
	const struct umh_status_attr *sa =
		container_of(a, struct umh_status_attr, attr);
	struct umh_blob *ub = to_umh_blob(k);
	const void *field = (const char *)ub + sa->off;
	const struct umh_proto *proto = ub->cfg.proto;

	switch (sa->kind) {
	case UMH_ST_ATOMIC64:
		return sysfs_emit(buf, "%lld\n",
				  (long long)atomic64_read(field));
	case UMH_ST_ATOMIC:
		return sysfs_emit(buf, "%d\n", atomic_read(field));
	case UMH_ST_UINT:
		return sysfs_emit(buf, "%u\n",
				  READ_ONCE(*(const unsigned int *)field));
	case UMH_ST_INT:
		return sysfs_emit(buf, "%d\n", READ_ONCE(*(const int *)field));
	case UMH_ST_STATE:
		return sysfs_emit(buf, "%s\n",
				  umh_state_names[READ_ONCE(ub->state)]);
	case UMH_ST_PID:
		return sysfs_emit(buf, "%d\n", umh_blob_pid(ub));
	case UMH_ST_SANDBOX:
		return umh_sandbox_show(ub, buf);
	case UMH_ST_PROTOCOL:
		return sysfs_emit(buf, "%s %#x %u\n", proto->name, proto->id,
				  proto->version);
	case UMH_ST_START:
		return umh_start_show(ub, buf);
	}
	return -EINVAL;
}

#define UMH_STATUS(_name, _kind, _field)				\
	static struct umh_status_attr umh_status_##_name = {		\
		.attr = __ATTR(_name, 0444, umh_status_show, NULL),	\
		.kind = _kind,						\
		.off = offsetof(struct umh_blob, _field),		\
	}

UMH_STATUS(state, UMH_ST_STATE, state);
UMH_STATUS(pid, UMH_ST_PID, proc);
UMH_STATUS(restarts, UMH_ST_ATOMIC, restarts);
UMH_STATUS(generation, UMH_ST_UINT, gen);
UMH_STATUS(calls, UMH_ST_ATOMIC64, calls);
UMH_STATUS(failures, UMH_ST_ATOMIC64, failures);
UMH_STATUS(timeouts, UMH_ST_ATOMIC64, timeouts);
UMH_STATUS(violations, UMH_ST_ATOMIC64, violations);
UMH_STATUS(sandbox_kills, UMH_ST_ATOMIC64, sandbox_kills);
UMH_STATUS(sandbox, UMH_ST_SANDBOX, proc);
UMH_STATUS(last_error, UMH_ST_INT, last_error);
UMH_STATUS(protocol, UMH_ST_PROTOCOL, cfg);
UMH_STATUS(last_start_us, UMH_ST_START, start_us);
UMH_STATUS(create_us, UMH_ST_UINT, create_us);

static struct attribute *umh_attrs[] = {
	&umh_status_state.attr.attr,
	&umh_status_pid.attr.attr,
	&umh_status_restarts.attr.attr,
	&umh_status_generation.attr.attr,
	&umh_status_calls.attr.attr,
	&umh_status_failures.attr.attr,
	&umh_status_timeouts.attr.attr,
	&umh_status_violations.attr.attr,
	&umh_status_sandbox_kills.attr.attr,
	&umh_status_sandbox.attr.attr,
	&umh_status_last_error.attr.attr,
	&umh_status_protocol.attr.attr,
	&umh_status_last_start_us.attr.attr,
	&umh_status_create_us.attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(umh);

static void umh_blob_release(struct kobject *kobj)
{
	struct umh_blob *ub = to_umh_blob(kobj);

	kfree(ub->restart_at);
	kfree(ub);
}

/* The helper's kobject: its status view, and what frees it. */
const struct kobj_type umh_status_ktype = {
	.release = umh_blob_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = umh_groups,
};
