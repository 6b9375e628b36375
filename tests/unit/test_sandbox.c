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
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
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
		r = syscall(0x40000000L | SYS_getpid);
		break;
	case SB_I386:
#ifdef __x86_64__
		r = 20;		/* __NR_getpid of i386 */
		__asm__ volatile("int $0x80" : "+a"(r) : : "memory");
#endif
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
	struct umh_host h;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
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
	if (geteuid() == 0)
		ok(status_is(h.pid, "CapBnd", "0000000000000000"),
		   "UMH_NO_CAPS: bounding set empty");
	else
		ok(1, "# SKIP bounding set: not root");
	end_of(&h);
}

static void test_declared_caps(void)
{
	static const long none[1];
	const struct umh_sandbox sb = {
		.caps = UMH_CAP(10) | UMH_CAP(12),	/* NET_BIND_SERVICE, NET_ADMIN */
		.syscalls = none,
	};
	struct umh_host h;

	if (geteuid() != 0) {
		ok(1, "# SKIP declared capabilities: not root");
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
 * Pid 0: the control, a grandchild with the child's own credentials.
 * Return: 0 attached, 1 EPERM, else a set-up error.
 */
static int ptrace_as_nocap(pid_t pid)
{
	struct { __u32 version; int pid; } hdr = { 0x20080522, 0 };
	struct { __u32 eff, prm, inh; } d[2];
	pid_t c, target = pid;
	int st, r;

	c = fork();
	if (c == 0) {
		if (syscall(SYS_capget, &hdr, d))
			_exit(10);
		d[0].eff &= ~(1U << 19);	/* CAP_SYS_PTRACE */
		d[0].prm &= ~(1U << 19);
		if (syscall(SYS_capset, &hdr, d))
			_exit(11);
		if (!pid) {
			pid = fork();
			if (!pid)
				for (;;)
					pause();
		}
		r = ptrace(PTRACE_ATTACH, pid, NULL, NULL) ? (errno == EPERM ? 1 : 12) : 0;
		if (pid != target)
			kill(pid, SIGKILL);
		_exit(r);
	}
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void test_echo_helper(const char *path)
{
	struct umh_host h;
	int r;

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
	if (geteuid() == 0) {
		ok(status_is(h.pid, "CapBnd", "0000000000000000"),
		   "echo helper: empty bounding set");
		is(ptrace_as_nocap(h.pid), 1,
		   "echo helper: root without CAP_SYS_PTRACE cannot attach (non-dumpable)");
		is(ptrace_as_nocap(0), 0,
		   "...the control: it may attach to a dumpable process with its own credentials");
	} else {
		ok(1, "# SKIP bounding set and ptrace checks: not root");
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
