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

#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/ratelimit.h>
#include <linux/cred.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seccomp.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uio.h>
#include <linux/umh.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include <umh_sdk/compat.h>
#include <umh_sdk/umh_blob.h>

#define UMH_NAME_MAX		32
#define UMH_ERR_LINE		256
#define UMH_EXIT_WAIT		(5 * HZ)
/* Bytes of stderr passed on once a generation is over (see umh_reader). */
#define UMH_LAST_WORDS		(16 * UMH_ERR_LINE)
#define UMH_MAX_RESTARTS_CAP	1000

enum { UMH_POLL_TX, UMH_POLL_RX, UMH_POLL_ERR, UMH_NR_POLL };

enum umh_call_state {
	UMH_CALL_PENDING,	/* on proc->pending, waiting for its reply */
	UMH_CALL_CLAIMED,	/* the reader is copying its reply */
	UMH_CALL_DONE,
};

/* One call in flight.  Refs: the caller's and the channel's. */
struct umh_call {
	struct list_head node;
	refcount_t ref;
	struct completion done;
	enum umh_call_state state;
	bool sending;		/* its request is not fully written yet */
	bool abandoned;		/* caller left: discard the reply */
	bool cut;		/* the reader stopped filling rep mid-way */
	bool fixed;		/* reply must be exactly rep_cap bytes */
	u16 op;
	u32 id;
	void *rep;
	u32 rep_cap;
	u32 rep_len;
	int status;
};

struct umh_poll {
	wait_queue_entry_t wait;
	wait_queue_head_t *head;
	poll_table pt;
	struct umh_proc *proc;
};

/* One generation of the helper process. */
struct umh_proc {
	struct kref ref;
	struct umh_blob *ub;
	unsigned int gen;
	struct pid *pid;
	struct task_struct *task; /* the helper, held to read how it ended */
	struct file *tx;	/* write end of the request FIFO */
	struct file *tx_keep;	/* extra read end: no SIGPIPE, ever */
	struct file *rx;	/* read end of the reply FIFO */
	struct file *err;	/* read end of the helper's stderr */
	struct file *child[3];	/* the helper's fds 0, 1, 2 until installed */
	struct umh_poll poll[UMH_NR_POLL];
	wait_queue_head_t wq;
	struct task_struct *reader;

	spinlock_t lock;	/* pending, next_id, dead, call states, rpark */
	struct list_head pending;
	u32 next_id;
	int dead;		/* 0, or why this generation is over */
	bool fault;		/* ended by the helper's fault (counts) */
	bool torn;		/* umh_proc_teardown() ran */
	bool rparked;		/* reader waits for its call's request */

	unsigned long tx_busy;	/* bit 0: a sender owns the request stream */

	/* Reader thread only. */
	struct umh_hdr rhdr;
	size_t rhdr_got;
	bool rclaimed;		/* rhdr's call is claimed (or dropped) */
	bool rx_eof, err_eof;
	struct umh_call *rcall;	/* claimed call whose payload is read */
	u32 rgot;
	char scratch[256];	/* sink for payloads nobody waits for */
	char errbuf[UMH_ERR_LINE];
	size_t errlen;
	struct ratelimit_state err_rs;
};

struct umh_blob {
	struct umh_blob_config cfg;
	char name[UMH_NAME_MAX + 1];
	char *argv[2];
	char *envp[3];
	struct file *exe;		/* kernel-owned copy of the blob */
	struct vfsmount *mnt;		/* private tmpfs for the FIFOs */
	struct kobject kobj;		/* status view */
	bool kobj_added;

	struct mutex lock;		/* everything below up to stats */
	enum umh_blob_state state;
	bool stopping;
	bool backoff_served;
	bool restart_fault;		/* the next restart counts */
	struct umh_proc *proc;		/* current generation, ref held */
	struct task_struct *starter;	/* may call while STARTING */
	unsigned long *restart_at;	/* ring of restart times */
	unsigned int restart_idx;
	unsigned int gen;
	wait_queue_head_t state_wq;
	struct delayed_work restart_work;
	struct delayed_work health_work;
	atomic_t nprocs;		/* generations not yet released */

	atomic64_t calls, failures, timeouts, violations, sandbox_kills;
	atomic_t restarts;
	int last_error;
};

static const char *const umh_state_names[] = {
	[UMH_BLOB_STOPPED] = "stopped",
	[UMH_BLOB_STARTING] = "starting",
	[UMH_BLOB_RUNNING] = "running",
	[UMH_BLOB_RESTARTING] = "restarting",
	[UMH_BLOB_FAILED] = "failed",
};

static void umh_blob_proc_died(struct umh_blob *ub, struct umh_proc *p,
			       int err);

/*
 * The one place the life-cycle state changes (Documentation/architecture.rst
 * has the diagram and who takes each transition).  Lock-free readers use
 * READ_ONCE(); waiters on state_wq re-check.  Context: ub->lock held.
 */
static void umh_set_state(struct umh_blob *ub, enum umh_blob_state state)
{
	lockdep_assert_held(&ub->lock);
	WRITE_ONCE(ub->state, state);
	wake_up_all(&ub->state_wq);
}

static long umh_left(unsigned long deadline)
{
	return time_after(deadline, jiffies) ? (long)(deadline - jiffies) : 0;
}

/* ---- generations: poll hooks, FIFOs, failure, release ---- */

static int umh_poll_wake(wait_queue_entry_t *wait, unsigned int mode,
			 int sync, void *key)
{
	struct umh_poll *pp = container_of(wait, struct umh_poll, wait);

	wake_up(&pp->proc->wq);
	return 0;
}

static void umh_poll_queue(struct file *file, wait_queue_head_t *head,
			   poll_table *pt)
{
	struct umh_poll *pp = container_of(pt, struct umh_poll, pt);

	/* A pipe end registers one head: rd_wait or wr_wait. */
	if (WARN_ON_ONCE(pp->head))
		return;
	pp->head = head;
	init_waitqueue_func_entry(&pp->wait, umh_poll_wake);
	add_wait_queue(head, &pp->wait);
}

static void umh_poll_add(struct umh_proc *p, int i, struct file *file)
{
	struct umh_poll *pp = &p->poll[i];

	pp->proc = p;
	init_poll_funcptr(&pp->pt, umh_poll_queue);
	vfs_poll(file, &pp->pt);
}

static void umh_proc_release(struct kref *kref)
{
	struct umh_proc *p = container_of(kref, struct umh_proc, ref);
	struct umh_blob *ub = p->ub;
	int i;

	for (i = 0; i < UMH_NR_POLL; i++)
		if (p->poll[i].head)
			remove_wait_queue(p->poll[i].head, &p->poll[i].wait);
	for (i = 0; i < ARRAY_SIZE(p->child); i++)
		if (p->child[i])
			fput(p->child[i]);
	if (p->tx)
		fput(p->tx);
	if (p->tx_keep)
		fput(p->tx_keep);
	if (p->rx)
		fput(p->rx);
	if (p->err)
		fput(p->err);
	put_pid(p->pid);
	if (p->task)
		put_task_struct(p->task);
	kfree(p);
	if (atomic_dec_and_test(&ub->nprocs))
		wake_up_var(&ub->nprocs);
}

