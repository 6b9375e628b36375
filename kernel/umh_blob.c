// SPDX-License-Identifier: GPL-2.0
/*
 * umh-sdk kernel side: start, call, watch, restart and stop a user-mode
 * helper that a module carries inside itself.
 *
 * Design (Documentation/architecture.rst has the long version):
 *
 * - The blob is copied once into an unlinked shmem file (ub->exe), so the
 *   module's copy may live in .init.rodata, and every restart execs the
 *   same kernel-owned bytes.  The helper is started with
 *   call_usermodehelper(): its init hook installs fds 0/1/2 and the
 *   executable as fd 3 (close-on-exec) and execs /proc/self/fd/3.
 *
 * - The channel is three FIFOs in a private tmpfs mount that is attached to
 *   no namespace; each is unlinked as soon as both ends are open.  The
 *   helper's fds are therefore plain pipes whose file_operations belong to
 *   the core kernel: no file the helper holds references this module, so
 *   rmmod never waits for the helper to drop anything.  The kernel keeps a
 *   second, never-read, read end of the request FIFO so that writing to it
 *   can never raise SIGPIPE in a caller, whatever the helper does.
 *
 * - One generation of the helper is a struct umh_proc: its pid, its pipe
 *   ends and a reader thread.  All kernel-side I/O is non-blocking; waits
 *   are on proc->wq, which the pipes wake through poll callbacks, and every
 *   wait of a caller is killable and bounded by the call's deadline.
 *
 * - Calls are multiplexed: each carries an id, the reader matches replies
 *   to pending calls and copies each payload straight into its caller's
 *   buffer.  A caller that gives up while the reader fills its buffer waits
 *   (briefly: the reader never blocks) until the reader lets go.
 *
 * - Anything unexpected from the helper (bad header, unknown id, wrong
 *   size, EOF) kills that generation; pending calls fail, and a restart is
 *   scheduled with backoff, up to max_restarts per window.
 *
 * - The helper confines itself (<umh_sdk/sandbox.h>) before its first
 *   request.  The kernel side holds the helper's task_struct, so that once
 *   the helper is gone it can tell how it ended: SIGSYS is a system call its
 *   seccomp filter refused, logged and counted in sandbox_kills.
 */
#define pr_fmt(fmt) "umh: " fmt

#include "umh_internal.h"

/*
 * The one place the life-cycle state changes (Documentation/architecture.rst
 * has the diagram and who takes each transition).  Lock-free readers use
 * READ_ONCE(); waiters on state_wq re-check.  Context: ub->lock held.
 */
static void umh_set_state(struct umh_blob *ub, enum umh_blob_state state)
{
	lockdep_assert_held(&ub->lock);
	/* ub->proc does not change while RUNNING. */
	rcu_assign_pointer(ub->live,
			   state == UMH_BLOB_RUNNING ? ub->proc : NULL);
	WRITE_ONCE(ub->state, state);
	wake_up_all(&ub->state_wq);
}

/* ---- life cycle ---- */

static void umh_health_arm(struct umh_blob *ub)
{
	schedule_delayed_work(&ub->health_work,
			      msecs_to_jiffies(ub->cfg.health_interval_ms));
}

static void umh_health_work(struct work_struct *work)
{
	struct umh_blob *ub = container_of(to_delayed_work(work),
					   struct umh_blob, health_work);

	if (READ_ONCE(ub->state) == UMH_BLOB_RUNNING)
		(void)umh_blob_ping(ub, 0);	/* failures restart it */
	if (!READ_ONCE(ub->stopping) && !READ_ONCE(ub->suspended))
		umh_health_arm(ub);
}

/*
 * No health pings from before the system freezes its tasks until they
 * are thawed: a frozen helper cannot answer, and a ping on a workqueue
 * that is not frozen (hibernation writes its image with tasks frozen for
 * many seconds) would time out and kill a healthy helper as hung.  The
 * prepare notification comes before the freeze, so no ping is in flight
 * then; cancel_delayed_work_sync() waits for one that runs.
 */
