// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle: a module for the life-cycle tests (tests/guest/lifecycle_tests.sh).
 * Its helper (lifecycle_helper.c) speaks the echo protocol and reads, when
 * it starts, the parameters hello_delay_ms (sleep that long before the
 * handshake) and flood_children (fork that many children that write to the
 * inherited stderr forever).  /dev/lifecycle_umh pings the helper and, for
 * a module loaded with start=0, calls umh_blob_start() from many kernel
 * threads at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched/task.h>
#include <linux/uaccess.h>

#include <umh_sdk/umh_blob.h>

#include "../../samples/echo_umh/echo_proto.h"
#include "lifecycle_uapi.h"

UMH_BLOB_DECLARE(lifecycle);

static bool start = true;
module_param(start, bool, 0444);
MODULE_PARM_DESC(start, "start the helper at insmod");
static unsigned int max_restarts = 5;
module_param(max_restarts, uint, 0444);
static unsigned int backoff_min_ms = 10;
module_param(backoff_min_ms, uint, 0444);
static unsigned int health_ms;
module_param(health_ms, uint, 0444);
MODULE_PARM_DESC(health_ms, "health_interval_ms (0: no health pings)");
/* Read by the helper each time it starts, so tests may change them. */
static unsigned int hello_delay_ms;
module_param(hello_delay_ms, uint, 0644);
static unsigned int flood_children;
module_param(flood_children, uint, 0644);

static struct umh_blob *ub;

/*
 * Widen the window of the concurrent-start race: the first thread that
 * enters umh_do_start() (this module's copy, after umh_blob_start() has
 * checked the state) busy-waits there for 200 ms, so that another thread
 * can run its check meanwhile.  A test aid only: if the symbol is not
 * there (inlined, renamed), the threads race unaided.
 */
static atomic_t lc_delay_once;
static atomic_t lc_in_delay;	/* a starter is in that wait now */

static int lc_widen_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (atomic_dec_if_positive(&lc_delay_once) >= 0) {
		atomic_set(&lc_in_delay, 1);
		mdelay(200);
		atomic_set(&lc_in_delay, 0);
	}
	return 0;
}

struct lc_start_ctx {
	int go;
	atomic_t ready;
	int ret[LC_MAX_THREADS];
};

struct lc_starter {
	struct lc_start_ctx *ctx;
	unsigned int i;
};

static int lc_start_fn(void *data)
{
	struct lc_starter *s = data;

	atomic_inc(&s->ctx->ready);
	/*
	 * Spin rather than sleep: woken by a completion, the threads would
	 * reach umh_blob_start() one IPI apart, which is an eternity under
	 * TCG; spinning, the one on each CPU goes at the same instant.
	 */
	/* pairs with the release in lc_start_many() */
	while (!smp_load_acquire(&s->ctx->go)) {
		cpu_relax();
		cond_resched();
	}
	s->ctx->ret[s->i] = umh_blob_start(ub);
	return 0;
}

