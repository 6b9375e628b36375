// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The bpfilter sample's helper: keeps the filter table and answers the
 * iptables sockopt commands the module forwards.
 *
 * Each command is checked in the order netfilter checks it, so a caller
 * sees the errno ip_tables would give.  The table logic is ipt_table.c;
 * this file is the protocol glue.  Nothing the module sends is trusted
 * either: every length is checked again here.
 */
#include <string.h>

#include "bpfilter_proto.h"
#include "ipt_bpf.h"
#include "ipt_table.h"
#include <umh_sdk/helper.h>

UMH_HELPER_DEFINE(bpfilter, BPFILTER_OPS)
/*
 * The helper only computes on the table it keeps: no capability, no system
 * call beyond the runtime's.  A helper that loads BPF programs will need
 * UMH_CAP(CAP_BPF) | UMH_CAP(CAP_NET_ADMIN) and SYS_bpf here.
 */
UMH_HELPER_SANDBOX(bpfilter, UMH_NO_CAPS, UMH_NO_SYSCALLS)

static struct ipt_table filter;

/* A table name from the module: NUL-terminated within its field. */
static int table_lookup(const char *name, size_t size)
{
	if (!memchr(name, '\0', size))
		return -EINVAL;
	return strcmp(name, filter.name) ? -ENOENT : 0;
}

/* Validate a replacement; the table itself is left alone. */
static int translate(const char *what, const void *req, size_t len,
		     struct ipt_replace *repl, size_t extra,
		     struct ipt_table *nt)
{
	char why[IPT_TABLE_WHY_LEN] = "";
	int ret;

	if (len < sizeof(*repl))
		return -EINVAL;
	memcpy(repl, req, sizeof(*repl));
	repl->name[sizeof(repl->name) - 1] = '\0';
	if (len - sizeof(*repl) < repl->size ||
	    len - sizeof(*repl) - repl->size != extra)
		return -EINVAL;
	ret = ipt_table_translate(repl, (const char *)req + sizeof(*repl), nt,
				  why, sizeof(why));
	if (ret)
		umh_err("%s of table '%s' refused: %s (%s)", what, repl->name,
			why[0] ? why : "invalid", strerror(-ret));
	return ret;
}

/*
 * What REPLACE checks, in its order and with its errno: do_replace()'s
 * translation, then __do_replace()'s comparison with the current table.
 * On success *@nt is the translated table (the caller frees it).
 */
static int check_replace(const char *what, const void *req, size_t len,
			 struct ipt_replace *repl, struct ipt_table *nt)
{
	int ret;

	ret = translate(what, req, len, repl, 0, nt);
	if (ret)
		return ret;
	ret = table_lookup(repl->name, sizeof(repl->name));
	if (!ret && repl->valid_hooks != filter.valid_hooks)
		ret = -EINVAL;
	if (!ret && repl->num_counters != filter.number)
		ret = -EAGAIN;
	if (ret)
		ipt_table_free(nt);
	return ret;
}

int bpfilter_handle_replace(void *ctx, const void *req, size_t len,
			    struct umh_out *out)
{
	struct ipt_replace repl;
	struct ipt_table nt;
	size_t n;
	void *old;
	int ret;

	(void)ctx;
	ret = check_replace("replace", req, len, &repl, &nt);
	if (ret)
		return ret;
	n = (size_t)filter.number * sizeof(struct xt_counters);
	old = umh_out_alloc(out, n);
	if (!old) {
		ipt_table_free(&nt);
		return -ENOMEM;
	}
	memcpy(old, filter.counters, n);
	ipt_table_free(&filter);
	filter = nt;
	return 0;
}

int bpfilter_handle_compile(void *ctx, const void *req, size_t len,
			    struct umh_out *out)
{
	char why[IPT_TABLE_WHY_LEN] = "";
	struct bpfilter_prog_hdr hdr;
	struct ipt_bpf_prog prog;
	struct ipt_replace repl;
	struct ipt_table nt;
	size_t ifs, insns;
	char *p;
	int ret;

	(void)ctx;
	ret = check_replace("compile", req, len, &repl, &nt);
	if (ret)
		return ret;
	ret = ipt_bpf_compile(&nt, &prog, why, sizeof(why));
	ipt_table_free(&nt);
	if (ret) {
		umh_err("compile of table '%s' refused: %s (%s)", repl.name,
			why[0] ? why : "cannot compile", strerror(-ret));
		return ret;
	}
	memset(&hdr, 0, sizeof(hdr));
	hdr.number = prog.number;
	hdr.n_insns = prog.n_insns;
	hdr.n_ifaces = prog.n_ifaces;
	ifs = (size_t)prog.n_ifaces * sizeof(*prog.ifaces);
	insns = (size_t)prog.n_insns * sizeof(*prog.insns);
	p = umh_out_alloc(out, sizeof(hdr) + ifs + insns);
	if (!p) {
		/*
		 * -EMSGSIZE: the module asked with less room than this
		 * program needs; it asks again with room for any, and says
		 * so itself if even that is too little.
		 */
		ret = errno == EMSGSIZE ? -EMSGSIZE : -ENOMEM;
		if (ret == -ENOMEM)
			umh_err("compile of table '%s': no memory for the program (%u insns)",
				repl.name, prog.n_insns);
		ipt_bpf_free(&prog);
		return ret;
	}
	memcpy(p, &hdr, sizeof(hdr));
	if (ifs)
		memcpy(p + sizeof(hdr), prog.ifaces, ifs);
	memcpy(p + sizeof(hdr) + ifs, prog.insns, insns);
	umh_info("compiled table '%s': %u entries, %u insns, %u interface patterns, %u subprograms, %u frames, %u decision trees",
		 repl.name, prog.number, prog.n_insns, prog.n_ifaces,
		 prog.n_subprogs, prog.max_frames, prog.n_trees);
	ipt_bpf_free(&prog);
	return 0;
}

