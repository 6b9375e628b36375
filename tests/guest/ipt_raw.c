// SPDX-License-Identifier: GPL-2.0
/*
 * ipt_raw: send hand-built and malformed requests through the IPv4 iptables
 * sockopt ABI (what ip_tables.ko or bpfilter.ko answers) and print one line
 * per case: "<case> <result>", the result "ok" or the errno name (or
 * "mismatch" where the case compares bytes).  The output is meant to be
 * diffed between two implementations, so it holds nothing that may differ
 * between runs of one implementation.
 *
 *   ipt_raw           all cases (needs CAP_NET_ADMIN); exit 0 unless it
 *                     could not read the table at start
 *   ipt_raw perm      a few requests, for a caller without CAP_NET_ADMIN
 *   ipt_raw compat    GET_INFO and ADD_COUNTERS through the 32-bit system
 *                     call entry (int 0x80), as a 32-bit iptables makes
 *                     them; or "compat_skip <why>" where this kernel runs
 *                     no int 0x80 from a 64-bit process
 *   ipt_raw compat_probe  only "compat_ok" or "compat_skip <why>"
 *   ipt_raw info      "size S entries N replace R xlated X": the filter
 *                     table's size and entries (GET_INFO), sizeof(struct
 *                     ipt_replace), and the bytes of instructions of the
 *                     largest BPF program named "bpfilter" as the kernel
 *                     holds it (0 if none; needs CAP_SYS_ADMIN)
 *
 * The cases start from the table as read at start (num_counters follows
 * the table's number of entries; a case that replaces the table with
 * another one restores the first one after itself), and the last line says
 * whether the table read at the end is byte-identical to the one read at
 * start.  Every user buffer ends right before an inaccessible page, so a
 * kernel reading past the length it was given gets EFAULT, not garbage.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter/xt_LOG.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_limit.h>
#include <linux/netfilter/xt_state.h>
#include <linux/netfilter_ipv4/ipt_REJECT.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_tcpudp.h>

#define PAGE 4096UL
#define HOOK_BIT(h) (1U << (h))
#define FILTER_HOOKS (HOOK_BIT(NF_INET_LOCAL_IN) | HOOK_BIT(NF_INET_FORWARD) | \
		      HOOK_BIT(NF_INET_LOCAL_OUT))
#define V_ACCEPT (-NF_ACCEPT - 1)
#define V_DROP (-NF_DROP - 1)
#define V_QUEUE (-NF_QUEUE - 1)

static int sock = -1;

static void die(const char *msg)
{
	fprintf(stderr, "ipt_raw: %s\n", msg);
	exit(2);
}

static const char *errname(int e)
{
	const char *s = e ? strerrorname_np(e) : "ok";
	static char buf[32];

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

static void result(const char *name, int err)
{
	printf("%s %s\n", name, errname(err));
	fflush(stdout);
}

/* A buffer of len bytes that ends right before a PROT_NONE page. */
struct gbuf {
	void *map;
	size_t maplen;
	unsigned char *p;
};

static unsigned char *gb_get(struct gbuf *g, size_t len)
{
	size_t data = (len + PAGE - 1) / PAGE * PAGE;

	g->maplen = data + PAGE;
	g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		die("mmap failed");
	if (mprotect((char *)g->map + data, PAGE, PROT_NONE))
		die("mprotect failed");
	g->p = (unsigned char *)g->map + data - len;
	return g->p;
}

static void gb_put(struct gbuf *g)
{
	munmap(g->map, g->maplen);
}

/* setsockopt with the first copy bytes of data, len declared. */
static int set_raw(int opt, const void *data, size_t copy, socklen_t len)
{
	struct gbuf g;
	unsigned char *p = gb_get(&g, copy);
	int err = 0;

	memcpy(p, data, copy);
	if (setsockopt(sock, IPPROTO_IP, opt, p, len))
		err = errno;
	gb_put(&g);
	return err;
}

/*
 * getsockopt into a buffer of alloc bytes that starts as a copy of in, len
 * declared.
 */
static int get_short(int opt, const void *in, size_t inlen, void *out,
		     size_t alloc, socklen_t len)
{
	struct gbuf g;
	unsigned char *p = gb_get(&g, alloc);
	socklen_t l = len;
	int err = 0;

	memset(p, 0, alloc);
	memcpy(p, in, inlen < alloc ? inlen : alloc);
	if (getsockopt(sock, IPPROTO_IP, opt, p, &l))
		err = errno;
	else if (out)
		memcpy(out, p, alloc);
	gb_put(&g);
	return err;
}

static int get_raw(int opt, const void *in, size_t inlen, void *out,
		   socklen_t len)
{
	return get_short(opt, in, inlen, out, len, len);
}

/* ---- the table as read ---- */

struct snap {
	struct ipt_getinfo info;
	unsigned char *entries;	/* info.size bytes */
};

static int read_table(const char *name, struct snap *s)
{
	struct ipt_get_entries *ge;
	size_t len;
	int err;

	memset(&s->info, 0, sizeof(s->info));
	snprintf(s->info.name, sizeof(s->info.name), "%s", name);
	err = get_raw(IPT_SO_GET_INFO, &s->info, sizeof(s->info), &s->info,
		      sizeof(s->info));
	if (err)
		return err;
	len = sizeof(*ge) + s->info.size;
	ge = calloc(1, len);
	if (!ge)
		die("out of memory");
	snprintf(ge->name, sizeof(ge->name), "%s", name);
	ge->size = s->info.size;
	err = get_raw(IPT_SO_GET_ENTRIES, ge, sizeof(*ge), ge, len);
	if (!err) {
		s->entries = malloc(s->info.size + 1);
		if (!s->entries)
			die("out of memory");
		memcpy(s->entries, ge->entrytable, s->info.size);
	}
	free(ge);
	return err;
}

static unsigned int cur_number;	/* entries in the table now */

/* ---- building tables ---- */

struct tb {
	struct ipt_replace r;
	unsigned char buf[65536];
	size_t len;
	size_t cur;		/* offset of the entry being built */
};

static struct ipt_entry *E(struct tb *b, size_t off)
{
	return (struct ipt_entry *)(b->buf + off);
}

static struct xt_entry_target *T(struct tb *b, size_t off)
{
	return (struct xt_entry_target *)(b->buf + off + E(b, off)->target_offset);
}

/* The first match of the entry at off. */
static struct xt_entry_match *M(struct tb *b, size_t off)
{
	return (struct xt_entry_match *)E(b, off)->elems;
}

