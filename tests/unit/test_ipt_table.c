// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the bpfilter sample's table model
 * (samples/bpfilter/ipt_table.c): the initial filter table, tables using
 * every supported feature, the GET_ENTRIES form, each check of
 * translate_table() with the errno Linux 6.1 returns, revision queries,
 * robustness against random mutations, and big tables.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "../../samples/bpfilter/ipt_table.h"
#include "tap.h"

#define HOOKS_FILTER	((1U << NF_INET_LOCAL_IN) | (1U << NF_INET_FORWARD) | \
			 (1U << NF_INET_LOCAL_OUT))
#define EHDR		sizeof(struct ipt_entry)
#define OHDR		sizeof(struct xt_entry_target)
#define STD_SIZE	XT_ALIGN(EHDR + sizeof(struct xt_standard_target))
#define ERR_SIZE	XT_ALIGN(EHDR + sizeof(struct xt_error_target))
#define V_ACCEPT	(-NF_ACCEPT - 1)
#define V_DROP		(-NF_DROP - 1)

/* ---- blob builder ---- */

struct bld {
	unsigned char *buf;
	unsigned int cap;
	unsigned int size;	/* bytes written */
	unsigned int cur;	/* offset of the entry being built */
	unsigned int n;
	/* a pointer: ISO C forbids a member ending in a flexible array */
	struct ipt_replace *repl;
};

static void b_init(struct bld *b)
{
	memset(b, 0, sizeof(*b));
	b->repl = calloc(1, sizeof(*b->repl));
	if (!b->repl)
		abort();
	strcpy(b->repl->name, "filter");
	b->repl->valid_hooks = HOOKS_FILTER;
	memset(b->repl->hook_entry, 0xFF, sizeof(b->repl->hook_entry));
	memset(b->repl->underflow, 0xFF, sizeof(b->repl->underflow));
	b->repl->num_counters = 1;
}

static unsigned char *b_grow(struct bld *b, unsigned int len)
{
	unsigned char *p;

	while (b->size + len > b->cap) {
		unsigned int ncap = b->cap ? 2 * b->cap : 4096;

		p = realloc(b->buf, ncap);
		if (!p)
			abort();
		memset(p + b->cap, 0, ncap - b->cap);
		b->buf = p;
		b->cap = ncap;
	}
	p = b->buf + b->size;
	memset(p, 0, len);
	b->size += len;
	return p;
}

static struct ipt_entry *b_e(struct bld *b, unsigned int off)
{
	return (struct ipt_entry *)(void *)(b->buf + off);
}

/* Start an entry with @ip (NULL: unconditional); returns its offset. */
static unsigned int b_entry(struct bld *b, const struct ipt_ip *ip)
{
	struct ipt_entry *e;

	b->cur = b->size;
	b_grow(b, EHDR);
	e = b_e(b, b->cur);
	if (ip)
		e->ip = *ip;
	e->target_offset = EHDR;
	b->n++;
	return b->cur;
}

/* A match of @len data bytes in a match_size of @msize (0: aligned). */
static unsigned char *b_match_raw(struct bld *b, const char *name,
				  unsigned int rev, const void *data,
				  unsigned int len, unsigned int msize)
{
	struct xt_entry_match m;
	unsigned char *p;

	if (!msize)
		msize = OHDR + XT_ALIGN(len);
	memset(&m, 0, sizeof(m));
	m.u.user.match_size = msize;
	memcpy(m.u.user.name, name, strnlen(name, sizeof(m.u.user.name)));
	m.u.user.revision = rev;
	p = b_grow(b, msize);
	memcpy(p, &m, sizeof(m));
	if (msize >= OHDR)
		memcpy(p + OHDR, data, len < msize - OHDR ? len :
		       msize - OHDR);
	b_e(b, b->cur)->target_offset = b->size - b->cur;
	return p;
}

static void b_match(struct bld *b, const char *name, unsigned int rev,
		    const void *data, unsigned int len)
{
	b_match_raw(b, name, rev, data, len, 0);
}

/* A target with @len data bytes, target_size @tsize (0: aligned). */
static unsigned char *b_target_raw(struct bld *b, const char *name,
				   unsigned int rev, const void *data,
				   unsigned int len, unsigned int tsize)
{
	struct xt_entry_target t;
	unsigned char *p;

	if (!tsize)
		tsize = OHDR + XT_ALIGN(len);
	memset(&t, 0, sizeof(t));
	t.u.user.target_size = tsize;
	memcpy(t.u.user.name, name, strnlen(name, sizeof(t.u.user.name)));
	t.u.user.revision = rev;
	b_e(b, b->cur)->target_offset = b->size - b->cur;
	p = b_grow(b, XT_ALIGN(tsize));
	memcpy(p, &t, sizeof(t));
	memcpy(p + OHDR, data, len);
	b_e(b, b->cur)->next_offset = b->size - b->cur;
	return p;
}

static void b_std(struct bld *b, int verdict)
{
	b_target_raw(b, XT_STANDARD_TARGET, 0, &verdict, sizeof(verdict), 0);
}

static void b_error(struct bld *b, const char *chain)
{
	char name[XT_FUNCTION_MAXNAMELEN] = { 0 };

	strncpy(name, chain, sizeof(name) - 1);
	b_target_raw(b, XT_ERROR_TARGET, 0, name, sizeof(name), 0);
}

static void b_hook(struct bld *b, unsigned int h, unsigned int entry,
		   unsigned int uflow)
{
	b->repl->hook_entry[h] = entry;
	b->repl->underflow[h] = uflow;
}

static int b_xlate(struct bld *b, struct ipt_table *t, char *why)
{
	b->repl->size = b->size;
	b->repl->num_entries = b->n;
	return ipt_table_translate(b->repl, b->buf, t, why, IPT_TABLE_WHY_LEN);
}

/* translate, expect @want, free; print the reason on a mismatch */
static void expect(struct bld *b, int want, const char *what)
{
	char why[IPT_TABLE_WHY_LEN];
	struct ipt_table t;
	int ret;

	b->repl->size = b->size;
	ret = ipt_table_translate(b->repl, b->buf, &t, why,
				  sizeof(why));
	is(ret, want, "%s", what);
	if (ret != want)
		tap_diag("  why: %s", why);
	if (!ret)
		ipt_table_free(&t);
}

static void b_free(struct bld *b)
{
	free(b->buf);
	free(b->repl);
	b->buf = NULL;
	b->repl = NULL;
}

/*
 * After INPUT's rules starting at @first: INPUT policy ACCEPT, FORWARD
 * and OUTPUT policies ACCEPT, the final ERROR entry.
 */
