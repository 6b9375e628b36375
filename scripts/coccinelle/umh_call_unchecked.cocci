// SPDX-License-Identifier: GPL-2.0
/// Find calls into a umh_blob whose result is never looked at:
/// umh_blob_start(), umh_blob_ping(), umh_blob_call() and the typed call
/// functions that UMH_PROTO_DEFINE() generates (<proto>_call_<op>() and
/// <proto>_call_<op>_tmo()) called as a statement, or their result stored
/// in a variable that is overwritten or goes out of use without being read.
///
/// These functions return 0 or a negative errno, and every one of them can
/// fail at run time: the helper may have crashed, hung, been stopped or hit
/// its restart cap.  A failed start leaves nothing to call; a failed call
/// leaves the reply buffer unwritten, and the module carries on with
/// whatever was in it.  Check the result, or cast it to (void) where
/// ignoring it is really meant.
//
// Confidence: High
// Copyright: (C) 2025 umh-sdk authors
// Comments: A typed call function is recognised by its name and by its
//  first argument having type struct umh_blob *, which must be visible in
//  the file (a local, a parameter, a global or a field of a structure
//  defined in the file).
// Options: --no-includes --include-headers

virtual report
virtual org

@initialize:python@
@@

def report_unchecked(p, fn, why):
    coccilib.report.print_report(p[0],
        "ERROR: return value of %s() %s; it is 0 or -errno and the call may fail"
        % (fn, why))

def org_unchecked(p, fn):
    cocci.print_main("unchecked %s()" % fn, p)

// The result is dropped on the floor.
@ignored@
identifier fn =~ "^(umh_blob_(start|ping|call)|[A-Za-z0-9_]+_call_[A-Za-z0-9_]+)$";
struct umh_blob *ub;
position p;
@@

fn@p(ub, ...);

@script:python depends on report@
fn << ignored.fn;
p << ignored.p;
@@
report_unchecked(p, fn, "ignored")

@script:python depends on org@
fn << ignored.fn;
p << ignored.p;
@@
org_unchecked(p, fn)

// The result is stored, then overwritten without being read.
@overwritten exists@
identifier fn =~ "^(umh_blob_(start|ping|call)|[A-Za-z0-9_]+_call_[A-Za-z0-9_]+)$";
struct umh_blob *ub;
local idexpression ret;
expression E;
position p1, p2;
@@

ret = fn@p1(ub, ...);
... when != ret
(
ret = <+... ret ...+>;
|
ret@p2 = E;
)

@overwritten_decl exists@
identifier fn =~ "^(umh_blob_(start|ping|call)|[A-Za-z0-9_]+_call_[A-Za-z0-9_]+)$";
struct umh_blob *ub;
identifier ret;
type T;
expression E;
position p1, p2;
@@

T ret = fn@p1(ub, ...);
... when != ret
(
ret = <+... ret ...+>;
|
ret@p2 = E;
)

@script:python depends on report@
fn << overwritten.fn;
ret << overwritten.ret;
p1 << overwritten.p1;
p2 << overwritten.p2;
@@
report_unchecked(p1, fn, "stored in %s and overwritten on line %s unchecked" % (ret, p2[0].line))

@script:python depends on report@
fn << overwritten_decl.fn;
ret << overwritten_decl.ret;
p1 << overwritten_decl.p1;
p2 << overwritten_decl.p2;
@@
report_unchecked(p1, fn, "stored in %s and overwritten on line %s unchecked" % (ret, p2[0].line))

@script:python depends on org@
fn << overwritten.fn;
p1 << overwritten.p1;
@@
org_unchecked(p1, fn)

@script:python depends on org@
fn << overwritten_decl.fn;
p1 << overwritten_decl.p1;
@@
org_unchecked(p1, fn)

// The result is stored and never read, on any path.
@unread@
identifier fn =~ "^(umh_blob_(start|ping|call)|[A-Za-z0-9_]+_call_[A-Za-z0-9_]+)$";
struct umh_blob *ub;
local idexpression ret;
position p1;
@@

ret = fn@p1(ub, ...);
... when != ret
    when strict

@unread_decl@
identifier fn =~ "^(umh_blob_(start|ping|call)|[A-Za-z0-9_]+_call_[A-Za-z0-9_]+)$";
struct umh_blob *ub;
identifier ret;
type T;
position p1;
@@

T ret = fn@p1(ub, ...);
... when != ret
    when strict

@script:python depends on report@
fn << unread.fn;
ret << unread.ret;
p1 << unread.p1;
@@
report_unchecked(p1, fn, "stored in %s and never checked" % ret)

@script:python depends on report@
fn << unread_decl.fn;
ret << unread_decl.ret;
p1 << unread_decl.p1;
@@
report_unchecked(p1, fn, "stored in %s and never checked" % ret)

@script:python depends on org@
fn << unread.fn;
p1 << unread.p1;
@@
org_unchecked(p1, fn)

@script:python depends on org@
fn << unread_decl.fn;
p1 << unread_decl.p1;
@@
org_unchecked(p1, fn)
