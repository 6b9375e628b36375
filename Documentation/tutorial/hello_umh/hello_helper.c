// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The tutorial's helper: a static user-space program that the hello_umh
 * module carries inside itself.  It greets names and keeps a counter.
 */
#include <stdio.h>

#include "hello_proto.h"
#include <umh_sdk/helper.h>

UMH_HELPER_DEFINE(hello, HELLO_OPS)
/* No capability, no system call beyond the runtime's own. */
UMH_HELPER_SANDBOX(hello, UMH_NO_CAPS, UMH_NO_SYSCALLS)

/* The helper's state: it lives as long as this process. */
static __u64 total;

int hello_handle_greet(void *ctx, const void *req, size_t len,
		       struct umh_out *out)
{
	char text[HELLO_GREETING_MAX + 1];
	char *greeting;
	int n;

	(void)ctx;
	if (!len)
		return -EINVAL;		/* the caller gets -EINVAL */
	/* A name is bytes from the kernel, not a NUL-terminated string. */
	n = snprintf(text, sizeof(text), "Hello, %.*s!", (int)len,
		     (const char *)req);
	if (n < 0 || n > HELLO_GREETING_MAX)
		return -EMSGSIZE;
	/* The runtime owns this buffer and sends it after we return. */
	greeting = umh_out_alloc(out, (size_t)n);
	if (!greeting)
		return -errno;
	memcpy(greeting, text, (size_t)n);
	return 0;
}

int hello_handle_count(void *ctx, const struct hello_count *req,
		       struct hello_total *rep)
{
	(void)ctx;
	total += req->step;
	rep->total = total;
	return 0;
}

int main(void)
{
	umh_info("hello helper %d ready", (int)getpid());
	return UMH_HELPER_RUN(hello, NULL);
}
