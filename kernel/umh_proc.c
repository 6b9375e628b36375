// SPDX-License-Identifier: GPL-2.0
/*
 * umh-sdk kernel side: one generation of the helper.  Its FIFOs in the
 * private tmpfs, the spawn through call_usermodehelper(), the reader
 * thread that takes replies and stderr, and how a generation ends.
 *
 * References: a generation (struct umh_proc) is refcounted.  ub->proc
 * holds one for the current generation, a starter holds one while it
 * runs the handshake, each caller one for its call.  Whoever takes it out
 * of ub->proc (or the starter, if it never got there) tears it down, once;
 * the last put frees it.
 */
#define pr_fmt(fmt) "umh: " fmt

#include "umh_internal.h"

/*
 * The key of a wakeup that the reader thread skips while a caller reads
 * the reply stream: bytes (or EOF) on it, a lone sender done sending.
 */
char umh_wake_quiet;

/*
 * The key of a sender's wakeup of the other senders, which the reader
 * thread skips: the request stream is none of its business.
 */
char umh_wake_tx;

/* The key of the deadline timer's wakeup, which the reader skips. */
static char umh_wake_deadline;

/*
 * The generation's deadline timer: wake the waiters on its queue; each
 * checks its own deadline (umh_expired()).
 */
static void umh_deadline_fire(struct timer_list *t)
{
	struct umh_proc *p = container_of(t, struct umh_proc, deadline);

	__wake_up(&p->wq, TASK_NORMAL, 0, &umh_wake_deadline);
}

static int umh_poll_wake(wait_queue_entry_t *wait, unsigned int mode,
			 int sync, void *key)
{
	struct umh_poll *pp = container_of(wait, struct umh_poll, wait);
	struct umh_proc *p = pp->proc;

	if (pp != &p->poll[UMH_POLL_RX]) {
		wake_up(&p->wq);
		return 0;
	}
	/*
	 * The pipe's new bytes before the reader's filter reads
	 * UMH_RX_CALLER; pairs with the barrier in umh_rx_release(), so that
	 * either the reader is woken or the releasing caller sees the bytes.
	 */
	smp_mb();
	__wake_up(&p->wq, TASK_NORMAL, 1, &umh_wake_quiet);
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

	/* Its waiters, who arm it, held references: none is left. */
	timer_delete_sync(&p->deadline);
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
	kfree(p->spare);
	/* umh_get_proc() may still be looking at it through ub->live. */
	kfree_rcu(p, rcu);
	if (atomic_dec_and_test(&ub->nprocs))
		wake_up_var(&ub->nprocs);
}

/**
 * umh_proc_put() - drop a reference to a generation
 * @p:	the generation
 *
 * The last reference frees it: its files, pid, task and wait entries.
 * Context: process context (it may fput()).
 */
void umh_proc_put(struct umh_proc *p)
{
	kref_put(&p->ref, umh_proc_release);
}

/**
 * umh_proc_end() - end a generation
 * @p:		the generation
 * @err:	why; pending calls fail with it
 * @fault:	the helper is to blame (it crashed, hung or broke the
 *		protocol): the restart counts toward max_restarts.  A caller
 *		that gave up is not.
 *
 * Fails every pending call with @err, kills the helper and tells the blob.
 * The first reason wins; later calls are no-ops.
 *
 * Context: process context or the reader thread; takes ub->lock.
 * Return: true if this call ended it (and so should count why).
 */
bool umh_proc_end(struct umh_proc *p, int err, bool fault)
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
		umh_call_finish(p, call, err, 0);
	}
	spin_unlock(&p->lock);
	return true;
}

/**
 * umh_proc_fail() - end a generation by the helper's fault
 * @p:		the generation
 * @err:	why
 *
 * umh_proc_end() with @fault true.
 * Return: true if this call ended it.
 */
bool umh_proc_fail(struct umh_proc *p, int err)
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

/**
 * umh_task_exited() - has the helper's thread group exited?
 * @pid:	its pid
 *
 * Context: any.
 * Return: true once it has exited or been reaped.
 */
bool umh_task_exited(struct pid *pid)
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

static void umh_reader_last(struct umh_proc *p);

