/*
 * hist.h - log-linear histogram for latency-like metrics (HdrHistogram's
 * idea, for doubles): 1024 linear sub-buckets per power of two, so any
 * recorded value is reported within 0.1% relative error (the bucket's
 * midpoint, clamped to the exact min and max seen). Memory is allocated per
 * power of two touched (8 KiB each), independent of the number of samples.
 *
 * Histograms merge (for phases and runs) and serialize to a compact sparse
 * blob for the store. Percentiles are nearest-rank.
 *
 * Not thread-safe: one writer at a time (the metrics layer locks).
 */
#ifndef GL_HIST_H
#define GL_HIST_H

#include <stddef.h>
#include <stdint.h>

struct gl_hist;

struct gl_hist *gl_hist_new(void);
void gl_hist_free(struct gl_hist *h); /* NULL is fine */
void gl_hist_reset(struct gl_hist *h); /* keeps allocations */

/* Record one value. Values must be finite and >= 0; values below 2^-64
 * (including 0) go to an exact zero bucket; NaN/inf/negatives are counted
 * in gl_hist_rejected and otherwise ignored. Returns 0, or -1 on ENOMEM. */
int gl_hist_record(struct gl_hist *h, double v);
int gl_hist_record_n(struct gl_hist *h, double v, uint64_t count);

uint64_t gl_hist_count(const struct gl_hist *h);
uint64_t gl_hist_rejected(const struct gl_hist *h);
double gl_hist_min(const struct gl_hist *h); /* exact; 0 when empty */
double gl_hist_max(const struct gl_hist *h); /* exact; 0 when empty */
double gl_hist_mean(const struct gl_hist *h); /* exact sum / count */
double gl_hist_sum(const struct gl_hist *h);

/* Nearest-rank percentile, p in [0,100]: the value v such that at least
 * ceil(p/100 * count) samples are <= v (p=0 gives the min). Returns NaN for
 * an empty histogram. Within 0.1% of the exact sorted-array answer. */
double gl_hist_percentile(const struct gl_hist *h, double p);

/* dst += src. Returns 0 or -1 on ENOMEM. */
int gl_hist_merge(struct gl_hist *dst, const struct gl_hist *src);

/* Serialize into a malloc'd blob (*out, *out_len); caller frees. */
int gl_hist_serialize(const struct gl_hist *h, unsigned char **out, size_t *out_len);
/* Parse a blob (bounded, safe on garbage: returns NULL). */
struct gl_hist *gl_hist_deserialize(const unsigned char *buf, size_t len);

/* Bytes currently allocated by this histogram (for memory tests). */
size_t gl_hist_memory(const struct gl_hist *h);

#endif
