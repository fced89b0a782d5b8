/*
 * hist.c - the log-linear histogram behind every latency percentile (see
 * hist.h and docs/metrics.md). A value v >= 2^-64 is split by frexp into
 * m * 2^e with m in [0.5, 1); e picks one of 128 octaves (e in [-63, 64]) and
 * (m - 0.5) * 2048 one of 1024 linear sub-buckets inside it, so a bucket is
 * at most 1/1024 of its lower edge wide and its midpoint is within 1/2048 of
 * any value in it. Smaller values (and 0) are counted in an exact zero
 * bucket, reported as the exact min; values >= 2^64 are clamped into the top
 * bucket, reported as the exact max. Octaves are allocated on first touch, so memory follows the
 * range of values, never the number of samples.
 *
 * Serialized form (version 1, all integers little-endian):
 *   "GLH1", u64 count, u64 zero_count, u64 rejected, f64 min, f64 max,
 *   f64 sum, then for each non-empty bucket in increasing index order a
 *   LEB128 varint gap (index - previous index - 1; the first is the index
 *   itself) and a LEB128 varint count (>= 1).
 * The parser accepts only the canonical form, so any blob it accepts
 * re-serializes to the same bytes (the fuzz target checks exactly that).
 */
#include "hist.h"

#include <assert.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HIST_SUB_BITS 10
#define HIST_SUBS (1 << HIST_SUB_BITS) /* sub-buckets per octave */
#define HIST_EXP_MIN (-63) /* frexp exponent of 2^-64 */
#define HIST_EXP_MAX 64 /* frexp exponent below 2^64 */
#define HIST_OCTAVES (HIST_EXP_MAX - HIST_EXP_MIN + 1)
#define HIST_BUCKETS (HIST_OCTAVES * HIST_SUBS)
#define HIST_ZERO_MAX 0x1p-64 /* below this: zero bucket */
/* After an octave's counts, a bitmap of its buckets that are not zero:
 * serializing, merging, clearing and percentiles visit those only (a
 * window's few hundred samples, not 1,024 buckets per octave), and a
 * count whose bit is clear is garbage, never read (an octave is not
 * zeroed when allocated or cleared: only its bitmap is). */
#define HIST_BITWORDS (HIST_SUBS / 64)
#define OCT_BITS(oct) ((oct) + HIST_SUBS)

#define HIST_MAGIC "GLH1"
#define HIST_HEADER_BYTES (4 + 6 * 8)
#define HIST_VARINT_MAX 10

struct gl_hist {
	uint64_t count; /* accepted samples, zero bucket included */
	uint64_t zero_count;
	uint64_t rejected;
	double min, max; /* exact; 0 while empty */
	double sum, sum_comp; /* Neumaier-compensated running sum */
	unsigned n_octaves; /* octaves allocated */
	uint64_t octave_count[HIST_OCTAVES];
	uint64_t *octave[HIST_OCTAVES]; /* HIST_SUBS counts, then HIST_BITWORDS of bitmap; or NULL */
};

/* Bucket index of a value already known to be finite and >= 0; -1 is the
 * zero bucket. */
static inline int bucket_of(double v)
{
	int e;
	double m;

	if (v < HIST_ZERO_MAX)
		return -1;
	m = frexp(v, &e);
	if (e > HIST_EXP_MAX)
		return HIST_BUCKETS - 1;
	/* m - 0.5 and the product are exact, so this is the top 10 bits of the
	 * significand: no rounding can push a value into the next bucket. */
	e = (e - HIST_EXP_MIN) * HIST_SUBS + (int)((m - 0.5) * 2048.0);
	assert(e >= 0 && e < HIST_BUCKETS);
	return e;
}

/* Midpoint of bucket idx: (1024 + sub + 0.5) * 2^(e - 11), exact. */
static double bucket_mid(int idx)
{
	int e = idx / HIST_SUBS + HIST_EXP_MIN;
	int sub = idx % HIST_SUBS;

	assert(idx >= 0 && idx < HIST_BUCKETS);
	return ldexp((double)(HIST_SUBS + sub) + 0.5, e - (HIST_SUB_BITS + 1));
}

static uint64_t *octave_get(struct gl_hist *h, int o)
{
	if (!h->octave[o]) {
		h->octave[o] = malloc((HIST_SUBS + HIST_BITWORDS) * sizeof(uint64_t));
		if (!h->octave[o])
			return NULL;
		memset(OCT_BITS(h->octave[o]), 0, HIST_BITWORDS * sizeof(uint64_t));
		h->n_octaves++;
	}
	return h->octave[o];
}