static void umh_proc_put(struct umh_proc *p)
{
	kref_put(&p->ref, umh_proc_release);
}

static void umh_call_put(struct umh_call *call)
{
	if (refcount_dec_and_test(&call->ref))
		kfree(call);
}

/* Called with p->lock held; drops the channel's reference. */
static void umh_call_finish(struct umh_call *call, int status, u32 len)
{
	call->status = status;
	call->rep_len = len;
	call->state = UMH_CALL_DONE;
	complete(&call->done);
	umh_call_put(call);
}

static pid_t umh_proc_pid_nr(struct umh_proc *p)
{
	return p->pid ? pid_nr(p->pid) : 0;
}

/*
 * End a generation: fail every pending call with @err, kill the helper and
 * tell the blob.  The first reason wins; later calls are no-ops.  @fault:
 * the helper is to blame (it crashed, hung or broke the protocol), so the
 * restart counts toward max_restarts; a caller that gave up is not.
 * Return: true if this call ended it (and so should count why).
 */
static bool umh_proc_end(struct umh_proc *p, int err, bool fault)
{
	struct umh_call *call, *tmp;
	LIST_HEAD(failed);

	spin_lock(&p->lock);
	if (p->dead) {
		spin_unlock(&p->lock);
		return false;
	}
	WRITE_ONCE(p->dead, err);
	p->fault = fault;
	p->rparked = false;
	list_splice_init(&p->pending, &failed);
	spin_unlock(&p->lock);

	if (p->pid)
		kill_pid(p->pid, SIGKILL, 1);
	wake_up_all(&p->wq);
	/*
	 * Tell the blob before the callers: a caller that retries at once
	 * must find the blob restarting, not this dead generation.
	 */
	umh_blob_proc_died(p->ub, p, err);

	spin_lock(&p->lock);
	list_for_each_entry_safe(call, tmp, &failed, node) {
		list_del_init(&call->node);
		umh_call_finish(call, err, 0);
	}
	spin_unlock(&p->lock);
	return true;
}

/* The helper failed: it died, hung or broke the protocol. */
static bool umh_proc_fail(struct umh_proc *p, int err)
{
	return umh_proc_end(p, err, true);
}

/* A frame from the helper broke the protocol: count, say why, kill it. */
static int umh_violation(struct umh_proc *p, const char *why, u32 a, u32 b)
{
	/* Leftovers of a generation already being killed are not news. */
	if (READ_ONCE(p->dead))
		return -EPROTO;
	atomic64_inc(&p->ub->violations);
	pr_warn_ratelimited("%s: protocol violation by helper pid %d: %s (%u, %u); killing it\n",
			    p->ub->name, umh_proc_pid_nr(p), why, a, b);
	return -EPROTO;
}

static bool umh_task_exited(struct pid *pid)
{
	struct task_struct *task;
	bool gone;

	rcu_read_lock();
	task = pid_task(pid, PIDTYPE_TGID);
	gone = !task || READ_ONCE(task->exit_state);
	rcu_read_unlock();
	return gone;
}

static bool umh_task_reaped(struct pid *pid)
{
	bool gone;

	rcu_read_lock();
	gone = !pid_task(pid, PIDTYPE_TGID);
	rcu_read_unlock();
	return gone;
}

/*
 * Wait until the killed helper is gone.  wait_pidfd is woken once the
 * thread group has exited; the helper's parent is kthreadd, which reaps it
 * at once, so the short poll afterwards only covers the reaping itself.
 */
static void umh_wait_gone(struct umh_proc *p)
{
	int i;

	if (!p->pid)
		return;
	if (!wait_event_timeout(p->pid->wait_pidfd, umh_task_exited(p->pid),
				UMH_EXIT_WAIT)) {
		pr_warn("%s: helper pid %d still alive %u s after SIGKILL\n",
			p->ub->name, pid_nr(p->pid), UMH_EXIT_WAIT / HZ);
		return;
	}
	for (i = 0; i < 1000 && !umh_task_reaped(p->pid); i++)
		usleep_range(500, 1000);
}

/*
 * Say how a helper that is gone ended, unless we killed it.  do_exit()
 * stores the exit code before it closes the helper's files (so before the
 * reader sees EOF) and nothing changes it afterwards; the task_struct is
 * ours until the generation is released, though kthreadd reaps the helper
 * at once.  A seccomp kill (SECCOMP_RET_KILL_PROCESS) ends the whole group
 * with SIGSYS, which the helper cannot catch, block or ignore.
 */
static void umh_report_exit(struct umh_proc *p)
{
	int code, sig;

	if (!p->task || !READ_ONCE(p->task->exit_state))
		return;
	code = READ_ONCE(p->task->exit_code);
	sig = code & 0x7f;
	if (sig == SIGSYS) {
		atomic64_inc(&p->ub->sandbox_kills);
		pr_err("%s: helper pid %d killed by seccomp (SIGSYS): system call not allowed by its sandbox\n",
		       p->ub->name, pid_nr(p->pid));
	} else if (sig && sig != SIGKILL) {
		pr_warn("%s: helper pid %d killed by signal %d%s\n", p->ub->name,
			pid_nr(p->pid), sig, code & 0x80 ? " (core dumped)" : "");
	} else if (!sig && code) {
		pr_warn("%s: helper pid %d exited with status %d\n", p->ub->name,
			pid_nr(p->pid), (code >> 8) & 0xff);
	}
}

/*
 * Stop a generation for good.  Done once, by whoever unpublishes it from
 * ub->proc (or by its starter if it never was published); the caller
 * still owns a reference.  Other holders of a reference may go on using
 * it: every call on it fails at once.
 */
static void umh_proc_teardown(struct umh_proc *p)
{
	if (WARN_ON_ONCE(p->torn))
		return;
	p->torn = true;
	umh_proc_end(p, -ESHUTDOWN, false);
	umh_wait_gone(p);
	umh_report_exit(p);
	if (p->reader)
		kthread_stop(p->reader);
}

/*
 * Make a FIFO in the private mount, open its ends, unlink it.  @rd gets a
 * read end, @wr a write end; @rd2, if not NULL, a second read end.  All
 * are opened O_NONBLOCK (a FIFO open would otherwise wait for the peer).
 */
static int umh_fifo(struct umh_blob *ub, const char *name, struct file **rd,
		    struct file **rd2, struct file **wr)
{
	struct dentry *root = ub->mnt->mnt_root;
	struct inode *dir = d_inode(root);
	struct dentry *dentry;
	struct file *f;
	int ret;

