// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Must NOT compile: cf_handle_echo is declared VV (buffer + length in, a
 * struct umh_out out) but implemented with the shape of a fixed reply.
 * -DUMH_CF_CONTROL fixes it.
 */
#include "cf_proto.h"
#include <umh_sdk/helper.h>

UMH_HELPER_DEFINE(cf, CF_OPS)
UMH_HELPER_SANDBOX(cf, UMH_NO_CAPS, UMH_NO_SYSCALLS)

int cf_handle_ping(void *ctx, const struct cf_ping *req, struct cf_pong *rep)
{
	(void)ctx;
	rep->cookie = req->cookie;
	return 0;
}

int cf_handle_get(void *ctx, const struct cf_ping *req, struct umh_out *out)
{
	(void)ctx;
	return umh_out_set(out, req, sizeof(*req));
}

int cf_handle_sum(void *ctx, const void *req, size_t len, struct cf_pong *rep)
{
	(void)ctx;
	(void)req;
	rep->cookie = (__u32)len;
	return 0;
}

#ifdef UMH_CF_CONTROL
int cf_handle_echo(void *ctx, const void *req, size_t len, struct umh_out *out)
{
	(void)ctx;
	return umh_out_set(out, req, len);
}
#else
int cf_handle_echo(void *ctx, const void *req, size_t len, struct cf_pong *rep)
{
	(void)ctx;
	(void)req;
	rep->cookie = (__u32)len;	/* the defect: VV implemented as VF */
	return 0;
}
#endif

int main(void)
{
	return UMH_HELPER_RUN(cf, NULL);
}
