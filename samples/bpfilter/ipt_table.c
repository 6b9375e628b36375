// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ipt_table: the bpfilter helper's model of one iptables table.
 *
 * ipt_table_translate() makes the checks of netfilter's translate_table()
 * (net/ipv4/netfilter/ip_tables.c, Linux 6.1) and its callees, in the same
 * order and with the same errno, so that a table the real ip_tables refuses
 * is refused here with the same error, and one it accepts is accepted and
 * reported back byte for byte as GET_ENTRIES would:
 *
 *  1. per entry, walking next_offset (check_entry_size_and_hooks()):
 *     alignment, header inside the blob, next_offset inside the blob and
 *     not below ipt_entry + xt_entry_target, ip_checkentry(),
 *     xt_check_entry_offsets() (target offset and size, standard target
 *     size and verdict, ERROR target size and name, the matches tiling
 *     the space up to the target), hook entries and underflows
 *     (check_underflow(): unconditional standard ACCEPT or DROP);
 *  2. the number of entries walked equals num_entries;
 *  3. xt_check_table_hooks(): every valid hook has an entry and an
 *     underflow, both strictly ascending in hook order;
 *  4. mark_source_chains(): jumps land on entry starts, no chain falls off
 *     the end, no loops (-ELOOP); it leaves the hook bits in comefrom;
 *  5. per entry (find_check_entry()): each match, then the target, is
 *     looked up (-ENOENT when unknown, as after a failed request_module())
 *     and checked (data size, protocol, the extension's checkentry).
 *
 * The size checks of do_replace() (num_counters, the size limit of
 * xt_alloc_table_info()) and the comparison with the current table in
 * __do_replace() are the caller's.
 *
 * Supported extensions: the standard target (""), ERROR, and the matches
 * tcp, udp, icmp (revision 0), multiport (revision 1, the only one Linux
 * 6.1 registers) and comment (revision 0).  Anything else is refused as
 * netfilter refuses an extension whose module is missing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_tcpudp.h>

#include "ipt_table.h"

/* net/netfilter/x_tables.c */
#define XT_MAX_TABLE_SIZE	(512U * 1024U * 1024U)

#define ENTRY_ALIGN	_Alignof(struct ipt_entry)
#define MATCH_ALIGN	_Alignof(struct xt_entry_match)
#define ENTRY_HDR	sizeof(struct ipt_entry)
#define MIN_ENTRY	(sizeof(struct ipt_entry) + \
			 sizeof(struct xt_entry_target))
/* comefrom bit meaning "on the path being walked" in mark_source_chains() */
#define ON_PATH		(1U << NF_INET_NUMHOOKS)

/* Offsets inside xt_entry_match / xt_entry_target (the same layout). */
#define OBJ_SIZE_OFF	offsetof(struct xt_entry_target, u.user.target_size)
#define OBJ_NAME_OFF	offsetof(struct xt_entry_target, u.user.name)
#define OBJ_REV_OFF	offsetof(struct xt_entry_target, u.user.revision)
#define OBJ_HDR		sizeof(struct xt_entry_target)
#define OBJ_NAME_LEN	XT_EXTENSION_MAXNAMELEN

_Static_assert(sizeof(struct xt_entry_match) == sizeof(struct xt_entry_target),
	       "match and target headers differ");
_Static_assert(offsetof(struct xt_entry_match, u.user.name) == OBJ_NAME_OFF,
	       "match and target names differ");

/*
 * Targets and matches are read through these: a target may sit at any
 * offset (xt_check_entry_offsets() does not require it to be aligned).
 */
