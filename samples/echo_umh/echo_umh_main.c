// SPDX-License-Identifier: GPL-2.0
/*
 * echo_umh: the smallest complete umh-sdk module.
 *
 * It carries echo_umh_helper (a static user-space program) inside itself,
 * starts it at load time, and lets user space make typed calls to it
 * through /dev/echo_umh.  rmmod kills the helper.  The status view is in
 * /sys/module/echo_umh/umh_echo/.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/kthread.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <umh_sdk/umh_blob.h>

#include "echo_proto.h"
#include "echo_umh_uapi.h"

UMH_BLOB_DECLARE(echo_umh);

/* ECHO_IOC_ECHO payloads up to this size stay on the stack. */
#define ECHO_SMALL	256

static unsigned int timeout_ms = 2000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "default call timeout (ms)");

static unsigned int max_restarts = 5;
module_param(max_restarts, uint, 0444);
MODULE_PARM_DESC(max_restarts, "restarts allowed per restart window");

static unsigned int restart_window_ms = 60000;
module_param(restart_window_ms, uint, 0444);
MODULE_PARM_DESC(restart_window_ms, "restart window (ms)");

static struct umh_blob *echo_ub;

/* State the helper holds and the module keeps, to replay into new helpers. */
static DEFINE_MUTEX(echo_set_lock);	/* serialises tag changes */
static DEFINE_MUTEX(echo_tag_lock);	/* echo_tag */
static struct echo_tag echo_tag;

static struct {
	struct mutex lock;	/* threads[] */
	struct task_struct *threads[ECHO_MAX_STRESS];
	u32 sleep_ms;
} stress;

static long echo_ping(void __user *arg)
{
	struct echo_ioc_ping io;
	struct echo_ping req = {};
	struct echo_pong rep;
	int ret;

	if (copy_from_user(&io, arg, sizeof(io)))
		return -EFAULT;
	req.cookie = io.cookie;
	ret = echo_call_ping(echo_ub, &req, &rep);
	if (ret)
		return ret;
	if (rep.cookie != io.cookie)
		return -EPROTO;
	io.pid = rep.pid;
	io.served = rep.served;
	BUILD_BUG_ON(sizeof(io.tag) != sizeof(rep.tag));
	memcpy(io.tag, rep.tag, sizeof(io.tag));
	io.tag[sizeof(io.tag) - 1] = '\0';
	return copy_to_user(arg, &io, sizeof(io)) ? -EFAULT : 0;
}

static long echo_set_tag(void __user *arg)
{
	struct echo_ioc_tag io;
	struct echo_tag req = {}, rep;
	long ret;

	if (copy_from_user(&io, arg, sizeof(io)))
		return -EFAULT;
	BUILD_BUG_ON(sizeof(io.tag) != sizeof(req.tag));
	strscpy(req.tag, io.tag, sizeof(req.tag));
	/*
	 * One tag change at a time, so that the helper ends with the tag
	 * recorded last.  Record first, call after, without echo_tag_lock: a
	 * restart in between replays the new tag through on_start, which
	 * takes that lock (not echo_set_lock).
	 */
	ret = mutex_lock_killable(&echo_set_lock);
	if (ret)
		return ret;
	mutex_lock(&echo_tag_lock);
	echo_tag = req;
	mutex_unlock(&echo_tag_lock);
	ret = echo_call_tag(echo_ub, &req, &rep);
	mutex_unlock(&echo_set_lock);
	return ret;
}

/*
 * on_start: a new helper knows nothing; give it the state the old one had.
 * Runs before any other caller can reach the new helper.
 */
static int echo_on_start(struct umh_blob *ub, void *priv)
{
	struct echo_tag rep;
	int ret = 0;

	mutex_lock(&echo_tag_lock);
	if (echo_tag.tag[0])
		ret = echo_call_tag(ub, &echo_tag, &rep);
	mutex_unlock(&echo_tag_lock);
	return ret;
}

