// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * umh_bench: the SDK's figures, each measured side by side with its
 * user-space references (ref.h) in one run: their batches alternate, so
 * both see the same guest at the same moment.  The SDK is driven through
 * the echo sample's /dev/echo_umh (samples/echo_umh/echo_umh_uapi.h).
 *
 *   umh_bench rtt SIZE PER_BATCH
 *	kernel -> helper -> kernel round trip of a SIZE-byte echo call,
 *	timed per call inside the kernel (ECHO_IOC_BENCH), so syscall entry
 *	is not in it; against a pipe and a unix socket ping-pong between two
 *	processes; per-call ns
 *   umh_bench bulk SIZE PER_BATCH
 *	one SIZE-byte sink call (ECHO_IOC_SINK), timed around the ioctl,
 *	against a pipe to a process that sums the bytes; per-call ns
 *   umh_bench conc THREADS MS
 *	THREADS threads making 64-byte echo calls (ECHO_IOC_ECHO), against
 *	as many threads calling one server process over pipes; calls/s
 *   umh_bench start KO HELPER PER_BATCH SUFFIX [BASELINE_KO...]
 *	insmod of KO (the echo module) until the first ping reply (the
 *	handshake is part of insmod), then rmmod; against fork + exec of
 *	HELPER until its first reply, and of a fresh copy of it (a memfd
 *	written before each fork, as the SDK copies its blob into a shmem
 *	file), and of such a copy with the clock started after the copy
 *	(code run from pages never run before, as the SDK's own start
 *	runs it: under TCG such code is translated anew); and, to split
 *	the first figure, the bare insmod of each BASELINE_KO (modules with
 *	no helper: the module loader's own cost; or, as LABEL=PATH, any
 *	module, timed from finit_module() to its return).  Also the fresh
 *	helpers' resident memory, and where the SDK's starts took their
 *	time (the status view's last_start_us, medians).  SUFFIX (e.g.
 *	musl, or - for none) is appended to the CSV "impl" names.
 *   umh_bench restart HELPER PER_BATCH
 *	SIGKILL of the running helper until the first ping reply of the next
 *	one, against fork + exec of HELPER until its first reply; and where
 *	the restarts took their time.  The module must be loaded with a
 *	restart window short enough for no backoff.
 *
 * The echo module must be loaded for rtt, bulk, conc and restart, and not
 * for start.  Prints CSV lines (bench.h).  Exit status 0, or 1 with a message.
 */
#include <libgen.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "ref.h"

#include "../samples/echo_umh/echo_umh_uapi.h"

#define DEV		"/dev/echo_umh"
#define ECHO_MODULE	"echo_umh"
#define STATUS		"/sys/module/" ECHO_MODULE "/umh_echo/"
#define BULK_TIMEOUT_MS	120000
#define MAX_BASELINES	4
#define NSPAWN		4	/* the SDK, and three kinds of fork + exec */

static int dev = -1;

static int open_dev(void)
{
	dev = open(DEV, O_RDWR | O_CLOEXEC);
	return dev < 0 ? -1 : 0;
}

/* Print every variant's row, then the ratios of the first to the others. */
static void print_all(const char *group, const char *cs, const char *unit,
		      const struct bench_variant *v, unsigned int nv)
{
	unsigned int i;

	for (i = 0; i < nv; i++)
		bench_print(group, cs, v[i].impl, unit, &v[i].r);
	for (i = 1; i < nv; i++)
		bench_print_ratio(group, cs, v[0].impl, v[i].impl, &v[i].ratio);
}

/* ---- round trip, timed in the kernel ---- */

struct rtt {
	unsigned int size;
	__u64 *ns;
};

static int rtt_batch(void *ctx, double *out, unsigned int n)
{
	struct rtt *r = ctx;
	struct echo_ioc_bench io = {
		.size = r->size, .iters = n, .ns_out = (uintptr_t)r->ns,
	};
	unsigned int i;

	if (ioctl(dev, ECHO_IOC_BENCH, &io))
		return -1;
	for (i = 0; i < n; i++)
		out[i] = (double)r->ns[i];
	return 0;
}

static int cmd_rtt(unsigned int size, unsigned int per)
{
	struct bench_opts o = { .per_batch = per };
	struct rtt r = { .size = size };
	struct ref_rtt rp, ru;
	struct bench_variant v[] = {
		{ .impl = "sdk", .fn = rtt_batch, .ctx = &r },
		{ .impl = "pipe", .fn = ref_rtt_batch, .ctx = &rp },
		{ .impl = "unix", .fn = ref_rtt_batch, .ctx = &ru },
	};
	char cs[32];

	r.ns = calloc(per, sizeof(*r.ns));
	if (!r.ns || open_dev() || ref_rtt_open(&rp, "pipe", size) ||
	    ref_rtt_open(&ru, "unix", size))
		return bench_fail("rtt setup");
	if (bench_run_side_by_side(v, 3, &o))
		return bench_fail("rtt");
	ref_rtt_close(&rp);
	ref_rtt_close(&ru);
	snprintf(cs, sizeof(cs), "%u", size);
	print_all("rtt", cs, "ns", v, 3);
	free(r.ns);
	return 0;
}

