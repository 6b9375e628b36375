// SPDX-License-Identifier: GPL-2.0
/*
 * dp_gen: a random filter ruleset (iptables-legacy-restore input) and a
 * probe set for dp_probe aimed at it, for bpfilter_dataplane_tests.sh.
 *
 *   dp_gen SEED INDEX NPROBES RULES_OUT PROBES_OUT
 *
 * The same SEED and INDEX always give the same files.  Only what the
 * bpfilter sample supports: -s/-d with masks, -i/-o with + and !, -p
 * (names, numbers, !), -f, tcp (ports, ranges, --tcp-flags, --syn,
 * --tcp-option), udp, icmp, multiport, comment; ACCEPT, DROP, RETURN, no
 * target, -j and -g to user chains (which only call chains after them, so
 * there are no loops, at most 4 deep), and runs of one-field rules (see
 * run()).  Probes take their ports, ICMP
 * types, TCP options and addresses mostly from what the rules name, so
 * that matches hit as well as miss.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs;

static uint64_t rnd64(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int rn(int n) { return (int)(rnd64() % (uint64_t)n); }
static int pct(int p) { return rn(100) < p; }
#define PICK(a) ((a)[rn((int)(sizeof(a) / sizeof((a)[0])))])

static const char *const prefixes[] = {
	"10.1.0.0/24", "10.1.0.0/25", "10.1.0.128/25", "10.1.0.2", "10.1.0.3/32",
	"10.2.0.0/16", "10.0.0.0/8", "10.3.0.0/30", "10.3.0.200", "172.16.0.0/12",
	"10.1.0.10", "10.1.0.200/29", "0.0.0.0/1", "10.0.0.2/255.0.0.255",
	"10.2.0.77/32", "192.168.0.0/16", "10.3.0.0/24", "10.1.0.1",
};
static const char *const ifaces[] = {
	"va0", "va1", "va+", "vb0", "vb+", "v+", "lo", "+", "x+", "va", "pa0",
};
static const char *const flagnames[] = { "FIN", "SYN", "RST", "PSH", "ACK", "URG" };

static int ports[64], nports;
static int types[32], ntypes;
static int tcpopts[16], ntcpopts;

static void add_port(int p)
{
	if (nports < 64)
		ports[nports++] = p;
}

static int rport(void)
{
	static const int common[] = { 22, 53, 80, 443, 1023, 1024, 8080, 65535, 0, 1 };

	return pct(50) ? PICK(common) : rn(65536);
}

static void port_spec(char *b, size_t sz)
{
	int a = rport(), c;

	if (pct(35)) {
		c = a + 1 + rn(2000);	/* multiport wants first < last */
		if (c > 65535) {
			c = 65535;
			a = 65000;
		}
		snprintf(b, sz, "%d:%d", a, c);
		add_port(a);
		add_port(c);
		add_port(c + 1 <= 65535 ? c + 1 : 0);
		add_port(a ? a - 1 : 0);
	} else {
		snprintf(b, sz, "%d", a);
		add_port(a);
		add_port(a + 1 <= 65535 ? a + 1 : 0);
	}
}

static void flag_list(char *b, size_t sz, int mask)
{
	size_t o = 0;

	b[0] = 0;
	if (!mask) {
		snprintf(b, sz, "NONE");
		return;
	}
	if (mask == 0x3f) {
		snprintf(b, sz, "ALL");
		return;
	}
	for (int i = 0; i < 6; i++)
		if (mask & (1 << i))
			o += snprintf(b + o, sz - o, "%s%s", o ? "," : "", flagnames[i]);
}

static const char *neg(int p) { return pct(p) ? "! " : ""; }