static int umh_pm_notify(struct notifier_block *nb, unsigned long action,
			 void *data)
{
	struct umh_blob *ub = container_of(nb, struct umh_blob, pm_nb);

	switch (action) {
	case PM_HIBERNATION_PREPARE:
	case PM_SUSPEND_PREPARE:
	case PM_RESTORE_PREPARE:
		mutex_lock(&ub->lock);
		WRITE_ONCE(ub->suspended, true);
		mutex_unlock(&ub->lock);
		cancel_delayed_work_sync(&ub->health_work);
		break;
	case PM_POST_HIBERNATION:
	case PM_POST_SUSPEND:
	case PM_POST_RESTORE:
		mutex_lock(&ub->lock);
		WRITE_ONCE(ub->suspended, false);
		/* Not running: a successful start arms it. */
		if (!ub->stopping && ub->state == UMH_BLOB_RUNNING)
			umh_health_arm(ub);
		mutex_unlock(&ub->lock);
		break;
	}
	return NOTIFY_DONE;
}

/*
 * Start one generation: spawn, handshake, on_start.  Not under ub->lock.
 * The caller has set the state to STARTING and ub->starter to current.
 * On failure the state becomes @fail_state (STOPPED if stopping), and
 * *@disabled (when not NULL) says whether the spawn found user-mode
 * helpers disabled (suspend or shutdown) rather than the helper failing.
 * On success the health check is armed (it re-arms itself until the stop).
 *
 * References: the spawn gives us one, which we hold until we return, so
 * that a concurrent umh_blob_stop() (which tears down whatever ub->proc
 * holds) cannot free the generation under the handshake; ub->proc holds
 * its own.  Whoever takes the generation out of ub->proc tears it down.
 */
static int umh_do_start(struct umh_blob *ub, enum umh_blob_state fail_state,
			bool *disabled)
{
	struct umh_proc *p, *drop = NULL;
	unsigned long deadline;
	bool published = false, alive;
	ktime_t t0;
	int ret;

	if (disabled)
		*disabled = false;
	deadline = jiffies + msecs_to_jiffies(ub->cfg.start_timeout_ms);
	p = umh_proc_spawn(ub);
	if (IS_ERR(p)) {
		ret = PTR_ERR(p);
		if (disabled)
			*disabled = ret == -EBUSY;
		p = NULL;
		goto out;
	}
	mutex_lock(&ub->lock);
	if (!ub->stopping) {
		kref_get(&p->ref);
		ub->proc = p;
		published = true;
	}
	mutex_unlock(&ub->lock);
	if (!published) {
		ret = -ESHUTDOWN;
		goto out;
	}

	t0 = ktime_get();
	ret = umh_hello(ub, p, deadline);
	p->start_us[UMH_START_HELLO] = umh_us_since(t0);
	/*
	 * A generation still alive: the error is the status the helper
	 * answered with, which may be any errno.
	 */
	alive = !READ_ONCE(p->dead);
	if (!alive && (ret == -ECONNRESET || ret == -ESHUTDOWN))
		pr_err("%s: helper pid %d exited before completing the handshake\n",
		       ub->name, umh_proc_pid_nr(p));
	else if (!alive && ret == -ETIMEDOUT)
		pr_err("%s: helper pid %d did not complete the handshake within %u ms\n",
		       ub->name, umh_proc_pid_nr(p), ub->cfg.start_timeout_ms);
	else if (ret && (alive || ret != -EPROTO))
		pr_err("%s: handshake with helper pid %d failed: %d\n",
		       ub->name, umh_proc_pid_nr(p), ret);
	if (!ret && ub->cfg.on_start) {
		t0 = ktime_get();
		ret = ub->cfg.on_start(ub, ub->cfg.priv);
		p->start_us[UMH_START_ON_START] = umh_us_since(t0);
		if (ret)
			pr_err("%s: on_start failed: %d\n", ub->name, ret);
	}
out:
	mutex_lock(&ub->lock);
	ub->starter = NULL;
	if (!ret && ub->stopping)
		ret = -ESHUTDOWN;
	/* Died during on_start: nobody has scheduled a restart for it. */
	if (!ret && READ_ONCE(p->dead))
		ret = READ_ONCE(p->dead);
	if (ret) {
		if (published && ub->proc == p) {
			drop = p;
			ub->proc = NULL;
		}
		WRITE_ONCE(ub->last_error, ret);
		umh_set_state(ub, ub->stopping ? UMH_BLOB_STOPPED : fail_state);
	} else {
		/* this generation's stages; a restart's wait and teardown */
		memcpy(ub->start_us, p->start_us, sizeof(ub->start_us));
		ub->start_us[UMH_START_WAIT] = ub->restart_us[UMH_START_WAIT];
		ub->start_us[UMH_START_TEARDOWN] =
			ub->restart_us[UMH_START_TEARDOWN];
		umh_set_state(ub, UMH_BLOB_RUNNING);
		pr_info("%s: helper running, pid %d (generation %u)\n",
			ub->name, umh_proc_pid_nr(p), p->gen);
		/*
		 * Under ub->lock and not stopping: umh_blob_stop() cancels
		 * it after this.  Already queued after a restart: a no-op.
		 */
		if (ub->cfg.health_interval_ms && !ub->suspended)
			umh_health_arm(ub);
	}
	mutex_unlock(&ub->lock);
	/* Never published: ours to tear down. */
	if (p && !published)
		umh_proc_teardown(p);
	if (drop) {
		umh_proc_teardown(drop);
		umh_proc_put(drop);
	}
	if (p)
		umh_proc_put(p);
	return ret;
}

