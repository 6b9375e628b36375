// SPDX-License-Identifier: GPL-2.0
/*
 * echo_client: drive /dev/echo_umh from inside a test guest.
 *
 *   echo_client ping                    print the helper's pid
 *   echo_client tag [STR]               set the helper's tag / print it
 *   echo_client add A B                 print A+B as the helper computed it
 *   echo_client echo SIZE               echo SIZE random bytes, compare
 *   echo_client sink SIZE [TIMEOUT_MS]  sink SIZE bytes, compare the sum
 *   echo_client sleep MS [TIMEOUT_MS]   a call the helper answers after MS
 *   echo_client concurrent T N          T threads x N echo calls, each
 *                                       reply checked against its request
 *   echo_client stress T MS             start T in-kernel calling threads
 *   echo_client bench SIZE N            N in-kernel timed echo calls:
 *                                       prints "median_ns p99_ns" 
 *
 * Exit status 0 on success; on failure the errno name is printed and the
 * status is 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../../samples/echo_umh/echo_umh_uapi.h"

#define DEV "/dev/echo_umh"

static int dev;

static int fail(const char *what)
{
	int e = errno;

	printf("error: %s: %s (%d)\n", what, strerrorname_np(e) ?: "?", e);
	return 1;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void fill(unsigned char *b, size_t n, uint64_t seed)
{
	uint64_t s = seed | 1;
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)xorshift(&s);
}

static int do_echo(size_t size, uint64_t seed, int quiet)
{
	unsigned char *buf = malloc(size + 1), *want = malloc(size + 1);
	struct echo_ioc_echo io = { .buf = (uintptr_t)buf, .len = size };
	int ret = 0;

	if (!buf || !want)
		return fail("malloc");
	fill(want, size, seed);
	memcpy(buf, want, size);
	if (ioctl(dev, ECHO_IOC_ECHO, &io)) {
		ret = quiet ? -1 : fail("echo");
	} else if (io.rep_len != size || memcmp(buf, want, size)) {
		printf("error: echo of %zu bytes came back wrong (%u bytes)\n",
		       size, io.rep_len);
		ret = 1;
	} else if (!quiet) {
		printf("echo %zu ok\n", size);
	}
	free(buf);
	free(want);
	return ret;
}

struct worker {
	pthread_t t;
	int id, calls, bad, err;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	unsigned char buf[4096 + 16], want[sizeof(buf)];
	uint64_t s = (uint64_t)w->id * 0x9e3779b97f4a7c15ULL + 1;
	int i;

	for (i = 0; i < w->calls; i++) {
		/* Each request is unique: thread id, sequence, random tail. */
		size_t len = 16 + xorshift(&s) % 4096;
		struct echo_ioc_echo io = { .buf = (uintptr_t)buf, .len = len };

		fill(want, len, xorshift(&s));
		memcpy(want, &w->id, sizeof(w->id));
		memcpy(want + 8, &i, sizeof(i));
		memcpy(buf, want, len);
		if (ioctl(dev, ECHO_IOC_ECHO, &io)) {
			w->err = errno;
			w->bad++;
		} else if (io.rep_len != len || memcmp(buf, want, len)) {
			w->bad++;
		}
	}
	return NULL;
}

