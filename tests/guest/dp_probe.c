// SPDX-License-Identifier: GPL-2.0
/*
 * dp_probe: send a set of IPv4 probes through the guest topology of
 * bpfilter_dataplane_tests.sh and record which ones arrived where.
 *
 *   dp_probe run PROBES OUT [IDOFF]   each probe once; OUT: one line a probe;
 *                                     the IP id is the probe's id + IDOFF
 *                                     (mod 65535), so that runs do not meet
 *                                     in the reassembly queues
 *   dp_probe stream PROBES OUT SECS GAP_US
 *                                     the probes round-robin for SECS
 *                                     seconds, one send every GAP_US µs;
 *                                     OUT: per probe, how many were sent,
 *                                     refused by sendto and received
 *
 * Topology (made by the suite; MAC addresses fixed there and here):
 *   netns a: pa0 -- va0, pa1 -- va1 (init_net); netns b: pb0 -- vb0.
 * ns a and b have no IPv4 address and do not forward, so their stacks drop
 * what reaches them without answering; init_net routes between them.
 *
 * Senders: via=a0|a1|b0 write the IP packet with an AF_PACKET socket on
 * pa0/pa1/pb0 of its namespace (so source address, fragments, truncated
 * headers are all free); via=out sends from init_net with a raw
 * IP_HDRINCL socket, through LOCAL_OUT (a drop there is EPERM).
 * Receivers: AF_PACKET sockets on pa0, pa1, pb0 (a frame there has passed
 * init_net's FORWARD or OUTPUT), and in init_net raw IP sockets of every
 * protocol the probes use (raw sockets get packets after LOCAL_IN).  A
 * probe is recognised by its IP id, source, destination and protocol.
 * Every TCP, UDP and ICMP checksum is deliberately wrong, and ICMP echo is
 * ignored by the suite, so that no stack ever answers a probe: the only
 * packets through the filter are the probes themselves.
 *
 * Probe lines (blank and # lines ignored), key=value words:
 *   id=1..65535 (unique; the IP id)  via=a0|a1|b0|out  src=A  dst=A
 *   p=tcp|udp|icmp|NUM  sport= dport= flags=(hex or letters FSRPAUEC)
 *   opts=HEX (tcp options, padded with EOL)  doff=N (override)
 *   type= code= (icmp)  pay=N (payload bytes, default 16)
 *   trunc=N (cut the IP payload to N bytes)  frag=N (offset, 8-byte units)
 *   mf=1 df=1  split=N (two fragments, the first with N*8 bytes)
 *   ttl=N  ipopt=HEX (IP options, a multiple of 4 bytes)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXP 4096
#define MAXPKT 2048

enum { VIA_A0, VIA_A1, VIA_B0, VIA_OUT };
static const char *const via_name[] = { "a0", "a1", "b0", "out" };
/* the suite gives the init_net ends these addresses */
static const uint8_t peer_mac[3][6] = {
	{ 0x02, 0, 0, 0, 0x0a, 0x01 },	/* va0 */
	{ 0x02, 0, 0, 0, 0x0b, 0x01 },	/* va1 */
	{ 0x02, 0, 0, 0, 0x0c, 0x01 },	/* vb0 */
};

struct probe {
	int id, ipid, via, proto, sport, dport, flags, doff, type, code;
	int pay, trunc, frag, mf, df, split, ttl;
	uint32_t src, dst;
	uint8_t opts[40], ipopt[40];
	int optlen, ipoptlen;
	/* results */
	int err[2];		/* errno of each send (0: sent) */
	int sends;
	int rx[4];		/* pa0, pa1, pb0, init */
	/* stream */
	long s_sent, s_err, s_eperm, s_rx;
};

static struct probe pr[MAXP];
static int np;
static int by_id[65536];	/* id -> probe index + 1 */
static int seq_probe[65536];	/* stream: id -> probe index + 1 */
static long strays;
static int stream_mode;

static void die(const char *m)
{
	perror(m);
	exit(2);
}