	inode_lock_nested(dir, I_MUTEX_PARENT);
	dentry = lookup_one_len(name, root, strlen(name));
	if (IS_ERR(dentry)) {
		inode_unlock(dir);
		return PTR_ERR(dentry);
	}
	ret = umh_compat_mknod(dir, dentry, S_IFIFO | 0600);
	inode_unlock(dir);
	if (ret)
		goto out;

	f = file_open_root_mnt(ub->mnt, name, O_RDONLY | O_NONBLOCK, 0);
	if (IS_ERR(f)) {
		ret = PTR_ERR(f);
		goto unlink;
	}
	*rd = f;
	if (rd2) {
		f = file_open_root_mnt(ub->mnt, name, O_RDONLY | O_NONBLOCK, 0);
		if (IS_ERR(f)) {
			ret = PTR_ERR(f);
			goto unlink;
		}
		*rd2 = f;
	}
	f = file_open_root_mnt(ub->mnt, name, O_WRONLY | O_NONBLOCK, 0);
	if (IS_ERR(f)) {
		ret = PTR_ERR(f);
		goto unlink;
	}
	*wr = f;
unlink:
	inode_lock_nested(dir, I_MUTEX_PARENT);
	umh_compat_unlink(dir, dentry);
	inode_unlock(dir);
out:
	dput(dentry);
	return ret;
}

/* The helper's own ends block, as a plain program expects of its stdio. */
static void umh_set_blocking(struct file *f)
{
	spin_lock(&f->f_lock);
	f->f_flags &= ~O_NONBLOCK;
	spin_unlock(&f->f_lock);
}

/* ---- the reader thread ---- */

static void umh_log_line(struct umh_proc *p, char *line, size_t len)
{
	int level = LOGLEVEL_INFO;
	size_t i;

	/* "<N>" prefix, as in /dev/kmsg; the helper may not go above KERN_ERR */
	if (len >= 3 && line[0] == '<' && line[1] >= '0' && line[1] <= '7' &&
	    line[2] == '>') {
		level = max(line[1] - '0', LOGLEVEL_ERR);
		line += 3;
		len -= 3;
	}
	/* The helper's bytes are not trusted: no control characters. */
	for (i = 0; i < len; i++)
		if (line[i] < 0x20 || line[i] > 0x7e)
			line[i] = '?';
	if (!__ratelimit(&p->err_rs))
		return;
#define UMH_LINE(pr) pr("%s[%d]: %.*s\n", p->ub->name, umh_proc_pid_nr(p), \
			(int)len, line)
	switch (level) {
	case LOGLEVEL_ERR:
		UMH_LINE(pr_err);
		break;
	case LOGLEVEL_WARNING:
		UMH_LINE(pr_warn);
		break;
	case LOGLEVEL_NOTICE:
		UMH_LINE(pr_notice);
		break;
	case LOGLEVEL_DEBUG:
		UMH_LINE(pr_debug);
		break;
	default:
		UMH_LINE(pr_info);
	}
#undef UMH_LINE
}

/*
 * Forward complete lines of the helper's stderr.  Return: true if it read
 * bytes (@got of them).
 */
static bool umh_drain_stderr(struct umh_proc *p, size_t *got)
{
	loff_t pos = 0;
	ssize_t n;
	char *nl;

	*got = 0;
	if (p->err_eof)
		return false;
	n = kernel_read(p->err, p->errbuf + p->errlen,
			sizeof(p->errbuf) - p->errlen, &pos);
	if (n == -EAGAIN)
		return false;
	if (n <= 0) {
		p->err_eof = true;
		if (p->errlen)
			umh_log_line(p, p->errbuf, p->errlen);
		p->errlen = 0;
		return false;
	}
	*got = n;
	p->errlen += n;
	while ((nl = memchr(p->errbuf, '\n', p->errlen))) {
		size_t len = nl - p->errbuf;

		umh_log_line(p, p->errbuf, len);
		p->errlen -= len + 1;
		memmove(p->errbuf, nl + 1, p->errlen);
	}
	if (p->errlen == sizeof(p->errbuf)) {	/* overlong line: split it */
		umh_log_line(p, p->errbuf, p->errlen);
		p->errlen = 0;
	}
	return true;
}

/*
 * A whole, checked header is in p->rhdr: claim the call it answers.  A
 * reply may only land in its caller's buffer once the request is fully
 * written (a caller may pass one buffer for both): a reply that arrives
 * earlier, which only a helper that answers what it has not read can
 * send, is parked until its sender is done.
 * Return: 0 once claimed, -EAGAIN while parked, or a violation.
 */
static int umh_rx_claim(struct umh_proc *p)
{
	struct umh_hdr *h = &p->rhdr;
	struct umh_call *call;
	int ret;

	spin_lock(&p->lock);
	list_for_each_entry(call, &p->pending, node)
		if (call->id == h->id)
			goto found;
	spin_unlock(&p->lock);
	return umh_violation(p, "reply to no pending request", h->id, h->op);
found:
	if (call->sending) {
		p->rparked = true;
		spin_unlock(&p->lock);
		return -EAGAIN;
	}
	ret = umh_rep_check(h, call->op, call->rep_cap, call->fixed);
	if (ret == -EBADMSG) {
		spin_unlock(&p->lock);
		return umh_violation(p, "reply op differs from request",
				     h->op, call->op);
	}
	if (ret) {
		spin_unlock(&p->lock);
		return umh_violation(p, "reply size does not fit the op",
				     h->len, call->rep_cap);
	}
	list_del_init(&call->node);
	call->state = UMH_CALL_CLAIMED;
	spin_unlock(&p->lock);
	p->rcall = call;
	p->rgot = 0;
	return 0;
}

static void umh_rx_done(struct umh_proc *p, int status)
{
	struct umh_call *call = p->rcall;

	p->rcall = NULL;
	if (!call)
		return;
	spin_lock(&p->lock);
	umh_call_finish(call, status, p->rgot);
	spin_unlock(&p->lock);
}

/*
 * Make progress on the reply stream without blocking.
 * Return: 1 if bytes were consumed, 0 if none were there, -errno when this
 * generation is over (EOF, read error, protocol violation).
 */