/* ---- bulk: one large sink call ---- */

struct bulk {
	size_t size;
	unsigned char *buf;
};

static int bulk_batch(void *ctx, double *out, unsigned int n)
{
	struct bulk *b = ctx;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct echo_ioc_sink io = {
			.buf = (uintptr_t)b->buf,
			.len = b->size,
			.timeout_ms = BULK_TIMEOUT_MS,
		};
		uint64_t t0 = bench_now_ns();

		if (ioctl(dev, ECHO_IOC_SINK, &io))
			return -1;
		out[i] = (double)(bench_now_ns() - t0);
		if (io.sum != (__u64)0x5a * b->size) {
			errno = EPROTO;
			return -1;
		}
	}
	return 0;
}

static int cmd_bulk(size_t size, unsigned int per)
{
	struct bench_opts o = { .per_batch = per, .window = 4, .max_batches = 10 };
	struct bulk b = { .size = size };
	struct ref_bulk rb;
	struct bench_variant v[] = {
		{ .impl = "sdk", .fn = bulk_batch, .ctx = &b },
		{ .impl = "pipe", .fn = ref_bulk_batch, .ctx = &rb },
	};
	char cs[32];

	b.buf = malloc(size ? size : 1);
	if (!b.buf || open_dev() || ref_bulk_open(&rb, size))
		return bench_fail("bulk setup");
	memset(b.buf, 0x5a, size);
	if (bench_run_side_by_side(v, 2, &o))
		return bench_fail("bulk");
	ref_bulk_close(&rb);
	snprintf(cs, sizeof(cs), "%zu", size);
	print_all("bulk", cs, "ns", v, 2);
	free(b.buf);
	return 0;
}

/* ---- concurrency ---- */