static unsigned int umh_recent_restarts(struct umh_blob *ub)
{
	unsigned long window = msecs_to_jiffies(ub->cfg.restart_window_ms);
	unsigned int i, n = 0;

	for (i = 0; i < ub->cfg.max_restarts; i++)
		if (ub->restart_at[i] &&
		    time_before(jiffies, ub->restart_at[i] + window))
			n++;
	return n;
}

static void umh_restart_work(struct work_struct *work)
{
	struct umh_blob *ub = container_of(to_delayed_work(work),
					   struct umh_blob, restart_work);
	struct umh_proc *old;
	unsigned int n;
	unsigned long delay;
	bool disabled;
	ktime_t t0;
	int ret;

	mutex_lock(&ub->lock);
	if (ub->state != UMH_BLOB_RESTARTING)
		goto unlock;
	ub->restart_us[UMH_START_WAIT] = umh_us_since(ub->died_at);
	ub->restart_us[UMH_START_TEARDOWN] = 0;
	old = ub->proc;
	ub->proc = NULL;
	if (old) {
		mutex_unlock(&ub->lock);
		t0 = ktime_get();
		umh_proc_teardown(old);
		umh_proc_put(old);
		mutex_lock(&ub->lock);
		ub->restart_us[UMH_START_TEARDOWN] = umh_us_since(t0);
		if (ub->state != UMH_BLOB_RESTARTING)
			goto unlock;
	}
	/*
	 * Only restarts the helper is to blame for count toward
	 * max_restarts and back off: not those after a caller was killed.
	 */
	if (ub->restart_fault && !ub->backoff_served) {
		n = umh_recent_restarts(ub);
		if (n >= ub->cfg.max_restarts) {
			umh_set_state(ub, UMH_BLOB_FAILED);
			pr_err("%s: %u restarts within %u ms; restart cap reached, helper stays down\n",
			       ub->name, n, ub->cfg.restart_window_ms);
			goto unlock;
		}
		delay = n ? msecs_to_jiffies(min_t(u64, (u64)ub->cfg.backoff_min_ms <<
						   min(n - 1, 16U),
						   ub->cfg.backoff_max_ms)) : 0;
		ub->backoff_served = true;
		if (delay) {
			schedule_delayed_work(&ub->restart_work, delay);
			goto unlock;
		}
	}
	if (ub->restart_fault) {
		ub->restart_at[ub->restart_idx] = jiffies ?: 1;
		ub->restart_idx = (ub->restart_idx + 1) % ub->cfg.max_restarts;
	}
	ub->backoff_served = false;
	atomic_inc(&ub->restarts);
	umh_set_state(ub, UMH_BLOB_STARTING);
	ub->starter = current;
	mutex_unlock(&ub->lock);

	ret = umh_do_start(ub, UMH_BLOB_RESTARTING, &disabled);
	if (!ret)
		return;
	mutex_lock(&ub->lock);
	/*
	 * Decided by the state, never by the error: the helper's reply to
	 * the handshake, or on_start, may return any errno, -ESHUTDOWN
	 * and -EBUSY among them.
	 */
	if (!ub->stopping && ub->state == UMH_BLOB_RESTARTING) {
		/*
		 * User-mode helpers disabled (suspend or shutdown): no
		 * fault of the helper's; try again later.  Any other
		 * failure to start counts.
		 */
		ub->restart_fault = !disabled;
		schedule_delayed_work(&ub->restart_work,
				      disabled ?
				      msecs_to_jiffies(ub->cfg.backoff_max_ms) : 0);
	}
unlock:
	mutex_unlock(&ub->lock);
}