static void tb_reset(struct tb *b)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->r.name, sizeof(b->r.name), "filter");
	b->r.valid_hooks = FILTER_HOOKS;
	for (int h = 0; h < NF_INET_NUMHOOKS; h++)
		b->r.hook_entry[h] = b->r.underflow[h] = 0xFFFFFFFF;
}

static size_t e_begin(struct tb *b, uint16_t proto, uint8_t flags)
{
	struct ipt_entry *e;

	if (b->len + 4096 > sizeof(b->buf))
		die("table buffer full");
	b->cur = b->len;
	e = E(b, b->cur);
	memset(e, 0, sizeof(*e));
	e->ip.proto = proto;
	e->ip.flags = flags;
	b->len += sizeof(*e);
	return b->cur;
}

static void e_match(struct tb *b, const char *name, uint8_t rev,
		    const void *data, size_t dlen)
{
	struct xt_entry_match *m = (void *)(b->buf + b->len);
	size_t sz = XT_ALIGN(sizeof(*m) + dlen);

	memset(m, 0, sz);
	m->u.user.match_size = sz;
	memcpy(m->u.user.name, name, strnlen(name, sizeof(m->u.user.name)));
	m->u.user.revision = rev;
	memcpy(m->data, data, dlen);
	b->len += sz;
}

static void e_target(struct tb *b, const char *name, uint8_t rev,
		     const void *data, size_t dlen)
{
	struct ipt_entry *e = E(b, b->cur);
	struct xt_entry_target *t = (void *)(b->buf + b->len);
	size_t sz = XT_ALIGN(sizeof(*t) + dlen);

	memset(t, 0, sz);
	t->u.user.target_size = sz;
	memcpy(t->u.user.name, name, strnlen(name, sizeof(t->u.user.name)));
	t->u.user.revision = rev;
	memcpy(t->data, data, dlen);
	e->target_offset = b->len - b->cur;
	b->len += sz;
	e->next_offset = b->len - b->cur;
	b->r.num_entries++;
}

static void e_verdict(struct tb *b, int v)
{
	e_target(b, XT_STANDARD_TARGET, 0, &v, sizeof(v));
}

static void e_error(struct tb *b, const char *chain)
{
	char name[XT_FUNCTION_MAXNAMELEN] = { 0 };

	snprintf(name, sizeof(name), "%s", chain);
	e_target(b, XT_ERROR_TARGET, 0, name, sizeof(name));
}

static void set_verdict(struct tb *b, size_t off, int v)
{
	memcpy(T(b, off)->data, &v, sizeof(v));
}

static size_t policy(struct tb *b, int hook, int v)
{
	size_t off = e_begin(b, 0, 0);

	e_verdict(b, v);
	if (b->r.hook_entry[hook] == 0xFFFFFFFF)
		b->r.hook_entry[hook] = off;
	b->r.underflow[hook] = off;
	return off;
}

static void tb_finish(struct tb *b)
{
	e_begin(b, 0, 0);
	e_error(b, XT_ERROR_TARGET);
	b->r.size = b->len;
	b->r.num_counters = cur_number;
}

