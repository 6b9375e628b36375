/* SPDX-License-Identifier: GPL-2.0 */
/* What forbidden_helper.c's add handler does for a given echo_add.a. */
#ifndef _FORBIDDEN_H
#define _FORBIDDEN_H

#include "../../samples/echo_umh/echo_proto.h"

enum {
	FORBID_OPEN = 1001,	/* open("/etc/shadow") */
	FORBID_EXEC,		/* execv("/bin/sh") */
	FORBID_MMAP_EXEC,	/* mmap(PROT_EXEC) */
	FORBID_KILL_INIT,	/* kill(1, 0): another process */
	FORBID_SOCKET,		/* socket(AF_INET) */
	FORBID_ABORT,		/* abort(): SIGABRT, the control */
};

#endif /* _FORBIDDEN_H */