/**
 * umh_blob_proc_died() - a generation ended: restart it if it was current
 * @ub:		the helper
 * @p:		the generation that ended
 * @err:	why
 *
 * Context: process context or the reader thread; takes ub->lock.
 */
void umh_blob_proc_died(struct umh_blob *ub, struct umh_proc *p, int err)
{
	mutex_lock(&ub->lock);
	if (ub->proc == p && ub->state == UMH_BLOB_RUNNING) {
		umh_set_state(ub, UMH_BLOB_RESTARTING);
		WRITE_ONCE(ub->last_error, err);
		ub->restart_fault = p->fault;
		ub->died_at = ktime_get();
		if (p->fault)
			pr_warn("%s: helper pid %d lost (%d); restarting\n",
				ub->name, umh_proc_pid_nr(p), err);
		schedule_delayed_work(&ub->restart_work, 0);
	}
	mutex_unlock(&ub->lock);
}

/**
 * umh_blob_start() - start the helper and complete its handshake
 * @ub:	the helper, created by umh_blob_create()
 *
 * Execs the helper, checks its protocol, then runs the on_start callback.
 * Every failure is logged with its reason.
 * A start is tried once: after a failure the helper stays down (state
 * failed), and a later umh_blob_start() returns -EBUSY.
 *
 * Context: process context; sleeps up to the start timeout.
 * Return: 0 once the helper answers calls; -ENOEXEC if the blob is not an
 * executable, -ECONNRESET if the helper exited early, -ETIMEDOUT if it did
 * not answer the handshake, -EPROTO if it speaks another protocol, or the
 * error of on_start.  -EBUSY if it was started already (or is being
 * started by a concurrent call, or failed to start before), if
 * umh_blob_stop() was called, or if user-mode helpers are disabled
 * (suspend, shutdown).  -ESHUTDOWN if umh_blob_stop() was called while it
 * started.
 */
int umh_blob_start(struct umh_blob *ub)
{
	mutex_lock(&ub->lock);
	if (ub->state != UMH_BLOB_STOPPED || ub->stopping) {
		mutex_unlock(&ub->lock);
		return -EBUSY;
	}
	umh_set_state(ub, UMH_BLOB_STARTING);
	ub->starter = current;
	memset(ub->restart_us, 0, sizeof(ub->restart_us));
	mutex_unlock(&ub->lock);

	return umh_do_start(ub, UMH_BLOB_FAILED, NULL);
}

UMH_EXPORT(umh_blob_start);

