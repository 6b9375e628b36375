/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umh-sdk kernel side, internal: what the SDK's kernel files share.  Not a
 * public header: modules use <umh_sdk/umh_blob.h>.
 *
 *   umh_proc.c    one generation of the helper: FIFOs, spawn, reader
 *                 thread, failure and teardown
 *   umh_call.c    calls: send, wait, abandon; the handshake; ping
 *   umh_blob.c    the life cycle (the one state setter, start, restart,
 *                 health, stop) and creation
 *   umh_status.c  the status view in sysfs
 *
 * Documentation/architecture.rst has the design and the state diagram.
 */
#ifndef _UMH_INTERNAL_H
#define _UMH_INTERNAL_H

#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/fcntl.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs_struct.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/suspend.h>
#include <linux/ratelimit.h>
#include <linux/cred.h>
#include <linux/refcount.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <uapi/linux/sched/types.h>
#include <linux/seccomp.h>
#include <linux/shmem_fs.h>
#include <linux/task_work.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uio.h>
#include <linux/umh.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

/*
 * Out of tree, scripts/Kbuild.umh compiles these files into each module
 * that embeds a helper, and nothing is exported.  In a kernel tree they are
 * one object (kernel/umh_sdk/, Kconfig UMH_SDK), built in or a module, that
 * every user links against: its Kbuild defines UMH_SDK_LIBRARY, and the
 * public functions are exported.  The other expansion only checks that
 * the symbol exists and, like the export, takes the semicolon after it.
 */
#ifdef UMH_SDK_LIBRARY
#define UMH_EXPORT(sym)	EXPORT_SYMBOL_GPL(sym)
#else
#define UMH_EXPORT(sym)	static_assert(!__same_type(sym, int))
#endif

#include <umh_sdk/compat.h>
#include <umh_sdk/umh_blob.h>

#define UMH_NAME_MAX		32
#define UMH_ERR_LINE		256
#define UMH_EXIT_WAIT		(5 * HZ)
/* Bytes of stderr passed on once a generation is over (see umh_reader). */
#define UMH_LAST_WORDS		(16 * UMH_ERR_LINE)
#define UMH_MAX_RESTARTS_CAP	1000
/* What a caller reading the reply stream reads at once (umh_rx_read()). */
#define UMH_RX_AHEAD		256
/* Reply stream steps the reader thread takes before waking callers. */
#define UMH_READER_BATCH	16

enum { UMH_POLL_TX, UMH_POLL_RX, UMH_POLL_ERR, UMH_NR_POLL };

/* Bits of umh_proc.rx_busy */
enum { UMH_RX_OWNED, UMH_RX_CALLER };

enum umh_call_state {
	UMH_CALL_PENDING,	/* on proc->pending, waiting for its reply */
	UMH_CALL_CLAIMED,	/* its reply is being copied (rx_busy) */
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

/*
 * Where the last successful start of a helper spent its time, in
 * microseconds (the status view's last_start_us).  WAIT and TEARDOWN are a
 * restart's only: from the death noticed to the restart work running
 * (backoff included), and the old generation's teardown.
 */
enum umh_start_stage {
	UMH_START_WAIT,
	UMH_START_TEARDOWN,
	UMH_START_FIFOS,	/* the three FIFOs made and opened */
	UMH_START_READER,	/* the reader thread created */
	UMH_START_EXEC,		/* call_usermodehelper_exec() until the exec */
	UMH_START_HELLO,	/* the handshake */
	UMH_START_ON_START,	/* the module's on_start callback */
	UMH_START_NR
};

/* One generation of the helper process. */
struct umh_proc {
	struct kref ref;
	struct rcu_head rcu;	/* freed after a grace period: umh_blob.live */
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
	/*
	 * One queue for senders and the reader thread, on purpose: see
	 * "One wait queue" in Documentation/channel.rst.
	 */
	wait_queue_head_t wq;
	/*
	 * Wakes the waiters on wq once the earliest deadline it was armed
	 * for has passed (umh_expired()): one timer for the generation's
	 * waits, not one set up and cancelled for each sleep.
	 */
	struct timer_list deadline;
	struct task_struct *reader;
	u32 start_us[UMH_START_NR];	/* umh_proc_spawn() and its starter */

