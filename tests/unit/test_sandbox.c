// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The helper sandbox of <umh_sdk/sandbox.h>.
 *
 *	test_sandbox [ECHO_HELPER...]
 *
 * In process: a test protocol whose one op does, on request, something the
 * sandbox allows or forbids; the child runs UMH_HELPER_RUN() (forked by
 * umh_host_spawn_fn()) and the parent checks how it ended: an allowed call
 * answers, a forbidden one kills the helper with SIGSYS.  Also declared
 * capabilities, the explicit opt-out, and a declaration that cannot be
 * applied.  Then each ECHO_HELPER (the echo sample's binary) is exec'd and
 * its /proc/<pid>/status and ptrace access are checked while it serves.
 *
 * Capability sets and the bounding set can only be checked as root (a
 * helper started by the kernel is root); as another user those checks are
 * skipped and say so.
 *
 * This program runs on the host's kernel, whatever it is (not on the
 * guests' Debian kernels), so where an outcome depends on what that
 * kernel does, the program first asks it, in a child without any sandbox,
 * and reports the case as "# SKIP <reason>" when the kernel's own answer
 * leaves nothing for the sandbox to decide (see host_probe()).  A skipped
 * case prints as many TAP lines as a run one.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <umh_sdk/helper.h>
#include "umh_host.h"
#include "../../samples/echo_umh/echo_proto.h"
#include "tap.h"

struct sb_req {
	__u32 action;
	__u32 pad;
};

struct sb_rep {
	__s64 ret;
};

enum {
	SB_NOTHING,		/* allowed: no system call at all */
	SB_DECLARED,		/* allowed: getppid, declared by this helper */
	SB_MMAP_RW,		/* allowed: mmap(PROT_READ | PROT_WRITE) */
	SB_MALLOC_BIG,		/* allowed: malloc/realloc/free of MiBs */
	SB_NANOSLEEP,		/* forbidden here: not declared */
	SB_GETUID,
	SB_OPEN,
	SB_MMAP_EXEC,
	SB_MPROTECT_EXEC,
	SB_KILL_PARENT,		/* kill(getppid(), 0) */
	SB_PRCTL,		/* prctl(PR_GET_DUMPABLE) */
	SB_X32,			/* getpid with the x32 bit */
	SB_I386,		/* getpid through int 0x80: another audit arch */
	SB_RAISE,		/* raise(SIGUSR2): allowed, ends with SIGUSR2 */
};

#define SB_OPS(OP)							\
	OP(sb, act, 1, UMH_FIXED(struct sb_req), UMH_FIXED(struct sb_rep))

UMH_PROTO_DEFINE(sb, 0x53414e44U, 1, SB_OPS)
UMH_HELPER_DEFINE(sb, SB_OPS)
UMH_HELPER_SANDBOX(sb, UMH_NO_CAPS, UMH_SYSCALLS(SYS_getppid))

/*
 * The two calls in another calling convention, also made by host_probe()
 * without a sandbox.  Return: the kernel's answer (-errno on failure).
 */
static long x32_getpid(void)
{
	long r = syscall(0x40000000L | SYS_getpid);	/* __X32_SYSCALL_BIT */

	return r == -1 ? -errno : r;
}

static long i386_getpid(void)
{
	long r = 0;

#ifdef __x86_64__
	r = 20;		/* __NR_getpid of i386 */
	__asm__ volatile("int $0x80" : "+a"(r) : : "memory");
#endif
	return r;
}

/* ---- the handler (runs in the forked, sandboxed child) ---- */

int sb_handle_act(void *ctx, const struct sb_req *req, struct sb_rep *rep)
{
	struct timespec ts = { 0, 1000 };
	long r = 0;
	void *p, *q;

	(void)ctx;
	switch (req->action) {
	case SB_NOTHING:
		break;
	case SB_DECLARED:
		r = getppid();
		break;
	case SB_MMAP_RW:
		p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		r = p == MAP_FAILED ? -errno : munmap(p, 8192);
		break;
	case SB_MALLOC_BIG:
		p = malloc(8 << 20);
		q = p ? realloc(p, 32 << 20) : NULL;
		if (q)
			memset(q, 1, 32 << 20);
		r = q ? 0 : -ENOMEM;
		free(q ? q : p);
		break;
	case SB_NANOSLEEP:
		r = nanosleep(&ts, NULL);
		break;
	case SB_GETUID:
		r = syscall(SYS_getuid);
		break;
	case SB_OPEN:
		r = open("/dev/null", O_RDONLY);
		break;
	case SB_MMAP_EXEC:
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		r = p == MAP_FAILED ? -errno : 0;
		break;
	case SB_MPROTECT_EXEC:
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		r = p == MAP_FAILED ? -errno : mprotect(p, 4096, PROT_READ | PROT_EXEC);
		break;
	case SB_KILL_PARENT:
		r = kill(getppid(), 0);
		break;
	case SB_PRCTL:
		r = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
		break;
	case SB_X32:
		r = x32_getpid();
		break;
	case SB_I386:
		r = i386_getpid();
		break;
	case SB_RAISE:
		raise(SIGUSR2);
		break;
	}
	rep->ret = r;
	return 0;
}

static const struct umh_sandbox *child_sb;

static int run_sb(void *arg)
{
	(void)arg;
	if (child_sb)
		return umh_helper_run(&sb_umh_proto, sb_umh_handlers, NULL,
				      child_sb);
	return UMH_HELPER_RUN(sb, NULL);
}

/* ---- the parent's side ---- */

static char last_log[UMH_HOST_ERR_LINE + 1];

static void log_capture(void *arg, const char *name, int level,
			const char *line)
{
	(void)arg;
	tap_diag("  [%s <%d>] %s", name, level, line);
	snprintf(last_log, sizeof(last_log), "%s", line);
}

static bool start(struct umh_host *h, const struct umh_sandbox *sb)
{
	int r;

	child_sb = sb;
	umh_host_init(h);
	h->log = log_capture;
	last_log[0] = '\0';
	r = umh_host_spawn_fn(h, "sb", run_sb, NULL);
	if (!r)
		r = umh_host_hello(h, &sb_umh_proto);
	if (r)
		tap_diag("spawn/hello: %d", r);
	return !r;
}

/* Wait for the helper's end. Return: exit status, -signal, or -1000. */
static int end_of(struct umh_host *h)
{
	int st, r;

	umh_host_close_input(h);
	r = umh_host_wait(h, &st, 5000);
	umh_host_destroy(h);
	return r ? -1000 : umh_host_exit_code(st);
}

static int act(struct umh_host *h, __u32 action, __s64 *ret)
{
	struct sb_req req = { .action = action };
	struct sb_rep rep = { .ret = -12345 };
	int r;

	r = umh_host_call(h, 1, &req, sizeof(req), &rep, sizeof(rep), NULL, 0);
	if (ret)
		*ret = rep.ret;
	return r;
}

/* The value of "Key:" in /proc/<pid>/status, as a string. */
static bool status_field(pid_t pid, const char *key, char *val, size_t len)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		snprintf(val, len, "%s", line + klen + 1 + strspn(line + klen + 1, " \t"));
		val[strcspn(val, "\n")] = '\0';
		found = true;
	}
	fclose(f);
	return found;
}