static int umh_rx(struct umh_proc *p)
{
	struct umh_call *call;
	int progress = 0;
	loff_t pos = 0;
	ssize_t n;
	size_t want;
	void *dst;
	int ret;

	if (p->rhdr_got < sizeof(p->rhdr)) {
		n = kernel_read(p->rx, (char *)&p->rhdr + p->rhdr_got,
				sizeof(p->rhdr) - p->rhdr_got, &pos);
		if (n == -EAGAIN)
			return 0;
		if (n == 0)
			return p->rhdr_got ? -EPIPE : -ECONNRESET;
		if (n < 0)
			return n;
		p->rhdr_got += n;
		if (p->rhdr_got < sizeof(p->rhdr))
			return 1;
		if (umh_hdr_check(&p->rhdr, true, p->ub->cfg.max_payload))
			return umh_violation(p, "malformed reply header",
					     p->rhdr.op, p->rhdr.len);
		progress = 1;
	}
	if (!p->rclaimed) {
		ret = umh_rx_claim(p);
		if (ret == -EAGAIN)
			return progress;
		if (ret)
			return ret;
		p->rclaimed = true;
	} else {
		call = p->rcall;
		want = p->rhdr.len - p->rgot;
		if (call && READ_ONCE(call->abandoned)) {
			/* The caller gave up: let go of its buffer now. */
			call->cut = true;
			umh_rx_done(p, -ETIMEDOUT);
			call = NULL;
		}
		if (call) {
			dst = call->rep + p->rgot;
		} else {
			dst = p->scratch;
			want = min(want, sizeof(p->scratch));
		}
		n = kernel_read(p->rx, dst, want, &pos);
		if (n == -EAGAIN)
			return 0;
		if (n == 0)
			return -EPIPE;
		if (n < 0)
			return n;
		p->rgot += n;
	}
	if (p->rgot == p->rhdr.len) {
		umh_rx_done(p, p->rhdr.status);
		p->rhdr_got = 0;
		p->rclaimed = false;
	}
	return 1;
}

static bool umh_pollin(struct file *f)
{
	return vfs_poll(f, NULL) & (EPOLLIN | EPOLLHUP | EPOLLERR);
}

static bool umh_reader_wake(struct umh_proc *p)
{
	struct umh_call *call = p->rcall;

	return kthread_should_stop() ||
	       (!p->rx_eof && !READ_ONCE(p->rparked) &&
		(umh_pollin(p->rx) ||
		 (p->rhdr_got == sizeof(p->rhdr) && !p->rclaimed))) ||
	       (!p->err_eof && umh_pollin(p->err)) ||
	       (call && READ_ONCE(call->abandoned));
}

static int umh_reader(void *data)
{
	struct umh_proc *p = data;
	size_t n, got;
	int ret;

	while (!kthread_should_stop()) {
		bool progress = umh_drain_stderr(p, &got);

		if (!p->rx_eof) {
			ret = umh_rx(p);
			if (ret < 0) {
				p->rx_eof = true;
				umh_rx_done(p, ret);
				umh_proc_fail(p, ret);
			} else if (ret) {
				progress = true;
			}
		}
		if (progress)
			cond_resched();
		else
			wait_event_interruptible(p->wq, umh_reader_wake(p));
	}
	/*
	 * The helper is gone: pass on its last words, free its caller.  Its
	 * stderr may still have other writers (a child it forked, a process
	 * that opened /proc/<pid>/fd/2): take what is there, up to a bound,
	 * and never wait for EOF.
	 */
	for (n = 0; n < UMH_LAST_WORDS && umh_drain_stderr(p, &got); n += got)
		;
	umh_rx_done(p, READ_ONCE(p->dead) ?: -ESHUTDOWN);
	return 0;
}

/* ---- starting a generation ---- */

static int umh_child_init(struct subprocess_info *info, struct cred *new)
{
	struct umh_proc *p = info->data;
	int fd, i;

	/* A fresh usermode helper has an empty file table: 0..3 are free. */
	for (i = 0; i <= ARRAY_SIZE(p->child); i++) {
		fd = get_unused_fd_flags(i == 3 ? O_CLOEXEC : 0);
		if (fd != i) {
			if (fd >= 0)
				put_unused_fd(fd);
			while (i--)
				put_unused_fd(i);
			return fd < 0 ? fd : -EBUSY;
		}
	}
	for (i = 0; i < ARRAY_SIZE(p->child); i++) {
		fd_install(i, p->child[i]);
		p->child[i] = NULL;
	}
	fd_install(3, get_file(p->ub->exe));
	p->pid = get_task_pid(current, PIDTYPE_TGID);
	p->task = get_task_struct(current);
	return 0;
}

static struct umh_proc *umh_proc_spawn(struct umh_blob *ub)
{
	struct subprocess_info *info;
	struct umh_proc *p;
	char name[24];
	int ret;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	kref_init(&p->ref);
	p->ub = ub;
	spin_lock_init(&p->lock);
	INIT_LIST_HEAD(&p->pending);
	init_waitqueue_head(&p->wq);
	ratelimit_state_init(&p->err_rs, 5 * HZ, 50);
	atomic_inc(&ub->nprocs);
	mutex_lock(&ub->lock);
	p->gen = ub->gen + 1;
	WRITE_ONCE(ub->gen, p->gen);
	mutex_unlock(&ub->lock);

	snprintf(name, sizeof(name), "%u.req", p->gen);
	ret = umh_fifo(ub, name, &p->child[0], &p->tx_keep, &p->tx);
	if (ret)
		goto fail;
	snprintf(name, sizeof(name), "%u.rep", p->gen);
	ret = umh_fifo(ub, name, &p->rx, NULL, &p->child[1]);
	if (ret)
		goto fail;
	snprintf(name, sizeof(name), "%u.err", p->gen);
	ret = umh_fifo(ub, name, &p->err, NULL, &p->child[2]);
	if (ret)
		goto fail;
	umh_set_blocking(p->child[0]);
	umh_set_blocking(p->child[1]);
	umh_set_blocking(p->child[2]);
	umh_poll_add(p, UMH_POLL_TX, p->tx);
	umh_poll_add(p, UMH_POLL_RX, p->rx);
	umh_poll_add(p, UMH_POLL_ERR, p->err);

	p->reader = kthread_run(umh_reader, p, "umh-%s", ub->name);
	if (IS_ERR(p->reader)) {
		ret = PTR_ERR(p->reader);
		p->reader = NULL;
		goto fail;
	}

	ret = -ENOMEM;
	info = call_usermodehelper_setup("/proc/self/fd/3", ub->argv, ub->envp,
					 GFP_KERNEL, umh_child_init, NULL, p);
	if (!info)
		goto fail;
	ret = call_usermodehelper_exec(info, UMH_WAIT_EXEC);
	if (ret) {
		pr_err("%s: cannot execute the helper blob (%zu bytes): %d%s\n",
		       ub->name, (size_t)i_size_read(file_inode(ub->exe)), ret,
		       ret == -ENOEXEC ? " (not an executable for this system)" :
		       ret == -ENOENT ? " (is /proc mounted in the kernel's root?)" :
		       "");
		goto fail;
	}
	return p;

fail:
	umh_proc_teardown(p);
	umh_proc_put(p);
	return ERR_PTR(ret);
}

/* ---- calls ---- */

/* Can this sender go on: the stream is free (@owned is NULL: writable)? */
static bool umh_tx_ready(struct umh_proc *p, bool *owned)
{
	if (READ_ONCE(p->dead))
		return true;
	if (!owned)
		return vfs_poll(p->tx, NULL) & EPOLLOUT;
	if (!*owned)
		*owned = !test_and_set_bit_lock(0, &p->tx_busy);
	return *owned;
}