static void b_tail(struct bld *b, unsigned int first)
{
	unsigned int off;

	off = b_entry(b, NULL);
	b_std(b, V_ACCEPT);
	b_hook(b, NF_INET_LOCAL_IN, first, off);
	off = b_entry(b, NULL);
	b_std(b, V_ACCEPT);
	b_hook(b, NF_INET_FORWARD, off, off);
	off = b_entry(b, NULL);
	b_std(b, V_ACCEPT);
	b_hook(b, NF_INET_LOCAL_OUT, off, off);
	b_entry(b, NULL);
	b_error(b, XT_ERROR_TARGET);
	b->repl->num_entries = b->n;
}

/* The initial filter table: 3 ACCEPT policies and the final ERROR. */
static void b_filter(struct bld *b)
{
	unsigned int h, off;

	b_init(b);
	for (h = NF_INET_LOCAL_IN; h <= NF_INET_LOCAL_OUT; h++) {
		off = b_entry(b, NULL);
		b_std(b, V_ACCEPT);
		b_hook(b, h, off, off);
	}
	b_entry(b, NULL);
	b_error(b, XT_ERROR_TARGET);
	b->repl->num_entries = b->n;
	b->repl->size = b->size;
}

static struct ipt_ip ip_proto(unsigned int proto, int inv)
{
	struct ipt_ip ip;

	memset(&ip, 0, sizeof(ip));
	ip.proto = proto;
	if (inv)
		ip.invflags = IPT_INV_PROTO;
	return ip;
}

/*
 * INPUT:  0 tcp ACCEPT, 1 udp DROP, 2 icmp -> jump A, 3 multiport+comment
 *         -> goto B, 4 ! -s -i RETURN, 5 policy ACCEPT
 * FORWARD: 6 policy DROP
 * OUTPUT: 7 -> jump A, 8 policy ACCEPT
 * A: 9 head, 10 -p tcp -> jump B, 11 RETURN
 * B: 12 head, 13 comment DROP, 14 RETURN
 * 15 ERROR
 */
struct full {
	unsigned int off[16];
};

static void b_full(struct bld *b, struct full *f)
{
	struct xt_tcp tcp = { { 1, 2 }, { 80, 80 }, 3, 0x3f, 0x02,
			      XT_TCP_INV_MASK };
	struct xt_udp udp = { { 53, 53 }, { 0, 65535 }, XT_UDP_INV_MASK };
	struct ipt_icmp icmp = { 8, { 0, 255 }, IPT_ICMP_INV };
	struct xt_multiport_v1 mp;
	struct xt_comment_info cm;
	struct ipt_ip ip;
	unsigned int i = 0;
	unsigned int v10, v2, v3, v7;
	int jA, jB;

	memset(&mp, 0, sizeof(mp));
	mp.flags = XT_MULTIPORT_DESTINATION;
	mp.count = 3;
	mp.ports[0] = 22;
	mp.ports[1] = 80;
	mp.ports[2] = 90;
	mp.pflags[1] = 1;
	mp.invert = 1;
	memset(&cm, 0, sizeof(cm));
	strcpy(cm.comment, "hello");

	b_init(b);
	ip = ip_proto(IPPROTO_TCP, 0);
	f->off[i++] = b_entry(b, &ip);
	b_match(b, "tcp", 0, &tcp, sizeof(tcp));
	b_std(b, V_ACCEPT);

	ip = ip_proto(IPPROTO_UDP, 0);
	f->off[i++] = b_entry(b, &ip);
	b_match(b, "udp", 0, &udp, sizeof(udp));
	b_std(b, V_DROP);

	ip = ip_proto(IPPROTO_ICMP, 0);
	f->off[i++] = b_entry(b, &ip);
	b_match(b, "icmp", 0, &icmp, sizeof(icmp));
	b_std(b, 0);
	v2 = b->size - 8;

	ip = ip_proto(IPPROTO_TCP, 0);
	ip.flags = IPT_F_GOTO;
	f->off[i++] = b_entry(b, &ip);
	b_match(b, "multiport", 1, &mp, sizeof(mp));
	b_match(b, "comment", 0, &cm, sizeof(cm));
	b_std(b, 0);
	v3 = b->size - 8;

	memset(&ip, 0, sizeof(ip));
	ip.src.s_addr = 0x0000000a;	/* 10.0.0.0 */
	ip.smsk.s_addr = 0x000000ff;	/* /8 */
	strcpy(ip.iniface, "eth0");
	memset(ip.iniface_mask, 0xff, 5);
	ip.invflags = IPT_INV_SRCIP | IPT_INV_VIA_IN;
	f->off[i++] = b_entry(b, &ip);
	b_std(b, XT_RETURN);

	f->off[i++] = b_entry(b, NULL);
	b_std(b, V_ACCEPT);
	b_hook(b, NF_INET_LOCAL_IN, f->off[0], f->off[5]);

	f->off[i++] = b_entry(b, NULL);
	b_std(b, V_DROP);
	b_hook(b, NF_INET_FORWARD, f->off[6], f->off[6]);

	f->off[i++] = b_entry(b, NULL);
	b_std(b, 0);
	v7 = b->size - 8;
	f->off[i++] = b_entry(b, NULL);
	b_std(b, V_ACCEPT);
	b_hook(b, NF_INET_LOCAL_OUT, f->off[7], f->off[8]);

	f->off[i++] = b_entry(b, NULL);
	b_error(b, "A");
	ip = ip_proto(IPPROTO_TCP, 0);
	f->off[i++] = b_entry(b, &ip);
	b_std(b, 0);
	v10 = b->size - 8;
	f->off[i++] = b_entry(b, NULL);
	b_std(b, XT_RETURN);

	f->off[i++] = b_entry(b, NULL);
	b_error(b, "B");
	f->off[i++] = b_entry(b, NULL);
	b_match(b, "comment", 0, &cm, sizeof(cm));
	b_std(b, V_DROP);
	f->off[i++] = b_entry(b, NULL);
	b_std(b, XT_RETURN);

	f->off[i++] = b_entry(b, NULL);
	b_error(b, XT_ERROR_TARGET);

	jA = (int)f->off[10];
	jB = (int)f->off[13];
	memcpy(b->buf + v2, &jA, sizeof(jA));
	memcpy(b->buf + v7, &jA, sizeof(jA));
	memcpy(b->buf + v3, &jB, sizeof(jB));
	memcpy(b->buf + v10, &jB, sizeof(jB));
	b->repl->num_entries = b->n;
	b->repl->size = b->size;
}

/* The standard target's verdict of the entry at @off. */
static void set_verdict(struct bld *b, unsigned int off, int v)
{
	struct ipt_entry *e = b_e(b, off);

	memcpy(b->buf + off + e->target_offset + OHDR, &v, sizeof(v));
}

/* ---- tests ---- */