/* one rule's match part for chain kind k: 0 INPUT, 1 FORWARD, 2 OUTPUT, 3 user */
static void rule(FILE *f, const char *chain, int k, int nchains, int self)
{
	char b[256];
	int proto = -1, pinv = 0;

	fprintf(f, "-A %s", chain);
	if (pct(30))
		fprintf(f, " %s-s %s", neg(25), PICK(prefixes));
	if (pct(30))
		fprintf(f, " %s-d %s", neg(25), PICK(prefixes));
	if (k != 2 && pct(25))
		fprintf(f, " %s-i %s", neg(25), PICK(ifaces));
	if (k != 0 && pct(25))
		fprintf(f, " %s-o %s", neg(25), PICK(ifaces));
	if (pct(65)) {
		static const int protos[] = { 6, 6, 6, 17, 17, 1, 1, 47, 132 };

		proto = PICK(protos);
		pinv = pct(12);
		if (pct(30) || proto == 47 || proto == 132)
			fprintf(f, " %s-p %d", pinv ? "! " : "", proto);
		else
			fprintf(f, " %s-p %s", pinv ? "! " : "",
				proto == 6 ? "tcp" : proto == 17 ? "udp" : "icmp");
	}
	if (pct(8))
		fprintf(f, " %s-f", neg(50));
	if (!pinv && (proto == 6 || proto == 17) && pct(75)) {
		const char *m = proto == 6 ? "tcp" : "udp";

		if (pct(25)) {	/* multiport */
			static const char *const kw[] = { "--sports", "--dports", "--ports" };
			int n = 1 + rn(4);

			fprintf(f, " -m multiport %s%s ", neg(25), PICK(kw));
			for (int i = 0; i < n; i++) {
				port_spec(b, sizeof(b));
				fprintf(f, "%s%s", i ? "," : "", b);
			}
		} else {
			fprintf(f, " -m %s", m);
			if (pct(50)) {
				port_spec(b, sizeof(b));
				fprintf(f, " %s--sport %s", neg(25), b);
			}
			if (pct(60)) {
				port_spec(b, sizeof(b));
				fprintf(f, " %s--dport %s", neg(25), b);
			}
			if (proto == 6 && pct(35)) {
				if (pct(30)) {
					fprintf(f, " %s--syn", neg(30));
				} else {
					char mb[64], cb[64];
					int mask = rn(64), comp = rn(64) & (pct(80) ? mask : 0x3f);

					if (pct(15))
						mask = 0x3f;
					flag_list(mb, sizeof(mb), mask);
					flag_list(cb, sizeof(cb), comp);
					fprintf(f, " %s--tcp-flags %s %s", neg(25), mb, cb);
				}
			}
			if (proto == 6 && pct(15)) {
				static const int kinds[] = { 2, 3, 4, 8, 1, 5, 30, 254 };
				int o = PICK(kinds);

				if (ntcpopts < 16)
					tcpopts[ntcpopts++] = o;
				fprintf(f, " %s--tcp-option %d", neg(30), o);
			}
		}
	} else if (!pinv && proto == 1 && pct(75)) {
		static const char *const names[] = {
			"any", "echo-request", "echo-reply", "destination-unreachable",
			"port-unreachable", "time-exceeded", "3/1", "11/0", "8", "0/0",
			"5/2", "255", "13",
		};
		const char *t = PICK(names);
		int ty = -1;

		fprintf(f, " -m icmp %s--icmp-type %s", strcmp(t, "any") ? neg(25) : "", t);
		if (t[0] >= '0' && t[0] <= '9')
			ty = atoi(t);
		else if (!strcmp(t, "echo-request"))
			ty = 8;
		else if (!strcmp(t, "echo-reply"))
			ty = 0;
		else if (!strcmp(t, "destination-unreachable") || !strcmp(t, "port-unreachable"))
			ty = 3;
		else if (!strcmp(t, "time-exceeded"))
			ty = 11;
		if (ty >= 0 && ntypes < 32)
			types[ntypes++] = ty;
	}
	if (pct(10))
		fprintf(f, " -m comment --comment \"r%d %s\"", rn(1000), pct(50) ? "x" : "y z");
	/* target */
	int t = rn(100);

	if (t < 20 && self + 1 < nchains) {
		fprintf(f, " -%c u%d", pct(60) ? 'j' : 'g', self + 1 + rn(nchains - self - 1));
	} else if (t < 50) {
		fprintf(f, " -j ACCEPT");
	} else if (t < 80) {
		fprintf(f, " -j DROP");
	} else if (t < 90) {
		fprintf(f, " -j RETURN");
	}
	fprintf(f, "\n");
}

