// SPDX-License-Identifier: GPL-2.0
/*
 * ipt_dump: print what the IPv4 iptables sockopt ABI answers, in a stable
 * text form, so two providers of that ABI (ip_tables and bpfilter) can be
 * compared with diff.
 *
 *   ipt_dump table [NAME]        GET_INFO, then GET_ENTRIES entry by entry
 *   ipt_dump info NAME...        GET_INFO result (or errno) per table
 *   ipt_dump rev m|t NAME REV... GET_REVISION_MATCH/TARGET per (NAME, REV)
 *
 * The GET_ENTRIES buffer is pre-filled with zeros, and every byte the
 * kernel returns is printed (matches and targets as hex), so padding
 * differences show up too.  Exit status: 0, or 1 when a call that must
 * succeed failed or the entries are malformed (the output says why).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <linux/netfilter_ipv4/ip_tables.h>

static const char *const hook_names[NF_INET_NUMHOOKS] = {
	"PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING",
};

static int raw_socket(void)
{
	int fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);

	if (fd < 0) {
		printf("socket: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

static void hex(const char *label, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	printf("%s(%zu)", label, len);
	for (i = 0; i < len; i++) {
		if (i % 32 == 0)
			printf("\n      ");
		printf("%02x", b[i]);
	}
	printf("\n");
}

static void addr(const char *label, struct in_addr a)
{
	char s[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &a, s, sizeof(s));
	printf(" %s=%s", label, s);
}

/* An interface name: the bytes up to the first NUL, escaped. */
static void iface(const char *label, const char *n, const unsigned char *mask)
{
	int i;

	printf(" %s='", label);
	for (i = 0; i < IFNAMSIZ && n[i]; i++) {
		unsigned char c = (unsigned char)n[i];

		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
	printf("' mask=");
	for (i = 0; i < IFNAMSIZ; i++)
		printf("%02x", mask[i]);
	/* bytes after the name's NUL must be zero; say so if not */
	for (i = (int)strnlen(n, IFNAMSIZ); i < IFNAMSIZ; i++)
		if (n[i]) {
			hex(" name-bytes", n, IFNAMSIZ);
			break;
		}
}

static int get_info(int fd, const char *name, struct ipt_getinfo *info)
{
	socklen_t len = sizeof(*info);
	int rc;

	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", name);
	rc = getsockopt(fd, IPPROTO_IP, IPT_SO_GET_INFO, info, &len);
	if (rc < 0)
		return -errno;
	if (len != sizeof(*info))
		printf("GET_INFO %s: returned length %u, expected %zu\n",
		       name, (unsigned int)len, sizeof(*info));
	return rc;
}

static void print_info(const struct ipt_getinfo *info)
{
	int h;

	printf("info name=%.*s valid_hooks=0x%x num_entries=%u size=%u\n",
	       (int)sizeof(info->name), info->name, info->valid_hooks,
	       info->num_entries, info->size);
	for (h = 0; h < NF_INET_NUMHOOKS; h++)
		printf("  hook %-11s entry=%u underflow=%u\n", hook_names[h],
		       info->hook_entry[h], info->underflow[h]);
}

/* One xt_entry_match or xt_entry_target at @p, at most @room bytes. */
static int print_ext(const char *kind, const unsigned char *p, size_t room)
{
	const struct xt_entry_match *m = (const void *)p;
	size_t size;

	if (room < sizeof(*m)) {
		printf("  BAD %s: %zu bytes left, header needs %zu\n", kind,
		       room, sizeof(*m));
		return -1;
	}
	size = m->u.user.match_size;
	printf("  %s size=%zu name='%.*s' revision=%u\n", kind, size,
	       (int)sizeof(m->u.user.name), m->u.user.name,
	       m->u.user.revision);
	if (size < sizeof(*m) || size > room) {
		printf("  BAD %s size %zu (room %zu)\n", kind, size, room);
		return -1;
	}
	hex("    name-bytes", m->u.user.name, sizeof(m->u.user.name));
	hex("    data", m->data, size - sizeof(*m));
	if (!strcmp(kind, "target") && m->u.user.name[0] == 0 &&
	    size >= sizeof(struct xt_standard_target)) {
		const struct xt_standard_target *st = (const void *)p;

		printf("    verdict=%d\n", st->verdict);
	}
	return (int)size;
}

static int dump_table(const char *name)
{
	struct ipt_getinfo info;
	struct ipt_get_entries *ge;
	socklen_t len;
	size_t off, total;
	int fd = raw_socket(), rc, idx = 0, bad = 0;

	rc = get_info(fd, name, &info);
	if (rc < 0) {
		printf("GET_INFO %s: %s\n", name, strerror(-rc));
		return 1;
	}
	print_info(&info);

	total = sizeof(*ge) + info.size;
	ge = malloc(total);
	if (!ge) {
		printf("out of memory\n");
		return 1;
	}
	memset(ge, 0, total);
	snprintf(ge->name, sizeof(ge->name), "%s", name);
	ge->size = info.size;
	len = (socklen_t)total;
	rc = getsockopt(fd, IPPROTO_IP, IPT_SO_GET_ENTRIES, ge, &len);
	if (rc < 0) {
		printf("GET_ENTRIES %s size %u: %s\n", name, info.size,
		       strerror(errno));
		return 1;
	}
	printf("entries rc=%d len=%u name=%.*s size=%u\n", rc,
	       (unsigned int)len, (int)sizeof(ge->name), ge->name, ge->size);

	for (off = 0; off < info.size; idx++) {
		const unsigned char *base = (const unsigned char *)ge->entrytable;
		const struct ipt_entry *e = (const void *)(base + off);
		const struct ipt_ip *ip = &e->ip;
		size_t room = info.size - off, m;
		int h;

		if (room < sizeof(*e)) {
			printf("BAD entry at %zu: %zu bytes left\n", off, room);
			bad = 1;
			break;
		}
		printf("entry %d offset=%zu", idx, off);
		for (h = 0; h < NF_INET_NUMHOOKS; h++) {
			if (!(info.valid_hooks & (1U << h)))
				continue;
			if (info.hook_entry[h] == off)
				printf(" [%s entry]", hook_names[h]);
			if (info.underflow[h] == off)
				printf(" [%s underflow]", hook_names[h]);
		}
		printf("\n ");
		addr("src", ip->src);
		addr("smsk", ip->smsk);
		addr("dst", ip->dst);
		addr("dmsk", ip->dmsk);
		printf("\n ");
		iface("in", ip->iniface, ip->iniface_mask);
		printf("\n ");
		iface("out", ip->outiface, ip->outiface_mask);
		printf("\n  proto=%u flags=0x%02x invflags=0x%02x\n",
		       ip->proto, ip->flags, ip->invflags);
		printf("  nfcache=0x%x target_offset=%u next_offset=%u comefrom=0x%x\n",
		       e->nfcache, e->target_offset, e->next_offset,
		       e->comefrom);
		printf("  counters pcnt=%llu bcnt=%llu\n",
		       (unsigned long long)e->counters.pcnt,
		       (unsigned long long)e->counters.bcnt);
		if (e->next_offset < sizeof(*e) || e->next_offset > room ||
		    e->target_offset < sizeof(*e) ||
		    e->target_offset > e->next_offset) {
			printf("BAD offsets\n");
			bad = 1;
			break;
		}
		for (m = sizeof(*e); m < e->target_offset;) {
			int s = print_ext("match", (const unsigned char *)e + m,
					  e->target_offset - m);
			if (s < 0) {
				bad = 1;
				break;
			}
			m += (size_t)s;
		}
		if (bad)
			break;
		if (print_ext("target", (const unsigned char *)e + e->target_offset,
			      e->next_offset - e->target_offset) < 0) {
			bad = 1;
			break;
		}
		off += e->next_offset;
	}
	printf("end entries=%d (num_entries %u)\n", idx, info.num_entries);
	free(ge);
	close(fd);
	return bad || (unsigned int)idx != info.num_entries;
}

static int info_tables(int argc, char **argv)
{
	int fd = raw_socket(), i;

	for (i = 0; i < argc; i++) {
		struct ipt_getinfo info;
		int rc = get_info(fd, argv[i], &info);

		if (rc < 0)
			printf("GET_INFO '%s': rc=-1 errno=%s\n", argv[i],
			       strerror(-rc));
		else
			print_info(&info);
	}
	close(fd);
	return 0;
}

static int revisions(int target, int argc, char **argv)
{
	int fd = raw_socket(), i;

	for (i = 0; i + 1 < argc; i += 2) {
		struct xt_get_revision rev;
		socklen_t len = sizeof(rev);
		int rc;

		memset(&rev, 0, sizeof(rev));
		snprintf(rev.name, sizeof(rev.name), "%s", argv[i]);
		rev.revision = (__u8)atoi(argv[i + 1]);
		rc = getsockopt(fd, IPPROTO_IP,
				target ? IPT_SO_GET_REVISION_TARGET :
					 IPT_SO_GET_REVISION_MATCH,
				&rev, &len);
		printf("%s '%s' rev %s: rc=%d", target ? "target" : "match",
		       argv[i], argv[i + 1], rc);
		if (rc < 0)
			printf(" errno=%s", strerror(errno));
		printf(" len=%u\n", (unsigned int)len);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (argc >= 2 && !strcmp(argv[1], "table"))
		return dump_table(argc > 2 ? argv[2] : "filter");
	if (argc >= 3 && !strcmp(argv[1], "info"))
		return info_tables(argc - 2, argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "rev") &&
	    (!strcmp(argv[2], "m") || !strcmp(argv[2], "t")))
		return revisions(argv[2][0] == 't', argc - 3, argv + 3);
	fprintf(stderr,
		"usage: ipt_dump table [NAME] | info NAME... | rev m|t NAME REV...\n");
	return 2;
}