/**
 * umh_proc_teardown() - stop a generation for good
 * @p:	the generation; the caller owns a reference
 *
 * Ends it, waits for the helper process to be gone, says how it ended and
 * stops the reader thread.  Done once, by whoever takes the generation out
 * of ub->proc (or by its starter if it never got there).  Other holders of
 * a reference may go on using it: every call on it fails at once.
 *
 * Context: process context; sleeps (bounded).
 */
void umh_proc_teardown(struct umh_proc *p)
{
	if (WARN_ON_ONCE(p->torn))
		return;
	p->torn = true;
	umh_proc_end(p, -ESHUTDOWN, false);
	umh_wait_gone(p);
	umh_report_exit(p);
	/* -EINTR: stopped before it ran, so its last steps are ours. */
	if (p->reader && kthread_stop(p->reader) == -EINTR)
		umh_reader_last(p);
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
	/*
	 * Nobody sees the FIFO's times: spare each pipe read its atime
	 * check and each pipe write its mtime check.
	 */
	inode_set_flags(d_inode(dentry), S_NOATIME | S_NOCMTIME,
			S_NOATIME | S_NOCMTIME);

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

/* ---- the reader thread, and a caller that reads its own reply ---- */

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
	ssize_t n;
	char *nl;

	*got = 0;
	if (p->err_eof)
		return false;
	n = umh_fifo_read(p->err, p->errbuf + p->errlen,
			  sizeof(p->errbuf) - p->errlen);
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
	umh_call_settle(call, status, p->rgot);
	/* The reader thread's caller is told by umh_reader_flush(). */
	if (test_bit(UMH_RX_CALLER, &p->rx_busy))
		umh_call_wake(p, call);
	else
		list_add_tail(&call->node, &p->rdone);
	spin_unlock(&p->lock);
}

/*
 * Wake the callers of the calls the reader thread finished.  It does so
 * once it has read all there was, not reply by reply: a caller woken
 * earlier would preempt it at its next pipe read and run, send its next
 * request, and make the helper run, once for each reply ("One wait
 * queue" in Documentation/channel.rst).
 */
static void umh_reader_flush(struct umh_proc *p)
{
	struct umh_call *call, *tmp;
	LIST_HEAD(done);

	spin_lock(&p->lock);
	list_splice_init(&p->rdone, &done);
	spin_unlock(&p->lock);
	list_for_each_entry_safe(call, tmp, &done, node) {
		list_del_init(&call->node);
		umh_call_wake(p, call);
	}
}

/*
 * Read up to @want bytes of the reply stream into @dst, without blocking:
 * first what was read ahead.  A caller reading the stream reads a small
 * frame's header and payload with one pipe read, into p->ahead; the reader
 * thread reads what the parser asks for, no more ("Who reads a reply" in
 * Documentation/channel.rst).
 * Return: bytes read, 0 at EOF, -EAGAIN if none are there, or -errno.
 */
static ssize_t umh_rx_read(struct umh_proc *p, void *dst, size_t want)
{
	ssize_t n;

	if (p->ahead_pos == p->ahead_len && want < sizeof(p->ahead) &&
	    test_bit(UMH_RX_CALLER, &p->rx_busy)) {
		n = umh_fifo_read(p->rx, p->ahead, sizeof(p->ahead));
		if (n <= 0)
			return n;
		p->ahead_pos = 0;
		p->ahead_len = n;
	}
	if (p->ahead_pos < p->ahead_len) {
		n = min_t(size_t, want, p->ahead_len - p->ahead_pos);
		memcpy(dst, p->ahead + p->ahead_pos, n);
		p->ahead_pos += n;
		return n;
	}
	return umh_fifo_read(p->rx, dst, want);
}

