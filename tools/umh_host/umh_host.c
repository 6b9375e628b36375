// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * umh_host - run a umh-sdk helper as the kernel would and make calls by hand.
 *
 *	umh_host [options] HELPER PROTO_ID VERSION [OP HEXPAYLOAD MAXREPLY]...
 *
 * Spawns HELPER, does the handshake for PROTO_ID/VERSION, sends each
 * request (OP and MAXREPLY in C notation, HEXPAYLOAD as hex digits, "" or
 * "-" for none), prints one line per call
 *
 *	op=<n> status=<s> len=<l> data=<hex>
 *
 * then closes the helper's stdin and prints its exit status.  The helper's
 * stderr is re-printed as "<name>: <line>".  The tool knows no protocol
 * table, so it sends every request as is and only requires a reply to fit
 * MAXREPLY (what the kernel requires of a variable reply).
 *
 * Options:
 *	--name N	helper name (default "helper")
 *	--timeout MS	per-call deadline (default 5000)
 *	--max-payload N	payload cap announced in the handshake (default 16 MiB)
 *
 * Exit status: 0 if the handshake and every call completed (whatever the
 * helper's statuses) and the helper exited 0; 1 otherwise; 2 on usage
 * errors.
 */
#include <ctype.h>
#include <limits.h>

#include "umh_host.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: umh_host [--name N] [--timeout MS] [--max-payload N]\n"
		"                HELPER PROTO_ID VERSION [OP HEXPAYLOAD MAXREPLY]...\n");
	exit(2);
}

static unsigned long parse_num(const char *s, unsigned long max,
			       const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v > max || *s == '-') {
		fprintf(stderr, "umh_host: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode @s; return the buffer (malloc'd) and its length in *len. */
static unsigned char *parse_hex(const char *s, size_t *len)
{
	size_t n = strlen(s), i;
	unsigned char *buf;

	if (!strcmp(s, "-"))
		n = 0;
	if (n % 2) {
		fprintf(stderr, "umh_host: odd number of hex digits in '%s'\n", s);
		exit(2);
	}
	buf = malloc(n / 2 + 1);
	if (!buf) {
		perror("umh_host");
		exit(1);
	}
	for (i = 0; i < n / 2; i++) {
		int hi = hexval((unsigned char)s[2 * i]);
		int lo = hexval((unsigned char)s[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			fprintf(stderr, "umh_host: bad hex payload '%s'\n", s);
			exit(2);
		}
		buf[i] = (unsigned char)(hi << 4 | lo);
	}
	*len = n / 2;
	return buf;
}

int main(int argc, char **argv)
{
	const char *name = "helper";
	unsigned int timeout_ms = 5000;
	__u32 max_payload = UMH_DEFAULT_MAX_PAYLOAD;
	struct umh_proto proto = { .name = "cli" };
	struct umh_host h;
	int i, r, st, failed = 0;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--name"))
			name = argv[++i];
		else if (!strcmp(argv[i], "--timeout"))
			timeout_ms = (unsigned int)parse_num(argv[++i], 3600000,
							     "timeout");
		else if (!strcmp(argv[i], "--max-payload"))
			max_payload = (__u32)parse_num(argv[++i],
						       UMH_ABS_MAX_PAYLOAD,
						       "max payload");
		else
			usage();
	}
	if (argc - i < 3 || (argc - i - 3) % 3)
		usage();
	proto.id = (__u32)parse_num(argv[i + 1], UINT32_MAX, "protocol id");
	proto.version = (__u32)parse_num(argv[i + 2], UINT32_MAX, "version");

	signal(SIGPIPE, SIG_IGN);
	umh_host_init(&h);
	h.timeout_ms = timeout_ms;
	h.max_payload = max_payload ? max_payload : UMH_DEFAULT_MAX_PAYLOAD;
	r = umh_host_spawn(&h, argv[i], name);
	if (r) {
		fprintf(stderr, "umh_host: cannot run %s as '%s': %s\n", argv[i],
			name, strerror(-r));
		return 1;
	}
	r = umh_host_hello(&h, &proto);
	printf("hello status=%d proto_id=%#x version=%u max_payload=%u pid=%u\n",
	       r, h.hello.proto_id, h.hello.proto_version, h.hello.max_payload,
	       h.hello.pid);
	if (r) {
		fprintf(stderr, "umh_host: handshake failed: %s\n", strerror(-r));
		failed = 1;
	}
	for (i += 3; !failed && i + 2 < argc; i += 3) {
		unsigned long op = parse_num(argv[i], UMH_OP_MAX, "op");
		unsigned long max_reply = parse_num(argv[i + 2], UMH_ABS_MAX_PAYLOAD,
						    "max reply");
		size_t len, rep_len = 0, k;
		unsigned char *req = parse_hex(argv[i + 1], &len), *rep;

		rep = malloc(max_reply ? max_reply : 1);
		if (!rep) {
			perror("umh_host");
			return 1;
		}
		r = umh_host_call_raw(&h, (__u16)op, req, (__u32)len,
				      (__u32)max_reply, false, rep, max_reply,
				      &rep_len, 0);
		if (!h.last_from_helper) {
			printf("op=%lu error=%d (%s)\n", op, r, strerror(-r));
			failed = 1;
		} else {
			printf("op=%lu status=%d len=%zu data=", op, r,
			       r ? (size_t)0 : rep_len);
			for (k = 0; !r && k < rep_len; k++)
				printf("%02x", rep[k]);
			printf("\n");
		}
		fflush(stdout);
		free(req);
		free(rep);
	}
	umh_host_close_input(&h);
	r = umh_host_wait(&h, &st, timeout_ms);
	if (r) {
		printf("exit: still running after %u ms, killed\n", timeout_ms);
		failed = 1;
	} else if (WIFEXITED(st)) {
		printf("exit=%d\n", WEXITSTATUS(st));
		failed |= WEXITSTATUS(st) != 0;
	} else {
		printf("signal=%d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		failed = 1;
	}
	umh_host_destroy(&h);
	return failed;
}
