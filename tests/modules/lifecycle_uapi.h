/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * /dev/lifecycle_umh: how tests/guest/lifecycle_tests.sh drives the
 * lifecycle test module (tests/modules/lifecycle_main.c).
 */
#ifndef _LIFECYCLE_UAPI_H
#define _LIFECYCLE_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define LC_MAX_THREADS	16

/* Call umh_blob_start() from @threads kernel threads at once. */
struct lc_ioc_start {
	__u32 threads;		/* in: 1..LC_MAX_THREADS */
	__u32 started;		/* out: how many got 0 */
	__u32 busy;		/* out: how many got -EBUSY */
	__u32 other;		/* out: how many got another error */
	__s32 other_err;	/* out: the last such error */
};

#define LC_IOC_START	_IOWR(0xee, 1, struct lc_ioc_start)
/* An echo ping; returns the pid the helper reports. */
#define LC_IOC_PING	_IOR(0xee, 2, __u32)
/*
 * Argument 1: a kernel worker opens /dev/null LC_KFDS times (close-on-exec) in the
 * file table the kernel threads share, as a worker loading a BPF object
 * through kern_sys_bpf() does; 0: it closes them.
 */
#define LC_IOC_KFDS	_IO(0xee, 3)
#define LC_KFDS		4
/* umh_blob_restart() of the helper whose pid is the argument. */
#define LC_IOC_RESTART	_IO(0xee, 4)

/*
 * umh_blob_stop() while a umh_blob_start() from a kernel thread on the
 * last CPU is held (200 ms, by a kprobe) before it spawns the helper.
 * The caller must run on another CPU (-EXDEV).  Needs the module loaded
 * with start=0; the helper is stopped for good afterwards.
 */
struct lc_ioc_stop {
	__u32 held;		/* out: the start was held when stop began */
	__u32 start_pending;	/* out: ... and still held when stop returned */
	__s32 start_ret;	/* out: what that umh_blob_start() returned */
};

#define LC_IOC_STOP_MID_START	_IOR(0xee, 5, struct lc_ioc_stop)

#endif /* _LIFECYCLE_UAPI_H */