static unsigned int rd16(const unsigned char *p)
{
	__u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static int rd_verdict(const unsigned char *t)
{
	int v;

	memcpy(&v, t + offsetof(struct xt_standard_target, verdict), sizeof(v));
	return v;
}

/* strcmp(name, XT_STANDARD_TARGET) == 0 */
static bool name_is_standard(const unsigned char *obj)
{
	return obj[OBJ_NAME_OFF] == '\0';
}

/* strcmp(name, XT_ERROR_TARGET) == 0, reading no further than strcmp */
static bool name_is_error(const unsigned char *obj)
{
	return memcmp(obj + OBJ_NAME_OFF, XT_ERROR_TARGET,
		      sizeof(XT_ERROR_TARGET)) == 0;
}

/* ---- extensions ---- */

struct ipt_ext {
	const char *name;
	unsigned char revision;
	/* registered for NFPROTO_UNSPEC rather than NFPROTO_IPV4 */
	bool unspec;
	/* matchsize / targetsize: the data is XT_ALIGN() of it */
	unsigned int size;
	/* the ip.proto the extension requires (xt_check_match()), or 0 */
	unsigned int proto;
	int (*check)(const struct ipt_entry *e, const unsigned char *data);
};

static int tcp_check(const struct ipt_entry *e, const unsigned char *data)
{
	struct xt_tcp m;

	(void)e;
	memcpy(&m, data, sizeof(m));
	return (m.invflags & ~XT_TCP_INV_MASK) ? -EINVAL : 0;
}

static int udp_check(const struct ipt_entry *e, const unsigned char *data)
{
	struct xt_udp m;

	(void)e;
	memcpy(&m, data, sizeof(m));
	return (m.invflags & ~XT_UDP_INV_MASK) ? -EINVAL : 0;
}

static int icmp_check(const struct ipt_entry *e, const unsigned char *data)
{
	struct ipt_icmp m;

	(void)e;
	memcpy(&m, data, sizeof(m));
	return (m.invflags & ~IPT_ICMP_INV) ? -EINVAL : 0;
}

static int multiport_check(const struct ipt_entry *e,
			   const unsigned char *data)
{
	struct xt_multiport_v1 m;
	unsigned int proto = e->ip.proto;
	unsigned int i;

	memcpy(&m, data, sizeof(m));
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP &&
	    proto != IPPROTO_UDPLITE && proto != IPPROTO_SCTP &&
	    proto != IPPROTO_DCCP)
		return -EINVAL;
	if (e->ip.invflags & XT_INV_PROTO)
		return -EINVAL;
	if (m.flags != XT_MULTIPORT_SOURCE &&
	    m.flags != XT_MULTIPORT_DESTINATION &&
	    m.flags != XT_MULTIPORT_EITHER)
		return -EINVAL;
	if (m.count > XT_MULTI_PORTS)
		return -EINVAL;
	/* A range is a flagged port followed by an unflagged, larger one. */
	for (i = 0; i < m.count; i++) {
		if (!m.pflags[i])
			continue;
		if (++i >= m.count)
			return -EINVAL;
		if (m.pflags[i])
			return -EINVAL;
		if (m.ports[i - 1] > m.ports[i])
			return -EINVAL;
	}
	return 0;
}

static const struct ipt_ext ipt_matches[] = {
	{ "tcp", 0, false, sizeof(struct xt_tcp), IPPROTO_TCP, tcp_check },
	{ "udp", 0, false, sizeof(struct xt_udp), IPPROTO_UDP, udp_check },
	{ "icmp", 0, false, sizeof(struct ipt_icmp), IPPROTO_ICMP,
	  icmp_check },
	{ "multiport", 1, false, sizeof(struct xt_multiport_v1), 0,
	  multiport_check },
	{ "comment", 0, true, sizeof(struct xt_comment_info), 0, NULL },
};

static const struct ipt_ext ipt_targets[] = {
	{ XT_STANDARD_TARGET, 0, false, sizeof(int), 0, NULL },
	{ XT_ERROR_TARGET, 0, false, XT_FUNCTION_MAXNAMELEN, 0, NULL },
};

#define N_MATCHES	(sizeof(ipt_matches) / sizeof(ipt_matches[0]))
#define N_TARGETS	(sizeof(ipt_targets) / sizeof(ipt_targets[0]))

/*
 * xt_request_find_match() / xt_request_find_target() for @obj (a match or
 * target header).  xt_find_match() searches the NFPROTO_IPV4 list, then
 * returns whatever the NFPROTO_UNSPEC search returns: a revision mismatch
 * is -EPROTOTYPE only for an extension registered as NFPROTO_UNSPEC, and
 * -ENOENT for one registered as NFPROTO_IPV4.
 */