static void test_init_filter(void)
{
	struct ipt_table t;
	struct bld b;
	unsigned char *dump;
	static const unsigned int comefrom[4] = { 2, 4, 8, 0 };
	unsigned int i, off;

	is(STD_SIZE, 152, "struct ipt_standard is 152 bytes");
	is(ERR_SIZE, 176, "struct ipt_error is 176 bytes");
	is(ipt_table_init_filter(&t), 0, "init filter table");
	ok(strcmp(t.name, "filter") == 0, "filter: name");
	is(t.valid_hooks, 0x0e, "filter: valid_hooks INPUT|FORWARD|OUTPUT");
	is(t.number, 4, "filter: 4 entries");
	is(t.size, 3 * 152 + 176, "filter: size 632");
	is(t.hook_entry[NF_INET_LOCAL_IN], 0, "filter: INPUT at 0");
	is(t.hook_entry[NF_INET_FORWARD], 152, "filter: FORWARD at 152");
	is(t.hook_entry[NF_INET_LOCAL_OUT], 304, "filter: OUTPUT at 304");
	is(t.underflow[NF_INET_LOCAL_IN], 0, "filter: INPUT policy at 0");
	is(t.underflow[NF_INET_FORWARD], 152, "filter: FORWARD policy at 152");
	is(t.underflow[NF_INET_LOCAL_OUT], 304, "filter: OUTPUT policy at 304");
	is(t.hook_entry[NF_INET_PRE_ROUTING], 0xFFFFFFFF,
	   "filter: PREROUTING unset");
	is(t.underflow[NF_INET_POST_ROUTING], 0xFFFFFFFF,
	   "filter: POSTROUTING unset");
	for (i = 0, off = 0; i < 4; i++) {
		const struct ipt_entry *e =
			(const void *)((unsigned char *)t.entries + off);

		is(e->comefrom, comefrom[i], "filter: entry %u comefrom", i);
		off += e->next_offset;
	}

	/* byte for byte: what the kernel built from xt_alloc_initial_table */
	b_filter(&b);
	b_e(&b, 0)->comefrom = 2;
	b_e(&b, 152)->comefrom = 4;
	b_e(&b, 304)->comefrom = 8;
	dump = malloc(t.size);
	t.counters[1].pcnt = 7;
	t.counters[1].bcnt = 700;
	ipt_table_dump(&t, dump);
	b_e(&b, 152)->counters.pcnt = 7;
	b_e(&b, 152)->counters.bcnt = 700;
	ok(b.size == t.size && memcmp(dump, b.buf, t.size) == 0,
	   "filter: GET_ENTRIES bytes (with counters)");
	free(dump);
	b_free(&b);
	ipt_table_free(&t);
	ok(t.entries == NULL && t.size == 0, "ipt_table_free zeroes");
}

static void test_full(void)
{
	static const unsigned int comefrom[16] = {
		2, 2, 2, 2, 2, 2, 4, 8, 8, 0, 10, 10, 0, 10, 10, 0
	};
	char why[IPT_TABLE_WHY_LEN];
	struct ipt_table t;
	struct full f;
	struct bld b;
	unsigned char *dump;
	unsigned int i;
	int ret;

	b_full(&b, &f);
	ret = b_xlate(&b, &t, why);
	is(ret, 0, "every supported feature: accepted");
	if (ret) {
		tap_diag("  why: %s", why);
		b_free(&b);
		return;
	}
	is(t.number, 16, "full: 16 entries");
	is(t.size, b.size, "full: size");
	is(t.hook_entry[NF_INET_LOCAL_OUT], f.off[7], "full: OUTPUT entry");
	is(t.underflow[NF_INET_LOCAL_OUT], f.off[8], "full: OUTPUT underflow");
	for (i = 0; i < 16; i++)
		is(((struct ipt_entry *)(void *)((unsigned char *)t.entries +
						  f.off[i]))->comefrom,
		   comefrom[i], "full: entry %u comefrom", i);

	/* round trip: the same bytes but comefrom and counters */
	dump = malloc(t.size);
	for (i = 0; i < 16; i++) {
		b_e(&b, f.off[i])->comefrom = comefrom[i];
		t.counters[i].pcnt = i;
		t.counters[i].bcnt = 1000 + i;
		b_e(&b, f.off[i])->counters = t.counters[i];
	}
	ipt_table_dump(&t, dump);
	ok(memcmp(dump, b.buf, b.size) == 0, "full: dump equals input");

	/* the dump translates again to the same table */
	{
		struct ipt_table t2;

		b.repl->size = t.size;
		ret = ipt_table_translate(b.repl, dump, &t2, why,
					  sizeof(why));
		is(ret, 0, "full: dump translates again");
		if (!ret) {
			ok(memcmp(t2.entries, t.entries, t.size) == 0,
			   "full: second translation identical");
			ipt_table_free(&t2);
		}
	}
	free(dump);
	ipt_table_free(&t);
	b_free(&b);
}

/* Bytes netfilter never writes come back as zero; the rest as given. */
static void test_normalise(void)
{
	struct xt_tcp tcp = { { 0, 65535 }, { 22, 22 }, 0, 0, 0, 0 };
	struct ipt_table t;
	struct ipt_ip ip = ip_proto(IPPROTO_TCP, 0);
	unsigned char *m, *st, *dump, *copy;
	struct ipt_entry *ce;
	unsigned int off, eoff;
	struct bld b;
	int ret;

	b_init(&b);
	off = b_entry(&b, &ip);
	m = b_match_raw(&b, "tcp", 0, &tcp, sizeof(tcp), 0);
	b_std(&b, V_ACCEPT);
	b_hook(&b, NF_INET_LOCAL_IN, off, b.size);
	off = b_entry(&b, NULL);
	b_std(&b, V_ACCEPT);
	off = b_entry(&b, NULL);
	b_std(&b, V_ACCEPT);
	b_hook(&b, NF_INET_FORWARD, off, off);
	off = b_entry(&b, NULL);
	st = b_target_raw(&b, "", 0, (int[]){ V_ACCEPT }, 4, 0);
	b_hook(&b, NF_INET_LOCAL_OUT, off, off);
	eoff = b_entry(&b, NULL);
	b_error(&b, XT_ERROR_TARGET);
	b_grow(&b, 8);
	b_e(&b, eoff)->next_offset += 8;	/* 8 bytes after ERROR */
	m = b.buf + EHDR;	/* b_grow may have moved the buffer */
	st = b.buf + off + EHDR;

	copy = malloc(b.size);
	memcpy(copy, b.buf, b.size);
	/* garbage where netfilter does not copy */
	memcpy(b.buf + EHDR + 2 + 4, "junk", 4);		/* name tail */
	memset(m + OHDR + sizeof(tcp), 0xAA, XT_ALIGN(sizeof(tcp)) -
	       sizeof(tcp));					/* data pad */
	memset(st + OHDR + 4, 0xBB, 4);			/* verdict pad */
	memset(b.buf + eoff + ERR_SIZE, 0xCC, 8);	/* after ERROR */
	b.buf[eoff + EHDR + OHDR + 20] = 'x';	/* errorname tail: copied */
	copy[eoff + EHDR + OHDR + 20] = 'x';
	(void)st;

	ret = b_xlate(&b, &t, NULL);
	is(ret, 0, "normalise: accepted (8 bytes after the ERROR target)");
	if (!ret) {
		dump = malloc(t.size);
		ipt_table_dump(&t, dump);
		for (off = 0; off < t.size; off += ce->next_offset) {
			ce = (struct ipt_entry *)(void *)(copy + off);
			ce->comefrom = ((struct ipt_entry *)(void *)
					(dump + off))->comefrom;
		}
		ok(memcmp(dump, copy, t.size) == 0,
		   "normalise: name tail, data padding, verdict padding, bytes after the target zeroed; errorname kept");
		free(dump);
		ipt_table_free(&t);
	}
	free(copy);
	b_free(&b);
}