static int conc_call(void *ctx, unsigned int t)
{
	unsigned char buf[REF_CONC_PAYLOAD];
	struct echo_ioc_echo io = { .buf = (uintptr_t)buf, .len = sizeof(buf) };

	(void)ctx;
	memset(buf, (int)t, sizeof(buf));
	if (ioctl(dev, ECHO_IOC_ECHO, &io))
		return -1;
	if (io.rep_len != sizeof(buf) || buf[0] != (unsigned char)t) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static int cmd_conc(unsigned int threads, unsigned int ms)
{
	/* Short samples, taken in turns: calls/s over @ms each. */
	struct bench_opts o = { .per_batch = 5, .max_batches = 12 };
	struct bench_conc bc = {
		.call = conc_call, .threads = threads, .ms = ms,
	};
	struct ref_conc rc;
	struct bench_variant v[] = {
		{ .impl = "sdk", .fn = bench_conc_batch, .ctx = &bc },
		{ .impl = "pipe", .fn = bench_conc_batch, .ctx = &rc.bc },
	};
	char cs[32];

	if (!threads || open_dev() || ref_conc_open(&rc, threads, ms))
		return bench_fail("conc setup");
	if (bench_run_side_by_side(v, 2, &o))
		return bench_fail("conc");
	ref_conc_close(&rc);
	snprintf(cs, sizeof(cs), "%u", threads);
	print_all("conc", cs, "calls/s", v, 2);
	return 0;
}

/* ---- where a start took its time: the status view's last_start_us ---- */

/* last_start_us's stages, then create_us */
static const char *const stage_names[] = {
	"wait", "teardown", "fifos", "reader", "exec", "hello", "on_start",
	"create",
};
#define N_STAGES	(sizeof(stage_names) / sizeof(stage_names[0]))

struct stages {
	double *v[N_STAGES];	/* microseconds, one per start */
	unsigned int n, cap;
};

static int stages_read(struct stages *st)
{
	unsigned int u[N_STAGES], i;
	FILE *f = fopen(STATUS "last_start_us", "r");
	int got;

	if (!f)
		return -1;
	got = fscanf(f, "wait=%u teardown=%u fifos=%u reader=%u exec=%u hello=%u on_start=%u",
		     &u[0], &u[1], &u[2], &u[3], &u[4], &u[5], &u[6]);
	fclose(f);
	f = fopen(STATUS "create_us", "r");
	if (!f)
		return -1;
	got += fscanf(f, "%u", &u[7]);
	fclose(f);
	if (got != (int)N_STAGES) {
		errno = EPROTO;
		return -1;
	}
	if (st->n == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 64;
		for (i = 0; i < N_STAGES; i++) {
			double *v = realloc(st->v[i], st->cap * sizeof(double));

			if (!v)
				return -1;
			st->v[i] = v;
		}
	}
	for (i = 0; i < N_STAGES; i++)
		st->v[i][st->n] = u[i];
	st->n++;
	return 0;
}

/* Each stage's median over every start, as a figure in ns. */
static void stages_print(struct stages *st, const char *group,
			 const char *impl)
{
	unsigned int i;

	for (i = 0; i < N_STAGES && st->n; i++) {
		bench_print_value(group, stage_names[i], impl, "ns",
				  1000.0 * bench_quantile(st->v[i], st->n, 0.5));
		free(st->v[i]);
		st->v[i] = NULL;
	}
	st->n = st->cap = 0;
}

/* ---- helper start: insmod to first reply ---- */

struct load {
	int ko;
	char name[64];		/* module name, for delete_module() */
	char label[64];		/* its figure's name */
	int ping;		/* the echo module: wait for a first reply */
	long rss_kb;
	struct stages st;
};

/*
 * @ko: a module's path, or LABEL=PATH to name its figure LABEL rather than
 * after the module (two modules of one name: upstream's bpfilter and ours).
 */
static int load_open(struct load *l, const char *ko, int ping)
{
	const char *eq = strchr(ko, '=');
	char path[4096], *base;

	memset(l, 0, sizeof(*l));
	l->ping = ping;
	l->rss_kb = -1;
	if (eq && !ping) {
		snprintf(l->label, sizeof(l->label), "%.*s", (int)(eq - ko), ko);
		ko = eq + 1;
	}
	l->ko = open(ko, O_RDONLY | O_CLOEXEC);
	if (l->ko < 0)
		return -1;
	if (ping) {
		snprintf(l->name, sizeof(l->name), "%s", ECHO_MODULE);
	} else {
		snprintf(path, sizeof(path), "%s", ko);
		base = basename(path);
		base[strcspn(base, ".")] = '\0';
		snprintf(l->name, sizeof(l->name), "%s", base);
	}
	if (!l->label[0])
		snprintf(l->label, sizeof(l->label), "%s", l->name);
	return 0;
}

static int load_batch(void *ctx, double *out, unsigned int n)
{
	const struct timespec settle = { .tv_nsec = 50 * 1000000L };
	struct load *l = ctx;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct echo_ioc_ping ping = { .cookie = 42 };
		int fd = -1, ret = 0;
		uint64_t t0;

		t0 = bench_now_ns();
		if (syscall(SYS_finit_module, l->ko, "", 0))
			return -1;
		if (l->ping) {
			fd = open(DEV, O_RDWR | O_CLOEXEC);
			ret = fd < 0 ? -1 : ioctl(fd, ECHO_IOC_PING, &ping);
		}
		out[i] = (double)(bench_now_ns() - t0);
		if (l->ping && !ret) {
			l->rss_kb = ref_rss_kb((pid_t)ping.pid);
			if (stages_read(&l->st))
				ret = -1;
		}
		if (fd >= 0)
			close(fd);
		/* rmmod waits for the helper to be gone. */
		if (syscall(SYS_delete_module, l->name, O_NONBLOCK) || ret)
			return -1;
		/* Let what rmmod deferred finish before the next sample. */
		nanosleep(&settle, NULL);
	}
	return 0;
}

