/*
 * compare.c - `gauntlet compare`: two run stores in, a table of changes out
 * (stdout, compare.json, compare.md, compare.html), exit 1 on a regression.
 * The rules (what is compared, grouping, the test, the verdicts, what is
 * refused) are in compare.h.
 *
 * Pipeline: each store is analysed (gl_analyze gives the windows, their
 * phase and whether a fault put them in the degraded scope); one ordered
 * pass over its window_metrics turns every complete window into a row of
 * figure values (NAN where the window has no data for one); then for each
 * group and figure the two runs' values are tested. Memory: one double per
 * window per figure per run (about 30 MB per run for a week of 10 s
 * windows), never the samples.
 */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "analysis.h"
#include "catalog.h"
#include "store.h"
#include "units.h"
#include "util.h"

#define MAX_STATS 8
#define EXACT_MAX_N 50          /* exact U distribution up to n1 + n2 (C(50,25) < 2^53) */
#define OUT_MAX_BYTES (64u << 20)

/* ---- Mann-Whitney U -------------------------------------------------------- */

struct ranked {
	double v;
	int from_a;
};

static int cmp_ranked(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;
	return a < b ? -1 : a > b;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* P(U >= u) * total for the exact null distribution of U with sizes m, n:
 * the coefficients of the Gaussian binomial [m+n choose m]_q, built as
 * prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). Every intermediate is an integer
 * below C(m+n, m), exact in a double for m + n <= 50. */
static int exact_upper_tail(int m, int n, double u, double *tail, double *total)
{
	int deg = m * n;
	double *c = calloc((size_t)deg + 1, sizeof(double));

	if (!c)
		return -1;
	c[0] = 1;
	for (int i = 1; i <= m; i++) {
		int a = n + i;
		for (int k = deg; k >= a; k--)
			c[k] -= c[k - a];
		for (int k = i; k <= deg; k++)
			c[k] += c[k - i];
	}
	*tail = *total = 0;
	for (int k = 0; k <= deg; k++) {
		*total += c[k];
		if (k >= u)
			*tail += c[k];
	}
	free(c);
	return 0;
}

int gl_mann_whitney(const double *a, int na, const double *b, int nb, struct gl_mwu *out)
{
	int n = na + nb, ties = 0;
	struct ranked *r;
	double rank_sum_a = 0, tie_term = 0, mu, var, u_max;

	memset(out, 0, sizeof(*out));
	if (na <= 0 || nb <= 0)
		return -1;
	r = malloc(sizeof(*r) * (size_t)n);
	if (!r)
		return -1;
	for (int i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], 1 };
	for (int i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], 0 };
	qsort(r, (size_t)n, sizeof(*r), cmp_ranked);
	/* midranks: a run of t equal values at positions i..j-1 (0-based) all
	 * get the rank (i + 1 + j) / 2 */
	for (int i = 0; i < n;) {
		int j = i + 1;
		double mid, t;
		while (j < n && r[j].v == r[i].v)
			j++;
		mid = (double)(i + 1 + j) / 2.0;
		t = j - i;
		for (int k = i; k < j; k++)
			if (r[k].from_a)
				rank_sum_a += mid;
		if (t > 1) {
			ties = 1;
			tie_term += t * t * t - t;
		}
		i = j;
	}
	free(r);
	out->u_a = rank_sum_a - (double)na * (na + 1) / 2.0;
	out->u_b = (double)na * nb - out->u_a;
	u_max = out->u_a > out->u_b ? out->u_a : out->u_b;
	if (!ties && n <= EXACT_MAX_N) {
		double tail, total;
		if (exact_upper_tail(na < nb ? na : nb, na < nb ? nb : na, u_max, &tail, &total))
			return -1;
		out->exact = 1;
		out->p = 2.0 * tail / total;
	} else {
		mu = (double)na * nb / 2.0;
		var = (double)na * nb / 12.0 * ((n + 1) - tie_term / ((double)n * (n - 1)));
		if (var <= 0) {
			out->p = 1;      /* every value equal */
		} else {
			out->z = (u_max - mu - 0.5) / sqrt(var);
			out->p = erfc(out->z / sqrt(2.0));
		}
	}
	if (out->p > 1)
		out->p = 1;
	return 0;
}

double gl_mwu_min_p(int na, int nb)
{
	double lc;

	if (na <= 0 || nb <= 0)
		return 1;
	lc = lgamma(na + nb + 1.0) - lgamma(na + 1.0) - lgamma(nb + 1.0);
	return fmin(1.0, 2.0 * exp(-lc));
}

/* ---- what is compared ------------------------------------------------------ */

struct figure {
	char name[128];                   /* "inference.ttft_ms.p99" */
	const struct gl_metric_def *def;
	char stat[16];                    /* histograms: "p99", "max", ... */
	double pct;                       /* histograms: percentile, or -1 */
	const struct gl_metric_def *num, *den;   /* ratios and rates: their counters */
};

struct group {
	char name[GL_NAME_MAX];           /* phase name; "" for the faults group */
	int occ;                          /* 1 for the first phase of that name; 0: faults */
	char label[GL_NAME_MAX + 16];
};

enum verdict { V_INSUFFICIENT, V_NONE, V_IMPROVEMENT, V_REGRESSION };
static const char *const verdict_names[] = { "insufficient data", "no change", "improvement", "regression" };

struct row {
	int fig, grp;
	int n_base, n_cand;
	double med_base, med_cand, mean_base, mean_cand;
	double change;                    /* relative; +-inf from 0; NAN: none */
	int change_from_means;
	int tested;
	struct gl_mwu t;
	enum verdict v;
	char note[160];
};

struct side {
	const char *dir, *role;           /* "base", "candidate" */
	struct gl_store *st;
	struct gl_analysis *an;
	int *group;                       /* per window: group index, -1 not compared */
	double *val;                      /* n_windows x n_fig, NAN: no value */
	unsigned char *has;               /* per figure: some window has a value */
};

struct opts {
	const char *base, *cand, *out;
	double alpha, tolerance;
	int min_windows, quiet;
	char stats[MAX_STATS][16];
	int n_stats;
};

struct cmp {
	struct opts o;
	struct side s[2];
	struct figure *figs;
	int n_figs;
	struct group *groups;
	int n_groups;
	struct row *rows;
	int n_rows;
	char **warnings;
	int n_warnings;
	int count[4];
	cJSON *not_compared;
};

