// SPDX-License-Identifier: GPL-2.0
/*
 * hello_umh: the tutorial's module (Documentation/tutorial.rst).
 *
 * It carries its helper inside itself, starts it at load time, greets and
 * counts through it, and greets again whenever the module parameter "name"
 * is written.  rmmod kills the helper.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include <umh_sdk/umh_blob.h>

#include "hello_proto.h"

UMH_BLOB_DECLARE(hello_umh);

static DEFINE_MUTEX(hello_lock);	/* hello_ub and hello_name */
static struct umh_blob *hello_ub;	/* NULL before init and after exit */
static char hello_name[HELLO_NAME_MAX + 1] = "world";

/* Ask the helper to greet @name (@len bytes) and log its greeting. */
static int hello_greet(struct umh_blob *ub, const char *name, size_t len)
{
	char greeting[HELLO_GREETING_MAX + 1];
	size_t n;
	int ret;

	ret = hello_call_greet(ub, name, len, greeting, HELLO_GREETING_MAX,
			       &n);
	if (ret)
		return ret;
	greeting[n] = '\0';	/* the helper sent bytes, not a C string */
	pr_info("%s\n", greeting);
	return 0;
}

/* Add @step to the helper's counter; *@total gets the new total. */
static int hello_count(struct umh_blob *ub, u32 step, u64 *total)
{
	struct hello_count req = { .step = step };
	struct hello_total rep;
	int ret;

	ret = hello_call_count(ub, &req, &rep);
	if (!ret)
		*total = rep.total;
	return ret;
}

/* Writing "name" greets the new name; only a greeted name is kept. */
static int hello_name_set(const char *val, const struct kernel_param *kp)
{
	size_t len = strcspn(val, "\n");	/* echo(1) adds a newline */
	int ret = 0;

	if (len > HELLO_NAME_MAX)
		return -EMSGSIZE;
	mutex_lock(&hello_lock);
	/* insmod's name=... comes before init: just keep it, init greets */
	if (hello_ub)
		ret = hello_greet(hello_ub, val, len);
	if (!ret) {
		memcpy(hello_name, val, len);
		hello_name[len] = '\0';
	}
	mutex_unlock(&hello_lock);
	return ret;
}

static int hello_name_get(char *buffer, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&hello_lock);
	ret = scnprintf(buffer, PAGE_SIZE, "%s\n", hello_name);
	mutex_unlock(&hello_lock);
	return ret;
}

static const struct kernel_param_ops hello_name_ops = {
	.set = hello_name_set,
	.get = hello_name_get,
};
module_param_cb(name, &hello_name_ops, NULL, 0644);
MODULE_PARM_DESC(name, "who to greet; writing it makes the helper greet");

static int __init hello_init(void)
{
	const struct umh_blob_config cfg = {
		.name = "hello",
		.owner = THIS_MODULE,
		.proto = &hello_umh_proto,
	};
	struct umh_blob *ub;
	u64 total = 0;
	u32 step;
	int ret;

	ub = umh_blob_create(&cfg, UMH_BLOB_DATA(hello_umh),
			     UMH_BLOB_SIZE(hello_umh));
	if (IS_ERR(ub))
		return PTR_ERR(ub);
	ret = umh_blob_start(ub);
	if (ret)
		goto err;

	mutex_lock(&hello_lock);
	ret = hello_greet(ub, hello_name, strlen(hello_name));
	for (step = 1; step <= 3 && !ret; step++)
		ret = hello_count(ub, step, &total);
	if (!ret) {
		pr_info("1 + 2 + 3 = %llu, counted by helper pid %d\n",
			total, umh_blob_pid(ub));
		hello_ub = ub;	/* from now on, writing "name" greets */
	}
	mutex_unlock(&hello_lock);
	if (ret)
		goto err;
	return 0;

err:
	umh_blob_destroy(ub);
	return ret;
}

static void __exit hello_exit(void)
{
	struct umh_blob *ub = hello_ub;

	/* A write to "name" may be in a call: it returns -ESHUTDOWN now. */
	umh_blob_stop(ub);
	/* The parameter outlives exit a little: let it find no helper. */
	mutex_lock(&hello_lock);
	hello_ub = NULL;
	mutex_unlock(&hello_lock);
	umh_blob_destroy(ub);
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_DESCRIPTION("umh-sdk tutorial: a module that carries its hello helper");
MODULE_LICENSE("GPL");
