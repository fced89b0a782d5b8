/*
 * compare_stats.c - the statistics of `gauntlet compare` (compare.h): the
 * two-sided Mann-Whitney U test (exact distribution or normal
 * approximation), Welch's two-sided t test, and per group and figure the
 * two runs' medians and means, the change, the noise floor, the tolerance
 * and the verdict; per fault of both runs its recovery_s and restore_s.
 */
#include "compare_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXACT_MAX_N 50 /* exact U distribution up to n1 + n2 (C(50,25) < 2^53) */

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
			out->p = 1; /* every value equal */
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

/* ---- Welch's t test ----------------------------------------------------------------- */

/* The continued fraction of the regularized incomplete beta function
 * (modified Lentz), converging fast for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 10000; m++) {
		double m2 = 2.0 * m, aa, del;
		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		c = 1 + aa / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double gl_student_t_p(double t, double df)
{
	double p;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0;
	p = beta_inc(df / 2, 0.5, df / (df + t * t));
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

int gl_welch_t(const double *a, int na, const double *b, int nb, struct gl_welch *out)
{
	double ma = 0, mb = 0, va = 0, vb = 0, sa, sb, se2;

	memset(out, 0, sizeof(*out));
	if (na < 2 || nb < 2)
		return -1;
	for (int i = 0; i < na; i++)
		ma += a[i];
	for (int i = 0; i < nb; i++)
		mb += b[i];
	ma /= na;
	mb /= nb;
	for (int i = 0; i < na; i++)
		va += (a[i] - ma) * (a[i] - ma);
	for (int i = 0; i < nb; i++)
		vb += (b[i] - mb) * (b[i] - mb);
	va /= na - 1;
	vb /= nb - 1;
	sa = va / na;
	sb = vb / nb;
	se2 = sa + sb;
	if (!(se2 > 0)) {
		/* no spread in either sample: the means are what they are */
		out->df = na + nb - 2;
		out->t = ma == mb ? 0 : mb > ma ? INFINITY : -INFINITY;
		out->p = ma == mb ? 1 : 0;
		return 0;
	}
	out->t = (mb - ma) / sqrt(se2);
	out->df = se2 * se2 / (sa * sa / (na - 1) + sb * sb / (nb - 1));
	out->p = gl_student_t_p(out->t, out->df);
	return 0;
}

/* ---- the comparison ------------------------------------------------------------------ */

/* The values of figure f in group g of one run; the whole-run group takes
 * every window that has a group. */
