// SPDX-License-Identifier: GPL-2.0
/*
 * umh-sdk kernel side: calls.  Each call is framed onto the request FIFO
 * by one sender at a time, listed by id, and completed by the reader
 * thread (or by a caller alone in flight, which reads the replies itself),
 * copying the reply straight into the caller's buffer.
 * Documentation/channel.rst has the design.
 */
#define pr_fmt(fmt) "umh: " fmt

#include <linux/uaccess.h>

#include "umh_internal.h"

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

/* The condition of umh_tx_wait(): sets *@ready if the wait is over. */
static bool umh_tx_woken(struct umh_proc *p, bool *owned, bool *ready,
			 unsigned long deadline)
{
	/*
	 * A sender whose deadline passed while it waited (for the stream,
	 * or for a CPU once woken) does not take the stream: its request
	 * would time out as soon as it was sent, and the helper be killed
	 * for a deadline that was gone before it got the request.
	 */
	if (owned && !*owned && !READ_ONCE(p->dead) &&
	    !time_before(jiffies, deadline)) {
		*ready = false;
		return true;
	}
	*ready = umh_tx_ready(p, owned);
	return *ready || umh_expired(p, deadline);
}

/*
 * Wait, killable and until @deadline, for the request stream to be ours
 * (@owned) or writable (@owned NULL).
 * Return: 0, or -EINTR, -ETIMEDOUT, or why the generation ended.
 */
static int umh_tx_wait(struct umh_proc *p, bool *owned,
		       unsigned long deadline)
{
	bool ready = false;

	if (wait_event_killable(p->wq, umh_tx_woken(p, owned, &ready,
						    deadline)))
		return -EINTR;
	if (READ_ONCE(p->dead))
		return READ_ONCE(p->dead);
	return ready ? 0 : -ETIMEDOUT;
}

