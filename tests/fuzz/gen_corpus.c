// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gen_corpus: write the seed inputs of the fuzz targets.
 *
 *	gen_corpus DIR		writes DIR/{req,rep,helper,ipt}/seed-*
 *
 * The ruleset seeds are built with the blob builder of the unit tests
 * (tests/unit/test_ipt_table.c, compiled in with its main() renamed), so
 * they are the same valid tables the unit tests check.  The frame seeds
 * are one valid frame or stream per op of each protocol plus a few
 * refusals.  tests/fuzz/corpus holds this output merged (-merge=1) with
 * what fuzzing found; `make -C tests/fuzz seeds` regenerates it.
 */
#define main test_ipt_table_main
#include "../unit/test_ipt_table.c"
#undef main

#include <sys/stat.h>

#include "echo_proto.h"
#include "bpfilter_proto.h"

static const char *outdir;
static unsigned int nseed;

/* A growable byte string. */
struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *src, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = (b->len + len) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	if (len)
		memcpy(b->p + b->len, src, len);
	b->len += len;
}

static void put_u8(struct buf *b, unsigned int v)
{
	unsigned char c = (unsigned char)v;

	put(b, &c, 1);
}

static void put_u32(struct buf *b, __u32 v)
{
	put(b, &v, sizeof(v));
}

static void emit(const char *target, const char *name, struct buf *b)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, target);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/seed-%s", outdir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f)) {
		perror(path);
		exit(1);
	}
	free(b->p);
	memset(b, 0, sizeof(*b));
	nseed++;
}

/* A request frame: header (max_reply @mr) and @len payload bytes. */
static void frame(struct buf *b, __u16 op, __u32 id, const void *pl,
		  __u32 len, __u32 mr)
{
	struct umh_hdr h;

	umh_hdr_init(&h, op, id, len, 0, 0, mr);
	put(b, &h, sizeof(h));
	put(b, pl, len);
}

static void reply(struct buf *b, __u16 op, __u32 id, int status,
		  const void *pl, __u32 len)
{
	struct umh_hdr h;

	umh_hdr_init(&h, op, id, len, status, UMH_F_REPLY, 0);
	put(b, &h, sizeof(h));
	put(b, pl, len);
}

static void hello(struct buf *b, const struct umh_proto *p, __u32 id,
		  __u32 cap)
{
	struct umh_hello hq = { p->id, p->version, cap, 0, 0, 0 };

	frame(b, UMH_OP_HELLO, id, &hq, sizeof(hq), sizeof(hq));
}

/* The REPLACE payload of @b's table: ipt_replace and entries. */
static void replace_blob(struct buf *out, struct bld *b, unsigned int ncnt)
{
	b->repl->size = b->size;
	b->repl->num_entries = b->n;
	b->repl->num_counters = ncnt;
	put(out, b->repl, sizeof(*b->repl));
	put(out, b->buf, b->size);
}

static void seeds_ipt(void)
{
	struct full f;
	struct bld b;
	struct buf o = { 0 };
	unsigned int first, off;
	int v;

	b_filter(&b);
	replace_blob(&o, &b, 4);
	emit("ipt", "filter", &o);
	b_free(&b);

	b_full(&b, &f);
	replace_blob(&o, &b, 4);
	emit("ipt", "full", &o);
	b_free(&b);

	/* INPUT: two rules then the policy; a user chain reached by goto */
	b_init(&b);
	first = b_entry(&b, NULL);
	b_std(&b, V_DROP);
	b_entry(&b, NULL);
	b_std(&b, V_ACCEPT);
	b_tail(&b, first);
	replace_blob(&o, &b, 4);
	emit("ipt", "rules", &o);
	b_free(&b);

	/* the filter table with an unknown match: -ENOENT */
	b_init(&b);
	first = b_entry(&b, NULL);
	b_match(&b, "nosuch", 0, "abcd", 4);
	b_std(&b, V_ACCEPT);
	b_tail(&b, first);
	replace_blob(&o, &b, 4);
	emit("ipt", "unknown-match", &o);
	b_free(&b);

	/* a jump to itself: -ELOOP */
	b_init(&b);
	first = b_entry(&b, NULL);
	v = (int)first;
	b_std(&b, v);
	b_tail(&b, first);
	replace_blob(&o, &b, 4);
	emit("ipt", "loop", &o);
	b_free(&b);

	/* comment on every hook, NFPROTO_UNSPEC lookup with a bad revision */
	b_init(&b);
	{
		struct xt_comment_info cm;

		memset(&cm, 0, sizeof(cm));
		strcpy(cm.comment, "c");
		first = b_entry(&b, NULL);
		b_match(&b, "comment", 1, &cm, sizeof(cm));
		b_std(&b, V_ACCEPT);
	}
	b_tail(&b, first);
	replace_blob(&o, &b, 4);
	emit("ipt", "comment-rev1", &o);
	b_free(&b);
	(void)off;
}

