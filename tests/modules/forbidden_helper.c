// SPDX-License-Identifier: GPL-2.0
/*
 * A helper that breaks its own sandbox on request.  It is an ordinary SDK
 * helper (the echo protocol, the echo sample's sandbox: no capability,
 * nanosleep only), except that its add handler, given a = FORBID_*, does
 * what the sandbox forbids.  Each must end the helper with SIGSYS, except
 * FORBID_ABORT, the control: a crash that is no sandbox kill (SIGABRT).
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>

#include "forbidden.h"
#include <umh_sdk/helper.h>

UMH_HELPER_DEFINE(echo, ECHO_OPS)
UMH_HELPER_SANDBOX(echo, UMH_NO_CAPS,
		   UMH_SYSCALLS(SYS_nanosleep, SYS_clock_nanosleep))

int echo_handle_ping(void *ctx, const struct echo_ping *req,
		     struct echo_pong *rep)
{
	(void)ctx;
	rep->cookie = req->cookie;
	rep->pid = (__u32)getpid();
	return 0;
}

int echo_handle_add(void *ctx, const struct echo_add *req,
		    struct echo_sum *rep)
{
	static char *const argv[] = { "sh", NULL };
	long r = 0;

	(void)ctx;
	switch (req->a) {
	case FORBID_OPEN:
		r = open("/etc/shadow", O_RDONLY);
		break;
	case FORBID_EXEC:
		r = execv("/bin/sh", argv);
		break;
	case FORBID_MMAP_EXEC:
		r = (long)mmap(NULL, 4096, PROT_READ | PROT_EXEC,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	case FORBID_KILL_INIT:
		r = kill(1, 0);
		break;
	case FORBID_SOCKET:
		r = socket(AF_INET, SOCK_STREAM, 0);
		break;
	case FORBID_ABORT:
		abort();
	}
	/* Reached only if the sandbox let the call through. */
	umh_err("forbidden case %lld was allowed (%ld)", (long long)req->a, r);
	rep->sum = req->a + req->b;
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
	struct timespec ts = { req->ms / 1000, (long)(req->ms % 1000) * 1000000L };

	(void)ctx;
	nanosleep(&ts, NULL);
	rep->ms = req->ms;
	return 0;
}

int echo_handle_sink(void *ctx, const void *req, size_t len,
		     struct echo_sink_rep *rep)
{
	(void)ctx;
	(void)req;
	rep->len = len;
	return 0;
}

int echo_handle_tag(void *ctx, const struct echo_tag *req,
		    struct echo_tag *rep)
{
	(void)ctx;
	memcpy(rep, req, sizeof(*rep));
	return 0;
}

int main(void)
{
	return UMH_HELPER_RUN(echo, NULL);
}
