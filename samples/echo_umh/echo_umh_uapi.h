/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * /dev/echo_umh: how user space (tests, benchmarks) drives the echo module.
 */
#ifndef _ECHO_UMH_UAPI_H
#define _ECHO_UMH_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

struct echo_ioc_ping {
	__u32 cookie;		/* in */
	__u32 pid;		/* out: helper's pid as it reports it */
	__u64 served;		/* out */
	char tag[16];		/* out: the helper's current tag */
};

/* Set the helper's tag; the module replays it into every new helper. */
struct echo_ioc_tag {
	char tag[16];		/* in, NUL-terminated */
};

struct echo_ioc_add {
	__s64 a, b;		/* in */
	__s64 sum;		/* out */
};

/* Echo @len bytes at @buf through the helper; the reply overwrites them. */
struct echo_ioc_echo {
	__u64 buf;		/* in: user pointer */
	__u32 len;		/* in */
	__u32 rep_len;		/* out */
};

struct echo_ioc_sleep {
	__u32 ms;		/* in: how long the helper sleeps */
	__u32 timeout_ms;	/* in: call timeout, 0 = module default */
};

/* Sink @len bytes at @buf; the helper returns their byte sum. */
struct echo_ioc_sink {
	__u64 buf;		/* in: user pointer */
	__u64 len;		/* in */
	__u64 sum;		/* out */
	__u32 timeout_ms;	/* in: call timeout, 0 = module default */
	__u32 pad;
};

/* Start @threads kernel threads that call the helper until rmmod. */
struct echo_ioc_stress {
	__u32 threads;		/* in, at most ECHO_MAX_STRESS */
	__u32 sleep_ms;		/* in: each call is a sleep op of this long */
};

/*
 * Time @iters echo calls of @size bytes inside the kernel (no syscall in
 * the measured path); the duration of each call, in ns, goes to @ns_out,
 * an array of @iters u64.
 */
struct echo_ioc_bench {
	__u32 size;		/* in: payload bytes, at most 1 MiB */
	__u32 iters;		/* in: at most ECHO_MAX_BENCH_ITERS */
	__u64 ns_out;		/* in: user pointer to __u64[iters] */
};

#define ECHO_MAX_STRESS		16
#define ECHO_MAX_BENCH_ITERS	1000000

#define ECHO_IOC_MAGIC		0xec
#define ECHO_IOC_PING		_IOWR(ECHO_IOC_MAGIC, 1, struct echo_ioc_ping)
#define ECHO_IOC_ADD		_IOWR(ECHO_IOC_MAGIC, 2, struct echo_ioc_add)
#define ECHO_IOC_ECHO		_IOWR(ECHO_IOC_MAGIC, 3, struct echo_ioc_echo)
#define ECHO_IOC_SLEEP		_IOW(ECHO_IOC_MAGIC, 4, struct echo_ioc_sleep)
#define ECHO_IOC_SINK		_IOWR(ECHO_IOC_MAGIC, 5, struct echo_ioc_sink)
#define ECHO_IOC_STRESS		_IOW(ECHO_IOC_MAGIC, 6, struct echo_ioc_stress)
#define ECHO_IOC_TAG		_IOW(ECHO_IOC_MAGIC, 7, struct echo_ioc_tag)
#define ECHO_IOC_BENCH		_IOW(ECHO_IOC_MAGIC, 8, struct echo_ioc_bench)

#endif /* _ECHO_UMH_UAPI_H */