/*
 * Wait, killable and until @deadline, for the request stream to be ours
 * (@owned) or writable (@owned NULL).
 * Return: 0, or -EINTR, -ETIMEDOUT, or why the generation ended.
 */
static int umh_tx_wait(struct umh_proc *p, bool *owned,
		       unsigned long deadline)
{
	long t = wait_event_killable_timeout(p->wq, umh_tx_ready(p, owned),
					     umh_left(deadline));

	if (t < 0)
		return -EINTR;
	if (READ_ONCE(p->dead))
		return READ_ONCE(p->dead);
	return t ? 0 : -ETIMEDOUT;
}

/* Write header and payload with as few pipe writes (and wakeups) as fit. */
static int umh_write_frame(struct umh_proc *p, const struct umh_hdr *hdr,
			   const void *payload, unsigned long deadline,
			   size_t *sent)
{
	struct kvec vec[2] = {
		{ .iov_base = (void *)hdr, .iov_len = sizeof(*hdr) },
		{ .iov_base = (void *)payload, .iov_len = hdr->len },
	};
	struct iov_iter iter;
	int ret;

	iov_iter_kvec(&iter, ITER_SOURCE, vec, hdr->len ? 2 : 1,
		      sizeof(*hdr) + hdr->len);
	while (iov_iter_count(&iter)) {
		loff_t pos = 0;
		ssize_t n = vfs_iter_write(p->tx, &iter, &pos, 0);

		if (n > 0) {
			*sent += n;
			continue;
		}
		if (n != -EAGAIN)
			return n ? n : -EIO;
		ret = umh_tx_wait(p, NULL, deadline);
		if (ret)
			return ret;
	}
	return 0;
}

/* Send one request frame; a frame cut short leaves the stream unusable. */
static int umh_send(struct umh_proc *p, const struct umh_hdr *hdr,
		    const void *payload, unsigned long deadline, size_t *sent)
{
	bool owned = false;
	int ret;

	ret = umh_tx_wait(p, &owned, deadline);
	if (!ret)
		ret = umh_write_frame(p, hdr, payload, deadline, sent);
	/*
	 * End the generation before letting go of the stream: no other
	 * sender may append a frame to one cut short.  The others did
	 * nothing wrong: don't hand them our -EINTR.  A caller that was
	 * killed mid-frame is no fault of the helper's.  A generation that
	 * was over already was counted by whoever ended it.
	 */
	if (ret && *sent &&
	    umh_proc_end(p, ret == -EINTR ? -ECONNABORTED : ret,
			 ret != -EINTR)) {
		if (ret == -ETIMEDOUT)
			atomic64_inc(&p->ub->timeouts);
		pr_warn_ratelimited("%s: request %u cut short (%d) after %zu bytes; killing helper pid %d\n",
				    p->ub->name, hdr->id, ret, *sent,
				    umh_proc_pid_nr(p));
	}
	if (owned) {
		clear_bit_unlock(0, &p->tx_busy);
		wake_up_all(&p->wq);
	}
	return ret;
}

/*
 * A call its caller leaves (@ret: -ETIMEDOUT or -EINTR) after its request
 * was fully written: the helper has it, and may act on it.  End the
 * generation, so that no helper goes on with what its caller was told
 * failed: the restart replays the module's state (on_start).  A timeout
 * is the helper's fault; a caller that was killed is not.
 */
static void umh_call_left(struct umh_proc *p, u16 op, int ret, bool stalled)
{
	struct umh_blob *ub = p->ub;
	const char *name = op ? ub->cfg.proto->ops[op].name : "hello";

	if (ret == -ETIMEDOUT) {
		if (umh_proc_fail(p, -ETIMEDOUT)) {
			atomic64_inc(&ub->timeouts);
			pr_warn("%s: helper pid %d %s %s%s; killing it\n",
				ub->name, umh_proc_pid_nr(p),
				stalled ? "stalled in its reply to" :
				"did not answer", name,
				stalled ? "" : " within its deadline");
		}
	} else if (umh_proc_end(p, -ECONNABORTED, false)) {
		pr_info("%s: caller of %s was killed after sending it; restarting helper pid %d so that it cannot act on a failed call\n",
			ub->name, name, umh_proc_pid_nr(p));
	}
}

/*
 * One call on generation @p.  @rep_cap is the reply size for a fixed reply
 * and the largest acceptable one for a variable reply.
 */
static int umh_proc_call(struct umh_proc *p, u16 op, const void *req,
			 u32 req_len, void *rep, u32 rep_cap, bool fixed,
			 size_t *rep_len, unsigned long deadline)
{
	struct umh_call *call;
	struct umh_hdr hdr;
	size_t sent = 0;
	bool whole;
	long t;
	int ret;

	call = kzalloc(sizeof(*call), GFP_KERNEL);
	if (!call)
		return -ENOMEM;
	refcount_set(&call->ref, 2);
	init_completion(&call->done);
	call->op = op;
	call->rep = rep;
	call->rep_cap = rep_cap;
	call->fixed = fixed;
	call->sending = true;

	spin_lock(&p->lock);
	if (p->dead) {
		ret = p->dead;
		spin_unlock(&p->lock);
		kfree(call);
		return ret;
	}
	call->id = ++p->next_id;
	list_add_tail(&call->node, &p->pending);
	spin_unlock(&p->lock);

	umh_hdr_init(&hdr, op, call->id, req_len, 0, 0, rep_cap);
	ret = umh_send(p, &hdr, req, deadline, &sent);
	whole = sent == sizeof(hdr) + req_len;

	/* Done with @req: a parked reply may land in @rep now. */
	spin_lock(&p->lock);
	call->sending = false;
	if (p->rparked) {
		p->rparked = false;
		spin_unlock(&p->lock);
		wake_up_all(&p->wq);
	} else {
		spin_unlock(&p->lock);
	}
	if (ret)
		goto abandon;

	t = wait_for_completion_killable_timeout(&call->done,
						 umh_left(deadline));
	if (t > 0)
		goto done;
	ret = t ? -EINTR : -ETIMEDOUT;

abandon:
	spin_lock(&p->lock);
	if (call->state == UMH_CALL_PENDING) {
		if (whole) {
			/* Stays listed so its reply is recognised and dropped. */
			call->abandoned = true;
			call->rep = NULL;
		} else {
			/*
			 * Never (fully) sent: no reply will come, and the
			 * helper has nothing to act on.  A deadline that
			 * passed while this call only waited for the stream
			 * is no fault of the helper's (a frame cut short
			 * ended the generation in umh_send()).
			 */
			list_del_init(&call->node);
			call->state = UMH_CALL_DONE;
			refcount_dec(&call->ref);
		}
		spin_unlock(&p->lock);
		if (whole)
			umh_call_left(p, op, ret, false);
		umh_call_put(call);
		return ret;
	}
	if (call->state == UMH_CALL_CLAIMED) {
		/*
		 * The reader is filling our buffer: make it let go first.
		 * Not killable: the buffer is ours to free once we return.
		 * Bounded: the reader never blocks while it holds a call.
		 */
		WRITE_ONCE(call->abandoned, true);
		spin_unlock(&p->lock);
		wake_up_all(&p->wq);
		wait_for_completion(&call->done);
		if (call->cut) {
			/* Reply started but not finished when we left. */
			umh_call_left(p, op, ret, true);
			umh_call_put(call);
			return ret;
		}
	} else {
		spin_unlock(&p->lock);
	}
done:
	ret = call->status;
	if (!ret && rep_len)
		*rep_len = call->rep_len;
	umh_call_put(call);
	return ret;
}