/* Release all threads at once into umh_blob_start(), count the results. */
static long lc_start_many(struct lc_ioc_start *io)
{
	struct lc_starter st[LC_MAX_THREADS];
	struct task_struct *t[LC_MAX_THREADS];
	struct lc_start_ctx ctx;
	unsigned int i, n = io->threads, cpu = 0;
	int tries;

	struct kprobe kp = {
		.symbol_name = KBUILD_MODNAME ":umh_do_start",
		.pre_handler = lc_widen_pre,
	};
	bool probed;

	if (!n || n > LC_MAX_THREADS)
		return -EINVAL;
	atomic_set(&lc_delay_once, 1);
	probed = !register_kprobe(&kp);
	if (!probed)
		pr_info("no kprobe on umh_do_start: the threads race unaided\n");
	ctx.go = 0;
	atomic_set(&ctx.ready, 0);
	for (i = 0; i < n; i++) {
		st[i].ctx = &ctx;
		st[i].i = i;
		ctx.ret[i] = -ECANCELED;	/* never ran */
		t[i] = kthread_create(lc_start_fn, &st[i], "lc-start/%u", i);
		if (IS_ERR(t[i])) {
			long err = PTR_ERR(t[i]);

			/* pairs with the acquire in lc_start_fn() */
			smp_store_release(&ctx.go, 1);
			while (i--) {
				kthread_stop(t[i]);
				put_task_struct(t[i]);
			}
			if (probed)
				unregister_kprobe(&kp);
			return err;
		}
		get_task_struct(t[i]);
		/* spread them over the CPUs */
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		kthread_bind(t[i], cpu);
		wake_up_process(t[i]);
	}
	for (tries = 0; atomic_read(&ctx.ready) < n && tries < 5000; tries++)
		usleep_range(1000, 2000);
	/* go: pairs with the acquire in lc_start_fn() */
	smp_store_release(&ctx.go, 1);
	io->started = 0;
	io->busy = 0;
	io->other = 0;
	io->other_err = 0;
	for (i = 0; i < n; i++) {
		kthread_stop(t[i]);
		put_task_struct(t[i]);
		if (!ctx.ret[i]) {
			io->started++;
		} else if (ctx.ret[i] == -EBUSY) {
			io->busy++;
		} else {
			io->other++;
			io->other_err = ctx.ret[i];
		}
	}
	if (probed)
		unregister_kprobe(&kp);
	pr_info("%u concurrent umh_blob_start()%s: %u returned 0, %u -EBUSY, %u other\n",
		n, probed ? " (window widened)" : "", io->started, io->busy,
		io->other);
	return 0;
}

struct lc_stopper {
	int ret;
};

