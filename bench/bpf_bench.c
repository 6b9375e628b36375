// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_bench: the bpfilter sample's figures, run in the guest by
 * bench/bpfilter_bench.sh.
 *
 *   bpf_bench prog CASE REPEAT [PIN_DIR]
 *	Read the filter table the kernel holds now (IPT_SO_GET_ENTRIES,
 *	from ip_tables or from bpfilter), translate and compile it with the
 *	helper's own code (samples/bpfilter/ipt_table.c, ipt_bpf.c), load the
 *	program as the module does, and time it with BPF_PROG_TEST_RUN:
 *	each sample is one run of REPEAT packets (a TCP SYN from 10.9.0.2:40000
 *	to 10.9.0.1:60000 at LOCAL_IN, as bpf_bench send sends it).  Rows:
 *	insns (xlated, as the verifier reports them), the generator's own
 *	count, compile and load (verifier) milliseconds, ns per packet.
 *
 *	With PIN_DIR (a bpffs directory), the program stays pinned there as
 *	CASE for bpf_bench pair.
 *
 *   bpf_bench pair PIN_DIR A B REPEAT
 *	Time the pinned programs A and B side by side (their samples taken
 *	in turns): rows for each and the paired ratio A / B.
 *
 *   bpf_bench send CASE IMPL PER
 *	Send that packet through a raw socket, PER per sample, and time it:
 *	through a veth pair, the receiving side's stack runs in the sender's
 *	softirq, so a send's time includes the firewall's work on it.  Row:
 *	ns per packet.
 *
 * CSV rows as bench/bench.h prints them: groups "insns" (xlated,
 * generated), "prog_ms" (compile, verify), "bpf" (TEST_RUN ns per packet)
 * and "veth" (ns per packet).  Exit
 * status 1 when a figure could not be taken (the reason on stderr).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/netfilter_ipv4/ip_tables.h>

#include "bench.h"
#include "../tests/unit/ipt_bpf_load.h"
#include "../samples/bpfilter/ipt_table.h"

#define SRC		"10.9.0.2"
#define DST		"10.9.0.1"
#define SPORT		40000
#define DPORT		60000

/* The TCP header bpf_bench send writes, and TEST_RUN's frame around it. */
static void tcp_syn(unsigned char *th)
{
	memset(th, 0, 20);
	th[0] = SPORT >> 8;
	th[1] = SPORT & 0xff;
	th[2] = DPORT >> 8;
	th[3] = DPORT & 0xff;
	th[12] = 5 << 4;		/* doff */
	th[13] = 0x02;			/* SYN */
	th[14] = 0xff;			/* window */
}

static void frame(unsigned char *d)
{
	struct in_addr a;

	memset(d, 0, 14 + 40);
	d[12] = 0x08;			/* ETH_P_IP */
	d[14] = 0x45;
	d[14 + 3] = 40;			/* tot_len */
	d[14 + 6] = 0x40;		/* DF */
	d[14 + 8] = 64;			/* ttl */
	d[14 + 9] = IPPROTO_TCP;
	inet_pton(AF_INET, SRC, &a);
	memcpy(d + 14 + 12, &a, 4);
	inet_pton(AF_INET, DST, &a);
	memcpy(d + 14 + 16, &a, 4);
	tcp_syn(d + 14 + 20);
}

static int read_filter(struct ipt_table *t)
{
	char why[IPT_TABLE_WHY_LEN] = "";
	struct ipt_get_entries *ge;
	struct ipt_getinfo info;
	struct ipt_replace r;
	socklen_t len;
	int fd, err;

	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0)
		return bench_fail("socket");
	memset(&info, 0, sizeof(info));
	strcpy(info.name, "filter");
	len = sizeof(info);
	if (getsockopt(fd, IPPROTO_IP, IPT_SO_GET_INFO, &info, &len))
		return bench_fail("IPT_SO_GET_INFO");
	len = (socklen_t)(sizeof(*ge) + info.size);
	ge = calloc(1, len);
	if (!ge)
		return bench_fail("calloc");
	strcpy(ge->name, "filter");
	ge->size = info.size;
	if (getsockopt(fd, IPPROTO_IP, IPT_SO_GET_ENTRIES, ge, &len))
		return bench_fail("IPT_SO_GET_ENTRIES");
	close(fd);
	memset(&r, 0, sizeof(r));
	strcpy(r.name, "filter");
	r.valid_hooks = info.valid_hooks;
	r.num_entries = info.num_entries;
	r.size = info.size;
	memcpy(r.hook_entry, info.hook_entry, sizeof(r.hook_entry));
	memcpy(r.underflow, info.underflow, sizeof(r.underflow));
	err = ipt_table_translate(&r, ge->entrytable, t, why, sizeof(why));
	free(ge);
	if (err) {
		fprintf(stderr, "bpf_bench: the kernel's table does not translate: %s\n",
			why);
		return 1;
	}
	return 0;
}