static int hexbytes(const char *s, uint8_t *out, int max)
{
	int n = 0;
	unsigned v;

	while (s[0] && s[1]) {
		if (n >= max || sscanf(s, "%2x", &v) != 1)
			return -1;
		out[n++] = v;
		s += 2;
	}
	return *s ? -1 : n;
}

static int parse_flags(const char *s)
{
	int f = 0;

	if (s[0] == '0' && s[1] == 'x')
		return (int)strtol(s, NULL, 16);
	for (; *s; s++) {
		switch (*s) {
		case 'F': f |= 0x01; break;
		case 'S': f |= 0x02; break;
		case 'R': f |= 0x04; break;
		case 'P': f |= 0x08; break;
		case 'A': f |= 0x10; break;
		case 'U': f |= 0x20; break;
		case 'E': f |= 0x40; break;
		case 'C': f |= 0x80; break;
		case '-': break;
		default: return -1;
		}
	}
	return f;
}

static void parse(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[1024];
	int ln = 0;

	if (!f)
		die(file);
	while (fgets(line, sizeof(line), f)) {
		struct probe *p = &pr[np];
		char *save, *w;

		ln++;
		w = strtok_r(line, " \t\n", &save);
		if (!w || *w == '#')
			continue;
		if (np >= MAXP) {
			fprintf(stderr, "dp_probe: more than %d probes\n", MAXP);
			exit(2);
		}
		memset(p, 0, sizeof(*p));
		p->doff = -1; p->pay = 16; p->trunc = -1; p->ttl = 64;
		p->proto = -1; p->via = -1;
		for (; w; w = strtok_r(NULL, " \t\n", &save)) {
			char *v = strchr(w, '=');
			int bad = 0;

			if (!v)
				goto bad;
			*v++ = 0;
			if (!strcmp(w, "id")) p->id = atoi(v);
			else if (!strcmp(w, "via")) {
				for (int i = 0; i < 4; i++)
					if (!strcmp(v, via_name[i]))
						p->via = i;
			} else if (!strcmp(w, "src")) bad = inet_pton(AF_INET, v, &p->src) != 1;
			else if (!strcmp(w, "dst")) bad = inet_pton(AF_INET, v, &p->dst) != 1;
			else if (!strcmp(w, "p")) {
				if (!strcmp(v, "tcp")) p->proto = 6;
				else if (!strcmp(v, "udp")) p->proto = 17;
				else if (!strcmp(v, "icmp")) p->proto = 1;
				else p->proto = atoi(v);
			} else if (!strcmp(w, "sport")) p->sport = atoi(v);
			else if (!strcmp(w, "dport")) p->dport = atoi(v);
			else if (!strcmp(w, "flags")) bad = (p->flags = parse_flags(v)) < 0;
			else if (!strcmp(w, "opts")) bad = (p->optlen = hexbytes(v, p->opts, 40)) < 0;
			else if (!strcmp(w, "ipopt")) bad = (p->ipoptlen = hexbytes(v, p->ipopt, 40)) < 0 || p->ipoptlen % 4;
			else if (!strcmp(w, "doff")) p->doff = atoi(v);
			else if (!strcmp(w, "type")) p->type = atoi(v);
			else if (!strcmp(w, "code")) p->code = atoi(v);
			else if (!strcmp(w, "pay")) p->pay = atoi(v);
			else if (!strcmp(w, "trunc")) p->trunc = atoi(v);
			else if (!strcmp(w, "frag")) p->frag = atoi(v);
			else if (!strcmp(w, "mf")) p->mf = atoi(v);
			else if (!strcmp(w, "df")) p->df = atoi(v);
			else if (!strcmp(w, "split")) p->split = atoi(v);
			else if (!strcmp(w, "ttl")) p->ttl = atoi(v);
			else
				goto bad;
			if (bad)
				goto bad;
		}
		if (p->id < 1 || p->id > 65535 || by_id[p->id] || p->via < 0 ||
		    p->proto < 0 || p->proto > 255 || !p->src || !p->dst ||
		    p->pay < 0 || p->pay > 1200)
			goto bad;
		by_id[p->id] = ++np;
		continue;
bad:
		fprintf(stderr, "dp_probe: %s:%d: bad probe line\n", file, ln);
		exit(2);
	}
	fclose(f);
}