/* Are bytes read ahead waiting for the parser? */
static bool umh_rx_ahead(struct umh_proc *p)
{
	return p->ahead_pos < p->ahead_len;
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
	ssize_t n;
	size_t want;
	void *dst;
	int ret;

	if (p->rhdr_got < sizeof(p->rhdr)) {
		n = umh_rx_read(p, (char *)&p->rhdr + p->rhdr_got,
				sizeof(p->rhdr) - p->rhdr_got);
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
		progress = 1;
		/* A payload read ahead with its header is copied at once. */
		if (p->rgot == p->rhdr.len || !umh_rx_ahead(p))
			goto out;
	}
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
	n = umh_rx_read(p, dst, want);
	if (n == -EAGAIN)
		return progress;
	if (n == 0)
		return -EPIPE;
	if (n < 0)
		return n;
	p->rgot += n;
out:
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

/* Can the holder of rx_busy make progress on the reply stream? */
static bool umh_rx_ready(struct umh_proc *p)
{
	struct umh_call *call = p->rcall;

	return (!p->rx_eof && !READ_ONCE(p->rparked) &&
		(umh_rx_ahead(p) || umh_pollin(p->rx) ||
		 (p->rhdr_got == sizeof(p->rhdr) && !p->rclaimed))) ||
	       (call && READ_ONCE(call->abandoned));
}

/* One step on the reply stream; the caller holds rx_busy. */
static int umh_rx_step(struct umh_proc *p)
{
	int ret = umh_rx(p);

	if (ret < 0) {
		WRITE_ONCE(p->rx_eof, true);
		umh_rx_done(p, ret);
		umh_proc_fail(p, ret);
		return 0;
	}
	return ret;
}

/*
 * Let go of the reply stream after a caller read it, and hand it to the
 * reader thread if there is more to read than the caller's own reply.
 */
static void umh_rx_release(struct umh_proc *p)
{
	bool more = p->rcall || p->rhdr_got || umh_rx_ahead(p);

	clear_bit(UMH_RX_CALLER, &p->rx_busy);
	clear_bit_unlock(UMH_RX_OWNED, &p->rx_busy);
	/*
	 * The bits clear before the checks: wake_up_bit()'s of its waiter,
	 * and ours of the reply stream, whose wakeups the reader skipped
	 * until now (pairs with the barrier in umh_poll_wake()).
	 */
	smp_mb__after_atomic();
	wake_up_bit(&p->rx_busy, UMH_RX_OWNED);
	if (!more) {
		spin_lock(&p->lock);
		more = !list_empty(&p->pending);
		spin_unlock(&p->lock);
	}
	if (more || umh_pollin(p->rx))
		wake_up_all(&p->wq);
}

/* The condition of umh_rx_direct()'s wait: sets *@ready if there is work. */
static bool umh_direct_wake(struct umh_proc *p, struct umh_call *call,
			    bool *ready, unsigned long deadline)
{
	*ready = READ_ONCE(call->state) == UMH_CALL_DONE ||
		 READ_ONCE(p->dead) || umh_rx_ready(p);
	return *ready || umh_expired(p, deadline);
}

/**
 * umh_rx_own() - take the reply stream for a caller
 * @p:	the generation
 *
 * A caller whose call is the only one in flight reads the reply stream
 * itself, as the reader thread would, so that its reply costs no wakeup of
 * the reader thread ("Who reads a reply" in Documentation/channel.rst).
 *
 * Context: any.
 * Return: true if the stream is the caller's until its umh_rx_direct().
 */
bool umh_rx_own(struct umh_proc *p)
{
	if (test_and_set_bit_lock(UMH_RX_OWNED, &p->rx_busy))
		return false;
	set_bit(UMH_RX_CALLER, &p->rx_busy);
	return true;
}

/**
 * umh_rx_direct() - read the reply stream in the caller, for its own reply
 * @p:		the generation; the caller has the stream (umh_rx_own())
 * @call:	the caller's call, fully sent
 * @deadline:	when the caller gives up
 *
 * Reads replies until @call's is in, the generation is over, or the caller
 * gives up; then gives the stream back, to the reader thread if more than
 * @call's reply is on it.
 *
 * Context: process context; sleeps, killable and until @deadline.
 * Return: 0 (wait for @call's completion, which may be done already),
 * -EINTR or -ETIMEDOUT.
 */
int umh_rx_direct(struct umh_proc *p, struct umh_call *call,
		  unsigned long deadline)
{
	/* The reply has hardly come yet: wait first (its check polls). */
	bool ready = false;
	int ret = 0;

	while (READ_ONCE(call->state) != UMH_CALL_DONE &&
	       !READ_ONCE(p->dead) && !p->rx_eof) {
		/* Read on while reads make progress, then wait. */
		if (ready) {
			ready = umh_rx_step(p);
			if (!ready || READ_ONCE(call->state) == UMH_CALL_DONE)
				continue;
			/*
			 * A helper that keeps answering other calls, never
			 * this one, must not keep its caller past its
			 * deadline or a SIGKILL.
			 */
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				break;
			}
			if (!time_before(jiffies, deadline)) {
				ret = -ETIMEDOUT;
				break;
			}
			/*
			 * Not once the reply is in: the helper, which this
			 * caller's wakeup preempted, would run first, only
			 * to block again, and cost two task switches.
			 */
			cond_resched();
			continue;
		}
		if (wait_event_killable(p->wq, umh_direct_wake(p, call, &ready,
							       deadline))) {
			ret = -EINTR;
			break;
		}
		if (!ready) {
			ret = -ETIMEDOUT;
			break;
		}
	}
	umh_rx_release(p);
	return ret;
}