static void test_layout_errors(void)
{
	struct bld b;
	unsigned int off;

	/* entry 1 misaligned: entry 0 is an ERROR entry 4 bytes longer */
	b_init(&b);
	off = b_entry(&b, NULL);
	b_error(&b, "x");
	b_grow(&b, 4);
	b_e(&b, off)->next_offset += 4;
	b_grow(&b, STD_SIZE);	/* never read: its offset is misaligned */
	b.repl->num_entries = 2;
	expect(&b, -EINVAL, "misaligned entry -EINVAL");
	b_free(&b);

	b_filter(&b);
	b.size -= 8;
	expect(&b, -EINVAL, "last entry past the end -EINVAL");
	b.size = 632 - 176 + EHDR;	/* header only at the end */
	b.repl->num_entries = 4;
	expect(&b, -EINVAL, "entry header reaching the end -EINVAL");
	b.size = 632;

	b_e(&b, 152)->next_offset = EHDR + OHDR - 8;
	expect(&b, -EINVAL, "next_offset below entry + target -EINVAL");
	b_e(&b, 152)->next_offset = 0;
	expect(&b, -EINVAL, "next_offset 0 -EINVAL");
	b_e(&b, 152)->next_offset = STD_SIZE;

	b_e(&b, 152)->target_offset = EHDR - 8;
	expect(&b, -EINVAL, "target_offset inside the header -EINVAL");
	b_e(&b, 152)->target_offset = STD_SIZE - 16;
	expect(&b, -EINVAL, "target_offset leaving no room -EINVAL");
	b_e(&b, 152)->target_offset = EHDR;

	((struct xt_entry_target *)(void *)(b.buf + 152 + EHDR))
		->u.target_size = 16;
	expect(&b, -EINVAL, "target_size below the header -EINVAL");
	((struct xt_entry_target *)(void *)(b.buf + 152 + EHDR))
		->u.target_size = 48;
	expect(&b, -EINVAL, "target_size past next_offset -EINVAL");
	((struct xt_entry_target *)(void *)(b.buf + 152 + EHDR))
		->u.target_size = 36;
	expect(&b, -EINVAL,
	       "standard target_size 36 (passes offsets, fails size) -EINVAL");
	((struct xt_entry_target *)(void *)(b.buf + 152 + EHDR))
		->u.target_size = 40;
	expect(&b, 0, "filter blob back to valid");

	b_e(&b, 304)->ip.flags = 0x04;
	expect(&b, -EINVAL, "ip flags outside IPT_F_MASK -EINVAL");
	b_e(&b, 304)->ip.flags = 0;
	b_e(&b, 304)->ip.invflags = 0x80;
	expect(&b, -EINVAL, "ip invflags outside IPT_INV_MASK -EINVAL");
	b_e(&b, 304)->ip.invflags = 0;

	b.repl->size = 0;
	b.size = 0;
	b.repl->num_entries = 0;
	expect(&b, -EINVAL, "size 0, num_entries 0 (hooks unset) -EINVAL");
	b.size = 632;
	b.repl->num_entries = 0;
	expect(&b, -EINVAL, "num_entries 0 -EINVAL");
	b.repl->num_entries = 5;
	expect(&b, -EINVAL, "num_entries 5 for 4 entries -EINVAL");
	b.repl->num_entries = 3;
	expect(&b, -EINVAL, "num_entries 3 for 4 entries -EINVAL");
	b.repl->num_entries = 0xFFFFFFFF;
	expect(&b, -ENOMEM, "num_entries 2^32-1 -ENOMEM (offsets alloc)");
	b.repl->num_entries = 4;

	{
		struct bld e;

		b_init(&e);
		e.repl->valid_hooks = 0;
		expect(&e, 0, "empty table with no hooks: accepted, as netfilter");
		b_free(&e);
	}
	b_free(&b);
}

static void test_match_layout(void)
{
	struct xt_tcp tcp = { { 0, 65535 }, { 0, 65535 }, 0, 0, 0, 0 };
	struct ipt_ip ip = ip_proto(IPPROTO_TCP, 0);
	struct bld b;
	unsigned int off;
	unsigned char *m;

	b_init(&b);
	off = b_entry(&b, &ip);
	b_match_raw(&b, "tcp", 0, &tcp, sizeof(tcp), 0);
	b_std(&b, V_ACCEPT);
	b_tail(&b, off);
	m = b.buf + EHDR;
	expect(&b, 0, "tcp rule: accepted");

	((struct xt_entry_match *)(void *)m)->u.match_size = 64;
	expect(&b, -EINVAL, "match size past the target -EINVAL");
	((struct xt_entry_match *)(void *)m)->u.match_size = 16;
	expect(&b, -EINVAL, "match size below its header -EINVAL");
	((struct xt_entry_match *)(void *)m)->u.match_size = 0;
	expect(&b, -EINVAL, "match size 0 -EINVAL");
	((struct xt_entry_match *)(void *)m)->u.match_size = 40;
	expect(&b, -EINVAL, "match leaving 8 bytes before the target -EINVAL");
	((struct xt_entry_match *)(void *)m)->u.match_size = 48;
	b_free(&b);

	/* one match of size 36 then 44: the second is misaligned */
	b_init(&b);
	off = b_entry(&b, NULL);
	m = b_match_raw(&b, "comment", 0, "", 1, 80);
	((struct xt_entry_match *)(void *)m)->u.match_size = 36;
	b_std(&b, V_ACCEPT);
	memcpy(b.buf + off + EHDR + 36, &(__u16){ 44 }, 2);
	b_tail(&b, off);
	expect(&b, -EINVAL, "misaligned second match -EINVAL");
	b_free(&b);

	/* a single unaligned match (size 33) reaches the size check */
	b_init(&b);
	off = b_entry(&b, NULL);
	b_grow(&b, 33);
	m = b.buf + off + EHDR;
	((struct xt_entry_match *)(void *)m)->u.match_size = 33;
	strcpy(((struct xt_entry_match *)(void *)m)->u.user.name, "comment");
	b_e(&b, off)->target_offset = EHDR + 33;
	b_target_raw(&b, "", 0, (int[]){ V_ACCEPT }, 4, 36);
	b_e(&b, off)->next_offset = XT_ALIGN(EHDR + 33 + 36);
	b.size = off + b_e(&b, off)->next_offset;
	b_tail(&b, off);
	expect(&b, -EINVAL, "match of size 33, target unaligned -EINVAL");
	b_free(&b);
}

