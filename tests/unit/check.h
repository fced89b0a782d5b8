/*
 * check.h - the tiny assertion kit the unit tests share. CHECK prints the
 * failing expression with file:line and counts it; main returns
 * check_done(), which prints "N passed, N failed" and exits non-zero on any
 * failure. GL_SKIP(reason) exits 77, which ctest reports as skipped.
 */
#ifndef GL_CHECK_H
#define GL_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_pass, check_fail;

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (cond) {                                                      \
			check_pass++;                                            \
		} else {                                                         \
			check_fail++;                                            \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                \
		}                                                                \
	} while (0)

#define CHECKF(cond, ...)                                                        \
	do {                                                                     \
		if (cond) {                                                      \
			check_pass++;                                            \
		} else {                                                         \
			check_fail++;                                            \
			fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__,   \
				__LINE__, #cond);                                \
			fprintf(stderr, __VA_ARGS__);                            \
			fputc('\n', stderr);                                     \
		}                                                                \
	} while (0)

#define GL_SKIP(...)                                                             \
	do {                                                                     \
		fprintf(stderr, "SKIP: ");                                       \
		fprintf(stderr, __VA_ARGS__);                                    \
		fputc('\n', stderr);                                             \
		exit(77);                                                        \
	} while (0)

static inline int check_done(void)
{
	printf("%d passed, %d failed\n", check_pass, check_fail);
	return check_fail ? 1 : 0;
}

#endif