/* umh_blob_stop(); false if called from on_start, and so did not wait. */
static bool umh_stop(struct umh_blob *ub)
{
	struct umh_proc *p;
	bool from_on_start;

	mutex_lock(&ub->lock);
	WRITE_ONCE(ub->stopping, true);
	umh_set_state(ub, UMH_BLOB_STOPPED);
	p = ub->proc;
	ub->proc = NULL;
	from_on_start = ub->starter == current;
	mutex_unlock(&ub->lock);

	if (p) {
		umh_proc_teardown(p);
		umh_proc_put(p);
	}
	/*
	 * Waiting below for the start that called us would never end.  The
	 * start fails with -ESHUTDOWN once on_start returns; a later stop
	 * (umh_blob_destroy()) does the waiting.
	 */
	if (WARN_ONCE(from_on_start, "%s: umh_blob_stop() or _destroy() called from on_start\n",
		      ub->name))
		return false;
	cancel_delayed_work_sync(&ub->restart_work);
	cancel_delayed_work_sync(&ub->health_work);
	/*
	 * A umh_blob_start() under way may not have spawned its helper yet:
	 * it will see ->stopping and tear down what it spawns; wait for it.
	 */
	while (!wait_event_timeout(ub->state_wq, !READ_ONCE(ub->starter),
				   10 * HZ))
		pr_warn("%s: still waiting for a start under way to end\n",
			ub->name);
	/* A restart that was under way has torn its generation down too. */
	while (!wait_var_event_timeout(&ub->nprocs,
				       !atomic_read(&ub->nprocs), 10 * HZ))
		pr_warn("%s: still waiting for %d helper generations to be released\n",
			ub->name, atomic_read(&ub->nprocs));
	return true;
}

/**
 * umh_blob_stop() - kill the helper and fail every call, for good
 * @ub:	the helper
 *
 * Calls in flight return -ESHUTDOWN, later calls fail at once.  Returns
 * after the helper process is gone and no generation holds a file, a pid
 * or a wait-queue entry any more, and after a umh_blob_start() or a
 * restart under way has ended (with -ESHUTDOWN); it waits for their
 * on_start.  Idempotent.
 *
 * Context: process context; sleeps.  Not from on_start (see
 * &struct umh_blob_config): called there it warns, kills the helper and
 * returns without waiting, and the start fails.
 */
void umh_blob_stop(struct umh_blob *ub)
{
	umh_stop(ub);
}

UMH_EXPORT(umh_blob_stop);

/* ---- creation ---- */

static int umh_check_config(const struct umh_blob_config *cfg, size_t size)
{
	const char *c;

	if (!cfg->name || !cfg->proto || !size)
		return -EINVAL;
	if (!*cfg->name || strlen(cfg->name) > UMH_NAME_MAX)
		return -EINVAL;
	for (c = cfg->name; *c; c++)
		if (!isalnum(*c) && *c != '_')
			return -EINVAL;
	if (cfg->max_payload > UMH_ABS_MAX_PAYLOAD ||
	    cfg->max_restarts > UMH_MAX_RESTARTS_CAP)
		return -EINVAL;
	/* A smaller cap would refuse the protocol's own fixed frames. */
	if (cfg->max_payload &&
	    cfg->max_payload < umh_proto_min_payload(cfg->proto))
		return -EINVAL;
	return 0;
}

/*
 * Make the copy of the blob immutable, as memfd's F_SEAL_WRITE does: every
 * restart must exec the bytes the module carries.  Anyone who gets hold of
 * the file (root with CAP_SYS_PTRACE can reopen /proc/<pid>/exe of a
 * helper, and keep it past the helper's exit) then gets -EPERM from
 * write(), truncate, fallocate and a shared writable mmap.  Nothing maps
 * it writable yet, so mapping_deny_writable() cannot fail.
 */
static int umh_seal(struct file *file)
{
	struct inode *inode = file_inode(file);
	int ret;

	inode_lock(inode);
	ret = mapping_deny_writable(file->f_mapping);
	if (!ret)
		SHMEM_I(inode)->seals |= F_SEAL_SEAL | F_SEAL_SHRINK |
					 F_SEAL_GROW | F_SEAL_WRITE |
					 F_SEAL_FUTURE_WRITE;
	inode_unlock(inode);
	return ret;
}