static int ext_find(const struct ipt_ext *tab, size_t n,
		    const unsigned char *obj, const struct ipt_ext **found)
{
	const char *name = (const char *)obj + OBJ_NAME_OFF;
	unsigned int rev = obj[OBJ_REV_OFF];
	int err = -ENOENT;
	size_t i;

	if (!memchr(name, '\0', OBJ_NAME_LEN))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!tab[i].unspec && strcmp(tab[i].name, name) == 0 &&
		    tab[i].revision == rev) {
			*found = &tab[i];
			return 0;
		}
	}
	for (i = 0; i < n; i++) {
		if (!tab[i].unspec || strcmp(tab[i].name, name) != 0)
			continue;
		if (tab[i].revision == rev) {
			*found = &tab[i];
			return 0;
		}
		err = -EPROTOTYPE;
	}
	return err;
}

/**
 * ipt_revision() - answer IPT_SO_GET_REVISION_MATCH / _TARGET
 * @name:	extension name (at most XT_EXTENSION_MAXNAMELEN - 1 chars
 *		are used, as the kernel truncates it)
 * @revision:	the revision asked about
 * @target:	1 for a target, 0 for a match
 *
 * Like xt_find_revision() over the extensions this sample supports.
 *
 * Return: the highest supported revision if @revision is supported,
 * -EPROTONOSUPPORT if @name is known but not @revision, -ENOENT if @name
 * is unknown.
 */
int ipt_revision(const char *name, unsigned int revision, int target)
{
	const struct ipt_ext *tab = target ? ipt_targets : ipt_matches;
	size_t n = target ? N_TARGETS : N_MATCHES;
	char buf[XT_EXTENSION_MAXNAMELEN];
	size_t len = strnlen(name, sizeof(buf) - 1);
	bool have = false;
	int best = -1;
	size_t i;

	memcpy(buf, name, len);
	buf[len] = '\0';
	for (i = 0; i < n; i++) {
		if (strcmp(tab[i].name, buf) != 0)
			continue;
		if ((int)tab[i].revision > best)
			best = tab[i].revision;
		if (tab[i].revision == revision)
			have = true;
	}
	if (best < 0)
		return -ENOENT;
	return have ? best : -EPROTONOSUPPORT;
}

/* ---- translation ---- */

struct xlate {
	const struct ipt_replace *repl;
	unsigned char *base;		/* working copy of the entries */
	unsigned int size;
	unsigned int number;
	unsigned int hook_entry[NF_INET_NUMHOOKS];
	unsigned int underflow[NF_INET_NUMHOOKS];
	unsigned int *offsets;		/* start of each entry, ascending */
	char *why;
	size_t why_len;
};

static __attribute__((format(printf, 5, 6)))
int fail(struct xlate *x, int err, long idx, unsigned int off,
	 const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!x->why || !x->why_len)
		return err;
	if (idx >= 0)
		n = snprintf(x->why, x->why_len, "entry %ld (offset %u): ",
			     idx, off);
	if (n < 0 || (size_t)n >= x->why_len)
		return err;
	va_start(ap, fmt);
	vsnprintf(x->why + n, x->why_len - n, fmt, ap);
	va_end(ap);
	return err;
}

static struct ipt_entry *entry_at(const struct xlate *x, unsigned int off)
{
	return (struct ipt_entry *)(void *)(x->base + off);
}

/* All-zero ipt_ip and no matches (unconditional()). */
static bool unconditional(const struct ipt_entry *e)
{
	static const struct ipt_ip uncond;

	return e->target_offset == sizeof(struct ipt_entry) &&
	       memcmp(&e->ip, &uncond, sizeof(uncond)) == 0;
}

static bool verdict_ok(int verdict)
{
	if (verdict > 0)
		return true;
	if (verdict == XT_RETURN)
		return true;
	return verdict == -NF_ACCEPT - 1 || verdict == -NF_DROP - 1 ||
	       verdict == -NF_QUEUE - 1;
}

