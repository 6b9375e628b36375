// SPDX-License-Identifier: GPL-2.0
/*
 * The lifecycle module's helper: the echo protocol, with two ways to
 * misbehave before it serves, both read from the module's parameters
 * when it starts (before its sandbox applies, which forbids open and fork):
 *
 *  hello_delay_ms: sleep that long before the handshake, so that a test
 *	can act while the kernel waits for it;
 *  flood_children: fork that many children (comm "lc-flood") that grow
 *	the stderr pipe they inherit to 32 MiB and write to it forever: the
 *	kernel's stderr reader never sees that pipe empty, nor its end.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#include "../../samples/echo_umh/echo_proto.h"
#include <umh_sdk/helper.h>

UMH_HELPER_DEFINE(echo, ECHO_OPS)
UMH_HELPER_SANDBOX(echo, UMH_NO_CAPS,
		   UMH_SYSCALLS(SYS_nanosleep, SYS_clock_nanosleep))

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static unsigned int param(const char *name)
{
	char path[96], v[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/lifecycle/parameters/%s",
		 name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, v, sizeof(v) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	v[n] = '\0';
	return (unsigned int)strtoul(v, NULL, 10);
}

static void flood(void)
{
	static char line[65536];
	size_t i;

	prctl(PR_SET_NAME, "lc-flood", 0, 0, 0);
	signal(SIGPIPE, SIG_DFL);
	/*
	 * A 32 MiB pipe (root may exceed pipe-max-size): the kernel reads
	 * 256 bytes at a time, so the backlog alone lasts it seconds, and the
	 * pipe never runs empty while a child waits to be scheduled.
	 */
	fcntl(2, F_SETPIPE_SZ, 32 << 20);
	for (i = 0; i + 32 <= sizeof(line); i += 32)
		memcpy(line + i, "lc-flood: stderr flood line ...\n", 32);
	for (;;)
		if (write(2, line, sizeof(line)) < 0)
			_exit(0);
}

int echo_handle_ping(void *ctx, const struct echo_ping *req,
		     struct echo_pong *rep)
{
	(void)ctx;
	rep->cookie = req->cookie;
	rep->pid = (__u32)getpid();
	return 0;
}

int echo_handle_tag(void *ctx, const struct echo_tag *req,
		    struct echo_tag *rep)
{
	(void)ctx;
	memcpy(rep->tag, req->tag, sizeof(rep->tag));
	return 0;
}

int echo_handle_add(void *ctx, const struct echo_add *req,
		    struct echo_sum *rep)
{
	(void)ctx;
	rep->sum = (__s64)((__u64)req->a + (__u64)req->b);
	return 0;
}

int echo_handle_echo(void *ctx, const void *req, size_t len,
		     struct umh_out *out)
{
	(void)ctx;
	return umh_out_set(out, req, len);
}

int echo_handle_sleep(void *ctx, const struct echo_sleep *req,
		      struct echo_sleep *rep)
{
	(void)ctx;
	sleep_ms(req->ms);
	rep->ms = req->ms;
	return 0;
}

int echo_handle_sink(void *ctx, const void *req, size_t len,
		     struct echo_sink_rep *rep)
{
	(void)ctx;
	(void)req;
	rep->len = len;
	rep->sum = 0;
	return 0;
}

int main(void)
{
	unsigned int i, children = param("flood_children");
	unsigned int delay = param("hello_delay_ms");

	for (i = 0; i < children; i++)
		if (fork() == 0)
			flood();
	if (delay) {
		umh_info("lifecycle helper %d: handshake in %u ms",
			 (int)getpid(), delay);
		sleep_ms(delay);
	}
	return UMH_HELPER_RUN(echo, NULL);
}