/*
 * The reader's wakeups: all but a reply's while a caller reads the reply
 * stream itself, which would only make the reader thread run for nothing.
 */
static int umh_reader_wake_fn(wait_queue_entry_t *wait, unsigned int mode,
			      int sync, void *key)
{
	struct umh_proc *p = container_of(wait, struct umh_proc, rwait);

	if ((key == &umh_wake_quiet && test_bit(UMH_RX_CALLER, &p->rx_busy)) ||
	    key == &umh_wake_tx ||
	    key == &umh_wake_deadline)
		return 0;
	return woken_wake_function(wait, mode, sync, key);
}

static bool umh_reader_wake(struct umh_proc *p)
{
	bool rx = false;

	if (kthread_should_stop() || (!p->err_eof && umh_pollin(p->err)))
		return true;
	if (!test_and_set_bit_lock(UMH_RX_OWNED, &p->rx_busy)) {
		rx = umh_rx_ready(p);
		clear_bit_unlock(UMH_RX_OWNED, &p->rx_busy);
	}
	return rx;
}

/*
 * The reader thread runs SCHED_BATCH: a reply's wakeup of it does not
 * preempt the helper, which goes on with the requests it has read, and
 * the reader then takes the replies written meanwhile in one turn ("One
 * wait queue" in Documentation/channel.rst).  A lone caller's reply does
 * not go through the reader.  Should the policy not take, the reader
 * works as well at SCHED_NORMAL, only with more task switches.
 */
static void umh_reader_batch(struct umh_blob *ub, struct task_struct *t)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_BATCH,
	};
	int ret = sched_setattr_nocheck(t, &attr);

	if (ret)
		pr_warn_once("%s: reader thread stays at SCHED_NORMAL: %d\n",
			     ub->name, ret);
}

/*
 * The helper is gone: pass on its last words, free its caller.  Its
 * stderr may still have other writers (a child it forked, a process that
 * opened /proc/<pid>/fd/2): take what is there, up to a bound, and never
 * wait for EOF.  A caller that reads the reply stream sees the generation
 * over and lets go of it; the reader keeps it.  Run by the reader thread
 * as it stops, or by umh_proc_teardown() if it was stopped before it ran.
 */
static void umh_reader_last(struct umh_proc *p)
{
	size_t n, got;

	for (n = 0; n < UMH_LAST_WORDS && umh_drain_stderr(p, &got); n += got)
		;
	wait_on_bit_lock(&p->rx_busy, UMH_RX_OWNED, TASK_UNINTERRUPTIBLE);
	umh_rx_done(p, READ_ONCE(p->dead) ?: -ESHUTDOWN);
	umh_reader_flush(p);
}

static int umh_reader(void *data)
{
	struct umh_proc *p = data;
	unsigned int steps = 0;
	size_t got;

	init_waitqueue_func_entry(&p->rwait, umh_reader_wake_fn);
	p->rwait.private = current;
	add_wait_queue(&p->wq, &p->rwait);
	while (!kthread_should_stop()) {
		bool progress = umh_drain_stderr(p, &got);

		if (!READ_ONCE(p->rx_eof) &&
		    !test_and_set_bit_lock(UMH_RX_OWNED, &p->rx_busy)) {
			if (!p->rx_eof && umh_rx_step(p))
				progress = true;
			clear_bit_unlock(UMH_RX_OWNED, &p->rx_busy);
		}
		if (progress) {
			/* Not the callers' every reply: a bounded batch. */
			if (!(++steps % UMH_READER_BATCH))
				umh_reader_flush(p);
			cond_resched();
			continue;
		}
		steps = 0;
		umh_reader_flush(p);
		while (!umh_reader_wake(p))
			wait_woken(&p->rwait, TASK_INTERRUPTIBLE,
				   MAX_SCHEDULE_TIMEOUT);
	}
	remove_wait_queue(&p->wq, &p->rwait);
	umh_reader_last(p);
	return 0;
}