/*
 * A run of 4 to 15 rules that each test one field, the same one (a source
 * or destination prefix, a tcp or udp port or range), with ACCEPT or DROP:
 * what ipt_bpf.c compiles as a decision tree.  Prefixes overlap, ports
 * repeat and ranges nest; now and then a rule of another shape, or one
 * with RETURN, splits the run.
 */
static void run(FILE *f, const char *chain, int user)
{
	static const char *const dirs[] = { "-s", "-d", "--sport", "--dport" };
	int field = rn(4), n = 4 + rn(12), tcp = pct(50);
	char b[64];

	for (int i = 0; i < n; i++) {
		fprintf(f, "-A %s", chain);
		if (field < 2) {
			fprintf(f, " %s%s %s", pct(4) ? "! " : "", dirs[field],
				PICK(prefixes));
		} else {
			port_spec(b, sizeof(b));
			fprintf(f, " -p %s -m %s %s%s %s", tcp ? "tcp" : "udp",
				tcp ? "tcp" : "udp", pct(4) ? "! " : "",
				dirs[field], b);
		}
		if (user && pct(5))
			fprintf(f, " -j RETURN\n");
		else
			fprintf(f, " -j %s\n", pct(50) ? "ACCEPT" : "DROP");
	}
}

/* ---- probes ---- */

static const char *const a_src[] = {
	"10.1.0.2", "10.1.0.3", "10.1.0.130", "10.2.0.2", "10.2.0.77", "172.16.5.5",
	"192.168.9.1", "10.0.5.2",
};
static const char *const b_src[] = { "10.3.0.2", "10.3.0.3", "10.3.0.200", "172.16.6.6" };
static const char *const init_addr[] = { "10.1.0.1", "10.1.0.10", "10.1.0.200", "10.2.0.1", "10.3.0.1" };
static const char *const b_dst[] = { "10.3.0.2", "10.3.0.3", "10.3.0.200" };
static const char *const a0_dst[] = { "10.1.0.2", "10.1.0.3", "10.1.0.130" };
static const char *const a1_dst[] = { "10.2.0.2", "10.2.0.77" };

static int probe_port(void)
{
	if (nports && pct(70))
		return ports[rn(nports)];
	return rport();
}

