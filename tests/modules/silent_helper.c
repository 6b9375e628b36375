// SPDX-License-Identifier: GPL-2.0
/* A helper that never reads its requests: the handshake must time out. */
#include <unistd.h>

int main(void)
{
	for (;;)
		pause();
}
