// SPDX-License-Identifier: GPL-2.0
/*
 * echo_client: drive /dev/echo_umh from inside a test guest.
 *
 *   echo_client ping                    print the helper's pid
 *   echo_client tag [STR]               set the helper's tag / print it
 *   echo_client add A B                 print A+B as the helper computed it
 *   echo_client echo SIZE               echo SIZE random bytes, compare
 *   echo_client sink SIZE [TIMEOUT_MS]  sink SIZE bytes, compare the sum
 *   echo_client sink_unmapped SIZE      sink SIZE bytes whose second half
 *                                       is not mapped (EFAULT expected)
 *   echo_client sleep MS [TIMEOUT_MS]   a call the helper answers after MS
 *   echo_client concurrent T N          T threads x N echo calls, each
 *                                       reply checked against its request
 *   echo_client stress T MS             start T in-kernel calling threads
 *   echo_client bench SIZE N            N in-kernel timed echo calls:
 *                                       prints "median_ns p99_ns"
 *   echo_client mixed T N MAX_MS        T threads x N calls of mixed ops
 *                                       (ping, add, echo, sleep, tag);
 *                                       prints the count of each result;
 *                                       fails on a wrong answer, an errno
 *                                       outside the set a dying helper
 *                                       may cause, or a call that took
 *                                       longer than MAX_MS
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
#include <sys/mman.h>
#include <time.h>
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

/*
 * mixed: calls of every kind while something kills the helper.  A call may
 * fail only with an errno a helper's death explains; one that succeeds
 * must carry the right answer.
 */
static const int mixed_ok_errnos[] = {
	ECONNRESET, EPIPE, EPROTO, ECONNABORTED, ETIMEDOUT, ENOTCONN,
};

struct mixed {
	pthread_t t;
	int id, calls;
	long max_ms;
	int bad;		/* wrong answers */
	int count[512];		/* by errno; [0]: successes */
	int other;		/* errnos >= 512 */
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void *mixed_fn(void *arg)
{
	struct mixed *m = arg;
	uint64_t s = (uint64_t)m->id * 0x9e3779b97f4a7c15ULL + 7;
	static __thread unsigned char buf[16384], want[16384];
	int i;

	for (i = 0; i < m->calls; i++) {
		unsigned int kind = xorshift(&s) % 100;
		long t0 = now_ms(), ms;
		int r, e;

		if (kind < 30) {
			struct echo_ioc_ping io = { .cookie = (uint32_t)xorshift(&s) };

			/* the module checks the cookie (-EPROTO if wrong) */
			r = ioctl(dev, ECHO_IOC_PING, &io);
		} else if (kind < 55) {
			struct echo_ioc_add io = {
				.a = (int64_t)xorshift(&s) >> 2,
				.b = (int64_t)xorshift(&s) >> 2,
			};

			r = ioctl(dev, ECHO_IOC_ADD, &io);
			if (!r && io.sum != io.a + io.b)
				m->bad++;
		} else if (kind < 85) {
			size_t len = xorshift(&s) % sizeof(buf);
			struct echo_ioc_echo io = { .buf = (uintptr_t)buf, .len = len };

			fill(want, len, xorshift(&s));
			memcpy(want, &m->id, len < 4 ? len : 4);
			memcpy(buf, want, len);
			r = ioctl(dev, ECHO_IOC_ECHO, &io);
			if (!r && (io.rep_len != len || memcmp(buf, want, len)))
				m->bad++;
		} else if (kind < 97) {
			struct echo_ioc_sleep io = { .ms = xorshift(&s) % 3 };

			r = ioctl(dev, ECHO_IOC_SLEEP, &io);
		} else {
			struct echo_ioc_tag io = {};

			snprintf(io.tag, sizeof(io.tag), "mixed%d", m->id);
			r = ioctl(dev, ECHO_IOC_TAG, &io);
		}
		e = r ? errno : 0;
		ms = now_ms() - t0;
		if (ms > m->max_ms)
			m->max_ms = ms;
		if (e >= 0 && e < 512)
			m->count[e]++;
		else
			m->other++;
	}
	return NULL;
}

static int do_mixed(int threads, int calls, long limit_ms)
{
	struct mixed *m = calloc(threads, sizeof(*m));
	int i, e, k, bad = 0, unexpected = 0, count[512] = { 0 };
	long max_ms = 0;

	if (!m)
		return fail("calloc");
	for (i = 0; i < threads; i++) {
		m[i].id = i;
		m[i].calls = calls;
		if (pthread_create(&m[i].t, NULL, mixed_fn, &m[i]))
			return fail("pthread_create");
	}
	for (i = 0; i < threads; i++) {
		pthread_join(m[i].t, NULL);
		for (e = 0; e < 512; e++)
			count[e] += m[i].count[e];
		unexpected += m[i].other;
		bad += m[i].bad;
		if (m[i].max_ms > max_ms)
			max_ms = m[i].max_ms;
	}
	printf("mixed %d x %d: %d answered", threads, calls, count[0]);
	for (e = 1; e < 512; e++) {
		if (!count[e])
			continue;
		printf(", %d %s", count[e], strerrorname_np(e) ?: "?");
		for (k = 0; k < (int)(sizeof(mixed_ok_errnos) / sizeof(int)); k++)
			if (e == mixed_ok_errnos[k])
				break;
		if (k == (int)(sizeof(mixed_ok_errnos) / sizeof(int)))
			unexpected += count[e];
	}
	printf("; %d wrong answers, %d unexpected errors; slowest call %ld ms\n",
	       bad, unexpected, max_ms);
	free(m);
	if (max_ms > limit_ms)
		printf("error: a call took %ld ms, more than %ld\n", max_ms, limit_ms);
	return bad || unexpected || max_ms > limit_ms ? 1 : 0;
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
	if (!strcmp(cmd, "sink_unmapped") && argc == 3) {
		size_t size = strtoul(argv[2], NULL, 0) & ~(size_t)0xfff;
		unsigned char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct echo_ioc_sink io = { .len = size };

		if (size < 8192 || buf == MAP_FAILED)
			return fail("mmap");
		fill(buf, size / 2, 7);
		if (munmap(buf + size / 2, size / 2))
			return fail("munmap");
		io.buf = (uintptr_t)buf;
		if (ioctl(dev, ECHO_IOC_SINK, &io))
			return fail("sink");
		printf("sink of a half-unmapped buffer succeeded\n");
		return 1;
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
	if (!strcmp(cmd, "mixed") && argc == 5)
		return do_mixed(atoi(argv[2]), atoi(argv[3]), atol(argv[4]));
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