int bpfilter_handle_restore(void *ctx, const void *req, size_t len,
			    struct bpfilter_ack *rep)
{
	struct ipt_replace repl;
	struct ipt_table nt;
	size_t n;
	int ret;

	(void)ctx;
	if (len < sizeof(repl))
		return -EINVAL;
	memcpy(&repl, req, sizeof(repl));
	n = (size_t)repl.num_counters * sizeof(struct xt_counters);
	if (repl.num_counters != repl.num_entries)
		return -EINVAL;
	ret = translate("restore", req, len, &repl, n, &nt);
	if (ret)
		return ret;
	ret = table_lookup(repl.name, sizeof(repl.name));
	if (!ret && repl.valid_hooks != filter.valid_hooks)
		ret = -EINVAL;
	if (ret) {
		ipt_table_free(&nt);
		return ret;
	}
	memcpy(nt.counters, (const char *)req + sizeof(repl) + repl.size, n);
	ipt_table_free(&filter);
	filter = nt;
	rep->number = filter.number;
	umh_info("restored table '%s': %u entries", filter.name, filter.number);
	return 0;
}

int bpfilter_handle_add_counters(void *ctx, const void *req, size_t len,
				 struct bpfilter_ack *rep)
{
	struct xt_counters_info info;
	const char *p = req;
	struct xt_counters c;
	unsigned int i;
	int ret;

	(void)ctx;
	if (len < sizeof(info))
		return -EINVAL;
	memcpy(&info, req, sizeof(info));
	if (len - sizeof(info) !=
	    (size_t)info.num_counters * sizeof(struct xt_counters))
		return -EINVAL;
	ret = table_lookup(info.name, sizeof(info.name));
	if (ret)
		return ret;
	if (info.num_counters != filter.number)
		return -EINVAL;
	p += sizeof(info);
	for (i = 0; i < filter.number; i++, p += sizeof(c)) {
		memcpy(&c, p, sizeof(c));
		filter.counters[i].pcnt += c.pcnt;
		filter.counters[i].bcnt += c.bcnt;
	}
	rep->number = filter.number;
	return 0;
}

int bpfilter_handle_get_info(void *ctx, const struct ipt_getinfo *req,
			     struct ipt_getinfo *rep)
{
	int ret;

	(void)ctx;
	ret = table_lookup(req->name, sizeof(req->name));
	if (ret)
		return ret;
	memset(rep, 0, sizeof(*rep));
	memcpy(rep->name, filter.name, sizeof(rep->name));
	rep->valid_hooks = filter.valid_hooks;
	memcpy(rep->hook_entry, filter.hook_entry, sizeof(rep->hook_entry));
	memcpy(rep->underflow, filter.underflow, sizeof(rep->underflow));
	rep->num_entries = filter.number;
	rep->size = filter.size;
	return 0;
}

int bpfilter_handle_get_entries(void *ctx, const struct ipt_get_entries *req,
				struct umh_out *out)
{
	void *dst;
	int ret;

	(void)ctx;
	ret = table_lookup(req->name, sizeof(req->name));
	if (ret)
		return ret;
	if (req->size != filter.size)
		return -EAGAIN;
	dst = umh_out_alloc(out, filter.size);
	if (!dst)
		return -ENOMEM;
	ipt_table_dump(&filter, dst);
	return 0;
}

int bpfilter_handle_get_revision(void *ctx, const struct bpfilter_rev_req *req,
				 struct bpfilter_rev_rep *rep)
{
	int ret;

	(void)ctx;
	if (!memchr(req->name, '\0', sizeof(req->name)))
		return -EINVAL;
	ret = ipt_revision(req->name, req->revision, req->target);
	if (ret < 0)
		return ret;
	rep->revision = ret;
	rep->pad = 0;
	return 0;
}

int main(void)
{
	if (ipt_table_init_filter(&filter)) {
		umh_err("bpfilter helper: out of memory");
		return 1;
	}
	umh_info("bpfilter helper %d ready: table '%s', %u entries",
		 (int)getpid(), filter.name, filter.number);
	return UMH_HELPER_RUN(bpfilter, NULL);
}