/* Write all of @iter to the request stream, waiting for room. */
static int umh_write_iter(struct umh_proc *p, struct iov_iter *iter,
			  unsigned long deadline, size_t *sent)
{
	int ret;

	while (iov_iter_count(iter)) {
		ssize_t n = umh_fifo_io(p->tx, iter);

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

/*
 * Write header and payload: from the kernel's @payload with as few pipe
 * writes (and wakeups) as fit, or from the caller's memory (@upayload)
 * straight into the pipe, after the header.
 */
static int umh_write_frame(struct umh_proc *p, const struct umh_hdr *hdr,
			   const void *payload, struct iov_iter *upayload,
			   unsigned long deadline, size_t *sent)
{
	struct kvec vec[2] = {
		{ .iov_base = (void *)hdr, .iov_len = sizeof(*hdr) },
		{ .iov_base = (void *)payload, .iov_len = hdr->len },
	};
	struct iov_iter iter;
	int ret;

	if (!upayload) {
		iov_iter_kvec(&iter, ITER_SOURCE, vec, hdr->len ? 2 : 1,
			      sizeof(*hdr) + hdr->len);
		return umh_write_iter(p, &iter, deadline, sent);
	}
	iov_iter_kvec(&iter, ITER_SOURCE, vec, 1, sizeof(*hdr));
	ret = umh_write_iter(p, &iter, deadline, sent);
	return ret ?: umh_write_iter(p, upayload, deadline, sent);
}

/*
 * Send one request frame; a frame cut short leaves the stream unusable.
 * Then mark @call sent (its reply may be copied now).  If it is the only
 * call in flight, take the reply stream for its caller (@rx_owned) before
 * letting go of the request stream, so that the wakeup of the other
 * senders does not make the reader thread run.
 */
static int umh_send(struct umh_proc *p, struct umh_call *call,
		    const struct umh_hdr *hdr, const void *payload,
		    struct iov_iter *upayload, unsigned long deadline,
		    size_t *sent, bool *rx_owned)
{
	bool owned = false, callers, alone, parked;
	int ret;

	ret = umh_tx_wait(p, &owned, deadline);
	if (!ret)
		ret = umh_write_frame(p, hdr, payload, upayload, deadline,
				      sent);
	/*
	 * End the generation before letting go of the stream: no other
	 * sender may append a frame to one cut short.  The others did
	 * nothing wrong: don't hand them our -EINTR or -EFAULT.  A caller
	 * that was killed, or whose memory went away, mid-frame is no fault
	 * of the helper's.  A generation that was over already was counted
	 * by whoever ended it.
	 */
	callers = ret == -EINTR || ret == -EFAULT;
	if (ret && *sent &&
	    umh_proc_end(p, callers ? -ECONNABORTED : ret, !callers)) {
		if (ret == -ETIMEDOUT)
			atomic64_inc(&p->ub->timeouts);
		pr_warn_ratelimited("%s: request %u cut short (%d) after %zu bytes; killing helper pid %d\n",
				    p->ub->name, hdr->id, ret, *sent,
				    umh_proc_pid_nr(p));
	}
	/*
	 * The stream was ours and the pipe stayed full until the deadline:
	 * the helper took no request for that long.  (A deadline that
	 * passed while another sender held the stream is nobody's fault.)
	 */
	if (ret == -ETIMEDOUT && owned && !*sent &&
	    umh_proc_fail(p, -ETIMEDOUT)) {
		atomic64_inc(&p->ub->timeouts);
		pr_warn("%s: helper pid %d took no request within %s's deadline; killing it\n",
			p->ub->name, umh_proc_pid_nr(p),
			hdr->op ? p->ub->cfg.proto->ops[hdr->op].name : "hello");
	}
	/* Done with the request: a parked reply may land in the reply buffer. */
	spin_lock(&p->lock);
	call->sending = false;
	parked = p->rparked;
	p->rparked = false;
	alone = owned && !ret && call->state == UMH_CALL_PENDING &&
		list_is_singular(&p->pending);
	spin_unlock(&p->lock);
	*rx_owned = alone && umh_rx_own(p);
	if (owned)
		clear_bit_unlock(0, &p->tx_busy);
	/*
	 * Other senders, and a reader parked on this call's reply, go on.
	 * If this call is alone and its caller took the reply stream, the
	 * parked reply is its own, and the reader thread is not needed; nor
	 * is it if no reply was parked ("One wait queue" in
	 * Documentation/channel.rst).
	 */
	if (owned || parked)
		__wake_up(&p->wq, TASK_NORMAL, 0,
			  *rx_owned ? &umh_wake_quiet :
			  parked ? NULL : &umh_wake_tx);
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
			 struct iov_iter *ureq, u32 req_len, void *rep,
			 u32 rep_cap, bool fixed, size_t *rep_len,
			 unsigned long deadline)
{
	struct umh_call *call;
	struct umh_hdr hdr;
	size_t sent = 0;
	bool whole, rx_owned = false;
	long t;
	int ret;

	call = xchg(&p->spare, NULL);
	if (call)
		memset(call, 0, sizeof(*call));
	else
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
		refcount_set(&call->ref, 1);
		umh_call_put(p, call);
		return ret;
	}
	call->id = ++p->next_id;
	list_add_tail(&call->node, &p->pending);
	spin_unlock(&p->lock);

	umh_hdr_init(&hdr, op, call->id, req_len, 0, 0, rep_cap);
	ret = umh_send(p, call, &hdr, req, ureq, deadline, &sent, &rx_owned);
	whole = sent == sizeof(hdr) + req_len;
	if (ret)
		goto abandon;
	/* The only call in flight: read its reply here, not in the reader. */
	if (rx_owned) {
		ret = umh_rx_direct(p, call, deadline);
		if (ret)
			goto abandon;
	}

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
		umh_call_put(p, call);
		return ret;
	}
	if (call->state == UMH_CALL_CLAIMED) {
		/*
		 * The reader thread, or a reading caller, is filling our
		 * buffer: make it let go first.  Not killable: the buffer is
		 * ours to free once we return.  Bounded: the reader never
		 * blocks while it holds a call, and our wakeup wakes a
		 * reading caller.
		 */
		WRITE_ONCE(call->abandoned, true);
		spin_unlock(&p->lock);
		wake_up_all(&p->wq);
		wait_for_completion(&call->done);
		if (call->cut) {
			/* Reply started but not finished when we left. */
			umh_call_left(p, op, ret, true);
			umh_call_put(p, call);
			return ret;
		}
	} else {
		spin_unlock(&p->lock);
		/*
		 * Ended by our own send, cut short because this caller was
		 * killed or its memory went away: its error, not the
		 * -ECONNABORTED that ended the others' calls.
		 */
		if (!whole && (ret == -EINTR || ret == -EFAULT)) {
			umh_call_put(p, call);
			return ret;
		}
	}
done:
	ret = call->status;
	if (!ret && rep_len)
		*rep_len = call->rep_len;
	umh_call_put(p, call);
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

	/*
	 * The common case without ub->lock: a generation that is running
	 * and has not died.  ub->live is published by umh_set_state(), and
	 * a generation is freed a grace period after its last reference;
	 * what it points to (its pid) is not, so the reference comes first.
	 * One that died is left to the locked path below.
	 */
	rcu_read_lock();
	p = rcu_dereference(ub->live);
	if (p && !kref_get_unless_zero(&p->ref))
		p = NULL;
	rcu_read_unlock();
	if (p) {
		if (!READ_ONCE(p->dead) && !umh_task_exited(p->pid))
			return p;
		umh_proc_put(p);
		p = NULL;
	}

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
		    struct iov_iter *ureq, u32 req_len, void *rep,
		    u32 rep_cap, bool fixed, size_t *rep_len,
		    unsigned int timeout_ms)
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
		ret = umh_proc_call(p, op, req, ureq, req_len, rep, rep_cap,
				    fixed, rep_len, deadline);
		umh_proc_put(p);
	}
	if (ret) {
		atomic64_inc(&ub->failures);
		WRITE_ONCE(ub->last_error, ret);
	}
	return ret;
}