static bool status_is(pid_t pid, const char *key, const char *want)
{
	char val[128] = "";

	if (!status_field(pid, key, val, sizeof(val)) || strcmp(val, want)) {
		tap_diag("  /proc/%d/status %s: '%s', expected '%s'", (int)pid,
			 key, val, want);
		return false;
	}
	return true;
}

/* This process's capability set @key ("CapEff", "CapBnd", ...). */
static __u64 own_caps(const char *key)
{
	char val[64] = "";

	if (!status_field(getpid(), key, val, sizeof(val)))
		return 0;
	return strtoull(val, NULL, 16);
}

/*
 * The checks of capability sets are about a helper the kernel starts: root,
 * with every capability.  Are we that, at least for the capabilities in
 * @need (in our effective, permitted and bounding sets)?  Root in a
 * container may lack some, and without CAP_SETPCAP the helper cannot cut
 * its bounding set (umh__sandbox_caps()).  Return: NULL, or why not.
 */
static const char *root_caps_missing(__u64 need)
{
	static char why[128];
	__u64 lack;

	if (geteuid() != 0)
		return "not root";
	lack = need & ~(own_caps("CapEff") & own_caps("CapPrm") &
			own_caps("CapBnd"));
	if (!lack)
		return NULL;
	snprintf(why, sizeof(why),
		 "root without the capabilities %#llx (of %#llx needed; a container?)",
		 (unsigned long long)lack, (unsigned long long)need);
	return why;
}

/* One TAP line for a test that this host cannot run: "ok N - what # SKIP why". */
static __attribute__((format(printf, 2, 3)))
void skip(const char *why, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ok(1, "%s # SKIP %s", what, why);
}

