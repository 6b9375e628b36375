// SPDX-License-Identifier: GPL-2.0
/*
 * Good for scripts/coccinelle/umh_state_write.cocci: the state changes
 * through a setter that writes it with WRITE_ONCE() (named umh_set_state(),
 * as in kernel/umh_blob.c), the other fields with WRITE_ONCE(), and
 * reads and writes of other fields are plain.  Built, never loaded.
 */
#include <linux/module.h>

#include "../../../kernel/umh_internal.h"

UMH_BLOB_DECLARE(umh_state_write_good);

static struct umh_blob *good_ub;
static struct umh_proc *good_proc;

static void umh_set_state(struct umh_blob *ub, enum umh_blob_state state)
{
	lockdep_assert_held(&ub->lock);
	WRITE_ONCE(ub->state, state);
	wake_up_all(&ub->state_wq);
}

static void good_died(struct umh_blob *ub, struct umh_proc *p, int err)
{
	WRITE_ONCE(p->dead, err);
	mutex_lock(&ub->lock);
	if (ub->state == UMH_BLOB_RUNNING)
		umh_set_state(ub, UMH_BLOB_RESTARTING);
	WRITE_ONCE(ub->last_error, err);
	WRITE_ONCE(ub->gen, ub->gen + 1);
	ub->restart_fault = p->fault;
	mutex_unlock(&ub->lock);
}

static int __init good_init(void)
{
	/* Never loaded: the call only makes the function part of the build. */
	good_died(good_ub, good_proc, -EIO);
	return 0;
}
module_init(good_init);

MODULE_DESCRIPTION("umh_state_write.cocci: nothing to report");
MODULE_LICENSE("GPL");