static bool umh_settled(struct umh_blob *ub)
{
	enum umh_blob_state s = READ_ONCE(ub->state);

	return s != UMH_BLOB_RESTARTING && s != UMH_BLOB_STARTING;
}

/*
 * Get a reference to the generation that may take a call now, waiting
 * (killable, until @deadline) while one is being started.
 */
static struct umh_proc *umh_get_proc(struct umh_blob *ub,
				     unsigned long deadline)
{
	struct umh_proc *p = NULL, *dying;
	long t;
	int ret;

	for (;;) {
		dying = NULL;
		mutex_lock(&ub->lock);
		switch (ub->state) {
		case UMH_BLOB_RUNNING:
			/*
			 * Died an instant ago: the blob is about to restart
			 * it.  Don't send into it.
			 */
			if (READ_ONCE(ub->proc->dead) ||
			    umh_task_exited(ub->proc->pid)) {
				dying = ub->proc;
				kref_get(&dying->ref);
			} else {
				p = ub->proc;
			}
			break;
		case UMH_BLOB_STARTING:
			/* on_start calls the generation it is starting. */
			if (ub->starter == current && ub->proc)
				p = ub->proc;
			break;
		case UMH_BLOB_RESTARTING:
			break;
		case UMH_BLOB_FAILED:
			ret = -ENOTCONN;
			goto out;
		default:
			ret = -ESHUTDOWN;
			goto out;
		}
		if (p) {
			kref_get(&p->ref);
			mutex_unlock(&ub->lock);
			return p;
		}
		mutex_unlock(&ub->lock);

		if (dying) {
			/*
			 * Normally the reader sees EOF at once; but a child
			 * the helper forked may hold its pipe open, so end
			 * the generation from here too (a no-op if done).
			 */
			umh_proc_fail(dying, -ECONNRESET);
			umh_proc_put(dying);
			if (!umh_left(deadline))
				return ERR_PTR(-ETIMEDOUT);
			schedule_timeout_killable(1);
			if (fatal_signal_pending(current))
				return ERR_PTR(-EINTR);
			continue;
		}
		t = wait_event_killable_timeout(ub->state_wq,
						umh_settled(ub),
						umh_left(deadline));
		if (t < 0)
			return ERR_PTR(-EINTR);
		if (!t)
			return ERR_PTR(-ETIMEDOUT);
	}
out:
	mutex_unlock(&ub->lock);
	return ERR_PTR(ret);
}

static int umh_call(struct umh_blob *ub, u16 op, const void *req,
		    u32 req_len, void *rep, u32 rep_cap, bool fixed,
		    size_t *rep_len, unsigned int timeout_ms)
{
	unsigned long deadline;
	struct umh_proc *p;
	int ret;

	deadline = jiffies + msecs_to_jiffies(timeout_ms ?:
					      ub->cfg.call_timeout_ms);
	atomic64_inc(&ub->calls);
	p = umh_get_proc(ub, deadline);
	if (IS_ERR(p)) {
		ret = PTR_ERR(p);
	} else {
		ret = umh_proc_call(p, op, req, req_len, rep, rep_cap, fixed,
				    rep_len, deadline);
		umh_proc_put(p);
	}
	if (ret) {
		atomic64_inc(&ub->failures);
		WRITE_ONCE(ub->last_error, ret);
	}
	return ret;
}

/**
 * umh_blob_call() - make one call to the helper and wait for its reply
 * @ub:		the helper
 * @op:		operation number of the helper's protocol
 * @req:	request payload
 * @req_len:	its length: exactly the declared size for a fixed request
 * @rep:	reply buffer
 * @rep_cap:	its size: exactly the declared size for a fixed reply
 * @rep_len:	set to the reply length on success; may be NULL
 * @timeout_ms:	deadline for the whole call, queueing included (0: default)
 *
 * Usually called through the typed wrappers UMH_PROTO_DEFINE() generates.
 * A call that times out ends the helper generation that failed to answer:
 * it is killed and restarted.
 *
 * Context: process context; sleeps.  Many callers may call concurrently.
 * A caller killed after its request was fully sent gets -EINTR, and the
 * generation ends as for a timeout (without counting toward max_restarts):
 * a helper never goes on with a request whose caller was told it failed.
 *
 * Return: the helper's status (0 or its negative errno), or -EOPNOTSUPP,
 * -EINVAL, -EMSGSIZE for a request that does not fit @op (-EINVAL also for
 * a NULL @req or @rep with a non-zero size), -ETIMEDOUT,
 * -EINTR if the caller was killed, -ECONNRESET, -EPIPE or -EPROTO if the
 * helper died or broke the protocol, -ECONNABORTED if another caller's
 * request was cut short, -ENOTCONN if the helper is down for good, and
 * -ESHUTDOWN once umh_blob_stop() has run.
 */
int umh_blob_call(struct umh_blob *ub, unsigned int op,
		  const void *req, size_t req_len,
		  void *rep, size_t rep_cap, size_t *rep_len,
		  unsigned int timeout_ms)
{
	const struct umh_op_desc *d = umh_proto_op(ub->cfg.proto, op);
	int ret;

	if (!d)
		return -EOPNOTSUPP;
	if ((!req && req_len) || (!rep && rep_cap))
		return -EINVAL;
	ret = umh_op_check_req(d, req_len, ub->cfg.max_payload);
	if (ret)
		return ret;
	if (!d->rep_var && rep_cap != d->rep_size)
		return -EINVAL;
	rep_cap = min_t(size_t, rep_cap, umh_op_rep_max(d, ub->cfg.max_payload));
	return umh_call(ub, op, req, req_len, rep, rep_cap, !d->rep_var,
			rep_len, timeout_ms);
}

static int umh_hello(struct umh_blob *ub, struct umh_proc *p,
		     unsigned long deadline)
{
	const struct umh_proto *proto = ub->cfg.proto;
	struct umh_hello req = {
		.proto_id = proto->id,
		.proto_version = proto->version,
		.max_payload = ub->cfg.max_payload,
	};
	struct umh_hello rep;
	int ret;

	ret = umh_proc_call(p, UMH_OP_HELLO, &req, sizeof(req), &rep,
			    sizeof(rep), true, NULL, deadline);
	if (ret)
		return ret;
	if (rep.proto_id != proto->id || rep.proto_version != proto->version) {
		pr_err("%s: helper speaks protocol %#x version %u, expected %s (%#x) version %u\n",
		       ub->name, rep.proto_id, rep.proto_version, proto->name,
		       proto->id, proto->version);
		umh_proc_fail(p, -EPROTO);
		return -EPROTO;
	}
	return 0;
}

