#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Run one TAP-printing test program and vouch for it, so that the whole
# `make check` output can carry a single plan:
#
#	tap_wrap.sh LABEL COMMAND...
#
# Passes "ok"/"not ok"/"#" lines through as they come, the description
# prefixed with "LABEL: " (other stdout lines
# become "# " comments), drops the program's own "1..N" plan after
# checking it, and adds one "not ok - LABEL: ..." line when the program
# ran fewer or more tests than it planned (a crash), printed no plan, or
# exited non-zero without a failed test.  Exit status: non-zero if
# anything failed.  stderr is left alone.
set -u
label=$1
shift
{ "$@"; echo "__tap_wrap_rc $?"; } | awk -v label="$label" '
	/^__tap_wrap_rc / { rc = $2; next }
	/^1\.\.[0-9]+/ { plan = substr($0, 4) + 0; have_plan = 1; next }
	/^ok / { n++; sub(/ - /, " - " label ": "); print; fflush(); next }
	/^not ok / { n++; nfail++; sub(/ - /, " - " label ": "); print; fflush(); next }
	/^#/ { print; fflush(); next }
	{ print "# " $0; fflush() }
	END {
		if (!have_plan) {
			printf "not ok - %s: no plan printed after %d tests (crashed or hung?), exit status %d\n", label, n, rc
			exit 1
		}
		if (plan != n) {
			printf "not ok - %s: ran %d of %d planned tests, exit status %d\n", label, n, plan, rc
			exit 1
		}
		if (rc != 0 && !nfail) {
			printf "not ok - %s: exited with status %d without a failed test\n", label, rc
			exit 1
		}
		exit (rc != 0 || nfail) ? 1 : 0
	}'