static void probe(FILE *f, int id)
{
	int path = rn(100), to_init = 0, proto;
	const char *via, *src, *dst;

	if (path < 30) {		/* INPUT */
		int v = rn(3);

		via = v == 0 ? "a0" : v == 1 ? "a1" : "b0";
		src = v == 2 ? PICK(b_src) : PICK(a_src);
		dst = PICK(init_addr);
		to_init = 1;
	} else if (path < 65) {		/* FORWARD */
		int v = rn(4);

		if (v < 2) {
			via = v ? "a1" : "a0";
			src = PICK(a_src);
			dst = PICK(b_dst);
		} else if (v == 2) {
			via = "b0";
			src = PICK(b_src);
			dst = pct(50) ? PICK(a0_dst) : PICK(a1_dst);
		} else {	/* a0 -> va1 (a to a, another interface) */
			via = "a0";
			src = PICK(a_src);
			dst = PICK(a1_dst);
		}
	} else {			/* OUTPUT */
		via = "out";
		src = PICK(init_addr);
		if (pct(15)) {
			dst = PICK(init_addr);
			to_init = 1;
		} else {
			int d = rn(3);

			dst = d == 0 ? PICK(a0_dst) : d == 1 ? PICK(a1_dst) : PICK(b_dst);
		}
	}
	{
		static const int protos[] = { 6, 6, 6, 6, 17, 17, 17, 1, 1, 1, 47, 132, 50 };

		proto = PICK(protos);
	}
	fprintf(f, "id=%d via=%s src=%s dst=%s p=%d", id, via, src, dst, proto);
	if (proto == 6 || proto == 17)
		fprintf(f, " sport=%d dport=%d", probe_port(), probe_port());
	if (proto == 6) {
		static const int common[] = { 0x02, 0x12, 0x10, 0x04, 0x11, 0x18, 0x00, 0x3f, 0x29, 0x03, 0x14 };
		int fl = pct(70) ? PICK(common) : rn(256);

		fprintf(f, " flags=0x%02x", fl);
		if (pct(35)) {
			char o[81];
			int n = 0, want = 1 + rn(3);

			for (int i = 0; i < want && n < 30; i++) {
				int kind = ntcpopts && pct(50) ? tcpopts[rn(ntcpopts)] : PICK(((const int[]){ 2, 3, 4, 8, 1, 0, 30 }));

				if (kind == 0 || kind == 1) {
					n += sprintf(o + 2 * n, "%02x", kind) / 2;
				} else {
					int len = kind == 2 ? 4 : kind == 3 ? 3 : kind == 8 ? 10 : 2;

					n += sprintf(o + 2 * n, "%02x%02x", kind, len) / 2;
					for (int j = 2; j < len; j++)
						n += sprintf(o + 2 * n, "%02x", rn(256)) / 2;
				}
			}
			fprintf(f, " opts=%s", o);
		}
		if (pct(4))
			fprintf(f, " doff=%d", rn(5));
	}
	if (proto == 1) {
		int ty = ntypes && pct(70) ? types[rn(ntypes)] : rn(20);

		if (pct(10))
			ty = rn(256);
		fprintf(f, " type=%d code=%d", ty, pct(60) ? 0 : rn(16));
	}
	fprintf(f, " pay=%d", rn(120));
	if (pct(6))
		fprintf(f, " trunc=%d", rn(proto == 6 ? 24 : 9));
	if (to_init) {
		/* a lone fragment never reaches INPUT, a lone first one would
		 * make the kernel answer 30 s later: only whole datagrams */
		if (pct(8))
			fprintf(f, " pay=%d split=%d", 40 + rn(60), 1 + rn(4));
	} else if (pct(10)) {
		int off = pct(40) ? 1 : rn(200);

		fprintf(f, " frag=%d mf=%d", off, off ? rn(2) : 1);
	} else if (pct(4)) {
		fprintf(f, " pay=%d split=%d", 40 + rn(60), 1 + rn(4));
	}
	if (pct(5))
		fprintf(f, " ipopt=01010100");
	fprintf(f, "\n");
}

int main(int argc, char **argv)
{
	FILE *rf, *pf;
	int nchains, i, j, np;
	static const char *const base[] = { "INPUT", "FORWARD", "OUTPUT" };

	if (argc != 6) {
		fprintf(stderr, "usage: dp_gen SEED INDEX NPROBES RULES_OUT PROBES_OUT\n");
		return 2;
	}
	rs = strtoull(argv[1], NULL, 0) * 0x100000001b3ULL ^ strtoull(argv[2], NULL, 0);
	rnd64();
	np = atoi(argv[3]);
	rf = fopen(argv[4], "w");
	pf = fopen(argv[5], "w");
	if (!rf || !pf || np < 1 || np > 60000) {
		perror("dp_gen");
		return 2;
	}
	nchains = rn(5);
	fprintf(rf, "*filter\n");
	for (i = 0; i < 3; i++)
		fprintf(rf, ":%s %s [0:0]\n", base[i], pct(40) ? "DROP" : "ACCEPT");
	for (i = 0; i < nchains; i++)
		fprintf(rf, ":u%d - [0:0]\n", i);
	for (i = 0; i < 3; i++) {
		int n = 1 + rn(7);
		char name[16];

		snprintf(name, sizeof(name), "%s", base[i]);
		for (j = 0; j < n; j++) {
			if (pct(20))
				run(rf, name, 0);
			rule(rf, name, i, nchains, -1);
		}
	}
	for (i = 0; i < nchains; i++) {
		int n = rn(6);
		char name[16];

		snprintf(name, sizeof(name), "u%d", i);
		for (j = 0; j < n; j++) {
			if (pct(20))
				run(rf, name, 1);
			rule(rf, name, 3, nchains, i);
		}
	}
	fprintf(rf, "COMMIT\n");
	for (i = 1; i <= np; i++)
		probe(pf, i);
	if (fclose(rf) || fclose(pf)) {
		perror("dp_gen");
		return 2;
	}
	return 0;
}
