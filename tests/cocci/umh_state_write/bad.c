// SPDX-License-Identifier: GPL-2.0
/*
 * Bad for scripts/coccinelle/umh_state_write.cocci: plain writes of the
 * fields the SDK's kernel side reads without a lock.  Lines the rule must
 * report carry the marker "cocci-expect".  Built, never loaded.
 */
#include <linux/module.h>

#include "../../../kernel/umh_internal.h"

UMH_BLOB_DECLARE(umh_state_write_bad);

static struct umh_blob *bad_ub;
static struct umh_proc *bad_proc;

static void bad_stop(struct umh_blob *ub)
{
	mutex_lock(&ub->lock);
	ub->stopping = true; /* cocci-expect */
	ub->state = UMH_BLOB_STOPPED; /* cocci-expect */
	mutex_unlock(&ub->lock);
}

static void bad_died(struct umh_blob *ub, struct umh_proc *p, int err)
{
	p->dead = err; /* cocci-expect */
	mutex_lock(&ub->lock);
	if (ub->state == UMH_BLOB_RUNNING)
		ub->state = UMH_BLOB_RESTARTING; /* cocci-expect */
	ub->last_error = err; /* cocci-expect */
	ub->gen = ub->gen + 1; /* cocci-expect */
	mutex_unlock(&ub->lock);
}

static int __init bad_init(void)
{
	/* Never loaded: the calls only make the functions part of the build. */
	bad_died(bad_ub, bad_proc, -EIO);
	bad_stop(bad_ub);
	return 0;
}
module_init(bad_init);

MODULE_DESCRIPTION("umh_state_write.cocci: plain writes it must report");
MODULE_LICENSE("GPL");
