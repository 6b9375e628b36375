# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# checkpatch-rules.sh: what checkpatch --strict checks in this tree, sourced
# by scripts/lint.sh (each file) and tests/intree/run.sh (the in-tree patch
# series).  Paths are the repository's.
#
# user_re: user-space C (helpers, their headers, and bpfilter's table code
# and code generator, which only its helper links): built with -Wall
# -Wextra -Werror instead, and not held to kernel style.
user_re='(_helper\.c|/helper\.h|/sandbox\.h|samples/bpfilter/ipt_(table|bpf)\.[ch])$'
#
# Ignores, only where a rule cannot apply, each with its reason:
#  - X-macro headers (rpc.h and *_proto.h) and headers shared with user
#    space (wire.h, *_uapi.h): macros that take C types as arguments can
#    neither parenthesize nor avoid reusing them (COMPLEX_MACRO,
#    MACRO_ARG_REUSE, MACRO_ARG_PRECEDENCE, SPACING of "type *name"); an
#    X-macro entry that is a declaration ends in ';' (TRAILING_SEMICOLON);
#    _Static_assert is the C11 keyword (CAMELCASE); BIT(), ARRAY_SIZE()
#    and __maybe_unused do not exist in user space (BIT_MACRO, ARRAY_SIZE,
#    PREFER_DEFINED_ATTRIBUTE_MACRO).  Each expander of an X-macro uses
#    only the fields of an entry it needs (MACRO_ARG_UNUSED, which 6.12's
#    checkpatch reports).  In a patch, checkpatch reads the return type
#    "static inline const struct x *" on a line of its own as a
#    misordered declaration (STATIC_CONST).
#  - compat.h is the one place that compares kernel versions
#    (LINUX_VERSION_CODE, and CONSTANT_COMPARISON, which misreads
#    "LINUX_VERSION_CODE < KERNEL_VERSION(...)").
xmacro_ignore=COMPLEX_MACRO,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE,SPACING,TRAILING_SEMICOLON,CAMELCASE,BIT_MACRO,ARRAY_SIZE,PREFER_DEFINED_ATTRIBUTE_MACRO,MACRO_ARG_UNUSED,STATIC_CONST
compat_ignore=LINUX_VERSION_CODE,CONSTANT_COMPARISON

# checkpatch_ignores PATH: the --ignore list for PATH (may be empty).
checkpatch_ignores() {
	case $1 in
	include/umh_sdk/rpc.h | include/umh_sdk/wire.h | *_proto.h | *_uapi.h)
		echo "$xmacro_ignore" ;;
	include/umh_sdk/compat.h) echo "$compat_ignore" ;;
	*) echo ;;
	esac
}