/*
 * Fill a new, empty shmem file with the blob through its page cache.
 * kernel_write() would apply the write path's limits of the current task:
 * an insmod run under "ulimit -f" below the blob's size got SIGXFSZ and
 * -EFBIG for the kernel's own copy.
 */
static int umh_fill(struct file *file, const void *blob, size_t size)
{
	struct inode *inode = file_inode(file);
	size_t off, len;
	struct page *page;

	inode_lock(inode);
	i_size_write(inode, size);
	inode_unlock(inode);
	for (off = 0; off < size; off += len) {
		len = min_t(size_t, size - off, PAGE_SIZE);
		page = shmem_read_mapping_page(file->f_mapping,
					       off >> PAGE_SHIFT);
		if (IS_ERR(page))
			return PTR_ERR(page);
		memcpy_to_page(page, 0, blob + off, len);
		set_page_dirty(page);
		put_page(page);
		cond_resched();
	}
	return 0;
}

#ifdef MODULE
/*
 * A module execs the blob as /proc/self/fd/3 (umh_proc.c): an unlinked
 * shmem file, which nothing else can open by name.
 */
static int umh_copy_blob(struct umh_blob *ub, const void *blob, size_t size)
{
	char name[UMH_NAME_MAX + 8];
	int ret;

	snprintf(name, sizeof(name), "umh-%s", ub->name);
	ub->exe = shmem_file_setup(name, size, 0);
	if (IS_ERR(ub->exe)) {
		ret = PTR_ERR(ub->exe);
		ub->exe = NULL;
		return ret;
	}
	ret = umh_fill(ub->exe, blob, size);
	return ret ? ret : umh_seal(ub->exe);
}
#else
/*
 * Built in, a helper may start during boot, before init has mounted /proc
 * in the kernel's root, so it is exec'd by name: the blob is the file
 * <name> in the private mount, and the helper starts with that mount as
 * its working directory (umh_proc.c).  This is the start path of the
 * kernel's usermode driver (kernel/usermode_driver.c); it takes
 * flush_delayed_fput() and set_fs_pwd(), which a module cannot call.
 */
static int umh_copy_blob(struct umh_blob *ub, const void *blob, size_t size)
{
	struct file *f;
	int ret;

	f = file_open_root_mnt(ub->mnt, ub->name, O_CREAT | O_EXCL | O_WRONLY,
			       0500);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = umh_fill(f, blob, size);
	if (!ret)
		ret = umh_seal(f);
	fput(f);
	/* The exec must not find the file still open for writing. */
	flush_delayed_fput();
	task_work_run();
	if (ret)
		return ret;
	ub->exe = file_open_root_mnt(ub->mnt, ub->name, O_RDONLY, 0);
	if (IS_ERR(ub->exe)) {
		ret = PTR_ERR(ub->exe);
		ub->exe = NULL;
	}
	return ret;
}
#endif

static int umh_mount(struct umh_blob *ub)
{
	struct file_system_type *type = get_fs_type("tmpfs");
	struct vfsmount *mnt;

	if (!type)
		return -ENODEV;
	mnt = kern_mount(type);
	/* put_filesystem() is not exported; this is all it does. */
	module_put(type->owner);
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	ub->mnt = mnt;
	return 0;
}

/**
 * umh_blob_create() - take a copy of a helper executable
 * @cfg:	configuration; copied, zero fields get their defaults
 * @blob:	the executable (usually UMH_BLOB_DATA() from .init.rodata)
 * @size:	its size (UMH_BLOB_SIZE())
 *
 * Copies @blob into a kernel-owned shmem file, so @blob may be freed after
 * module init and restarts still work, and publishes the status view.
 * Nothing is started: see umh_blob_start().
 *
 * Context: process context; sleeps.
 * Return: the new helper, or an ERR_PTR(): -EINVAL for a bad @cfg,
 * -ENOMEM, or the error of copying the blob.
 */