static long echo_add(void __user *arg)
{
	struct echo_ioc_add io;
	struct echo_add req;
	struct echo_sum rep;
	int ret;

	if (copy_from_user(&io, arg, sizeof(io)))
		return -EFAULT;
	req.a = io.a;
	req.b = io.b;
	ret = echo_call_add(echo_ub, &req, &rep);
	if (ret)
		return ret;
	io.sum = rep.sum;
	return copy_to_user(arg, &io, sizeof(io)) ? -EFAULT : 0;
}

static long echo_echo(void __user *arg)
{
	u8 small[ECHO_SMALL] __aligned(8);
	struct echo_ioc_echo io;
	size_t rep_len;
	void *buf;
	int ret;

	if (copy_from_user(&io, arg, sizeof(io)))
		return -EFAULT;
	if (io.len > ECHO_MAX)
		return -EMSGSIZE;
	/* A small payload needs no allocation (and no free) per call. */
	buf = io.len <= sizeof(small) ? small : kvmalloc(io.len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(buf, u64_to_user_ptr(io.buf), io.len))
		goto out;
	/* The reply overwrites the request: the helper sends it back. */
	ret = echo_call_echo(echo_ub, buf, io.len, buf, io.len, &rep_len);
	if (ret)
		goto out;
	io.rep_len = rep_len;
	ret = -EFAULT;
	if (copy_to_user(u64_to_user_ptr(io.buf), buf, rep_len) ||
	    copy_to_user(arg, &io, sizeof(io)))
		goto out;
	ret = 0;
out:
	if (buf != small)
		kvfree(buf);
	return ret;
}

static long echo_sleep(void __user *arg)
{
	struct echo_ioc_sleep io;
	struct echo_sleep req = {}, rep;

	if (copy_from_user(&io, arg, sizeof(io)))
		return -EFAULT;
	req.ms = io.ms;
	return echo_call_sleep_tmo(echo_ub, &req, &rep, io.timeout_ms);
}

static long echo_sink(void __user *arg)
{
	struct echo_ioc_sink io;
	struct echo_sink_rep rep;
	int ret;

	if (copy_from_user(&io, arg, sizeof(io)))
		return -EFAULT;
	if (io.len > UMH_DEFAULT_MAX_PAYLOAD)
		return -EMSGSIZE;
	/* Straight from the caller's buffer into the channel: one copy. */
	ret = umh_blob_call_user(echo_ub, ECHO_OP_SINK,
				 u64_to_user_ptr(io.buf), io.len, &rep,
				 sizeof(rep), NULL, io.timeout_ms);
	if (ret)
		return ret;
	if (rep.len != io.len)
		return -EPROTO;
	io.sum = rep.sum;
	return copy_to_user(arg, &io, sizeof(io)) ? -EFAULT : 0;
}

static long echo_bench(void __user *arg)
{
	struct echo_ioc_bench io;
	u64 __user *out;
	size_t rep_len;
	void *buf;
	u64 *ns;
	u32 i;
	int ret = 0;

	if (copy_from_user(&io, arg, sizeof(io)))
		return -EFAULT;
	if (io.size > ECHO_MAX || !io.iters || io.iters > ECHO_MAX_BENCH_ITERS)
		return -EINVAL;
	out = u64_to_user_ptr(io.ns_out);
	buf = kvzalloc(max(io.size, 1U), GFP_KERNEL);
	ns = kvmalloc_array(io.iters, sizeof(*ns), GFP_KERNEL);
	if (!buf || !ns) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < io.iters && !ret; i++) {
		u64 t0 = ktime_get_ns();

		ret = echo_call_echo(echo_ub, buf, io.size, buf, io.size,
				     &rep_len);
		ns[i] = ktime_get_ns() - t0;
		if (!ret && rep_len != io.size)
			ret = -EPROTO;
		if (fatal_signal_pending(current))
			ret = -EINTR;
	}
	if (!ret && copy_to_user(out, ns, io.iters * sizeof(*ns)))
		ret = -EFAULT;
