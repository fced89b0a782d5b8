/*
 * analysis_drift.c - "drift_per_day" targets (docs/metrics.md, "Drift"):
 * the trend of a figure over the run's complete steady windows, fitted
 * robustly (Theil-Sen: the median of the pairwise slopes) and judged
 * against a bound per day of real time, in % of the fitted level at the
 * first window or in the figure's own units.
 *
 * Pass 2 hands each window's figures here (gl_drift_take): two doubles
 * per complete steady window and drift target. The fit's work is bounded:
 * past GL_DRIFT_MAX_POINTS windows it fits that many buckets of
 * consecutive windows, each its median time and median value, so at most
 * 256 * 255 / 2 slopes whatever the run's length. Everything is sorted
 * and counted, nothing drawn at random: the same windows give the same
 * figures, byte for byte.
 */
#include "analysis_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sen's interval: the normal quantile of a two-sided 95 % interval */
#define DRIFT_Z95 1.959963984540054

/* The points fitted: the windows themselves, or per bucket of consecutive
 * windows its median time and median value. Returns how many. */
static int bucket(const double *x, const double *y, int n, double *px, double *py, double *tmp)
{
	int p = n < GL_DRIFT_MAX_POINTS ? n : GL_DRIFT_MAX_POINTS;

	for (int b = 0; b < p; b++) {
		int lo = (int)((int64_t)b * n / p), hi = (int)((int64_t)(b + 1) * n / p);
		memcpy(tmp, x + lo, sizeof(*tmp) * (size_t)(hi - lo));
		px[b] = gl_median(tmp, hi - lo);
		memcpy(tmp, y + lo, sizeof(*tmp) * (size_t)(hi - lo));
		py[b] = gl_median(tmp, hi - lo);
	}
	return p;
}

/* Theil-Sen over p points (px increasing): slope, Sen's interval, level. */
static int theil_sen(const double *px, const double *py, int p, double *s, struct gl_drift_fit *f)
{
	int k = 0, lo, hi;
	double c, *r = s;

	for (int i = 0; i < p; i++)
		for (int j = i + 1; j < p; j++)
			if (px[j] > px[i])
				s[k++] = (py[j] - py[i]) / (px[j] - px[i]);
	if (k == 0)
		return -1;
	f->slope = gl_median(s, k); /* sorts s */
	/* Sen (1968): the slopes ranked M1 and M2 + 1 of the k, where
	 * M1,2 = (k -+ z sqrt(var S)) / 2 and var S = p (p-1) (2p+5) / 18
	 * (Kendall's S, ties not corrected); rounded outwards */
	c = DRIFT_Z95 * sqrt((double)p * (p - 1) * (2.0 * p + 5) / 18.0);
	lo = (int)floor(((double)k - c) / 2) - 1;
	hi = (int)ceil(((double)k + c) / 2);
	f->lo = s[lo < 0 ? 0 : lo];
	f->hi = s[hi > k - 1 ? k - 1 : hi];
	for (int i = 0; i < p; i++)
		r[i] = py[i] - f->slope * (px[i] - px[0]);
	f->level = gl_median(r, p);
	f->points = p;
	return 0;
}

int gl_drift_fit(const double *x, const double *y, int n, struct gl_drift_fit *out)
{
	int p = n < GL_DRIFT_MAX_POINTS ? n : GL_DRIFT_MAX_POINTS, rc = -1;
	double *px = malloc(sizeof(*px) * (size_t)(p + 1)), *py = malloc(sizeof(*py) * (size_t)(p + 1));
	double *tmp = malloc(sizeof(*tmp) * (size_t)(n / (p ? p : 1) + 2));
	double *s = malloc(sizeof(*s) * ((size_t)p * (size_t)(p - 1 > 0 ? p - 1 : 1) / 2 + 1));

	memset(out, 0, sizeof(*out));
	if (n >= GL_DRIFT_MIN_WINDOWS && px && py && tmp && s) {
		p = bucket(x, y, n, px, py, tmp);
		rc = theil_sen(px, py, p, s, out);
	}
	free(px);
	free(py);
	free(tmp);
	free(s);
	return rc;
}