static void test_hooks(void)
{
	struct bld b;

	b_filter(&b);
	b.repl->hook_entry[NF_INET_FORWARD] = 160;
	expect(&b, -EINVAL, "hook entry not at an entry -EINVAL");
	b.repl->hook_entry[NF_INET_FORWARD] = 152;
	b.repl->underflow[NF_INET_FORWARD] = 1000;
	expect(&b, -EINVAL, "underflow past the end -EINVAL");
	b.repl->underflow[NF_INET_FORWARD] = 152;
	b.repl->valid_hooks |= 1U << NF_INET_POST_ROUTING;
	expect(&b, -EINVAL, "valid hook without entry -EINVAL");
	b.repl->valid_hooks = HOOKS_FILTER;
	b.repl->hook_entry[NF_INET_LOCAL_OUT] = 0;
	b.repl->underflow[NF_INET_LOCAL_OUT] = 0;
	expect(&b, -EINVAL, "two hooks on the same entry -EINVAL");
	b.repl->hook_entry[NF_INET_LOCAL_OUT] = 304;
	b.repl->underflow[NF_INET_LOCAL_OUT] = 304;
	b.repl->hook_entry[NF_INET_LOCAL_IN] = 304;
	b.repl->underflow[NF_INET_LOCAL_IN] = 304;
	b.repl->hook_entry[NF_INET_LOCAL_OUT] = 0;
	b.repl->underflow[NF_INET_LOCAL_OUT] = 0;
	expect(&b, -EINVAL, "hooks out of order -EINVAL");
	b.repl->hook_entry[NF_INET_LOCAL_IN] = 0;
	b.repl->underflow[NF_INET_LOCAL_IN] = 0;
	b.repl->hook_entry[NF_INET_LOCAL_OUT] = 304;
	b.repl->underflow[NF_INET_LOCAL_OUT] = 304;
	b.repl->underflow[NF_INET_LOCAL_IN] = 608 - 152 + 152;	/* ERROR */
	expect(&b, -EINVAL, "underflow on the ERROR entry -EINVAL");
	b.repl->underflow[NF_INET_LOCAL_IN] = 0;

	set_verdict(&b, 152, XT_RETURN);
	expect(&b, -EINVAL, "underflow RETURN -EINVAL");
	set_verdict(&b, 152, -NF_QUEUE - 1);
	expect(&b, -EINVAL, "underflow QUEUE -EINVAL");
	set_verdict(&b, 152, 304);
	expect(&b, -EINVAL, "underflow a jump -EINVAL");
	set_verdict(&b, 152, V_DROP);
	expect(&b, 0, "underflow DROP accepted");
	b_e(&b, 152)->ip.proto = IPPROTO_TCP;
	expect(&b, -EINVAL, "underflow not unconditional -EINVAL");
	b_e(&b, 152)->ip.proto = 0;
	b_e(&b, 152)->nfcache = 5;
	expect(&b, 0, "nfcache is not part of unconditional()");
	b_free(&b);
}

static void test_verdicts(void)
{
	struct full f;
	struct bld b;

	b_full(&b, &f);
	expect(&b, 0, "full table valid");
	set_verdict(&b, f.off[0], 0);
	expect(&b, -EINVAL, "verdict 0 -EINVAL");
	set_verdict(&b, f.off[0], -NF_STOLEN - 1);
	expect(&b, -EINVAL, "verdict STOLEN -EINVAL");
	set_verdict(&b, f.off[0], -NF_REPEAT - 2);
	expect(&b, -EINVAL, "verdict -6 -EINVAL");
	set_verdict(&b, f.off[0], -NF_QUEUE - 1);
	expect(&b, 0, "verdict QUEUE accepted");
	set_verdict(&b, f.off[0], f.off[10] + 8);
	expect(&b, -ELOOP, "jump into the middle of an entry -ELOOP");
	set_verdict(&b, f.off[0], (int)b.size);
	expect(&b, -ELOOP, "jump to the end -ELOOP");
	set_verdict(&b, f.off[0], (int)b.size + 152);
	expect(&b, -ELOOP, "jump past the end -ELOOP");
	set_verdict(&b, f.off[1], (int)f.off[1]);
	expect(&b, -ELOOP, "self jump -ELOOP");
	set_verdict(&b, f.off[1], V_DROP);
	set_verdict(&b, f.off[0], V_ACCEPT);

	/* B jumps back to A: A -> B -> A */
	set_verdict(&b, f.off[13], (int)f.off[10]);
	expect(&b, -ELOOP, "loop A -> B -> A -ELOOP");
	set_verdict(&b, f.off[13], V_DROP);

	/* chain B's RETURN removed: B falls through into the final ERROR,
	 * which falls off the end */
	set_verdict(&b, f.off[14], (int)f.off[15]);
	expect(&b, -ELOOP, "chain falling off the end -ELOOP");
	set_verdict(&b, f.off[14], XT_RETURN);

	/* unreachable: netfilter never looks at an unreached jump */
	expect(&b, 0, "full table valid again");
	b_free(&b);

	/* an unreachable entry jumping into nowhere is accepted */
	{
		struct bld u;
		unsigned int off;

		b_filter(&u);
		u.size -= ERR_SIZE;
		u.n--;
		off = b_entry(&u, NULL);
		b_std(&u, 12345);
		(void)off;
		b_entry(&u, NULL);
		b_error(&u, XT_ERROR_TARGET);
		u.repl->num_entries = u.n;
		expect(&u, 0, "unreachable jump to nowhere: accepted");
		b_free(&u);
	}

	/* no final ERROR entry: netfilter does not ask for one */
	b_filter(&b);
	b.size -= ERR_SIZE;
	b.repl->num_entries = 3;
	expect(&b, 0, "table without the final ERROR entry: accepted");
	/* ... but a hook chain must end: FORWARD's last rule is not a
	 * policy and falls off the end */
	b_e(&b, 304)->ip.proto = IPPROTO_TCP;
	b.repl->underflow[NF_INET_LOCAL_OUT] = 0xFFFFFF;
	b.repl->valid_hooks = (1U << NF_INET_LOCAL_IN) |
			     (1U << NF_INET_FORWARD);
	b.repl->hook_entry[NF_INET_FORWARD] = 304;
	expect(&b, -ELOOP, "hook chain falling off the end -ELOOP");
	b_free(&b);
}