/* The table iptable_filter starts with. */
static void build_filter(struct tb *b)
{
	tb_reset(b);
	policy(b, NF_INET_LOCAL_IN, V_ACCEPT);
	policy(b, NF_INET_FORWARD, V_ACCEPT);
	policy(b, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(b);
}

static void tcp_match(struct tb *b, uint16_t dport)
{
	struct xt_tcp tcp = { .spts = { 0, 0xFFFF }, .dpts = { dport, dport } };

	e_match(b, "tcp", 0, &tcp, sizeof(tcp));
}

/* Rule kinds for the one extra INPUT rule of build_rule(). */
enum rule {
	R_TCP,			/* -p tcp -m tcp --dport 22 -j ACCEPT */
	R_UDP_BADSIZE,		/* udp match with 8 bytes too many */
	R_MATCH_UNKNOWN,
	R_TARGET_UNKNOWN,
	R_MATCH_NO_NUL,
	R_TARGET_NO_NUL,
	R_MULTIPORT0,
	R_MULTIPORT_COUNT16,
	R_TCP_REV1,
	R_TCP_NOPROTO,
	R_TCP_INVFLAGS,
	R_LOG,
	R_REJECT,
	R_STATE,
	R_CONNTRACK,
	R_LIMIT,
	R_COMMENT_NO_NUL,
};

/* The filter table with one rule at the head of INPUT; returns its offset. */
static size_t build_rule(struct tb *b, enum rule kind)
{
	unsigned char zero[512] = { 0 };
	char longname[XT_EXTENSION_MAXNAMELEN];
	struct xt_udp udp = { .spts = { 0, 0xFFFF }, .dpts = { 53, 53 } };
	struct xt_multiport mp0 = { .flags = XT_MULTIPORT_DESTINATION,
				    .count = 2, .ports = { 80, 443 } };
	struct xt_multiport_v1 mp1 = { .flags = XT_MULTIPORT_DESTINATION,
				       .count = 16 };
	struct xt_tcp tcp = { .spts = { 0, 0xFFFF }, .dpts = { 0, 0xFFFF },
			      .invflags = 0x80 };
	struct xt_comment_info ci;
	size_t r;
	int v = V_ACCEPT;

	memset(longname, 'a', sizeof(longname));
	tb_reset(b);
	switch (kind) {
	case R_TCP:
		r = e_begin(b, IPPROTO_TCP, 0);
		tcp_match(b, 22);
		break;
	case R_UDP_BADSIZE:
		r = e_begin(b, IPPROTO_UDP, 0);
		{
			unsigned char big[sizeof(udp) + 8] = { 0 };

			memcpy(big, &udp, sizeof(udp));
			e_match(b, "udp", 0, big, sizeof(big));
		}
		break;
	case R_MATCH_UNKNOWN:
		r = e_begin(b, 0, 0);
		e_match(b, "bogusmatch", 0, zero, 8);
		break;
	case R_MATCH_NO_NUL:
		r = e_begin(b, 0, 0);
		e_match(b, longname, 0, zero, 8);
		break;
	case R_MULTIPORT0:
		r = e_begin(b, IPPROTO_TCP, 0);
		e_match(b, "multiport", 0, &mp0, sizeof(mp0));
		break;
	case R_MULTIPORT_COUNT16:
		r = e_begin(b, IPPROTO_TCP, 0);
		e_match(b, "multiport", 1, &mp1, sizeof(mp1));
		break;
	case R_TCP_REV1:
		r = e_begin(b, IPPROTO_TCP, 0);
		{
			struct xt_tcp t1 = { .spts = { 0, 0xFFFF },
					     .dpts = { 22, 22 } };

			e_match(b, "tcp", 1, &t1, sizeof(t1));
		}
		break;
	case R_TCP_NOPROTO:
		r = e_begin(b, 0, 0);
		tcp_match(b, 22);
		break;
	case R_TCP_INVFLAGS:
		r = e_begin(b, IPPROTO_TCP, 0);
		e_match(b, "tcp", 0, &tcp, sizeof(tcp));
		break;
	case R_STATE:
		r = e_begin(b, 0, 0);
		e_match(b, "state", 0, zero, sizeof(struct xt_state_info));
		break;
	case R_CONNTRACK:	/* revision 3 is what iptables 1.8 sends */
		r = e_begin(b, 0, 0);
		e_match(b, "conntrack", 3, zero, sizeof(struct xt_conntrack_mtinfo3));
		break;
	case R_LIMIT:
		r = e_begin(b, 0, 0);
		e_match(b, "limit", 0, zero, sizeof(struct xt_rateinfo));
		break;
	case R_COMMENT_NO_NUL:
		r = e_begin(b, 0, 0);
		memset(ci.comment, 'c', sizeof(ci.comment));
		e_match(b, "comment", 0, &ci, sizeof(ci));
		break;
	default:
		r = e_begin(b, 0, 0);
		break;
	}
	switch (kind) {
	case R_TARGET_UNKNOWN:
		e_target(b, "BOGUSTARGET", 0, zero, 8);
		break;
	case R_TARGET_NO_NUL:
		e_target(b, longname, 0, zero, 8);
		break;
	case R_LOG:
		e_target(b, "LOG", 0, zero, sizeof(struct xt_log_info));
		break;
	case R_REJECT:
		e_target(b, "REJECT", 0, zero, sizeof(struct ipt_reject_info));
		break;
	default:
		e_verdict(b, v);
	}
	b->r.hook_entry[NF_INET_LOCAL_IN] = r;
	policy(b, NF_INET_LOCAL_IN, V_ACCEPT);
	policy(b, NF_INET_FORWARD, V_ACCEPT);
	policy(b, NF_INET_LOCAL_OUT, V_ACCEPT);
	tb_finish(b);
	return r;
}

/* Offsets of interesting entries of build_chains(). */
struct chains {
	size_t in_jump;		/* INPUT: -p tcp --dport 80 -j A */
	size_t a_first;		/* A's first rule: -p udp --dport 53 -j DROP */
	size_t a_jump;		/* A: -p tcp -j B */
	size_t b_first;		/* B's first rule: -p tcp --dport 443 -j ACCEPT */
};

/*
 * A valid table with two user chains and every supported extension:
 * INPUT: -p tcp --dport 80 -j A; -p icmp --icmp-type 8 -j ACCEPT;
 *        -g B (goto); policy DROP
 * FORWARD: -s 10.0.0.0/8 -i eth0 -j DROP; policy ACCEPT
 * OUTPUT: -m comment -j ACCEPT; policy ACCEPT
 * A: -p udp --dport 53 -j DROP; -p tcp -m multiport --dports 80,443 -j B;
 *    -j RETURN
 * B: -p tcp --dport 443 -j ACCEPT; ! -p udp -j RETURN; -j RETURN
 */
static void build_chains(struct tb *b, struct chains *c)
{
	struct ipt_icmp icmp = { .type = 8, .code = { 0, 0xFF } };
	struct xt_udp udp = { .spts = { 0, 0xFFFF }, .dpts = { 53, 53 } };
	struct xt_multiport_v1 mp = { .flags = XT_MULTIPORT_DESTINATION,
				      .count = 2, .ports = { 80, 443 } };
	struct xt_comment_info ci = { .comment = "ipt_raw was here" };
	size_t in_goto, a_head, b_head, off;

	tb_reset(b);
	c->in_jump = e_begin(b, IPPROTO_TCP, 0);
	tcp_match(b, 80);
	e_verdict(b, 0);	/* set below */
	b->r.hook_entry[NF_INET_LOCAL_IN] = c->in_jump;
	e_begin(b, IPPROTO_ICMP, 0);
	e_match(b, "icmp", 0, &icmp, sizeof(icmp));
	e_verdict(b, V_ACCEPT);
	in_goto = e_begin(b, 0, IPT_F_GOTO);
	e_verdict(b, 0);
	policy(b, NF_INET_LOCAL_IN, V_DROP);

	off = e_begin(b, 0, 0);
	E(b, off)->ip.src.s_addr = htonl(0x0a000000);
	E(b, off)->ip.smsk.s_addr = htonl(0xff000000);
	strcpy(E(b, off)->ip.iniface, "eth0");
	memset(E(b, off)->ip.iniface_mask, 0xFF, strlen("eth0") + 1);
	e_verdict(b, V_DROP);
	b->r.hook_entry[NF_INET_FORWARD] = off;
	policy(b, NF_INET_FORWARD, V_ACCEPT);

	off = e_begin(b, 0, 0);
	e_match(b, "comment", 0, &ci, sizeof(ci));
	e_verdict(b, V_ACCEPT);
	b->r.hook_entry[NF_INET_LOCAL_OUT] = off;
	policy(b, NF_INET_LOCAL_OUT, V_ACCEPT);

	a_head = e_begin(b, 0, 0);
	e_error(b, "A");
	c->a_first = e_begin(b, IPPROTO_UDP, 0);
	e_match(b, "udp", 0, &udp, sizeof(udp));
	e_verdict(b, V_DROP);
	c->a_jump = e_begin(b, IPPROTO_TCP, 0);
	e_match(b, "multiport", 1, &mp, sizeof(mp));
	e_verdict(b, 0);
	e_begin(b, 0, 0);
	e_verdict(b, XT_RETURN);

	b_head = e_begin(b, 0, 0);
	e_error(b, "B");
	c->b_first = e_begin(b, IPPROTO_TCP, 0);
	tcp_match(b, 443);
	e_verdict(b, V_ACCEPT);
	off = e_begin(b, IPPROTO_UDP, 0);
	E(b, off)->ip.invflags = IPT_INV_PROTO;
	e_verdict(b, XT_RETURN);
	e_begin(b, 0, 0);
	e_verdict(b, XT_RETURN);
	tb_finish(b);

	(void)a_head;
	(void)b_head;
	set_verdict(b, c->in_jump, c->a_first);
	set_verdict(b, in_goto, c->b_first);
	set_verdict(b, c->a_jump, c->b_first);
}

/* ---- SET_REPLACE ---- */

static struct xt_counters *old_counters;	/* what the last replace returned */

/* Send b (its header and its len bytes of entries), declared len. */
static int replace_len(struct tb *b, size_t copy, socklen_t len)
{
	size_t n = b->r.num_counters < 1000000 ? b->r.num_counters : 0;
	unsigned char *req = malloc(sizeof(b->r) + b->len + 1);
	int err;

	if (!req)
		die("out of memory");
	free(old_counters);
	old_counters = calloc(n + 1, sizeof(*old_counters));
	if (!old_counters)
		die("out of memory");
	b->r.counters = old_counters;
	memcpy(req, &b->r, sizeof(b->r));
	memcpy(req + sizeof(b->r), b->buf, b->len);
	err = set_raw(IPT_SO_SET_REPLACE, req, copy, len);
	free(req);
	if (!err)
		cur_number = b->r.num_entries;
	return err;
}

static int replace(struct tb *b)
{
	size_t len = sizeof(b->r) + b->len;

	return replace_len(b, len, len);
}

static struct snap start;

/* Put the table read at start back. */
static int restore_start(void)
{
	static struct tb b;

	tb_reset(&b);
	memcpy(b.r.name, start.info.name, sizeof(b.r.name));
	b.r.valid_hooks = start.info.valid_hooks;
	memcpy(b.r.hook_entry, start.info.hook_entry, sizeof(b.r.hook_entry));
	memcpy(b.r.underflow, start.info.underflow, sizeof(b.r.underflow));
	b.r.num_entries = start.info.num_entries;
	b.r.size = start.info.size;
	b.r.num_counters = cur_number;
	if (start.info.size > sizeof(b.buf))
		die("table too big to restore");
	memcpy(b.buf, start.entries, start.info.size);
	b.len = start.info.size;
	return replace(&b);
}

/* A case that replaced the table by mistake puts the start table back. */
static void case_replace_len(const char *name, struct tb *b, size_t copy,
			     socklen_t len)
{
	int err = replace_len(b, copy, len);

	result(name, err);
	if (!err) {
		char n[96];

		snprintf(n, sizeof(n), "%s_undo", name);
		result(n, restore_start());
	}
}

static void case_replace(const char *name, struct tb *b)
{
	size_t len = sizeof(b->r) + b->len;

	case_replace_len(name, b, len, len);
}

/*
 * A valid replace whose counters pointer is not writable: netfilter
 * replaces the table and only warns that it could not copy the counters
 * back.  The case says the errno and whether the table was replaced.
 */
static void bad_counters_ptr_case(void)
{
	static struct tb b;
	size_t len;
	unsigned char *req;
	struct snap s;
	int err, applied = 0;

	build_rule(&b, R_TCP);
	b.r.counters = (struct xt_counters *)16;	/* never mapped */
	len = sizeof(b.r) + b.len;
	req = malloc(len);
	if (!req)
		die("out of memory");
	memcpy(req, &b.r, sizeof(b.r));
	memcpy(req + sizeof(b.r), b.buf, b.len);
	err = set_raw(IPT_SO_SET_REPLACE, req, len, len);
	free(req);
	if (!read_table("filter", &s)) {
		applied = s.info.num_entries == b.r.num_entries;
		free(s.entries);
	}
	if (applied)
		cur_number = b.r.num_entries;
	printf("replace_counters_ptr_unmapped %s %s\n", errname(err),
	       applied ? "applied" : "not-applied");
	if (applied)
		result("replace_counters_ptr_unmapped_undo", restore_start());
}

static void set_replace_cases(void)
{
	static struct tb b;
	struct chains c;
	size_t r, len;

	build_filter(&b);
	len = sizeof(b.r) + b.len;
	case_replace_len("replace_len_short", &b, sizeof(b.r) - 1, sizeof(b.r) - 1);
	case_replace_len("replace_len_header_only", &b, sizeof(b.r), sizeof(b.r));
	case_replace_len("replace_len_lt_size", &b, len - 8, len - 8);
	case_replace_len("replace_buffer_unmapped_tail", &b, len - 8, len);
	case_replace_len("replace_buffer_unmapped_header", &b, sizeof(b.r) - 8, len);

	build_filter(&b);
	b.r.num_counters = 0;
	case_replace("replace_num_counters_0", &b);
	b.r.num_counters = INT_MAX / sizeof(struct xt_counters);
	case_replace("replace_num_counters_huge", &b);
	b.r.num_counters = cur_number + 1;
	case_replace("replace_num_counters_mismatch", &b);

	build_filter(&b);
	b.r.size = 0x7fffffff;
	case_replace("replace_size_huge", &b);
	/* the length claims it all: refused before anything is copied */
	b.r.size = 0x70000000;
	case_replace_len("replace_size_huge_len_claims_it", &b,
			 sizeof(b.r) + b.len, sizeof(b.r) + b.r.size);
	b.r.size = b.len;
	b.r.size = 0;
	case_replace_len("replace_size_0", &b, sizeof(b.r), sizeof(b.r));
	b.r.num_entries = 0;
	case_replace_len("replace_size_0_no_entries", &b, sizeof(b.r), sizeof(b.r));

	build_filter(&b);
	b.r.num_entries++;
	case_replace("replace_num_entries_more", &b);
	b.r.num_entries -= 2;
	case_replace("replace_num_entries_less", &b);
	b.r.num_entries = 0x40000000;
	case_replace("replace_num_entries_huge", &b);

	/* entry layout: r is the INPUT rule -p tcp --dport 22 -j ACCEPT */
	r = build_rule(&b, R_TCP);
	E(&b, r)->next_offset += 4;
	case_replace("entry_next_offset_misaligned", &b);
	r = build_rule(&b, R_TCP);
	E(&b, r)->next_offset = sizeof(struct ipt_entry) + sizeof(struct xt_entry_target) - 8;
	case_replace("entry_next_offset_too_small", &b);
	build_filter(&b);
	E(&b, b.r.size - 176)->next_offset += 8;	/* the ERROR entry */
	case_replace("entry_next_offset_past_end", &b);
	r = build_rule(&b, R_TCP);
	E(&b, r)->target_offset = E(&b, r)->next_offset + 8;
	case_replace("entry_target_offset_past_next", &b);
	r = build_rule(&b, R_TCP);
	E(&b, r)->target_offset = sizeof(struct ipt_entry) - 8;
	case_replace("entry_target_offset_in_header", &b);
	r = build_rule(&b, R_TCP);
	T(&b, r)->u.target_size += 8;
	case_replace("entry_target_size_past_next", &b);
	r = build_rule(&b, R_TCP);
	T(&b, r)->u.target_size = 8;
	case_replace("entry_target_size_too_small", &b);
	r = build_rule(&b, R_TCP);
	M(&b, r)->u.match_size = 0;
	case_replace("match_size_zero", &b);
	r = build_rule(&b, R_TCP);
	M(&b, r)->u.match_size += 8;
	case_replace("match_size_past_target", &b);
	r = build_rule(&b, R_TCP);
	E(&b, r)->ip.flags = 0x80;
	case_replace("ip_flags_bad", &b);
	r = build_rule(&b, R_TCP);
	E(&b, r)->ip.invflags = 0x80;
	case_replace("ip_invflags_bad", &b);

	/* hooks */
	build_filter(&b);
	b.r.hook_entry[NF_INET_LOCAL_IN] = 8;
	case_replace("hook_entry_not_on_entry", &b);
	r = build_rule(&b, R_TCP);
	b.r.underflow[NF_INET_LOCAL_IN] = r;
	case_replace("underflow_conditional", &b);
	build_filter(&b);
	set_verdict(&b, b.r.underflow[NF_INET_LOCAL_IN], XT_RETURN);
	case_replace("underflow_return", &b);
	build_filter(&b);
	set_verdict(&b, b.r.underflow[NF_INET_LOCAL_IN], V_QUEUE);
	case_replace("underflow_queue", &b);
	build_filter(&b);
	b.r.hook_entry[NF_INET_LOCAL_IN] = b.r.hook_entry[NF_INET_FORWARD];
	b.r.underflow[NF_INET_LOCAL_IN] = b.r.underflow[NF_INET_FORWARD];
	b.r.hook_entry[NF_INET_FORWARD] = b.r.underflow[NF_INET_FORWARD] = 0;
	case_replace("hooks_unsorted", &b);
	build_filter(&b);
	b.r.valid_hooks &= ~HOOK_BIT(NF_INET_FORWARD);
	case_replace("valid_hooks_missing_forward", &b);
	build_filter(&b);
	b.r.valid_hooks |= HOOK_BIT(NF_INET_PRE_ROUTING);
	case_replace("valid_hooks_extra_prerouting", &b);

	/* verdicts and jumps */
	r = build_rule(&b, R_TCP);
	set_verdict(&b, r, -10);
	case_replace("verdict_minus_10", &b);
	r = build_rule(&b, R_TCP);
	set_verdict(&b, r, 0);
	case_replace("verdict_zero", &b);
	build_chains(&b, &c);
	set_verdict(&b, c.in_jump, c.a_first + 8);
	case_replace("jump_into_entry", &b);
	build_chains(&b, &c);
	set_verdict(&b, c.in_jump, b.len);
	case_replace("jump_past_end", &b);
	build_chains(&b, &c);
	set_verdict(&b, c.in_jump, 0x7ffffff0);
	case_replace("jump_far_past_end", &b);
	build_chains(&b, &c);
	set_verdict(&b, c.a_first, c.a_first);
	case_replace("jump_self", &b);
	build_chains(&b, &c);
	set_verdict(&b, c.b_first, c.a_first);
	case_replace("loop_a_b_a", &b);

	/* extensions */
	build_rule(&b, R_MATCH_UNKNOWN);
	case_replace("match_unknown", &b);
	build_rule(&b, R_TARGET_UNKNOWN);
	case_replace("target_unknown", &b);
	build_rule(&b, R_MATCH_NO_NUL);
	case_replace("match_name_no_nul", &b);
	build_rule(&b, R_TARGET_NO_NUL);
	case_replace("target_name_no_nul", &b);
	build_rule(&b, R_MULTIPORT0);
	case_replace("multiport_rev0", &b);
	build_rule(&b, R_MULTIPORT_COUNT16);
	case_replace("multiport_count_16", &b);
	build_rule(&b, R_TCP_REV1);
	case_replace("tcp_rev1", &b);
	build_rule(&b, R_TCP_NOPROTO);
	case_replace("tcp_without_proto", &b);
	build_rule(&b, R_TCP_INVFLAGS);
	case_replace("tcp_invflags_bad", &b);
	build_rule(&b, R_UDP_BADSIZE);
	case_replace("udp_matchsize_wrong", &b);
	build_rule(&b, R_LOG);
	case_replace("target_LOG", &b);
	build_rule(&b, R_REJECT);
	case_replace("target_REJECT", &b);
	build_rule(&b, R_STATE);
	case_replace("match_state", &b);
	build_rule(&b, R_CONNTRACK);
	case_replace("match_conntrack", &b);
	build_rule(&b, R_LIMIT);
	case_replace("match_limit", &b);

	/* table names */
	build_filter(&b);
	snprintf(b.r.name, sizeof(b.r.name), "nat");
	case_replace("table_nat", &b);
	snprintf(b.r.name, sizeof(b.r.name), "bogus");
	case_replace("table_bogus", &b);
	memset(b.r.name, 'x', sizeof(b.r.name));
	memcpy(b.r.name, "filter", 6);
	case_replace("table_name_no_nul", &b);

	bad_counters_ptr_case();
}

/* Valid replaces: each leaves the table as it was at start, or restores it. */
static void valid_cases(void)
{
	static struct tb b;
	struct snap s;
	struct chains c;
	int err;

	result("replace_valid_unchanged", restore_start());

	build_filter(&b);
	case_replace("replace_valid_fresh_filter", &b);

	/* accepted by netfilter: a rule with the QUEUE verdict */
	build_rule(&b, R_TCP);
	set_verdict(&b, b.r.hook_entry[NF_INET_LOCAL_IN], V_QUEUE);
	case_replace("verdict_queue", &b);
	build_rule(&b, R_COMMENT_NO_NUL);
	case_replace("comment_no_nul", &b);

	/* the chains table: replace, read back, add counters, restore */
	build_chains(&b, &c);
	err = replace(&b);
	result("replace_valid_chains", err);
	if (err)
		return;
	err = read_table("filter", &s);
	if (!err) {
		/* same bytes except counters and comefrom */
		for (size_t off = 0; off < b.len && !err;
		     off += E(&b, off)->next_offset) {
			struct ipt_entry *got = (void *)(s.entries + off);

			got->comefrom = 0;
			memset(&got->counters, 0, sizeof(got->counters));
		}
		if (s.info.size != b.len || memcmp(s.entries, b.buf, b.len) ||
		    s.info.num_entries != b.r.num_entries ||
		    s.info.valid_hooks != b.r.valid_hooks ||
		    memcmp(s.info.hook_entry, b.r.hook_entry, sizeof(s.info.hook_entry)) ||
		    memcmp(s.info.underflow, b.r.underflow, sizeof(s.info.underflow)))
			err = -1;
		free(s.entries);
	}
	printf("chains_readback %s\n", err < 0 ? "mismatch" : errname(err));

	/* counters: entry i gets (i + 1, 100 * (i + 1)) */
	{
		unsigned int n = b.r.num_entries;
		size_t len = sizeof(struct xt_counters_info) + n * sizeof(struct xt_counters);
		struct xt_counters_info *ci = calloc(1, len);
		unsigned int i = 0;

		if (!ci)
			die("out of memory");
		snprintf(ci->name, sizeof(ci->name), "filter");
		ci->num_counters = n;
		for (i = 0; i < n; i++) {
			ci->counters[i].pcnt = i + 1;
			ci->counters[i].bcnt = 100 * (i + 1);
		}
		result("add_counters_chains", set_raw(IPT_SO_SET_ADD_COUNTERS, ci, len, len));
		err = read_table("filter", &s);
		if (!err) {
			size_t off;

			for (off = 0, i = 0; off < s.info.size && !err;
			     off += ((struct ipt_entry *)(s.entries + off))->next_offset, i++) {
				struct ipt_entry *e = (void *)(s.entries + off);

				if (e->counters.pcnt != i + 1 ||
				    e->counters.bcnt != 100 * (i + 1))
					err = -1;
			}
			free(s.entries);
		}
		printf("chains_counters_readback %s\n", err < 0 ? "mismatch" : errname(err));
		result("restore_after_chains", restore_start());
		err = 0;
		for (i = 0; i < n; i++)
			if (old_counters[i].pcnt != i + 1 ||
			    old_counters[i].bcnt != 100 * (i + 1))
				err = -1;
		printf("replace_returned_old_counters %s\n", err ? "mismatch" : "ok");
		free(ci);
	}
}

/* ---- SET_ADD_COUNTERS ---- */

static void add_counters_cases(void)
{
	unsigned int n = cur_number;
	size_t len = sizeof(struct xt_counters_info) + n * sizeof(struct xt_counters);
	struct xt_counters_info *ci = calloc(1, len + sizeof(struct xt_counters));

	if (!ci)
		die("out of memory");
	snprintf(ci->name, sizeof(ci->name), "filter");
	ci->num_counters = n;
	result("add_counters_len_short",
	       set_raw(IPT_SO_SET_ADD_COUNTERS, ci, sizeof(*ci) - 1, sizeof(*ci) - 1));
	ci->num_counters = 0;
	result("add_counters_len_header_only",
	       set_raw(IPT_SO_SET_ADD_COUNTERS, ci, sizeof(*ci), sizeof(*ci)));
	ci->num_counters = n + 1;
	result("add_counters_num_mismatch",
	       set_raw(IPT_SO_SET_ADD_COUNTERS, ci, len + sizeof(struct xt_counters),
		       len + sizeof(struct xt_counters)));
	ci->num_counters = n;
	result("add_counters_len_disagrees",
	       set_raw(IPT_SO_SET_ADD_COUNTERS, ci, len - 8, len - 8));
	ci->num_counters = n - 1;
	result("add_counters_len_disagrees_2",
	       set_raw(IPT_SO_SET_ADD_COUNTERS, ci, len, len));
	ci->num_counters = 0x10000000;
	result("add_counters_num_huge",
	       set_raw(IPT_SO_SET_ADD_COUNTERS, ci, len, len));
	ci->num_counters = n;
	snprintf(ci->name, sizeof(ci->name), "bogus");
	result("add_counters_unknown_table",
	       set_raw(IPT_SO_SET_ADD_COUNTERS, ci, len, len));
	snprintf(ci->name, sizeof(ci->name), "filter");
	result("add_counters_buffer_unmapped_tail",
	       set_raw(IPT_SO_SET_ADD_COUNTERS, ci, len - 8, len));
	result("add_counters_valid_zero",
	       set_raw(IPT_SO_SET_ADD_COUNTERS, ci, len, len));
	free(ci);
}

/* ---- GET_INFO, GET_ENTRIES, GET_REVISION ---- */

static void get_cases(void)
{
	struct ipt_getinfo gi = { .name = "filter" };
	struct ipt_get_entries ge = { .name = "filter" };
	struct xt_get_revision rev;
	unsigned int size = start.info.size;

	result("get_info_len_short", get_raw(IPT_SO_GET_INFO, &gi, sizeof(gi), NULL, sizeof(gi) - 1));
	result("get_info_len_long", get_raw(IPT_SO_GET_INFO, &gi, sizeof(gi), NULL, sizeof(gi) + 1));
	result("get_info_len_zero", get_raw(IPT_SO_GET_INFO, &gi, sizeof(gi), NULL, 0));
	result("get_info_valid", get_raw(IPT_SO_GET_INFO, &gi, sizeof(gi), NULL, sizeof(gi)));
	result("get_info_buffer_unmapped_tail",
	       get_short(IPT_SO_GET_INFO, &gi, sizeof(gi), NULL, sizeof(gi) - 8, sizeof(gi)));
	snprintf(gi.name, sizeof(gi.name), "bogus");
	result("get_info_unknown_table", get_raw(IPT_SO_GET_INFO, &gi, sizeof(gi), NULL, sizeof(gi)));
	snprintf(gi.name, sizeof(gi.name), "nat");
	result("get_info_nat", get_raw(IPT_SO_GET_INFO, &gi, sizeof(gi), NULL, sizeof(gi)));
	snprintf(gi.name, sizeof(gi.name), "mangle");
	result("get_info_mangle", get_raw(IPT_SO_GET_INFO, &gi, sizeof(gi), NULL, sizeof(gi)));
	memset(gi.name, 'x', sizeof(gi.name));
	memcpy(gi.name, "filter", 6);
	result("get_info_name_no_nul", get_raw(IPT_SO_GET_INFO, &gi, sizeof(gi), NULL, sizeof(gi)));

	ge.size = size;
	result("get_entries_len_short", get_raw(IPT_SO_GET_ENTRIES, &ge, sizeof(ge), NULL, sizeof(ge) - 1));
	result("get_entries_len_header_only", get_raw(IPT_SO_GET_ENTRIES, &ge, sizeof(ge), NULL, sizeof(ge)));
	result("get_entries_len_gt_size", get_raw(IPT_SO_GET_ENTRIES, &ge, sizeof(ge), NULL, sizeof(ge) + size + 8));
	result("get_entries_len_lt_size", get_raw(IPT_SO_GET_ENTRIES, &ge, sizeof(ge), NULL, sizeof(ge) + size - 8));
	ge.size = size - 8;
	result("get_entries_size_smaller", get_raw(IPT_SO_GET_ENTRIES, &ge, sizeof(ge), NULL, sizeof(ge) + size - 8));
	ge.size = size + 8;
	result("get_entries_size_bigger", get_raw(IPT_SO_GET_ENTRIES, &ge, sizeof(ge), NULL, sizeof(ge) + size + 8));
	ge.size = 0;
	result("get_entries_size_zero", get_raw(IPT_SO_GET_ENTRIES, &ge, sizeof(ge), NULL, sizeof(ge)));
	ge.size = size;
	snprintf(ge.name, sizeof(ge.name), "bogus");
	result("get_entries_unknown_table", get_raw(IPT_SO_GET_ENTRIES, &ge, sizeof(ge), NULL, sizeof(ge) + size));
	snprintf(ge.name, sizeof(ge.name), "filter");
	result("get_entries_buffer_unmapped_tail",
	       get_short(IPT_SO_GET_ENTRIES, &ge, sizeof(ge), NULL, sizeof(ge) + size - 8,
			 sizeof(ge) + size));
	result("get_entries_valid", get_raw(IPT_SO_GET_ENTRIES, &ge, sizeof(ge), NULL, sizeof(ge) + size));

	static const struct {
		const char *name;
		int opt;
		const char *ext;
		uint8_t rev;
	} revs[] = {
		{ "rev_match_tcp_0", IPT_SO_GET_REVISION_MATCH, "tcp", 0 },
		{ "rev_match_tcp_1", IPT_SO_GET_REVISION_MATCH, "tcp", 1 },
		{ "rev_match_udp_0", IPT_SO_GET_REVISION_MATCH, "udp", 0 },
		{ "rev_match_icmp_0", IPT_SO_GET_REVISION_MATCH, "icmp", 0 },
		{ "rev_match_multiport_0", IPT_SO_GET_REVISION_MATCH, "multiport", 0 },
		{ "rev_match_multiport_1", IPT_SO_GET_REVISION_MATCH, "multiport", 1 },
		{ "rev_match_multiport_2", IPT_SO_GET_REVISION_MATCH, "multiport", 2 },
		{ "rev_match_comment_0", IPT_SO_GET_REVISION_MATCH, "comment", 0 },
		{ "rev_match_state_0", IPT_SO_GET_REVISION_MATCH, "state", 0 },
		{ "rev_match_conntrack_3", IPT_SO_GET_REVISION_MATCH, "conntrack", 3 },
		{ "rev_match_bogus_0", IPT_SO_GET_REVISION_MATCH, "bogusmatch", 0 },
		{ "rev_target_standard_0", IPT_SO_GET_REVISION_TARGET, "", 0 },
		{ "rev_target_ERROR_0", IPT_SO_GET_REVISION_TARGET, "ERROR", 0 },
		{ "rev_target_LOG_0", IPT_SO_GET_REVISION_TARGET, "LOG", 0 },
		{ "rev_target_REJECT_0", IPT_SO_GET_REVISION_TARGET, "REJECT", 0 },
		{ "rev_target_tcp_0", IPT_SO_GET_REVISION_TARGET, "tcp", 0 },
	};
	for (size_t i = 0; i < sizeof(revs) / sizeof(revs[0]); i++) {
		memset(&rev, 0, sizeof(rev));
		snprintf(rev.name, sizeof(rev.name), "%s", revs[i].ext);
		rev.revision = revs[i].rev;
		result(revs[i].name, get_raw(revs[i].opt, &rev, sizeof(rev), NULL, sizeof(rev)));
	}
	memset(&rev, 0, sizeof(rev));
	snprintf(rev.name, sizeof(rev.name), "tcp");
	result("rev_len_short", get_raw(IPT_SO_GET_REVISION_MATCH, &rev, sizeof(rev), NULL, sizeof(rev) - 1));
	result("rev_len_long", get_raw(IPT_SO_GET_REVISION_MATCH, &rev, sizeof(rev), NULL, sizeof(rev) + 1));
	result("rev_target_len_short", get_raw(IPT_SO_GET_REVISION_TARGET, &rev, sizeof(rev), NULL, sizeof(rev) - 1));
	memset(rev.name, 'a', sizeof(rev.name));
	result("rev_match_name_no_nul", get_raw(IPT_SO_GET_REVISION_MATCH, &rev, sizeof(rev), NULL, sizeof(rev)));

	/* option numbers around the range (get 64..67, set 64..65) */
	unsigned char junk[256] = { 0 };

	result("get_opt_63", get_raw(IPT_BASE_CTL - 1, junk, sizeof(junk), NULL, sizeof(junk)));
	result("get_opt_68", get_raw(IPT_SO_GET_MAX + 1, junk, sizeof(junk), NULL, sizeof(junk)));
	result("set_opt_63", set_raw(IPT_BASE_CTL - 1, junk, sizeof(junk), sizeof(junk)));
	result("set_opt_66", set_raw(IPT_SO_SET_MAX + 1, junk, sizeof(junk), sizeof(junk)));
	result("set_opt_67", set_raw(IPT_SO_SET_MAX + 2, junk, sizeof(junk), sizeof(junk)));
}

/* Compare with the table read at start; say what differs. */
static void final_check(void)
{
	struct snap end;
	int err = read_table("filter", &end);

	if (err) {
		printf("final_table %s\n", errname(err));
		return;
	}
	if (memcmp(&end.info, &start.info, sizeof(end.info))) {
		printf("final_table changed (info: %u entries, %u bytes; was %u, %u)\n",
		       end.info.num_entries, end.info.size,
		       start.info.num_entries, start.info.size);
	} else if (memcmp(end.entries, start.entries, start.info.size)) {
		size_t off = 0;

		while (end.entries[off] == start.entries[off])
			off++;
		printf("final_table changed (entries differ at byte %zu)\n", off);
	} else {
		printf("final_table unchanged\n");
	}
	free(end.entries);
}

static void initial_check(void)
{
	static struct tb b;
	int same;

	build_filter(&b);
	/* comefrom as translation leaves it: each policy its hook's bit */
	E(&b, b.r.hook_entry[NF_INET_LOCAL_IN])->comefrom = HOOK_BIT(NF_INET_LOCAL_IN);
	E(&b, b.r.hook_entry[NF_INET_FORWARD])->comefrom = HOOK_BIT(NF_INET_FORWARD);
	E(&b, b.r.hook_entry[NF_INET_LOCAL_OUT])->comefrom = HOOK_BIT(NF_INET_LOCAL_OUT);
	same = start.info.size == b.len && start.info.num_entries == b.r.num_entries &&
	       start.info.valid_hooks == b.r.valid_hooks &&
	       !memcmp(start.info.hook_entry, b.r.hook_entry, sizeof(b.r.hook_entry)) &&
	       !memcmp(start.info.underflow, b.r.underflow, sizeof(b.r.underflow)) &&
	       !memcmp(start.entries, b.buf, b.len);
	printf("initial_table_is_fresh_filter %s\n", same ? "ok" : "mismatch");
}

static void perm_cases(void)
{
	static struct tb b;
	struct ipt_getinfo gi = { .name = "filter" };
	struct ipt_get_entries ge = { .name = "filter", .size = 632 };
	struct xt_get_revision rev = { .name = "tcp" };
	struct {
		struct xt_counters_info ci;
		struct xt_counters c[4];
	} ac = { .ci = { .name = "filter", .num_counters = 4 } };

	result("perm_get_info", get_raw(IPT_SO_GET_INFO, &gi, sizeof(gi), NULL, sizeof(gi)));
	result("perm_get_entries", get_raw(IPT_SO_GET_ENTRIES, &ge, sizeof(ge), NULL, sizeof(ge) + 632));
	result("perm_get_revision", get_raw(IPT_SO_GET_REVISION_MATCH, &rev, sizeof(rev), NULL, sizeof(rev)));
	cur_number = 4;
	build_filter(&b);
	case_replace("perm_set_replace", &b);
	result("perm_add_counters", set_raw(IPT_SO_SET_ADD_COUNTERS, &ac, sizeof(ac), sizeof(ac)));
}

/* A system call through the i386 entry; -errno on failure. */
static long i386_call(long nr, long a, long b, long c, long d, long e)
{
#ifdef __x86_64__
	__asm__ volatile("int $0x80" : "+a"(nr)
			 : "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "r8", "r9", "r10", "r11", "memory");
	return nr;
#else
	(void)nr; (void)a; (void)b; (void)c; (void)d; (void)e;
	return -ENOSYS;
#endif
}

/* int 0x80 faulted: the kernel has no i386 entry. */
static void compat_fault(int sig)
{
	(void)sig;
	_exit(3);
}

/*
 * In a child, as int 0x80 raises SIGSEGV where the kernel has no i386
 * entry (handled, so that the kernel logs no unhandled fault): getpid
 * through it must answer the pid, then GET_INFO and ADD_COUNTERS (365 and
 * 366 are getsockopt and setsockopt there) from buffers below 4 GiB.
 */
static void compat_cases(int probe_only)
{
	struct {
		struct ipt_getinfo gi;
		socklen_t len;
		struct xt_counters_info ci;
		struct xt_counters c[4];
	} *m;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		struct sigaction sa = { .sa_handler = compat_fault };

		if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL))
			die("sigaction");
		if (i386_call(20, 0, 0, 0, 0, 0) != getpid()) {
			printf("compat_skip int 0x80 getpid does not answer the pid\n");
			exit(0);
		}
		if (probe_only) {
			printf("compat_ok\n");
			exit(0);
		}
		m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		if (m == MAP_FAILED)
			die("mmap MAP_32BIT");
		strcpy(m->gi.name, "filter");
		m->len = sizeof(m->gi);
		result("compat_get_info",
		       (int)-i386_call(365, sock, IPPROTO_IP, IPT_SO_GET_INFO,
				       (long)&m->gi, (long)&m->len));
		strcpy(m->ci.name, "filter");
		m->ci.num_counters = 4;
		result("compat_add_counters",
		       (int)-i386_call(366, sock, IPPROTO_IP,
				       IPT_SO_SET_ADD_COUNTERS, (long)&m->ci,
				       sizeof(m->ci) + sizeof(m->c)));
		exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		printf("compat_skip int 0x80 raised SIGSEGV: this kernel has no i386 system call entry\n");
	else if (WIFSIGNALED(status))
		printf("compat_skip int 0x80 raised signal %d\n", WTERMSIG(status));
}