/* xt_check_entry_offsets(); the entry's next_offset bytes are readable. */
static int check_entry_offsets(struct xlate *x, unsigned int off, long idx)
{
	const struct ipt_entry *e = entry_at(x, off);
	const unsigned char *p = x->base + off;
	unsigned int toff = e->target_offset, noff = e->next_offset;
	const unsigned char *t;
	unsigned int tsize, moff;
	long length;

	if (toff < ENTRY_HDR)
		return fail(x, -EINVAL, idx, off, "target_offset %u inside the header",
			    toff);
	if (toff + OBJ_HDR > noff)
		return fail(x, -EINVAL, idx, off,
			    "target_offset %u leaves no room for a target",
			    toff);
	t = p + toff;
	tsize = rd16(t + OBJ_SIZE_OFF);
	if (tsize < OBJ_HDR)
		return fail(x, -EINVAL, idx, off, "target size %u too small",
			    tsize);
	if (toff + tsize > noff)
		return fail(x, -EINVAL, idx, off, "target size %u past next_offset",
			    tsize);
	if (name_is_standard(t)) {
		if (XT_ALIGN(toff + sizeof(struct xt_standard_target)) != noff)
			return fail(x, -EINVAL, idx, off,
				    "standard target: bad next_offset %u",
				    noff);
		if (!verdict_ok(rd_verdict(t)))
			return fail(x, -EINVAL, idx, off, "bad verdict %d",
				    rd_verdict(t));
	} else if (name_is_error(t)) {
		if (tsize != sizeof(struct xt_error_target) ||
		    !memchr(t + OBJ_HDR, '\0', XT_FUNCTION_MAXNAMELEN))
			return fail(x, -EINVAL, idx, off, "bad ERROR target");
	}

	/* xt_check_entry_match(): the matches tile [elems, target). */
	length = (long)toff - (long)ENTRY_HDR;
	moff = ENTRY_HDR;
	while (length > 0) {
		unsigned int msize;

		if ((off + moff) % MATCH_ALIGN)
			return fail(x, -EINVAL, idx, off,
				    "match at +%u misaligned", moff);
		if (length < (long)OBJ_HDR)
			return fail(x, -EINVAL, idx, off,
				    "match at +%u truncated", moff);
		msize = rd16(p + moff + OBJ_SIZE_OFF);
		if (msize < OBJ_HDR)
			return fail(x, -EINVAL, idx, off,
				    "match at +%u: size %u too small",
				    moff, msize);
		if ((long)msize > length)
			return fail(x, -EINVAL, idx, off,
				    "match at +%u: size %u past the target",
				    moff, msize);
		length -= msize;
		moff += msize;
	}
	return 0;
}

/* check_underflow(): unconditional standard ACCEPT or DROP */
static bool check_underflow(const struct ipt_entry *e)
{
	const unsigned char *t = (const unsigned char *)e + e->target_offset;
	unsigned int verdict;

	if (!unconditional(e))
		return false;
	if (!name_is_standard(t))
		return false;
	verdict = (unsigned int)rd_verdict(t);
	verdict = -verdict - 1;
	return verdict == NF_DROP || verdict == NF_ACCEPT;
}

/* check_entry_size_and_hooks() for the entry at @off (no read yet). */
static int check_entry(struct xlate *x, unsigned int off, long idx)
{
	const struct ipt_replace *r = x->repl;
	struct ipt_entry *e;
	unsigned int h;
	int err;

	if (off % ENTRY_ALIGN ||
	    (uint64_t)off + ENTRY_HDR >= x->size)
		return fail(x, -EINVAL, idx, off, "misaligned or truncated");
	e = entry_at(x, off);
	if ((uint64_t)off + e->next_offset > x->size)
		return fail(x, -EINVAL, idx, off,
			    "next_offset %u past the end",
			    e->next_offset);
	if (e->next_offset < MIN_ENTRY)
		return fail(x, -EINVAL, idx, off, "next_offset %u too small",
			    e->next_offset);
	if ((e->ip.flags & ~IPT_F_MASK) || (e->ip.invflags & ~IPT_INV_MASK))
		return fail(x, -EINVAL, idx, off,
			    "bad ip flags 0x%x/invflags 0x%x",
			    e->ip.flags, e->ip.invflags);
	err = check_entry_offsets(x, off, idx);
	if (err)
		return err;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(r->valid_hooks & (1U << h)))
			continue;
		if (off == r->hook_entry[h])
			x->hook_entry[h] = r->hook_entry[h];
		if (off == r->underflow[h]) {
			if (!check_underflow(e))
				return fail(x, -EINVAL, idx, off,
					    "hook %u underflow is not an unconditional ACCEPT or DROP",
					    h);
			x->underflow[h] = r->underflow[h];
		}
	}
	memset(&e->counters, 0, sizeof(e->counters));
	e->comefrom = 0;
	return 0;
}