static void test_targets(void)
{
	struct bld b;
	unsigned char *t;

	b_filter(&b);
	t = b.buf + 456 + EHDR;
	((struct xt_entry_target *)(void *)t)->u.target_size = 56;
	expect(&b, -EINVAL, "ERROR target_size 56 -EINVAL");
	((struct xt_entry_target *)(void *)t)->u.target_size = 64;
	memset(t + OHDR, 'E', XT_FUNCTION_MAXNAMELEN);
	expect(&b, -EINVAL, "ERROR name not terminated -EINVAL");
	memset(t + OHDR, 0, XT_FUNCTION_MAXNAMELEN);
	expect(&b, 0, "ERROR with empty errorname accepted");
	((struct xt_entry_target *)(void *)t)->u.user.revision = 1;
	expect(&b, -ENOENT, "ERROR revision 1 -ENOENT");
	((struct xt_entry_target *)(void *)t)->u.user.revision = 0;
	strcpy(((struct xt_entry_target *)(void *)t)->u.user.name, "LOG");
	expect(&b, -ENOENT, "unknown target LOG -ENOENT");
	strcpy(((struct xt_entry_target *)(void *)t)->u.user.name, "REJECT");
	expect(&b, -ENOENT, "unknown target REJECT -ENOENT");
	memset(((struct xt_entry_target *)(void *)t)->u.user.name, 'A',
	       XT_EXTENSION_MAXNAMELEN);
	expect(&b, -EINVAL, "target name without NUL -EINVAL");
	memset(((struct xt_entry_target *)(void *)t)->u.user.name, 0,
	       XT_EXTENSION_MAXNAMELEN);
	strcpy(((struct xt_entry_target *)(void *)t)->u.user.name, "ERROR");

	t = b.buf + 152 + EHDR;
	((struct xt_entry_target *)(void *)t)->u.user.revision = 1;
	expect(&b, -ENOENT, "standard target revision 1 -ENOENT");
	b_free(&b);
}

/* One INPUT rule with @ip and one match; the rest a filter table. */
static void b_one(struct bld *b, const struct ipt_ip *ip, const char *name,
		  unsigned int rev, const void *data, unsigned int len,
		  unsigned int msize)
{
	unsigned int off;

	b_init(b);
	off = b_entry(b, ip);
	if (name)
		b_match_raw(b, name, rev, data, len, msize);
	b_std(b, V_ACCEPT);
	b_hook(b, NF_INET_LOCAL_IN, off, b->size);
	off = b_entry(b, NULL);
	b_std(b, V_ACCEPT);
	b_hook(b, NF_INET_FORWARD, b->size, b->size);
	b_entry(b, NULL);
	b_std(b, V_ACCEPT);
	b_hook(b, NF_INET_LOCAL_OUT, b->size, b->size);
	b_entry(b, NULL);
	b_std(b, V_ACCEPT);
	b_entry(b, NULL);
	b_error(b, XT_ERROR_TARGET);
	b->repl->num_entries = b->n;
}

static void one(const struct ipt_ip *ip, const char *name, unsigned int rev,
		const void *data, unsigned int len, unsigned int msize,
		int want, const char *what)
{
	struct bld b;

	b_one(&b, ip, name, rev, data, len, msize);
	expect(&b, want, what);
	b_free(&b);
}

