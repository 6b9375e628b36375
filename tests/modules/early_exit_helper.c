// SPDX-License-Identifier: GPL-2.0
/* A helper that says why and exits before the handshake. */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "<3>early_exit: giving up before the handshake\n");
	return 7;
}
