// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the bpfilter sample's code generator
 * (samples/bpfilter/ipt_bpf.c).
 *
 * The generated program is run with BPF_PROG_TEST_RUN against a reference
 * evaluator written here from ip_tables' rules (ipt_do_table(),
 * ip_packet_match(), tcp_mt(), udp_mt(), icmp_match(), multiport_mt()),
 * on random tables and packets: same verdict, same counters.  The loads
 * run with CAP_BPF alone, as the module loads (no CAP_PERFMON, so the
 * verifier's Spectre and pointer-leak rules apply).  Without bpf() on the
 * host those tests are "# SKIP"ped with the reason.
 *
 * IPT_BPF_SEED=<n> replays a run (the seed is printed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_tcpudp.h>

#include <umh_sdk/sandbox.h>

#include "../../samples/bpfilter/ipt_bpf.h"
#include "../../samples/bpfilter/ipt_table.h"
#include "ipt_bpf_load.h"
#include "tap.h"

#define EHDR		sizeof(struct ipt_entry)
#define OHDR		sizeof(struct xt_entry_target)
#define V_ACCEPT	(-NF_ACCEPT - 1)
#define V_DROP		(-NF_DROP - 1)
#define V_QUEUE		(-NF_QUEUE - 1)
#define HOOKS		((1U << NF_INET_LOCAL_IN) | (1U << NF_INET_FORWARD) | \
			 (1U << NF_INET_LOCAL_OUT))

/* ---- random numbers (xorshift64*, seeded) ---- */

static uint64_t rng_state;

static uint32_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ULL) >> 32);
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static int pct(unsigned int p)
{
	return rn(100) < p;
}

/* ---- table builder ---- */

/* IPT_BPF_BIG tables go up to 131,072 rules */
#define T_MAX_ENTRIES 140000

struct tbl {
	unsigned char *buf;
	unsigned int size, cap, n;
	unsigned int off[T_MAX_ENTRIES];
	int jump_to[T_MAX_ENTRIES];	/* entry index a standard target jumps to */
	unsigned int hook_entry[NF_INET_NUMHOOKS];
	unsigned int underflow[NF_INET_NUMHOOKS];
};

static unsigned char *t_grow(struct tbl *b, unsigned int len)
{
	unsigned char *p;

	while (b->size + len > b->cap) {
		unsigned int ncap = b->cap ? 2 * b->cap : 8192;

		p = realloc(b->buf, ncap);
		if (!p)
			abort();
		b->buf = p;
		b->cap = ncap;
	}
	p = b->buf + b->size;
	memset(p, 0, len);
	b->size += len;
	return p;
}

static struct ipt_entry *t_cur(struct tbl *b)
{
	return (struct ipt_entry *)(void *)(b->buf + b->off[b->n - 1]);
}

static void t_entry(struct tbl *b, const struct ipt_ip *ip)
{
	struct ipt_entry *e;

	if (b->n >= T_MAX_ENTRIES) {
		fprintf(stderr, "test_ipt_bpf: more than %d entries in a test table\n",
			T_MAX_ENTRIES);
		abort();
	}
	b->off[b->n] = b->size;
	b->jump_to[b->n] = -1;
	b->n++;
	e = (struct ipt_entry *)(void *)t_grow(b, EHDR);
	if (ip)
		e->ip = *ip;
	e->target_offset = EHDR;
}

static void t_match(struct tbl *b, const char *name, unsigned int rev,
		    const void *data, unsigned int len)
{
	unsigned int msize = OHDR + XT_ALIGN(len);
	struct xt_entry_match *m;

	m = (struct xt_entry_match *)(void *)t_grow(b, msize);
	m->u.user.match_size = msize;
	strcpy(m->u.user.name, name);
	m->u.user.revision = rev;
	memcpy(m->data, data, len);
	t_cur(b)->target_offset = b->size - b->off[b->n - 1];
}

/* A standard target: a verdict, or (jump >= 0) a jump to entry @jump. */
static void t_std(struct tbl *b, int verdict, int jump)
{
	unsigned int tsize = XT_ALIGN(sizeof(struct xt_standard_target));
	struct xt_standard_target *t;

	t = (struct xt_standard_target *)(void *)t_grow(b, tsize);
	t->target.u.user.target_size = tsize;
	t->verdict = verdict;
	b->jump_to[b->n - 1] = jump;
	t_cur(b)->next_offset = b->size - b->off[b->n - 1];
}

static void t_error(struct tbl *b, const char *name)
{
	unsigned int tsize = XT_ALIGN(sizeof(struct xt_error_target));
	struct xt_error_target *t;

	t_entry(b, NULL);
	t = (struct xt_error_target *)(void *)t_grow(b, tsize);
	t->target.u.user.target_size = tsize;
	strcpy(t->target.u.user.name, XT_ERROR_TARGET);
	strcpy(t->errorname, name);
	t_cur(b)->next_offset = b->size - b->off[b->n - 1];
}

/* Resolve jumps, fill the header and translate. */
static int t_finish(struct tbl *b, struct ipt_table *t, char *why)
{
	struct ipt_replace *repl;
	unsigned int i;
	int ret;

	for (i = 0; i < b->n; i++) {
		struct ipt_entry *e = (void *)(b->buf + b->off[i]);
		struct xt_standard_target *st = (void *)((char *)e +
							 e->target_offset);

		if (b->jump_to[i] >= 0)
			st->verdict = (int)b->off[b->jump_to[i]];
	}
	repl = calloc(1, sizeof(*repl));
	if (!repl)
		abort();
	strcpy(repl->name, "filter");
	repl->valid_hooks = HOOKS;
	repl->num_entries = b->n;
	repl->size = b->size;
	repl->num_counters = b->n;
	memcpy(repl->hook_entry, b->hook_entry, sizeof(b->hook_entry));
	memcpy(repl->underflow, b->underflow, sizeof(b->underflow));
	ret = ipt_table_translate(repl, b->buf, t, why, IPT_TABLE_WHY_LEN);
	free(repl);
	return ret;
}

/*
 * A filter table of @n entries @rule(b, i) in INPUT, whose policy is
 * @input_policy; FORWARD and OUTPUT empty, ACCEPT.  Return: t_finish()'s.
 */
static int input_table(struct ipt_table *t, unsigned int n,
		       void (*rule)(struct tbl *b, unsigned int i),
		       int input_policy, char *why)
{
	struct tbl *b = calloc(1, sizeof(*b));
	unsigned int h, i;
	int ret;

	if (!b)
		abort();
	for (h = 1; h <= 3; h++) {
		b->hook_entry[h] = b->size;
		for (i = 0; h == 1 && i < n; i++)
			rule(b, i);
		b->underflow[h] = b->size;
		t_entry(b, NULL);
		t_std(b, h == 1 ? input_policy : V_ACCEPT, -1);
	}
	t_error(b, XT_ERROR_TARGET);
	ret = t_finish(b, t, why);
	free(b->buf);
	free(b);
	return ret;
}

/* ---- random tables ---- */

static const char *const if_names[] = { "eth0", "eth1", "wlan0", "lo",
					"veth12", "e" };
#define N_IFS	(sizeof(if_names) / sizeof(if_names[0]))
static const uint32_t addrs[] = { 0x0100000a, 0x0200000a, 0x0501000a,
				  0x0101a8c0, 0x08080808 };
static const unsigned int ports[] = { 0, 1, 22, 53, 80, 443, 1000, 8080,
				      65535 };

static uint32_t r_addr(void)
{
	return pct(90) ? addrs[rn(5)] : rnd();
}

static unsigned int r_port(void)
{
	return ports[rn(sizeof(ports) / sizeof(ports[0]))];
}

