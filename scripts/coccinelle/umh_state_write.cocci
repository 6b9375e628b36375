// SPDX-License-Identifier: GPL-2.0
/// The fields of the SDK's kernel side that are read without a lock, the
/// helper's life-cycle state among them, are written only with
/// WRITE_ONCE(), and the state only by umh_set_state(), which also wakes
/// the tasks that wait for it to change.  A plain write may be torn or
/// repeated by the compiler under a lock-free reader (the status view,
/// the health work, a call deciding whether to send).
///
/// The fields: struct umh_blob's state, stopping, gen and last_error, and
/// a generation's (struct umh_proc) dead.  umh_blob_create() may set them
/// plainly: nobody can see the object yet.
//
// Confidence: High
// Copyright: (C) 2026 umh-sdk authors
// Comments: The structures are private to kernel/ (kernel/umh_internal.h);
//  the rule guards the SDK's own code.
// Options: --no-includes --include-headers

virtual report
virtual org

@r exists@
identifier fn != {umh_set_state, umh_blob_create};
struct umh_blob *ub;
struct umh_proc *p;
expression V;
position pos;
@@

fn(...) {
<...
(
 ub->state@pos = V
|
 ub->stopping@pos = V
|
 ub->gen@pos = V
|
 ub->last_error@pos = V
|
 p->dead@pos = V
)
...>
}

@script:python depends on report@
pos << r.pos;
fn << r.fn;
@@

for p in pos:
    coccilib.report.print_report(p,
        "plain write of a field read without a lock in %s(): use WRITE_ONCE(), and umh_set_state() for the state" % fn)