static int lc_stop_start_fn(void *data)
{
	struct lc_stopper *st = data;

	st->ret = umh_blob_start(ub);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * umh_blob_stop() while a umh_blob_start() is under way but has not
 * spawned its helper yet (held in umh_do_start() by the kprobe, on
 * another CPU).  Stop must not return before that start has ended.
 */
static long lc_stop_mid_start(struct lc_ioc_stop *io)
{
	struct kprobe kp = {
		.symbol_name = KBUILD_MODNAME ":umh_do_start",
		.pre_handler = lc_widen_pre,
	};
	struct lc_stopper st = { .ret = -ECANCELED };
	struct task_struct *t;
	unsigned int cpu;
	int ret, tries;

	cpu = cpumask_last(cpu_online_mask);
	if (cpu == raw_smp_processor_id() || num_online_cpus() < 2)
		return -EXDEV;	/* the caller runs on the first CPU */
	atomic_set(&lc_delay_once, 1);
	atomic_set(&lc_in_delay, 0);
	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	t = kthread_create(lc_stop_start_fn, &st, "lc-start");
	if (IS_ERR(t)) {
		unregister_kprobe(&kp);
		return PTR_ERR(t);
	}
	get_task_struct(t);
	kthread_bind(t, cpu);
	wake_up_process(t);
	for (tries = 0; !atomic_read(&lc_in_delay) && tries < 2000; tries++)
		usleep_range(1000, 2000);
	io->held = atomic_read(&lc_in_delay);
	umh_blob_stop(ub);
	/* Still in the kprobe's wait: stop did not wait for the start. */
	io->start_pending = atomic_read(&lc_in_delay);
	kthread_stop(t);
	put_task_struct(t);
	unregister_kprobe(&kp);
	io->start_ret = st.ret;
	pr_info("umh_blob_stop() during a start: held %u, start pending at its return %u, start returned %d\n",
		io->held, io->start_pending, io->start_ret);
	return 0;
}

/*
 * Files held open in the kernel threads' shared file table (LC_IOC_KFDS).
 * A work item runs in a kernel worker, which shares that table.
 */
static struct {
	struct work_struct work;
	bool open;		/* in: open (true) or close them */
	int fd[LC_KFDS];	/* -1: not open */
	int ret;
} kfds;
static DEFINE_MUTEX(kfds_lock);	/* LC_IOC_KFDS */

static void lc_kfds_fn(struct work_struct *work)
{
	struct file *f;
	int i, fd;

	for (i = 0; i < LC_KFDS; i++) {
		if (!kfds.open) {
			if (kfds.fd[i] >= 0)
				close_fd(kfds.fd[i]);
			kfds.fd[i] = -1;
			continue;
		}
		if (kfds.fd[i] >= 0)
			continue;
		fd = get_unused_fd_flags(O_CLOEXEC);
		if (fd < 0) {
			kfds.ret = fd;
			return;
		}
		f = filp_open("/dev/null", O_RDONLY, 0);
		if (IS_ERR(f)) {
			put_unused_fd(fd);
			kfds.ret = PTR_ERR(f);
			return;
		}
		fd_install(fd, f);
		kfds.fd[i] = fd;
	}
}

static int lc_kfds(bool open)
{
	int ret;

	mutex_lock(&kfds_lock);
	kfds.open = open;
	kfds.ret = 0;
	schedule_work(&kfds.work);
	flush_work(&kfds.work);
	ret = kfds.ret;
	pr_info("kernel threads' files %s: fds %d %d %d %d (%d)\n",
		open ? "opened" : "closed", kfds.fd[0], kfds.fd[1], kfds.fd[2],
		kfds.fd[3], ret);
	mutex_unlock(&kfds_lock);
	return ret;
}

static long lc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case LC_IOC_START: {
		struct lc_ioc_start io;
		long ret;

		if (copy_from_user(&io, (void __user *)arg, sizeof(io)))
			return -EFAULT;
		ret = lc_start_many(&io);
		if (ret)
			return ret;
		return copy_to_user((void __user *)arg, &io, sizeof(io)) ?
		       -EFAULT : 0;
	}
	case LC_IOC_PING: {
		struct echo_ping req = { .cookie = 1 };
		struct echo_pong rep;
		int ret;

		ret = echo_call_ping(ub, &req, &rep);
		if (ret)
			return ret;
		return put_user(rep.pid, (__u32 __user *)arg);
	}
	case LC_IOC_KFDS:
		return lc_kfds(arg);
	case LC_IOC_STOP_MID_START: {
		struct lc_ioc_stop io = {};
		long ret = lc_stop_mid_start(&io);

		if (ret)
			return ret;
		return copy_to_user((void __user *)arg, &io, sizeof(io)) ?
		       -EFAULT : 0;
	}
	case LC_IOC_RESTART:
		if (arg > INT_MAX)
			return -EINVAL;
		return umh_blob_restart(ub, (pid_t)arg, "asked by the test");
	}
	return -ENOTTY;
}

static const struct file_operations lc_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = lc_ioctl,
};

static struct miscdevice lc_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "lifecycle_umh",
	.fops = &lc_fops,
	.mode = 0600,
};

static int __init lc_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "lifecycle",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
		.call_timeout_ms = 2000,
		.start_timeout_ms = 5000,
		.max_restarts = max_restarts,
		.backoff_min_ms = backoff_min_ms,
		.backoff_max_ms = 10000,
		.health_interval_ms = health_ms,
	};
	int i, ret = 0;

	INIT_WORK(&kfds.work, lc_kfds_fn);
	for (i = 0; i < LC_KFDS; i++)
		kfds.fd[i] = -1;
	ub = umh_blob_create(&cfg, UMH_BLOB_DATA(lifecycle),
			     UMH_BLOB_SIZE(lifecycle));
	if (IS_ERR(ub))
		return PTR_ERR(ub);
	if (start)
		ret = umh_blob_start(ub);
	if (!ret)
		ret = misc_register(&lc_misc);
	if (ret)
		umh_blob_destroy(ub);
	return ret;
}

static void __exit lc_exit(void)
{
	umh_blob_stop(ub);
	misc_deregister(&lc_misc);
	lc_kfds(false);
	umh_blob_destroy(ub);
}

module_init(lc_init);
module_exit(lc_exit);
MODULE_LICENSE("GPL");