static void r_iface(char *name, unsigned char *mask)
{
	static const char *const pats[] = { "eth0", "eth+", "wlan0", "lo",
					    "veth+", "e+", "e", "+", "eth1" };
	const char *p = pats[rn(sizeof(pats) / sizeof(pats[0]))];
	size_t len = strlen(p);

	memset(name, 0, IFNAMSIZ);
	memset(mask, 0, IFNAMSIZ);
	if (p[len - 1] == '+') {
		memcpy(name, p, len - 1);
		memset(mask, 0xFF, len - 1);
	} else {
		memcpy(name, p, len);
		memset(mask, 0xFF, len + 1);
	}
	if (pct(5))	/* garbage beyond the mask */
		name[IFNAMSIZ - 2] = 'x';
}

static void r_ip(struct ipt_ip *ip, unsigned int proto, bool proto_fixed)
{
	static const uint32_t msks[] = { 0xFFFFFFFF, 0x00FFFFFF, 0x0000FFFF,
					 0 };

	memset(ip, 0, sizeof(*ip));
	if (pct(35)) {
		ip->smsk.s_addr = msks[rn(4)];
		ip->src.s_addr = r_addr();
		if (pct(80))
			ip->src.s_addr &= ip->smsk.s_addr;
		if (pct(20))
			ip->invflags |= IPT_INV_SRCIP;
	}
	if (pct(25)) {
		ip->dmsk.s_addr = msks[rn(4)];
		ip->dst.s_addr = r_addr() & ip->dmsk.s_addr;
		if (pct(20))
			ip->invflags |= IPT_INV_DSTIP;
	}
	ip->proto = proto;
	if (!proto_fixed && proto && pct(15))
		ip->invflags |= IPT_INV_PROTO;
	if (pct(8))
		ip->flags |= IPT_F_FRAG;
	if (pct(5))
		ip->invflags |= IPT_INV_FRAG;
	if (pct(25)) {
		r_iface(ip->iniface, ip->iniface_mask);
		if (pct(25))
			ip->invflags |= IPT_INV_VIA_IN;
	} else if (pct(3)) {
		ip->invflags |= IPT_INV_VIA_IN;
	}
	if (pct(20)) {
		r_iface(ip->outiface, ip->outiface_mask);
		if (pct(25))
			ip->invflags |= IPT_INV_VIA_OUT;
	}
}

static void r_ports(__u16 *pr)
{
	if (pct(40)) {
		pr[0] = 0;
		pr[1] = 0xFFFF;
	} else {
		pr[0] = (__u16)r_port();
		pr[1] = pct(50) ? pr[0] : (__u16)r_port();
	}
}

static void r_matches(struct tbl *b, unsigned int proto)
{
	if (proto == IPPROTO_TCP && pct(70)) {
		struct xt_tcp m;

		memset(&m, 0, sizeof(m));
		r_ports(m.spts);
		r_ports(m.dpts);
		if (pct(30)) {
			m.flg_mask = (__u8)rnd();
			m.flg_cmp = (__u8)(rnd() & (pct(80) ? m.flg_mask : 0xFF));
		}
		if (pct(25))
			m.option = (__u8)(pct(80) ? 2 + rn(7) : rnd());
		m.invflags = (__u8)(rnd() & XT_TCP_INV_MASK);
		t_match(b, "tcp", 0, &m, sizeof(m));
	}
	if (proto == IPPROTO_UDP && pct(70)) {
		struct xt_udp m;

		memset(&m, 0, sizeof(m));
		r_ports(m.spts);
		r_ports(m.dpts);
		m.invflags = (__u8)(rnd() & XT_UDP_INV_MASK);
		t_match(b, "udp", 0, &m, sizeof(m));
	}
	if (proto == IPPROTO_ICMP && pct(80)) {
		static const __u8 types[] = { 0, 3, 8, 11, 0xFF };
		struct ipt_icmp m;

		memset(&m, 0, sizeof(m));
		m.type = types[rn(5)];
		m.code[0] = (__u8)rn(3);
		m.code[1] = pct(50) ? 0xFF : (__u8)rn(4);
		m.invflags = (__u8)(rnd() & IPT_ICMP_INV);
		t_match(b, "icmp", 0, &m, sizeof(m));
	}
	if ((proto == IPPROTO_TCP || proto == IPPROTO_UDP) && pct(40)) {
		struct xt_multiport_v1 m;
		unsigned int i = 0, want = rn(XT_MULTI_PORTS + 1);

		memset(&m, 0, sizeof(m));
		m.flags = (__u8)(1 + rn(3) - 1);	/* SOURCE..EITHER */
		m.flags = (__u8)(m.flags == 0 ? XT_MULTIPORT_SOURCE :
				 m.flags == 1 ? XT_MULTIPORT_DESTINATION :
				 XT_MULTIPORT_EITHER);
		while (i < want) {
			unsigned int a = r_port(), c = r_port();

			if (i + 1 < want && pct(30)) {
				m.pflags[i] = 1;
				m.ports[i++] = (__u16)(a < c ? a : c);
				m.ports[i++] = (__u16)(a < c ? c : a);
			} else {
				m.ports[i++] = (__u16)a;
			}
		}
		m.count = (__u8)i;
		m.invert = (__u8)rn(3);
		t_match(b, "multiport", 1, &m, sizeof(m));
	}
	if (pct(10)) {
		struct xt_comment_info m;

		memset(&m, 0, sizeof(m));
		strcpy(m.comment, "a comment");
		t_match(b, "comment", 0, &m, sizeof(m));
	}
}

/*
 * With r_runs set, r_table() also makes runs of rules that each test one
 * field (a source or destination prefix, a tcp or udp port range) and end
 * with an absolute verdict: what ipt_bpf.c compiles as a decision tree.
 * Prefixes of one pool address overlap, ranges nest and repeat; a run
 * sometimes holds a rule of another shape or a RETURN, which splits it.
 */
static bool r_runs;

struct run {
	unsigned int left, field, proto;
};

static void r_run_rule(struct tbl *b, struct run *r)
{
	static const int vs[] = { V_ACCEPT, V_DROP, V_DROP, V_QUEUE };
	struct ipt_ip ip;
	__u16 pr[2];
	int v = vs[rn(4)];

	memset(&ip, 0, sizeof(ip));
	if (r->field < 2) {
		unsigned int len = pct(30) ? 32 : 1 + rn(32);
		uint32_t m = htonl(len == 32 ? 0xFFFFFFFFU : ~(0xFFFFFFFFU >> len));
		uint32_t a = r_addr() & m;

		if (r->field == 0) {
			ip.src.s_addr = a;
			ip.smsk.s_addr = m;
		} else {
			ip.dst.s_addr = a;
			ip.dmsk.s_addr = m;
		}
	} else {
		ip.proto = (__u16)r->proto;
	}
	if (pct(3))	/* another shape: ends the run */
		ip.invflags |= ip.proto ? IPT_INV_PROTO : IPT_INV_SRCIP;
	if (pct(3))
		v = XT_RETURN;
	t_entry(b, &ip);
	if (ip.proto && !(ip.invflags & IPT_INV_PROTO)) {
		pr[0] = (__u16)r_port();
		pr[1] = pct(50) ? pr[0] : (__u16)r_port();
		if (pr[0] > pr[1]) {
			__u16 x = pr[0];

			pr[0] = pr[1];
			pr[1] = x;
		}
		if (r->proto == IPPROTO_TCP) {
			struct xt_tcp m = { .spts = { 0, 0xFFFF },
					    .dpts = { 0, 0xFFFF } };

			memcpy(r->field == 2 ? m.spts : m.dpts, pr, sizeof(pr));
			t_match(b, "tcp", 0, &m, sizeof(m));
		} else {
			struct xt_udp m = { .spts = { 0, 0xFFFF },
					    .dpts = { 0, 0xFFFF } };

			memcpy(r->field == 2 ? m.spts : m.dpts, pr, sizeof(pr));
			t_match(b, "udp", 0, &m, sizeof(m));
		}
	}
	t_std(b, v, -1);
	r->left--;
}

