/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Minimal TAP output for the unit tests: "ok N - what" / "not ok N - what"
 * lines, "# " comments, a trailing plan, and an exit status that is
 * non-zero when any test failed.
 */
#ifndef UMH_TEST_TAP_H
#define UMH_TEST_TAP_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tap_count;
static int tap_failed;

static inline __attribute__((format(printf, 4, 5)))
int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", pass ? "ok" : "not ok", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

static inline __attribute__((format(printf, 1, 2)))
void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* ok(condition, printf-style description) */
#define ok(cond, ...)	tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* is(got, expected, description): integers, with both values on failure */
#define is(got, want, ...)						\
	do {								\
		long long got_ = (long long)(got);			\
		long long want_ = (long long)(want);			\
		if (!tap_ok(got_ == want_, __FILE__, __LINE__, __VA_ARGS__)) \
			tap_diag("  got %lld, expected %lld", got_, want_); \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		tap_diag("%d of %d tests failed", tap_failed, tap_count);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

/*
 * Whole-program watchdog: a bug that blocks somewhere the per-operation
 * timeouts do not cover still ends the program, as a failure.
 */
static void tap__alarm(int sig)
{
	static const char msg[] = "not ok 9999 - watchdog: test program hung\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static inline void tap_watchdog(unsigned int seconds)
{
	signal(SIGALRM, tap__alarm);
	alarm(seconds);
}

#endif /* UMH_TEST_TAP_H */
