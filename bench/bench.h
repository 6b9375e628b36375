/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the two benchmark programs share: clocks, sample statistics, the
 * repeat-until-stable driver and the CSV line they print.
 *
 * A measurement is a series of batches.  Each batch yields samples (per
 * call nanoseconds, or one rate); after a discarded warm-up batch, batches
 * repeat until the medians of the last BENCH_WINDOW batches lie within
 * BENCH_TOL of each other (relative spread = (max - min) / median), or
 * until BENCH_MAX_BATCHES or BENCH_MAX_MS.  An SDK figure and its
 * references run as variants side by side, taking their samples in turns
 * (bench_run_side_by_side).  The figures reported are the median and the
 * 99th percentile of the samples of that window, with its spread, so a
 * reader sees how steady each number was.  Nothing here passes or fails on a number: an unsteady
 * figure is reported as such ("stable" column 0).
 *
 * CSV columns (bench/README.md explains them):
 *   group,case,impl,unit,median,p99,spread_pct,batches,samples,stable
 */
#ifndef _BENCH_H
#define _BENCH_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_WINDOW		5
#define BENCH_MAX_BATCHES	20
#define BENCH_MAX_MS		20000
#define BENCH_TOL		0.05

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline int bench__cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Quantile @q (0..1) of @n values, sorting them in place. */
static inline double bench_quantile(double *v, size_t n, double q)
{
	size_t i;

	qsort(v, n, sizeof(*v), bench__cmp);
	i = (size_t)(q * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

/*
 * One batch: fill @out with @n samples.  Return 0, or -1 with errno set
 * (the measurement is then abandoned).
 */
typedef int (*bench_batch_fn)(void *ctx, double *out, unsigned int n);

struct bench_opts {
	unsigned int per_batch;		/* samples per batch */
	unsigned int window;		/* 0: BENCH_WINDOW */
	unsigned int max_batches;	/* 0: BENCH_MAX_BATCHES */
	unsigned int max_ms;		/* 0: BENCH_MAX_MS; no new round after */
	int whole_batches;		/* variants take turns by batch, not by sample */
};

struct bench_result {
	double median, p99, spread;
	unsigned int batches, samples;
	int stable;
};

/*
 * Figures of @win batches of @per samples each, stored one batch after the
 * other in @v (which is reordered): median and p99 of all samples, and the
 * relative spread of the batch medians.
 */
static inline int bench_summarize(double *v, unsigned int per,
				  unsigned int win, struct bench_result *r)
{
	double *meds = calloc(win, sizeof(double));
	double lo, hi, mid;
	unsigned int i;

	if (!meds)
		return -1;
	for (i = 0; i < win; i++)
		meds[i] = bench_quantile(v + (size_t)i * per, per, 0.5);
	lo = hi = meds[0];
	for (i = 1; i < win; i++) {
		lo = meds[i] < lo ? meds[i] : lo;
		hi = meds[i] > hi ? meds[i] : hi;
	}
	mid = bench_quantile(meds, win, 0.5);
	free(meds);
	r->spread = mid > 0 ? (hi - lo) / mid : 0;
	r->median = bench_quantile(v, (size_t)per * win, 0.5);
	r->p99 = bench_quantile(v, (size_t)per * win, 0.99);
	r->samples = per * win;
	return 0;
}

/*
 * One of the figures measured side by side: its batch function and, once
 * measured, its result and (for all but the first) its paired ratio.
 */
struct bench_variant {
	const char *impl;		/* CSV "impl" column */
	bench_batch_fn fn;
	void *ctx;
	struct bench_result r;
	/*
	 * First variant / this one, round by round: .median and .p99 are the
	 * medians over the last window of rounds of (first's batch median /
	 * this one's batch median) and of the same for the batch p99s;
	 * .spread is the relative spread of the per-round median ratios.
	 */
	struct bench_result ratio;
	/* internal */
	double *ring;
	double *bmed, *bp99;		/* per round */
};

/* Ratio figures of variant @j against variant 0 over rounds [from, to). */
static inline void bench__ratio(struct bench_variant *v, unsigned int j,
				unsigned int from, unsigned int to,
				double *tmp, struct bench_result *r)
{
	unsigned int b, n = to - from;
	double lo = 0, hi = 0, mid;

	for (b = from; b < to; b++) {
		double x = v[j].bmed[b] > 0 ? v[0].bmed[b] / v[j].bmed[b] : 0;

		tmp[b - from] = x;
		lo = b == from || x < lo ? x : lo;
		hi = b == from || x > hi ? x : hi;
	}
	mid = bench_quantile(tmp, n, 0.5);
	r->median = mid;
	r->spread = mid > 0 ? (hi - lo) / mid : 0;
	for (b = from; b < to; b++)
		tmp[b - from] = v[j].bp99[b] > 0 ? v[0].bp99[b] / v[j].bp99[b] : 0;
	r->p99 = bench_quantile(tmp, n, 0.5);
	r->batches = to;
	r->samples = n;
	r->stable = r->spread < BENCH_TOL;
}

/*
 * Measure @nv variants side by side: every round runs one batch of each,
 * their samples taken in turns (the order rotating), so they all see the
 * same guest, the same neighbours, the same moment.  The ratios of the first
 * variant to each other one are taken round by round, so noise that hits
 * a whole round cancels out.  Every figure and every ratio covers the
 * same last window of rounds.  Rounds go on until all the figures or all
 * the ratios are steady in that window, or @o->max_batches rounds ran, or
 * @o->max_ms passed (a figure still not steady then has stable = 0).
 * Return: 0, or -1 with errno set by the failing batch.
 */
static inline int bench_run_side_by_side(struct bench_variant *v,
					 unsigned int nv,
					 const struct bench_opts *o)
{
	unsigned int per = o->per_batch;
	unsigned int win = o->window ? o->window : BENCH_WINDOW;
	unsigned int max = o->max_batches ? o->max_batches : BENCH_MAX_BATCHES;
	unsigned int step = o->whole_batches ? per : 1;
	uint64_t end = bench_now_ns() +
		(uint64_t)(o->max_ms ? o->max_ms : BENCH_MAX_MS) * 1000000ULL;
	double *tmp;
	unsigned int b, i, j, k, rounds = 0;
	int ret = -1;

	if (max < win)
		max = win;
	tmp = calloc((size_t)per * win + max, sizeof(double));
	if (!tmp || !per)
		goto out;
	for (i = 0; i < nv; i++) {
		memset(&v[i].r, 0, sizeof(v[i].r));
		memset(&v[i].ratio, 0, sizeof(v[i].ratio));
		v[i].ring = calloc((size_t)per * win, sizeof(double));
		v[i].bmed = calloc(max, sizeof(double));
		v[i].bp99 = calloc(max, sizeof(double));
		if (!v[i].ring || !v[i].bmed || !v[i].bp99)
			goto out;
	}
	/* Warm-up: caches, page faults, the first buffer allocations. */
	for (i = 0; i < nv; i++)
		if (v[i].fn(v[i].ctx, tmp, per))
			goto out;
	for (b = 0; b < max; b++) {
		int ratios_steady = nv > 1, figures_steady = 1;

		/*
		 * The variants take turns sample by sample (or batch by batch
		 * for @o->whole_batches), so that whatever disturbs the guest
		 * for a moment hits all of them alike.  The ring holds the last
		 * @win batches, each contiguous.
		 */
		for (i = 0; i < per; i += step)
			for (k = 0; k < nv; k++) {
				struct bench_variant *x = &v[(i + b + k) % nv];
				double *slot = x->ring + (size_t)(b % win) * per + i;

				if (x->fn(x->ctx, slot, step))
					goto out;
			}
		for (k = 0; k < nv; k++) {
			double *batch = v[k].ring + (size_t)(b % win) * per;

			memcpy(tmp, batch, per * sizeof(double));
			v[k].bmed[b] = bench_quantile(tmp, per, 0.5);
			v[k].bp99[b] = tmp[(size_t)(0.99 * (per - 1) + 0.5)];
		}
		rounds = b + 1;
		if (rounds < win)
			continue;
		for (i = 0; i < nv; i++) {
			memcpy(tmp, v[i].ring, (size_t)per * win * sizeof(double));
			if (bench_summarize(tmp, per, win, &v[i].r))
				goto out;
			v[i].r.batches = rounds;
			v[i].r.stable = v[i].r.spread < BENCH_TOL;
			figures_steady &= v[i].r.stable;
		}
		for (j = 1; j < nv; j++) {
			bench__ratio(v, j, rounds - win, rounds, tmp, &v[j].ratio);
			ratios_steady &= v[j].ratio.stable;
		}
		if (figures_steady || ratios_steady || bench_now_ns() > end)
			break;
	}
	ret = 0;
out:
	for (i = 0; i < nv; i++) {
		free(v[i].ring);
		free(v[i].bmed);
		free(v[i].bp99);
		v[i].ring = v[i].bmed = v[i].bp99 = NULL;
	}
	free(tmp);
	return ret;
}

/* One figure alone.  Return: 0 or -1. */
static inline int bench_run(bench_batch_fn fn, void *ctx,
			    const struct bench_opts *o, struct bench_result *r)
{
	struct bench_variant v = { .fn = fn, .ctx = ctx };
	int ret = bench_run_side_by_side(&v, 1, o);

	*r = v.r;
	return ret;
}

static inline void bench_print(const char *group, const char *cs,
			       const char *impl, const char *unit,
			       const struct bench_result *r)
{
	printf("%s,%s,%s,%s,%.0f,%.0f,%.1f,%u,%u,%d\n", group, cs, impl, unit,
	       r->median, r->p99, r->spread * 100.0, r->batches, r->samples,
	       r->stable);
	fflush(stdout);
}

/* A paired ratio (struct bench_variant.ratio) of @impl to @ref. */
static inline void bench_print_ratio(const char *group, const char *cs,
				     const char *impl, const char *ref,
				     const struct bench_result *r)
{
	printf("%s,%s,%s/%s,ratio,%.4f,%.4f,%.1f,%u,%u,%d\n", group, cs, impl,
	       ref, r->median, r->p99, r->spread * 100.0, r->batches,
	       r->samples, r->stable);
	fflush(stdout);
}

/* A single figure (sizes, memory): no batches, no spread. */
static inline void bench_print_value(const char *group, const char *cs,
				     const char *impl, const char *unit,
				     double v)
{
	printf("%s,%s,%s,%s,%.0f,%.0f,0.0,1,1,1\n", group, cs, impl, unit,
	       v, v);
	fflush(stdout);
}

static inline int bench_fail(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, strerror(errno));
	return 1;
}

/* Read or write exactly @len bytes.  Return 0, or -1 (EOF: errno EPIPE). */
static inline int bench_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EPIPE;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static inline int bench_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Throughput with @threads concurrent callers: each sample is the number
 * of calls per second all threads completed in about @ms milliseconds.
 */
typedef int (*bench_call_fn)(void *ctx, unsigned int thread);

struct bench_conc {
	bench_call_fn call;
	void *ctx;
	unsigned int threads;
	unsigned int ms;
	/* internal */
	pthread_barrier_t go;
	atomic_int stop;
};

struct bench__worker {
	struct bench_conc *c;
	pthread_t t;
	unsigned int idx;
	uint64_t calls;
	int err;
};

static inline void *bench__worker_fn(void *arg)
{
	struct bench__worker *w = arg;

	pthread_barrier_wait(&w->c->go);
	while (!atomic_load_explicit(&w->c->stop, memory_order_relaxed)) {
		if (w->c->call(w->c->ctx, w->idx)) {
			w->err = errno ? errno : EIO;
			break;
		}
		w->calls++;
	}
	return NULL;
}

static inline int bench_conc_batch(void *ctx, double *out, unsigned int n)
{
	struct bench_conc *c = ctx;
	struct bench__worker *w = calloc(c->threads, sizeof(*w));
	struct timespec d = {
		.tv_sec = c->ms / 1000,
		.tv_nsec = (long)(c->ms % 1000) * 1000000L,
	};
	unsigned int s, i;
	int err = 0;

	if (!w)
		return -1;
	for (s = 0; s < n && !err; s++) {
		uint64_t t0, calls = 0;

		atomic_store(&c->stop, 0);
		pthread_barrier_init(&c->go, NULL, c->threads + 1);
		for (i = 0; i < c->threads; i++) {
			w[i] = (struct bench__worker){ .c = c, .idx = i };
			if (pthread_create(&w[i].t, NULL, bench__worker_fn, &w[i]))
				abort();
		}
		pthread_barrier_wait(&c->go);
		t0 = bench_now_ns();
		nanosleep(&d, NULL);
		atomic_store(&c->stop, 1);
		for (i = 0; i < c->threads; i++) {
			pthread_join(w[i].t, NULL);
			calls += w[i].calls;
			if (w[i].err)
				err = w[i].err;
		}
		/* Calls in flight at the stop count, and so does their time. */
		out[s] = (double)calls * 1e9 / (double)(bench_now_ns() - t0);
		pthread_barrier_destroy(&c->go);
	}
	free(w);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

#endif /* _BENCH_H */
