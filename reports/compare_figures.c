/*
 * compare_figures.c - what `gauntlet compare` compares (compare.h): the
 * figures (every catalog metric at the --stats statistics, ratios and
 * rates, the recovery figures), how each is judged and its noise floor,
 * the groups (a phase by name and occurrence, "faults", the whole run),
 * and one ordered pass over a store's window_metrics giving each complete
 * window's figure values. The statistics are in compare_stats.c.
 */
#include "compare_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- figures and groups -------------------------------------------------------- */

/* Noise floors by the catalog's units: an absolute change no larger than
 * this is not a change, however significant and however large relative
 * to a small value. Times: 10 us, the scale of a clock read and a
 * scheduler wake-up, under what any figure here measures meaningfully (a
 * data-load step without a dataset is two clock reads: about 160 ns;
 * an NVMe read, the fastest real operation timed, about 80 us). Ratios:
 * a tenth of a point. Bandwidth: 10 MB/s. Rates, tokens, temperature,
 * power, utilisation, load: the smallest step their sources report
 * meaningfully. compare.h and docs/compare.md list the same table. */
static const struct {
	const char *unit;
	double floor;
} unit_floors[] = {
	{ "s", 1e-5 },   { "ms", 0.01 }, { "ratio", 0.001 }, { "GB/s", 0.01 }, { "req/s", 0.01 }, { "tokens/s", 1 },
	{ "tokens", 1 }, { "C", 1 },     { "W", 5 },         { "%", 1 },       { "load", 0.1 },
};

/* A metric's own floor (its noise_floor, catalog.h), else its unit's. */
double gl_cmp_metric_floor(const struct gl_metric_def *def)
{
	return def->noise_floor > 0 ? def->noise_floor : gl_cmp_unit_floor(def->unit);
}

double gl_cmp_unit_floor(const char *unit)
{
	for (size_t i = 0; i < GL_ARRAY_LEN(unit_floors); i++)
		if (!strcmp(unit_floors[i].unit, unit))
			return unit_floors[i].floor;
	return 0;
}

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
		return 0; /* a mirrored statistic that does not parse: skip it */
	for (int i = 0; i < c->n_figs; i++)
		if (!strcmp(c->figs[i].name, name))
			return 0;
	num = tn.def->num ? gl_catalog_find(tn.def->num) : NULL;
	den = tn.def->den ? gl_catalog_find(tn.def->den) : NULL;
	if ((tn.def->kind == GL_MK_RATIO && (!num || !den)) || (tn.def->kind == GL_MK_RATE && !num))
		return 0; /* its counters are not in the catalog: nothing to read */
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
	f->floor = gl_cmp_metric_floor(tn.def);
	if (tn.def->kind == GL_MK_RECOVERY) {
		f->judging = J_FAULT;
		f->first_class = 1;
	} else if (tn.def->mean_tolerance) {
		f->judging = J_MEAN_ABS;
		f->first_class = 1;
	} else {
		f->judging = J_MEDIAN;
	}
	return 0;
}