static int warnf(struct cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warnf(struct cmp *c, const char *fmt, ...)
{
	char buf[1024], **nw;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nw = realloc(c->warnings, sizeof(*nw) * (size_t)(c->n_warnings + 1));
	if (!nw)
		return -1;
	c->warnings = nw;
	if (!(nw[c->n_warnings] = strdup(buf)))
		return -1;
	c->n_warnings++;
	return 0;
}

/* ---- options ---------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gauntlet compare BASE_DIR CAND_DIR [--out DIR] [--alpha A] [--tolerance T]\n"
		"                        [--min-windows N] [--stats LIST] [--quiet]\n"
		"  --out DIR          where compare.json/.md/.html go (default CAND_DIR/compare)\n"
		"  --alpha A          significance level of the Mann-Whitney U test (default 0.01)\n"
		"  --tolerance T      relative change of the medians that counts (default 0.05)\n"
		"  --min-windows N    windows with data needed on each side (default 5)\n"
		"  --stats LIST       per-window histogram statistics (default p50,p95,p99;\n"
		"                     mirrored to p50,p5,p1 where higher is better)\n"
		"exit: 0 no regression, 1 regression, 2 bad input, 4 harness error\n");
}

static int parse_double(const char *flag, const char *s, double lo, double hi, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (end == s || *end || errno || !(x > lo) || !(x < hi)) {
		fprintf(stderr, "gauntlet compare: %s: expected a number above %g and below %g, got '%s'\n", flag,
			lo, hi, s);
		return -1;
	}
	*out = x;
	return 0;
}

static int parse_stats(struct opts *o, const char *list)
{
	char buf[256], *save = NULL;

	if (strlen(list) >= sizeof(buf))
		goto bad;
	strcpy(buf, list);
	o->n_stats = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		struct gl_target_name tn;
		char name[96], why[256];
		if (o->n_stats == MAX_STATS || strlen(t) >= sizeof(o->stats[0]))
			goto bad;
		snprintf(name, sizeof(name), "inference.ttft_ms.%s", t);
		if (gl_catalog_parse_target(name, &tn, why, sizeof(why)) != 0 || !strcmp(tn.stat, "count"))
			goto bad;
		strcpy(o->stats[o->n_stats++], t);
	}
	if (o->n_stats > 0)
		return 0;
bad:
	fprintf(stderr, "gauntlet compare: --stats: expected up to %d of p<N>, min, max, mean separated by "
		"commas (e.g. p50,p95,p99), got '%s'\n", MAX_STATS, list);
	return -1;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = 0.01;
	o->tolerance = 0.05;
	o->min_windows = 5;
	strcpy(o->stats[0], "p50");
	strcpy(o->stats[1], "p95");
	strcpy(o->stats[2], "p99");
	o->n_stats = 3;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(a, "--out") && val) {
			o->out = val;
			i++;
		} else if (!strcmp(a, "--alpha") && val) {
			if (parse_double(a, val, 0, 1, &o->alpha))
				return -1;
			i++;
		} else if (!strcmp(a, "--tolerance") && val) {
			/* 0 is allowed: any significant change counts */
			char *end;
			o->tolerance = strtod(val, &end);
			if (end == val || *end || !(o->tolerance >= 0) || !(o->tolerance < 100)) {
				fprintf(stderr, "gauntlet compare: --tolerance: expected a fraction >= 0 (0.05 is 5%%), "
					"got '%s'\n", val);
				return -1;
			}
			i++;
		} else if (!strcmp(a, "--min-windows") && val) {
			double n;
			if (parse_double(a, val, 0, 1e9, &n))
				return -1;
			if (n != floor(n) || n < 2) {
				fprintf(stderr, "gauntlet compare: --min-windows: expected a whole number >= 2, got '%s'\n",
					val);
				return -1;
			}
			o->min_windows = (int)n;
			i++;
		} else if (!strcmp(a, "--stats") && val) {
			if (parse_stats(o, val))
				return -1;
			i++;
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = 1;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "gauntlet compare: unknown or incomplete option '%s'\n", a);
			return -1;
		} else if (!o->base) {
			o->base = a;
		} else if (!o->cand) {
			o->cand = a;
		} else {
			fprintf(stderr, "gauntlet compare: unexpected argument '%s'\n", a);
			return -1;
		}
	}
	if (!o->base || !o->cand) {
		fprintf(stderr, "gauntlet compare: needs BASE_DIR and CAND_DIR\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* ---- figures and groups -------------------------------------------------------- */

/* The statistic looking at the same tail from the other side: p99 -> p1. */
static void mirror_stat(const char *stat, char *out, size_t n)
{
	if (stat[0] == 'p')
		snprintf(out, n, "p%g", 100.0 - strtod(stat + 1, NULL));
	else if (!strcmp(stat, "max"))
		snprintf(out, n, "min");
	else if (!strcmp(stat, "min"))
		snprintf(out, n, "max");
	else
		snprintf(out, n, "%s", stat);
}

static int add_figure(struct cmp *c, const char *name, int *cap)
{
	struct gl_target_name tn;
	const struct gl_metric_def *num, *den;
	char why[256];
	struct figure *f;

	if (gl_catalog_parse_target(name, &tn, why, sizeof(why)) != 0)
		return 0;   /* a mirrored statistic that does not parse: skip it */
	for (int i = 0; i < c->n_figs; i++)
		if (!strcmp(c->figs[i].name, name))
			return 0;
	num = tn.def->num ? gl_catalog_find(tn.def->num) : NULL;
	den = tn.def->den ? gl_catalog_find(tn.def->den) : NULL;
	if ((tn.def->kind == GL_MK_RATIO && (!num || !den)) || (tn.def->kind == GL_MK_RATE && !num))
		return 0;   /* its counters are not in the catalog: nothing to read */
	if (c->n_figs == *cap) {
		struct figure *nf;
		*cap = *cap ? *cap * 2 : 64;
		nf = realloc(c->figs, sizeof(*nf) * (size_t)*cap);
		if (!nf)
			return -1;
		c->figs = nf;
	}
	f = &c->figs[c->n_figs++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->def = tn.def;
	snprintf(f->stat, sizeof(f->stat), "%s", tn.stat);
	f->pct = tn.pct;
	f->num = num;
	f->den = den;
	return 0;
}

static int build_figures(struct cmp *c)
{
	size_t n;
	const struct gl_metric_def *cat = gl_catalog(&n);
	int cap = 0;

	for (size_t i = 0; i < n; i++) {
		const struct gl_metric_def *d = &cat[i];
		char name[160], st[16];
		if (!strcmp(d->name, "inference.send_lag_ms"))
			continue;   /* the load generator's own health, not the system's */
		if (d->kind == GL_MK_HIST) {
			for (int k = 0; k < c->o.n_stats; k++) {
				if (d->lower_is_better)
					snprintf(st, sizeof(st), "%s", c->o.stats[k]);
				else
					mirror_stat(c->o.stats[k], st, sizeof(st));
				snprintf(name, sizeof(name), "%s.%s", d->name, st);
				if (add_figure(c, name, &cap))
					return -1;
			}
		} else if (d->kind == GL_MK_RATIO || d->kind == GL_MK_RATE) {
			if (add_figure(c, d->name, &cap))
				return -1;
		}
	}
	return 0;
}

static int group_id(struct cmp *c, const char *name, int occ)
{
	struct group *g, *ng;

	for (int i = 0; i < c->n_groups; i++)
		if (c->groups[i].occ == occ && !strcmp(c->groups[i].name, name))
			return i;
	ng = realloc(c->groups, sizeof(*ng) * (size_t)(c->n_groups + 1));
	if (!ng)
		return -1;
	c->groups = ng;
	g = &c->groups[c->n_groups];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->occ = occ;
	if (occ == 0)
		snprintf(g->label, sizeof(g->label), "faults");
	else if (occ == 1)
		snprintf(g->label, sizeof(g->label), "%s", name);
	else
		snprintf(g->label, sizeof(g->label), "%s#%d", name, occ);
	return c->n_groups++;
}

/* Each window's group: its phase (by name and occurrence), or the faults
 * group when a fault moved it to the degraded scope; -1 for windows not
 * compared (not complete, no phase). */
static int assign_groups(struct cmp *c, struct side *s)
{
	const struct gl_analysis *an = s->an;
	const struct gl_scenario *sc = an->sc;
	int *phase_group = calloc((size_t)sc->n_phases + 1, sizeof(int)), faults = -1;

	s->group = calloc((size_t)an->n_windows + 1, sizeof(int));
	if (!phase_group || !s->group) {
		free(phase_group);
		return -1;
	}
	for (int p = 0; p < sc->n_phases; p++) {
		int occ = 1;
		for (int q = 0; q < p; q++)
			occ += !strcmp(sc->phases[q].name, sc->phases[p].name);
		if ((phase_group[p] = group_id(c, sc->phases[p].name, occ)) < 0) {
			free(phase_group);
			return -1;
		}
	}
	for (int i = 0; i < an->n_windows; i++) {
		const struct gl_window_info *w = &an->windows[i];
		int p = w->phase;
		s->group[i] = -1;
		if (!w->complete || p < 0 || p >= sc->n_phases)
			continue;
		if (w->scope == GL_SCOPE_DEGRADED && sc->phases[p].scope != GL_SCOPE_DEGRADED) {
			if (faults < 0 && (faults = group_id(c, "", 0)) < 0) {
				free(phase_group);
				return -1;
			}
			s->group[i] = faults;
		} else {
			s->group[i] = phase_group[p];
		}
	}
	free(phase_group);
	return 0;
}

/* ---- per-window values ----------------------------------------------------------- */

/* One window's series, by catalog index: what the store holds for the
 * metrics the figures read. */
struct slot {
	struct gl_hist *h;                /* NULL: no histogram row */
	int64_t counter;
	int found;                        /* a counter row was seen */
};

/* gl_agg_eval's rules (nearest-rank percentiles of the window's histogram,
 * ratios of its counters, rates over its real seconds) on the slots: the
 * same numbers without copying each histogram into an aggregate. */
static double fig_eval(const struct figure *f, const struct slot *sl, const struct gl_metric_def *cat,
		       double seconds)
{
	const struct gl_metric_def *d = f->def;
	const struct slot *a = &sl[d - cat], *num, *den;
	double v;

	switch (d->kind) {
	case GL_MK_HIST:
		if (!a->h || gl_hist_count(a->h) == 0)
			return NAN;
		if (f->pct >= 0)
			v = gl_hist_percentile(a->h, f->pct);
		else if (!strcmp(f->stat, "min"))
			v = gl_hist_min(a->h);
		else if (!strcmp(f->stat, "max"))
			v = gl_hist_max(a->h);
		else
			v = gl_hist_mean(a->h);
		break;
	case GL_MK_RATIO:
		num = &sl[f->num - cat];
		den = &sl[f->den - cat];
		if (!den->found || den->counter <= 0)
			return NAN;
		v = (double)num->counter / (double)den->counter;
		break;
	case GL_MK_RATE:
		num = &sl[f->num - cat];
		if (!num->found || seconds <= 0)
			return NAN;
		v = (double)num->counter * d->scale / seconds;
		break;
	default:
		return NAN;
	}
	return isfinite(v) ? v : NAN;
}

/* The catalog entry of a stored series, or NULL. Rows come in the same
 * order in every window, so the answer for the same position last time is
 * tried first. */
#define MEMO_N 256
struct memo {
	char name[96];
	const struct gl_metric_def *d;
};

static const struct gl_metric_def *row_def(const char *name, int pos, struct memo *memo)
{
	const struct gl_metric_def *d;

	if (pos < MEMO_N && memo[pos].name[0] && !strcmp(memo[pos].name, name))
		return memo[pos].d;
	d = gl_catalog_find(name);
	if (pos < MEMO_N && strlen(name) < sizeof(memo[pos].name)) {
		strcpy(memo[pos].name, name);
		memo[pos].d = d;
	}
	return d;
}

static int side_values(struct cmp *c, struct side *s, struct gl_err *err)
{
	const struct gl_analysis *an = s->an;
	sqlite3 *db = gl_store_db(s->st);
	sqlite3_stmt *q = NULL;
	size_t n = (size_t)an->n_windows * (size_t)c->n_figs, n_cat;
	const struct gl_metric_def *cat = gl_catalog(&n_cat);
	struct memo *memo = calloc(MEMO_N, sizeof(*memo));
	struct slot *sl = calloc(n_cat, sizeof(*sl));
	unsigned char *hist_used = calloc(n_cat, 1);
	int rc = 0, step;

	s->val = malloc(sizeof(double) * (n ? n : 1));
	s->has = calloc((size_t)c->n_figs + 1, 1);
	if (!s->val || !s->has || !sl || !hist_used || !memo) {
		rc = gl_errf(err, GL_ENOMEM, "compare: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		s->val[i] = NAN;
	for (int f = 0; f < c->n_figs; f++)
		if (c->figs[f].def->kind == GL_MK_HIST)
			hist_used[c->figs[f].def - cat] = 1;
	if (sqlite3_prepare_v2(db, "SELECT idx,name,hist,counter FROM window_metrics ORDER BY idx", -1, &q,
			       NULL) != SQLITE_OK) {
		rc = gl_errf(err, GL_EIO, "%s: store: %s", s->dir, sqlite3_errmsg(db));
		goto out;
	}
	step = sqlite3_step(q);
	for (int wi = 0; wi < an->n_windows && rc == 0; wi++) {
		const struct gl_window_info *w = &an->windows[wi];
		int pos = 0;

		while (step == SQLITE_ROW && sqlite3_column_int64(q, 0) < w->idx)
			step = sqlite3_step(q);
		if (s->group[wi] < 0)
			continue;    /* its rows are skipped by the loop above */
		for (; step == SQLITE_ROW && sqlite3_column_int64(q, 0) == w->idx && rc == 0;
		     step = sqlite3_step(q), pos++) {
			const char *name = (const char *)sqlite3_column_text(q, 1);
			const struct gl_metric_def *d = name ? row_def(name, pos, memo) : NULL;
			struct slot *x;

			if (!d)
				continue;    /* a series the catalog does not know (errors by class) */
			x = &sl[d - cat];
			if (sqlite3_column_type(q, 2) == SQLITE_NULL) {
				x->counter += sqlite3_column_int64(q, 3);
				x->found = 1;
			} else if (hist_used[d - cat]) {
				const void *blob = sqlite3_column_blob(q, 2);
				gl_hist_free(x->h);
				x->h = gl_hist_deserialize(blob, (size_t)sqlite3_column_bytes(q, 2));
				if (!x->h)
					rc = gl_errf(err, GL_EINVAL, "%s: store: window %lld: histogram '%s' is corrupt",
						     s->dir, (long long)w->idx, name);
			}
		}
		for (int f = 0; f < c->n_figs && rc == 0; f++) {
			double v = fig_eval(&c->figs[f], sl, cat, (double)(w->end_ns - w->start_ns) / 1e9);
			s->val[(size_t)wi * (size_t)c->n_figs + (size_t)f] = v;
			if (!isnan(v))
				s->has[f] = 1;
		}
		for (size_t i = 0; i < n_cat; i++) {
			gl_hist_free(sl[i].h);
			sl[i] = (struct slot){ NULL, 0, 0 };
		}
	}
	if (rc == 0 && step != SQLITE_ROW && step != SQLITE_DONE)
		rc = gl_errf(err, GL_EIO, "%s: store: %s", s->dir, sqlite3_errmsg(db));
out:
	sqlite3_finalize(q);
	if (sl)
		for (size_t i = 0; i < n_cat; i++)
			gl_hist_free(sl[i].h);
	free(sl);
	free(hist_used);
	free(memo);
	return rc;
}

/* ---- the comparison ------------------------------------------------------------------ */

static int collect(const struct cmp *c, const struct side *s, int g, int f, double *out)
{
	int n = 0;
	for (int i = 0; i < s->an->n_windows; i++) {
		double v;
		if (s->group[i] != g)
			continue;
		v = s->val[(size_t)i * (size_t)c->n_figs + (size_t)f];
		if (!isnan(v))
			out[n++] = v;
	}
	return n;
}

static double median_of(double *v, int n, double *mean)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += v[i];
	*mean = n ? sum / n : NAN;
	if (n == 0)
		return NAN;
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static double rel_change(double from, double to)
{
	if (from == to)
		return 0;
	if (from == 0)
		return to > 0 ? INFINITY : -INFINITY;
	return (to - from) / fabs(from);
}

static void judge(const struct cmp *c, struct row *r, const double *a, const double *b)
{
	const struct figure *f = &c->figs[r->fig];
	int lower = f->def->lower_is_better, cand_higher, cand_lower, worse, better;
	double tol = c->o.tolerance;

	if (r->n_base < c->o.min_windows || r->n_cand < c->o.min_windows) {
		r->v = V_INSUFFICIENT;
		snprintf(r->note, sizeof(r->note), "%d and %d window(s) with data; %d needed on each side",
			 r->n_base, r->n_cand, c->o.min_windows);
		return;
	}
	if (gl_mwu_min_p(r->n_base, r->n_cand) >= c->o.alpha) {
		r->v = V_INSUFFICIENT;
		snprintf(r->note, sizeof(r->note), "%d and %d windows cannot reach p < %g", r->n_base, r->n_cand,
			 c->o.alpha);
		return;
	}
	if (gl_mann_whitney(a, r->n_base, b, r->n_cand, &r->t) != 0) {
		r->v = V_INSUFFICIENT;
		snprintf(r->note, sizeof(r->note), "test failed: out of memory");
		return;
	}
	r->tested = 1;
	cand_higher = r->t.u_b > r->t.u_a;
	cand_lower = r->t.u_b < r->t.u_a;
	if (lower) {
		worse = r->change > tol && cand_higher;
		better = r->change < -tol && cand_lower;
	} else {
		worse = r->change < -tol && cand_lower;
		better = r->change > tol && cand_higher;
	}
	if (r->t.p < c->o.alpha && worse)
		r->v = V_REGRESSION;
	else if (r->t.p < c->o.alpha && better)
		r->v = V_IMPROVEMENT;
	else
		r->v = V_NONE;
	if (r->change_from_means)
		snprintf(r->note, sizeof(r->note), "both medians 0: change of the means");
}

static int compare_rows(struct cmp *c)
{
	int max_n = 0;
	double *a, *b;

	for (int k = 0; k < 2; k++)
		if (c->s[k].an->n_windows > max_n)
			max_n = c->s[k].an->n_windows;
	a = malloc(sizeof(double) * (size_t)(max_n + 1));
	b = malloc(sizeof(double) * (size_t)(max_n + 1));
	c->rows = calloc((size_t)c->n_groups * (size_t)c->n_figs + 1, sizeof(*c->rows));
	c->not_compared = cJSON_CreateArray();
	if (!a || !b || !c->rows || !c->not_compared) {
		free(a);
		free(b);
		return -1;
	}
	for (int f = 0; f < c->n_figs; f++) {
		if (c->s[0].has[f] != c->s[1].has[f]) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "metric", c->figs[f].name);
			cJSON_AddStringToObject(o, "only_in", c->s[0].has[f] ? "base" : "candidate");
			cJSON_AddItemToArray(c->not_compared, o);
		}
	}
	for (int g = 0; g < c->n_groups; g++) {
		for (int f = 0; f < c->n_figs; f++) {
			struct row *r;
			double x, y;
			if (!c->s[0].has[f] || !c->s[1].has[f])
				continue;
			r = &c->rows[c->n_rows];
			memset(r, 0, sizeof(*r));
			r->fig = f;
			r->grp = g;
			r->n_base = collect(c, &c->s[0], g, f, a);
			r->n_cand = collect(c, &c->s[1], g, f, b);
			if (r->n_base == 0 && r->n_cand == 0)
				continue;
			c->n_rows++;
			/* the medians sort copies; the test takes the same values in any order */
			{
				double *sa = malloc(sizeof(double) * (size_t)(r->n_base + 1));
				double *sb = malloc(sizeof(double) * (size_t)(r->n_cand + 1));
				if (!sa || !sb) {
					free(sa);
					free(sb);
					free(a);
					free(b);
					return -1;
				}
				memcpy(sa, a, sizeof(double) * (size_t)r->n_base);
				memcpy(sb, b, sizeof(double) * (size_t)r->n_cand);
				r->med_base = median_of(sa, r->n_base, &r->mean_base);
				r->med_cand = median_of(sb, r->n_cand, &r->mean_cand);
				free(sa);
				free(sb);
			}
			x = r->med_base;
			y = r->med_cand;
			if (x == 0 && y == 0) {
				x = r->mean_base;
				y = r->mean_cand;
				r->change_from_means = x != 0 || y != 0;
			}
			r->change = r->n_base && r->n_cand ? rel_change(x, y) : NAN;
			judge(c, r, a, b);
			c->count[r->v]++;
		}
	}
	free(a);
	free(b);
	return 0;
}

/* ---- loading a run ------------------------------------------------------------------- */

static int load_side(struct side *s, struct gl_err *err)
{
	struct stat sb;
	char db[1200];

	if (stat(s->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return gl_errf(err, GL_EINVAL, "%s: no such directory", s->dir);
	snprintf(db, sizeof(db), "%s/run.db", s->dir);
	if (!(s->st = gl_store_open(db, 0, err)))
		return err->code ? -err->code : -GL_EIO;
	return gl_analyze(s->st, &s->an, err);
}

static void check_runs(struct cmp *c)
{
	const struct gl_analysis *a = c->s[0].an, *b = c->s[1].an;

	if (strcmp(a->run.name, b->run.name))
		warnf(c, "different scenarios: '%s' (base) and '%s' (candidate); phases are paired by name",
		      a->run.name, b->run.name);
	else if (strcmp(a->run.scenario_sha256, b->run.scenario_sha256))
		warnf(c, "the scenario text differs (sha256 %.12s in base, %.12s in candidate)",
		      a->run.scenario_sha256, b->run.scenario_sha256);
	if (a->run.sets_json && b->run.sets_json && strcmp(a->run.sets_json, b->run.sets_json))
		warnf(c, "the --set overrides differ: %s (base) and %s (candidate)", a->run.sets_json,
		      b->run.sets_json);
	if (a->run.time_scale != b->run.time_scale)
		warnf(c, "time scales differ: %g (base) and %g (candidate)", a->run.time_scale, b->run.time_scale);
	if (!strcmp(a->run.id, b->run.id))
		warnf(c, "both directories hold the same run (id %s)", a->run.id);
	for (int k = 0; k < 2; k++)
		if (c->s[k].an->generator_saturated)
			warnf(c, "the %s run's load generator was saturated (send lag p99 above 5 ms): its latencies "
			      "include client delay", c->s[k].role);
	for (int k = 0; k < 2; k++)
		if (strcmp(c->s[k].an->run.state, "finished"))
			warnf(c, "the %s run is %s, not finished: only its stored windows are compared", c->s[k].role,
			      c->s[k].an->run.state);
	{
		int same = a->sc->n_phases == b->sc->n_phases;
		for (int i = 0; same && i < a->sc->n_phases; i++)
			same = !strcmp(a->sc->phases[i].name, b->sc->phases[i].name);
		if (!same)
			warnf(c, "the phase lists differ; phases present in one run only have no data in the other");
	}
}

/* ---- rendering ------------------------------------------------------------------------- */

static void fmt_val(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.4g", v);
}

static void fmt_change(char *buf, size_t n, double ch)
{
	if (isnan(ch))
		snprintf(buf, n, "n/a");
	else if (isinf(ch))
		snprintf(buf, n, "%s", ch > 0 ? "+inf" : "-inf");
	else
		snprintf(buf, n, "%+.1f%%", ch * 100);
}

static void fmt_p(char *buf, size_t n, const struct row *r)
{
	if (!r->tested)
		snprintf(buf, n, "-");
	else if (r->t.p < 1e-4)
		snprintf(buf, n, "%.1e", r->t.p);
	else
		snprintf(buf, n, "%.4f", r->t.p);
}

static const char *overall(const struct cmp *c)
{
	return c->count[V_REGRESSION] ? "regression" : "no regression";
}

static void print_table(const struct cmp *c, FILE *f)
{
	fprintf(f, "gauntlet compare: base %s (%s), candidate %s (%s)\n", c->o.base, c->s[0].an->run.id, c->o.cand,
		c->s[1].an->run.id);
	fprintf(f, "Mann-Whitney U over per-window values, alpha %g, tolerance %g%%, at least %d windows\n",
		c->o.alpha, c->o.tolerance * 100, c->o.min_windows);
	for (int i = 0; i < c->n_warnings; i++)
		fprintf(f, "warning: %s\n", c->warnings[i]);
	fprintf(f, "\n%-36s %-16s %-9s %10s %10s %8s %8s  %s\n", "metric", "phase", "windows", "base", "cand",
		"change", "p", "verdict");
	for (int i = 0; i < c->n_rows; i++) {
		const struct row *r = &c->rows[i];
		char nb[24], vb[32], vc[32], ch[32], p[32];
		snprintf(nb, sizeof(nb), "%d/%d", r->n_base, r->n_cand);
		fmt_val(vb, sizeof(vb), r->med_base);
		fmt_val(vc, sizeof(vc), r->med_cand);
		fmt_change(ch, sizeof(ch), r->change);
		fmt_p(p, sizeof(p), r);
		fprintf(f, "%-36s %-16s %-9s %10s %10s %8s %8s  %s\n", c->figs[r->fig].name, c->groups[r->grp].label,
			nb, vb, vc, ch, p,
			r->v == V_REGRESSION ? "REGRESSION" : verdict_names[r->v]);
	}
	fprintf(f, "\n%d regression(s), %d improvement(s), %d unchanged, %d with insufficient data: %s\n",
		c->count[V_REGRESSION], c->count[V_IMPROVEMENT], c->count[V_NONE], c->count[V_INSUFFICIENT],
		overall(c));
	for (int i = 0; i < c->n_rows; i++)
		if (c->rows[i].v == V_REGRESSION)
			fprintf(f, "  regression: %s in %s: %s\n", c->figs[c->rows[i].fig].name,
				c->groups[c->rows[i].grp].label,
				c->figs[c->rows[i].fig].def->lower_is_better ? "higher (lower is better)"
									      : "lower (higher is better)");
}

/* JSON numbers: NaN and infinities are null. */
static void jnum(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *run_json(const struct side *s)
{
	cJSON *o = cJSON_CreateObject();
	const struct gl_run_row *r = &s->an->run;
	char wall[40];

	cJSON_AddStringToObject(o, "dir", s->dir);
	cJSON_AddStringToObject(o, "run_id", r->id);
	cJSON_AddStringToObject(o, "scenario", r->name);
	cJSON_AddStringToObject(o, "scenario_sha256", r->scenario_sha256);
	gl_format_wall(r->started_wall_ns, wall, sizeof(wall));
	cJSON_AddStringToObject(o, "started", wall);
	cJSON_AddStringToObject(o, "state", r->state);
	cJSON_AddStringToObject(o, "verdict", s->an->verdict);
	cJSON_AddNumberToObject(o, "windows", s->an->n_windows);
	cJSON_AddNumberToObject(o, "window_s", (double)r->window_ns / 1e9);
	cJSON_AddNumberToObject(o, "time_scale", r->time_scale);
	return o;
}

static cJSON *compare_json(const struct cmp *c, int exit_code)
{
	cJSON *j = cJSON_CreateObject(), *o, *arr;

	cJSON_AddStringToObject(j, "verdict", overall(c));
	cJSON_AddNumberToObject(j, "exit_code", exit_code);
	cJSON_AddItemToObject(j, "base", run_json(&c->s[0]));
	cJSON_AddItemToObject(j, "candidate", run_json(&c->s[1]));
	o = cJSON_AddObjectToObject(j, "settings");
	cJSON_AddStringToObject(o, "test", "Mann-Whitney U, two-sided, over per-window values");
	cJSON_AddNumberToObject(o, "alpha", c->o.alpha);
	cJSON_AddNumberToObject(o, "tolerance", c->o.tolerance);
	cJSON_AddNumberToObject(o, "min_windows", c->o.min_windows);
	arr = cJSON_AddArrayToObject(o, "stats");
	for (int i = 0; i < c->o.n_stats; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(c->o.stats[i]));
	arr = cJSON_AddArrayToObject(j, "warnings");
	for (int i = 0; i < c->n_warnings; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(c->warnings[i]));
	o = cJSON_AddObjectToObject(j, "counts");
	cJSON_AddNumberToObject(o, "regression", c->count[V_REGRESSION]);
	cJSON_AddNumberToObject(o, "improvement", c->count[V_IMPROVEMENT]);
	cJSON_AddNumberToObject(o, "no_change", c->count[V_NONE]);
	cJSON_AddNumberToObject(o, "insufficient_data", c->count[V_INSUFFICIENT]);
	arr = cJSON_AddArrayToObject(j, "comparisons");
	for (int i = 0; i < c->n_rows; i++) {
		const struct row *r = &c->rows[i];
		const struct figure *f = &c->figs[r->fig];
		const struct group *g = &c->groups[r->grp];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "metric", f->name);
		cJSON_AddStringToObject(x, "unit", f->def->unit);
		cJSON_AddBoolToObject(x, "lower_is_better", f->def->lower_is_better);
		cJSON_AddStringToObject(x, "phase", g->label);
		if (g->occ) {
			cJSON_AddStringToObject(x, "phase_name", g->name);
			cJSON_AddNumberToObject(x, "occurrence", g->occ);
		} else {
			cJSON_AddNullToObject(x, "phase_name");
			cJSON_AddNullToObject(x, "occurrence");
		}
		cJSON_AddNumberToObject(x, "n_base", r->n_base);
		cJSON_AddNumberToObject(x, "n_cand", r->n_cand);
		jnum(x, "base_median", r->med_base);
		jnum(x, "cand_median", r->med_cand);
		jnum(x, "base_mean", r->mean_base);
		jnum(x, "cand_mean", r->mean_cand);
		jnum(x, "change_pct", r->change * 100);
		if (isinf(r->change))
			cJSON_AddStringToObject(x, "change_note", r->change > 0 ? "from 0 up" : "from 0 down");
		cJSON_AddStringToObject(x, "change_of", r->change_from_means ? "means" : "medians");
		if (r->tested) {
			jnum(x, "u_base", r->t.u_a);
			jnum(x, "u_cand", r->t.u_b);
			jnum(x, "p_value", r->t.p);
			cJSON_AddStringToObject(x, "method", r->t.exact ? "exact" : "normal");
		} else {
			cJSON_AddNullToObject(x, "u_base");
			cJSON_AddNullToObject(x, "u_cand");
			cJSON_AddNullToObject(x, "p_value");
			cJSON_AddNullToObject(x, "method");
		}
		cJSON_AddStringToObject(x, "verdict", verdict_names[r->v]);
		if (r->note[0])
			cJSON_AddStringToObject(x, "note", r->note);
		cJSON_AddItemToArray(arr, x);
	}
	cJSON_AddItemToObject(j, "not_compared", cJSON_Duplicate(c->not_compared, 1));
	return j;
}

/* Markdown table cells: user strings lose their power to break the table
 * or turn into markup. */
static void md_esc(struct gl_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n' || *s == '\r')
			gl_buf_append(b, " ", 1);
		else if (*s == '<')
			gl_buf_append(b, "&lt;", 4);
		else if (*s == '>')
			gl_buf_append(b, "&gt;", 4);
		else if (*s == '&')
			gl_buf_append(b, "&amp;", 5);
		else if (strchr("|\\`*_[]#", *s)) {
			gl_buf_append(b, "\\", 1);
			gl_buf_append(b, s, 1);
		} else
			gl_buf_append(b, s, 1);
	}
}

static void html_esc(struct gl_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': gl_buf_append(b, "&amp;", 5); break;
		case '<': gl_buf_append(b, "&lt;", 4); break;
		case '>': gl_buf_append(b, "&gt;", 4); break;
		case '"': gl_buf_append(b, "&quot;", 6); break;
		case '\'': gl_buf_append(b, "&#39;", 5); break;
		default: gl_buf_append(b, s, 1);
		}
	}
}

typedef void (*esc_fn)(struct gl_buf *b, const char *s);

/* The run facts, one row per fact, as "| label | base | cand |" or the HTML equivalent. */
static void facts(const struct cmp *c, struct gl_buf *b, esc_fn esc, int html)
{
	static const char *const labels[] = { "directory", "run id", "scenario", "scenario sha256", "started",
					      "state / verdict", "windows", "window", "time scale" };
	for (size_t i = 0; i < GL_ARRAY_LEN(labels); i++) {
		gl_buf_printf(b, html ? "<tr><th>%s</th>" : "| %s |", labels[i]);
		for (int k = 0; k < 2; k++) {
			const struct gl_analysis *an = c->s[k].an;
			char v[1100];
			switch (i) {
			case 0: snprintf(v, sizeof(v), "%s", c->s[k].dir); break;
			case 1: snprintf(v, sizeof(v), "%s", an->run.id); break;
			case 2: snprintf(v, sizeof(v), "%s", an->run.name); break;
			case 3: snprintf(v, sizeof(v), "%s", an->run.scenario_sha256); break;
			case 4: gl_format_wall(an->run.started_wall_ns, v, sizeof(v)); break;
			case 5: snprintf(v, sizeof(v), "%s / %s", an->run.state, an->verdict); break;
			case 6: snprintf(v, sizeof(v), "%d", an->n_windows); break;
			case 7: snprintf(v, sizeof(v), "%g s", (double)an->run.window_ns / 1e9); break;
			default: snprintf(v, sizeof(v), "%g", an->run.time_scale); break;
			}
			gl_buf_printf(b, html ? "<td>" : " ");
			esc(b, v);
			gl_buf_printf(b, html ? "</td>" : " |");
		}
		gl_buf_printf(b, html ? "</tr>\n" : "\n");
	}
}

static void md_rows(const struct cmp *c, struct gl_buf *b, int only_changes)
{
	gl_buf_printf(b, "| metric | phase | better | windows (base/cand) | base median | cand median | change | p-value | verdict |\n"
		      "|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < c->n_rows; i++) {
		const struct row *r = &c->rows[i];
		char vb[32], vc[32], ch[32], p[32];
		if (only_changes && r->v != V_REGRESSION && r->v != V_IMPROVEMENT)
			continue;
		fmt_val(vb, sizeof(vb), r->med_base);
		fmt_val(vc, sizeof(vc), r->med_cand);
		fmt_change(ch, sizeof(ch), r->change);
		fmt_p(p, sizeof(p), r);
		gl_buf_printf(b, "| `%s` | ", c->figs[r->fig].name);
		md_esc(b, c->groups[r->grp].label);
		gl_buf_printf(b, " | %s | %d/%d | %s | %s | %s%s | %s | %s%s%s |\n",
			      c->figs[r->fig].def->lower_is_better ? "lower" : "higher", r->n_base, r->n_cand, vb, vc,
			      ch, r->change_from_means ? " (means)" : "", p,
			      r->v == V_REGRESSION ? "**" : "", verdict_names[r->v], r->v == V_REGRESSION ? "**" : "");
	}
}

static int render_md(const struct cmp *c, struct gl_buf *b)
{
	gl_buf_printf(b, "# gauntlet compare: ");
	md_esc(b, c->s[1].an->run.name);
	gl_buf_printf(b, " against its baseline\n\n**Verdict: %s** (%d regression(s), %d improvement(s), "
		      "%d unchanged, %d with insufficient data)\n\n",
		      c->count[V_REGRESSION] ? "REGRESSION" : "NO REGRESSION", c->count[V_REGRESSION],
		      c->count[V_IMPROVEMENT], c->count[V_NONE], c->count[V_INSUFFICIENT]);
	gl_buf_printf(b, "| | base | candidate |\n|---|---|---|\n");
	facts(c, b, md_esc, 0);
	gl_buf_printf(b, "\nEach figure is computed per window; the windows of a phase in the two runs are "
		      "compared with the two-sided Mann-Whitney U test at alpha %g, and a change counts when "
		      "the median moved by more than %g%% (`--tolerance`) in the metric's bad direction "
		      "(regression) or good direction (improvement). At least %d windows with data are needed "
		      "on each side. Windows under a fault are grouped as *faults*.\n\n",
		      c->o.alpha, c->o.tolerance * 100, c->o.min_windows);
	for (int i = 0; i < c->n_warnings; i++) {
		gl_buf_printf(b, "> **Warning:** ");
		md_esc(b, c->warnings[i]);
		gl_buf_printf(b, "\n\n");
	}
	gl_buf_printf(b, "## Changes\n\n");
	if (c->count[V_REGRESSION] + c->count[V_IMPROVEMENT])
		md_rows(c, b, 1);
	else
		gl_buf_printf(b, "No significant change beyond the tolerance.\n");
	gl_buf_printf(b, "\n## All comparisons\n\n");
	md_rows(c, b, 0);
	if (cJSON_GetArraySize(c->not_compared)) {
		const cJSON *it;
		gl_buf_printf(b, "\n## Not compared\n\nMeasured in one run only:");
		cJSON_ArrayForEach(it, c->not_compared)
			gl_buf_printf(b, " `%s` (%s)", cJSON_GetObjectItem(it, "metric")->valuestring,
				      cJSON_GetObjectItem(it, "only_in")->valuestring);
		gl_buf_printf(b, "\n");
	}
	return b->len >= b->max ? -1 : 0;
}

static void html_rows(const struct cmp *c, struct gl_buf *b, int only_changes)
{
	gl_buf_printf(b, "<table class=\"rows\"><thead><tr><th>metric</th><th>phase</th><th>better</th>"
		      "<th>windows (base/cand)</th><th>base median</th><th>cand median</th><th>change</th>"
		      "<th>p-value</th><th>verdict</th></tr></thead><tbody>\n");
	for (int i = 0; i < c->n_rows; i++) {
		const struct row *r = &c->rows[i];
		char vb[32], vc[32], ch[32], p[32];
		static const char *const cls[] = { "insufficient", "none", "improvement", "regression" };
		if (only_changes && r->v != V_REGRESSION && r->v != V_IMPROVEMENT)
			continue;
		fmt_val(vb, sizeof(vb), r->med_base);
		fmt_val(vc, sizeof(vc), r->med_cand);
		fmt_change(ch, sizeof(ch), r->change);
		fmt_p(p, sizeof(p), r);
		gl_buf_printf(b, "<tr class=\"%s\"><td><code>", cls[r->v]);
		html_esc(b, c->figs[r->fig].name);
		gl_buf_printf(b, "</code></td><td>");
		html_esc(b, c->groups[r->grp].label);
		gl_buf_printf(b, "</td><td>%s</td><td>%d/%d</td><td>%s</td><td>%s</td><td>%s%s</td><td>%s</td>"
			      "<td class=\"verdict\">%s</td></tr>\n",
			      c->figs[r->fig].def->lower_is_better ? "lower" : "higher", r->n_base, r->n_cand, vb, vc,
			      ch, r->change_from_means ? " (means)" : "", p, verdict_names[r->v]);
	}
	gl_buf_printf(b, "</tbody></table>\n");
}

static int render_html(const struct cmp *c, struct gl_buf *b)
{
	gl_buf_printf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>gauntlet compare: ");
	html_esc(b, c->s[1].an->run.name);
	gl_buf_printf(b, "</title>\n<style>\n"
		      "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\n"
		      "table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:3px 8px;"
		      "text-align:left}\n"
		      "td:nth-child(n+4){text-align:right}td.verdict,table.facts td{text-align:left}\n"
		      "table.facts td{word-break:break-all}\n"
		      ".verdict-box{font-size:1.3em;font-weight:bold;padding:.4em .8em;display:inline-block}\n"
		      ".bad{background:#f8d0d0}.good{background:#d4f0d4}\n"
		      "tr.regression{background:#f8d0d0}tr.improvement{background:#d4f0d4}"
		      "tr.insufficient{color:#888}\n"
		      ".warn{background:#fff3cd;padding:.4em .8em;margin:.3em 0}\n"
		      "</style></head><body>\n<h1>gauntlet compare: ");
	html_esc(b, c->s[1].an->run.name);
	gl_buf_printf(b, " against its baseline</h1>\n<p class=\"verdict-box %s\" id=\"verdict\">%s</p>\n"
		      "<p>%d regression(s), %d improvement(s), %d unchanged, %d with insufficient data</p>\n",
		      c->count[V_REGRESSION] ? "bad" : "good",
		      c->count[V_REGRESSION] ? "REGRESSION" : "NO REGRESSION", c->count[V_REGRESSION],
		      c->count[V_IMPROVEMENT], c->count[V_NONE], c->count[V_INSUFFICIENT]);
	gl_buf_printf(b, "<table class=\"facts\"><tr><th></th><th>base</th><th>candidate</th></tr>\n");
	facts(c, b, html_esc, 1);
	gl_buf_printf(b, "</table>\n<p>Each figure is computed per window; the windows of a phase in the two "
		      "runs are compared with the two-sided Mann-Whitney U test at alpha %g, and a change counts "
		      "when the median moved by more than %g%% in the metric's bad direction (regression) or good "
		      "direction (improvement). At least %d windows with data are needed on each side. Windows "
		      "under a fault are grouped as <em>faults</em>.</p>\n",
		      c->o.alpha, c->o.tolerance * 100, c->o.min_windows);
	for (int i = 0; i < c->n_warnings; i++) {
		gl_buf_printf(b, "<p class=\"warn\"><strong>Warning:</strong> ");
		html_esc(b, c->warnings[i]);
		gl_buf_printf(b, "</p>\n");
	}
	gl_buf_printf(b, "<h2>Changes</h2>\n");
	if (c->count[V_REGRESSION] + c->count[V_IMPROVEMENT])
		html_rows(c, b, 1);
	else
		gl_buf_printf(b, "<p>No significant change beyond the tolerance.</p>\n");
	gl_buf_printf(b, "<h2>All comparisons</h2>\n");
	html_rows(c, b, 0);
	if (cJSON_GetArraySize(c->not_compared)) {
		const cJSON *it;
		gl_buf_printf(b, "<h2>Not compared</h2>\n<p>Measured in one run only:</p><ul>\n");
		cJSON_ArrayForEach(it, c->not_compared) {
			gl_buf_printf(b, "<li><code>");
			html_esc(b, cJSON_GetObjectItem(it, "metric")->valuestring);
			gl_buf_printf(b, "</code> (%s)</li>\n", cJSON_GetObjectItem(it, "only_in")->valuestring);
		}
		gl_buf_printf(b, "</ul>\n");
	}
	gl_buf_printf(b, "</body></html>\n");
	return b->len >= b->max ? -1 : 0;
}

static int write_outputs(const struct cmp *c, const char *dir, int exit_code, struct gl_err *err)
{
	struct gl_buf md, html;
	char path[1200], *text = NULL;
	cJSON *j = NULL;
	int rc;

	gl_buf_init(&md, OUT_MAX_BYTES);
	gl_buf_init(&html, OUT_MAX_BYTES);
	if ((rc = gl_mkdir_p(dir, 0700, err)))
		goto out;
	if (!(j = compare_json(c, exit_code)) || !(text = cJSON_Print(j))) {
		rc = gl_errf(err, GL_ENOMEM, "compare.json: out of memory");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/compare.json", dir);
	if ((rc = gl_write_file_atomic(path, text, strlen(text), 0600, err)))
		goto out;
	if (render_md(c, &md) != 0) {
		rc = gl_errf(err, GL_ELIMIT, "compare.md: too large");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/compare.md", dir);
	if ((rc = gl_write_file_atomic(path, md.data, md.len, 0600, err)))
		goto out;
	if (render_html(c, &html) != 0) {
		rc = gl_errf(err, GL_ELIMIT, "compare.html: too large");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/compare.html", dir);
	rc = gl_write_file_atomic(path, html.data, html.len, 0600, err);
out:
	cJSON_free(text);
	cJSON_Delete(j);
	gl_buf_free(&md);
	gl_buf_free(&html);
	return rc;
}

/* ---- the command ---------------------------------------------------------------------- */

static void cmp_free(struct cmp *c)
{
	for (int k = 0; k < 2; k++) {
		gl_analysis_free(c->s[k].an);
		gl_store_close(c->s[k].st);
		free(c->s[k].group);
		free(c->s[k].val);
		free(c->s[k].has);
	}
	free(c->figs);
	free(c->groups);
	free(c->rows);
	for (int i = 0; i < c->n_warnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	cJSON_Delete(c->not_compared);
}

/* Bad input (2) unless the failure was the harness's own (4). */
static int exit_for(const struct gl_err *err)
{
	return err->code == GL_ENOMEM || err->code == GL_ELIMIT ? 4 : 2;
}

int gl_compare_main(int argc, char **argv)
{
	struct cmp c;
	struct gl_err err = { 0 };
	char out_dir[1100];
	int code = 0, rc;

	memset(&c, 0, sizeof(c));
	rc = parse_opts(argc, argv, &c.o);
	if (rc)
		return rc > 0 ? 0 : 2;
	c.s[0].dir = c.o.base;
	c.s[0].role = "base";
	c.s[1].dir = c.o.cand;
	c.s[1].role = "candidate";
	for (int k = 0; k < 2; k++) {
		if (load_side(&c.s[k], &err)) {
			fprintf(stderr, "gauntlet compare: %s: %s\n", c.s[k].role, err.msg);
			code = exit_for(&err);
			goto out;
		}
	}
	if (c.s[0].an->run.window_ns != c.s[1].an->run.window_ns) {
		fprintf(stderr, "gauntlet compare: window lengths differ (%g s in base, %g s in candidate): per-window "
			"figures of different windows are not comparable; rerun one with the other's \"window\"\n",
			(double)c.s[0].an->run.window_ns / 1e9, (double)c.s[1].an->run.window_ns / 1e9);
		code = 2;
		goto out;
	}
	check_runs(&c);
	if (build_figures(&c) || assign_groups(&c, &c.s[0]) || assign_groups(&c, &c.s[1])) {
		gl_errf(&err, GL_ENOMEM, "out of memory");
		fprintf(stderr, "gauntlet compare: out of memory\n");
		code = 4;
		goto out;
	}
	for (int k = 0; k < 2; k++) {
		if (side_values(&c, &c.s[k], &err)) {
			fprintf(stderr, "gauntlet compare: %s\n", err.msg);
			code = exit_for(&err);
			goto out;
		}
	}
	if (compare_rows(&c)) {
		fprintf(stderr, "gauntlet compare: out of memory\n");
		code = 4;
		goto out;
	}
	if (c.n_rows == 0) {
		fprintf(stderr, "gauntlet compare: the runs have no metric with data in common: nothing to compare\n");
		code = 2;
		goto out;
	}
	code = c.count[V_REGRESSION] ? 1 : 0;
	if (c.o.out)
		snprintf(out_dir, sizeof(out_dir), "%s", c.o.out);
	else
		snprintf(out_dir, sizeof(out_dir), "%s/compare", c.o.cand);
	if (write_outputs(&c, out_dir, code, &err)) {
		fprintf(stderr, "gauntlet compare: %s\n", err.msg);
		code = 4;
		goto out;
	}
	if (!c.o.quiet)
		print_table(&c, stdout);
	else
		for (int i = 0; i < c.n_warnings; i++)
			fprintf(stderr, "gauntlet compare: warning: %s\n", c.warnings[i]);
	printf("%s/compare.json\n%s/compare.md\n%s/compare.html\n", out_dir, out_dir, out_dir);
out:
	cmp_free(&c);
	return code;
}