/*
 * INPUT starts with this many rules "-i pad<k> -j DROP" (no device of the
 * test has such a name): the random rules' interface patterns then come
 * after the IPT_BPF_IFB_WORDS words main copies, and are tested through
 * the iface leaf.
 */
static unsigned int r_pad_ifaces;

/*
 * A filter table: INPUT, FORWARD, OUTPUT, then @nuser user chains; a
 * chain jumps only to later user chains (no loops).
 */
static int r_table(struct ipt_table *t, unsigned int nuser,
		   unsigned int max_rules, char *why)
{
	static const unsigned int protos[] = { 0, 0, IPPROTO_TCP, IPPROTO_TCP,
					       IPPROTO_UDP, IPPROTO_ICMP, 47 };
	unsigned int nrules[3 + 8], first[3 + 8], c, i, n = 3 + nuser;
	struct tbl *b = calloc(1, sizeof(*b));
	int ret;

	if (!b)
		abort();
	for (c = 0; c < n; c++)
		nrules[c] = rn(max_rules + 1) + (c ? 0 : r_pad_ifaces);
	/* the entry index where each chain's rules start */
	for (c = 0, i = 0; c < n; c++) {
		if (c >= 3)
			i++;	/* the ERROR head */
		first[c] = i;
		i += nrules[c] + 1;
	}
	for (c = 0; c < n; c++) {
		unsigned int hook = c + 1;

		if (c >= 3)
			t_error(b, "chain");
		else
			b->hook_entry[hook] = b->size;
		struct run run = { 0 };

		for (i = 0; i < nrules[c]; i++) {
			unsigned int proto = protos[rn(7)], k;
			bool fixed = proto == IPPROTO_TCP ||
				     proto == IPPROTO_UDP ||
				     proto == IPPROTO_ICMP ? pct(80) : false;
			struct ipt_ip ip;
			int v = 0, jump = -1;

			if (c == 0 && i < r_pad_ifaces) {
				memset(&ip, 0, sizeof(ip));
				snprintf(ip.iniface, IFNAMSIZ, "pad%u", i);
				memset(ip.iniface_mask, 0xFF,
				       strlen(ip.iniface) + 1);
				t_entry(b, &ip);
				t_std(b, V_DROP, -1);
				continue;
			}
			if (r_runs && !run.left && pct(20)) {
				run.left = 4 + rn(30);
				run.field = rn(4);
				run.proto = pct(50) ? IPPROTO_TCP : IPPROTO_UDP;
			}
			if (run.left) {
				r_run_rule(b, &run);
				continue;
			}
			r_ip(&ip, proto, fixed);
			k = rn(10);
			if (n > 3 && (c < 3 || c + 1 < n) && k >= 6) {
				/* a later user chain: its start, else any entry */
				unsigned int u = (c < 3 ? 3 : c + 1) +
						 rn(n - (c < 3 ? 3 : c + 1));

				jump = (int)(pct(80) ? first[u] :
					     first[u] - 1 + rn(nrules[u] + 2));
				if (k == 9)
					ip.flags |= IPT_F_GOTO;
			} else if (k == 5 && pct(50)) {
				/* to the next entry: a jump that pushes nothing */
				jump = (int)(first[c] + i + 1);
				if (pct(30))
					ip.flags |= IPT_F_GOTO;
			} else {
				static const int vs[] = { V_ACCEPT, V_DROP, V_DROP,
							  XT_RETURN, XT_RETURN,
							  V_QUEUE };
				v = vs[rn(6)];
			}
			t_entry(b, &ip);
			if (!(ip.invflags & IPT_INV_PROTO))
				r_matches(b, fixed ? proto : 0);
			t_std(b, v, jump);
		}
		if (c < 3)
			b->underflow[hook] = b->size;
		t_entry(b, NULL);
		t_std(b, c >= 3 ? XT_RETURN : pct(50) ? V_ACCEPT : V_DROP, -1);
	}
	t_error(b, XT_ERROR_TARGET);
	ret = t_finish(b, t, why);
	free(b->buf);
	free(b);
	return ret;
}

/* ---- packets ---- */

struct pkt {
	unsigned char d[14 + 128];	/* ethernet header, then IP */
	unsigned int len;		/* IP bytes */
	unsigned int hook, in, out;	/* cb[0..2]; in/out: ifindex */
};

static void r_pkt(struct pkt *p)
{
	static const unsigned char protos[] = { 6, 6, 6, 17, 17, 1, 1, 47,
						132 };
	unsigned char *ip = p->d + 14, *l4;
	unsigned int ihl = pct(85) ? 5 : 5 + rn(3), full, i, doff = 5;
	unsigned int frag = 0;
	uint32_t a;

	memset(p, 0, sizeof(*p));
	p->d[12] = 0x08;
	ip[0] = (unsigned char)(0x40 | ihl);
	ip[8] = 64;
	ip[9] = protos[rn(9)];
	a = r_addr();
	memcpy(ip + 12, &a, 4);
	a = r_addr();
	memcpy(ip + 16, &a, 4);
	for (i = 20; i < ihl * 4; i++)
		ip[i] = 1;	/* IPOPT_NOOP */
	if (pct(15))
		frag = pct(40) ? 1 : rn(0x2000);
	if (pct(10))
		frag |= 0x2000;	/* IP_MF: not part of the offset */
	ip[6] = (unsigned char)(frag >> 8);
	ip[7] = (unsigned char)frag;
	l4 = ip + ihl * 4;
	for (i = 0; i < 60; i++)
		l4[i] = (unsigned char)rnd();
	l4[0] = (unsigned char)(r_port() >> 8);
	l4[1] = (unsigned char)r_port();
	if (pct(70)) {
		unsigned int port = r_port();

		l4[0] = (unsigned char)(port >> 8);
		l4[1] = (unsigned char)port;
		port = r_port();
		l4[2] = (unsigned char)(port >> 8);
		l4[3] = (unsigned char)port;
	}
	if (ip[9] == 1) {
		static const unsigned char types[] = { 0, 3, 8, 11, 5 };

		l4[0] = types[rn(5)];
		l4[1] = (unsigned char)rn(4);
	}
	if (ip[9] == 6) {
		doff = pct(50) ? 5 : pct(10) ? rn(5) : 5 + rn(11);
		l4[12] = (unsigned char)(doff << 4);
		l4[13] = (unsigned char)rnd();
		/* options: kinds 0..8 with plausible lengths */
		for (i = 20; i < doff * 4 && i < 60;) {
			unsigned int kind = rn(9);

			l4[i] = (unsigned char)kind;
			if (kind >= 2 && i + 1 < 60) {
				l4[i + 1] = (unsigned char)(pct(90) ? 2 + rn(6) :
							    rn(2));
				i += l4[i + 1] ? l4[i + 1] : 1;
			} else {
				i++;
			}
		}
	}
	full = ihl * 4 + (ip[9] == 6 ? doff * 4 : 8) + rn(8);
	if (full > 128)
		full = 128;
	if (pct(12))	/* truncated */
		full = ihl * 4 + rn(full - ihl * 4 + 1);
	if (pct(1))
		full = 20;
	p->len = full;
	ip[2] = (unsigned char)(full >> 8);
	ip[3] = (unsigned char)full;
	p->hook = pct(95) ? 1 + rn(3) : (pct(50) ? 0 : 4);
	p->in = pct(75) ? 1 + rn(N_IFS) : 0;
	p->out = pct(60) ? 1 + rn(N_IFS) : 0;
}

