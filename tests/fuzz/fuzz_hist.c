/*
 * fuzz_hist.c - fuzz target for the histogram parser (gl_hist_deserialize).
 * Most inputs must be refused without a read past the buffer; any input
 * that parses must be canonical (re-serializes to the same bytes), give
 * monotone percentiles inside [min, max], and survive merging into an empty
 * histogram and into itself with the results the contract promises.
 * Violations abort, so both libFuzzer and the corpus replayer report them.
 */
#include "hist.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(cond)                                                                     \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "fuzz_hist: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                              \
		}                                                                             \
	} while (0)

static const double fuzz_ps[] = { 0, 0.1, 1, 25, 50, 90, 99, 99.9, 99.99, 100 };
#define N_PS (sizeof(fuzz_ps) / sizeof(fuzz_ps[0]))

static void check_percentiles(const struct gl_hist *h, double *out)
{
	double prev = -1.0;

	for (size_t i = 0; i < N_PS; i++) {
		double v = gl_hist_percentile(h, fuzz_ps[i]);

		if (gl_hist_count(h) == 0) {
			FUZZ_ASSERT(isnan(v));
		} else {
			FUZZ_ASSERT(v >= gl_hist_min(h) && v <= gl_hist_max(h));
			FUZZ_ASSERT(v >= prev);
			prev = v;
		}
		if (out)
			out[i] = v;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gl_hist *h, *copy = NULL, *twice = NULL;
	unsigned char *blob = NULL, *blob2 = NULL;
	size_t len = 0, len2 = 0;
	double ps[N_PS], ps2[N_PS];

	h = gl_hist_deserialize(data, size);
	if (!h)
		return 0;
	check_percentiles(h, ps);

	FUZZ_ASSERT(gl_hist_serialize(h, &blob, &len) == 0);
	FUZZ_ASSERT(len == size && memcmp(blob, data, size) == 0);

	/* Merged into an empty histogram: the same thing again. */
	copy = gl_hist_new();
	FUZZ_ASSERT(copy != NULL);
	FUZZ_ASSERT(gl_hist_merge(copy, h) == 0);
	FUZZ_ASSERT(gl_hist_serialize(copy, &blob2, &len2) == 0);
	FUZZ_ASSERT(len2 == len && memcmp(blob2, blob, len) == 0);
	free(blob2);
	blob2 = NULL;

	/* Merged with itself: doubled counts, the same nearest-rank values,
	 * unless the total would overflow, which must be refused cleanly. */
	if (gl_hist_merge(copy, h) == 0) {
		FUZZ_ASSERT(gl_hist_count(copy) == 2 * gl_hist_count(h));
		check_percentiles(copy, ps2);
		FUZZ_ASSERT(memcmp(ps, ps2, sizeof(ps)) == 0);
		FUZZ_ASSERT(gl_hist_serialize(copy, &blob2, &len2) == 0);
		twice = gl_hist_deserialize(blob2, len2);
		FUZZ_ASSERT(twice != NULL);
		FUZZ_ASSERT(gl_hist_count(twice) == gl_hist_count(copy));
	} else {
		FUZZ_ASSERT(gl_hist_count(copy) == gl_hist_count(h));
	}

	/* Recording into a parsed histogram keeps it consistent. */
	if (gl_hist_record(h, 1.0) == 0) {
		check_percentiles(h, NULL);
		free(blob);
		blob = NULL;
		FUZZ_ASSERT(gl_hist_serialize(h, &blob, &len) == 0);
		gl_hist_free(copy);
		copy = gl_hist_deserialize(blob, len);
		FUZZ_ASSERT(copy != NULL);
	}

	gl_hist_free(twice);
	gl_hist_free(copy);
	gl_hist_free(h);
	free(blob);
	free(blob2);
	return 0;
}