static void test_matches(void)
{
	struct xt_tcp tcp = { { 0, 65535 }, { 0, 65535 }, 0, 0, 0, 0 };
	struct xt_udp udp = { { 0, 65535 }, { 0, 65535 }, 0 };
	struct ipt_icmp icmp = { 0xFF, { 0, 255 }, 0 };
	struct ipt_ip tcpip = ip_proto(IPPROTO_TCP, 0);
	struct ipt_ip udpip = ip_proto(IPPROTO_UDP, 0);
	struct ipt_ip icmpip = ip_proto(IPPROTO_ICMP, 0);
	struct ipt_ip any = ip_proto(0, 0);
	struct ipt_ip ntcp = ip_proto(IPPROTO_TCP, 1);
	struct xt_multiport_v1 mp;
	struct xt_comment_info cm = { "x" };
	char big[64] = { 0 };

	one(&tcpip, "tcp", 0, &tcp, sizeof(tcp), 0, 0, "tcp: accepted");
	one(&any, "tcp", 0, &tcp, sizeof(tcp), 0, -EINVAL,
	    "tcp without -p tcp -EINVAL");
	one(&udpip, "tcp", 0, &tcp, sizeof(tcp), 0, -EINVAL,
	    "tcp with -p udp -EINVAL");
	one(&ntcp, "tcp", 0, &tcp, sizeof(tcp), 0, -EINVAL,
	    "tcp with ! -p tcp -EINVAL");
	tcp.invflags = 0x10;
	one(&tcpip, "tcp", 0, &tcp, sizeof(tcp), 0, -EINVAL,
	    "tcp invflags 0x10 -EINVAL");
	tcp.invflags = XT_TCP_INV_MASK;
	one(&tcpip, "tcp", 0, &tcp, sizeof(tcp), 0, 0,
	    "tcp invflags 0x0f accepted");
	one(&tcpip, "tcp", 0, &tcp, sizeof(tcp), OHDR + 8, -EINVAL,
	    "tcp data size 8 -EINVAL");
	one(&tcpip, "tcp", 0, big, 24, 0, -EINVAL, "tcp data size 24 -EINVAL");
	one(&tcpip, "tcp", 1, &tcp, sizeof(tcp), 0, -ENOENT,
	    "tcp revision 1 -ENOENT (IPv4 list: no -EPROTOTYPE)");

	one(&udpip, "udp", 0, &udp, sizeof(udp), 0, 0, "udp: accepted");
	one(&tcpip, "udp", 0, &udp, sizeof(udp), 0, -EINVAL,
	    "udp with -p tcp -EINVAL");
	udp.invflags = 0x04;
	one(&udpip, "udp", 0, &udp, sizeof(udp), 0, -EINVAL,
	    "udp invflags 0x04 -EINVAL");

	one(&icmpip, "icmp", 0, &icmp, sizeof(icmp), 0, 0, "icmp: accepted");
	one(&any, "icmp", 0, &icmp, sizeof(icmp), 0, -EINVAL,
	    "icmp without -p icmp -EINVAL");
	icmp.invflags = 0x02;
	one(&icmpip, "icmp", 0, &icmp, sizeof(icmp), 0, -EINVAL,
	    "icmp invflags 0x02 -EINVAL");

	memset(&mp, 0, sizeof(mp));
	mp.flags = XT_MULTIPORT_EITHER;
	mp.count = XT_MULTI_PORTS;
	one(&tcpip, "multiport", 1, &mp, sizeof(mp), 0, 0,
	    "multiport 15 ports: accepted");
	one(&udpip, "multiport", 1, &mp, sizeof(mp), 0, 0,
	    "multiport -p udp: accepted");
	one(&tcpip, "multiport", 0, &mp, sizeof(mp), 0, -ENOENT,
	    "multiport revision 0 -ENOENT (not registered in 6.1)");
	one(&tcpip, "multiport", 2, &mp, sizeof(mp), 0, -ENOENT,
	    "multiport revision 2 -ENOENT");
	one(&any, "multiport", 1, &mp, sizeof(mp), 0, -EINVAL,
	    "multiport without -p -EINVAL");
	one(&icmpip, "multiport", 1, &mp, sizeof(mp), 0, -EINVAL,
	    "multiport -p icmp -EINVAL");
	one(&ntcp, "multiport", 1, &mp, sizeof(mp), 0, -EINVAL,
	    "multiport ! -p tcp -EINVAL");
	mp.count = XT_MULTI_PORTS + 1;
	one(&tcpip, "multiport", 1, &mp, sizeof(mp), 0, -EINVAL,
	    "multiport 16 ports -EINVAL");
	mp.count = 2;
	mp.flags = XT_MULTIPORT_EITHER + 1;
	one(&tcpip, "multiport", 1, &mp, sizeof(mp), 0, -EINVAL,
	    "multiport flags 3 -EINVAL");
	mp.flags = XT_MULTIPORT_SOURCE;
	mp.pflags[1] = 1;
	one(&tcpip, "multiport", 1, &mp, sizeof(mp), 0, -EINVAL,
	    "multiport range start as last port -EINVAL");
	mp.pflags[1] = 0;
	mp.pflags[0] = 1;
	mp.ports[0] = 100;
	mp.ports[1] = 90;
	one(&tcpip, "multiport", 1, &mp, sizeof(mp), 0, -EINVAL,
	    "multiport range 100:90 -EINVAL");
	mp.ports[1] = 100;
	one(&tcpip, "multiport", 1, &mp, sizeof(mp), 0, 0,
	    "multiport range 100:100 accepted");
	one(&tcpip, "multiport", 1, &mp, 40, 0, -EINVAL,
	    "multiport data size 40 -EINVAL");

	one(&any, "comment", 0, &cm, sizeof(cm), 0, 0, "comment: accepted");
	one(&any, "comment", 1, &cm, sizeof(cm), 0, -EPROTOTYPE,
	    "comment revision 1 -EPROTOTYPE (NFPROTO_UNSPEC list)");
	one(&any, "comment", 0, &cm, 8, 0, -EINVAL,
	    "comment data size 8 -EINVAL");

	one(&any, "limit", 0, big, 32, 0, -ENOENT, "unknown match limit -ENOENT");
	one(&any, "state", 0, big, 8, 0, -ENOENT, "unknown match state -ENOENT");
	one(&any, "udplite", 0, &udp, sizeof(udp), 0, -ENOENT,
	    "udplite not supported -ENOENT");
	one(&any, "", 0, big, 8, 0, -ENOENT, "match with empty name -ENOENT");
	{
		struct bld b;
		struct xt_entry_match *m;

		b_one(&b, &tcpip, "tcp", 0, &tcp, sizeof(tcp), 0);
		m = (void *)(b.buf + EHDR);
		memset(m->u.user.name, 'a', XT_EXTENSION_MAXNAMELEN);
		expect(&b, -EINVAL, "match name without NUL -EINVAL");
		b_free(&b);
	}
}

/* translate_table() walks every entry before any lookup */
static void test_order(void)
{
	struct full f;
	struct bld b;
	unsigned char *name;

	b_full(&b, &f);
	name = b.buf + f.off[0] + EHDR + 2;
	strcpy((char *)name, "nope");
	expect(&b, -ENOENT, "order: unknown match alone -ENOENT");
	set_verdict(&b, f.off[13], 0);
	expect(&b, -EINVAL,
	       "order: bad verdict after an unknown match -EINVAL");
	set_verdict(&b, f.off[13], (int)f.off[10]);
	expect(&b, -ELOOP, "order: loop after an unknown match -ELOOP");
	set_verdict(&b, f.off[13], V_DROP);
	b.repl->num_entries = 99;
	expect(&b, -EINVAL, "order: count before lookups -EINVAL");
	b_free(&b);
}

