// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Must NOT build: the helper declares no sandbox, neither
 * UMH_HELPER_SANDBOX() nor UMH_HELPER_UNSANDBOXED().  A helper runs
 * confined unless its source says otherwise.  -DUMH_CF_CONTROL declares one.
 */
#include "cf_proto.h"
#include <umh_sdk/helper.h>

UMH_HELPER_DEFINE(cf, CF_OPS)
#ifdef UMH_CF_CONTROL
UMH_HELPER_SANDBOX(cf, UMH_NO_CAPS, UMH_SYSCALLS(SYS_nanosleep))
#endif

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

int cf_handle_echo(void *ctx, const void *req, size_t len, struct umh_out *out)
{
	(void)ctx;
	return umh_out_set(out, req, len);
}

int main(void)
{
	return UMH_HELPER_RUN(cf, NULL);
}