struct run_ctx {
	int prog;
	unsigned int repeat;
	unsigned char d[14 + 40];
	struct __sk_buff ctx;
};

static int run_batch(void *arg, double *out, unsigned int n)
{
	struct run_ctx *c = arg;
	unsigned int i;

	for (i = 0; i < n; i++) {
		__u32 ret, ns;

		if (ibl_prog_run(c->prog, c->d, sizeof(c->d), &c->ctx,
				 c->repeat, &ret, &ns))
			return -1;
		if (ret != NF_DROP) {
			fprintf(stderr, "bpf_bench: the program returned %u, not NF_DROP\n",
				ret);
			errno = EPROTO;
			return -1;
		}
		out[i] = ns;
	}
	return 0;
}

static double ms_since(uint64_t t0)
{
	return (double)(bench_now_ns() - t0) / 1e6;
}

static void frame_ctx(struct run_ctx *c)
{
	frame(c->d);
	c->ctx.cb[BPFILTER_CB_HOOK] = NF_INET_LOCAL_IN;
	c->ctx.cb[BPFILTER_CB_IN] = 1;
}

static int obj_pin(int fd, const char *path, int get)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (__u64)(uintptr_t)path;
	a.bpf_fd = get ? 0 : (__u32)fd;
	return ibl_sys_bpf(get ? BPF_OBJ_GET : BPF_OBJ_PIN, &a);
}

static int cmd_prog(const char *cs, unsigned int repeat, const char *pin)
{
	char why[IPT_TABLE_WHY_LEN] = "";
	struct bench_opts o = { .per_batch = 5 };
	struct bpf_prog_info info;
	struct run_ctx c = { .repeat = repeat };
	struct ipt_bpf_prog bp;
	struct bench_result r;
	struct ipt_table t;
	struct bpf_insn *insns;
	union bpf_attr a;
	int counters, ifaces, ncpus = ibl_possible_cpus();
	double compile_ms, load_ms;
	uint64_t t0;

	if (ncpus < 1)
		return bench_fail("/sys/devices/system/cpu/possible");
	if (read_filter(&t))
		return 1;
	t0 = bench_now_ns();
	if (ipt_bpf_compile(&t, &bp, why, sizeof(why))) {
		fprintf(stderr, "bpf_bench: compile: %s\n", why);
		return 1;
	}
	compile_ms = ms_since(t0);
	counters = ibl_counters_map(&bp, ncpus);
	ifaces = ibl_map_create(BPF_MAP_TYPE_HASH,
				BPFILTER_IFACE_WORDS(bp.n_ifaces) * 8, 1);
	if (counters < 0 || ifaces < 0)
		return bench_fail("BPF_MAP_CREATE");
	insns = malloc(bp.n_insns * sizeof(*insns));
	if (!insns)
		return bench_fail("malloc");
	memcpy(insns, bp.insns, bp.n_insns * sizeof(*insns));
	ibl_patch_maps(insns, bp.n_insns, counters, ifaces);
	t0 = bench_now_ns();
	c.prog = ibl_prog_load(insns, bp.n_insns, NULL, 0, 0);
	if (c.prog < 0)
		return bench_fail("BPF_PROG_LOAD");
	load_ms = ms_since(t0);
	free(insns);
	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (__u32)c.prog;
	a.info.info_len = sizeof(info);
	a.info.info = (__u64)(uintptr_t)&info;
	if (ibl_sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a))
		return bench_fail("BPF_OBJ_GET_INFO_BY_FD");
	fprintf(stderr, "bpf_bench: %s: %u entries, %u insns generated (%u decision trees), %u xlated, %u bytes jited; compile %.1f ms, load %.1f ms\n",
		cs, bp.number, bp.n_insns, bp.n_trees,
		info.xlated_prog_len / 8, info.jited_prog_len, compile_ms,
		load_ms);
	bench_print_value("insns", cs, "xlated", "count",
			  info.xlated_prog_len / 8);
	bench_print_value("insns", cs, "generated", "count", bp.n_insns);
	bench_print_value("prog_ms", cs, "compile", "ms", compile_ms);
	bench_print_value("prog_ms", cs, "verify", "ms", load_ms);

	frame_ctx(&c);
	if (bench_run(run_batch, &c, &o, &r))
		return bench_fail("BPF_PROG_TEST_RUN");
	bench_print("bpf", cs, "bpfilter", "ns", &r);
	if (pin) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", pin, cs);
		unlink(path);
		if (obj_pin(c.prog, path, 0))
			return bench_fail(path);
	}
	close(c.prog);
	close(counters);
	close(ifaces);
	ipt_bpf_free(&bp);
	ipt_table_free(&t);
	return 0;
}