static int do_concurrent(int threads, int calls)
{
	struct worker *w = calloc(threads, sizeof(*w));
	int i, bad = 0;

	for (i = 0; i < threads; i++) {
		w[i].id = i;
		w[i].calls = calls;
		if (pthread_create(&w[i].t, NULL, worker_fn, &w[i]))
			return fail("pthread_create");
	}
	for (i = 0; i < threads; i++) {
		pthread_join(w[i].t, NULL);
		if (w[i].bad)
			printf("thread %d: %d of %d calls failed or mismatched (last errno %d)\n",
			       i, w[i].bad, calls, w[i].err);
		bad += w[i].bad;
	}
	printf("concurrent %d x %d: %d bad\n", threads, calls, bad);
	free(w);
	return bad ? 1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int do_bench(unsigned int size, unsigned int iters)
{
	uint64_t *ns = calloc(iters, sizeof(*ns));
	struct echo_ioc_bench io = {
		.size = size, .iters = iters, .ns_out = (uintptr_t)ns,
	};

	if (!ns || !iters)
		return fail("bench arguments");
	if (ioctl(dev, ECHO_IOC_BENCH, &io))
		return fail("bench");
	qsort(ns, iters, sizeof(*ns), cmp_u64);
	printf("%llu %llu\n", (unsigned long long)ns[iters / 2],
	       (unsigned long long)ns[(size_t)iters * 99 / 100]);
	free(ns);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	dev = open(DEV, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return fail(DEV);

	if (!strcmp(cmd, "ping")) {
		struct echo_ioc_ping io = { .cookie = 0x1234abcd };

		if (ioctl(dev, ECHO_IOC_PING, &io))
			return fail("ping");
		printf("%u\n", io.pid);
		return 0;
	}
	if (!strcmp(cmd, "tag") && argc == 3) {
		struct echo_ioc_tag io = {};

		strncpy(io.tag, argv[2], sizeof(io.tag) - 1);
		if (ioctl(dev, ECHO_IOC_TAG, &io))
			return fail("tag");
		return 0;
	}
	if (!strcmp(cmd, "tag") && argc == 2) {
		struct echo_ioc_ping io = { .cookie = 1 };

		if (ioctl(dev, ECHO_IOC_PING, &io))
			return fail("ping");
		printf("%s\n", io.tag);
		return 0;
	}
	if (!strcmp(cmd, "add") && argc == 4) {
		struct echo_ioc_add io = {
			.a = strtoll(argv[2], NULL, 0),
			.b = strtoll(argv[3], NULL, 0),
		};

		if (ioctl(dev, ECHO_IOC_ADD, &io))
			return fail("add");
		printf("%lld\n", (long long)io.sum);
		return 0;
	}
	if (!strcmp(cmd, "echo") && argc == 3)
		return do_echo(strtoul(argv[2], NULL, 0), 42, 0) ? 1 : 0;
	if (!strcmp(cmd, "sink") && (argc == 3 || argc == 4)) {
		size_t size = strtoul(argv[2], NULL, 0), i;
		unsigned char *buf = malloc(size + 1);
		struct echo_ioc_sink io = {
			.buf = (uintptr_t)buf,
			.len = size,
			.timeout_ms = argc == 4 ? strtoul(argv[3], NULL, 0) : 0,
		};
		uint64_t sum = 0;

		fill(buf, size, 7);
		for (i = 0; i < size; i++)
			sum += buf[i];
		if (ioctl(dev, ECHO_IOC_SINK, &io))
			return fail("sink");
		if (io.sum != sum) {
			printf("error: sink sum %llu, expected %llu\n",
			       (unsigned long long)io.sum,
			       (unsigned long long)sum);
			return 1;
		}
		printf("sink %zu ok\n", size);
		return 0;
	}
	if (!strcmp(cmd, "sleep") && (argc == 3 || argc == 4)) {
		struct echo_ioc_sleep io = {
			.ms = strtoul(argv[2], NULL, 0),
			.timeout_ms = argc == 4 ? strtoul(argv[3], NULL, 0) : 0,
		};

		if (ioctl(dev, ECHO_IOC_SLEEP, &io))
			return fail("sleep");
		printf("slept %u\n", io.ms);
		return 0;
	}
	if (!strcmp(cmd, "bench") && argc == 4)
		return do_bench(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	if (!strcmp(cmd, "concurrent") && argc == 4)
		return do_concurrent(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(cmd, "stress") && argc == 4) {
		struct echo_ioc_stress io = {
			.threads = strtoul(argv[2], NULL, 0),
			.sleep_ms = strtoul(argv[3], NULL, 0),
		};

		if (ioctl(dev, ECHO_IOC_STRESS, &io))
			return fail("stress");
		return 0;
	}
	fprintf(stderr, "usage: see the comment at the top of %s\n", __FILE__);
	return 2;
}
