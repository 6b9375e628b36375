/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * umh-sdk helper sandbox, header-only, included by <umh_sdk/helper.h>.
 *
 * Every helper declares, in its source, what it may do once it serves
 * requests: the capabilities it keeps and the system calls it makes beyond
 * what the runtime itself needs.  For the echo sample:
 *
 *	UMH_HELPER_SANDBOX(echo, UMH_NO_CAPS,
 *			   UMH_SYSCALLS(SYS_nanosleep, SYS_clock_nanosleep))
 *
 * and for a helper that would load BPF programs:
 *
 *	UMH_HELPER_SANDBOX(fw, UMH_CAP(CAP_BPF) | UMH_CAP(CAP_NET_ADMIN),
 *			   UMH_SYSCALLS(SYS_bpf))
 *
 * UMH_HELPER_RUN() applies the declaration before it reads the first
 * request, in this order (Documentation/threat-model.rst says why):
 *
 *  1. capabilities: the bounding set is cut to the declared ones,
 *     securebits are locked (root gains nothing at exec), the ambient set is
 *     cleared, permitted and effective become the declared set, inheritable
 *     becomes empty;
 *  2. prctl(PR_SET_DUMPABLE, 0): no core dump, and no ptrace or
 *     /proc/<pid>/mem access without CAP_SYS_PTRACE;
 *  3. prctl(PR_SET_NO_NEW_PRIVS, 1): no exec can grant privileges again;
 *  4. a seccomp filter (classic BPF, no library) that kills the whole
 *     process (SECCOMP_RET_KILL_PROCESS, so SIGSYS) on any system call not
 *     allowed, on a foreign audit arch, and on x32 numbers.
 *
 * Any step failing ends the helper (UMH_EXIT_SANDBOX) before it has read a
 * byte from the kernel.  A helper that must run without a sandbox says so
 * with UMH_HELPER_UNSANDBOXED(p, "why"); the runtime logs that line at
 * KERN_ERR in the kernel log at every start.
 *
 * The runtime's own set, always allowed: read, readv, write, writev, close,
 * poll and ppoll, exit, exit_group, rt_sigreturn, restart_syscall, brk,
 * munmap, mremap, madvise, futex, getpid, gettid, rt_sigprocmask,
 * sched_yield, clock_gettime, gettimeofday; mmap and mprotect unless the protection asks
 * for PROT_EXEC; kill, tgkill and tkill aimed at the helper itself
 * (abort(), raise(); a single-threaded helper's tid is its pid).  That is what static glibc and musl helpers call for I/O,
 * malloc/realloc/free, logging and exit.  No open, no socket, no exec, no
 * ptrace, no kill of another process.
 */
#ifndef _UMH_SDK_SANDBOX_H
#define _UMH_SDK_SANDBOX_H

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wire.h"

/*
 * Capability numbers are those of <linux/capability.h> (CAP_NET_ADMIN, ...),
 * which a helper includes itself when it keeps any; musl's own headers have
 * no linux/ headers, scripts/Kbuild.umh adds the system's for musl builds.
 */
#define UMH_CAP(cap)		(1ULL << (cap))
#define UMH_NO_CAPS		0ULL
/* A list of SYS_* numbers, for UMH_HELPER_SANDBOX(). */
#define UMH_SYSCALLS(...)	__VA_ARGS__
#define UMH_NO_SYSCALLS

/**
 * struct umh_sandbox - what a helper may do while it serves requests
 * @caps:		capabilities kept (UMH_CAP() mask; UMH_NO_CAPS)
 * @syscalls:		system calls allowed on top of the runtime's own
 * @nr_syscalls:	entries in @syscalls
 * @off:		no sandbox at all (UMH_HELPER_UNSANDBOXED())
 * @why_off:		the reason logged when @off
 *
 * Usually made by UMH_HELPER_SANDBOX() or UMH_HELPER_UNSANDBOXED().
 */
struct umh_sandbox {
	__u64 caps;
	const long *syscalls;
	unsigned int nr_syscalls;
	int off;
	const char *why_off;
};

/**
 * UMH_HELPER_SANDBOX() - declare helper @p's sandbox
 * @p:		protocol name, as for UMH_HELPER_DEFINE()
 * @caps_:	capabilities to keep: UMH_NO_CAPS or UMH_CAP(CAP_X) | ...
 * @syscalls_:	UMH_SYSCALLS(SYS_x, ...) or UMH_NO_SYSCALLS: the helper's
 *		own system calls, beyond the runtime's
 *
 * Defines ``p##_umh_sandbox``, which UMH_HELPER_RUN() applies.  A helper
 * that declares neither this nor UMH_HELPER_UNSANDBOXED() does not compile.
 */
#define UMH_HELPER_SANDBOX(p, caps_, syscalls_)				\
	static const long p##__umh_sb_sys[] = { -1, syscalls_ };	\
	static const struct umh_sandbox p##_umh_sandbox = {		\
		.caps = (caps_),					\
		.syscalls = p##__umh_sb_sys + 1,			\
		.nr_syscalls = sizeof(p##__umh_sb_sys) /		\
			       sizeof(p##__umh_sb_sys[0]) - 1,		\
	};

/**
 * UMH_HELPER_UNSANDBOXED() - run helper @p with no sandbox, on purpose
 * @p:		protocol name
 * @why:	a string logged at KERN_ERR at every start of the helper
 */
#define UMH_HELPER_UNSANDBOXED(p, why)					\
	static const struct umh_sandbox p##_umh_sandbox = {		\
		.off = 1,						\
		.why_off = (why),					\
	};

/* ---- internals: the kernel ABI, spelled out (musl has no linux/ headers) ---- */

#if defined(__x86_64__)
#define UMH__AUDIT_ARCH		0xc000003eU	/* AUDIT_ARCH_X86_64 */
#define UMH__X32_BIT		0x40000000U	/* __X32_SYSCALL_BIT */
#elif defined(__aarch64__)
#define UMH__AUDIT_ARCH		0xc00000b7U	/* AUDIT_ARCH_AARCH64 */
#else
#error "umh_sdk/sandbox.h: no seccomp arch for this target"
#endif
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "umh_sdk/sandbox.h: argument offsets assume little endian"
#endif

struct umh__bpf_insn {		/* struct sock_filter */
	__u16 code;
	__u8 jt;
	__u8 jf;
	__u32 k;
};

struct umh__bpf_prog {		/* struct sock_fprog */
	unsigned short len;
	struct umh__bpf_insn *filter;
};

struct umh__cap_hdr {		/* struct __user_cap_header_struct */
	__u32 version;
	int pid;
};

struct umh__cap_data {		/* struct __user_cap_data_struct */
	__u32 effective;
	__u32 permitted;
	__u32 inheritable;
};

#define UMH__CAP_V3		0x20080522U
#define UMH__CAP_SETPCAP	8
#define UMH__PROT_EXEC		0x4U

/* Classic BPF opcodes */
#define UMH__LD_ABS		0x20	/* BPF_LD | BPF_W | BPF_ABS */
#define UMH__JEQ		0x15	/* BPF_JMP | BPF_JEQ | BPF_K */
#define UMH__JGE		0x35	/* BPF_JMP | BPF_JGE | BPF_K */
#define UMH__JSET		0x45	/* BPF_JMP | BPF_JSET | BPF_K */
#define UMH__RET		0x06	/* BPF_RET | BPF_K */

/* struct seccomp_data: nr, arch, instruction_pointer, args[6] */
#define UMH__SD_NR		0
#define UMH__SD_ARCH		4
#define UMH__SD_ARG_LO(i)	(16 + 8 * (i))	/* low half, little endian */

#define UMH__RET_KILL		0x80000000U	/* SECCOMP_RET_KILL_PROCESS */
#define UMH__RET_ALLOW		0x7fff0000U	/* SECCOMP_RET_ALLOW */
#define UMH__MODE_FILTER	2		/* SECCOMP_MODE_FILTER */

/* SECBIT_NOROOT(+_LOCKED), SECBIT_NO_SETUID_FIXUP_LOCKED (left off),
 * SECBIT_KEEP_CAPS_LOCKED (off), SECBIT_NO_CAP_AMBIENT_RAISE(+_LOCKED)
 */
#define UMH__SECUREBITS		0xebU

/* The runtime's own system calls: see the top of this file. */
static const long umh__base_syscalls[] = {
	SYS_read, SYS_readv, SYS_write, SYS_writev, SYS_close,
#ifdef SYS_poll
	SYS_poll,
#endif
	SYS_ppoll,
	SYS_exit, SYS_exit_group, SYS_rt_sigreturn, SYS_restart_syscall,
	SYS_brk, SYS_munmap, SYS_mremap, SYS_madvise, SYS_futex,
	SYS_getpid, SYS_gettid, SYS_rt_sigprocmask, SYS_sched_yield,
	SYS_clock_gettime, SYS_gettimeofday,
};

#define UMH__MAX_INSNS		512

struct umh__bpf_buf {
	struct umh__bpf_insn insn[UMH__MAX_INSNS];
	unsigned int n;
	int overflow;
};

static inline void umh__bpf(struct umh__bpf_buf *b, __u16 code, __u8 jt,
			    __u8 jf, __u32 k)
{
	if (b->n == UMH__MAX_INSNS) {
		b->overflow = 1;
		return;
	}
	b->insn[b->n].code = code;
	b->insn[b->n].jt = jt;
	b->insn[b->n].jf = jf;
	b->insn[b->n].k = k;
	b->n++;
}

/* if (nr == @nr) return ALLOW; -- A holds the syscall number */
static inline void umh__bpf_allow(struct umh__bpf_buf *b, long nr)
{
	umh__bpf(b, UMH__JEQ, 0, 1, (__u32)nr);
	umh__bpf(b, UMH__RET, 0, 0, UMH__RET_ALLOW);
}

/* if (nr == @nr) return (arg @i & PROT_EXEC) ? KILL : ALLOW; */
static inline void umh__bpf_allow_noexec(struct umh__bpf_buf *b, long nr,
					 int i)
{
	umh__bpf(b, UMH__JEQ, 0, 4, (__u32)nr);
	umh__bpf(b, UMH__LD_ABS, 0, 0, UMH__SD_ARG_LO(i));
	umh__bpf(b, UMH__JSET, 0, 1, UMH__PROT_EXEC);
	umh__bpf(b, UMH__RET, 0, 0, UMH__RET_KILL);
	umh__bpf(b, UMH__RET, 0, 0, UMH__RET_ALLOW);
}

/*
 * if (nr == @nr) return arg 0 == @self ? ALLOW : KILL;  The kernel reads a
 * pid_t (the low half) from the register, so comparing that half is exact.
 */
static inline void umh__bpf_allow_self(struct umh__bpf_buf *b, long nr,
				       __u32 self)
{
	umh__bpf(b, UMH__JEQ, 0, 4, (__u32)nr);
	umh__bpf(b, UMH__LD_ABS, 0, 0, UMH__SD_ARG_LO(0));
	umh__bpf(b, UMH__JEQ, 0, 1, self);
	umh__bpf(b, UMH__RET, 0, 0, UMH__RET_ALLOW);
	umh__bpf(b, UMH__RET, 0, 0, UMH__RET_KILL);
}

/**
 * umh_sandbox_filter() - build the seccomp program for @sb
 * @sb:		the declaration
 * @b:		where the program goes
 * @self:	the helper's pid (kill/tgkill are allowed on it alone)
 *
 * Return: 0, or -E2BIG if the program does not fit, -EINVAL if a declared
 * number is negative.
 */
static inline int umh_sandbox_filter(const struct umh_sandbox *sb,
				     struct umh__bpf_buf *b, __u32 self)
{
	size_t i;

	b->n = 0;
	b->overflow = 0;
	/* A foreign calling convention means different numbers: kill. */
	umh__bpf(b, UMH__LD_ABS, 0, 0, UMH__SD_ARCH);
	umh__bpf(b, UMH__JEQ, 1, 0, UMH__AUDIT_ARCH);
	umh__bpf(b, UMH__RET, 0, 0, UMH__RET_KILL);
	umh__bpf(b, UMH__LD_ABS, 0, 0, UMH__SD_NR);
#ifdef UMH__X32_BIT
	/* x32 numbers reach the same table with this bit set: kill. */
	umh__bpf(b, UMH__JGE, 0, 1, UMH__X32_BIT);
	umh__bpf(b, UMH__RET, 0, 0, UMH__RET_KILL);
#endif
	for (i = 0; i < sizeof(umh__base_syscalls) / sizeof(long); i++)
		umh__bpf_allow(b, umh__base_syscalls[i]);
	for (i = 0; i < sb->nr_syscalls; i++) {
		if (sb->syscalls[i] < 0)
			return -EINVAL;
		umh__bpf_allow(b, sb->syscalls[i]);
	}
	/*
	 * These load an argument into A, but only once nr matched, and every
	 * path after that returns: other numbers fall through with A intact.
	 */
	umh__bpf_allow_noexec(b, SYS_mmap, 2);
	umh__bpf_allow_noexec(b, SYS_mprotect, 2);
	umh__bpf_allow_self(b, SYS_kill, self);
	umh__bpf_allow_self(b, SYS_tgkill, self);
	umh__bpf_allow_self(b, SYS_tkill, self);	/* musl's raise() */
	umh__bpf(b, UMH__RET, 0, 0, UMH__RET_KILL);
	return b->overflow ? -E2BIG : 0;
}

static inline int umh__capget(struct umh__cap_data d[2])
{
	struct umh__cap_hdr h = { UMH__CAP_V3, 0 };

	return (int)syscall(SYS_capget, &h, d);
}

/* Step 1: keep @keep and nothing else.  Return: 0 or -errno. */
static inline int umh__sandbox_caps(__u64 keep, const char **step)
{
	struct umh__cap_hdr h = { UMH__CAP_V3, 0 };
	struct umh__cap_data d[2];
	__u64 prm;
	int setpcap, c;

	*step = "capget";
	if (umh__capget(d))
		return -errno;
	prm = (__u64)d[1].permitted << 32 | d[0].permitted;
	setpcap = !!(d[0].effective & (1U << UMH__CAP_SETPCAP));

	/*
	 * Cutting the bounding set and locking securebits need CAP_SETPCAP,
	 * which a helper started by the kernel has.  Without it (a helper run
	 * by an unprivileged user, e.g. under tools/umh_host) the bounding set
	 * cannot be cut, and need not be: no_new_privs and the seccomp filter
	 * leave no exec through which it could grant anything.
	 */
	if (setpcap) {
		*step = "PR_CAPBSET_DROP";
		for (c = 0; c < 64; c++) {
			int r;

			if (keep & UMH_CAP(c))
				continue;
			r = prctl(PR_CAPBSET_READ, c, 0, 0, 0);
			if (r < 0)
				break;		/* EINVAL: past the last cap */
			if (r && prctl(PR_CAPBSET_DROP, c, 0, 0, 0))
				return -errno;
		}
		*step = "PR_SET_SECUREBITS";
		if (prctl(PR_SET_SECUREBITS, UMH__SECUREBITS, 0, 0, 0))
			return -errno;
	}
	*step = "PR_CAP_AMBIENT_CLEAR_ALL";
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return -errno;

	/* Never ask for more than is held: capset would refuse. */
	keep &= prm;
	memset(d, 0, sizeof(d));
	d[0].effective = d[0].permitted = (__u32)keep;
	d[1].effective = d[1].permitted = (__u32)(keep >> 32);
	*step = "capset";
	if (syscall(SYS_capset, &h, d))
		return -errno;
	return 0;
}

/**
 * umh_sandbox_apply() - confine the calling helper as @sb declares
 * @sb:		the declaration
 * @step:	set to the name of the step that failed
 *
 * Must run before the helper makes threads (the filter applies to the
 * calling thread, and to threads created after it).  Irreversible.
 *
 * Return: 0, or a negative errno (*@step says where).
 */
static inline int umh_sandbox_apply(const struct umh_sandbox *sb,
				    const char **step)
{
	static struct umh__bpf_buf b;
	struct umh__bpf_prog prog;
	int ret;

	ret = umh__sandbox_caps(sb->caps, step);
	if (ret)
		return ret;
	*step = "PR_SET_DUMPABLE";
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return -errno;
	*step = "PR_SET_NO_NEW_PRIVS";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	*step = "seccomp filter";
	ret = umh_sandbox_filter(sb, &b, (__u32)getpid());
	if (ret)
		return ret;
	prog.len = (unsigned short)b.n;
	prog.filter = b.insn;
	if (prctl(PR_SET_SECCOMP, UMH__MODE_FILTER, &prog, 0, 0))
		return -errno;
	return 0;
}

#endif /* _UMH_SDK_SANDBOX_H */
