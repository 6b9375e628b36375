// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: a module whose helper breaks the protocol on demand.
 * /dev/hostile_umh makes one echo-protocol call per ioctl; the first word
 * of the request (the cookie, see hostile_uapi.h) tells the helper which
 * misbehaviour to show.  The ioctl returns what the call returned, so
 * tests/guest/hostile_tests.sh checks each case's errno, its counters in
 * /sys/module/hostile/umh_hostile/ and the restart that follows.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <umh_sdk/umh_blob.h>

#include "../../samples/echo_umh/echo_proto.h"
#include "hostile_uapi.h"

UMH_BLOB_DECLARE(hostile);

static unsigned int max_restarts = 200;
module_param(max_restarts, uint, 0444);
static unsigned int max_payload = 2U << 20;
module_param(max_payload, uint, 0444);

static struct umh_blob *ub;

static long hostile_var(struct hostile_ioc_call *io)
{
	size_t rep_len = 0;
	void *buf;
	int ret;

	if (io->req_len > max_payload || io->rep_cap > max_payload)
		return -EMSGSIZE;
	buf = kvzalloc(max3(io->req_len, io->rep_cap, 4U), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &io->cookie, sizeof(io->cookie));
	if (io->op == ECHO_OP_ECHO) {
		ret = echo_call_echo_tmo(ub, buf, io->req_len, buf, io->rep_cap,
					 &rep_len, io->timeout_ms);
	} else {
		struct echo_sink_rep rep;

		ret = echo_call_sink_tmo(ub, buf, io->req_len, &rep,
					 io->timeout_ms);
	}
	io->rep_len = rep_len;
	kvfree(buf);
	return ret;
}

/* An echo call without a reply buffer, though rep_cap claims one. */
static long hostile_null_rep(struct hostile_ioc_call *io)
{
	size_t rep_len = 0;
	void *buf;
	int ret;

	if (io->req_len < 4 || io->req_len > max_payload)
		return -EMSGSIZE;
	buf = kvzalloc(io->req_len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &io->cookie, sizeof(io->cookie));
	ret = umh_blob_call(ub, ECHO_OP_ECHO, buf, io->req_len, NULL,
			    io->rep_cap, &rep_len, io->timeout_ms);
	io->rep_len = rep_len;
	kvfree(buf);
	return ret;
}

static long hostile_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct hostile_ioc_call io;
	long ret;

	if (cmd != HOSTILE_IOC_CALL && cmd != HOSTILE_IOC_NULL_REP)
		return -ENOTTY;
	if (copy_from_user(&io, (void __user *)arg, sizeof(io)))
		return -EFAULT;
	if (cmd == HOSTILE_IOC_NULL_REP)
		io.op = ECHO_OP_ECHO;
	switch (io.op) {
	case ECHO_OP_PING: {
		struct echo_ping req = { .cookie = io.cookie };
		struct echo_pong rep;

		ret = echo_call_ping_tmo(ub, &req, &rep, io.timeout_ms);
		break;
	}
	case ECHO_OP_SLEEP: {
		struct echo_sleep req = { .ms = io.cookie }, rep;

		ret = echo_call_sleep_tmo(ub, &req, &rep, io.timeout_ms);
		break;
	}
	case ECHO_OP_ECHO:
	case ECHO_OP_SINK:
		ret = cmd == HOSTILE_IOC_NULL_REP ? hostile_null_rep(&io) :
		      hostile_var(&io);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;
	return copy_to_user((void __user *)arg, &io, sizeof(io)) ? -EFAULT : 0;
}

static const struct file_operations hostile_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = hostile_ioctl,
};

static struct miscdevice hostile_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "hostile_umh",
	.fops = &hostile_fops,
	.mode = 0600,
};

static int __init hostile_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "hostile",
		.owner = THIS_MODULE,
		.proto = &echo_umh_proto,
		.call_timeout_ms = 2000,
		.max_payload = max_payload,
		.max_restarts = max_restarts,
		.backoff_min_ms = 10,
		.backoff_max_ms = 50,
	};
	int ret;

	ub = umh_blob_create(&cfg, UMH_BLOB_DATA(hostile),
			     UMH_BLOB_SIZE(hostile));
	if (IS_ERR(ub))
		return PTR_ERR(ub);
	ret = umh_blob_start(ub);
	if (!ret)
		ret = misc_register(&hostile_misc);
	if (ret)
		umh_blob_destroy(ub);
	return ret;
}

static void __exit hostile_exit(void)
{
	umh_blob_stop(ub);
	misc_deregister(&hostile_misc);
	umh_blob_destroy(ub);
}

module_init(hostile_init);
module_exit(hostile_exit);
MODULE_LICENSE("GPL");