static uint32_t csum_add(uint32_t s, const uint8_t *b, int n)
{
	for (int i = 0; i + 1 < n; i += 2)
		s += (b[i] << 8) | b[i + 1];
	if (n & 1)
		s += b[n - 1] << 8;
	return s;
}

static uint16_t csum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s & 0xffff;
}

/* a wrong but non-zero checksum (0 would mean "none" for UDP) */
static uint16_t wrong(uint16_t good)
{
	uint16_t w = good ^ 0x5a5a;

	return w ? w : 0x1234;
}

/*
 * Build the packet(s) of probe p with IP id `id` into pkt[0..1]; returns
 * how many (1, or 2 for split=).
 */
static int build(const struct probe *p, int id, uint8_t pkt[2][MAXPKT], int len[2])
{
	uint8_t l4[MAXPKT];
	int n = 0, ihl = 20 + p->ipoptlen, count = 1;

	memset(l4, 0, sizeof(l4));
	if (p->proto == 6) {
		int ol = (p->optlen + 3) & ~3, doff = p->doff >= 0 ? p->doff : (20 + ol) / 4;

		l4[0] = p->sport >> 8; l4[1] = p->sport;
		l4[2] = p->dport >> 8; l4[3] = p->dport;
		l4[4] = 0x11; l4[5] = 0x22; l4[6] = 0x33; l4[7] = 0x44;
		l4[12] = doff << 4; l4[13] = p->flags;
		l4[14] = 0x20; l4[15] = 0x00;
		memcpy(l4 + 20, p->opts, p->optlen);
		n = 20 + ol;
	} else if (p->proto == 17) {
		l4[0] = p->sport >> 8; l4[1] = p->sport;
		l4[2] = p->dport >> 8; l4[3] = p->dport;
		l4[4] = (8 + p->pay) >> 8; l4[5] = 8 + p->pay;
		n = 8;
	} else if (p->proto == 1) {
		l4[0] = p->type; l4[1] = p->code;
		l4[4] = id >> 8; l4[5] = id;
		n = 8;
	}
	for (int i = 0; i < p->pay; i++)
		l4[n + i] = (uint8_t)(id + i);
	n += p->pay;
	/* checksums over the whole datagram, then made wrong */
	if (p->proto == 6 || p->proto == 17) {
		uint8_t ph[12];
		uint32_t s;
		int off = p->proto == 6 ? 16 : 6;

		memcpy(ph, &p->src, 4); memcpy(ph + 4, &p->dst, 4);
		ph[8] = 0; ph[9] = p->proto; ph[10] = n >> 8; ph[11] = n;
		s = csum_add(csum_add(0, ph, 12), l4, n);
		uint16_t c = wrong(csum_fold(s));

		l4[off] = c >> 8; l4[off + 1] = c;
	} else if (p->proto == 1) {
		uint16_t c = wrong(csum_fold(csum_add(0, l4, n)));

		l4[2] = c >> 8; l4[3] = c;
	}
	if (p->trunc >= 0 && p->trunc < n)
		n = p->trunc;

	int part_off[2] = { 0, 0 }, part_len[2] = { n, 0 }, foff[2], mf[2];

	foff[0] = p->frag; mf[0] = p->mf;
	if (p->split > 0 && p->split * 8 < n) {
		count = 2;
		part_len[0] = p->split * 8;
		part_off[1] = part_len[0];
		part_len[1] = n - part_len[0];
		foff[0] = 0; mf[0] = 1;
		foff[1] = p->split; mf[1] = 0;
	}
	for (int k = 0; k < count; k++) {
		uint8_t *ip = pkt[k];
		int tot = ihl + part_len[k];
		int fr = foff[k] | (mf[k] ? 0x2000 : 0) | (p->df ? 0x4000 : 0);

		memset(ip, 0, ihl);
		ip[0] = 0x40 | (ihl / 4);
		ip[2] = tot >> 8; ip[3] = tot;
		ip[4] = id >> 8; ip[5] = id;
		ip[6] = fr >> 8; ip[7] = fr;
		ip[8] = p->ttl; ip[9] = p->proto;
		memcpy(ip + 12, &p->src, 4); memcpy(ip + 16, &p->dst, 4);
		memcpy(ip + 20, p->ipopt, p->ipoptlen);
		uint16_t c = csum_fold(csum_add(0, ip, ihl));

		ip[10] = c >> 8; ip[11] = c;
		memcpy(ip + ihl, l4 + part_off[k], part_len[k]);
		len[k] = tot;
	}
	return count;
}

