/*
 * test_hist.c - unit tests for the log-linear histogram (harness/lib/hist.c).
 * Every percentile is compared with the exact nearest-rank answer from a
 * sorted copy of the samples (rank computed in integers, so 99.9% of 1000 is
 * rank 999), over distributions shaped like real latencies and some that are
 * not; merge must equal the histogram of the union, serialization must round
 * trip and the parser must survive truncation, bit flips and garbage. A
 * fixed-seed splitmix64 keeps every run identical.
 */
#include "hist.h"

#include "check.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REL_MAX 1e-3 /* the contract: 0.1% */
#define REL_BOUND (1.0 / 2048.0 * (1.0 + 1e-12)) /* what hist.c gives */
#define HEADER_BYTES 52
#define SUM_OFFSET 44 /* f64 sum in the header */

static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
	rng_state = seed;
}

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1): never 0, so logs and divisions are safe. */
static double rng_u01(void)
{
	return ((double)(rng_next() >> 11) + 0.5) * 0x1p-53;
}

static double rng_normal(void)
{
	return sqrt(-2.0 * log(rng_u01())) * cos(2.0 * M_PI * rng_u01());
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Exact nearest rank for p = pm / 1000 percent, in integers. */
static double ref_percentile(const double *sorted, size_t n, int pm)
{
	uint64_t rank;

	if (pm <= 0)
		return sorted[0];
	rank = ((uint64_t)pm * n + 99999) / 100000;
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static double rel_err(double got, double want)
{
	if (want == 0.0)
		return got == 0.0 ? 0.0 : INFINITY;
	return fabs(got - want) / want;
}

static struct gl_hist *hist_of(const double *vals, size_t n)
{
	struct gl_hist *h = gl_hist_new();

	CHECK(h != NULL);
	for (size_t i = 0; i < n; i++)
		if (gl_hist_record(h, vals[i]) != 0) {
			CHECKF(0, "record %zu failed", i);
			break;
		}
	return h;
}

/* Percentiles over a fine sweep, compared bit for bit. */
static int same_percentiles(const struct gl_hist *a, const struct gl_hist *b)
{
	int mismatches = 0;

	for (int pm = 0; pm <= 100000; pm += 10) {
		double x = gl_hist_percentile(a, pm / 1000.0);
		double y = gl_hist_percentile(b, pm / 1000.0);

		if (!(x == y || (isnan(x) && isnan(y))))
			mismatches++;
	}
	return mismatches;
}

static int blob_of(const struct gl_hist *h, unsigned char **out, size_t *len)
{
	int rc = gl_hist_serialize(h, out, len);

	CHECK(rc == 0);
	return rc;
}

/* Same serialized bytes except the sum, which may differ in its last bits
 * between summing in one order or merging partial sums. */
static int same_but_sum(const struct gl_hist *a, const struct gl_hist *b)
{
	unsigned char *x = NULL, *y = NULL;
	size_t nx = 0, ny = 0;
	int same;

	if (blob_of(a, &x, &nx) || blob_of(b, &y, &ny)) {
		free(x);
		free(y);
		return 0;
	}
	same = nx == ny && nx >= HEADER_BYTES && memcmp(x, y, SUM_OFFSET) == 0 &&
	       memcmp(x + HEADER_BYTES, y + HEADER_BYTES, nx - HEADER_BYTES) == 0;
	free(x);
	free(y);
	return same;
}

/* Parse from an exact-size heap copy, so ASan sees any over-read. */
static struct gl_hist *parse_copy(const unsigned char *buf, size_t len)
{
	unsigned char *c = malloc(len ? len : 1);
	struct gl_hist *h;

	if (len)
		memcpy(c, buf, len);
	h = gl_hist_deserialize(c, len);
	free(c);
	return h;
}

/* Accepted blobs must be canonical and sane: re-serialize to the same
 * bytes, percentiles monotone and inside [min, max]. Returns 1 if fine. */
static int parsed_is_sane(const struct gl_hist *h, const unsigned char *buf, size_t len)
{
	unsigned char *out = NULL;
	size_t n = 0;
	int ok;
	double prev = -1.0;

	if (gl_hist_serialize(h, &out, &n) != 0)
		return 0;
	ok = n == len && memcmp(out, buf, len) == 0;
	free(out);
	if (gl_hist_count(h) == 0)
		return ok && isnan(gl_hist_percentile(h, 50));
	for (int pm = 0; pm <= 100000 && ok; pm += 2500) {
		double v = gl_hist_percentile(h, pm / 1000.0);

		ok = v >= gl_hist_min(h) && v <= gl_hist_max(h) && v >= prev;
		prev = v;
	}
	return ok;
}

/* Accuracy against the sorted samples, exact count/min/max, mean. */
static void check_accuracy(const char *name, const double *vals, size_t n, const struct gl_hist *h)
{
	static const int pms[] = { 0, 50000, 90000, 95000, 99000, 99900, 100000 };
	double *sorted = malloc(n * sizeof(double));
	long double sum = 0;
	double worst = 0;
	int worst_pm = 0;

	memcpy(sorted, vals, n * sizeof(double));
	qsort(sorted, n, sizeof(double), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += vals[i];

	CHECKF(gl_hist_count(h) == n, "%s: count %llu want %zu", name, (unsigned long long)gl_hist_count(h), n);
	CHECKF(gl_hist_min(h) == sorted[0], "%s: min %.17g want %.17g", name, gl_hist_min(h), sorted[0]);
	CHECKF(gl_hist_max(h) == sorted[n - 1], "%s: max %.17g want %.17g", name, gl_hist_max(h), sorted[n - 1]);
	CHECKF(rel_err(gl_hist_mean(h), (double)(sum / n)) <= 1e-12, "%s: mean %.17g want %.17g", name, gl_hist_mean(h),
	       (double)(sum / n));
	for (size_t i = 0; i < sizeof(pms) / sizeof(pms[0]); i++) {
		double got = gl_hist_percentile(h, pms[i] / 1000.0);
		double want = ref_percentile(sorted, n, pms[i]);

		CHECKF(rel_err(got, want) <= REL_MAX, "%s: p%g got %.17g want %.17g", name, pms[i] / 1000.0, got, want);
	}
	CHECKF(gl_hist_percentile(h, 0) == sorted[0], "%s: p0 is not min", name);
	CHECKF(gl_hist_percentile(h, 100) == sorted[n - 1], "%s: p100 is not max", name);
	for (int pm = 0; pm <= 100000; pm += 10) {
		double e = rel_err(gl_hist_percentile(h, pm / 1000.0), ref_percentile(sorted, n, pm));
		if (e > worst) {
			worst = e;
			worst_pm = pm;
		}
	}
	CHECKF(worst <= REL_BOUND, "%s: worst relative error %.3g at p%g", name, worst, worst_pm / 1000.0);
	free(sorted);
}

/* Merge of a random split equals the histogram of the whole. */
static void check_merge(const char *name, const double *vals, size_t n, const struct gl_hist *whole)
{
	struct gl_hist *a = gl_hist_new(), *b = gl_hist_new(), *m = gl_hist_new();

	for (size_t i = 0; i < n; i++)
		gl_hist_record(rng_next() & 1 ? a : b, vals[i]);
	CHECK(gl_hist_merge(m, a) == 0); /* into an empty one */
	CHECK(gl_hist_merge(m, b) == 0);
	CHECKF(gl_hist_count(m) == gl_hist_count(whole), "%s: merged count", name);
	CHECKF(gl_hist_min(m) == gl_hist_min(whole), "%s: merged min", name);
	CHECKF(gl_hist_max(m) == gl_hist_max(whole), "%s: merged max", name);
	CHECKF(rel_err(gl_hist_sum(m), gl_hist_sum(whole)) <= 1e-12, "%s: merged sum", name);
	CHECKF(same_percentiles(m, whole) == 0, "%s: merged percentiles differ in %d places", name,
	       same_percentiles(m, whole));
	CHECKF(same_but_sum(m, whole), "%s: merged buckets differ", name);
	gl_hist_free(a);
	gl_hist_free(b);
	gl_hist_free(m);
}

static void check_round_trip(const char *name, const struct gl_hist *h)
{
	unsigned char *blob = NULL, *again = NULL;
	size_t len = 0, len2 = 0;
	struct gl_hist *r;

	if (blob_of(h, &blob, &len))
		return;
	r = parse_copy(blob, len);
	CHECKF(r != NULL, "%s: own blob rejected", name);
	if (r) {
		CHECKF(gl_hist_count(r) == gl_hist_count(h), "%s: rt count", name);
		CHECKF(gl_hist_rejected(r) == gl_hist_rejected(h), "%s: rt rejected", name);
		CHECKF(gl_hist_min(r) == gl_hist_min(h), "%s: rt min", name);
		CHECKF(gl_hist_max(r) == gl_hist_max(h), "%s: rt max", name);
		CHECKF(gl_hist_sum(r) == gl_hist_sum(h), "%s: rt sum", name);
		CHECKF(same_percentiles(r, h) == 0, "%s: rt percentiles", name);
		/* h may hold octaves emptied by a reset; r holds none. */
		CHECKF(gl_hist_memory(r) <= gl_hist_memory(h), "%s: rt memory", name);
		CHECK(blob_of(r, &again, &len2) == 0);
		CHECKF(len2 == len && memcmp(again, blob, len) == 0, "%s: rt bytes", name);
		free(again);
		gl_hist_free(r);
	}
	free(blob);
}

static void run_dataset(const char *name, const double *vals, size_t n)
{
	struct gl_hist *h = hist_of(vals, n);

	check_accuracy(name, vals, n, h);
	check_merge(name, vals, n, h);
	check_round_trip(name, h);
	gl_hist_free(h);
}

static void test_distributions(void)
{
	size_t n = 200000;
	double *v = malloc(n * sizeof(double));

	rng_seed(1);
	for (size_t i = 0; i < n; i++)
		v[i] = rng_u01() * 1000.0;
	run_dataset("uniform", v, n);

	for (size_t i = 0; i < n; i++)
		v[i] = exp(3.0 + 1.5 * rng_normal());
	run_dataset("lognormal", v, n);

	for (size_t i = 0; i < n; i++)
		v[i] = -50.0 * log(rng_u01());
	run_dataset("exponential", v, n);

	for (size_t i = 0; i < n; i++)
		v[i] = pow(rng_u01(), -1.0 / 1.1); /* pareto, alpha 1.1 */
	run_dataset("pareto", v, n);

	for (size_t i = 0; i < 1000; i++)
		v[i] = 42.4242;
	run_dataset("identical", v, 1000);
	{
		struct gl_hist *h = hist_of(v, 1000);
		CHECK(gl_hist_percentile(h, 50) == 42.4242);
		CHECK(gl_hist_percentile(h, 99.9) == 42.4242);
		gl_hist_free(h);
	}

	for (size_t i = 0; i < n; i++)
		v[i] = (i % 3 ? 1e-6 : 1e6) * (1.0 + 0.01 * rng_u01());
	run_dataset("two clusters", v, n);

	for (size_t i = 0; i < n; i++)
		v[i] = pow(10.0, -9.0 + 21.0 * rng_u01());
	run_dataset("1e-9..1e12", v, n);

	for (size_t i = 0; i < n; i++)
		v[i] = rng_next() % 10 < 3 ? 0.0 : -20.0 * log(rng_u01());
	run_dataset("zeros mixed", v, n);

	/* Bucket edges and the values just below them, over many octaves:
	 * an off-by-one in the index shows up here first. */
	for (size_t i = 0; i < n; i++) {
		double edge = ldexp(1024.0 + (double)(rng_next() % 1024), (int)(rng_next() % 120) - 70);
		v[i] = i & 1 ? edge : nextafter(edge, 0.0);
	}
	run_dataset("bucket edges", v, n);

	/* Integers: latencies in whole microseconds. */
	for (size_t i = 0; i < n; i++)
		v[i] = (double)(rng_next() % 100000);
	run_dataset("integers", v, n);
	free(v);
}

static void test_tiny_counts(void)
{
	double v[3];
	char name[64];

	rng_seed(2);
	for (int trial = 0; trial < 200; trial++) {
		size_t n = 1 + (size_t)trial % 3;

		for (size_t i = 0; i < n; i++)
			v[i] = pow(10.0, -9.0 + 21.0 * rng_u01()) * (trial % 7 == 0 ? 0 : 1);
		snprintf(name, sizeof(name), "tiny n=%zu trial %d", n, trial);
		run_dataset(name, v, n);
	}
}

/* Every p in 0.001 steps must select exactly the nearest rank: with values
 * i^2 the neighbouring ranks differ by far more than 0.1%. */
static void test_ranks(void)
{
	static const size_t ns[] = { 1000, 7, 3, 100, 12345 };

	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
		size_t n = ns[k];
		double *v = malloc(n * sizeof(double));
		struct gl_hist *h;
		int bad = 0, first_bad = -1;

		for (size_t i = 0; i < n; i++)
			v[i] = (double)(i + 1) * (double)(i + 1) * 1000.0;
		h = hist_of(v, n);
		for (int pm = 0; pm <= 100000; pm++) {
			double got = gl_hist_percentile(h, pm / 1000.0);
			double want = ref_percentile(v, n, pm);

			if (rel_err(got, want) > REL_MAX) {
				if (first_bad < 0)
					first_bad = pm;
				bad++;
			}
		}
		CHECKF(bad == 0, "n=%zu: %d wrong ranks, first at p%g", n, bad, first_bad / 1000.0);
		gl_hist_free(h);
		free(v);
	}
	{
		double v[4] = { 1, 100, 10000, 1000000 };
		struct gl_hist *h = hist_of(v, 4);

		CHECK(rel_err(gl_hist_percentile(h, 25), 1) <= REL_MAX);
		CHECK(rel_err(gl_hist_percentile(h, 25.0001), 100) <= REL_MAX);
		CHECK(rel_err(gl_hist_percentile(h, 50), 100) <= REL_MAX);
		CHECK(rel_err(gl_hist_percentile(h, 75), 10000) <= REL_MAX);
		CHECK(gl_hist_percentile(h, 75.1) == 1000000);
		CHECK(gl_hist_percentile(h, -5) == 1);
		CHECK(gl_hist_percentile(h, 250) == 1000000);
		CHECK(isnan(gl_hist_percentile(h, NAN)));
		gl_hist_free(h);
	}
}

static void test_edges(void)
{
	struct gl_hist *h = gl_hist_new();
	unsigned char *blob = NULL;
	size_t len = 0;

	/* Empty. */
	CHECK(gl_hist_count(h) == 0);
	CHECK(isnan(gl_hist_percentile(h, 50)));
	CHECK(isnan(gl_hist_percentile(h, 0)));
	CHECK(gl_hist_min(h) == 0 && gl_hist_max(h) == 0);
	CHECK(gl_hist_sum(h) == 0);
	CHECK(isnan(gl_hist_mean(h)));
	CHECK(blob_of(h, &blob, &len) == 0 && len == HEADER_BYTES);
	free(blob);
	check_round_trip("empty", h);

	/* Rejections. */
	CHECK(gl_hist_record(h, NAN) == 0);
	CHECK(gl_hist_record(h, -1.0) == 0);
	CHECK(gl_hist_record(h, -1e-300) == 0);
	CHECK(gl_hist_record(h, INFINITY) == 0);
	CHECK(gl_hist_record(h, -INFINITY) == 0);
	CHECK(gl_hist_record_n(h, NAN, 7) == 0);
	CHECK(gl_hist_rejected(h) == 12);
	CHECK(gl_hist_count(h) == 0);
	CHECK(isnan(gl_hist_percentile(h, 50)));
	check_round_trip("rejected only", h);

	/* -0.0 is a zero; tiny values go to the zero bucket, huge ones to the
	 * top bucket; both extremes stay exact. */
	CHECK(gl_hist_record(h, -0.0) == 0);
	CHECK(gl_hist_count(h) == 1 && gl_hist_rejected(h) == 12);
	CHECK(gl_hist_min(h) == 0 && !signbit(gl_hist_min(h)));
	CHECK(gl_hist_record(h, 1e-25) == 0);
	CHECK(gl_hist_record(h, 0x1p-64) == 0);
	CHECK(gl_hist_record(h, 1e30) == 0);
	CHECK(gl_hist_record(h, DBL_MAX) == 0);
	CHECK(gl_hist_count(h) == 5);
	CHECK(gl_hist_percentile(h, 20) == 0);
	CHECK(gl_hist_percentile(h, 40) == 0); /* 1e-25 is "zero" */
	CHECK(rel_err(gl_hist_percentile(h, 60), 0x1p-64) <= REL_MAX);
	CHECK(gl_hist_percentile(h, 100) == DBL_MAX);
	CHECK(gl_hist_percentile(h, 99) == DBL_MAX);
	CHECK(gl_hist_sum(h) == INFINITY || gl_hist_sum(h) > 1e308);
	check_round_trip("extremes", h);
	gl_hist_reset(h);

	/* Just below and at 2^64: the last regular octave, then the clamp. */
	CHECK(gl_hist_record(h, 0x1.fffffffffffffp63) == 0);
	CHECK(gl_hist_record(h, 0x1p64) == 0);
	CHECK(gl_hist_record(h, 0x1.8p64) == 0);
	CHECK(gl_hist_record(h, 0x1p65) == 0);
	CHECK(gl_hist_percentile(h, 100) == 0x1p65);
	CHECK(gl_hist_percentile(h, 50) == 0x1p65);
	CHECK(gl_hist_percentile(h, 0) == 0x1.fffffffffffffp63);
	check_round_trip("near 2^64", h);
	gl_hist_reset(h);

	/* A zero bucket without a true zero reports the exact min. */
	CHECK(gl_hist_record(h, 1e-25) == 0);
	CHECK(gl_hist_record(h, 1e-22) == 0);
	CHECK(gl_hist_record(h, 1e-21) == 0);
	CHECK(gl_hist_percentile(h, 50) == 1e-25);
	CHECK(gl_hist_percentile(h, 100) == 1e-21);
	check_round_trip("zero bucket", h);

	/* Reset keeps memory, drops everything else. */
	{
		size_t mem = gl_hist_memory(h);

		gl_hist_reset(h);
		CHECK(gl_hist_memory(h) == mem);
		CHECK(gl_hist_count(h) == 0 && gl_hist_rejected(h) == 0);
		CHECK(gl_hist_min(h) == 0 && gl_hist_max(h) == 0 && gl_hist_sum(h) == 0);
		CHECK(isnan(gl_hist_percentile(h, 50)));
		CHECK(blob_of(h, &blob, &len) == 0 && len == HEADER_BYTES);
		free(blob);
		CHECK(gl_hist_record(h, 5.0) == 0);
		CHECK(gl_hist_min(h) == 5.0 && gl_hist_max(h) == 5.0);
		CHECK(gl_hist_percentile(h, 50) == 5.0);
	}
	gl_hist_free(h);
	gl_hist_free(NULL);
}

static void test_sum_and_record_n(void)
{
	struct gl_hist *a = gl_hist_new(), *b = gl_hist_new();
	long double ref = 0;

	for (int i = 1; i <= 100000; i++)
		gl_hist_record(a, i);
	CHECK(gl_hist_sum(a) == 5000050000.0);
	CHECK(gl_hist_mean(a) == 50000.5);

	/* Compensated: a naive double sum loses the small ones entirely
	 * (1e17 + 0.7 rounds back to 1e17). */
	gl_hist_reset(a);
	gl_hist_record(a, 1e17);
	for (int i = 0; i < 100000; i++)
		gl_hist_record(a, 0.7);
	ref = 1e17L + 100000.0L * 0.7;
	CHECKF(rel_err(gl_hist_sum(a), (double)ref) <= 1e-15, "sum %.17g want %.17g", gl_hist_sum(a), (double)ref);

	/* record_n equals n records. */
	gl_hist_reset(a);
	rng_seed(3);
	for (int i = 0; i < 1000; i++) {
		double v = rng_u01() * 100;
		uint64_t n = rng_next() % 5;

		CHECK(gl_hist_record_n(b, v, n) == 0);
		for (uint64_t k = 0; k < n; k++)
			gl_hist_record(a, v);
	}
	CHECK(gl_hist_count(a) == gl_hist_count(b));
	CHECK(same_but_sum(a, b));
	CHECK(rel_err(gl_hist_sum(a), gl_hist_sum(b)) <= 1e-13);

	/* Count overflow is refused and changes nothing. */
	gl_hist_reset(a);
	gl_hist_reset(b);
	CHECK(gl_hist_record_n(a, 1.0, UINT64_MAX) == 0);
	CHECK(gl_hist_record(a, 2.0) == -1);
	CHECK(gl_hist_count(a) == UINT64_MAX && gl_hist_max(a) == 1.0);
	CHECK(gl_hist_record(b, 3.0) == 0);
	CHECK(gl_hist_merge(a, b) == -1);
	CHECK(gl_hist_count(a) == UINT64_MAX && gl_hist_max(a) == 1.0);
	CHECK(gl_hist_percentile(a, 99.9999) == 1.0);
	check_round_trip("huge count", a);
	gl_hist_free(a);
	gl_hist_free(b);
}

static void test_merge_cases(void)
{
	struct gl_hist *a = gl_hist_new(), *e = gl_hist_new(), *c;
	size_t n = 5000;
	double *v = malloc(2 * n * sizeof(double));

	rng_seed(4);
	for (size_t i = 0; i < n; i++) {
		v[i] = v[n + i] = exp(2.0 * rng_normal());
		gl_hist_record(a, v[i]);
	}
	gl_hist_record(a, NAN);
	/* Merging an empty one changes nothing; merging into one copies. */
	c = gl_hist_new();
	CHECK(gl_hist_merge(c, a) == 0);
	CHECK(gl_hist_merge(c, e) == 0);
	CHECK(same_percentiles(c, a) == 0 && same_but_sum(c, a));
	CHECK(gl_hist_sum(c) == gl_hist_sum(a));
	CHECK(gl_hist_rejected(c) == 1);
	/* Self-merge doubles every count: the same nearest-rank values. */
	CHECK(gl_hist_merge(c, c) == 0);
	CHECK(gl_hist_count(c) == 2 * n && gl_hist_rejected(c) == 2);
	CHECK(same_percentiles(c, a) == 0);
	check_accuracy("self merge", v, 2 * n, c);
	gl_hist_free(a);
	gl_hist_free(c);
	gl_hist_free(e);
	free(v);
}

/* Memory follows the value range, never the number of samples. */
static void test_memory(void)
{
	struct gl_hist *small = gl_hist_new(), *big = gl_hist_new();
	size_t m_small, m_big;

	rng_seed(5);
	for (int i = 0; i < 1000; i++)
		gl_hist_record(small, 100.0 + 900.0 * rng_u01());
	for (int i = 0; i < 10000000; i++)
		gl_hist_record(big, 100.0 + 900.0 * rng_u01());
	m_small = gl_hist_memory(small);
	m_big = gl_hist_memory(big);
	CHECKF(m_small == m_big, "memory %zu after 1e3 samples, %zu after 1e7", m_small, m_big);
	/* [100, 1000) spans 4 octaves of 8 KiB. */
	CHECKF(m_big <= 4 * 8192 + 4096, "memory %zu", m_big);
	CHECK(gl_hist_count(big) == 10000000);
	CHECK(rel_err(gl_hist_percentile(big, 50), 550.0) <= 2e-3);
	gl_hist_free(small);
	gl_hist_free(big);
}

/* --- parser --- */

static void put_le(unsigned char *p, uint64_t x)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(x >> (8 * i));
}

static void put_f(unsigned char *p, double d)
{
	uint64_t x;

	memcpy(&x, &d, 8);
	put_le(p, x);
}

/* Build a blob by hand: header plus raw pair bytes. */
static size_t make_blob(unsigned char *buf, uint64_t count, uint64_t zeros, double min, double max, double sum,
			const unsigned char *pairs, size_t n_pairs)
{
	memcpy(buf, "GLH1", 4);
	put_le(buf + 4, count);
	put_le(buf + 12, zeros);
	put_le(buf + 20, 0);
	put_f(buf + 28, min);
	put_f(buf + 36, max);
	put_f(buf + 44, sum);
	memcpy(buf + HEADER_BYTES, pairs, n_pairs);
	return HEADER_BYTES + n_pairs;
}

static void test_parser_crafted(void)
{
	unsigned char b[256];
	size_t n;
	struct gl_hist *h;
	/* Bucket of 1.0: frexp gives 0.5 * 2^1, octave 64, index 65536
	 * = varint 80 80 04. */
	const unsigned char one[] = { 0x80, 0x80, 0x04, 0x03 };
	const unsigned char two[] = { 0x80, 0x80, 0x04, 0x01, 0xff, 0x03, 0x02 };

	n = make_blob(b, 3, 0, 1.0, 1.0, 3.0, one, sizeof(one));
	h = parse_copy(b, n);
	CHECK(h != NULL && gl_hist_count(h) == 3 && gl_hist_percentile(h, 50) == 1.0);
	CHECK(h && parsed_is_sane(h, b, n));
	gl_hist_free(h);

	/* 1.0 once, then index 65536 + 1 + 511 (1.5 .. ) twice. */
	n = make_blob(b, 3, 0, 1.0, 1.5, 4.0, two, sizeof(two));
	h = parse_copy(b, n);
	CHECK(h != NULL && gl_hist_count(h) == 3);
	CHECK(h && rel_err(gl_hist_percentile(h, 50), 1.5) <= REL_MAX);
	gl_hist_free(h);

#define REJECT(what, ...)                                                                                          \
	do {                                                                                                       \
		const unsigned char pairs_[] = { __VA_ARGS__ };                                                    \
		n = make_blob(b, what##_count, what##_zeros, what##_min, what##_max, 3.0, pairs_, sizeof(pairs_)); \
		h = parse_copy(b, n);                                                                              \
		CHECKF(h == NULL, "accepted: %s", #what);                                                          \
		gl_hist_free(h);                                                                                   \
	} while (0)
	/* count does not add up */
	{
		uint64_t more_count = 4, more_zeros = 0;
		double more_min = 1.0, more_max = 1.0;
		REJECT(more, 0x80, 0x80, 0x04, 0x03);
	}
	{
		uint64_t less_count = 2, less_zeros = 0;
		double less_min = 1.0, less_max = 1.0;
		REJECT(less, 0x80, 0x80, 0x04, 0x03);
	}
	{ /* zeros beyond count */
		uint64_t z_count = 3, z_zeros = 4;
		double z_min = 0.0, z_max = 1.0;
		REJECT(z, 0x80, 0x80, 0x04, 0x03);
	}
	{ /* index 131072: past the last bucket */
		uint64_t idx_count = 3, idx_zeros = 0;
		double idx_min = 1.0, idx_max = 1.0;
		REJECT(idx, 0x80, 0x80, 0x08, 0x03);
	}
	{ /* second gap runs one past the last bucket */
		uint64_t gap_count = 4, gap_zeros = 0;
		double gap_min = 1.0, gap_max = 1e30;
		REJECT(gap, 0x80, 0x80, 0x04, 0x03, 0xff, 0xff, 0x03, 0x01);
	}
	{ /* a bucket with count 0 between two real ones */
		uint64_t zc_count = 3, zc_zeros = 0;
		double zc_min = 1.0, zc_max = 1.001953125;
		REJECT(zc, 0x80, 0x80, 0x04, 0x02, 0x00, 0x00, 0x00, 0x01);
	}
	{ /* overlong varints */
		uint64_t ol_count = 3, ol_zeros = 0;
		double ol_min = 1.0, ol_max = 1.0;
		REJECT(ol, 0x80, 0x80, 0x04, 0x83, 0x00);
		REJECT(ol, 0x80, 0x80, 0x84, 0x00, 0x03);
	}
	{ /* 11-byte and 65-bit varints */
		uint64_t lv_count = 3, lv_zeros = 0;
		double lv_min = 1.0, lv_max = 1.0;
		REJECT(lv, 0x80, 0x80, 0x04, 0x83, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00);
		REJECT(lv, 0x80, 0x80, 0x04, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02);
		REJECT(lv, 0x80, 0x80, 0x04); /* no count */
		REJECT(lv, 0x80, 0x80); /* cut varint */
	}
	{ /* min/max not where the buckets are, or invalid */
		uint64_t mm_count = 3, mm_zeros = 0;
		double mm_min = 1.01, mm_max = 1.0;
		REJECT(mm, 0x80, 0x80, 0x04, 0x03);
	}
	{
		uint64_t mx_count = 3, mx_zeros = 0;
		double mx_min = 1.0, mx_max = 2.0;
		REJECT(mx, 0x80, 0x80, 0x04, 0x03);
	}
	{
		uint64_t nn_count = 3, nn_zeros = 0;
		double nn_min = NAN, nn_max = 1.0;
		REJECT(nn, 0x80, 0x80, 0x04, 0x03);
	}
	{
		uint64_t ng_count = 3, ng_zeros = 0;
		double ng_min = -1.0, ng_max = 1.0;
		REJECT(ng, 0x80, 0x80, 0x04, 0x03);
	}
	{ /* zeros but min is not a zero-bucket value */
		uint64_t zm_count = 4, zm_zeros = 1;
		double zm_min = 1.0, zm_max = 1.0;
		REJECT(zm, 0x80, 0x80, 0x04, 0x03);
	}
	{ /* empty must be all zero */
		uint64_t em_count = 0, em_zeros = 0;
		double em_min = 1.0, em_max = 1.0;
		REJECT(em);
		REJECT(em, 0x80, 0x80, 0x04, 0x03);
	}
#undef REJECT
	{ /* ... and one short of that is the top bucket: accepted */
		const unsigned char top[] = { 0x80, 0x80, 0x04, 0x03, 0xfe, 0xff, 0x03, 0x01 };

		n = make_blob(b, 4, 0, 1.0, 1e30, 3.0, top, sizeof(top));
		h = parse_copy(b, n);
		CHECK(h != NULL && gl_hist_percentile(h, 100) == 1e30);
		CHECK(h && gl_hist_percentile(h, 80) == 1e30);
		CHECK(h && rel_err(gl_hist_percentile(h, 75), 1.0) <= REL_MAX);
		gl_hist_free(h);
	}
	/* Bad magic, short header, trailing byte. */
	n = make_blob(b, 3, 0, 1.0, 1.0, 3.0, one, sizeof(one));
	b[3] = '2';
	h = parse_copy(b, n);
	CHECK(h == NULL);
	b[3] = '1';
	b[n] = 0x00;
	h = parse_copy(b, n + 1);
	CHECK(h == NULL);
	CHECK(parse_copy(b, 0) == NULL);
	CHECK(gl_hist_deserialize(NULL, 0) == NULL);
	/* sum: NaN and negative refused, +inf (an overflowed sum) allowed */
	put_f(b + SUM_OFFSET, NAN);
	CHECK(parse_copy(b, n) == NULL);
	put_f(b + SUM_OFFSET, -3.0);
	CHECK(parse_copy(b, n) == NULL);
	put_f(b + SUM_OFFSET, INFINITY);
	h = parse_copy(b, n);
	CHECK(h != NULL);
	gl_hist_free(h);
}

/* Every strict prefix is refused; every single-bit flip is refused or
 * parses to a sane, canonical histogram; random garbage never crashes. */
static void test_parser_damage(void)
{
	struct gl_hist *h = gl_hist_new(), *p;
	unsigned char *blob = NULL, *buf;
	size_t len = 0;
	int prefix_ok = 1, flips_bad = 0, flips_unchecked = 0, garbage_bad = 0;

	rng_seed(6);
	for (int i = 0; i < 300; i++)
		gl_hist_record(h, exp(3.0 * rng_normal()));
	for (int i = 0; i < 20; i++)
		gl_hist_record(h, 0.0);
	gl_hist_record(h, 1e30);
	gl_hist_record_n(h, 7.0, 1ULL << 40);
	gl_hist_record(h, -1);
	if (blob_of(h, &blob, &len))
		return;
	for (size_t k = 0; k < len; k++) {
		p = parse_copy(blob, k);
		if (p) {
			prefix_ok = 0;
			gl_hist_free(p);
		}
	}
	CHECKF(prefix_ok, "a truncated blob was accepted");

	buf = malloc(len);
	for (size_t bit = 0; bit < len * 8; bit++) {
		memcpy(buf, blob, len);
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		p = parse_copy(buf, len);
		if (p) {
			/* Only rejected, min, max and sum (bytes 20..51) have
			 * bits nothing else can cross-check. */
			if (bit / 8 < 20 || bit / 8 >= HEADER_BYTES)
				flips_unchecked++;
			if (!parsed_is_sane(p, buf, len))
				flips_bad++;
			gl_hist_free(p);
		}
	}
	CHECKF(flips_bad == 0, "%d bit-flipped blobs parsed to nonsense", flips_bad);
	CHECKF(flips_unchecked == 0, "%d flips of counts or buckets accepted", flips_unchecked);
	free(buf);

	/* Garbage after a valid magic, and mutations of the valid blob. */
	buf = malloc(len + 64);
	for (int t = 0; t < 20000; t++) {
		size_t n = (size_t)(rng_next() % (len + 64));

		if (t & 1) {
			for (size_t i = 0; i < n; i++)
				buf[i] = (unsigned char)rng_next();
			if (n >= 4)
				memcpy(buf, "GLH1", 4);
		} else {
			n = len;
			memcpy(buf, blob, len);
			for (int m = 0; m < 4; m++)
				buf[rng_next() % len] = (unsigned char)rng_next();
		}
		p = parse_copy(buf, n);
		if (p) {
			if (!parsed_is_sane(p, buf, n))
				garbage_bad++;
			gl_hist_free(p);
		}
	}
	CHECKF(garbage_bad == 0, "%d garbage blobs parsed to nonsense", garbage_bad);
	free(buf);
	free(blob);
	gl_hist_free(h);
}

int main(void)
{
	test_edges();
	test_ranks();
	test_tiny_counts();
	test_distributions();
	test_sum_and_record_n();
	test_merge_cases();
	test_memory();
	test_parser_crafted();
	test_parser_damage();
	return check_done();
}