static int cmd_pair(const char *pin, const char *a, const char *b,
		    unsigned int repeat)
{
	struct bench_opts o = { .per_batch = 5 };
	struct run_ctx c[2] = { { .repeat = repeat }, { .repeat = repeat } };
	struct bench_variant v[2] = {
		{ .impl = a, .fn = run_batch, .ctx = &c[0] },
		{ .impl = b, .fn = run_batch, .ctx = &c[1] },
	};
	char impl[64];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", pin, v[i].impl);
		c[i].prog = obj_pin(-1, path, 1);
		if (c[i].prog < 0)
			return bench_fail(path);
		frame_ctx(&c[i]);
	}
	if (bench_run_side_by_side(v, 2, &o))
		return bench_fail("BPF_PROG_TEST_RUN");
	snprintf(impl, sizeof(impl), "pair_%s", b);
	bench_print("bpf", a, impl, "ns", &v[0].r);
	snprintf(impl, sizeof(impl), "pair_%s", a);
	bench_print("bpf", b, impl, "ns", &v[1].r);
	bench_print_ratio("bpf", a, "bpfilter", b, &v[1].ratio);
	close(c[0].prog);
	close(c[1].prog);
	return 0;
}

struct send_ctx {
	int fd;
	unsigned int per;
	unsigned char th[20];
	struct sockaddr_in to;
};

static int send_batch(void *arg, double *out, unsigned int n)
{
	struct send_ctx *c = arg;
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		uint64_t t0 = bench_now_ns();

		for (j = 0; j < c->per; j++) {
			if (sendto(c->fd, c->th, sizeof(c->th), 0,
				   (struct sockaddr *)&c->to,
				   sizeof(c->to)) != sizeof(c->th))
				return -1;
		}
		out[i] = (double)(bench_now_ns() - t0) / c->per;
	}
	return 0;
}

static int cmd_send(const char *cs, const char *impl, unsigned int per)
{
	struct bench_opts o = { .per_batch = 5 };
	struct send_ctx c = { .per = per };
	struct bench_result r;

	c.fd = socket(AF_INET, SOCK_RAW, IPPROTO_TCP);
	if (c.fd < 0)
		return bench_fail("socket");
	c.to.sin_family = AF_INET;
	inet_pton(AF_INET, DST, &c.to.sin_addr);
	tcp_syn(c.th);
	if (bench_run(send_batch, &c, &o, &r))
		return bench_fail("sendto");
	bench_print("veth", cs, impl, "ns", &r);
	close(c.fd);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "prog"))
		return cmd_prog(argv[2], (unsigned int)atoi(argv[3]),
				argc == 5 ? argv[4] : NULL);
	if (argc == 6 && !strcmp(argv[1], "pair"))
		return cmd_pair(argv[2], argv[3], argv[4],
				(unsigned int)atoi(argv[5]));
	if (argc == 5 && !strcmp(argv[1], "send"))
		return cmd_send(argv[2], argv[3], (unsigned int)atoi(argv[4]));
	fprintf(stderr, "usage: bpf_bench prog CASE REPEAT [PIN_DIR] | pair PIN_DIR A B REPEAT | send CASE IMPL PER\n");
	return 2;
}