/* ---- sockets ---- */

static int send_fd[4];		/* per via */
static int send_ifindex[3];
static int rx_fd[3];		/* pa0, pa1, pb0 */
static int in_fd[256], in_n;	/* init_net raw sockets by protocol */
static int init_ns;
static int sent_fd;		/* init_net: sentinels on va0 */
#define ETH_P_SENTINEL 0x88b5

static void enter_ns(const char *name)
{
	char path[64];
	int fd;

	if (!name) {
		if (setns(init_ns, CLONE_NEWNET))
			die("setns init");
		return;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die(path);
	close(fd);
}

static void big_rcvbuf(int fd)
{
	int sz = 8 << 20;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

static int packet_sock_p(const char *dev, int *ifindex, int proto)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(proto) };
	int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(proto));
	int one = 1;

	if (fd < 0)
		die("socket(AF_PACKET)");
	sll.sll_ifindex = if_nametoindex(dev);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "dp_probe: no interface %s\n", dev);
		exit(2);
	}
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("bind(AF_PACKET)");
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	big_rcvbuf(fd);
	if (ifindex)
		*ifindex = sll.sll_ifindex;
	return fd;
}

static int packet_sock(const char *dev, int *ifindex)
{
	return packet_sock_p(dev, ifindex, ETH_P_IP);
}

static void setup(void)
{
	int want[256] = { 0 }, i;
	cpu_set_t cpus;

	/*
	 * One CPU: every frame this process sends (and everything the kernel
	 * forwards or answers on its behalf) goes through that CPU's backlog
	 * in order, so a sentinel frame that comes back proves that what was
	 * queued before it has been through (see sync_rx()).
	 */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		die("sched_setaffinity");
	init_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (init_ns < 0)
		die("/proc/self/ns/net");
	enter_ns("a");
	rx_fd[0] = packet_sock("pa0", &send_ifindex[0]);
	rx_fd[1] = packet_sock("pa1", &send_ifindex[1]);
	send_fd[VIA_A0] = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	send_fd[VIA_A1] = send_fd[VIA_A0];
	enter_ns("b");
	rx_fd[2] = packet_sock("pb0", &send_ifindex[2]);
	send_fd[VIA_B0] = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	enter_ns(NULL);
	sent_fd = packet_sock_p("va0", NULL, ETH_P_SENTINEL);
	send_fd[VIA_OUT] = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (send_fd[VIA_A0] < 0 || send_fd[VIA_B0] < 0 || send_fd[VIA_OUT] < 0)
		die("socket");
	for (i = 0; i < np; i++)
		want[pr[i].proto] = 1;
	for (i = 1; i < 255; i++) {
		if (!want[i])
			continue;
		in_fd[in_n] = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, i);
		if (in_fd[in_n] < 0)
			die("socket(raw)");
		big_rcvbuf(in_fd[in_n]);
		in_n++;
	}
}

static void note_rx(int where, const uint8_t *ip, int n)
{
	int id, idx;
	struct probe *p;

	if (n < 20 || (ip[0] >> 4) != 4) {
		strays++;
		return;
	}
	id = (ip[4] << 8) | ip[5];
	idx = stream_mode ? seq_probe[id] : by_id[id];
	if (!idx) {
		strays++;
		return;
	}
	p = &pr[idx - 1];
	if (ip[9] != p->proto || memcmp(ip + 12, &p->src, 4) || memcmp(ip + 16, &p->dst, 4)) {
		strays++;
		return;
	}
	if (stream_mode) {
		p->s_rx++;
		seq_probe[id] = 0;	/* one arrival per send */
	} else {
		p->rx[where]++;
	}
}

