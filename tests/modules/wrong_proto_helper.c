// SPDX-License-Identifier: GPL-2.0
/* A helper that speaks version 99 of a protocol called echo. */
#include <umh_sdk/rpc.h>

struct nothing {
	__u32 x;
};

#define WRONG_OPS(OP)							\
	OP(wrong, nop, 1, UMH_FIXED(struct nothing), UMH_FIXED(struct nothing))
UMH_PROTO_DEFINE(wrong, 0x4f484345U, 99, WRONG_OPS)

#include <umh_sdk/helper.h>

UMH_HELPER_DEFINE(wrong, WRONG_OPS)
UMH_HELPER_SANDBOX(wrong, UMH_NO_CAPS, UMH_NO_SYSCALLS)

int wrong_handle_nop(void *ctx, const struct nothing *req, struct nothing *rep)
{
	(void)ctx;
	rep->x = req->x;
	return 0;
}

int main(void)
{
	return UMH_HELPER_RUN(wrong, NULL);
}