/* ---- starting a generation ---- */

#ifdef MODULE
/* The blob is fd 3 (umh_child_init()); /proc must be mounted. */
static const char *umh_exec_path(struct umh_blob *ub)
{
	return "/proc/self/fd/3";
}

static void umh_exec_cwd(struct umh_blob *ub)
{
}
#else
/* Built in: the blob is <name> in the private mount, the working dir. */
static const char *umh_exec_path(struct umh_blob *ub)
{
	return ub->name;
}

static void umh_exec_cwd(struct umh_blob *ub)
{
	struct path root = { .mnt = ub->mnt, .dentry = ub->mnt->mnt_root };

	set_fs_pwd(current->fs, &root);
}
#endif

static int umh_child_init(struct subprocess_info *info, struct cred *new)
{
	struct umh_proc *p = info->data;
	int fd, i;

	/*
	 * The new process has a copy of the file table the kernel threads
	 * share, which holds files while a kernel thread has some open
	 * (e.g. a worker loading a BPF object through kern_sys_bpf()):
	 * close whatever the copy holds at 0..3, then take them in order.
	 */
	for (i = 0; i <= ARRAY_SIZE(p->child); i++) {
		close_fd(i);
		fd = get_unused_fd_flags(i == 3 ? O_CLOEXEC : 0);
		if (fd != i) {
			if (fd >= 0)
				put_unused_fd(fd);
			while (i--)
				put_unused_fd(i);
			return fd < 0 ? fd : -EMFILE;
		}
	}
	for (i = 0; i < ARRAY_SIZE(p->child); i++) {
		fd_install(i, p->child[i]);
		p->child[i] = NULL;
	}
	fd_install(3, get_file(p->ub->exe));
	umh_exec_cwd(p->ub);
	p->pid = get_task_pid(current, PIDTYPE_TGID);
	p->task = get_task_struct(current);
	return 0;
}

/**
 * umh_proc_spawn() - start a new generation of the helper
 * @ub:	the helper
 *
 * Makes the FIFOs, starts the reader thread and execs the blob.
 *
 * Context: process context; sleeps.
 * Return: the generation with one reference for the caller, or an
 * ERR_PTR() (the exec's error, logged).
 */
struct umh_proc *umh_proc_spawn(struct umh_blob *ub)
{
	struct subprocess_info *info;
	struct umh_proc *p;
	char name[24];
	ktime_t t0;
	int ret;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	kref_init(&p->ref);
	p->ub = ub;
	spin_lock_init(&p->lock);
	INIT_LIST_HEAD(&p->pending);
	INIT_LIST_HEAD(&p->rdone);
	init_waitqueue_head(&p->wq);
	timer_setup(&p->deadline, umh_deadline_fire, 0);
	ratelimit_state_init(&p->err_rs, 5 * HZ, 50);
	atomic_inc(&ub->nprocs);
	mutex_lock(&ub->lock);
	p->gen = ub->gen + 1;
	WRITE_ONCE(ub->gen, p->gen);
	mutex_unlock(&ub->lock);

	t0 = ktime_get();
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
	p->start_us[UMH_START_FIFOS] = umh_us_since(t0);

	t0 = ktime_get();
	p->reader = kthread_create(umh_reader, p, "umh-%s", ub->name);
	if (IS_ERR(p->reader)) {
		ret = PTR_ERR(p->reader);
		p->reader = NULL;
		goto fail;
	}
	umh_reader_batch(ub, p->reader);
	wake_up_process(p->reader);
	p->start_us[UMH_START_READER] = umh_us_since(t0);

	t0 = ktime_get();
	ret = -ENOMEM;
	info = call_usermodehelper_setup(umh_exec_path(ub), ub->argv,
					 ub->envp, GFP_KERNEL, umh_child_init,
					 NULL, p);
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
	p->start_us[UMH_START_EXEC] = umh_us_since(t0);
	return p;

fail:
	umh_proc_teardown(p);
	umh_proc_put(p);
	return ERR_PTR(ret);
}