/* xt_check_table_hooks() */
static int check_table_hooks(struct xlate *x)
{
	unsigned int h, max_entry = 0, max_uflow = 0;
	bool seen = false;

	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(x->repl->valid_hooks & (1U << h)))
			continue;
		if (x->hook_entry[h] == 0xFFFFFFFF)
			return fail(x, -EINVAL, -1, 0,
				    "hook %u: entry %u is not at an entry",
				    h, x->repl->hook_entry[h]);
		if (x->underflow[h] == 0xFFFFFFFF)
			return fail(x, -EINVAL, -1, 0,
				    "hook %u: underflow %u is not at an entry",
				    h, x->repl->underflow[h]);
		if (seen && (max_uflow >= x->underflow[h] ||
			     max_entry >= x->hook_entry[h]))
			return fail(x, -EINVAL, -1, 0,
				    "hook %u: entry or underflow unsorted or duplicate",
				    h);
		max_entry = x->hook_entry[h];
		max_uflow = x->underflow[h];
		seen = true;
	}
	return 0;
}

/* xt_find_jump_offset() */
static bool find_jump(const struct xlate *x, unsigned int target)
{
	size_t lo = 0, hi = x->number;

	while (hi > lo) {
		size_t m = lo + (hi - lo) / 2;

		if (x->offsets[m] > target)
			hi = m;
		else if (x->offsets[m] < target)
			lo = m + 1;
		else
			return true;
	}
	return false;
}

/*
 * mark_source_chains(): walk every hook's chains without recursion, the
 * back pointers kept in counters.pcnt of the working copy, the hooks that
 * reach an entry in its comefrom, and ON_PATH on the entries of the path
 * being walked.  Every position it visits is an entry start (hook entries
 * and jumps are checked to be, fall-throughs follow next_offset), so no
 * access leaves the blob.  The walk ends by itself (an entry is entered
 * afresh at most once per hook); the step cap only guards against a
 * mistake here turning into a hang.
 */
static int mark_source_chains(struct xlate *x)
{
	uint64_t cap = 4 * (uint64_t)x->number + 16;
	unsigned int hook;

	for (hook = 0; hook < NF_INET_NUMHOOKS; hook++) {
		unsigned int pos = x->hook_entry[hook];
		struct ipt_entry *e;
		uint64_t steps = 0;

		if (!(x->repl->valid_hooks & (1U << hook)))
			continue;
		e = entry_at(x, pos);
		e->counters.pcnt = pos;
		for (;;) {
			const unsigned char *t = (unsigned char *)e +
						 e->target_offset;
			bool std = name_is_standard(t);
			int verdict = std ? rd_verdict(t) : 0;
			bool visited = e->comefrom & (1U << hook);

			if (++steps > cap || e->comefrom & ON_PATH)
				return fail(x, -ELOOP, -1, 0,
					    "hook %u: loop at offset %u",
					    hook, pos);
			e->comefrom |= (1U << hook) | ON_PATH;

			if ((unconditional(e) && std && verdict < 0) ||
			    visited) {
				unsigned int oldpos, size;

				/* Return: back to the last real jump. */
				do {
					e->comefrom ^= ON_PATH;
					oldpos = pos;
					pos = (unsigned int)e->counters.pcnt;
					e->counters.pcnt = 0;
					if (pos == oldpos)
						goto next;
					e = entry_at(x, pos);
				} while (oldpos == (uint64_t)pos +
						   e->next_offset);
				size = e->next_offset;
				if ((uint64_t)pos + size >= x->size)
					return fail(x, -ELOOP, -1, 0,
						    "hook %u: chain at %u falls off the end",
						    hook, pos);
				e = entry_at(x, pos + size);
				e->counters.pcnt = pos;
				pos += size;
			} else {
				uint64_t newpos;

				if (std && verdict >= 0) {
					newpos = (unsigned int)verdict;
					if (!find_jump(x, verdict))
						return fail(x, -ELOOP, -1, 0,
							    "offset %u: jump to %d is not an entry",
							    pos, verdict);
				} else {
					newpos = (uint64_t)pos + e->next_offset;
					if (newpos >= x->size)
						return fail(x, -ELOOP, -1, 0,
							    "offset %u: falls off the end",
							    pos);
				}
				e = entry_at(x, (unsigned int)newpos);
				e->counters.pcnt = pos;
				pos = (unsigned int)newpos;
			}
		}
next:		;
	}
	return 0;
}