static void test_revision(void)
{
	is(ipt_revision("tcp", 0, 0), 0, "revision: tcp 0");
	is(ipt_revision("tcp", 1, 0), -EPROTONOSUPPORT,
	   "revision: tcp 1 -EPROTONOSUPPORT");
	is(ipt_revision("udp", 0, 0), 0, "revision: udp 0");
	is(ipt_revision("icmp", 0, 0), 0, "revision: icmp 0");
	is(ipt_revision("multiport", 1, 0), 1, "revision: multiport 1");
	is(ipt_revision("multiport", 0, 0), -EPROTONOSUPPORT,
	   "revision: multiport 0 -EPROTONOSUPPORT");
	is(ipt_revision("comment", 0, 0), 0, "revision: comment 0");
	is(ipt_revision("limit", 0, 0), -ENOENT, "revision: limit -ENOENT");
	is(ipt_revision("tcp", 0, 1), -ENOENT,
	   "revision: tcp is not a target -ENOENT");
	is(ipt_revision("", 0, 1), 0, "revision: standard target 0");
	is(ipt_revision("ERROR", 0, 1), 0, "revision: ERROR 0");
	is(ipt_revision("ERROR", 1, 1), -EPROTONOSUPPORT,
	   "revision: ERROR 1 -EPROTONOSUPPORT");
	is(ipt_revision("ERROR", 0, 0), -ENOENT,
	   "revision: ERROR is not a match -ENOENT");
	is(ipt_revision("LOG", 0, 1), -ENOENT, "revision: LOG -ENOENT");
	is(ipt_revision("tcpxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 0, 0),
	   -ENOENT, "revision: long name -ENOENT");
}

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static void test_fuzz(void)
{
	static const int allowed[] = {
		0, -EINVAL, -ELOOP, -ENOENT, -EPROTOTYPE, -ENOMEM,
	};
	unsigned int i, k, accepted = 0, bad_errno = 0, bad_again = 0;
	struct full f;
	struct bld b;
	unsigned char *orig, *buf;
	struct ipt_replace r0;

	b_full(&b, &f);
	orig = malloc(b.size);
	buf = malloc(b.size);
	memcpy(orig, b.buf, b.size);
	r0 = *b.repl;
	for (i = 0; i < 10000; i++) {
		struct ipt_replace r = r0;
		struct ipt_table t;
		unsigned int n = 1 + rnd() % 4;
		int ret, j, known = 0;

		memcpy(buf, orig, b.size);
		for (k = 0; k < n; k++) {
			uint32_t what = rnd() % 16, v = rnd();

			if (what == 0) {
				r.size = v % (b.size + 1);
			} else if (what == 1) {
				r.num_entries = v % 20;
			} else if (what == 2) {
				r.hook_entry[v % 5] = rnd() % b.size;
			} else if (what == 3) {
				r.underflow[v % 5] = rnd() % b.size;
			} else if (what == 4) {
				r.valid_hooks = v & 0x3f;
			} else if (what < 8) {
				/* a 16-bit field somewhere: sizes, offsets */
				unsigned int at = (v % (b.size / 2)) * 2;
				__u16 x = rnd();

				memcpy(buf + at, &x, 2);
			} else if (what < 10) {
				/* a verdict-sized word */
				unsigned int at = (v % (b.size / 4)) * 4;
				int x = (int)(rnd() % (b.size + 64)) - 32;

				memcpy(buf + at, &x, 4);
			} else {
				buf[v % b.size] ^= 1U << (rnd() % 8);
			}
		}
		ret = ipt_table_translate(&r, buf, &t, NULL, 0);
		for (j = 0; j < (int)(sizeof(allowed) / sizeof(*allowed)); j++)
			known |= ret == allowed[j];
		if (!known)
			bad_errno++;
		if (ret == 0) {
			unsigned char *d = malloc(t.size ? t.size : 1);
			struct ipt_table t2;

			accepted++;
			ipt_table_dump(&t, d);
			r.size = t.size;
			if (ipt_table_translate(&r, d, &t2, NULL, 0) == 0) {
				if (memcmp(t2.entries, t.entries, t.size))
					bad_again++;
				ipt_table_free(&t2);
			} else {
				bad_again++;
			}
			free(d);
			ipt_table_free(&t);
		}
	}
	is(bad_errno, 0, "fuzz: 10000 mutations, only expected errnos");
	is(bad_again, 0, "fuzz: every accepted mutation re-translates the same");
	tap_diag("fuzz: %u of 10000 mutations accepted", accepted);
	free(orig);
	free(buf);
	b_free(&b);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 10,000 INPUT rules, each jumping into one user chain */
static void test_big(void)
{
	struct xt_tcp tcp = { { 0, 65535 }, { 0, 0 }, 0, 0, 0, 0 };
	struct ipt_ip ip = ip_proto(IPPROTO_TCP, 0);
	unsigned int i, off, *jumps;
	struct ipt_table t;
	struct bld b;
	double t0, dt;
	int ret, chain;

	jumps = malloc(10000 * sizeof(*jumps));
	b_init(&b);
	for (i = 0; i < 10000; i++) {
		off = b_entry(&b, &ip);
		tcp.dpts[0] = tcp.dpts[1] = i;
		b_match(&b, "tcp", 0, &tcp, sizeof(tcp));
		b_std(&b, 0);
		jumps[i] = b.size - 8;
		if (!i)
			b_hook(&b, NF_INET_LOCAL_IN, off, 0);
	}
	b.repl->underflow[NF_INET_LOCAL_IN] = b.size;
	b_entry(&b, NULL);
	b_std(&b, V_DROP);
	off = b_entry(&b, NULL);
	b_std(&b, V_ACCEPT);
	b_hook(&b, NF_INET_FORWARD, off, off);
	off = b_entry(&b, NULL);
	b_std(&b, V_ACCEPT);
	b_hook(&b, NF_INET_LOCAL_OUT, off, off);
	b_entry(&b, NULL);
	b_error(&b, "C");
	chain = (int)b.size;
	b_entry(&b, &ip);
	b_match(&b, "tcp", 0, &tcp, sizeof(tcp));
	b_std(&b, V_ACCEPT);
	b_entry(&b, NULL);
	b_std(&b, XT_RETURN);
	b_entry(&b, NULL);
	b_error(&b, XT_ERROR_TARGET);
	for (i = 0; i < 10000; i++)
		memcpy(b.buf + jumps[i], &chain, sizeof(chain));

	t0 = now();
	ret = b_xlate(&b, &t, NULL);
	dt = now() - t0;
	is(ret, 0, "10,000 rules jumping to a chain: accepted");
	ok(dt < 0.5, "10,000 rules translated in %.3f s", dt);
	if (!ret) {
		is(t.number, 10007, "10,000 rules: number");
		ipt_table_free(&t);
	}
	b_free(&b);
	free(jumps);

	/* 20,000 chains each jumping to the next: a deep walk */
	b_init(&b);
	off = b_entry(&b, NULL);
	b_std(&b, (int)(off + 4 * STD_SIZE));	/* the first chain's rule */
	b_hook(&b, NF_INET_LOCAL_IN, off, b.size);
	b_entry(&b, NULL);
	b_std(&b, V_ACCEPT);
	off = b_entry(&b, NULL);
	b_std(&b, V_ACCEPT);
	b_hook(&b, NF_INET_FORWARD, off, off);
	off = b_entry(&b, NULL);
	b_std(&b, V_ACCEPT);
	b_hook(&b, NF_INET_LOCAL_OUT, off, off);
	for (i = 0; i < 20000; i++) {
		off = b_entry(&b, NULL);
		b_std(&b, i + 1 < 20000 ?
		      (int)(off + 2 * STD_SIZE + ERR_SIZE) : V_ACCEPT);
		b_entry(&b, NULL);
		b_std(&b, XT_RETURN);
		if (i + 1 < 20000) {
			b_entry(&b, NULL);
			b_error(&b, "c");
		}
	}
	b_entry(&b, NULL);
	b_error(&b, XT_ERROR_TARGET);
	/* chains are [rule][RETURN], then the next one's ERROR head */
	t0 = now();
	ret = b_xlate(&b, &t, NULL);
	dt = now() - t0;
	is(ret, 0, "20,000 nested chains: accepted");
	ok(dt < 0.5, "20,000 nested chains in %.3f s", dt);
	if (!ret)
		ipt_table_free(&t);
	b_free(&b);
}

int main(void)
{
	tap_watchdog(60);
	test_init_filter();
	test_full();
	test_normalise();
	test_layout_errors();
	test_match_layout();
	test_hooks();
	test_verdicts();
	test_targets();
	test_matches();
	test_order();
	test_revision();
	test_fuzz();
	test_big();
	return tap_done();
}