static int collect(const struct cmp *c, const struct side *s, int g, int f, double *out)
{
	int whole = c->groups[g].occ == GROUP_WHOLE_RUN, n = 0;
	for (int i = 0; i < s->an->n_windows; i++) {
		double v;
		if (whole ? s->group[i] < 0 : s->group[i] != g)
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

static int enough_windows(const struct cmp *c, struct row *r)
{
	if (r->n_base >= c->o.min_windows && r->n_cand >= c->o.min_windows)
		return 1;
	r->v = V_INSUFFICIENT;
	snprintf(r->note, sizeof(r->note), "%d and %d window(s) with data; %d needed on each side", r->n_base,
		 r->n_cand, c->o.min_windows);
	return 0;
}

/* Most figures: the medians' relative change against --tolerance, the
 * Mann-Whitney U test, the unit's noise floor. */
static void judge_median(const struct cmp *c, struct row *r, const double *a, const double *b)
{
	const struct figure *f = &c->figs[r->fig];
	int lower = f->def->lower_is_better, cand_higher, cand_lower, worse, better;
	double tol = c->o.tolerance;

	r->tolerance = tol;
	r->floor = f->floor;
	if (!enough_windows(c, r))
		return;
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
	r->method = M_MWU;
	r->p = r->t.p;
	cand_higher = r->t.u_b > r->t.u_a;
	cand_lower = r->t.u_b < r->t.u_a;
	if (lower) {
		worse = r->change > tol && cand_higher;
		better = r->change < -tol && cand_lower;
	} else {
		worse = r->change < -tol && cand_lower;
		better = r->change > tol && cand_higher;
	}
	if (r->change_from_means)
		snprintf(r->note, sizeof(r->note), "both medians 0: change of the means");
	if ((worse || better) && r->t.p < c->o.alpha && !(fabs(r->change_abs) > f->floor)) {
		r->below_floor = 1;
		worse = better = 0;
		snprintf(r->note, sizeof(r->note),
			 "significant, but the change (%.3g %s) is within the noise floor "
			 "(%g %s)",
			 fabs(r->change_abs), f->def->unit, f->floor, f->def->unit);
	}
	if (r->t.p < c->o.alpha && worse)
		r->v = V_REGRESSION;
	else if (r->t.p < c->o.alpha && better)
		r->v = V_IMPROVEMENT;
	else
		r->v = V_NONE;
}

/* The first-class ratios (training.ettr, inference.goodput: their
 * mean_tolerance names the option): the absolute change of the means
 * against their own tolerance, Welch's t test. */
static void judge_mean(const struct cmp *c, struct row *r, const double *a, const double *b)
{
	const struct figure *f = &c->figs[r->fig];
	double tol = !strcmp(f->def->mean_tolerance, "ettr") ? c->o.ettr_tolerance : c->o.goodput_tolerance;
	double d = r->mean_cand - r->mean_base, limit = fmax(tol, f->floor);
	int worse, better;

	r->tolerance = tol;
	r->floor = f->floor;
	r->change_from_means = 1;
	r->change = rel_change(r->mean_base, r->mean_cand);
	r->change_abs = d;
	if (!enough_windows(c, r))
		return;
	if (gl_welch_t(a, r->n_base, b, r->n_cand, &r->w) != 0) {
		r->v = V_INSUFFICIENT;
		snprintf(r->note, sizeof(r->note), "fewer than 2 windows a side");
		return;
	}
	r->tested = 1;
	r->method = M_WELCH;
	r->p = r->w.p;
	if (f->def->lower_is_better) {
		worse = d > limit;
		better = d < -limit;
	} else {
		worse = d < -limit;
		better = d > limit;
	}
	if (r->p < c->o.alpha && worse)
		r->v = V_REGRESSION;
	else if (r->p < c->o.alpha && better)
		r->v = V_IMPROVEMENT;
	else
		r->v = V_NONE;
	snprintf(r->note, sizeof(r->note), "means %.4g and %.4g: %+.2f points (tolerance %g points)", r->mean_base,
		 r->mean_cand, d * 100, tol * 100);
}

/* The floor of the recovery figures: `hold` windows (the larger hold of
 * the two runs). They count whole windows until `hold` healthy ones in a
 * row, so one unhealthy window anywhere in that streak (a busy host's
 * hiccup) moves a figure by up to `hold` windows. */
static double fault_floor(const struct cmp *c)
{
	int hold = c->s[0].an->sc->hold > c->s[1].an->sc->hold ? c->s[0].an->sc->hold : c->s[1].an->sc->hold;
	return (hold > 0 ? hold : 1) * (double)c->s[0].an->run.window_ns / 1e9;
}

/* recovery_s or restore_s of one fault in both runs (-1: never reached). */
static void judge_fault(const struct cmp *c, struct row *r, double vb, double vc)
{
	const struct figure *f = &c->figs[r->fig];
	double tol = c->o.recovery_tolerance;
	double floor = fmax(f->floor, fault_floor(c));
	int worse, better;

	r->tolerance = tol;
	r->floor = floor;
	r->n_base = r->n_cand = 1;
	r->med_base = r->mean_base = vb >= 0 ? vb : NAN;
	r->med_cand = r->mean_cand = vc >= 0 ? vc : NAN;
	r->change = r->change_abs = NAN;
	r->method = M_SINGLE;
	if (vb < 0 && vc < 0) {
		r->v = V_NONE;
		snprintf(r->note, sizeof(r->note), "reached in neither run");
		return;
	}
	if (vc < 0) {
		r->v = V_REGRESSION;
		snprintf(r->note, sizeof(r->note), "never reached in the candidate (base: %g s)", vb);
		return;
	}
	if (vb < 0) {
		r->v = V_IMPROVEMENT;
		snprintf(r->note, sizeof(r->note), "never reached in the base");
		return;
	}
	r->change = rel_change(vb, vc);
	r->change_abs = vc - vb;
	worse = r->change > tol;
	better = r->change < -tol;
	if ((worse || better) && !(fabs(r->change_abs) > floor)) {
		r->below_floor = 1;
		worse = better = 0;
		snprintf(r->note, sizeof(r->note),
			 "the change (%.3g s) is within %g s (hold windows: one unhealthy "
			 "window moves the figure that much)",
			 fabs(r->change_abs), floor);
	}
	r->v = worse ? V_REGRESSION : better ? V_IMPROVEMENT : V_NONE;
}

static const struct gl_fault_result *fault_by_id(const struct gl_analysis *an, const char *id)
{
	for (int i = 0; i < an->n_faults; i++)
		if (!strcmp(an->faults[i].row.id, id))
			return &an->faults[i];
	return NULL;
}

static void not_compared_fault(struct cmp *c, const char *id, const char *only_in)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "metric", "recovery_s, restore_s");
	cJSON_AddStringToObject(o, "fault", id);
	cJSON_AddStringToObject(o, "only_in", only_in);
	cJSON_AddItemToArray(c->not_compared, o);
}

