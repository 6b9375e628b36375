/* SPDX-License-Identifier: GPL-2.0 */
/*
 * umh-sdk kernel side: run a user-mode helper embedded in a module.
 *
 * A module embeds a static helper executable (scripts/Kbuild.umh does the
 * build and puts it in .init.rodata), hands it to umh_blob_create() during
 * init, which copies it into a kernel-owned shmem file, and starts it with
 * umh_blob_start().  The helper then answers typed calls (see
 * <umh_sdk/rpc.h>) until umh_blob_destroy() kills it.  Crashes, hangs and
 * protocol violations are detected; the helper is restarted with backoff up
 * to a cap, and the module's on_start callback replays its state into every
 * fresh helper.  Documentation/architecture.rst has the whole picture.
 */
#ifndef _UMH_SDK_UMH_BLOB_H
#define _UMH_SDK_UMH_BLOB_H

#include <linux/types.h>
#include "rpc.h"

struct module;
struct umh_blob;

/**
 * struct umh_blob_config - how to run one helper
 * @name:		helper name: log prefix, kthread and sysfs names
 *			(letters, digits and '_' only)
 * @owner:		module owning the helper (THIS_MODULE); its sysfs
 *			directory gets the status view
 * @proto:		the protocol the helper speaks (p##_umh_proto)
 * @call_timeout_ms:	default per-call timeout (0: 5000)
 * @start_timeout_ms:	limit for exec + handshake (0: 5000)
 * @max_payload:	payload cap in both directions (0: 16 MiB); at least
 *			umh_proto_min_payload() of @proto
 * @max_restarts:	restarts allowed within @restart_window_ms before the
 *			helper is left down (0: 5)
 * @restart_window_ms:	window for @max_restarts (0: 60000)
 * @backoff_min_ms:	delay before the second restart in a window; doubles
 *			per further restart (0: 100); the first is immediate
 * @backoff_max_ms:	longest restart delay (0: 5000)
 * @health_interval_ms:	ping the running helper this often (0: never);
 *			paused from a suspend's or hibernation's prepare
 *			notification until tasks are thawed
 * @on_start:		called after every successful handshake, before any
 *			other caller may use the helper; may make calls; a
 *			non-zero return (a negative errno) fails the start.
 *			umh_blob_stop() and umh_blob_destroy() wait for it:
 *			it must not call them, nor wait for a lock held
 *			around them.  May be NULL.
 * @priv:		passed to @on_start
 */
struct umh_blob_config {
	const char *name;
	struct module *owner;
	const struct umh_proto *proto;
	unsigned int call_timeout_ms;
	unsigned int start_timeout_ms;
	unsigned int max_payload;
	unsigned int max_restarts;
	unsigned int restart_window_ms;
	unsigned int backoff_min_ms;
	unsigned int backoff_max_ms;
	unsigned int health_interval_ms;
	int (*on_start)(struct umh_blob *ub, void *priv);
	void *priv;
};

/**
 * enum umh_blob_state - life cycle of a helper, as the status view shows it
 * @UMH_BLOB_STOPPED:	created, never started or stopped for good
 * @UMH_BLOB_STARTING:	exec, handshake or on_start under way
 * @UMH_BLOB_RUNNING:	answering calls
 * @UMH_BLOB_RESTARTING: crashed or killed; a restart is scheduled
 * @UMH_BLOB_FAILED:	start failed or restart cap reached; calls fail
 *			with -ENOTCONN
 */
enum umh_blob_state {
	UMH_BLOB_STOPPED,
	UMH_BLOB_STARTING,
	UMH_BLOB_RUNNING,
	UMH_BLOB_RESTARTING,
	UMH_BLOB_FAILED,
};

struct umh_blob *umh_blob_create(const struct umh_blob_config *cfg,
				 const void *blob, size_t size);
int umh_blob_start(struct umh_blob *ub);
void umh_blob_stop(struct umh_blob *ub);
void umh_blob_destroy(struct umh_blob *ub);
int umh_blob_ping(struct umh_blob *ub, unsigned int timeout_ms);
pid_t umh_blob_pid(struct umh_blob *ub);
int umh_blob_restart(struct umh_blob *ub, pid_t pid, const char *why);
enum umh_blob_state umh_blob_get_state(struct umh_blob *ub);

/*
 * The helper embedded by scripts/Kbuild.umh for module @mod lives between
 * two symbols in .init.rodata; reference them only from __init code.
 */
#define UMH_BLOB_DECLARE(mod)	__UMH_BLOB_DECLARE(mod)
#define UMH_BLOB_DATA(mod)	__UMH_BLOB_DATA(mod)
#define UMH_BLOB_SIZE(mod)	__UMH_BLOB_SIZE(mod)

/* One level of indirection, so that @mod may itself be a macro. */
#define __UMH_BLOB_DECLARE(mod)						\
	extern const char __umh_blob_##mod##_start[];			\
	extern const char __umh_blob_##mod##_end[]
#define __UMH_BLOB_DATA(mod)	((const void *)__umh_blob_##mod##_start)
#define __UMH_BLOB_SIZE(mod)						\
	((size_t)(__umh_blob_##mod##_end - __umh_blob_##mod##_start))

#endif /* _UMH_SDK_UMH_BLOB_H */
