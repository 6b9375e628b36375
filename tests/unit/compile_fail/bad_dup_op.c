// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Must NOT compile: two ops share op number 2.  -DUMH_CF_CONTROL gives the
 * second one number 3 and the file compiles.
 */
#include <umh_sdk/helper.h>

struct d_req {
	__u32 x;
};

struct d_rep {
	__u32 y;
};

#ifdef UMH_CF_CONTROL
#define D_SECOND_OP	3
#else
#define D_SECOND_OP	2	/* the defect */
#endif

#define D_OPS(OP)							\
	OP(d, first, 2, UMH_FIXED(struct d_req), UMH_FIXED(struct d_rep)) \
	OP(d, second, D_SECOND_OP, UMH_FIXED(struct d_req),		\
	   UMH_FIXED(struct d_rep))

UMH_PROTO_DEFINE(d, 0x44555055U, 1, D_OPS)
UMH_HELPER_DEFINE(d, D_OPS)
UMH_HELPER_SANDBOX(d, UMH_NO_CAPS, UMH_NO_SYSCALLS)

int d_handle_first(void *ctx, const struct d_req *req, struct d_rep *rep)
{
	(void)ctx;
	rep->y = req->x;
	return 0;
}

int d_handle_second(void *ctx, const struct d_req *req, struct d_rep *rep)
{
	(void)ctx;
	rep->y = req->x + 1;
	return 0;
}

int main(void)
{
	return UMH_HELPER_RUN(d, NULL);
}
