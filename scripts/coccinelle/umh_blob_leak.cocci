// SPDX-License-Identifier: GPL-2.0
/// Find umh_blob objects that are never destroyed: umh_blob_create()
/// succeeded, but an error path after it returns without
/// umh_blob_destroy(), or the object is kept in a global variable that the
/// module_exit function never passes to umh_blob_destroy().
///
/// umh_blob_destroy() is the only call that kills the helper process, waits
/// for it, removes the status view and frees the copy of the blob.
/// umh_blob_stop() is not enough: it stops the helper but frees nothing.
/// A leaked object leaves a user-space process running, and sysfs entries
/// and a worker pointing into a module that is gone: a failed insmod or an
/// rmmod must destroy every object the module created.
///
/// An error path, after the IS_ERR() test of the new object, is a branch
/// of an if that returns something other than 0 (directly, or through a
/// goto), or a return of the result of a function call, directly or
/// through a variable nobody tested.
/// Calling a function of the same file that itself calls
/// umh_blob_destroy() counts as destroying the object.
//
// Confidence: Moderate
// Copyright: (C) 2025 umh-sdk authors
// Comments: Objects kept in a local variable, a structure field or an
//  array are followed on error paths only, not into the module_exit
//  function.  Loops that create several objects may give false positives.
// Options: --no-includes --include-headers

virtual report
virtual org

@initialize:python@
@@
# Functions of the current file that call umh_blob_destroy().
destroyers = set()
# Global objects passed to umh_blob_destroy() by the module_exit function.
freed = set()

def is_destroyer(fn):
    return fn in destroyers

@script:python reset@
@@
# Runs once per file: the sets above describe one file at a time.
destroyers.clear()
freed.clear()

@destroyer@
identifier fn;
expression X;
@@

fn(...) { <+... umh_blob_destroy(X) ...+> }

@script:python@
fn << destroyer.fn;
@@
destroyers.add(fn)

// Error paths after a successful umh_blob_create().
@leak exists@
expression ub, E1, E2, E3, E4, E5;
identifier fc : script:python () { is_destroyer(fc) };
statement S;
position p1, p2;
@@

ub = umh_blob_create@p1(...);
... when != ub = E1
if (\(IS_ERR(ub)\|IS_ERR_OR_NULL(ub)\|unlikely(IS_ERR(ub))\)) S
... when != umh_blob_destroy(ub)
    when != fc(...)
    when != ub = E2
    when != E3 = ub
    when != return ub;
    when any
if (...) {
  ... when != umh_blob_destroy(ub)
      when != fc(...)
      when != ub = E4
      when != E5 = ub
(
  return 0;
|
  return ub;
|
  return@p2 ...;
)
}

// The result of a last step that may fail is returned as it is.
@leak_ret exists@
expression ub, E1, E2, E3, ret;
identifier fc : script:python () { is_destroyer(fc) };
identifier f;
statement S;
position p1, p2;
@@

ub = umh_blob_create@p1(...);
... when != ub = E1
if (\(IS_ERR(ub)\|IS_ERR_OR_NULL(ub)\|unlikely(IS_ERR(ub))\)) S
... when != umh_blob_destroy(ub)
    when != fc(...)
    when != ub = E2
    when != E3 = ub
    when != return ub;
    when any
(
ret = f(...);
... when != ret
    when != umh_blob_destroy(ub)
    when != fc(...)
return@p2 ret;
|
return@p2 f(...);
)

@script:python depends on report@
p1 << leak.p1;
p2 << leak.p2;
ub << leak.ub;
@@

coccilib.report.print_report(p2[0],
    "ERROR: %s from umh_blob_create() on line %s is leaked: this error path returns without umh_blob_destroy()"
    % (ub, p1[0].line))

@script:python depends on org@
p1 << leak.p1;
p2 << leak.p2;
ub << leak.ub;
@@

cocci.print_main("umh_blob_create() without umh_blob_destroy() on an error path", p2)
cocci.print_secs("created", p1)

@script:python depends on report@
p1 << leak_ret.p1;
p2 << leak_ret.p2;
ub << leak_ret.ub;
@@

coccilib.report.print_report(p2[0],
    "ERROR: %s from umh_blob_create() on line %s is leaked if this returns an error: no umh_blob_destroy() on this path"
    % (ub, p1[0].line))

@script:python depends on org@
p1 << leak_ret.p1;
p2 << leak_ret.p2;
@@

cocci.print_main("umh_blob_create() without umh_blob_destroy() on an error path", p2)
cocci.print_secs("created", p1)

// Global objects created by the module_init function ...
@minit@
declarer name module_init;
identifier initfn;
@@

module_init(initfn);

@kept@
identifier minit.initfn;
global idexpression ub;
position p;
@@

initfn(...) {
  <+... ub = umh_blob_create@p(...) ...+>
}

// ... and destroyed by the module_exit function, directly or through a
// function of the file that destroys.
@mexit@
declarer name module_exit;
identifier exitfn;
@@

module_exit(exitfn);

@destroyed@
identifier mexit.exitfn;
global idexpression kept.ub;
identifier fc : script:python () { is_destroyer(fc) };
position pd;
@@

exitfn@pd(...) {
  <+... \(umh_blob_destroy(ub)\|fc(...)\) ...+>
}

@script:python@
ub << kept.ub;
_pd << destroyed.pd;
@@
freed.add(ub)

@script:python depends on report && mexit@
ub << kept.ub;
p << kept.p;
exitfn << mexit.exitfn;
@@

if ub not in freed:
    coccilib.report.print_report(p[0],
        "ERROR: %s from umh_blob_create() is never destroyed: module_exit function %s() does not call umh_blob_destroy(%s)"
        % (ub, exitfn, ub))

@script:python depends on org && mexit@
ub << kept.ub;
p << kept.p;
exitfn << mexit.exitfn;
@@

if ub not in freed:
    cocci.print_main("umh_blob_create() not destroyed in %s()" % exitfn, p)
