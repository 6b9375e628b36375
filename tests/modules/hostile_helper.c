// SPDX-License-Identifier: GPL-2.0
/*
 * A helper that breaks the protocol on request: it answers the handshake
 * properly, then treats the cookie of each echo ping as the misbehaviour
 * to show (see enum in hostile_main.c).  Written against wire.h directly,
 * since the SDK runtime would never send such frames.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../samples/echo_umh/echo_proto.h"

static void rd(void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(0, p, len);

		if (n <= 0)
			exit(0);
		p += n;
		len -= (size_t)n;
	}
}

static void wr(const void *buf, size_t len)
{
	if (write(1, buf, len) != (ssize_t)len)
		exit(1);
}

static void reply(const struct umh_hdr *req, __u32 id, __s32 status,
		  const void *data, __u32 len, __u32 claimed_len)
{
	struct umh_hdr h;

	umh_hdr_init(&h, req->op, id, claimed_len, status, UMH_F_REPLY, 0);
	wr(&h, sizeof(h));
	wr(data, len);
}

int main(void)
{
	static char buf[1 << 16];
	struct umh_hdr req;

	for (;;) {
		rd(&req, sizeof(req));
		if (req.len > sizeof(buf))
			return 2;
		rd(buf, req.len);
		if (req.op == UMH_OP_HELLO) {
			struct umh_hello h = {
				.proto_id = ECHO_PROTO_ID,
				.proto_version = ECHO_PROTO_VERSION,
				.max_payload = UMH_DEFAULT_MAX_PAYLOAD,
			};

			reply(&req, req.id, 0, &h, sizeof(h), sizeof(h));
			continue;
		}
		if (req.op == ECHO_OP_PING) {
			struct echo_ping ping;
			struct echo_pong pong = { .pid = (__u32)getpid() };

			memcpy(&ping, buf, sizeof(ping));
			pong.cookie = ping.cookie;
			switch (ping.cookie) {
			case 1:		/* a reply to a request never made */
				reply(&req, req.id + 1000, 0, &pong, sizeof(pong), sizeof(pong));
				break;
			case 2: {	/* garbage instead of a header */
				char junk[sizeof(struct umh_hdr)];

				memset(junk, 0x5a, sizeof(junk));
				wr(junk, sizeof(junk));
				break;
			}
			case 3:		/* a 2 GiB payload announced */
				reply(&req, req.id, 0, &pong, 0, 0x7fffffffU);
				break;
			case 4:		/* fixed reply of the wrong size */
				reply(&req, req.id, 0, &pong, sizeof(pong) - 4, sizeof(pong) - 4);
				break;
			case 5:		/* a kernel-internal errno */
				reply(&req, req.id, -512, NULL, 0, 0);
				break;
			case 6:		/* half a header, then death */
				wr(&req, sizeof(req) / 2);
				return 0;
			case 7:		/* half a payload, then silence */
				reply(&req, req.id, 0, &pong, sizeof(pong) / 2, sizeof(pong));
				pause();
				break;
			default:
				reply(&req, req.id, 0, &pong, sizeof(pong), sizeof(pong));
			}
			continue;
		}
		reply(&req, req.id, -EOPNOTSUPP, NULL, 0, 0);
	}
}
