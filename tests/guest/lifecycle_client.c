// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle_client: drive the lifecycle test module (/dev/lifecycle_umh)
 * from inside a test guest.
 *
 *   lifecycle_client ping       print the pid the helper reports
 *   lifecycle_client start N    call umh_blob_start() from N kernel threads
 *                               at once; print "started S busy B other O ERR"
 *   lifecycle_client kfds 1|0   a kernel worker opens (1) or closes (0)
 *                               files in the kernel threads' file table
 *   lifecycle_client restart PID
 *                               umh_blob_restart() of helper PID; prints
 *                               nothing, or the errno's name
 *   lifecycle_client stopmid    umh_blob_stop() during a held start; prints
 *                               "held H pending P ret R"
 *
 * Exit status 0 on success, 1 if the ioctl failed, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../modules/lifecycle_uapi.h"

int main(int argc, char **argv)
{
	int dev;

	if (argc < 2 ||
	    (strcmp(argv[1], "ping") && strcmp(argv[1], "start") &&
	     strcmp(argv[1], "kfds") && strcmp(argv[1], "restart") &&
	     strcmp(argv[1], "stopmid")) ||
	    (strcmp(argv[1], "ping") && strcmp(argv[1], "stopmid") &&
	     argc != 3)) {
		fprintf(stderr, "usage: lifecycle_client ping | start N | kfds 1|0 | restart PID | stopmid\n");
		return 2;
	}
	dev = open("/dev/lifecycle_umh", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		perror("/dev/lifecycle_umh");
		return 1;
	}
	if (!strcmp(argv[1], "ping")) {
		__u32 pid;

		if (ioctl(dev, LC_IOC_PING, &pid)) {
			printf("%s\n", strerrorname_np(errno) ?: "?");
			return 1;
		}
		printf("%u\n", pid);
	} else if (!strcmp(argv[1], "restart")) {
		if (ioctl(dev, LC_IOC_RESTART, strtoul(argv[2], NULL, 10))) {
			printf("%s\n", strerrorname_np(errno) ?: "?");
			return 1;
		}
	} else if (!strcmp(argv[1], "stopmid")) {
		struct lc_ioc_stop io;

		if (ioctl(dev, LC_IOC_STOP_MID_START, &io)) {
			printf("%s\n", strerrorname_np(errno) ?: "?");
			return 1;
		}
		printf("held %u pending %u ret %d\n", io.held,
		       io.start_pending, io.start_ret);
	} else if (!strcmp(argv[1], "kfds")) {
		if (ioctl(dev, LC_IOC_KFDS, (unsigned long)atoi(argv[2]))) {
			printf("%s\n", strerrorname_np(errno) ?: "?");
			return 1;
		}
	} else {
		struct lc_ioc_start io = { .threads = (__u32)atoi(argv[2]) };

		if (ioctl(dev, LC_IOC_START, &io)) {
			printf("%s\n", strerrorname_np(errno) ?: "?");
			return 1;
		}
		printf("started %u busy %u other %u %d\n", io.started, io.busy,
		       io.other, io.other_err);
	}
	return 0;
}