struct umh_blob *umh_blob_create(const struct umh_blob_config *cfg,
				 const void *blob, size_t size)
{
	ktime_t t0 = ktime_get();
	struct kobject *parent;
	struct umh_blob *ub;
	int ret;

	ret = umh_check_config(cfg, size);
	if (ret) {
		pr_err("invalid configuration for helper %s\n",
		       cfg->name ?: "(null)");
		return ERR_PTR(ret);
	}
	ub = kzalloc(sizeof(*ub), GFP_KERNEL);
	if (!ub)
		return ERR_PTR(-ENOMEM);
	kobject_init(&ub->kobj, &umh_status_ktype);
	ub->cfg = *cfg;
	strscpy(ub->name, cfg->name, sizeof(ub->name));
	ub->cfg.name = ub->name;
	ub->argv[0] = ub->name;
	ub->envp[0] = "HOME=/";
	ub->envp[1] = "PATH=/sbin:/bin:/usr/sbin:/usr/bin";
	ub->cfg.call_timeout_ms = cfg->call_timeout_ms ?: 5000;
	ub->cfg.start_timeout_ms = cfg->start_timeout_ms ?: 5000;
	ub->cfg.max_payload = cfg->max_payload ?: UMH_DEFAULT_MAX_PAYLOAD;
	ub->cfg.max_restarts = cfg->max_restarts ?: 5;
	ub->cfg.restart_window_ms = cfg->restart_window_ms ?: 60000;
	ub->cfg.backoff_min_ms = cfg->backoff_min_ms ?: 100;
	ub->cfg.backoff_max_ms = cfg->backoff_max_ms ?: 5000;
	mutex_init(&ub->lock);
	init_waitqueue_head(&ub->state_wq);
	INIT_DELAYED_WORK(&ub->restart_work, umh_restart_work);
	INIT_DELAYED_WORK(&ub->health_work, umh_health_work);
	ub->state = UMH_BLOB_STOPPED;	/* not visible to anyone yet */

	ret = -ENOMEM;
	ub->restart_at = kcalloc(ub->cfg.max_restarts,
				 sizeof(*ub->restart_at), GFP_KERNEL);
	if (!ub->restart_at)
		goto err;
	ret = umh_mount(ub);
	if (ret) {
		pr_err("%s: cannot mount the private tmpfs: %d\n", ub->name, ret);
		goto err;
	}
	ret = umh_copy_blob(ub, blob, size);
	if (ret) {
		pr_err("%s: cannot copy the helper blob: %d\n", ub->name, ret);
		goto err;
	}
	parent = cfg->owner ? &cfg->owner->mkobj.kobj : kernel_kobj;
	/* the status view's create_us: the copy and the mount, mostly */
	ub->create_us = umh_us_since(t0);
	ret = kobject_add(&ub->kobj, parent, "umh_%s", ub->name);
	if (ret)
		goto err;
	ub->kobj_added = true;
	if (ub->cfg.health_interval_ms) {
		ub->pm_nb.notifier_call = umh_pm_notify;
		ret = register_pm_notifier(&ub->pm_nb);
		if (ret)
			goto err;
		ub->pm_registered = true;
	}
	return ub;

err:
	umh_blob_destroy(ub);
	return ERR_PTR(ret);
}

UMH_EXPORT(umh_blob_create);

/**
 * umh_blob_destroy() - stop the helper and free everything
 * @ub:	the helper; may be an ERR_PTR or NULL
 *
 * Stops the helper as umh_blob_stop() does, removes the status view and
 * drops the copy of the blob.  The caller must make sure nobody calls
 * @ub any more: unregister the interfaces that lead to calls first (after
 * umh_blob_stop() they return at once).
 *
 * Context: process context; sleeps; waits for on_start as
 * umh_blob_stop() does.  Never from on_start: called there it stops the
 * helper and removes the status view, but cannot free @ub, which the start
 * still uses, and keeps it (a leak, logged).
 */