/* [proto][cap][header][payload] */
static void req_seed(const char *name, int proto, __u32 cap, __u16 op,
		     const void *pl, __u32 len, __u32 mr)
{
	struct buf o = { 0 };

	put_u8(&o, proto);
	put_u32(&o, cap);
	frame(&o, op, 7, pl, len, mr);
	emit("req", name, &o);
}

static void seeds_req(void)
{
	struct umh_hello hq = { ECHO_PROTO_ID, 1, 0, 0, 0, 0 };
	struct echo_ping ping = { 1, 0 };
	struct echo_add add = { 2, 3 };
	struct echo_tag tag = { "tag" };
	struct ipt_getinfo gi;
	struct ipt_get_entries ge;
	struct bpfilter_rev_req rr;
	char text[64] = "hello, fuzzer";

	memset(&gi, 0, sizeof(gi));
	strcpy(gi.name, "filter");
	memset(&ge, 0, sizeof(ge));
	strcpy(ge.name, "filter");
	memset(&rr, 0, sizeof(rr));
	strcpy(rr.name, "tcp");

	req_seed("hello", 0, 0, UMH_OP_HELLO, &hq, sizeof(hq), sizeof(hq));
	req_seed("echo-ping", 0, 0, ECHO_OP_PING, &ping, sizeof(ping),
		 sizeof(struct echo_pong));
	req_seed("echo-add", 0, 4096, ECHO_OP_ADD, &add, sizeof(add),
		 sizeof(struct echo_sum));
	req_seed("echo-echo", 0, 32, ECHO_OP_ECHO, text, 20, 32);
	req_seed("echo-tag", 0, 0, ECHO_OP_TAG, &tag, sizeof(tag),
		 sizeof(tag));
	req_seed("echo-sink", 0, 0, ECHO_OP_SINK, text, sizeof(text), 16);
	req_seed("echo-unknown", 0, 0, 99, NULL, 0, 0);
	req_seed("bpf-getinfo", 1, 0, BPFILTER_OP_GET_INFO, &gi, sizeof(gi),
		 sizeof(gi));
	req_seed("bpf-getentries", 1, 0, BPFILTER_OP_GET_ENTRIES, &ge,
		 sizeof(ge), 1024);
	req_seed("bpf-rev", 1, 0, BPFILTER_OP_GET_REVISION, &rr, sizeof(rr),
		 sizeof(struct bpfilter_rev_rep));
	req_seed("bpf-replace", 1, 0, BPFILTER_OP_REPLACE, text, sizeof(text),
		 64);
}

/* [proto][cap][first id][ncalls-1] {[op][rep_cap]}... replies */
static void seeds_rep(void)
{
	struct umh_hello hp = { ECHO_PROTO_ID, 1, 1 << 20, 42, 0, 0 };
	struct echo_pong pong = { 1, 42, 1, "" };
	struct echo_sum sum = { 5 };
	struct ipt_getinfo gi;
	struct buf o = { 0 };

	put_u8(&o, 0);
	put_u32(&o, 0);
	put_u32(&o, 0);
	put_u8(&o, 3);
	put_u8(&o, UMH_OP_HELLO);
	put_u32(&o, 0);
	put_u8(&o, ECHO_OP_PING);
	put_u32(&o, sizeof(pong));
	put_u8(&o, ECHO_OP_ECHO);
	put_u32(&o, 100);
	put_u8(&o, ECHO_OP_ADD);
	put_u32(&o, sizeof(sum));
	reply(&o, UMH_OP_HELLO, 1, 0, &hp, sizeof(hp));
	reply(&o, ECHO_OP_ECHO, 3, 0, "echo me", 7);
	reply(&o, ECHO_OP_PING, 2, 0, &pong, sizeof(pong));
	reply(&o, ECHO_OP_ADD, 4, -EINVAL, NULL, 0);
	emit("rep", "echo", &o);

	memset(&gi, 0, sizeof(gi));
	strcpy(gi.name, "filter");
	put_u8(&o, 1);
	put_u32(&o, 4096);
	put_u32(&o, 0xfffffffe);	/* ids wrap */
	put_u8(&o, 2);
	put_u8(&o, BPFILTER_OP_GET_INFO);
	put_u32(&o, sizeof(gi));
	put_u8(&o, BPFILTER_OP_GET_ENTRIES);
	put_u32(&o, 2048);
	put_u8(&o, BPFILTER_OP_REPLACE);
	put_u32(&o, 64);
	reply(&o, BPFILTER_OP_GET_INFO, 0xffffffff, 0, &gi, sizeof(gi));
	reply(&o, BPFILTER_OP_REPLACE, 1, 0, "countersCOUNTERS", 16);
	reply(&o, BPFILTER_OP_GET_ENTRIES, 0, -EAGAIN, NULL, 0);
	emit("rep", "bpfilter", &o);
}