	spinlock_t lock;	/* pending, next_id, dead, call states, rpark */
	struct list_head pending;
	/*
	 * Calls the reader thread finished and holds, their callers not
	 * woken yet: it wakes them once it has read all there was (reader
	 * thread only; the lock too).
	 */
	struct list_head rdone;
	/*
	 * A call structure kept for the next call once its last reference
	 * is gone (umh_call_put()), so that a caller alone in flight does
	 * not allocate and free one per call; xchg() and cmpxchg() only.
	 */
	struct umh_call *spare;
	u32 next_id;
	int dead;		/* 0, or why this generation is over */
	bool fault;		/* ended by the helper's fault (counts) */
	bool torn;		/* umh_proc_teardown() ran */
	bool rparked;		/* reader waits for its call's request */

	unsigned long tx_busy;	/* bit 0: a sender owns the request stream */
	/*
	 * UMH_RX_OWNED: who reads the reply stream, the reader thread or a
	 * caller that waits alone (UMH_RX_CALLER too; "Who reads a reply" in
	 * channel.rst).  The reader sleeps on wq through rwait, which a
	 * reply's wakeup skips while a caller reads.
	 */
	unsigned long rx_busy;
	wait_queue_entry_t rwait;

	/* Whoever holds rx_busy (rx_eof: read by anyone). */
	struct umh_hdr rhdr;
	size_t rhdr_got;
	bool rclaimed;		/* rhdr's call is claimed (or dropped) */
	bool rx_eof;
	struct umh_call *rcall;	/* claimed call whose payload is read */
	u32 rgot;
	char scratch[256];	/* sink for payloads nobody waits for */
	/*
	 * Bytes a reading caller read ahead of where the parser is
	 * (umh_rx_read()); whoever reads next takes them first.
	 */
	char ahead[UMH_RX_AHEAD];
	u16 ahead_pos, ahead_len;
	/* Reader thread only. */
	bool err_eof;
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
	struct notifier_block pm_nb;	/* health pings paused in suspend */
	bool pm_registered;

	struct mutex lock;		/* everything below up to stats */
	enum umh_blob_state state;
	bool stopping;
	bool suspended;			/* between PM prepare and post */
	bool backoff_served;
	bool restart_fault;		/* the next restart counts */
	struct umh_proc *proc;		/* current generation, ref held */
	/* proc while RUNNING, else NULL: umh_get_proc() without the lock */
	struct umh_proc __rcu *live;
	struct task_struct *starter;	/* may call while STARTING */
	unsigned long *restart_at;	/* ring of restart times */
	unsigned int restart_idx;
	unsigned int gen;
	wait_queue_head_t state_wq;
	struct delayed_work restart_work;
	struct delayed_work health_work;
	atomic_t nprocs;		/* generations not yet released */
	ktime_t died_at;		/* when a restart was scheduled */
	/* WAIT and TEARDOWN of the restart under way (the first two stages) */
	u32 restart_us[UMH_START_TEARDOWN + 1];
	u32 start_us[UMH_START_NR];	/* the last successful start */
	u32 create_us;			/* umh_blob_create() */