static int cmd_start(const char *ko, const char *helper, unsigned int per,
		     const char *suffix, char **baselines, unsigned int nb)
{
	/*
	 * Whole batches: work an rmmod leaves behind (the old helper's exit,
	 * module memory freed) would otherwise land in every other sample.
	 */
	struct bench_opts o = {
		.per_batch = per, .window = 4, .max_batches = 10,
		.whole_batches = 1,
	};
	struct bench_variant v[NSPAWN + MAX_BASELINES] = { 0 };
	char names[NSPAWN + MAX_BASELINES][80];
	struct load sdk, base[MAX_BASELINES];
	struct ref_spawn sp, cp, fp;
	const char *sfx = strcmp(suffix, "-") ? suffix : "";
	unsigned int i;

	if (nb > MAX_BASELINES) {
		errno = E2BIG;
		return bench_fail("baselines");
	}
	if (load_open(&sdk, ko, 1) || ref_spawn_open(&sp, helper) ||
	    ref_spawn_open_copy(&cp, helper, 0) ||
	    ref_spawn_open_copy(&fp, helper, 1))
		return bench_fail("start setup");
	snprintf(names[0], sizeof(names[0]), "sdk%s%s", *sfx ? "_" : "", sfx);
	snprintf(names[1], sizeof(names[1]), "fork_exec%s%s", *sfx ? "_" : "",
		 sfx);
	v[0] = (struct bench_variant){ .impl = names[0], .fn = load_batch, .ctx = &sdk };
	v[1] = (struct bench_variant){ .impl = names[1], .fn = ref_spawn_batch, .ctx = &sp };
	snprintf(names[2], sizeof(names[2]), "copy_fork_exec%s%s",
		 *sfx ? "_" : "", sfx);
	v[2] = (struct bench_variant){ .impl = names[2], .fn = ref_spawn_batch, .ctx = &cp };
	snprintf(names[3], sizeof(names[3]), "fresh_fork_exec%s%s",
		 *sfx ? "_" : "", sfx);
	v[3] = (struct bench_variant){ .impl = names[3], .fn = ref_spawn_batch, .ctx = &fp };
	for (i = 0; i < nb; i++) {
		unsigned int j = NSPAWN + i;

		if (load_open(&base[i], baselines[i], 0))
			return bench_fail(baselines[i]);
		snprintf(names[j], sizeof(names[j]), "insmod_%s", base[i].label);
		v[j] = (struct bench_variant){
			.impl = names[j], .fn = load_batch, .ctx = &base[i],
		};
	}
	if (bench_run_side_by_side(v, NSPAWN + nb, &o))
		return bench_fail("start");
	ref_spawn_close(&sp);
	ref_spawn_close(&cp);
	ref_spawn_close(&fp);
	print_all("start", "first_reply", "ns", v, NSPAWN + nb);
	stages_print(&sdk.st, "start_stage", names[0]);
	bench_print_value("mem", "helper_rss", names[0], "kB", (double)sdk.rss_kb);
	bench_print_value("mem", "helper_rss", names[1], "kB", (double)sp.rss_kb);
	return 0;
}

/* ---- helper restart: SIGKILL to the next helper's first reply ---- */

static pid_t helper_pid(void)
{
	FILE *f = fopen(STATUS "pid", "r");
	int pid = 0;

	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return (pid_t)pid;
}

static int restart_batch(void *ctx, double *out, unsigned int n)
{
	struct stages *st = ctx;
	unsigned int i;

	for (i = 0; i < n; i++) {
		pid_t old = helper_pid();
		uint64_t t0;

		if (old <= 0) {
			errno = ESRCH;
			return -1;
		}
		t0 = bench_now_ns();
		if (kill(old, SIGKILL))
			return -1;
		/*
		 * A ping that raced the death fails (the helper died on it);
		 * the next one waits while the restart is under way.
		 */
		for (;;) {
			struct echo_ioc_ping ping = { .cookie = 42 };

			if (!ioctl(dev, ECHO_IOC_PING, &ping) &&
			    (pid_t)ping.pid != old)
				break;
			if (bench_now_ns() - t0 > 10000000000ULL) {
				errno = ETIMEDOUT;
				return -1;
			}
		}
		out[i] = (double)(bench_now_ns() - t0);
		if (stages_read(st))
			return -1;
	}
	return 0;
}

static int cmd_restart(const char *helper, unsigned int per)
{
	struct bench_opts o = {
		.per_batch = per, .window = 4, .max_batches = 10,
		.whole_batches = 1,
	};
	struct stages st = { 0 };
	struct ref_spawn sp;
	struct bench_variant v[2] = {
		{ .impl = "sdk", .fn = restart_batch, .ctx = &st },
		{ .impl = "fork_exec", .fn = ref_spawn_batch, .ctx = &sp },
	};

	if (open_dev() || ref_spawn_open(&sp, helper))
		return bench_fail("restart setup");
	if (bench_run_side_by_side(v, 2, &o))
		return bench_fail("restart");
	ref_spawn_close(&sp);
	print_all("restart", "first_reply", "ns", v, 2);
	stages_print(&st, "restart_stage", "sdk");
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(cmd, "rtt") && argc == 4)
		return cmd_rtt(strtoul(argv[2], NULL, 0),
			       strtoul(argv[3], NULL, 0));
	if (!strcmp(cmd, "bulk") && argc == 4)
		return cmd_bulk(strtoul(argv[2], NULL, 0),
				strtoul(argv[3], NULL, 0));
	if (!strcmp(cmd, "conc") && argc == 4)
		return cmd_conc(strtoul(argv[2], NULL, 0),
				strtoul(argv[3], NULL, 0));
	if (!strcmp(cmd, "restart") && argc == 4)
		return cmd_restart(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(cmd, "start") && argc >= 6)
		return cmd_start(argv[2], argv[3], strtoul(argv[4], NULL, 0),
				 argv[5], argv + 6, (unsigned int)(argc - 6));
	fprintf(stderr, "usage: see the comment at the top of %s\n", __FILE__);
	return 2;
}
