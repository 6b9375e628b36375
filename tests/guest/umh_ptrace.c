// SPDX-License-Identifier: GPL-2.0
/*
 * umh_ptrace MODE PID: try to inspect process PID the ways a debugger or
 * an attacker would, and check they are all refused, while the same
 * attempts on a child of this tool (same credentials, dumpable) succeed.
 *
 * MODE:
 *   nocap	stay root but drop CAP_SYS_PTRACE: on a root helper whose
 *		capability sets are empty (a subset of ours), what is left to
 *		stop the attempts is its being non-dumpable
 *   user	become uid/gid 65534 (nobody)
 *
 * Attempts: PTRACE_ATTACH, PTRACE_SEIZE, open /proc/PID/mem,
 * process_vm_readv.  Prints one line per attempt; exit status 0 if every
 * attempt on PID was refused and every attempt on the control child was
 * allowed, 1 otherwise, 2 on a usage or set-up error.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static int drop_ptrace_cap(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective &= ~(1U << CAP_SYS_PTRACE);
	d[0].permitted &= ~(1U << CAP_SYS_PTRACE);
	d[0].inheritable &= ~(1U << CAP_SYS_PTRACE);
	return (int)syscall(SYS_capset, &h, d);
}

static const char *res(int ok, int err)
{
	static char buf[64];

	if (ok)
		return "allowed";
	snprintf(buf, sizeof(buf), "refused (%s)", strerror(err));
	return buf;
}

/* Try everything on @pid.  Return: the number of attempts allowed (of 4). */
static int attempts(const char *who, pid_t pid)
{
	char path[64], byte;
	struct iovec local = { &byte, 1 }, remote = { (void *)0x400000, 1 };
	int allowed = 0, ok, fd, st;
	long r;

	errno = 0;
	ok = ptrace(PTRACE_ATTACH, pid, NULL, NULL) == 0;
	printf("%s %d: PTRACE_ATTACH %s\n", who, pid, res(ok, errno));
	if (ok) {
		allowed++;
		waitpid(pid, &st, __WALL);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	}
	errno = 0;
	ok = ptrace(PTRACE_SEIZE, pid, NULL, NULL) == 0;
	printf("%s %d: PTRACE_SEIZE %s\n", who, pid, res(ok, errno));
	if (ok) {
		allowed++;
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	errno = 0;
	fd = open(path, O_RDONLY);
	ok = fd >= 0;
	printf("%s %d: open %s %s\n", who, pid, path, res(ok, errno));
	if (ok) {
		allowed++;
		close(fd);
	}
	errno = 0;
	r = syscall(SYS_process_vm_readv, pid, &local, 1UL, &remote, 1UL, 0UL);
	/* EFAULT: access was granted, the address just is not mapped. */
	ok = r >= 0 || errno == EFAULT;
	printf("%s %d: process_vm_readv %s\n", who, pid, res(ok, errno));
	allowed += ok;
	return allowed;
}

int main(int argc, char **argv)
{
	pid_t target, child;
	int denied, control;

	if (argc != 3 || (strcmp(argv[1], "nocap") && strcmp(argv[1], "user"))) {
		fprintf(stderr, "usage: umh_ptrace nocap|user PID\n");
		return 2;
	}
	target = atoi(argv[2]);
	if (!strcmp(argv[1], "nocap") ? drop_ptrace_cap() :
	    setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		perror("umh_ptrace: dropping privileges");
		return 2;
	}
	/* setuid() made us non-dumpable; the control child must not be. */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	/* The control: a child with exactly our credentials. */
	child = fork();
	if (child < 0)
		return 2;
	if (!child) {
		for (;;)
			pause();
	}
	denied = 4 - attempts("target", target);
	control = attempts("control", child);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	printf("target: %d of 4 refused; control: %d of 4 allowed\n", denied,
	       control);
	return denied == 4 && control == 4 ? 0 : 1;
}