enum probe_result {
	PROBE_RETURNED,		/* the call returned; its value in *ret */
	PROBE_DIED,		/* the call killed the child; *why says how */
	PROBE_ERROR,		/* the probe itself failed (fork, mmap) */
};

/*
 * What does this host's kernel do with @fn's system call when no sandbox
 * is in the way?  @fn runs in a forked child with no seccomp filter, no
 * no_new_privs and this process's credentials; the child is made
 * non-dumpable first, so a call the kernel answers with a signal leaves no
 * core file behind.  *@pid gets the child's pid (a getpid()'s right answer).
 */
static enum probe_result host_probe(long (*fn)(void), long *ret, pid_t *pid,
				    char *why, size_t len)
{
	volatile long *shared;
	enum probe_result res = PROBE_ERROR;
	pid_t c;
	int st;

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		snprintf(why, len, "mmap: %s", strerror(errno));
		return PROBE_ERROR;
	}
	fflush(stdout);
	c = fork();
	if (c == 0) {
		const struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core);
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		*shared = fn();
		_exit(0);
	}
	if (c < 0 || waitpid(c, &st, 0) != c) {
		snprintf(why, len, "fork/waitpid: %s", strerror(errno));
	} else if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		*ret = *shared;
		*pid = c;
		res = PROBE_RETURNED;
	} else if (WIFSIGNALED(st)) {
		snprintf(why, len, "signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
		res = PROBE_DIED;
	} else {
		snprintf(why, len, "the probe exited %d", umh_host_exit_code(st));
	}
	munmap((void *)shared, sizeof(*shared));
	return res;
}

/*
 * Does this kernel run a system call made with int 0x80 by a 64-bit
 * process (the i386 entry, audit arch AUDIT_ARCH_I386)?  Only then does the
 * call reach the seccomp filter, whose arch check must kill it.  Not when
 * the kernel has no i386 entry: CONFIG_IA32_EMULATION off, ia32_emulation=0
 * or CONFIG_IA32_EMULATION_DEFAULT_DISABLED (6.7 and later; the default on
 * some confidential-computing guests), or a virtual machine that handles
 * it otherwise (this check's first host, a 6.18 VM whose kernel has
 * IA32_EMULATION=y, answers SIGSEGV every time): int 0x80 is then a fault
 * and the process gets SIGSEGV, with or without a sandbox, before any
 * system call entry and so before seccomp.  A getpid that answers
 * something other than the pid is no proof of a working entry either.
 *
 * Return: NULL if it does, else why not (for "# SKIP").
 */
static const char *i386_entry_missing(void)
{
	static char why[256];
	char how[96];
	long r = 0;
	pid_t pid = 0;

#ifndef __x86_64__
	return "no int 0x80 on this architecture";
#endif
	switch (host_probe(i386_getpid, &r, &pid, how, sizeof(how))) {
	case PROBE_RETURNED:
		if (r == pid) {
			tap_diag("host: int 0x80 getpid without a sandbox returns the pid: the i386 entry works");
			return NULL;
		}
		snprintf(why, sizeof(why),
			 "this kernel refuses int 0x80 from a 64-bit process: getpid through it returned %ld, not the pid, without a sandbox",
			 r);
		return why;
	case PROBE_DIED:
		snprintf(why, sizeof(why),
			 "this kernel refuses int 0x80 from a 64-bit process: without a sandbox it raised %s, so it never reaches seccomp",
			 how);
		return why;
	case PROBE_ERROR:
		break;
	}
	/* Cannot tell: run the case, which then passes or fails on its own. */
	tap_diag("host: cannot probe int 0x80 (%s); running the case", how);
	return NULL;
}

static void test_allowed(void)
{
	static const struct {
		__u32 action;
		const char *what;
	} cases[] = {
		{ SB_NOTHING, "no system call" },
		{ SB_DECLARED, "getppid, declared by the helper" },
		{ SB_MMAP_RW, "mmap(PROT_READ | PROT_WRITE) + munmap" },
		{ SB_MALLOC_BIG, "malloc 8 MiB, realloc to 32 MiB, free" },
	};
	struct umh_host h;
	unsigned int i;
	__s64 ret;

	if (!ok(start(&h, NULL), "sandboxed helper: fork + hello"))
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		is(act(&h, cases[i].action, &ret), 0, "allowed: %s: answered",
		   cases[i].what);
		ok(ret >= 0, "...and it succeeded (%lld)", (long long)ret);
	}
	is(act(&h, SB_DECLARED, &ret), 0, "getppid again");
	is(ret, getpid(), "...gives the test's pid");
	is(end_of(&h), 0, "EOF: the helper exits 0 (exit_group is allowed)");
}