/*
 * Write one match or target as xt_match_to_user()/xt_target_to_user()
 * do: the size, the kernel's name with its NUL, the revision, the first
 * ext->size bytes of data and zeroes up to XT_ALIGN(ext->size).  The
 * kernel leaves the name bytes after the NUL as they were in the caller's
 * buffer; they stay zero here (@dst is zeroed).
 */
static void obj_to_user(unsigned char *dst, const unsigned char *src,
			const struct ipt_ext *ext)
{
	memcpy(dst + OBJ_SIZE_OFF, src + OBJ_SIZE_OFF, sizeof(__u16));
	memcpy(dst + OBJ_NAME_OFF, ext->name, strlen(ext->name) + 1);
	dst[OBJ_REV_OFF] = ext->revision;
	memcpy(dst + OBJ_HDR, src + OBJ_HDR, ext->size);
}

/*
 * find_check_entry() for the entry at @off, then its GET_ENTRIES form into
 * @out (zeroed): the header up to comefrom as it is now, zero counters,
 * the matches and target as obj_to_user() writes them, and zero in any
 * bytes between the target's end and next_offset (never written by
 * copy_entries_to_user()).
 */
static int find_check_entry(struct xlate *x, unsigned int off, long idx,
			    unsigned char *out)
{
	const struct ipt_entry *e = entry_at(x, off);
	const unsigned char *p = x->base + off;
	unsigned int proto = e->ip.proto;
	bool inv_proto = e->ip.invflags & IPT_INV_PROTO;
	const struct ipt_ext *ext;
	unsigned int moff, tsize;
	int err;

	memcpy(out, p, offsetof(struct ipt_entry, counters));
	for (moff = ENTRY_HDR; moff < e->target_offset;
	     moff += rd16(p + moff + OBJ_SIZE_OFF)) {
		const unsigned char *m = p + moff;
		unsigned int msize = rd16(m + OBJ_SIZE_OFF);

		err = ext_find(ipt_matches, N_MATCHES, m, &ext);
		if (err)
			return fail(x, err, idx, off,
				    "match '%.*s' rev %u not supported",
				    OBJ_NAME_LEN,
				    (const char *)m + OBJ_NAME_OFF,
				    m[OBJ_REV_OFF]);
		if (XT_ALIGN(ext->size) != msize - (unsigned int)OBJ_HDR)
			return fail(x, -EINVAL, idx, off,
				    "match '%s': data size %u, want %u",
				    ext->name, msize - (unsigned int)OBJ_HDR,
				    (unsigned int)XT_ALIGN(ext->size));
		if (ext->proto && (ext->proto != proto || inv_proto))
			return fail(x, -EINVAL, idx, off,
				    "match '%s' needs -p %u", ext->name,
				    ext->proto);
		if (ext->check) {
			err = ext->check(e, m + OBJ_HDR);
			if (err)
				return fail(x, err, idx, off,
					    "match '%s': bad parameters",
					    ext->name);
		}
		obj_to_user(out + moff, m, ext);
	}

	p += e->target_offset;
	err = ext_find(ipt_targets, N_TARGETS, p, &ext);
	if (err)
		return fail(x, err, idx, off, "target '%.*s' rev %u not supported",
			    OBJ_NAME_LEN, (const char *)p + OBJ_NAME_OFF,
			    p[OBJ_REV_OFF]);
	tsize = rd16(p + OBJ_SIZE_OFF);
	if (XT_ALIGN(ext->size) != tsize - (unsigned int)OBJ_HDR)
		return fail(x, -EINVAL, idx, off,
			    "target '%s': data size %u, want %u",
			    ext->name, tsize - (unsigned int)OBJ_HDR,
			    (unsigned int)XT_ALIGN(ext->size));
	obj_to_user(out + e->target_offset, p, ext);
	return 0;
}