static void sum_add(struct gl_hist *h, double x)
{
	double t = h->sum + x;

	/* Once the sum overflows it stays +inf; the compensation would turn
	 * into inf - inf = NaN otherwise. */
	if (!(t <= DBL_MAX)) {
		h->sum = INFINITY;
		h->sum_comp = 0.0;
		return;
	}
	if (h->sum >= x) /* both are >= 0 */
		h->sum_comp += (h->sum - t) + x;
	else
		h->sum_comp += (x - t) + h->sum;
	h->sum = t;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

struct gl_hist *gl_hist_new(void)
{
	return calloc(1, sizeof(struct gl_hist));
}

void gl_hist_free(struct gl_hist *h)
{
	if (!h)
		return;
	for (int o = 0; o < HIST_OCTAVES; o++)
		free(h->octave[o]);
	free(h);
}

void gl_hist_reset(struct gl_hist *h)
{
	for (int o = 0; o < HIST_OCTAVES; o++) {
		uint64_t *oct = h->octave[o];

		if (oct && h->octave_count[o])
			memset(OCT_BITS(oct), 0, HIST_BITWORDS * sizeof(uint64_t));
		h->octave_count[o] = 0;
	}
	h->count = h->zero_count = h->rejected = 0;
	h->min = h->max = 0.0;
	h->sum = h->sum_comp = 0.0;
}

int gl_hist_record_n(struct gl_hist *h, double v, uint64_t n)
{
	int idx;

	if (!(v >= 0.0) || v > DBL_MAX) { /* NaN, negative, +inf */
		h->rejected = add_sat(h->rejected, n);
		return 0;
	}
	if (n == 0)
		return 0;
	if (h->count + n < n) {
		errno = EOVERFLOW;
		return -1;
	}
	idx = bucket_of(v);
	if (idx < 0) {
		v = v == 0.0 ? 0.0 : v; /* -0.0 becomes +0.0 */
		h->zero_count += n;
	} else {
		int o = idx >> HIST_SUB_BITS;
		uint64_t *oct = h->octave[o];

		if (!oct && !(oct = octave_get(h, o)))
			return -1;
		uint64_t *word = &OCT_BITS(oct)[(idx & (HIST_SUBS - 1)) >> 6], bit = 1ULL << (idx & 63);

		if (*word & bit)
			oct[idx & (HIST_SUBS - 1)] += n;
		else
			oct[idx & (HIST_SUBS - 1)] = n;
		*word |= bit;
		h->octave_count[o] += n;
	}
	if (h->count == 0) {
		h->min = h->max = v;
	} else {
		if (v < h->min)
			h->min = v;
		if (v > h->max)
			h->max = v;
	}
	h->count += n;
	sum_add(h, n == 1 ? v : v * (double)n);
	return 0;
}

int gl_hist_record(struct gl_hist *h, double v)
{
	return gl_hist_record_n(h, v, 1);
}

uint64_t gl_hist_count(const struct gl_hist *h)
{
	return h->count;
}

uint64_t gl_hist_rejected(const struct gl_hist *h)
{
	return h->rejected;
}

double gl_hist_min(const struct gl_hist *h)
{
	return h->min;
}

double gl_hist_max(const struct gl_hist *h)
{
	return h->max;
}

double gl_hist_sum(const struct gl_hist *h)
{
	return h->sum + h->sum_comp;
}

double gl_hist_mean(const struct gl_hist *h)
{
	if (h->count == 0)
		return NAN;
	return gl_hist_sum(h) / (double)h->count;
}

/* Nearest rank: ceil(p/100 * count), in [1, count]. p arrives as a double
 * that is usually a decimal like 99.9 rounded up or down by half an ulp; a
 * tolerance of a few ulps keeps 99.9% of 1000 at rank 999, not 1000. */
static uint64_t rank_of(double p, uint64_t count)
{
	long double x = (long double)p * (long double)count / 100.0L;
	long double r = ceill(x - x * 1e-15L);

	if (r < 1.0L)
		return 1;
	if (r >= (long double)count)
		return count;
	return (uint64_t)r;
}

double gl_hist_percentile(const struct gl_hist *h, double p)
{
	uint64_t rank, seen;
	double v;

	if (h->count == 0 || isnan(p))
		return NAN;
	if (p <= 0.0)
		return h->min;
	if (p >= 100.0)
		return h->max;
	rank = rank_of(p, h->count);
	if (rank <= h->zero_count)
		return h->min; /* every zero-bucket value is >= min */
	seen = h->zero_count;
	for (int o = 0; o < HIST_OCTAVES; o++) {
		const uint64_t *oct = h->octave[o];

		if (seen + h->octave_count[o] < rank) {
			seen += h->octave_count[o];
			continue;
		}
		for (int w = 0; w < HIST_BITWORDS; w++) {
			for (uint64_t b = OCT_BITS(oct)[w]; b; b &= b - 1) {
				int s = w * 64 + __builtin_ctzll(b);
				seen += oct[s];
				if (seen < rank)
					continue;
				/* The top bucket also holds every value >= 2^64:
				 * the exact max stands in for them, as min does
				 * for the zero bucket. */
				if (o * HIST_SUBS + s == HIST_BUCKETS - 1)
					return h->max;
				v = bucket_mid(o * HIST_SUBS + s);
				if (v < h->min)
					v = h->min;
				if (v > h->max)
					v = h->max;
				return v;
			}
		}
	}
	return h->max; /* unreachable while the counts add up */
}

int gl_hist_merge(struct gl_hist *dst, const struct gl_hist *src)
{
	double src_sum = src->sum, src_comp = src->sum_comp;

	if (dst->count + src->count < src->count) {
		errno = EOVERFLOW;
		return -1;
	}
	/* Allocate everything first so a failure leaves dst unchanged. */
	for (int o = 0; o < HIST_OCTAVES; o++)
		if (src->octave_count[o] && !octave_get(dst, o))
			return -1;
	dst->rejected = add_sat(dst->rejected, src->rejected);
	if (src->count == 0)
		return 0;
	for (int o = 0; o < HIST_OCTAVES; o++) {
		if (!src->octave_count[o])
			continue;
		for (int w = 0; w < HIST_BITWORDS; w++) {
			uint64_t bits = OCT_BITS(src->octave[o])[w], have = OCT_BITS(dst->octave[o])[w];
			for (uint64_t b = bits; b; b &= b - 1) {
				int k = __builtin_ctzll(b), s = w * 64 + k;
				if (have >> k & 1)
					dst->octave[o][s] += src->octave[o][s];
				else
					dst->octave[o][s] = src->octave[o][s];
			}
			OCT_BITS(dst->octave[o])[w] = have | bits;
		}
		dst->octave_count[o] += src->octave_count[o];
	}
	dst->zero_count += src->zero_count;
	if (dst->count == 0) {
		dst->min = src->min;
		dst->max = src->max;
	} else {
		if (src->min < dst->min)
			dst->min = src->min;
		if (src->max > dst->max)
			dst->max = src->max;
	}
	dst->count += src->count;
	sum_add(dst, src_sum);
	sum_add(dst, src_comp);
	return 0;
}

size_t gl_hist_memory(const struct gl_hist *h)
{
	return sizeof(*h) + (size_t)h->n_octaves * (HIST_SUBS + HIST_BITWORDS) * sizeof(uint64_t);
}

/* --- serialization --- */

static unsigned char *put_u64(unsigned char *p, uint64_t x)
{
	for (int i = 0; i < 8; i++)
		*p++ = (unsigned char)(x >> (8 * i));
	return p;
}

static unsigned char *put_f64(unsigned char *p, double d)
{
	uint64_t x;

	memcpy(&x, &d, sizeof(x));
	return put_u64(p, x);
}

static unsigned char *put_varint(unsigned char *p, uint64_t x)
{
	while (x >= 0x80) {
		*p++ = (unsigned char)(x | 0x80);
		x >>= 7;
	}
	*p++ = (unsigned char)x;
	return p;
}

int gl_hist_serialize(const struct gl_hist *h, unsigned char **out, size_t *out_len)
{
	size_t n_buckets = 0;
	unsigned char *buf, *p;
	int prev = -1;

	for (int o = 0; o < HIST_OCTAVES; o++) {
		if (!h->octave_count[o])
			continue;
		for (int w = 0; w < HIST_BITWORDS; w++)
			n_buckets += (size_t)__builtin_popcountll(OCT_BITS(h->octave[o])[w]);
	}
	/* A gap is < 2^17 (3 varint bytes), a count at most 10 bytes. */
	buf = malloc(HIST_HEADER_BYTES + n_buckets * (3 + HIST_VARINT_MAX));
	if (!buf)
		return -1;
	memcpy(buf, HIST_MAGIC, 4);
	p = put_u64(buf + 4, h->count);
	p = put_u64(p, h->zero_count);
	p = put_u64(p, h->rejected);
	p = put_f64(p, h->min);
	p = put_f64(p, h->max);
	p = put_f64(p, gl_hist_sum(h));
	for (int o = 0; o < HIST_OCTAVES; o++) {
		if (!h->octave_count[o])
			continue;
		for (int w = 0; w < HIST_BITWORDS; w++)
			for (uint64_t b = OCT_BITS(h->octave[o])[w]; b; b &= b - 1) {
				int s = w * 64 + __builtin_ctzll(b);
				int idx = o * HIST_SUBS + s;

				p = put_varint(p, (uint64_t)(idx - prev - 1));
				p = put_varint(p, h->octave[o][s]);
				prev = idx;
			}
	}
	*out = buf;
	*out_len = (size_t)(p - buf);
	return 0;
}

struct reader {
	const unsigned char *p, *end;
};

static int get_u64(struct reader *r, uint64_t *x)
{
	if (r->end - r->p < 8)
		return -1;
	*x = 0;
	for (int i = 0; i < 8; i++)
		*x |= (uint64_t)r->p[i] << (8 * i);
	r->p += 8;
	return 0;
}

/* A double that a histogram can hold: +0.0 or positive, not NaN (+inf is
 * allowed only where the caller says so: an overflowed sum). */
static int get_f64(struct reader *r, double *d, int allow_inf)
{
	uint64_t x;

	if (get_u64(r, &x) != 0)
		return -1;
	memcpy(d, &x, sizeof(*d));
	if (signbit(*d) || isnan(*d) || (!allow_inf && isinf(*d)))
		return -1;
	return 0;
}

/* Canonical LEB128 only: at most 10 bytes, no bits beyond 64, no
 * redundant trailing zero byte. */
static int get_varint(struct reader *r, uint64_t *x)
{
	*x = 0;
	for (int i = 0; i < HIST_VARINT_MAX; i++) {
		unsigned char b;

		if (r->p >= r->end)
			return -1;
		b = *r->p++;
		if (i == HIST_VARINT_MAX - 1 && b > 1)
			return -1;
		*x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return (i > 0 && b == 0) ? -1 : 0;
	}
	return -1;
}

struct gl_hist *gl_hist_deserialize(const unsigned char *buf, size_t len)
{
	struct reader r;
	struct gl_hist *h = NULL;
	uint64_t total;
	double sum;
	int prev = -1, lo = -1, hi = -1;

	if (!buf || len < HIST_HEADER_BYTES || memcmp(buf, HIST_MAGIC, 4) != 0)
		return NULL;
	h = gl_hist_new();
	if (!h)
		return NULL;
	r.p = buf + 4;
	r.end = buf + len;
	if (get_u64(&r, &h->count) || get_u64(&r, &h->zero_count) || get_u64(&r, &h->rejected) ||
	    get_f64(&r, &h->min, 0) || get_f64(&r, &h->max, 0) || get_f64(&r, &sum, 1))
		goto bad;
	total = h->zero_count;
	if (total > h->count)
		goto bad;
	while (r.p < r.end) {
		uint64_t gap, n;
		int o;

		if (get_varint(&r, &gap) || get_varint(&r, &n))
			goto bad;
		if (gap >= (uint64_t)(HIST_BUCKETS - 1 - prev) || n == 0 || n > h->count - total)
			goto bad;
		prev += (int)gap + 1;
		o = prev >> HIST_SUB_BITS;
		if (!octave_get(h, o))
			goto bad;
		h->octave[o][prev & (HIST_SUBS - 1)] = n;
		OCT_BITS(h->octave[o])[(prev & (HIST_SUBS - 1)) >> 6] |= 1ULL << (prev & 63);
		h->octave_count[o] += n;
		total += n;
		if (lo < 0)
			lo = prev;
		hi = prev;
	}
	if (total != h->count)
		goto bad;
	if (h->count == 0) {
		/* The empty histogram has one form: all zero but rejected. */
		if (h->min != 0.0 || h->max != 0.0 || sum != 0.0)
			goto bad;
	} else {
		/* min and max must sit in the lowest and highest non-empty
		 * buckets, or percentiles would be clamped to nonsense. */
		if (h->zero_count)
			lo = -1;
		if (h->min > h->max || bucket_of(h->min) != lo || bucket_of(h->max) != hi)
			goto bad;
	}
	h->sum = sum;
	return h;
bad:
	gl_hist_free(h);
	return NULL;
}