/*
 * Which of these outcomes depend on the host's kernel?  The filter is an
 * allowlist checked at system call entry, before the kernel looks the
 * number up, so any call the helper makes that is not on the list ends in
 * SIGSYS whatever the kernel would have answered, and whichever of two
 * equivalent calls the C library picks (nanosleep or clock_nanosleep, open
 * or openat):
 *
 *  - nanosleep, getuid, open, mmap/mprotect with PROT_EXEC, kill of the
 *    parent, prctl: not on the list (or not with those arguments) on any
 *    kernel with seccomp filters; host-independent.
 *  - x32 numbers: seccomp runs on the raw number (do_syscall_64() calls
 *    syscall_enter_from_user_mode() before do_syscall_x64() or
 *    do_syscall_x32() look at it), so the filter's x32 check sees it
 *    whether or not the kernel has CONFIG_X86_X32_ABI; without it (this
 *    check's first host) an unsandboxed x32 getpid gets -ENOSYS, with it
 *    the pid.  Host-independent; the probe's answer is only printed.
 *  - int 0x80: host-dependent, see i386_entry_missing(): where the kernel
 *    has no i386 entry the call never reaches seccomp, and the cases are
 *    skipped (three lines, as when they run).
 *  - the vsyscall page has no case here: whether a call to it is emulated
 *    (and then filtered as time/gettimeofday/getcpu) or a SIGSEGV depends
 *    on vsyscall= and CONFIG_LEGACY_VSYSCALL_*, and neither C library calls
 *    it.
 *  - the control, raise(): getpid/gettid, rt_sigprocmask and tgkill or tkill
 *    on itself are allowed on every kernel; host-independent.
 */
static void test_forbidden(void)
{
	static const struct {
		__u32 action;
		const char *what;
	} cases[] = {
		{ SB_NANOSLEEP, "nanosleep (not declared by this helper)" },
		{ SB_GETUID, "getuid" },
		{ SB_OPEN, "open(/dev/null)" },
		{ SB_MMAP_EXEC, "mmap(PROT_EXEC)" },
		{ SB_MPROTECT_EXEC, "mprotect(PROT_EXEC)" },
		{ SB_KILL_PARENT, "kill(parent, 0)" },
		{ SB_PRCTL, "prctl(PR_GET_DUMPABLE)" },
		{ SB_X32, "an x32 system call number" },
#ifdef __x86_64__
		{ SB_I386, "int 0x80 (the i386 audit arch)" },
#endif
	};
	const char *no_i386 = i386_entry_missing();
	char how[96];
	struct umh_host h;
	unsigned int i;
	long r = 0;
	pid_t pid = 0;

	if (host_probe(x32_getpid, &r, &pid, how, sizeof(how)) == PROBE_RETURNED)
		tap_diag("host: an x32 getpid without a sandbox returns %ld (%s)", r,
			 r == pid ? "the pid: x32 ABI on" :
			 r == -ENOSYS ? "-ENOSYS: x32 ABI off" : "?");
	else
		tap_diag("host: an x32 getpid without a sandbox: %s", how);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].action == SB_I386 && no_i386) {
			skip(no_i386, "fork + hello (%s)", cases[i].what);
			skip(no_i386, "forbidden: %s: no reply, the channel closes",
			     cases[i].what);
			skip(no_i386, "...the helper died of SIGSYS");
			continue;
		}
		if (!ok(start(&h, NULL), "fork + hello (%s)", cases[i].what))
			continue;
		is(act(&h, cases[i].action, NULL), -ECONNRESET,
		   "forbidden: %s: no reply, the channel closes", cases[i].what);
		is(end_of(&h), -SIGSYS, "...the helper died of SIGSYS");
	}
	/* The control: a signal the helper sends itself is not SIGSYS. */
	if (ok(start(&h, NULL), "fork + hello (raise)")) {
		is(act(&h, SB_RAISE, NULL), -ECONNRESET,
		   "raise(SIGUSR2) in a handler: the channel closes");
		is(end_of(&h), -SIGUSR2,
		   "...the helper died of SIGUSR2: signalling itself is allowed");
	}
}