/**
 * ipt_table_translate() - validate and translate a replacement table
 * @repl:	the ipt_replace header (name, valid_hooks, num_entries, size,
 *		hook_entry, underflow are used)
 * @entries:	@repl->size bytes of entries
 * @nt:		filled in with the new table on success, untouched otherwise
 * @why:	a one-line reason on failure (may be NULL)
 * @why_len:	size of @why
 *
 * Makes translate_table()'s checks in its order (see the top of this
 * file).  The translated entries are what GET_ENTRIES returns for them,
 * with zero counters.
 *
 * Return: 0, or the errno netfilter returns for the same table: -EINVAL,
 * -ELOOP, -ENOENT, -EPROTOTYPE, -ENOMEM.
 */
int ipt_table_translate(const struct ipt_replace *repl, const void *entries,
			struct ipt_table *nt, char *why, size_t why_len)
{
	struct xlate x = {
		.repl = repl,
		.size = repl->size,
		.number = repl->num_entries,
		.why = why,
		.why_len = why_len,
	};
	unsigned char *out = NULL;
	struct xt_counters *counters = NULL;
	unsigned int off, i, cap;
	int err;

	if (why && why_len)
		why[0] = '\0';
	memset(x.hook_entry, 0xFF, sizeof(x.hook_entry));
	memset(x.underflow, 0xFF, sizeof(x.underflow));

	/*
	 * xt_alloc_entry_offsets(): more than this is -ENOMEM.  Below it the
	 * kernel allocates num_entries offsets; no more than size/MIN_ENTRY
	 * entries can pass the checks, so that is all we allocate (a table
	 * with more num_entries is -EINVAL below, where the kernel might
	 * already have failed the allocation with -ENOMEM).
	 */
	if (x.number > XT_MAX_TABLE_SIZE / sizeof(unsigned int))
		return fail(&x, -ENOMEM, -1, 0, "%u entries: too many", x.number);
	cap = x.size / MIN_ENTRY;
	if (cap > x.number)
		cap = x.number;
	x.offsets = malloc((cap ? cap : 1) * sizeof(*x.offsets));
	x.base = malloc(x.size ? x.size : 1);
	if (!x.offsets || !x.base) {
		err = fail(&x, -ENOMEM, -1, 0, "out of memory");
		goto out;
	}
	if (x.size)
		memcpy(x.base, entries, x.size);

	i = 0;
	for (off = 0; off < x.size; off += entry_at(&x, off)->next_offset) {
		err = check_entry(&x, off, i);
		if (err)
			goto out;
		if (i < cap)
			x.offsets[i] = off;
		i++;
	}
	if (i != x.number) {
		err = fail(&x, -EINVAL, -1, 0, "%u entries, num_entries says %u",
			   i, x.number);
		goto out;
	}
	err = check_table_hooks(&x);
	if (err)
		goto out;
	err = mark_source_chains(&x);
	if (err)
		goto out;

	out = calloc(1, x.size ? x.size : 1);
	counters = calloc(x.number ? x.number : 1, sizeof(*counters));
	if (!out || !counters) {
		err = fail(&x, -ENOMEM, -1, 0, "out of memory");
		goto out;
	}
	i = 0;
	for (off = 0; off < x.size; off += entry_at(&x, off)->next_offset) {
		err = find_check_entry(&x, off, i++, out + off);
		if (err)
			goto out;
	}