/* ---- the reference evaluator ---- */

static unsigned int get16(const unsigned char *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

/* skb_header_pointer(): @n bytes at @off, or NULL */
static const unsigned char *hdr(const struct pkt *p, unsigned int off,
				unsigned int n)
{
	return off + n <= p->len ? p->d + 14 + off : NULL;
}

static void dev_name(unsigned int ifindex, char *name)
{
	memset(name, 0, IFNAMSIZ);
	if (ifindex)
		strcpy(name, if_names[ifindex - 1]);
}

static bool if_match(const char *dev, const char *name,
		     const unsigned char *mask)
{
	unsigned int k;

	for (k = 0; k < IFNAMSIZ; k++)
		if ((dev[k] ^ name[k]) & mask[k])
			return false;
	return true;
}

static bool ref_ip(const struct ipt_ip *ip, const struct pkt *p,
		   unsigned int fragoff)
{
	const unsigned char *h = p->d + 14;
	uint32_t s, d;
	char dev[IFNAMSIZ];

	memcpy(&s, h + 12, 4);
	memcpy(&d, h + 16, 4);
	if (((s & ip->smsk.s_addr) != ip->src.s_addr) ^
	    !!(ip->invflags & IPT_INV_SRCIP))
		return false;
	if (((d & ip->dmsk.s_addr) != ip->dst.s_addr) ^
	    !!(ip->invflags & IPT_INV_DSTIP))
		return false;
	dev_name(p->in, dev);
	if (!if_match(dev, ip->iniface, ip->iniface_mask) ^
	    !!(ip->invflags & IPT_INV_VIA_IN))
		return false;
	dev_name(p->out, dev);
	if (!if_match(dev, ip->outiface, ip->outiface_mask) ^
	    !!(ip->invflags & IPT_INV_VIA_OUT))
		return false;
	if (ip->proto && ((h[9] != ip->proto) ^
			  !!(ip->invflags & IPT_INV_PROTO)))
		return false;
	if (((ip->flags & IPT_F_FRAG) && !fragoff) ^
	    !!(ip->invflags & IPT_INV_FRAG))
		return false;
	return true;
}

static bool in_range(unsigned int v, unsigned int lo, unsigned int hi,
		     bool inv)
{
	return (v >= lo && v <= hi) ^ inv;
}

static bool ref_match(const struct xt_entry_match *m, const struct pkt *p,
		      unsigned int fragoff, unsigned int thoff, bool *hotdrop)
{
	const char *name = m->u.user.name;
	const unsigned char *th;

	if (!strcmp(name, "comment"))
		return true;
	if (fragoff) {
		if (!strcmp(name, "tcp") && fragoff == 1)
			*hotdrop = true;
		return false;
	}
	if (!strcmp(name, "tcp")) {
		struct xt_tcp t;
		const unsigned char *op;
		unsigned int optlen, i;
		bool inv;

		memcpy(&t, m->data, sizeof(t));
		th = hdr(p, thoff, 20);
		if (!th) {
			*hotdrop = true;
			return false;
		}
		if (!in_range(get16(th), t.spts[0], t.spts[1],
			      t.invflags & XT_TCP_INV_SRCPT) ||
		    !in_range(get16(th + 2), t.dpts[0], t.dpts[1],
			      t.invflags & XT_TCP_INV_DSTPT))
			return false;
		if (((th[13] & t.flg_mask) == t.flg_cmp) ^
		    !(t.invflags & XT_TCP_INV_FLAGS))
			return false;
		if (!t.option)
			return true;
		if ((th[12] >> 4) * 4U < 20) {
			*hotdrop = true;
			return false;
		}
		optlen = (th[12] >> 4) * 4U - 20;
		inv = t.invflags & XT_TCP_INV_OPTION;
		if (!optlen)
			return inv;
		op = hdr(p, thoff + 20, optlen);
		if (!op) {
			*hotdrop = true;
			return false;
		}
		for (i = 0; i < optlen;) {
			if (op[i] == t.option)
				return !inv;
			if (op[i] < 2)
				i++;
			else
				i += op[i + 1] ? op[i + 1] : 1;
		}
		return inv;
	}
	if (!strcmp(name, "udp")) {
		struct xt_udp u;

		memcpy(&u, m->data, sizeof(u));
		th = hdr(p, thoff, 8);
		if (!th) {
			*hotdrop = true;
			return false;
		}
		return in_range(get16(th), u.spts[0], u.spts[1],
				u.invflags & XT_UDP_INV_SRCPT) &&
		       in_range(get16(th + 2), u.dpts[0], u.dpts[1],
				u.invflags & XT_UDP_INV_DSTPT);
	}
	if (!strcmp(name, "icmp")) {
		struct ipt_icmp c;

		memcpy(&c, m->data, sizeof(c));
		th = hdr(p, thoff, 8);
		if (!th) {
			*hotdrop = true;
			return false;
		}
		return (c.type == 0xFF ||
			(th[0] == c.type && th[1] >= c.code[0] &&
			 th[1] <= c.code[1])) ^ !!(c.invflags & IPT_ICMP_INV);
	}
	if (!strcmp(name, "multiport")) {
		struct xt_multiport_v1 mp;
		unsigned int i, src, dst;

		memcpy(&mp, m->data, sizeof(mp));
		th = hdr(p, thoff, 4);
		if (!th) {
			*hotdrop = true;
			return false;
		}
		src = get16(th);
		dst = get16(th + 2);
		for (i = 0; i < mp.count; i++) {
			unsigned int s = mp.ports[i], e = s;
			bool hs, hd;

			if (mp.pflags[i])
				e = mp.ports[++i];
			hs = src >= s && src <= e;
			hd = dst >= s && dst <= e;
			if ((mp.flags == XT_MULTIPORT_SOURCE && hs) ||
			    (mp.flags == XT_MULTIPORT_DESTINATION && hd) ||
			    (mp.flags == XT_MULTIPORT_EITHER && (hs || hd)))
				return (1 ^ mp.invert) != 0;
		}
		return mp.invert != 0;
	}
	abort();
}

static const struct ipt_entry *ent(const struct ipt_table *t,
				   unsigned int off)
{
	return (const void *)((const char *)t->entries + off);
}

/* ipt_do_table(); @cnt gets the entries' counter increments. */
static unsigned int ref_eval(const struct ipt_table *t, const struct pkt *p,
			     struct xt_counters *cnt)
{
	const unsigned char *h = p->d + 14;
	unsigned int fragoff = get16(h + 6) & 0x1FFF, thoff = (h[0] & 15) * 4;
	unsigned int stack[64], sp = 0, stacksize = 0, off, i;
	const struct ipt_entry *e;

	if (p->hook >= NF_INET_NUMHOOKS || !(t->valid_hooks & (1U << p->hook)))
		return NF_ACCEPT;
	for (off = 0; off < t->size; off += ent(t, off)->next_offset) {
		const struct xt_entry_target *tg = (const void *)
			((const char *)ent(t, off) + ent(t, off)->target_offset);

		if (!strcmp(tg->u.user.name, XT_ERROR_TARGET))
			stacksize++;
	}
	off = t->hook_entry[p->hook];
	for (;;) {
		const struct xt_entry_target *tg;
		unsigned int moff, idx = 0, o;
		bool hotdrop = false, matched = true;
		int v;

		e = ent(t, off);
		if (!ref_ip(&e->ip, p, fragoff)) {
			off += e->next_offset;
			continue;
		}
		for (moff = sizeof(*e); moff < e->target_offset;) {
			const struct xt_entry_match *m = (const void *)
				((const char *)e + moff);

			if (!ref_match(m, p, fragoff, thoff, &hotdrop)) {
				matched = false;
				break;
			}
			moff += m->u.match_size;
		}
		if (hotdrop)
			return NF_DROP;
		if (!matched) {
			off += e->next_offset;
			continue;
		}
		for (o = 0; o != off; o += ent(t, o)->next_offset)
			idx++;
		cnt[idx].pcnt++;
		cnt[idx].bcnt += p->len;
		tg = (const void *)((const char *)e + e->target_offset);
		if (!strcmp(tg->u.user.name, XT_ERROR_TARGET))
			return NF_DROP;
		memcpy(&v, tg->data, sizeof(v));
		if (v < 0) {
			if (v != XT_RETURN)
				return (unsigned int)(-v - 1);
			if (!sp) {
				off = t->underflow[p->hook];
			} else {
				off = stack[--sp];
				off += ent(t, off)->next_offset;
			}
			continue;
		}
		if ((unsigned int)v != off + e->next_offset &&
		    !(e->ip.flags & IPT_F_GOTO)) {
			if (sp >= stacksize)
				return NF_DROP;
			stack[sp++] = off;
		}
		off = (unsigned int)v;
	}
	(void)i;
}

/* ---- bpf() ---- */

static int map_update(int fd, __u32 key, const void *val)
{
	return ibl_map_elem(fd, key, (void *)val, 1);
}

static int map_lookup(int fd, __u32 key, void *val)
{
	return ibl_map_elem(fd, key, val, 0);
}

static char vlog[1 << 20];

/* Load @insns; on failure the verifier's log goes to TAP comments. */
static int prog_load(const struct bpf_insn *insns, unsigned int n,
		     bool log_on_fail)
{
	int fd = ibl_prog_load(insns, n, NULL, 0, 0);

	if (fd >= 0 || !log_on_fail)
		return fd;
	/* the errno without a log: with one, a full log buffer is ENOSPC */
	tap_diag("BPF_PROG_LOAD: %s", strerror(errno));
	fd = ibl_prog_load(insns, n, vlog, sizeof(vlog), 1);
	if (fd < 0) {
		size_t len = strlen(vlog);
		const char *tail = vlog + (len > 3000 ? len - 3000 : 0);

		tap_diag("BPF_PROG_LOAD with a log: %s; verifier log tail:",
			 strerror(errno));
		printf("%s\n", tail);
	}
	return fd;
}

static int prog_run(int fd, const struct pkt *p, __u32 *retval)
{
	struct __sk_buff ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.cb[BPFILTER_CB_HOOK] = p->hook;
	ctx.cb[BPFILTER_CB_IN] = p->in ? 100 + p->in : 0;
	ctx.cb[BPFILTER_CB_OUT] = p->out ? 100 + p->out : 0;
	return ibl_prog_run(fd, p->d, 14 + p->len, &ctx, 1, retval, NULL);
}

static int ncpus;
/* entries of the loaded program's counters block */
static unsigned int cnt_entries;

/* A program ready to run: maps made and filled, fds patched, loaded. */
struct loaded {
	int prog, counters, ifaces;
};

static void unload(struct loaded *l)
{
	if (l->prog >= 0)
		close(l->prog);
	if (l->counters >= 0)
		close(l->counters);
	if (l->ifaces >= 0)
		close(l->ifaces);
}

static int load(const struct ipt_bpf_prog *bp, struct loaded *l)
{
	unsigned int words = BPFILTER_IFACE_WORDS(bp->n_ifaces), i, j;
	struct bpf_insn *insns;

	l->prog = -1;
	/* as the module makes it: one block of counters per CPU */
	cnt_entries = bp->number;
	l->counters = ibl_counters_map(bp, ncpus);
	l->ifaces = ibl_map_create(BPF_MAP_TYPE_HASH, words * 8, N_IFS);
	if (l->counters < 0 || l->ifaces < 0) {
		tap_diag("BPF_MAP_CREATE: %s", strerror(errno));
		return -1;
	}
	/* the devices of the test: ifindex 100 + i, if_names[i - 1] */
	for (i = 1; i <= N_IFS; i++) {
		__u64 bits[BPFILTER_MAX_IFACES / 64] = { 0 };
		char dev[IFNAMSIZ];
		bool any = false;

		dev_name(i, dev);
		for (j = 0; j < bp->n_ifaces; j++) {
			if (if_match(dev, bp->ifaces[j].name,
				     bp->ifaces[j].mask)) {
				bits[j / 64] |= 1ULL << (j % 64);
				any = true;
			}
		}
		if (any && map_update(l->ifaces, 100 + i, bits)) {
			tap_diag("BPF_MAP_UPDATE_ELEM: %s", strerror(errno));
			return -1;
		}
	}
	insns = malloc(bp->n_insns * sizeof(*insns));
	if (!insns)
		abort();
	memcpy(insns, bp->insns, bp->n_insns * sizeof(*insns));
	ibl_patch_maps(insns, bp->n_insns, l->counters, l->ifaces);
	l->prog = prog_load(insns, bp->n_insns, true);
	free(insns);
	return l->prog < 0 ? -1 : 0;
}

/* Sum one entry's counters over the CPUs' blocks. */
static int read_counter(int fd, unsigned int idx, struct xt_counters *sum)
{
	struct xt_counters *v;
	int c, ret = 0;

	memset(sum, 0, sizeof(*sum));
	v = calloc(cnt_entries + BPFILTER_SCRATCH / sizeof(*v), sizeof(*v));
	if (!v || idx >= cnt_entries)
		abort();
	for (c = 0; c < ncpus && !ret; c++) {
		ret = map_lookup(fd, (unsigned int)c, v);
		sum->pcnt += v[idx].pcnt;
		sum->bcnt += v[idx].bcnt;
	}
	free(v);
	return ret;
}

/* ---- capabilities: CAP_BPF only, as the module loads ---- */

static const char *keep_only_cap_bpf(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	d[CAP_BPF / 32].effective = 1U << (CAP_BPF % 32);
	d[CAP_BPF / 32].permitted = 1U << (CAP_BPF % 32);
	if (syscall(SYS_capset, &h, d))
		return strerror(errno);
	return NULL;
}

/* ---- tests ---- */

static const char *bpf_unavailable(void)
{
	static char why[160];
	struct bpf_insn ret1[2];
	struct pkt p;
	__u32 rv = 0;
	int fd;

	memset(ret1, 0, sizeof(ret1));
	ret1[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
	ret1[0].imm = 1;
	ret1[1].code = BPF_JMP | BPF_EXIT;
	fd = prog_load(ret1, 2, false);
	if (fd < 0) {
		snprintf(why, sizeof(why), "bpf(BPF_PROG_LOAD) refused: %s",
			 strerror(errno));
		return why;
	}
	memset(&p, 0, sizeof(p));
	p.d[12] = 8;
	p.len = 20;
	if (prog_run(fd, &p, &rv) || rv != 1) {
		snprintf(why, sizeof(why), "BPF_PROG_TEST_RUN unavailable: %s",
			 strerror(errno));
		close(fd);
		return why;
	}
	close(fd);
	return NULL;
}

static void test_init_filter(void)
{
	struct ipt_bpf_prog bp;
	struct ipt_table t;
	char why[IPT_TABLE_WHY_LEN];
	int ret;

	if (ipt_table_init_filter(&t))
		abort();
	ret = ipt_bpf_compile(&t, &bp, why, sizeof(why));
	is(ret, 0, "the initial filter table compiles");
	if (!ret) {
		ok(bp.number == 4 && bp.n_ifaces == 0 && bp.n_subprogs == 3,
		   "  4 entries, no interface pattern, 3 subprograms (%u insns)",
		   bp.n_insns);
		ipt_bpf_free(&bp);
	}
	ipt_table_free(&t);
}

/* Nested user chains A1 -> A2 -> ... -> An, jumped to from INPUT. */
static int nested_table(struct ipt_table *t, unsigned int depth, char *why)
{
	struct tbl *b = calloc(1, sizeof(*b));
	unsigned int c, h, first_user = 3 * 2;	/* 2 entries per hook */
	int ret;

	if (!b)
		abort();
	for (h = 1; h <= 3; h++) {
		b->hook_entry[h] = b->size;
		t_entry(b, NULL);
		if (h == 1)
			t_std(b, 0, (int)first_user + 1);
		else
			t_std(b, 0, (int)b->n);	/* the next entry */
		b->underflow[h] = b->size;
		t_entry(b, NULL);
		t_std(b, V_ACCEPT, -1);
	}
	for (c = 0; c < depth; c++) {
		t_error(b, "chain");
		t_entry(b, NULL);
		if (c + 1 < depth)
			t_std(b, 0, (int)b->n + 2);
		else
			t_std(b, V_DROP, -1);
		t_entry(b, NULL);
		t_std(b, XT_RETURN, -1);
	}
	t_error(b, XT_ERROR_TARGET);
	ret = t_finish(b, t, why);
	free(b->buf);
	free(b);
	return ret;
}

static void test_limits(void)
{
	char why[IPT_TABLE_WHY_LEN];
	struct ipt_bpf_prog bp;
	struct ipt_table t;
	int ret;

	/* main, INPUT and 6 chains: 8 frames (no interface match) */
	if (nested_table(&t, 6, why))
		abort();
	ret = ipt_bpf_compile(&t, &bp, why, sizeof(why));
	is(ret, 0, "6 nested user chains compile (8 frames)");
	if (!ret)
		ipt_bpf_free(&bp);
	ipt_table_free(&t);

	if (nested_table(&t, 7, why))
		abort();
	ret = ipt_bpf_compile(&t, &bp, why, sizeof(why));
	is(ret, -EOPNOTSUPP, "7 nested user chains: -EOPNOTSUPP");
	ok(strstr(why, "deep") != NULL, "  with a reason: %s", why);
	ipt_table_free(&t);
}

/* 4097 different -i patterns: -E2BIG */
/* "-i if<i> -j DROP" */
static void iface_rule(struct tbl *b, unsigned int i)
{
	struct ipt_ip ip;

	memset(&ip, 0, sizeof(ip));
	snprintf(ip.iniface, IFNAMSIZ, "if%u", i);
	memset(ip.iniface_mask, 0xFF, strlen(ip.iniface) + 1);
	t_entry(b, &ip);
	t_std(b, V_DROP, -1);
}

static void test_too_many_ifaces(void)
{
	char why[IPT_TABLE_WHY_LEN];
	struct ipt_bpf_prog bp;
	struct ipt_table t;
	int ret;

	if (input_table(&t, BPFILTER_MAX_IFACES + 1, iface_rule, V_ACCEPT,
			why))
		abort();
	ret = ipt_bpf_compile(&t, &bp, why, sizeof(why));
	is(ret, -E2BIG, "%u interface patterns: -E2BIG (%s)",
	   BPFILTER_MAX_IFACES + 1, why);
	if (!ret)
		ipt_bpf_free(&bp);
	ipt_table_free(&t);
}

static void test_random(const char *no_bpf, uint64_t seed, bool runs,
			unsigned int pad)
{
	const char *what = pad ? "random tables past 128 interface patterns" :
			   runs ? "random tables with one-field runs" :
			   "random tables";
	unsigned int tables = 0, pairs = 0, bad_verdict = 0, bad_count = 0;
	unsigned int past = 0;
	unsigned int refused = 0, deep = 0, load_fail = 0, run_fail = 0;
	unsigned int max_insns = 0, ti, trees = 0;
	struct timespec t0, t1;

	if (no_bpf) {
		ok(1, "%s: verdicts as ipt_do_table # SKIP %s", what,
		   no_bpf);
		ok(1, "%s: counters as ipt_do_table # SKIP %s", what,
		   no_bpf);
		return;
	}
	rng_state = seed;
	r_runs = runs;
	r_pad_ifaces = pad;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (ti = 0; ti < 300; ti++) {
		static struct xt_counters want[12000];
		char why[IPT_TABLE_WHY_LEN];
		struct ipt_bpf_prog bp;
		struct loaded l;
		struct ipt_table t;
		unsigned int k, i;
		int ret;

		if (r_table(&t, rn(5), 1 + rn(runs ? 60 : 8), why)) {
			refused++;
			if (refused < 3)
				tap_diag("table %u refused by translate: %s",
					 ti, why);
			continue;
		}
		ret = ipt_bpf_compile(&t, &bp, why, sizeof(why));
		if (ret) {
			if (ret == -EOPNOTSUPP && strstr(why, "deep"))
				deep++;
			else if (!bad_verdict++)
				tap_diag("table %u: compile: %d %s", ti, ret,
					 why);
			ipt_table_free(&t);
			continue;
		}
		tables++;
		trees += bp.n_trees;
		if (bp.n_ifaces > IPT_BPF_IFB_WORDS * 64)
			past++;
		if (bp.n_insns > max_insns)
			max_insns = bp.n_insns;
		if (load(&bp, &l)) {
			if (!load_fail++)
				tap_diag("table %u (seed %llu) did not load",
					 ti, (unsigned long long)seed);
			unload(&l);
			ipt_bpf_free(&bp);
			ipt_table_free(&t);
			continue;
		}
		memset(want, 0, sizeof(want));
		for (k = 0; k < 20; k++) {
			struct pkt p;
			unsigned int v;
			__u32 got;

			r_pkt(&p);
			v = ref_eval(&t, &p, want);
			if (prog_run(l.prog, &p, &got)) {
				if (!run_fail++)
					tap_diag("BPF_PROG_TEST_RUN: %s",
						 strerror(errno));
				continue;
			}
			pairs++;
			if (got != v && bad_verdict++ < 5)
				tap_diag("seed %llu table %u packet %u (hook %u len %u proto %u): got %u, want %u",
					 (unsigned long long)seed, ti, k,
					 p.hook, p.len, p.d[14 + 9], got, v);
		}
		for (i = 0; i < t.number; i++) {
			struct xt_counters c;

			if (read_counter(l.counters, i, &c) ||
			    c.pcnt != want[i].pcnt || c.bcnt != want[i].bcnt) {
				if (bad_count++ < 5)
					tap_diag("seed %llu table %u entry %u: counters %llu/%llu, want %llu/%llu",
						 (unsigned long long)seed, ti, i,
						 (unsigned long long)c.pcnt,
						 (unsigned long long)c.bcnt,
						 (unsigned long long)want[i].pcnt,
						 (unsigned long long)want[i].bcnt);
			}
		}
		unload(&l);
		ipt_bpf_free(&bp);
		ipt_table_free(&t);
	}
	r_runs = false;
	r_pad_ifaces = 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tap_diag("%s: %u compiled and run (%u refused by translate, %u nested too deep), %u decision trees, %u past %u interface patterns, %u packets, largest program %u insns, %.1f s",
		 what, tables, refused, deep, trees, past,
		 IPT_BPF_IFB_WORDS * 64, pairs, max_insns,
		 (double)(t1.tv_sec - t0.tv_sec) +
		 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	/*
	 * With runs, most tables must have one compiled as a tree; with
	 * padding (126 patterns), many must have patterns on both sides of
	 * the words main copies.
	 */
	ok(tables >= 200 && pairs >= 4000 && !load_fail && !run_fail &&
	   !bad_verdict && (!runs || trees >= tables / 2) &&
	   (!pad || past >= tables / 4),
	   "%s: %u (table, packet) pairs, verdicts as ipt_do_table (seed %llu)",
	   what, pairs, (unsigned long long)seed);
	ok(tables >= 200 && !bad_count,
	   "%s: counters as ipt_do_table (seed %llu)", what,
	   (unsigned long long)seed);
}

/*
 * @n rules "-s 10.<i>.0.1 -j DROP" in INPUT, ACCEPT policies; with @mix
 * every second one matches tcp or udp ports too.
 */
static int big_table(struct ipt_table *t, unsigned int n, bool mix, char *why)
{
	struct tbl *b = calloc(1, sizeof(*b));
	unsigned int h, i;
	int ret;

	if (!b)
		abort();
	b->cap = 0;
	for (h = 1; h <= 3; h++) {
		b->hook_entry[h] = b->size;
		for (i = 0; h == 1 && i < n; i++) {
			struct ipt_ip ip;

			memset(&ip, 0, sizeof(ip));
			ip.src.s_addr = 0x0100000a | (i & 0xFFFF) << 8;
			ip.smsk.s_addr = 0xFFFFFFFF;
			if (mix && i % 2)
				ip.proto = i % 4 == 1 ? IPPROTO_TCP : IPPROTO_UDP;
			t_entry(b, &ip);
			if (ip.proto == IPPROTO_TCP) {
				struct xt_tcp m = { .spts = { 0, 0xFFFF },
						    .dpts = { 1000, 1000 } };

				t_match(b, "tcp", 0, &m, sizeof(m));
			} else if (ip.proto == IPPROTO_UDP) {
				struct xt_udp m = { .spts = { 2000, 2000 },
						    .dpts = { 0, 0xFFFF } };

				t_match(b, "udp", 0, &m, sizeof(m));
			}
			t_std(b, V_DROP, -1);
		}
		b->underflow[h] = b->size;
		t_entry(b, NULL);
		t_std(b, V_ACCEPT, -1);
	}
	t_error(b, XT_ERROR_TARGET);
	ret = t_finish(b, t, why);
	free(b->buf);
	free(b);
	return ret;
}

/*
 * @n rules "-s 0.0.0.0/1 -j ACCEPT", "-s 128.0.0.0/1 -j DROP" by turns:
 * from every entry starts a run whose first two rules cover every
 * address, the case grp_length() bounds its work for.  Rule 0 takes the
 * low half, rule 1 the high one; nothing reaches the others.
 */
/* "-s 0.0.0.0/1 -j ACCEPT" and "-s 128.0.0.0/1 -j DROP" by turns */
static void half_rule(struct tbl *b, unsigned int i)
{
	struct ipt_ip ip;

	memset(&ip, 0, sizeof(ip));
	ip.src.s_addr = i % 2 ? htonl(0x80000000) : 0;
	ip.smsk.s_addr = htonl(0x80000000);
	t_entry(b, &ip);
	t_std(b, i % 2 ? V_DROP : V_ACCEPT, -1);
}

static void test_cover_runs(const char *no_bpf, unsigned int n)
{
	char why[IPT_TABLE_WHY_LEN];
	struct xt_counters c0 = { 0 }, c1 = { 0 }, c2 = { 0 };
	struct timespec t0, t1;
	struct ipt_bpf_prog bp;
	struct ipt_table t;
	struct loaded l;
	unsigned int bad = 0;
	int ret;

	if (input_table(&t, n, half_rule, V_ACCEPT, why))
		abort();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = ipt_bpf_compile(&t, &bp, why, sizeof(why));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret) {
		ok(0, "%u covering half-address rules compile: %s", n, why);
		ipt_table_free(&t);
		return;
	}
	tap_diag("%u covering half-address rules: compiled in %.2f s, %u insns, %u decision trees",
		 n, (double)(t1.tv_sec - t0.tv_sec) +
		 (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, bp.n_insns,
		 bp.n_trees);
	if (no_bpf) {
		ok(1, "%u covering half-address rules: run # SKIP %s", n,
		   no_bpf);
	} else if (load(&bp, &l)) {
		ok(0, "%u covering half-address rules (%u insns) load", n,
		   bp.n_insns);
		unload(&l);
	} else {
		static const __u32 src[] = { 0x0100000a, 0x010101c8 };
		unsigned int k;

		for (k = 0; k < 2; k++) {
			struct pkt p;
			__u32 got = ~0U;

			memset(&p, 0, sizeof(p));
			p.d[12] = 8;
			p.d[14] = 0x45;
			p.d[14 + 9] = IPPROTO_UDP;
			memcpy(p.d + 14 + 12, &src[k], 4);
			p.len = 28;
			p.hook = NF_INET_LOCAL_IN;
			if (prog_run(l.prog, &p, &got) ||
			    got != (k ? NF_DROP : NF_ACCEPT))
				bad++;
		}
		if (read_counter(l.counters, 0, &c0) ||
		    read_counter(l.counters, 1, &c1) ||
		    read_counter(l.counters, 2, &c2) ||
		    c0.pcnt != 1 || c1.pcnt != 1 || c2.pcnt != 0)
			bad++;
		ok(!bad, "%u covering half-address rules: %u insns, verdicts and counters of rules 0-2 (%llu, %llu, %llu packets) right",
		   n, bp.n_insns, (unsigned long long)c0.pcnt,
		   (unsigned long long)c1.pcnt, (unsigned long long)c2.pcnt);
		unload(&l);
	}
	ipt_bpf_free(&bp);
	ipt_table_free(&t);
}

static void test_big(const char *no_bpf)
{
	/*
	 * IPT_BPF_BIG="N,M,...": other sizes (to see how loading scales),
	 * with IPT_BPF_MIX set every second rule a tcp or udp match.  The
	 * mixed 10,000: before each entry jumped once (one jump per test),
	 * 2,500 port rules in a row left the verifier 8,192 pending branches.
	 */
	const char *env = getenv("IPT_BPF_BIG");
	unsigned int sizes[8] = { 100, 1000, 10000, 10000 }, n_sizes = 4;
	bool mix[8] = { false, false, false, true };
	char why[IPT_TABLE_WHY_LEN];
	struct ipt_bpf_prog bp;
	struct ipt_table t;
	unsigned int s;

	if (env) {
		char *end;

		for (n_sizes = 0; n_sizes < 8 && *env; env = end) {
			mix[n_sizes] = getenv("IPT_BPF_MIX");
			sizes[n_sizes++] = strtoul(env, &end, 10);
			if (*end != ',')
				break;
			end++;
		}
	}
	for (s = 0; s < n_sizes; s++) {
		struct loaded l;
		struct pkt p;
		__u32 got = 0;

		const char *kind = mix[s] ? " (half of them ports)" : "";

		if (big_table(&t, sizes[s], mix[s], why))
			abort();
		if (ipt_bpf_compile(&t, &bp, why, sizeof(why))) {
			ok(0, "%u-rule table%s compiles: %s", sizes[s], kind, why);
			ipt_table_free(&t);
			continue;
		}
		if (no_bpf) {
			ok(1, "%u-rule table%s (%u insns) loads # SKIP %s",
			   sizes[s], kind, bp.n_insns, no_bpf);
		} else {
			struct timespec t0, t1;
			int ld;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			ld = load(&bp, &l);
			clock_gettime(CLOCK_MONOTONIC, &t1);

			memset(&p, 0, sizeof(p));
			p.d[12] = 8;
			p.d[14] = 0x45;
			p.d[14 + 9] = 6;
			memcpy(p.d + 14 + 12, "\x0a\x00\x00\x01", 4);
			p.len = 40;
			p.hook = NF_INET_LOCAL_IN;
			ok(!ld && !prog_run(l.prog, &p, &got) && got == NF_DROP,
			   "%u-rule table%s: %u insns, loads (%.2f s) and drops 10.0.0.1",
			   sizes[s], kind, bp.n_insns,
			   (double)(t1.tv_sec - t0.tv_sec) +
			   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
			unload(&l);
		}
		ipt_bpf_free(&bp);
		ipt_table_free(&t);
	}
}

/* "-p tcp --dport <i + 1> -j ACCEPT" */
static void port_rule(struct tbl *b, unsigned int i)
{
	struct ipt_ip ip = { .proto = IPPROTO_TCP };
	struct xt_tcp m = { .spts = { 0, 0xFFFF }, .dpts = { i + 1, i + 1 } };

	t_entry(b, &ip);
	t_match(b, "tcp", 0, &m, sizeof(m));
	t_std(b, V_ACCEPT, -1);
}

/* @n rules "-p tcp --dport <i + 1> -j ACCEPT" in INPUT, policy DROP */
static void port_table(struct ipt_table *t, unsigned int n)
{
	char why[IPT_TABLE_WHY_LEN];

	if (input_table(t, n, port_rule, V_DROP, why))
		abort();
}

/*
 * The generator in the bpfilter helper's sandbox, as the helper runs it:
 * a libc function that makes a system call the sandbox does not allow
 * kills it (glibc's qsort() asks sysinfo() for the machine's memory when
 * it sorts over 1 KiB, as a 2,048-rule tree's bounds are).
 */
UMH_HELPER_SANDBOX(gen, UMH_NO_CAPS, UMH_NO_SYSCALLS)

static void test_sandboxed(uint64_t seed)
{
	const char *step = "";
	int st = 0;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		char why[IPT_TABLE_WHY_LEN];
		struct ipt_bpf_prog bp;
		struct ipt_table t;
		unsigned int i;

		if (umh_sandbox_apply(&gen_umh_sandbox, &step))
			_exit(2);
		rng_state = seed;
		r_runs = true;
		for (i = 0; i < 50; i++) {
			if (r_table(&t, rn(5), 1 + rn(60), why))
				continue;
			if (!ipt_bpf_compile(&t, &bp, why, sizeof(why)))
				ipt_bpf_free(&bp);
			ipt_table_free(&t);
		}
		port_table(&t, 2048);
		if (ipt_bpf_compile(&t, &bp, why, sizeof(why)))
			_exit(3);
		ipt_bpf_free(&bp);
		ipt_table_free(&t);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "the generator runs in the helper's seccomp sandbox (%s %d)",
	   st >= 0 && WIFSIGNALED(st) ? "signal" : "exit status",
	   st >= 0 && WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

/*
 * facebook/bpfilter's dropAfterXRules shape: @n rules "-p tcp --dport
 * <i + 1> -j ACCEPT" in INPUT, policy DROP, as one decision tree per
 * 4,096 rules.  A packet to port p <= @n is accepted by rule p - 1 and
 * counted there (ports at both ends of a tree's counter window among
 * them: a leaf counts at -32768..32760 from r3), one to a port no rule
 * names and a udp one are dropped.
 */
static void test_port_tree(const char *no_bpf, unsigned int n)
{
	static const struct { unsigned int proto, port; } cases[] = {
		{ IPPROTO_TCP, 1000 }, { IPPROTO_TCP, 1 },
		{ IPPROTO_TCP, 2048 }, { IPPROTO_TCP, 4096 },
		{ IPPROTO_TCP, 4097 }, { IPPROTO_TCP, 10000 },
		{ IPPROTO_TCP, 60000 }, { IPPROTO_UDP, 1000 },
	};
	char why[IPT_TABLE_WHY_LEN];
	struct xt_counters cnt = { 0 };
	struct ipt_bpf_prog bp;
	struct ipt_table t;
	struct loaded l;
	unsigned int i, bad = 0;

	port_table(&t, n);
	if (ipt_bpf_compile(&t, &bp, why, sizeof(why))) {
		ok(0, "%u port rules compile: %s", n, why);
		ipt_table_free(&t);
		return;
	}
	if (no_bpf) {
		ok(bp.n_trees == (n + 4095) / 4096,
		   "%u port rules: %u insns, %u decision trees; run # SKIP %s",
		   n, bp.n_insns, bp.n_trees, no_bpf);
		goto out;
	}
	if (load(&bp, &l)) {
		ok(0, "%u port rules (%u insns) load", n, bp.n_insns);
		unload(&l);
		goto out;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int want = cases[i].proto == IPPROTO_TCP &&
				    cases[i].port <= n ? NF_ACCEPT : NF_DROP;
		struct pkt p;
		__u32 got = ~0U;

		memset(&p, 0, sizeof(p));
		p.d[12] = 8;
		p.d[14] = 0x45;
		p.d[14 + 9] = (unsigned char)cases[i].proto;
		p.d[14 + 20 + 2] = (unsigned char)(cases[i].port >> 8);
		p.d[14 + 20 + 3] = (unsigned char)cases[i].port;
		p.d[14 + 20 + 12] = 0x50;	/* tcp doff 5 */
		p.len = 40;
		p.hook = NF_INET_LOCAL_IN;
		if (prog_run(l.prog, &p, &got) || got != want) {
			tap_diag("%s port %u: verdict %u, want %u",
				 cases[i].proto == IPPROTO_TCP ? "tcp" : "udp",
				 cases[i].port, got, want);
			bad++;
		}
		if (want != NF_ACCEPT)
			continue;
		memset(&cnt, 0, sizeof(cnt));
		if (read_counter(l.counters, cases[i].port - 1, &cnt) ||
		    cnt.pcnt != 1 || cnt.bcnt != p.len) {
			tap_diag("rule %u: counters %llu/%llu, want 1/%u",
				 cases[i].port - 1,
				 (unsigned long long)cnt.pcnt,
				 (unsigned long long)cnt.bcnt, p.len);
			bad++;
		}
	}
	ok(!bad && bp.n_trees == (n + 4095) / 4096,
	   "%u port rules: %u insns, %u decision trees, verdicts and the accepting rules' counters right",
	   n, bp.n_insns, bp.n_trees);
	unload(&l);
out:
	ipt_bpf_free(&bp);
	ipt_table_free(&t);
}

int main(void)
{
	const char *seed_env = getenv("IPT_BPF_SEED");
	const char *no_bpf, *caps;
	uint64_t seed;

	tap_watchdog(120);
	seed = seed_env ? strtoull(seed_env, NULL, 0) :
			  (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (!seed)
		seed = 1;
	tap_diag("seed %llu (IPT_BPF_SEED=%llu replays this run)",
		 (unsigned long long)seed, (unsigned long long)seed);
	ncpus = ibl_possible_cpus();
	no_bpf = bpf_unavailable();
	if (!no_bpf) {
		caps = keep_only_cap_bpf();
		if (caps)
			tap_diag("could not drop to CAP_BPF alone (%s): loading with the caller's capabilities",
				 caps);
		else
			tap_diag("loading with CAP_BPF alone, as the module does");
		if (ncpus < 1)
			no_bpf = "cannot read /sys/devices/system/cpu/possible";
	}
	/* first: glibc keeps what qsort() learnt once in a process */
	test_sandboxed(seed);
	test_init_filter();
	test_limits();
	test_too_many_ifaces();
	test_random(no_bpf, seed, false, 0);
	test_random(no_bpf, seed, true, 0);
	test_random(no_bpf, seed, false, 126);
	test_big(no_bpf);
	test_port_tree(no_bpf, 2048);
	test_port_tree(no_bpf, 10000);
	test_cover_runs(no_bpf, 20000);
	return tap_done();
}