out:
	kvfree(ns);
	kvfree(buf);
	return ret;
}

/*
 * A stress thread calls the helper until rmmod stops it; it stands for
 * the in-kernel users (hooks, workers) that are mid-call when the module
 * goes away, and reports what its last call returned.
 */
static int echo_stress_fn(void *data)
{
	unsigned long id = (unsigned long)data;
	u64 ok = 0, failed = 0;
	int ret, last = 0;

	while (!kthread_should_stop()) {
		struct echo_sleep req = { .ms = READ_ONCE(stress.sleep_ms) };
		struct echo_sleep rep;

		ret = echo_call_sleep(echo_ub, &req, &rep);
		if (ret) {
			failed++;
			last = ret;
			/* Stopped or down: wait for kthread_stop() quietly. */
			schedule_timeout_interruptible(HZ / 50);
		} else {
			ok++;
		}
	}
	pr_info("stress thread %lu: %llu calls answered, %llu failed, last error %d\n",
		id, ok, failed, last);
	return 0;
}

static long echo_stress(void __user *arg)
{
	struct echo_ioc_stress io;
	struct task_struct *t;
	unsigned long i;
	int ret = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&io, arg, sizeof(io)))
		return -EFAULT;
	if (io.threads > ECHO_MAX_STRESS)
		return -EINVAL;
	mutex_lock(&stress.lock);
	WRITE_ONCE(stress.sleep_ms, io.sleep_ms);
	for (i = 0; i < io.threads; i++) {
		if (stress.threads[i])
			continue;
		t = kthread_run(echo_stress_fn, (void *)i, "echo-stress/%lu", i);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		stress.threads[i] = t;
	}
	mutex_unlock(&stress.lock);
	return ret;
}

static long echo_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case ECHO_IOC_PING:
		return echo_ping(uarg);
	case ECHO_IOC_ADD:
		return echo_add(uarg);
	case ECHO_IOC_ECHO:
		return echo_echo(uarg);
	case ECHO_IOC_SLEEP:
		return echo_sleep(uarg);
	case ECHO_IOC_SINK:
		return echo_sink(uarg);
	case ECHO_IOC_STRESS:
		return echo_stress(uarg);
	case ECHO_IOC_TAG:
		return echo_set_tag(uarg);
	case ECHO_IOC_BENCH:
		return echo_bench(uarg);
	}
	return -ENOTTY;
}

static const struct file_operations echo_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = echo_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice echo_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "echo_umh",
	.fops = &echo_fops,
	.mode = 0600,
};

static void echo_stop_stress(void)
{
	int i;

	for (i = 0; i < ECHO_MAX_STRESS; i++)
		if (stress.threads[i])
			kthread_stop(stress.threads[i]);
}

static int __init echo_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "echo",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
		.call_timeout_ms = timeout_ms,
		.max_restarts = max_restarts,
		.restart_window_ms = restart_window_ms,
		.on_start = echo_on_start,
	};
	int ret;

	mutex_init(&stress.lock);
	echo_ub = umh_blob_create(&cfg, UMH_BLOB_DATA(echo_umh),
				  UMH_BLOB_SIZE(echo_umh));
	if (IS_ERR(echo_ub))
		return PTR_ERR(echo_ub);
	ret = umh_blob_start(echo_ub);
	if (ret)
		goto err;
	ret = misc_register(&echo_misc);
	if (ret)
		goto err;
	return 0;
err:
	umh_blob_destroy(echo_ub);
	return ret;
}

static void __exit echo_exit(void)
{
	/* Callers in flight get -ESHUTDOWN now, then go away. */
	umh_blob_stop(echo_ub);
	echo_stop_stress();
	misc_deregister(&echo_misc);
	umh_blob_destroy(echo_ub);
}

module_init(echo_init);
module_exit(echo_exit);
MODULE_DESCRIPTION("umh-sdk sample: a module that carries its echo helper");
MODULE_LICENSE("GPL");