	memset(nt, 0, sizeof(*nt));
	memcpy(nt->name, repl->name, sizeof(nt->name) - 1);
	nt->valid_hooks = repl->valid_hooks;
	memcpy(nt->hook_entry, x.hook_entry, sizeof(nt->hook_entry));
	memcpy(nt->underflow, x.underflow, sizeof(nt->underflow));
	nt->number = x.number;
	nt->size = x.size;
	nt->entries = out;
	nt->counters = counters;
	out = NULL;
	counters = NULL;
	err = 0;
out:
	free(out);
	free(counters);
	free(x.base);
	free(x.offsets);
	return err;
}

/**
 * ipt_table_dump() - the bytes GET_ENTRIES returns
 * @t:		the table
 * @dst:	t->size bytes
 *
 * The entries with each one's counters filled in from t->counters.
 */
void ipt_table_dump(const struct ipt_table *t, void *dst)
{
	unsigned char *d = dst;
	unsigned int off, i = 0;

	if (!t->size)
		return;
	memcpy(d, t->entries, t->size);
	for (off = 0; off < t->size && i < t->number; i++) {
		struct ipt_entry e;

		memcpy(&e, d + off, sizeof(e));
		memcpy(d + off + offsetof(struct ipt_entry, counters),
		       &t->counters[i], sizeof(t->counters[i]));
		off += e.next_offset;
	}
}

/**
 * ipt_table_init_filter() - the filter table as iptable_filter creates it
 * @t:	filled in
 *
 * INPUT, FORWARD and OUTPUT with ACCEPT policies (iptable_filter's default
 * forward=1) and the final ERROR entry, translated as ipt_register_table()
 * translates it, so comefrom, hooks, size and number are the kernel's.
 *
 * Return: 0 or -ENOMEM.
 */
int ipt_table_init_filter(struct ipt_table *t)
{
	/* the sizes of the kernel-only struct ipt_standard and ipt_error */
	enum {
		STD_SIZE = XT_ALIGN(sizeof(struct ipt_entry) +
				    sizeof(struct xt_standard_target)),
		ERR_SIZE = XT_ALIGN(sizeof(struct ipt_entry) +
				    sizeof(struct xt_error_target)),
	};
	static const unsigned int hooks = (1U << NF_INET_LOCAL_IN) |
					  (1U << NF_INET_FORWARD) |
					  (1U << NF_INET_LOCAL_OUT);
	_Alignas(struct ipt_entry) unsigned char blob[3 * STD_SIZE + ERR_SIZE];
	struct xt_standard_target st;
	struct xt_error_target et;
	struct ipt_replace repl;
	struct ipt_entry *e;
	unsigned int h, off = 0;

	memset(blob, 0, sizeof(blob));
	memset(&repl, 0, sizeof(repl));
	strcpy(repl.name, "filter");
	repl.valid_hooks = hooks;
	repl.num_entries = 4;
	repl.size = sizeof(blob);

	memset(&st, 0, sizeof(st));
	st.target.u.user.target_size = XT_ALIGN(sizeof(st));
	st.verdict = -NF_ACCEPT - 1;
	for (h = 0; h < NF_INET_NUMHOOKS; h++) {
		if (!(hooks & (1U << h)))
			continue;
		repl.hook_entry[h] = off;
		repl.underflow[h] = off;
		e = (struct ipt_entry *)(void *)(blob + off);
		e->target_offset = sizeof(*e);
		e->next_offset = STD_SIZE;
		memcpy(blob + off + sizeof(*e), &st, sizeof(st));
		off += STD_SIZE;
	}

	memset(&et, 0, sizeof(et));
	et.target.u.user.target_size = XT_ALIGN(sizeof(et));
	strcpy(et.target.u.user.name, XT_ERROR_TARGET);
	strcpy(et.errorname, XT_ERROR_TARGET);
	e = (struct ipt_entry *)(void *)(blob + off);
	e->target_offset = sizeof(*e);
	e->next_offset = ERR_SIZE;
	memcpy(blob + off + sizeof(*e), &et, sizeof(et));

	return ipt_table_translate(&repl, blob, t, NULL, 0);
}

/**
 * ipt_table_free() - release a table's memory
 * @t:	the table; zeroed afterwards
 */
void ipt_table_free(struct ipt_table *t)
{
	free(t->entries);
	free(t->counters);
	memset(t, 0, sizeof(*t));
}