/**
 * umh_blob_ping() - check that the helper answers
 * @ub:		the helper
 * @timeout_ms:	deadline (0: the default call timeout)
 *
 * Sends the SDK's hello frame.  A helper that does not answer in time is
 * killed and restarted, like after any timed-out call.
 *
 * Context: process context; sleeps.
 * Return: 0 if the helper answered with the right protocol, else as
 * umh_blob_call().
 */
int umh_blob_ping(struct umh_blob *ub, unsigned int timeout_ms)
{
	unsigned long deadline;
	struct umh_proc *p;
	int ret;

	deadline = jiffies + msecs_to_jiffies(timeout_ms ?:
					      ub->cfg.call_timeout_ms);
	p = umh_get_proc(ub, deadline);
	if (IS_ERR(p))
		return PTR_ERR(p);
	ret = umh_hello(ub, p, deadline);
	umh_proc_put(p);
	return ret;
}

/* ---- life cycle ---- */

static void umh_health_work(struct work_struct *work)
{
	struct umh_blob *ub = container_of(to_delayed_work(work),
					   struct umh_blob, health_work);

	if (READ_ONCE(ub->state) == UMH_BLOB_RUNNING)
		(void)umh_blob_ping(ub, 0);	/* failures restart it */
	if (!READ_ONCE(ub->stopping))
		schedule_delayed_work(&ub->health_work,
				      msecs_to_jiffies(ub->cfg.health_interval_ms));
}

/*
 * Start one generation: spawn, handshake, on_start.  Not under ub->lock.
 * The caller has set the state to STARTING and ub->starter to current.
 * On failure the state becomes @fail_state (STOPPED if stopping).
 *
 * References: the spawn gives us one, which we hold until we return, so
 * that a concurrent umh_blob_stop() (which tears down whatever ub->proc
 * holds) cannot free the generation under the handshake; ub->proc holds
 * its own.  Whoever takes the generation out of ub->proc tears it down.
 */
static int umh_do_start(struct umh_blob *ub, enum umh_blob_state fail_state)
{
	struct umh_proc *p, *drop = NULL;
	unsigned long deadline;
	bool published = false;
	int ret;

	deadline = jiffies + msecs_to_jiffies(ub->cfg.start_timeout_ms);
	p = umh_proc_spawn(ub);
	if (IS_ERR(p)) {
		ret = PTR_ERR(p);
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

	ret = umh_hello(ub, p, deadline);
	if (ret == -ECONNRESET || ret == -ESHUTDOWN)
		pr_err("%s: helper pid %d exited before completing the handshake\n",
		       ub->name, umh_proc_pid_nr(p));
	else if (ret == -ETIMEDOUT)
		pr_err("%s: helper pid %d did not complete the handshake within %u ms\n",
		       ub->name, umh_proc_pid_nr(p), ub->cfg.start_timeout_ms);
	else if (ret && ret != -EPROTO)
		pr_err("%s: handshake with helper pid %d failed: %d\n",
		       ub->name, umh_proc_pid_nr(p), ret);
	if (!ret && ub->cfg.on_start) {
		ret = ub->cfg.on_start(ub, ub->cfg.priv);
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
		umh_set_state(ub, UMH_BLOB_RUNNING);
		pr_info("%s: helper running, pid %d (generation %u)\n",
			ub->name, umh_proc_pid_nr(p), p->gen);
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
	int ret;

	mutex_lock(&ub->lock);
	if (ub->state != UMH_BLOB_RESTARTING)
		goto unlock;
	old = ub->proc;
	ub->proc = NULL;
	if (old) {
		mutex_unlock(&ub->lock);
		umh_proc_teardown(old);
		umh_proc_put(old);
		mutex_lock(&ub->lock);
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

	ret = umh_do_start(ub, UMH_BLOB_RESTARTING);
	if (!ret || ret == -ESHUTDOWN)
		return;
	mutex_lock(&ub->lock);
	if (!ub->stopping && ub->state == UMH_BLOB_RESTARTING) {
		/*
		 * -EBUSY: user-mode helpers are disabled (suspend or
		 * shutdown): no fault of the helper's; try again later.
		 * Any other failure to start counts.
		 */
		ub->restart_fault = ret != -EBUSY;
		schedule_delayed_work(&ub->restart_work,
				      ret == -EBUSY ?
				      msecs_to_jiffies(ub->cfg.backoff_max_ms) : 0);
	}
unlock:
	mutex_unlock(&ub->lock);
}

static void umh_blob_proc_died(struct umh_blob *ub, struct umh_proc *p,
			       int err)
{
	mutex_lock(&ub->lock);
	if (ub->proc == p && ub->state == UMH_BLOB_RUNNING) {
		umh_set_state(ub, UMH_BLOB_RESTARTING);
		WRITE_ONCE(ub->last_error, err);
		ub->restart_fault = p->fault;
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
 *
 * Context: process context; sleeps up to the start timeout.
 * Return: 0 once the helper answers calls; -ENOEXEC if the blob is not an
 * executable, -ECONNRESET if the helper exited early, -ETIMEDOUT if it did
 * not answer the handshake, -EPROTO if it speaks another protocol, or the
 * error of on_start.  -EBUSY if it was started already (or is being
 * started by a concurrent call).
 */
int umh_blob_start(struct umh_blob *ub)
{
	int ret;

	mutex_lock(&ub->lock);
	if (ub->state != UMH_BLOB_STOPPED || ub->stopping) {
		mutex_unlock(&ub->lock);
		return -EBUSY;
	}
	umh_set_state(ub, UMH_BLOB_STARTING);
	ub->starter = current;
	mutex_unlock(&ub->lock);

	ret = umh_do_start(ub, UMH_BLOB_FAILED);
	if (ret)
		return ret;
	if (ub->cfg.health_interval_ms)
		schedule_delayed_work(&ub->health_work,
				      msecs_to_jiffies(ub->cfg.health_interval_ms));
	return 0;
}

/**
 * umh_blob_stop() - kill the helper and fail every call, for good
 * @ub:	the helper
 *
 * Calls in flight return -ESHUTDOWN, later calls fail at once.  Returns
 * after the helper process is gone and no generation holds a file, a pid
 * or a wait-queue entry any more.  Idempotent.
 *
 * Context: process context; sleeps.
 */
void umh_blob_stop(struct umh_blob *ub)
{
	struct umh_proc *p;

	mutex_lock(&ub->lock);
	WRITE_ONCE(ub->stopping, true);
	umh_set_state(ub, UMH_BLOB_STOPPED);
	p = ub->proc;
	ub->proc = NULL;
	mutex_unlock(&ub->lock);

	if (p) {
		umh_proc_teardown(p);
		umh_proc_put(p);
	}
	cancel_delayed_work_sync(&ub->restart_work);
	cancel_delayed_work_sync(&ub->health_work);
	/* A restart that was under way has torn its generation down too. */
	while (!wait_var_event_timeout(&ub->nprocs,
				       !atomic_read(&ub->nprocs), 10 * HZ))
		pr_warn("%s: still waiting for %d helper generations to be released\n",
			ub->name, atomic_read(&ub->nprocs));
}

/* ---- status view: /sys/module/<owner>/umh_<name>/ ---- */

#define to_umh_blob(k) container_of(k, struct umh_blob, kobj)

static ssize_t state_show(struct kobject *k, struct kobj_attribute *a,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  umh_state_names[READ_ONCE(to_umh_blob(k)->state)]);
}

static ssize_t pid_show(struct kobject *k, struct kobj_attribute *a,
			char *buf)
{
	return sysfs_emit(buf, "%d\n", umh_blob_pid(to_umh_blob(k)));
}

static ssize_t restarts_show(struct kobject *k, struct kobj_attribute *a,
			     char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&to_umh_blob(k)->restarts));
}

static ssize_t generation_show(struct kobject *k, struct kobj_attribute *a,
			       char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_umh_blob(k)->gen));
}