/*
 * The checks of umh_blob_call() before anything is sent: @op is known,
 * the buffers are there, @req_len fits the op, a fixed reply's buffer is
 * exactly its size.  Sets *@desc, and clamps *@rep_cap to the largest
 * reply the op allows.
 */
static int umh_call_check(struct umh_blob *ub, unsigned int op,
			  bool no_req, size_t req_len, const void *rep,
			  size_t *rep_cap, const struct umh_op_desc **desc)
{
	const struct umh_op_desc *d = umh_proto_op(ub->cfg.proto, op);
	int ret;

	if (!d)
		return -EOPNOTSUPP;
	if ((no_req && req_len) || (!rep && *rep_cap))
		return -EINVAL;
	ret = umh_op_check_req(d, req_len, ub->cfg.max_payload);
	if (ret)
		return ret;
	if (!d->rep_var && *rep_cap != d->rep_size)
		return -EINVAL;
	*rep_cap = min_t(size_t, *rep_cap,
			 umh_op_rep_max(d, ub->cfg.max_payload));
	*desc = d;
	return 0;
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
	const struct umh_op_desc *d;
	int ret;

	ret = umh_call_check(ub, op, !req, req_len, rep, &rep_cap, &d);
	if (ret)
		return ret;
	return umh_call(ub, op, req, NULL, req_len, rep, rep_cap, !d->rep_var,
			rep_len, timeout_ms);
}

UMH_EXPORT(umh_blob_call);

/**
 * umh_blob_call_user() - umh_blob_call() with the request in user memory
 * @ub:		the helper
 * @op:		operation number of the helper's protocol
 * @req:	request payload, in the memory of the calling task
 * @req_len:	its length: exactly the declared size for a fixed request
 * @rep:	reply buffer (kernel memory)
 * @rep_cap:	its size: exactly the declared size for a fixed reply
 * @rep_len:	set to the reply length on success; may be NULL
 * @timeout_ms:	deadline for the whole call, queueing included (0: default)
 *
 * The request is copied once, from the caller's memory straight into the
 * channel's pipe, instead of into a kernel buffer first: for an ioctl or
 * write handler that passes a large user buffer on to its helper.  The
 * pages are faulted in before anything is sent; if they go away while
 * the request is written (another thread unmapped them), the request is
 * cut short, the call fails with -EFAULT and, as for a caller killed
 * mid-request, the helper generation ends without counting as a fault.
 *
 * Context: process context of the task whose memory @req is (an ioctl
 * handler, a write handler); never a kernel thread.  Sleeps.
 * Return: as umh_blob_call(), and -EFAULT if @req cannot be read.
 */
int umh_blob_call_user(struct umh_blob *ub, unsigned int op,
		       const void __user *req, size_t req_len,
		       void *rep, size_t rep_cap, size_t *rep_len,
		       unsigned int timeout_ms)
{
	const struct umh_op_desc *d;
	struct iov_iter iter;
	int ret;

	ret = umh_call_check(ub, op, !req, req_len, rep, &rep_cap, &d);
	if (ret)
		return ret;
	if (!current->mm || !access_ok(req, req_len))
		return -EFAULT;
	iov_iter_ubuf(&iter, ITER_SOURCE, (void __user *)req, req_len);
	if (fault_in_iov_iter_readable(&iter, req_len))
		return -EFAULT;
	return umh_call(ub, op, NULL, &iter, req_len, rep, rep_cap,
			!d->rep_var, rep_len, timeout_ms);
}

UMH_EXPORT(umh_blob_call_user);

/**
 * umh_hello() - the handshake with a generation
 * @ub:		the helper
 * @p:		the generation; the caller holds a reference
 * @deadline:	in jiffies
 *
 * Context: process context; sleeps until @deadline at most.
 * Return: 0 if the helper speaks the module's protocol, else as
 * umh_blob_call() (-EPROTO for another protocol; the generation is ended).
 */
int umh_hello(struct umh_blob *ub, struct umh_proc *p, unsigned long deadline)
{
	const struct umh_proto *proto = ub->cfg.proto;
	struct umh_hello req = {
		.proto_id = proto->id,
		.proto_version = proto->version,
		.max_payload = ub->cfg.max_payload,
	};
	struct umh_hello rep;
	int ret;

	ret = umh_proc_call(p, UMH_OP_HELLO, &req, NULL, sizeof(req), &rep,
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

UMH_EXPORT(umh_blob_ping);