int gl_cmp_build_figures(struct cmp *c)
{
	size_t n;
	const struct gl_metric_def *cat = gl_catalog(&n);
	int cap = 0;

	for (size_t i = 0; i < n; i++) {
		const struct gl_metric_def *d = &cat[i];
		char name[160], st[16];
		if (d->not_compared)
			continue;
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
		} else if (d->kind == GL_MK_RATIO || d->kind == GL_MK_RATE || d->kind == GL_MK_RECOVERY) {
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
	if (occ == GROUP_WHOLE_RUN)
		snprintf(g->label, sizeof(g->label), "whole run");
	else if (occ == 0)
		snprintf(g->label, sizeof(g->label), "faults");
	else if (occ == 1)
		snprintf(g->label, sizeof(g->label), "%s", name);
	else
		snprintf(g->label, sizeof(g->label), "%s#%d", name, occ);
	return c->n_groups++;
}

/* Each window's group: its phase (by name and occurrence), or the faults
 * group when a fault moved it to the degraded scope; -1 for windows not
 * compared (not complete, no phase). The whole-run group (the first) has
 * no windows of its own: it is every window with a group. */
int gl_cmp_assign_groups(struct cmp *c, struct side *s)
{
	const struct gl_analysis *an = s->an;
	const struct gl_scenario *sc = an->sc;
	int *phase_group = calloc((size_t)sc->n_phases + 1, sizeof(int)), faults = -1;

	s->group = calloc((size_t)an->n_windows + 1, sizeof(int));
	if (!phase_group || !s->group || group_id(c, "", GROUP_WHOLE_RUN) < 0) {
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
		/* an edge phase's probes overload on purpose, at rates that
		 * differ between runs: its edge is compared (compare_edge.c),
		 * its windows are not */
		if (!w->complete || p < 0 || p >= sc->n_phases || sc->phases[p].kind == GL_PHASE_EDGE)
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
	struct gl_hist *h; /* NULL: no histogram row */
	int64_t counter;
	int found; /* a counter row was seen */
};

/* gl_agg_eval's rules (nearest-rank percentiles of the window's histogram,
 * ratios of its counters, rates over its real seconds) on the slots: the
 * same numbers without copying each histogram into an aggregate. */
static double fig_eval(const struct figure *f, const struct slot *sl, const struct gl_metric_def *cat, double seconds)
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
	default: return NAN;
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

int gl_cmp_side_values(struct cmp *c, struct side *s, struct gl_err *err)
{
	const struct gl_analysis *an = s->an;
	struct gl_store_figs *cur = NULL;
	struct gl_store_fig fig;
	struct gl_err ce = { 0 }; /* the cursor's, reported with the run's directory */
	size_t n = (size_t)an->n_windows * (size_t)c->n_figs, n_cat;
	const struct gl_metric_def *cat = gl_catalog(&n_cat);
	struct memo *memo = calloc(MEMO_N, sizeof(*memo));
	struct slot *sl = calloc(n_cat, sizeof(*sl));
	unsigned char *hist_used = calloc(n_cat, 1);
	int rc = 0, have = 0;

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
	if (!(cur = gl_store_figs_open(s->st, -1, &ce))) {
		rc = gl_errf(err, GL_EIO, "%s: %s", s->dir, ce.msg);
		goto out;
	}
	have = gl_store_figs_next(cur, &fig, &ce);
	for (int wi = 0; wi < an->n_windows && rc == 0 && have >= 0; wi++) {
		const struct gl_window_info *w = &an->windows[wi];
		int pos = 0;

		while (have == 1 && fig.idx < w->idx)
			have = gl_store_figs_next(cur, &fig, &ce);
		if (s->group[wi] < 0)
			continue; /* its rows are skipped by the loop above */
		for (; have == 1 && fig.idx == w->idx && rc == 0; have = gl_store_figs_next(cur, &fig, &ce), pos++) {
			const struct gl_metric_def *d = fig.name ? row_def(fig.name, pos, memo) : NULL;
			struct slot *x;

			if (!d)
				continue; /* a series the catalog does not know (errors by class) */
			x = &sl[d - cat];
			if (!fig.hist) {
				x->counter += fig.counter;
				x->found = 1;
			} else if (hist_used[d - cat]) {
				gl_hist_free(x->h);
				x->h = gl_hist_deserialize(fig.hist, fig.hist_len);
				if (!x->h)
					rc = gl_errf(err, GL_EINVAL,
						     "%s: store: window %lld: histogram '%s' is corrupt", s->dir,
						     (long long)w->idx, fig.name);
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
	if (rc == 0 && have < 0)
		rc = gl_errf(err, GL_EIO, "%s: %s", s->dir, ce.msg);
out:
	gl_store_figs_close(cur);
	if (sl)
		for (size_t i = 0; i < n_cat; i++)
			gl_hist_free(sl[i].h);
	free(sl);
	free(hist_used);
	free(memo);
	return rc;
}
