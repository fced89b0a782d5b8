/*
 * fuzz_fio.c - fuzz target for loadgen/fio.c. The input is fio's stdout:
 * one report, a --status-interval stream, or anything else. It goes through
 * gl_fio_parse, whose result must hold together (an error message exactly
 * when the code is negative, caps, sorted percentiles in (0, 100], sums equal
 * to the jobs' values), and through the stream splitter three times: whole,
 * in pieces of 1..16 bytes whose sizes come from the input itself, and one
 * byte at a time. The three must deliver the same reports and the same
 * counts, and a feed must fail exactly when reports were dropped. When the
 * stream's cap holds the whole input, gl_fio_parse succeeds exactly when the
 * stream saw one good report and nothing else, and then gives that report.
 * The cap comes from the first byte, small or roomy, so the oversize path is
 * reached too.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_hash.h"
#include "fio.h"
#include "util.h"

#define FNV_BASIS 0xCBF29CE484222325ULL

struct fz {
	uint64_t hash; /* FNV-1a over every report delivered */
	int n;
};

static void mix_u64(uint64_t *h, uint64_t v)
{
	gl_fz_mix(h, &v, sizeof(v));
}

static void mix_dbl(uint64_t *h, double v)
{
	gl_fz_mix(h, &v, sizeof(v));
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void check_dir(const struct gl_fio_dir *d)
{
	if (d->n_pct < 0 || d->n_pct > GL_FIO_MAX_PCT || !isfinite(d->iops) || d->iops < 0 ||
	    !isfinite(d->clat_mean_ns) || d->clat_mean_ns < 0 || d->runtime_ms < 0)
		abort();
	for (int i = 0; i < d->n_pct; i++) {
		if (!(d->pct[i] > 0 && d->pct[i] <= 100) || !(d->pct_ns[i] >= 0) ||
		    (i > 0 && !(d->pct[i] > d->pct[i - 1])))
			abort();
		if (gl_fio_clat_ms(d, d->pct[i]) != (d->have_clat ? d->pct_ns[i] / 1e6 : -1))
			abort();
	}
	if (gl_fio_clat_ms(d, 0) != -1 || gl_fio_clat_ms(d, 101) != -1)
		abort();
}

/* The report must hold together; returns its hash. */
static uint64_t check_report(const struct gl_fio_report *r)
{
	uint64_t h = FNV_BASIS, rb = 0, wb = 0, tb = 0, mb = 0, te = 0;
	double riops = 0;
	int any = 0;

	if (r->n_jobs < 0 || r->n_jobs > GL_FIO_MAX_JOBS || (r->n_jobs > 0) != (r->jobs != NULL) ||
	    !memchr(r->fio_version, '\0', sizeof(r->fio_version)) || r->skipped_lines < 0)
		abort();
	gl_fz_mix(&h, r->fio_version, strlen(r->fio_version));
	mix_u64(&h, (uint64_t)r->timestamp_ms);
	for (int i = 0; i < r->n_jobs; i++) {
		const struct gl_fio_job *j = &r->jobs[i];
		const struct gl_fio_dir *dirs[] = { &j->read, &j->write, &j->trim, &j->mixed };
		if (!memchr(j->name, '\0', sizeof(j->name)))
			abort();
		gl_fz_mix(&h, j->name, strlen(j->name) + 1);
		mix_u64(&h, (uint64_t)j->error);
		mix_u64(&h, j->total_err);
		for (size_t k = 0; k < 4; k++) {
			check_dir(dirs[k]);
			mix_u64(&h, dirs[k]->io_bytes);
			mix_u64(&h, dirs[k]->bw_bytes);
			mix_dbl(&h, dirs[k]->iops);
			mix_u64(&h, (uint64_t)dirs[k]->n_pct);
			for (int p = 0; p < dirs[k]->n_pct; p++)
				mix_dbl(&h, dirs[k]->pct_ns[p]);
		}
		if (j->runtime_ms_read != j->read.runtime_ms || j->runtime_ms_write != j->write.runtime_ms)
			abort();
		rb = add_sat(rb, j->read.io_bytes);
		wb = add_sat(wb, j->write.io_bytes);
		tb = add_sat(tb, j->trim.io_bytes);
		mb = add_sat(mb, j->mixed.io_bytes);
		te = add_sat(te, j->total_err);
		riops += j->read.iops;
		any |= j->error != 0 || j->total_err > 0;
	}
	if (rb != r->read_bytes || wb != r->write_bytes || tb != r->trim_bytes || mb != r->mixed_bytes ||
	    te != r->total_err || any != r->any_error || riops != r->read_iops)
		abort();
	return h;
}

static void on_report(void *arg, const struct gl_fio_report *r)
{
	struct fz *z = arg;
	uint64_t h = check_report(r);

	mix_u64(&z->hash, h);
	z->n++;
}

struct run {
	struct fz z;
	int skipped, reports, bad, failed;
	size_t pending;
};

static void run(const uint8_t *data, size_t size, size_t cap, const uint8_t *cuts, size_t n_cuts, struct run *out)
{
	struct gl_fio_stream *s = gl_fio_stream_new(cap);
	size_t at = 0, k = 0;

	if (!s)
		abort();
	memset(out, 0, sizeof(*out));
	out->z.hash = FNV_BASIS;
	while (at < size) {
		struct gl_err err = { 0 };
		size_t step = size - at;
		int rc;
		if (n_cuts) {
			step = 1 + (size_t)(cuts[k++ % n_cuts] % 16); /* 1..16 bytes */
			if (step > size - at)
				step = size - at;
		}
		rc = gl_fio_stream_feed(s, (const char *)data + at, step, on_report, &out->z, &err);
		if (rc > 0 || (rc < 0) != (err.code != 0) || (rc < 0 && !err.msg[0]) ||
		    !memchr(err.msg, '\0', sizeof(err.msg)))
			abort();
		if (rc < 0)
			out->failed = 1;
		at += step;
	}
	out->skipped = gl_fio_stream_skipped(s);
	out->reports = gl_fio_stream_reports(s);
	out->bad = gl_fio_stream_bad(s);
	out->pending = gl_fio_stream_pending(s);
	if (out->reports != out->z.n || out->failed != (out->bad > 0) || out->pending > size)
		abort();
	gl_fio_stream_free(s);
}

static int same(const struct run *a, const struct run *b)
{
	return a->z.hash == b->z.hash && a->z.n == b->z.n && a->skipped == b->skipped && a->reports == b->reports &&
	       a->bad == b->bad && a->pending == b->pending;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gl_fio_report r;
	struct gl_err err = { 0 };
	struct run a, b;
	size_t cap = size + 1;
	uint64_t h = 0;
	int rc;

	if (size > 0 && (data[0] & 1))
		cap = (data[0] & 2) ? 64 : 700;
	rc = gl_fio_parse((const char *)data, size, &r, &err);
	if (rc > 0 || (rc < 0) != (err.code != 0) || (rc < 0 && !err.msg[0]) || !memchr(err.msg, '\0', sizeof(err.msg)))
		abort();
	if (rc < 0 && (r.jobs || r.n_jobs))
		abort();
	if (rc == 0)
		h = check_report(&r);

	run(data, size, cap, NULL, 0, &a);
	run(data, size, cap, size ? data : (const uint8_t *)"\1", size ? size : 1, &b);
	if (!same(&a, &b))
		abort();
	if (size <= 8192) {
		static const uint8_t one = 0; /* one byte at a time */
		run(data, size, cap, &one, 1, &b);
		if (!same(&a, &b))
			abort();
	}
	if (cap > size) {
		int one_good = a.reports == 1 && a.bad == 0 && a.pending == 0;
		uint64_t hh = FNV_BASIS;
		if (one_good != (rc == 0))
			abort();
		mix_u64(&hh, h);
		if (rc == 0 && (a.z.hash != hh || a.skipped != r.skipped_lines))
			abort();
	}
	gl_fio_report_free(&r);
	gl_fio_report_free(&r);
	return 0;
}
