/*
 * scale_hist.c - test tool: multiply every value of one histogram metric in
 * every window of a run store by a factor, writing through the real store
 * and histogram code. test_compare.sh uses it to inject a known regression
 * ("TTFT 10% worse") into a copy of a real run.
 *
 *   gl_scale_hist RUN_DB METRIC FACTOR
 *
 * hist.h has no bucket iterator, so each window's histogram is rebuilt from
 * its nearest-rank values: rank k of n is the percentile 100 (k - 1/2) / n,
 * i.e. its bucket's midpoint clamped to the exact min and max, within 0.1%
 * of the recorded value; each is recorded again times FACTOR. Exit 0 and
 * the number of windows rewritten on stdout, or 1 with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "store.h"

struct blob_row {
	int64_t idx;
	unsigned char *blob;
	size_t len;
};

struct blobs {
	struct blob_row *rows;
	int n, cap, oom;
};

/* gl_store_metric_scan's callback: a copy of each window's histogram */
static void take_blob(void *arg, int64_t idx, const unsigned char *hist, size_t len, int64_t counter)
{
	struct blobs *b = arg;

	(void)counter;
	if (!hist || b->oom)
		return;
	if (b->n == b->cap) {
		struct blob_row *nr = realloc(b->rows, sizeof(*nr) * (size_t)(b->cap ? b->cap * 2 : 64));
		if (!nr) {
			b->oom = 1;
			return;
		}
		b->rows = nr;
		b->cap = b->cap ? b->cap * 2 : 64;
	}
	if (!(b->rows[b->n].blob = malloc(len + 1))) {
		b->oom = 1;
		return;
	}
	memcpy(b->rows[b->n].blob, hist, len);
	b->rows[b->n].idx = idx;
	b->rows[b->n].len = len;
	b->n++;
}

static struct gl_hist *scaled(const struct gl_hist *h, double factor)
{
	struct gl_hist *out = gl_hist_new();
	uint64_t n = gl_hist_count(h);

	for (uint64_t k = 1; out && k <= n; k++) {
		double v = gl_hist_percentile(h, 100.0 * ((double)k - 0.5) / (double)n);
		if (gl_hist_record(out, v * factor) != 0) {
			gl_hist_free(out);
			return NULL;
		}
	}
	return out;
}

int main(int argc, char **argv)
{
	struct gl_err err = { 0 };
	struct gl_store *st;
	struct blobs rd = { 0 };
	struct blob_row *rows = NULL;
	int n = 0, rc = 1;
	double factor;
	char *end;

	if (argc != 4) {
		fprintf(stderr, "usage: gl_scale_hist RUN_DB METRIC FACTOR\n");
		return 2;
	}
	factor = strtod(argv[3], &end);
	if (*end || !(factor > 0)) {
		fprintf(stderr, "gl_scale_hist: FACTOR must be a number above 0, got '%s'\n", argv[3]);
		return 2;
	}
	if (!(st = gl_store_open(argv[1], 0, &err))) {
		fprintf(stderr, "gl_scale_hist: %s\n", err.msg);
		return 1;
	}
	/* Read every blob first: the writes below go through the store's own
	 * upsert on the same connection. */
	if (gl_store_metric_scan(st, argv[2], take_blob, &rd, &err) != 0 || rd.oom) {
		fprintf(stderr, "gl_scale_hist: reading %s: %s\n", argv[2], rd.oom ? "out of memory" : err.msg);
		goto out;
	}
	rows = rd.rows;
	n = rd.n;
	for (int i = 0; i < n; i++) {
		struct gl_hist *h = gl_hist_deserialize(rows[i].blob, rows[i].len), *s = NULL;
		unsigned char *blob = NULL;
		size_t len = 0;
		int bad = !h || !(s = scaled(h, factor)) || gl_hist_serialize(s, &blob, &len) != 0 ||
			  gl_store_window_metric_put(st, rows[i].idx, argv[2], blob, len, 0) != 0;
		free(blob);
		gl_hist_free(h);
		gl_hist_free(s);
		if (bad) {
			fprintf(stderr, "gl_scale_hist: window %lld: cannot rewrite '%s'\n", (long long)rows[i].idx,
				argv[2]);
			goto out;
		}
	}
	if (gl_store_flush(st, &err) != 0) {
		fprintf(stderr, "gl_scale_hist: %s\n", err.msg);
		goto out;
	}
	printf("%d\n", n);
	rc = n > 0 ? 0 : 1;
	if (n == 0)
		fprintf(stderr, "gl_scale_hist: no histogram named '%s' in %s\n", argv[2], argv[1]);
out:
	for (int i = 0; i < rd.n; i++)
		free(rd.rows[i].blob);
	free(rd.rows);
	gl_store_close(st);
	return rc;
}