static void test_status(void)
{
	const char *no;
	struct umh_host h;

	if (!ok(start(&h, NULL), "fork + hello"))
		return;
	ok(status_is(h.pid, "NoNewPrivs", "1"), "NoNewPrivs: 1");
	ok(status_is(h.pid, "Seccomp", "2"), "Seccomp: 2 (filter)");
	ok(status_is(h.pid, "CapEff", "0000000000000000") &&
	   status_is(h.pid, "CapPrm", "0000000000000000") &&
	   status_is(h.pid, "CapInh", "0000000000000000") &&
	   status_is(h.pid, "CapAmb", "0000000000000000"),
	   "UMH_NO_CAPS: effective, permitted, inheritable, ambient empty");
	no = root_caps_missing(UMH_CAP(UMH__CAP_SETPCAP));
	if (!no)
		ok(status_is(h.pid, "CapBnd", "0000000000000000"),
		   "UMH_NO_CAPS: bounding set empty");
	else
		skip(no, "UMH_NO_CAPS: bounding set empty");
	end_of(&h);
}

static void test_declared_caps(void)
{
	static const long none[1];
	const struct umh_sandbox sb = {
		.caps = UMH_CAP(10) | UMH_CAP(12),	/* NET_BIND_SERVICE, NET_ADMIN */
		.syscalls = none,
	};
	const char *no = root_caps_missing(sb.caps | UMH_CAP(UMH__CAP_SETPCAP));
	struct umh_host h;

	if (no) {
		skip(no, "fork + hello, capabilities 10 and 12 declared");
		skip(no, "effective, permitted and bounding sets hold exactly the declared caps");
		skip(no, "inheritable and ambient sets are empty");
		skip(no, "...and the filter is on");
		return;
	}
	if (!ok(start(&h, &sb), "fork + hello, capabilities 10 and 12 declared"))
		return;
	ok(status_is(h.pid, "CapEff", "0000000000001400") &&
	   status_is(h.pid, "CapPrm", "0000000000001400") &&
	   status_is(h.pid, "CapBnd", "0000000000001400"),
	   "effective, permitted and bounding sets hold exactly the declared caps");
	ok(status_is(h.pid, "CapInh", "0000000000000000") &&
	   status_is(h.pid, "CapAmb", "0000000000000000"),
	   "inheritable and ambient sets are empty");
	ok(status_is(h.pid, "Seccomp", "2"), "...and the filter is on");
	end_of(&h);
}

static void test_opt_out_and_failure(void)
{
	static const long bad[] = { -5 };
	const struct umh_sandbox off = { .off = 1, .why_off = "unit test" };
	const struct umh_sandbox broken = { .syscalls = bad, .nr_syscalls = 1 };
	struct umh_host h;
	int r;

	if (ok(start(&h, &off), "UMH_HELPER_UNSANDBOXED: fork + hello")) {
		ok(strstr(last_log, "WITHOUT a sandbox: unit test") != NULL,
		   "the opt-out is logged with its reason");
		ok(status_is(h.pid, "Seccomp", "0") &&
		   status_is(h.pid, "NoNewPrivs", "0"), "and nothing is applied");
		is(act(&h, SB_GETUID, NULL), 0, "getuid is answered");
		end_of(&h);
	}
	child_sb = &broken;
	umh_host_init(&h);
	h.log = log_capture;
	r = umh_host_spawn_fn(&h, "sb", run_sb, NULL);
	if (!r)
		r = umh_host_hello(&h, &sb_umh_proto);
	ok(r != 0, "a declaration that cannot be applied: no handshake (%d)", r);
	ok(strstr(last_log, "cannot apply the sandbox") != NULL,
	   "...the reason is logged");
	is(end_of(&h), UMH_EXIT_SANDBOX, "...the helper exits UMH_EXIT_SANDBOX");
}

/*
 * From a child that is root without CAP_SYS_PTRACE: may it trace @pid?
 * Return: 0 attached, 1 EPERM, else a set-up error.
 */
