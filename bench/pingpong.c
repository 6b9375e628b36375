// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * pingpong: the user-space references of the benchmarks (ref.h), alone.
 * umh_bench measures them next to the SDK; this program runs one of them
 * by itself, on any machine, to look at a reference without a module.
 *
 *   pingpong rtt pipe|unix SIZE PER_BATCH    round trip, per-call ns
 *   pingpong bulk SIZE PER_BATCH             one SIZE-byte request, ns
 *   pingpong conc THREADS MS                 calls per second
 *   pingpong spawn HELPER PER_BATCH          fork+exec to first reply, ns
 *
 * Prints CSV lines (bench.h).  Exit status 0, or 1 with a message.
 */
#include "ref.h"

static int cmd_rtt(const char *kind, size_t size, unsigned int per)
{
	struct bench_opts o = { .per_batch = per };
	struct bench_result res;
	struct ref_rtt r;
	char cs[32];

	if (ref_rtt_open(&r, kind, size))
		return bench_fail("rtt setup");
	if (bench_run(ref_rtt_batch, &r, &o, &res))
		return bench_fail("rtt");
	ref_rtt_close(&r);
	snprintf(cs, sizeof(cs), "%zu", size);
	bench_print("rtt", cs, kind, "ns", &res);
	return 0;
}

static int cmd_bulk(size_t size, unsigned int per)
{
	struct bench_opts o = { .per_batch = per, .window = 4, .max_batches = 10 };
	struct bench_result res;
	struct ref_bulk b;
	char cs[32];

	if (ref_bulk_open(&b, size))
		return bench_fail("bulk setup");
	if (bench_run(ref_bulk_batch, &b, &o, &res))
		return bench_fail("bulk");
	ref_bulk_close(&b);
	snprintf(cs, sizeof(cs), "%zu", size);
	bench_print("bulk", cs, "pipe", "ns", &res);
	return 0;
}

static int cmd_conc(unsigned int threads, unsigned int ms)
{
	struct bench_opts o = { .per_batch = 1, .max_batches = 12 };
	struct bench_result res;
	struct ref_conc c;
	char cs[32];

	if (ref_conc_open(&c, threads, ms))
		return bench_fail("conc setup");
	if (bench_run(bench_conc_batch, &c.bc, &o, &res))
		return bench_fail("conc");
	ref_conc_close(&c);
	snprintf(cs, sizeof(cs), "%u", threads);
	bench_print("conc", cs, "pipe", "calls/s", &res);
	return 0;
}

static int cmd_spawn(const char *helper, unsigned int per)
{
	struct bench_opts o = { .per_batch = per, .window = 4, .max_batches = 10 };
	struct bench_result res;
	struct ref_spawn s;

	if (ref_spawn_open(&s, helper))
		return bench_fail("/dev/null");
	if (bench_run(ref_spawn_batch, &s, &o, &res))
		return bench_fail("spawn");
	ref_spawn_close(&s);
	bench_print("start", "first_reply", "fork_exec", "ns", &res);
	bench_print_value("mem", "helper_rss", "fork_exec", "kB",
			  (double)s.rss_kb);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(cmd, "rtt") && argc == 5)
		return cmd_rtt(argv[2], strtoul(argv[3], NULL, 0),
			       strtoul(argv[4], NULL, 0));
	if (!strcmp(cmd, "bulk") && argc == 4)
		return cmd_bulk(strtoul(argv[2], NULL, 0),
				strtoul(argv[3], NULL, 0));
	if (!strcmp(cmd, "conc") && argc == 4)
		return cmd_conc(strtoul(argv[2], NULL, 0),
				strtoul(argv[3], NULL, 0));
	if (!strcmp(cmd, "spawn") && argc == 4)
		return cmd_spawn(argv[2], strtoul(argv[3], NULL, 0));
	fprintf(stderr, "usage: see the comment at the top of %s\n", __FILE__);
	return 2;
}