/*
 * xlated_prog_len of the loaded BPF program named "bpfilter" (the largest,
 * if the one replaced is not freed yet), or 0
 */
static unsigned long bpfilter_xlated(void)
{
	unsigned long max = 0;
	union bpf_attr a;
	__u32 id = 0;

	for (;;) {
		struct bpf_prog_info info;
		unsigned long len;
		int fd;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (syscall(__NR_bpf, BPF_PROG_GET_NEXT_ID, &a, sizeof(a)))
			return max;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.prog_id = id;
		fd = syscall(__NR_bpf, BPF_PROG_GET_FD_BY_ID, &a, sizeof(a));
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = fd;
		a.info.info_len = sizeof(info);
		a.info.info = (__u64)(unsigned long)&info;
		len = syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)) ?
		      0 : info.xlated_prog_len;
		close(fd);
		if (len > max && !strcmp(info.name, "bpfilter"))
			max = len;
	}
}

int main(int argc, char **argv)
{
	int err;

	sock = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (sock < 0) {
		fprintf(stderr, "ipt_raw: socket(AF_INET, SOCK_RAW, IPPROTO_RAW): %s\n",
			strerror(errno));
		return 2;
	}
	if (argc > 1 && !strcmp(argv[1], "perm")) {
		perm_cases();
		return 0;
	}
	if (argc > 1 && (!strcmp(argv[1], "compat") ||
			 !strcmp(argv[1], "compat_probe"))) {
		compat_cases(!strcmp(argv[1], "compat_probe"));
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "info")) {
		struct ipt_getinfo gi = { .name = "filter" };

		err = get_raw(IPT_SO_GET_INFO, &gi, sizeof(gi), &gi, sizeof(gi));
		if (err) {
			printf("get_info %s\n", errname(err));
			return 1;
		}
		/* what the table's IPT_SO_SET_REPLACE carries */
		printf("size %u entries %u replace %zu xlated %lu\n", gi.size,
		       gi.num_entries, sizeof(struct ipt_replace),
		       bpfilter_xlated());
		return 0;
	}
	if (argc > 1)
		die("usage: ipt_raw [perm | compat | compat_probe | info]");
	err = read_table("filter", &start);
	if (err) {
		printf("read_table %s\n", errname(err));
		return 1;
	}
	cur_number = start.info.num_entries;
	initial_check();
	set_replace_cases();
	valid_cases();
	add_counters_cases();
	get_cases();
	final_check();
	return 0;
}
