// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Must NOT compile: op number 0 belongs to the SDK's handshake.
 * -DUMH_CF_CONTROL uses op 1 and the file compiles.
 */
#include <umh_sdk/helper.h>

struct z_req {
	__u32 x;
};

#ifdef UMH_CF_CONTROL
#define Z_OP	1
#else
#define Z_OP	0	/* the defect */
#endif

#define Z_OPS(OP)							\
	OP(z, zero, Z_OP, UMH_FIXED(struct z_req), UMH_FIXED(struct z_req))

UMH_PROTO_DEFINE(z, 0x5a45524fU, 1, Z_OPS)
UMH_HELPER_DEFINE(z, Z_OPS)
UMH_HELPER_SANDBOX(z, UMH_NO_CAPS, UMH_NO_SYSCALLS)

int z_handle_zero(void *ctx, const struct z_req *req, struct z_req *rep)
{
	(void)ctx;
	rep->x = req->x;
	return 0;
}

int main(void)
{
	return UMH_HELPER_RUN(z, NULL);
}
