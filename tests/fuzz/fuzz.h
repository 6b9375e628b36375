/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Shared bits of the libFuzzer targets in tests/fuzz.
 *
 * A target reports a broken invariant with FUZZ_CHECK(), which prints the
 * condition and aborts: libFuzzer then saves the input as a crash, exactly
 * as for a sanitizer report.
 */
#ifndef _UMH_FUZZ_H
#define _UMH_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant broken: %s\n",\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* A cursor over the fuzzer's input; reads past the end give zeroes. */
struct fuzz_in {
	const uint8_t *p;
	size_t left;
};

static inline void fuzz_take(struct fuzz_in *in, void *dst, size_t len)
{
	size_t n = len < in->left ? len : in->left;

	memcpy(dst, in->p, n);
	memset((char *)dst + n, 0, len - n);
	in->p += n;
	in->left -= n;
}

static inline uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t v;

	fuzz_take(in, &v, sizeof(v));
	return v;
}

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	uint8_t v;

	fuzz_take(in, &v, sizeof(v));
	return v;
}

/*
 * A copy of @len bytes in a buffer of exactly @len bytes, so that
 * AddressSanitizer sees any read past the payload.  malloc(0) still gives
 * a unique pointer (freed with free()).
 */
static inline void *fuzz_dup(const void *src, size_t len)
{
	void *p = malloc(len ? len : 1);

	FUZZ_CHECK(p != NULL);
	if (len)
		memcpy(p, src, len);
	return p;
}

/* An uninitialised buffer of exactly @len bytes. */
static inline void *fuzz_alloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	FUZZ_CHECK(p != NULL);
	return p;
}

/*
 * Read @len bytes at @p for real: a read whose result is unused would be
 * optimised away, and with it AddressSanitizer's check of it.
 */
static inline void fuzz_read(const void *p, size_t len)
{
	const uint8_t *b = p;
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < len; i++)
		sum += b[i];
	__asm__ __volatile__("" : : "r"(sum));
}

/* Make the bytes at @p count as used, so that stores to them stay. */
static inline void fuzz_escape(const void *p)
{
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* _UMH_FUZZ_H */
