/*
 * check.h - the tiny assertion kit the unit tests share. CHECK prints the
 * failing expression with file:line and counts it; main returns
 * check_done(), which prints "N passed, N failed, 0 skipped" and exits
 * non-zero on any failure, or when no check ran at all (a test that checks
 * nothing proves nothing). GL_SKIP(reason) exits 77, which ctest reports as
 * skipped; with GL_STRICT=1 in the environment (CI) it fails instead,
 * naming the reason. The counts also go to GL_RESULTS_DIR/GL_TEST_NAME when
 * both are set (scripts/test.sh adds them up).
 */
#ifndef GL_CHECK_H
#define GL_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_pass, check_fail;

static inline void check_record(int pass, int fail, int skipped)
{
	const char *dir = getenv("GL_RESULTS_DIR"), *name = getenv("GL_TEST_NAME");
	char path[4096];
	FILE *f;

	if (!dir || !name || !*dir || !*name || snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
		return;
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%d %d %d\n", pass, fail, skipped);
		fclose(f);
	}
}

static inline int check_strict(void)
{
	const char *s = getenv("GL_STRICT");
	return s && strcmp(s, "1") == 0;
}

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (cond) {                                                                      \
			check_pass++;                                                            \
		} else {                                                                         \
			check_fail++;                                                            \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                                \
	} while (0)

#define CHECKF(cond, ...)                                                                        \
	do {                                                                                     \
		if (cond) {                                                                      \
			check_pass++;                                                            \
		} else {                                                                         \
			check_fail++;                                                            \
			fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                            \
			fputc('\n', stderr);                                                     \
		}                                                                                \
	} while (0)

#define GL_SKIP(...)                                                        \
	do {                                                                \
		int strict_ = check_strict();                               \
		fprintf(stderr, strict_ ? "FAIL (GL_STRICT=1: a skip is a " \
					  "failure): "                      \
					: "SKIP: ");                        \
		fprintf(stderr, __VA_ARGS__);                               \
		fputc('\n', stderr);                                        \
		check_record(check_pass, check_fail + strict_, !strict_);   \
		exit(strict_ ? 1 : 77);                                     \
	} while (0)

static inline int check_done(void)
{
	if (check_pass + check_fail == 0) {
		check_fail = 1;
		fprintf(stderr, "FAIL: no check ran (a test that checks nothing "
				"proves nothing)\n");
	}
	printf("%d passed, %d failed, 0 skipped\n", check_pass, check_fail);
	check_record(check_pass, check_fail, 0);
	return check_fail ? 1 : 0;
}

#endif
