// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * umd_bench: the seed's own mechanism (upstream bpfilter.ko and its
 * usermode driver bpfilter_umh, CONFIG_BPFILTER_UMH) next to this SDK, on
 * the kernel of bench/umd-kernel.sh.  Run by bench/umd_guest.sh.
 *
 *   umd_bench rtt PER_BATCH BLOB
 *	an empty round trip to a helper, timed in user space around the
 *	system call: setsockopt(IPT_SO_SET_REPLACE) through upstream's
 *	bpfilter.ko, whose helper answers every request with a status
 *	(-ENOPROTOOPT; with nothing else registered for the iptables
 *	sockopts the call then fails with ENOPROTOOPT), side by side with an
 *	8-byte ECHO_IOC_ECHO call through the echo sample.  Both modules must
 *	be loaded, and nothing may serve the iptables sockopts.  BLOB: a
 *	table saved by replace (upstream's helper does not read it).
 *   umd_bench replace IMPL PER_BATCH BLOB
 *	setsockopt(IPT_SO_SET_REPLACE) round trips of the filter table as
 *	it is (the same table put back each time), through whatever serves
 *	the iptables sockopts now.  The table is read with IPT_SO_GET_INFO
 *	and IPT_SO_GET_ENTRIES and saved to BLOB; when it cannot be read
 *	(upstream's helper answers reads with an error too) the table saved
 *	by an earlier run is sent.  Every call must end the same way; the
 *	CSV says how (errno 0, or the errno).
 *
 * Prints CSV lines (bench.h).  Exit status 0, or 1 with a message.
 */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <linux/netfilter_ipv4/ip_tables.h>

#include "bench.h"

#include "../samples/echo_umh/echo_umh_uapi.h"

#define DEV		"/dev/echo_umh"
#define ECHO_LEN	8

struct call {
	int sock, dev;
	void *req;		/* struct ipt_replace and its entries */
	socklen_t len;
	int want;		/* errno every call must end with (0: success) */
	int seen;		/* -1 until the first call */
	char echo[ECHO_LEN];
};

/* One setsockopt(IPT_SO_SET_REPLACE); -1 if it ended unlike the first. */
static int set_replace(struct call *c)
{
	int e = setsockopt(c->sock, SOL_IP, IPT_SO_SET_REPLACE, c->req,
			   c->len) ? errno : 0;

	if (c->seen < 0)
		c->seen = e;
	if (e != c->seen) {
		fprintf(stderr, "umd_bench: a replace ended with %s, the first with %s\n",
			strerror(e), strerror(c->seen));
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static int replace_batch(void *ctx, double *out, unsigned int n)
{
	struct call *c = ctx;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t t0 = bench_now_ns();

		if (set_replace(c))
			return -1;
		out[i] = (double)(bench_now_ns() - t0);
	}
	return 0;
}

static int echo_batch(void *ctx, double *out, unsigned int n)
{
	struct call *c = ctx;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct echo_ioc_echo e = {
			.buf = (uintptr_t)c->echo, .len = ECHO_LEN,
		};
		uint64_t t0 = bench_now_ns();

		if (ioctl(c->dev, ECHO_IOC_ECHO, &e))
			return -1;
		out[i] = (double)(bench_now_ns() - t0);
		if (e.rep_len != ECHO_LEN) {
			errno = EPROTO;
			return -1;
		}
	}
	return 0;
}

/*
 * The filter table as a replace request: what iptables sends to put a
 * table back unchanged (its counters go to @counters).
 */
static int table_read(struct call *c)
{
	struct ipt_getinfo info = { .name = "filter" };
	socklen_t il = sizeof(info), el;
	struct ipt_get_entries *ge;
	struct ipt_replace *r;

	if (getsockopt(c->sock, SOL_IP, IPT_SO_GET_INFO, &info, &il))
		return -1;
	el = sizeof(*ge) + info.size;
	ge = calloc(1, el);
	r = calloc(1, sizeof(*r) + info.size);
	if (!ge || !r)
		goto fail;
	snprintf(ge->name, sizeof(ge->name), "filter");
	ge->size = info.size;
	if (getsockopt(c->sock, SOL_IP, IPT_SO_GET_ENTRIES, ge, &el))
		goto fail;
	snprintf(r->name, sizeof(r->name), "filter");
	r->valid_hooks = info.valid_hooks;
	r->num_entries = info.num_entries;
	r->size = info.size;
	memcpy(r->hook_entry, info.hook_entry, sizeof(r->hook_entry));
	memcpy(r->underflow, info.underflow, sizeof(r->underflow));
	r->num_counters = info.num_entries;
	memcpy(r->entries, ge->entrytable, info.size);
	free(ge);
	c->req = r;
	c->len = (socklen_t)(sizeof(*r) + info.size);
	return 0;
fail:
	free(ge);
	free(r);
	return -1;
}

/* Point the request's counters at a buffer of ours (also after a load). */
static int counters_set(struct call *c)
{
	struct ipt_replace *r = c->req;

	if (c->len < sizeof(*r) || r->num_counters > 1000000) {
		errno = EINVAL;
		return -1;
	}
	r->counters = calloc(r->num_counters + 1, sizeof(struct xt_counters));
	return r->counters ? 0 : -1;
}

static int blob_io(struct call *c, const char *path, int save)
{
	int fd = open(path, save ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC :
		      O_RDONLY | O_CLOEXEC, 0600);
	struct stat st;
	int ret = -1;

	if (fd < 0)
		return -1;
	if (save) {
		ret = bench_write_full(fd, c->req, c->len);
	} else if (!fstat(fd, &st) && st.st_size > 0 && st.st_size < (1 << 24)) {
		c->len = (socklen_t)st.st_size;
		c->req = malloc(c->len);
		if (c->req)
			ret = bench_read_full(fd, c->req, c->len);
	}
	close(fd);
	return ret;
}

static int cmd_replace(const char *impl, unsigned int per, const char *blob)
{
	struct bench_opts o = { .per_batch = per, .max_batches = 12 };
	struct call c = { .seen = -1 };
	struct bench_result r;
	int live;

	c.sock = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (c.sock < 0)
		return bench_fail("socket");
	live = !table_read(&c);
	if (live ? blob_io(&c, blob, 1) : blob_io(&c, blob, 0))
		return bench_fail(live ? "saving the table" :
				  "no table to read, none saved before");
	if (counters_set(&c))
		return bench_fail("counters");
	if (bench_run(replace_batch, &c, &o, &r))
		return bench_fail("replace");
	bench_print("umd", "set_replace", impl, "ns", &r);
	bench_print_value("umd", "set_replace_errno", impl, "errno", c.seen);
	return 0;
}

static int cmd_rtt(unsigned int per, const char *blob)
{
	struct bench_opts o = { .per_batch = per };
	struct call c = { .seen = -1 };
	struct bench_variant v[2] = {
		{ .impl = "sdk_echo", .fn = echo_batch, .ctx = &c },
		{ .impl = "umd", .fn = replace_batch, .ctx = &c },
	};

	c.sock = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	c.dev = open(DEV, O_RDWR | O_CLOEXEC);
	if (c.sock < 0 || c.dev < 0)
		return bench_fail("socket or " DEV);
	if (blob_io(&c, blob, 0) || counters_set(&c))
		return bench_fail(blob);
	if (bench_run_side_by_side(v, 2, &o))
		return bench_fail("rtt");
	if (c.seen != ENOPROTOOPT) {
		fprintf(stderr, "umd_bench: the replace through upstream's helper ended with %s, not ENOPROTOOPT\n",
			strerror(c.seen));
		return 1;
	}
	bench_print("umd", "empty_rtt", v[0].impl, "ns", &v[0].r);
	bench_print("umd", "empty_rtt", v[1].impl, "ns", &v[1].r);
	bench_print_ratio("umd", "empty_rtt", v[0].impl, v[1].impl, &v[1].ratio);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "rtt") && argc == 4)
		return cmd_rtt(strtoul(argv[2], NULL, 0), argv[3]);
	if (!strcmp(cmd, "replace") && argc == 5)
		return cmd_replace(argv[2], strtoul(argv[3], NULL, 0), argv[4]);
	fprintf(stderr, "usage: umd_bench rtt PER_BATCH BLOB | replace IMPL PER_BATCH BLOB\n");
	return 2;
}