	atomic64_t calls, failures, timeouts, violations, sandbox_kills;
	atomic_t restarts;
	int last_error;
};

/* Microseconds since @t0, saturated. */
static inline u32 umh_us_since(ktime_t t0)
{
	s64 us = ktime_us_delta(ktime_get(), t0);

	return us < 0 ? 0 : us > U32_MAX ? U32_MAX : (u32)us;
}

/*
 * Read or write one of a generation's FIFOs through the pipe's own
 * operations.  The kernel opened them, on a mount nobody else sees: the
 * task that happens to be making a call has no say over them, so no LSM
 * permission check is made with its credentials (a file it never
 * opened is not its profile's to grant or refuse), and no
 * fsnotify event or I/O accounting is charged to it.
 * Return: bytes moved, -EAGAIN if the pipe is empty (full), or -errno.
 */
static inline ssize_t umh_fifo_io(struct file *f, struct iov_iter *iter)
{
	struct kiocb kiocb;

	init_sync_kiocb(&kiocb, f);
	if (iov_iter_rw(iter) == WRITE)
		return f->f_op->write_iter(&kiocb, iter);
	return f->f_op->read_iter(&kiocb, iter);
}

static inline ssize_t umh_fifo_read(struct file *f, void *buf, size_t len)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;

	iov_iter_kvec(&iter, ITER_DEST, &kv, 1, len);
	return umh_fifo_io(f, &iter);
}

static inline long umh_left(unsigned long deadline)
{
	return time_after(deadline, jiffies) ? (long)(deadline - jiffies) : 0;
}

/*
 * The condition of a wait on p->wq that ends at @deadline: has it passed?
 * If not, the generation's deadline timer is made to fire by then, to
 * wake the waiter.  Calls share a timeout, so the timer, once armed for
 * the first deadline, rarely moves: a sleep costs no timer of its own.
 * Evaluated again after every wakeup (the timer's among them), so a
 * waiter the timer woke early arms it for its own deadline.
 */
static inline bool umh_expired(struct umh_proc *p, unsigned long deadline)
{
	if (!time_before(jiffies, deadline))
		return true;
	if (!timer_pending(&p->deadline) ||
	    time_before(deadline, READ_ONCE(p->deadline.expires)))
		timer_reduce(&p->deadline, deadline);
	return false;
}

/*
 * Drop a reference to a call of @p; the last one keeps the structure as
 * @p's spare if there is none yet.  Whoever calls this holds @p.
 */
static inline void umh_call_put(struct umh_proc *p, struct umh_call *call)
{
	if (refcount_dec_and_test(&call->ref) && cmpxchg(&p->spare, NULL, call))
		kfree(call);
}

/* Called with p->lock held: @call's outcome, its caller not told yet. */
static inline void umh_call_settle(struct umh_call *call, int status, u32 len)
{
	call->status = status;
	call->rep_len = len;
	call->state = UMH_CALL_DONE;
}

/* Tell a settled @call's caller; drops the channel's reference. */
static inline void umh_call_wake(struct umh_proc *p, struct umh_call *call)
{
	complete(&call->done);
	umh_call_put(p, call);
}

/* Called with p->lock held; drops the channel's reference. */
static inline void umh_call_finish(struct umh_proc *p, struct umh_call *call,
				   int status, u32 len)
{
	umh_call_settle(call, status, len);
	umh_call_wake(p, call);
}

static inline pid_t umh_proc_pid_nr(struct umh_proc *p)
{
	return p->pid ? pid_nr(p->pid) : 0;
}

/* umh_proc.c */
struct umh_proc *umh_proc_spawn(struct umh_blob *ub);
bool umh_rx_own(struct umh_proc *p);
int umh_rx_direct(struct umh_proc *p, struct umh_call *call,
		  unsigned long deadline);
extern char umh_wake_quiet;
extern char umh_wake_tx;
void umh_proc_put(struct umh_proc *p);
bool umh_proc_end(struct umh_proc *p, int err, bool fault);
bool umh_proc_fail(struct umh_proc *p, int err);
void umh_proc_teardown(struct umh_proc *p);
bool umh_task_exited(struct pid *pid);

/* umh_call.c */
int umh_hello(struct umh_blob *ub, struct umh_proc *p, unsigned long deadline);

/* umh_blob.c */
void umh_blob_proc_died(struct umh_blob *ub, struct umh_proc *p, int err);

/* umh_status.c */
extern const struct kobj_type umh_status_ktype;

#endif /* _UMH_INTERNAL_H */