/* A row per fault of both runs (by id) and recovery figure. */
static void fault_rows(struct cmp *c)
{
	const struct gl_analysis *a = c->s[0].an, *b = c->s[1].an;

	for (int i = 0; i < a->n_faults; i++) {
		const struct gl_fault_result *fa = &a->faults[i], *fb = fault_by_id(b, fa->row.id);
		if (!fb) {
			not_compared_fault(c, fa->row.id, "base");
			continue;
		}
		for (int f = 0; f < c->n_figs; f++) {
			struct row *r;
			int rec;
			if (c->figs[f].judging != J_FAULT)
				continue;
			rec = !strcmp(c->figs[f].def->name, "recovery_s");
			r = &c->rows[c->n_rows++];
			memset(r, 0, sizeof(*r));
			r->fig = f;
			r->grp = -1;
			snprintf(r->fault_id, sizeof(r->fault_id), "%s", fa->row.id);
			if (fa->row.injected_elapsed_ns < 0 || fb->row.injected_elapsed_ns < 0) {
				r->v = V_INSUFFICIENT;
				r->tolerance = c->o.recovery_tolerance;
				r->floor = fmax(c->figs[f].floor, fault_floor(c));
				r->med_base = r->med_cand = r->mean_base = r->mean_cand = NAN;
				r->change = r->change_abs = NAN;
				snprintf(r->note, sizeof(r->note), "never injected in the %s",
					 fa->row.injected_elapsed_ns < 0 ? "base" : "candidate");
			} else {
				judge_fault(c, r, rec ? fa->recovery_s : fa->restore_s,
					    rec ? fb->recovery_s : fb->restore_s);
			}
			c->count[r->v]++;
		}
	}
	for (int j = 0; j < b->n_faults; j++)
		if (!fault_by_id(a, b->faults[j].row.id))
			not_compared_fault(c, b->faults[j].row.id, "candidate");
}

int gl_cmp_compare_rows(struct cmp *c)
{
	int max_n = 0;
	double *a, *b;

	for (int k = 0; k < 2; k++)
		if (c->s[k].an->n_windows > max_n)
			max_n = c->s[k].an->n_windows;
	a = malloc(sizeof(double) * (size_t)(max_n + 1));
	b = malloc(sizeof(double) * (size_t)(max_n + 1));
	/* every group and figure, and per fault of the base each recovery figure */
	c->rows =
		calloc(((size_t)c->n_groups + (size_t)c->s[0].an->n_faults) * (size_t)c->n_figs + 1, sizeof(*c->rows));
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
			if (c->groups[g].occ == GROUP_WHOLE_RUN && c->figs[f].judging != J_MEAN_ABS)
				continue; /* the whole run: the first-class ratios only */
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
			r->change_abs = r->n_base && r->n_cand ? y - x : NAN;
			if (c->figs[f].judging == J_MEAN_ABS)
				judge_mean(c, r, a, b);
			else
				judge_median(c, r, a, b);
			c->count[r->v]++;
		}
	}
	free(a);
	free(b);
	fault_rows(c);
	return 0;
}