/* drain every receiver; returns the number of packets read */
static int drain(int timeout_ms)
{
	struct pollfd pfd[3 + 256];
	uint8_t buf[65536];
	int nfd = 0, got = 0, i;

	for (i = 0; i < 3; i++)
		pfd[nfd++] = (struct pollfd){ .fd = rx_fd[i], .events = POLLIN };
	for (i = 0; i < in_n; i++)
		pfd[nfd++] = (struct pollfd){ .fd = in_fd[i], .events = POLLIN };
	if (poll(pfd, nfd, timeout_ms) <= 0)
		return 0;
	for (i = 0; i < nfd; i++) {
		ssize_t r;

		if (!(pfd[i].revents & POLLIN))
			continue;
		while ((r = recv(pfd[i].fd, buf, sizeof(buf), 0)) > 0) {
			note_rx(i < 3 ? i : 3, buf, r);
			got++;
		}
	}
	return got;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Wait until everything sent so far has been through the stack: a frame of
 * an unfiltered ethertype sent from pa0 and read back on va0 has passed the
 * backlog behind every frame queued before it; three rounds cover what the
 * kernel queues again on the way (forwarding to pb0, lo, ICMP errors).
 */
static void sync_rx(void)
{
	static uint32_t nonce = 0x5e000000;
	uint8_t buf[64];

	for (int round = 0; round < 3; round++) {
		struct sockaddr_ll sll = {
			.sll_family = AF_PACKET,
			.sll_protocol = htons(ETH_P_SENTINEL),
			.sll_ifindex = send_ifindex[VIA_A0],
			.sll_halen = 6,
		};
		double end = now() + 10;
		int seen = 0;

		nonce++;
		memcpy(sll.sll_addr, peer_mac[VIA_A0], 6);
		memset(buf, 0, sizeof(buf));
		memcpy(buf, &nonce, 4);
		if (sendto(send_fd[VIA_A0], buf, 46, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0)
			die("sendto(sentinel)");
		while (!seen) {
			struct pollfd pfd = { .fd = sent_fd, .events = POLLIN };
			ssize_t r;

			drain(0);
			if (now() > end) {
				fprintf(stderr, "dp_probe: sentinel frame lost\n");
				exit(2);
			}
			poll(&pfd, 1, 5);
			while ((r = recv(sent_fd, buf, sizeof(buf), 0)) >= 4)
				if (!memcmp(buf, &nonce, 4))
					seen = 1;
		}
	}
	while (drain(0))
		;
}

/* send probe p with IP id `id`; returns the errno of its last failed send */
static int send_probe(struct probe *p, int id, int *errs)
{
	uint8_t pkt[2][MAXPKT];
	int len[2], k, cnt = build(p, id, pkt, len), e = 0;

	for (k = 0; k < cnt; k++) {
		ssize_t r;

		if (p->via == VIA_OUT) {
			struct sockaddr_in sin = { .sin_family = AF_INET };

			sin.sin_addr.s_addr = p->dst;
			r = sendto(send_fd[VIA_OUT], pkt[k], len[k], 0,
				   (struct sockaddr *)&sin, sizeof(sin));
		} else {
			struct sockaddr_ll sll = {
				.sll_family = AF_PACKET,
				.sll_protocol = htons(ETH_P_IP),
				.sll_ifindex = send_ifindex[p->via],
				.sll_halen = 6,
			};

			memcpy(sll.sll_addr, peer_mac[p->via], 6);
			r = sendto(send_fd[p->via], pkt[k], len[k], 0,
				   (struct sockaddr *)&sll, sizeof(sll));
		}
		errs[k] = r < 0 ? errno : 0;
		if (r < 0)
			e = errno;
	}
	return cnt == 2 ? e | 0x10000 : e;
}

static const char *errname(int e)
{
	switch (e) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case ENETUNREACH: return "ENETUNREACH";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case EINVAL: return "EINVAL";
	case EMSGSIZE: return "EMSGSIZE";
	case ENOBUFS: return "ENOBUFS";
	default: return "ERR";
	}
}

static void run(const char *out)
{
	static const char *const where[] = { "pa0", "pa1", "pb0", "in" };
	FILE *f;
	int i, k;

	for (i = 0; i < np; i++) {
		int r = send_probe(&pr[i], pr[i].ipid, pr[i].err);

		pr[i].sends = (r & 0x10000) ? 2 : 1;
		/* keep the receive queues short under TCG */
		if (i % 16 == 15)
			drain(0);
	}
	sync_rx();
	f = fopen(out, "w");
	if (!f)
		die(out);
	for (i = 0; i < np; i++) {
		struct probe *p = &pr[i];
		int any = 0;

		fprintf(f, "%d send=%s", p->id, errname(p->err[0]));
		if (p->sends == 2)
			fprintf(f, ",%s", errname(p->err[1]));
		fprintf(f, " rx=");
		for (k = 0; k < 4; k++)
			if (p->rx[k]) {
				fprintf(f, "%s%s:%d", any ? "," : "", where[k], p->rx[k]);
				any = 1;
			}
		fprintf(f, "%s\n", any ? "" : "none");
	}
	if (fclose(f))
		die(out);
	if (strays)
		fprintf(stderr, "dp_probe: %ld packets not from this probe set\n", strays);
}

static void stream(const char *out, double secs, long gap_us)
{
	double end = now() + secs, next = now();
	long seq = 0;
	FILE *f;
	int i, e[2];

	stream_mode = 1;
	for (i = 0; i < np; i++)
		if (pr[i].split) {
			fprintf(stderr, "dp_probe: stream: no split probes\n");
			exit(2);
		}
	while (now() < end && seq < 65000) {
		struct probe *p = &pr[seq % np];
		int id = (int)(seq % 65535) + 1, r;

		seq_probe[id] = (int)(seq % np) + 1;
		r = send_probe(p, id, e);
		p->s_sent++;
		if (r) {
			seq_probe[id] = 0;
			p->s_err++;
			if (r == EPERM)
				p->s_eperm++;
		}
		seq++;
		next += gap_us / 1e6;
		drain(0);
		while (now() < next)
			drain((int)((next - now()) * 1000) + 1 > 0 ? 1 : 0);
	}
	sync_rx();
	f = fopen(out, "w");
	if (!f)
		die(out);
	for (i = 0; i < np; i++)
		fprintf(f, "%d sent=%ld err=%ld eperm=%ld rx=%ld\n", pr[i].id,
			pr[i].s_sent, pr[i].s_err, pr[i].s_eperm, pr[i].s_rx);
	if (fclose(f))
		die(out);
	fprintf(stderr, "dp_probe: stream: %ld sends in %.1f s, %ld strays\n", seq, secs, strays);
}

int main(int argc, char **argv)
{
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "run")) {
		long off = argc == 5 ? atol(argv[4]) : 0;

		parse(argv[2]);
		memset(by_id, 0, sizeof(by_id));
		for (int i = 0; i < np; i++) {
			pr[i].ipid = (int)((pr[i].id - 1 + off) % 65535) + 1;
			if (by_id[pr[i].ipid]) {
				fprintf(stderr, "dp_probe: IP id %d twice\n", pr[i].ipid);
				return 2;
			}
			by_id[pr[i].ipid] = i + 1;
		}
		setup();
		run(argv[3]);
	} else if (argc == 6 && !strcmp(argv[1], "stream")) {
		parse(argv[2]);
		setup();
		stream(argv[3], atof(argv[4]), atol(argv[5]));
	} else {
		fprintf(stderr, "usage: dp_probe run PROBES OUT [IDOFF] | stream PROBES OUT SECS GAP_US\n");
		return 2;
	}
	return 0;
}