void gl_drift_take(struct gl_analysis *an, int wi, const struct gl_agg *w)
{
	const struct gl_window_info *x = &an->windows[wi];

	if (!an->sc->n_drifts || !x->complete || x->scope != GL_SCOPE_STEADY)
		return;
	if (!an->drift && !(an->drift = calloc((size_t)an->sc->n_drifts, sizeof(*an->drift)))) {
		an->drift_oom = 1;
		return;
	}
	for (int k = 0; k < an->sc->n_drifts; k++) {
		struct gl_drift_series *d = &an->drift[k];
		double v;
		if (gl_agg_eval(w, an->sc->drifts[k].metric, &v) != 0 || !isfinite(v))
			continue;
		if (d->n == d->cap) {
			int cap = d->cap ? d->cap * 2 : 256;
			double *nx = realloc(d->x, sizeof(*nx) * (size_t)cap), *ny;
			if (nx)
				d->x = nx;
			ny = nx ? realloc(d->y, sizeof(*ny) * (size_t)cap) : NULL;
			if (!ny) {
				an->drift_oom = 1;
				return;
			}
			d->y = ny;
			d->cap = cap;
		}
		d->x[d->n] = (double)(x->start_ns + x->end_ns) / 2e9;
		d->y[d->n++] = v;
	}
}

/* Spec t's fit (in the figure's units per day) judged into r. */
static void judge_one(const struct gl_target_spec *t, const struct gl_drift_series *d, struct gl_target_result *r)
{
	const char *u = t->drift_pct ? "%" : "";
	double k;

	r->spec = t;
	r->windows_judged = d ? d->n : 0;
	if (!d || gl_drift_fit(d->x, d->y, d->n, &r->drift) != 0) {
		snprintf(r->note, sizeof(r->note),
			 "no trend: %d complete steady window(s) with a value, a drift needs %d or more",
			 r->windows_judged, GL_DRIFT_MIN_WINDOWS);
		return;
	}
	r->drift.slope *= 86400;
	r->drift.lo *= 86400;
	r->drift.hi *= 86400;
	if (t->drift_pct && !(r->drift.level > 0)) {
		snprintf(r->note, sizeof(r->note),
			 "the fitted level at the start is %.6g: a drift in %% of it has no value", r->drift.level);
		return;
	}
	k = t->drift_pct ? 100 / r->drift.level : 1;
	r->has = 1;
	r->measured = r->drift.slope * k;
	r->pass = gl_cmp_eval(t->expr.op, r->measured, t->expr.threshold);
	if (gl_cmp_eval(t->expr.op, r->drift.lo * k, t->expr.threshold) !=
	    gl_cmp_eval(t->expr.op, r->drift.hi * k, t->expr.threshold))
		snprintf(r->note, sizeof(r->note),
			 "judged on the slope: its 95%% interval %.4g%s to %.4g%s per day straddles the bound",
			 r->drift.lo * k, u, r->drift.hi * k, u);
}

int gl_drift_judge(struct gl_analysis *an, struct gl_err *err)
{
	const struct gl_scenario *s = an->sc;
	struct gl_target_result *t;

	if (an->drift_oom)
		return gl_errf(err, GL_ENOMEM, "analysis: out of memory (drift)");
	if (!s->n_drifts)
		return 0;
	t = realloc(an->targets, sizeof(*t) * (size_t)(an->n_targets + s->n_drifts + 1));
	if (!t)
		return gl_errf(err, GL_ENOMEM, "analysis: out of memory (drift)");
	an->targets = t;
	for (int k = 0; k < s->n_drifts; k++) {
		struct gl_target_result *r = &t[an->n_targets + k];
		memset(r, 0, sizeof(*r));
		judge_one(&s->drifts[k], an->drift ? &an->drift[k] : NULL, r);
	}
	an->n_targets += s->n_drifts;
	return 0;
}

void gl_drift_free(struct gl_analysis *an)
{
	for (int k = 0; an->drift && k < an->sc->n_drifts; k++) {
		free(an->drift[k].x);
		free(an->drift[k].y);
	}
	free(an->drift);
	an->drift = NULL;
}
