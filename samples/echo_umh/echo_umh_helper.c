// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The echo sample's helper: a static user-space program that the echo_umh
 * module carries inside itself and runs.  Each handler below has the
 * prototype that echo_proto.h's declaration implies; a mismatch does not
 * compile.
 */
#include <time.h>

#include "echo_proto.h"
#include <umh_sdk/helper.h>

UMH_HELPER_DEFINE(echo, ECHO_OPS)
/*
 * No capability, and beyond the runtime's own calls only the sleep op's:
 * glibc's nanosleep() is clock_nanosleep, musl's is nanosleep.
 */
UMH_HELPER_SANDBOX(echo, UMH_NO_CAPS,
		   UMH_SYSCALLS(SYS_nanosleep, SYS_clock_nanosleep))

static __u64 served;
static char tag[ECHO_TAG_LEN];

int echo_handle_ping(void *ctx, const struct echo_ping *req,
		     struct echo_pong *rep)
{
	(void)ctx;
	rep->cookie = req->cookie;
	rep->pid = (__u32)getpid();
	rep->served = ++served;
	memcpy(rep->tag, tag, sizeof(tag));
	return 0;
}

int echo_handle_tag(void *ctx, const struct echo_tag *req,
		    struct echo_tag *rep)
{
	(void)ctx;
	served++;
	/* Never trust the peer to terminate strings. */
	memcpy(tag, req->tag, sizeof(tag) - 1);
	tag[sizeof(tag) - 1] = '\0';
	memcpy(rep->tag, tag, sizeof(tag));
	return 0;
}

int echo_handle_add(void *ctx, const struct echo_add *req,
		    struct echo_sum *rep)
{
	(void)ctx;
	served++;
	/* Wrap like the kernel would rather than rely on signed overflow. */
	rep->sum = (__s64)((__u64)req->a + (__u64)req->b);
	return 0;
}

int echo_handle_echo(void *ctx, const void *req, size_t len,
		     struct umh_out *out)
{
	(void)ctx;
	served++;
	/* The request buffer lives until the reply is sent: no copy. */
	return umh_out_set(out, req, len);
}

int echo_handle_sleep(void *ctx, const struct echo_sleep *req,
		      struct echo_sleep *rep)
{
	struct timespec ts = {
		.tv_sec = req->ms / 1000,
		.tv_nsec = (long)(req->ms % 1000) * 1000000L,
	};

	(void)ctx;
	served++;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	rep->ms = req->ms;
	return 0;
}

int echo_handle_sink(void *ctx, const void *req, size_t len,
		     struct echo_sink_rep *rep)
{
	const unsigned char *p = req;
	__u64 sum = 0;
	size_t i;

	(void)ctx;
	served++;
	for (i = 0; i < len; i++)
		sum += p[i];
	rep->len = len;
	rep->sum = sum;
	return 0;
}

int main(void)
{
	umh_info("echo helper %d ready", (int)getpid());
	return UMH_HELPER_RUN(echo, NULL);
}