static ssize_t calls_show(struct kobject *k, struct kobj_attribute *a,
			  char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&to_umh_blob(k)->calls));
}

static ssize_t failures_show(struct kobject *k, struct kobj_attribute *a,
			     char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_umh_blob(k)->failures));
}

static ssize_t timeouts_show(struct kobject *k, struct kobj_attribute *a,
			     char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_umh_blob(k)->timeouts));
}

static ssize_t violations_show(struct kobject *k, struct kobj_attribute *a,
			       char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_umh_blob(k)->violations));
}

static ssize_t sandbox_kills_show(struct kobject *k, struct kobj_attribute *a,
				  char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&to_umh_blob(k)->sandbox_kills));
}

/*
 * What the running helper's confinement looks like from the kernel: the
 * same facts as NoNewPrivs, Seccomp and CapEff in /proc/<pid>/status, for
 * a quick look (and an alarm if "seccomp=off").
 */
static ssize_t sandbox_show(struct kobject *k, struct kobj_attribute *a,
			    char *buf)
{
	struct umh_blob *ub = to_umh_blob(k);
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

static ssize_t last_error_show(struct kobject *k, struct kobj_attribute *a,
			       char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_umh_blob(k)->last_error));
}

static ssize_t protocol_show(struct kobject *k, struct kobj_attribute *a,
			     char *buf)
{
	const struct umh_proto *p = to_umh_blob(k)->cfg.proto;

	return sysfs_emit(buf, "%s %#x %u\n", p->name, p->id, p->version);
}

static struct kobj_attribute umh_attr_state = __ATTR_RO(state);
static struct kobj_attribute umh_attr_pid = __ATTR_RO(pid);
static struct kobj_attribute umh_attr_restarts = __ATTR_RO(restarts);
static struct kobj_attribute umh_attr_generation = __ATTR_RO(generation);
static struct kobj_attribute umh_attr_calls = __ATTR_RO(calls);
static struct kobj_attribute umh_attr_failures = __ATTR_RO(failures);
static struct kobj_attribute umh_attr_timeouts = __ATTR_RO(timeouts);
static struct kobj_attribute umh_attr_violations = __ATTR_RO(violations);
static struct kobj_attribute umh_attr_sandbox_kills = __ATTR_RO(sandbox_kills);
static struct kobj_attribute umh_attr_sandbox = __ATTR_RO(sandbox);
static struct kobj_attribute umh_attr_last_error = __ATTR_RO(last_error);
static struct kobj_attribute umh_attr_protocol = __ATTR_RO(protocol);

static struct attribute *umh_attrs[] = {
	&umh_attr_state.attr,
	&umh_attr_pid.attr,
	&umh_attr_restarts.attr,
	&umh_attr_generation.attr,
	&umh_attr_calls.attr,
	&umh_attr_failures.attr,
	&umh_attr_timeouts.attr,
	&umh_attr_violations.attr,
	&umh_attr_sandbox_kills.attr,
	&umh_attr_sandbox.attr,
	&umh_attr_last_error.attr,
	&umh_attr_protocol.attr,
	NULL,
};
ATTRIBUTE_GROUPS(umh);

static void umh_blob_release(struct kobject *kobj)
{
	struct umh_blob *ub = to_umh_blob(kobj);

	kfree(ub->restart_at);
	kfree(ub);
}

static const struct kobj_type umh_ktype = {
	.release = umh_blob_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = umh_groups,
};

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

static int umh_copy_blob(struct umh_blob *ub, const void *blob, size_t size)
{
	char name[UMH_NAME_MAX + 8];
	loff_t pos = 0;
	ssize_t n;

	snprintf(name, sizeof(name), "umh-%s", ub->name);
	ub->exe = shmem_file_setup(name, size, 0);
	if (IS_ERR(ub->exe)) {
		n = PTR_ERR(ub->exe);
		ub->exe = NULL;
		return n;
	}
	while (pos < size) {
		n = kernel_write(ub->exe, blob + pos, size - pos, &pos);
		if (n <= 0)
			return n ? n : -EIO;
	}
	return umh_seal(ub->exe);
}

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
	kobject_init(&ub->kobj, &umh_ktype);
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
	ret = umh_copy_blob(ub, blob, size);
	if (ret) {
		pr_err("%s: cannot copy the helper blob: %d\n", ub->name, ret);
		goto err;
	}
	ret = umh_mount(ub);
	if (ret) {
		pr_err("%s: cannot mount the private tmpfs: %d\n", ub->name, ret);
		goto err;
	}
	parent = cfg->owner ? &cfg->owner->mkobj.kobj : kernel_kobj;
	ret = kobject_add(&ub->kobj, parent, "umh_%s", ub->name);
	if (ret)
		goto err;
	ub->kobj_added = true;
	return ub;

err:
	umh_blob_destroy(ub);
	return ERR_PTR(ret);
}

/**
 * umh_blob_destroy() - stop the helper and free everything
 * @ub:	the helper; may be an ERR_PTR or NULL
 *
 * Stops the helper as umh_blob_stop() does, removes the status view and
 * drops the copy of the blob.  The caller must make sure nobody calls
 * @ub any more: unregister the interfaces that lead to calls first (after
 * umh_blob_stop() they return at once).
 *
 * Context: process context; sleeps.
 */
void umh_blob_destroy(struct umh_blob *ub)
{
	if (IS_ERR_OR_NULL(ub))
		return;
	umh_blob_stop(ub);
	if (ub->mnt)
		kern_unmount(ub->mnt);
	if (ub->exe)
		fput(ub->exe);
	if (ub->kobj_added)
		kobject_del(&ub->kobj);
	kobject_put(&ub->kobj);
}

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