static int ptrace_as_nocap(pid_t pid)
{
	struct { __u32 version; int pid; } hdr = { 0x20080522, 0 };
	struct { __u32 eff, prm, inh; } d[2];
	pid_t c;
	int st;

	c = fork();
	if (c == 0) {
		if (syscall(SYS_capget, &hdr, d))
			_exit(10);
		d[0].eff &= ~(1U << 19);	/* CAP_SYS_PTRACE */
		d[0].prm &= ~(1U << 19);
		if (syscall(SYS_capset, &hdr, d))
			_exit(11);
		_exit(ptrace(PTRACE_ATTACH, pid, NULL, NULL) ? (errno == EPERM ? 1 : 12) : 0);
	}
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/*
 * The control of the ptrace check: a process that differs from a helper
 * this program started in being dumpable only, as far as ptrace looks:
 * also forked by this process (a sibling of the tracer, as the helper is:
 * Yama's ptrace_scope 1 refuses a tracer what is not its descendant), root
 * with empty capability sets (commoncap refuses a target with capabilities
 * the tracer lacks).  Whether root without CAP_SYS_PTRACE may attach to it
 * is the host's policy (Yama's ptrace_scope, another LSM, a container's
 * seccomp profile): where it may not, the helper's refusal proves nothing
 * about the helper.  Return: its pid, ready (capabilities gone), or -1.
 */
static pid_t ptrace_control(void)
{
	struct { __u32 version; int pid; } hdr = { 0x20080522, 0 };
	struct { __u32 eff, prm, inh; } d[2];
	int p[2];
	pid_t c;
	char x;

	if (pipe(p))
		return -1;
	fflush(stdout);
	c = fork();
	if (c == 0) {
		close(p[0]);
		memset(d, 0, sizeof(d));
		if (syscall(SYS_capset, &hdr, d) ||
		    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) || write(p[1], "x", 1) != 1)
			_exit(10);
		for (;;)
			pause();
	}
	close(p[1]);
	if (c > 0 && read(p[0], &x, 1) != 1) {
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		c = -1;
	}
	close(p[0]);
	return c;
}

/* Yama's ptrace_scope, for a skip reason: "0".."3", or "absent". */
static const char *yama_scope(void)
{
	static char val[16];
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");

	snprintf(val, sizeof(val), "absent");
	if (f) {
		if (fgets(val, sizeof(val), f))
			val[strcspn(val, "\n")] = '\0';
		fclose(f);
	}
	return val;
}

static void test_echo_helper(const char *path)
{
	static char why[160];
	const char *no;
	struct umh_host h;
	pid_t ctl;
	int r, cr;

	umh_host_init(&h);
	h.log = log_capture;
	r = umh_host_spawn(&h, path, "echo");
	if (!r)
		r = umh_host_hello(&h, &echo_umh_proto);
	if (!ok(!r, "%s: exec + hello", path))
		return;
	ok(status_is(h.pid, "NoNewPrivs", "1") && status_is(h.pid, "Seccomp", "2"),
	   "echo helper: NoNewPrivs 1, Seccomp 2");
	ok(status_is(h.pid, "CapEff", "0000000000000000") &&
	   status_is(h.pid, "CapPrm", "0000000000000000") &&
	   status_is(h.pid, "CapAmb", "0000000000000000"),
	   "echo helper: no capability");
	no = root_caps_missing(UMH_CAP(UMH__CAP_SETPCAP));
	if (!no)
		ok(status_is(h.pid, "CapBnd", "0000000000000000"),
		   "echo helper: empty bounding set");
	else
		skip(no, "echo helper: empty bounding set");

	cr = -1;
	no = geteuid() == 0 ? NULL : "not root";
	if (!no) {
		ctl = ptrace_control();
		if (ctl > 0) {
			cr = ptrace_as_nocap(ctl);
			kill(ctl, SIGKILL);
			waitpid(ctl, NULL, 0);
		}
		if (cr == 1) {
			snprintf(why, sizeof(why),
				 "this host refuses root without CAP_SYS_PTRACE the control too (Yama ptrace_scope: %s)",
				 yama_scope());
			no = why;
		}
	}
	if (!no) {
		is(ptrace_as_nocap(h.pid), 1,
		   "echo helper: root without CAP_SYS_PTRACE cannot attach (non-dumpable)");
		is(cr, 0,
		   "...the control: it may attach to a dumpable sibling, root without capabilities");
	} else {
		skip(no, "echo helper: root without CAP_SYS_PTRACE cannot attach (non-dumpable)");
		skip(no, "...the control: it may attach to a dumpable sibling, root without capabilities");
	}
	umh_host_destroy(&h);
}

int main(int argc, char **argv)
{
	int i;

	signal(SIGPIPE, SIG_IGN);
	tap_watchdog(120);
	test_allowed();
	test_forbidden();
	test_status();
	test_declared_caps();
	test_opt_out_and_failure();
	for (i = 1; i < argc; i++)
		test_echo_helper(argv[i]);
	return tap_done();
}