/* [proto] then a request stream */
static void seeds_helper(void)
{
	struct echo_ping ping = { 1, 0 };
	struct echo_add add = { -1, 3 };
	struct echo_sleep sl = { 5, 0 };
	struct echo_tag tag = { "tagged" };
	struct ipt_getinfo gi;
	struct ipt_get_entries ge;
	struct bpfilter_rev_req rr;
	struct xt_counters_info ci;
	struct xt_counters cnt[4];
	struct buf o = { 0 }, tbl = { 0 };
	struct bld b;
	struct full f;
	__u32 id = 0;

	put_u8(&o, 0);
	hello(&o, &echo_umh_proto, ++id, 0);
	frame(&o, ECHO_OP_PING, ++id, &ping, sizeof(ping),
	      sizeof(struct echo_pong));
	frame(&o, ECHO_OP_ADD, ++id, &add, sizeof(add), sizeof(struct echo_sum));
	frame(&o, ECHO_OP_ECHO, ++id, "some bytes", 10, 64);
	frame(&o, ECHO_OP_ECHO, ++id, "too long for it", 15, 4);
	frame(&o, ECHO_OP_SLEEP, ++id, &sl, sizeof(sl), sizeof(sl));
	frame(&o, ECHO_OP_SINK, ++id, "abcdefgh", 8, 16);
	frame(&o, ECHO_OP_TAG, ++id, &tag, sizeof(tag), sizeof(tag));
	frame(&o, ECHO_OP_PING, ++id, &ping, sizeof(ping), 4);
	frame(&o, 77, ++id, "x", 1, 0);
	emit("helper", "echo", &o);

	put_u8(&o, 0);
	hello(&o, &echo_umh_proto, ++id, 4096);
	frame(&o, ECHO_OP_ECHO, ++id, "abc", 3, 3);
	emit("helper", "echo-cap", &o);

	memset(&gi, 0, sizeof(gi));
	strcpy(gi.name, "filter");
	memset(&ge, 0, sizeof(ge));
	strcpy(ge.name, "filter");
	ge.size = 3 * STD_SIZE + ERR_SIZE;
	memset(&rr, 0, sizeof(rr));
	strcpy(rr.name, "multiport");
	rr.revision = 1;
	memset(&ci, 0, sizeof(ci));
	strcpy(ci.name, "filter");
	ci.num_counters = 4;
	memset(cnt, 0, sizeof(cnt));
	cnt[1].pcnt = 3;

	put_u8(&o, 1);
	hello(&o, &bpfilter_umh_proto, ++id, 0);
	frame(&o, BPFILTER_OP_GET_INFO, ++id, &gi, sizeof(gi), sizeof(gi));
	frame(&o, BPFILTER_OP_GET_ENTRIES, ++id, &ge, sizeof(ge), ge.size);
	frame(&o, BPFILTER_OP_GET_REVISION, ++id, &rr, sizeof(rr),
	      sizeof(struct bpfilter_rev_rep));
	{
		struct buf ac = { 0 };

		put(&ac, &ci, sizeof(ci));
		put(&ac, cnt, sizeof(cnt));
		frame(&o, BPFILTER_OP_ADD_COUNTERS, ++id, ac.p, ac.len,
		      sizeof(struct bpfilter_ack));
		free(ac.p);
	}
	b_full(&b, &f);
	replace_blob(&tbl, &b, 4);
	frame(&o, BPFILTER_OP_REPLACE, ++id, tbl.p, tbl.len,
	      4 * sizeof(struct xt_counters));
	ge.size = b.size;
	frame(&o, BPFILTER_OP_GET_ENTRIES, ++id, &ge, sizeof(ge), ge.size);
	frame(&o, BPFILTER_OP_GET_INFO, ++id, &gi, sizeof(gi), sizeof(gi));
	emit("helper", "bpfilter", &o);
	free(tbl.p);
	memset(&tbl, 0, sizeof(tbl));

	/* a RESTORE: the replace with num_counters == num_entries, counters */
	put_u8(&o, 1);
	replace_blob(&tbl, &b, b.n);
	{
		unsigned int i;
		struct xt_counters c = { 7, 700 };

		for (i = 0; i < b.n; i++)
			put(&tbl, &c, sizeof(c));
	}
	frame(&o, BPFILTER_OP_RESTORE, ++id, tbl.p, tbl.len,
	      sizeof(struct bpfilter_ack));
	frame(&o, BPFILTER_OP_GET_ENTRIES, ++id, &ge, sizeof(ge), ge.size);
	emit("helper", "bpfilter-restore", &o);
	free(tbl.p);
	b_free(&b);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	outdir = argv[1];
	mkdir(outdir, 0755);
	seeds_ipt();
	seeds_req();
	seeds_rep();
	seeds_helper();
	printf("%u seeds in %s\n", nseed, outdir);
	return 0;
}
