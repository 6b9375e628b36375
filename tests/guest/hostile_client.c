// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_client: make calls to the hostile test module (/dev/hostile_umh)
 * from inside a test guest.
 *
 *   hostile_client SPEC...
 *
 * SPEC is OP:COOKIE[:REQ_LEN[:REP_CAP[:TIMEOUT_MS]]], OP one of ping,
 * sleep, echo, sink, or nullrep (an echo call whose reply buffer is NULL,
 * HOSTILE_IOC_NULL_REP); COOKIE a number from enum hostile_cookie
 * (tests/modules/hostile_uapi.h).  Each SPEC is one call in its own
 * thread; the threads start 200 ms apart, so several calls can be in
 * flight at once, in a known order.  For each SPEC, in order, prints
 *
 *   RESULT ELAPSED_MS REP_LEN
 *
 * RESULT is OK or the errno name the call returned.  Exit status 0 once
 * every call returned (whatever it returned), 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../modules/hostile_uapi.h"

#define MAX_SPECS 8

struct call {
	pthread_t t;
	unsigned long cmd;
	struct hostile_ioc_call io;
	int err;
	long ms;
};

static int dev;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void *call_fn(void *arg)
{
	struct call *c = arg;
	long t0 = now_ms();

	c->err = ioctl(dev, c->cmd, &c->io) ? errno : 0;
	c->ms = now_ms() - t0;
	return NULL;
}

static int parse(const char *spec, struct call *c)
{
	struct hostile_ioc_call *io = &c->io;
	static const char *const ops[] = {
		[1] = "ping", [3] = "echo", [4] = "sleep", [5] = "sink",
	};
	char op[16];
	unsigned int v[4] = { 0, 0, 0, 0 };
	int n, i;

	n = sscanf(spec, "%15[a-z]:%u:%u:%u:%u", op, &v[0], &v[1], &v[2], &v[3]);
	if (n < 2)
		return -1;
	memset(io, 0, sizeof(*io));
	c->cmd = HOSTILE_IOC_CALL;
	if (!strcmp(op, "nullrep")) {	/* echo, reply buffer NULL */
		c->cmd = HOSTILE_IOC_NULL_REP;
		strcpy(op, "echo");
	}
	for (i = 0; i < 6; i++)
		if (ops[i] && !strcmp(ops[i], op))
			io->op = (unsigned int)i;
	if (!io->op)
		return -1;
	io->cookie = v[0];
	io->req_len = v[1];
	io->rep_cap = v[2];
	io->timeout_ms = v[3];
	return 0;
}

int main(int argc, char **argv)
{
	struct call c[MAX_SPECS];
	int i, n = argc - 1;

	if (n < 1 || n > MAX_SPECS) {
		fprintf(stderr, "usage: hostile_client OP:COOKIE[:REQ_LEN[:REP_CAP[:TIMEOUT_MS]]]...\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (parse(argv[i + 1], &c[i])) {
			fprintf(stderr, "hostile_client: bad spec '%s'\n", argv[i + 1]);
			return 2;
		}
	}
	dev = open("/dev/hostile_umh", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		perror("/dev/hostile_umh");
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (i)
			usleep(200000);
		if (pthread_create(&c[i].t, NULL, call_fn, &c[i])) {
			perror("pthread_create");
			return 2;
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(c[i].t, NULL);
		printf("%s %ld %u\n", c[i].err ? strerrorname_np(c[i].err) ?: "?" : "OK",
		       c[i].ms, c[i].io.rep_len);
	}
	return 0;
}