void umh_blob_destroy(struct umh_blob *ub)
{
	if (IS_ERR_OR_NULL(ub))
		return;
	/* Waits for a notification under way; none comes after. */
	if (ub->pm_registered) {
		unregister_pm_notifier(&ub->pm_nb);
		ub->pm_registered = false;
	}
	/*
	 * From on_start, the start goes on using @ub once we return, and the
	 * stop could not wait for it: it killed the helper; take the status
	 * view and the health pings away, and keep the memory.
	 */
	if (!umh_stop(ub)) {
		pr_err("%s: %s() called from on_start; its memory is kept\n",
		       ub->name, __func__);
		cancel_delayed_work_sync(&ub->health_work);
		if (ub->kobj_added)
			kobject_del(&ub->kobj);
		ub->kobj_added = false;
		return;
	}
	if (ub->exe)
		fput(ub->exe);
	if (ub->mnt)
		kern_unmount(ub->mnt);
	if (ub->kobj_added)
		kobject_del(&ub->kobj);
	kobject_put(&ub->kobj);
}

UMH_EXPORT(umh_blob_destroy);

/**
 * umh_blob_pid() - pid of the running helper
 * @ub:	the helper
 *
 * Return: the helper's pid in the initial pid namespace, or 0 if no helper
 * process is running.
 */
pid_t umh_blob_pid(struct umh_blob *ub)
{
	pid_t nr = 0;

	mutex_lock(&ub->lock);
	if (ub->proc && !READ_ONCE(ub->proc->dead))
		nr = umh_proc_pid_nr(ub->proc);
	mutex_unlock(&ub->lock);
	return nr;
}

UMH_EXPORT(umh_blob_pid);

/**
 * umh_blob_restart() - replace the running helper with a new one
 * @ub:		the helper
 * @pid:	the helper to replace, as umh_blob_pid() gave it
 * @why:	what went wrong, for the log
 *
 * For a module that finds the helper's state no longer matches its own
 * and cannot put it back (the helper refused a replay of it): the helper
 * is killed as if it had crashed, its calls in flight fail with
 * -ECONNABORTED, and a new one starts, with on_start, counted against
 * max_restarts.  @pid keeps a late caller from killing a helper that
 * started since, whose on_start has given it the module's state.
 *
 * Context: process context; sleeps (takes the blob's mutex).
 * Return: 0 if helper @pid was running and is being replaced, -ESRCH if
 * it is not the running helper (it exited, another one runs, or it is
 * still starting: from on_start, fail the start instead).
 */
int umh_blob_restart(struct umh_blob *ub, pid_t pid, const char *why)
{
	struct umh_proc *p = NULL;

	mutex_lock(&ub->lock);
	if (pid > 0 && ub->state == UMH_BLOB_RUNNING && ub->proc &&
	    !READ_ONCE(ub->proc->dead) && umh_proc_pid_nr(ub->proc) == pid) {
		p = ub->proc;
		kref_get(&p->ref);
	}
	mutex_unlock(&ub->lock);
	if (!p)
		return -ESRCH;
	pr_warn("%s: replacing helper pid %d: %s\n", ub->name, pid, why);
	umh_proc_fail(p, -ECONNABORTED);
	umh_proc_put(p);
	return 0;
}

UMH_EXPORT(umh_blob_restart);

/**
 * umh_blob_get_state() - where the helper is in its life cycle
 * @ub:	the helper
 *
 * Return: the current &enum umh_blob_state.
 */
enum umh_blob_state umh_blob_get_state(struct umh_blob *ub)
{
	return READ_ONCE(ub->state);
}

UMH_EXPORT(umh_blob_get_state);

#ifdef UMH_SDK_LIBRARY
MODULE_DESCRIPTION("umh-sdk: user-mode helpers that kernel code carries and runs");
MODULE_LICENSE("GPL");
#endif
