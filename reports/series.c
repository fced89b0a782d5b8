/*
 * series.c - the per-window series behind report.html's charts and
 * timeseries.csv. One pass over window_metrics (ordered by idx, the same
 * walk analysis makes): of each window only the rows some series needs
 * are read (histograms deserialized, counters summed), every series is
 * evaluated by gl_agg_eval's rules, and the window's histograms are freed
 * before the next. What is kept is one double per series per window.
 */
#include "series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "plugin.h"

/* Stored metric names the series read (their histograms and counters),
 * and in each window what the store holds for them. */
#define MAX_NEED 64

struct slot {
	const char *name;
	struct gl_hist *h; /* this window's histogram, or NULL */
	int64_t counter;
	int found; /* a counter row was seen */
};

struct need {
	struct slot sl[MAX_NEED];
	int n;
};

/* Index of name in nd, added when absent; -1 when full or name is NULL. */
static int need_add(struct need *nd, const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < nd->n; i++)
		if (!strcmp(nd->sl[i].name, name))
			return i;
	if (nd->n == MAX_NEED)
		return -1;
	memset(&nd->sl[nd->n], 0, sizeof(nd->sl[0]));
	nd->sl[nd->n].name = name;
	return nd->n++;
}

static struct slot *need_find(struct need *nd, const char *name)
{
	for (int i = 0; i < nd->n; i++)
		if (!strcmp(nd->sl[i].name, name))
			return &nd->sl[i];
	return NULL;
}

static void need_reset(struct need *nd)
{
	for (int i = 0; i < nd->n; i++) {
		gl_hist_free(nd->sl[i].h);
		nd->sl[i].h = NULL;
		nd->sl[i].counter = 0;
		nd->sl[i].found = 0;
	}
}

/* How a series is computed from the slots: the target name parsed once. */
struct how {
	struct gl_target_name tn;
	int a, b; /* slot of the metric (or numerator), of the denominator */
};

void gl_series_free(struct gl_series_set *ss)
{
	if (!ss)
		return;
	for (int i = 0; i < ss->n; i++)
		free(ss->s[i].v);
	free(ss->s);
	free(ss);
}

const struct gl_series *gl_series_find(const struct gl_series_set *ss, const char *name)
{
	for (int i = 0; i < ss->n; i++)
		if (!strcmp(ss->s[i].name, name))
			return &ss->s[i];
	return NULL;
}

/* Add a series unless present; returns 0, 1 when it was skipped (already
 * there, not a per-window metric), -1 on ENOMEM. */
static int add_series(struct gl_series_set *ss, int *cap, const char *name, int from_target)
{
	struct gl_target_name tn;
	struct gl_series *s;
	char why[256];
	const char *src;
	size_t k = 0;

	if (gl_series_find(ss, name) || strlen(name) >= GL_SERIES_NAME_MAX ||
	    gl_catalog_parse_target(name, &tn, why, sizeof(why)) != 0 || tn.def->kind == GL_MK_RECOVERY)
		return 1;
	if (ss->n == *cap) {
		int ncap = *cap ? *cap * 2 : 16;
		struct gl_series *ns = realloc(ss->s, sizeof(*ns) * (size_t)ncap);
		if (!ns)
			return -1;
		ss->s = ns;
		*cap = ncap;
	}
	s = &ss->s[ss->n];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->def = tn.def;
	s->from_target = from_target;
	/* chart id: "chart-" + the name with '.' as '-'; anything outside
	 * [A-Za-z0-9_-] becomes '_' so the id is safe everywhere */
	k = (size_t)snprintf(s->chart_id, sizeof(s->chart_id), "chart-");
	for (src = name; *src && k + 1 < sizeof(s->chart_id); src++) {
		char c = *src;
		if (c == '.')
			c = '-';
		else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
			   c == '-'))
			c = '_';
		s->chart_id[k++] = c;
	}
	s->chart_id[k] = '\0';
	ss->n++;
	return 0;
}

/* gl_agg_eval's rules on one window's slots, without merging the window
 * into an aggregate first (the same numbers, at a fraction of the cost:
 * a window holds one histogram per metric, so merging would only copy). */
static int eval_slots(const struct how *hw, const struct need *nd, double seconds, double *out)
{
	const struct gl_metric_def *d = hw->tn.def;
	const struct slot *a = hw->a >= 0 ? &nd->sl[hw->a] : NULL;
	const struct slot *b = hw->b >= 0 ? &nd->sl[hw->b] : NULL;

	switch (d->kind) {
	case GL_MK_HIST:
		if (!a || !a->h || gl_hist_count(a->h) == 0)
			return -1;
		if (hw->tn.pct >= 0)
			*out = gl_hist_percentile(a->h, hw->tn.pct);
		else if (!strcmp(hw->tn.stat, "min"))
			*out = gl_hist_min(a->h);
		else if (!strcmp(hw->tn.stat, "max"))
			*out = gl_hist_max(a->h);
		else if (!strcmp(hw->tn.stat, "mean"))
			*out = gl_hist_mean(a->h);
		else
			*out = (double)gl_hist_count(a->h);
		return 0;
	case GL_MK_COUNTER:
		if (!a || !a->found)
			return -1;
		*out = (double)a->counter;
		return 0;
	case GL_MK_RATIO:
		if (!b || !b->found || b->counter <= 0)
			return -1;
		*out = (double)(a ? a->counter : 0) / (double)b->counter;
		return 0;
	case GL_MK_RATE:
		if (!a || !a->found || seconds <= 0)
			return -1;
		*out = (double)a->counter * d->scale / seconds;
		return 0;
	default: return -1;
	}
}

/* Evaluate every series for window wi. */
static void eval_window(struct gl_series_set *ss, const struct how *hw, const struct need *nd, int wi, double seconds)
{
	for (int i = 0; i < ss->n; i++) {
		struct gl_series *s = &ss->s[i];
		double v;
		if (eval_slots(&hw[i], nd, seconds, &v) != 0 || !isfinite(v)) {
			s->v[wi] = NAN;
			continue;
		}
		s->v[wi] = v;
		if (!s->n_data || v < s->min)
			s->min = v;
		if (!s->n_data || v > s->max)
			s->max = v;
		s->n_data++;
	}
}

/* The series of a scenario, in chart order (gl_series_load's list). */
static int choose(struct gl_series_set *ss, int *cap, const struct gl_scenario *sc)
{
	const struct gl_workload_ops *ops;
	int rc = 0;

	/* each workload's own, in the registry's order (figures.h) */
	for (size_t i = 0; (ops = gl_workload_at(i)) && rc >= 0; i++) {
		const struct gl_workload_spec *w = gl_scenario_workload(sc, ops->name);
		if (!w || !ops->figures || !ops->figures->series)
			continue;
		for (const struct gl_series_row *f = ops->figures->series; f->metric && rc >= 0; f++)
			if (!f->key || cJSON_GetObjectItemCaseSensitive(w->cfg, f->key))
				rc = add_series(ss, cap, f->metric, 0);
	}
	for (int i = 0; i < sc->n_targets && rc >= 0; i++) {
		const struct gl_target_spec *t = &sc->targets[i];
		if ((t->scope == GL_SCOPE_STEADY || t->scope == GL_SCOPE_DEGRADED) && !t->missing)
			rc = add_series(ss, cap, t->metric, 1);
	}
	return rc;
}

struct gl_series_set *gl_series_names(const struct gl_analysis *an)
{
	struct gl_series_set *ss = calloc(1, sizeof(*ss));
	int cap = 0;

	if (ss && choose(ss, &cap, an->sc) < 0) {
		gl_series_free(ss);
		return NULL;
	}
	return ss;
}

struct gl_series_set *gl_series_load(struct gl_store *st, const struct gl_analysis *an, struct gl_err *err)
{
	struct gl_series_set *ss = calloc(1, sizeof(*ss));
	const struct gl_scenario *sc = an->sc;
	struct need *nd = calloc(1, sizeof(*nd));
	struct how *hw = NULL;
	struct gl_store_figs *cur = NULL;
	struct gl_store_fig f;
	int cap = 0, rc = 0, have = 0;

	if (!ss || !nd)
		goto nomem;
	ss->win = an->windows;
	ss->n_windows = an->n_windows;
	rc = choose(ss, &cap, sc);
	if (rc < 0 || !(hw = calloc((size_t)ss->n + 1, sizeof(*hw))))
		goto nomem;
	for (int i = 0; i < ss->n; i++) {
		struct gl_series *s = &ss->s[i];
		const struct gl_metric_def *d = s->def;
		char why[256];
		for (int t = 0; t < sc->n_targets; t++) {
			const struct gl_target_spec *ts = &sc->targets[t];
			if ((ts->scope == GL_SCOPE_STEADY || ts->scope == GL_SCOPE_DEGRADED) && !ts->missing &&
			    !strcmp(ts->metric, s->name) && !s->target[ts->scope])
				s->target[ts->scope] = ts;
		}
		gl_catalog_parse_target(s->name, &hw[i].tn, why, sizeof(why)); /* parsed by add_series */
		hw[i].a = need_add(nd, d->kind == GL_MK_RATIO || d->kind == GL_MK_RATE ? d->num : d->name);
		hw[i].b = d->kind == GL_MK_RATIO ? need_add(nd, d->den) : -1;
		s->v = malloc(sizeof(double) * (size_t)(an->n_windows > 0 ? an->n_windows : 1));
		if (!s->v)
			goto nomem;
	}

	if (!(cur = gl_store_figs_open(st, -1, err)))
		goto fail;
	have = gl_store_figs_next(cur, &f, err);
	for (int wi = 0; wi < an->n_windows && have >= 0; wi++) {
		const struct gl_window_info *w = &an->windows[wi];

		/* rows of windows without a meta row are ignored, as in analysis */
		while (have == 1 && f.idx < w->idx)
			have = gl_store_figs_next(cur, &f, err);
		for (; have == 1 && f.idx == w->idx; have = gl_store_figs_next(cur, &f, err)) {
			struct slot *sl = f.name ? need_find(nd, f.name) : NULL;
			if (!sl)
				continue;
			if (f.hist) {
				gl_hist_free(sl->h);
				sl->h = gl_hist_deserialize(f.hist, f.hist_len);
				if (!sl->h) {
					gl_errf(err, GL_EIO, "store: window %lld: histogram '%s' is corrupt",
						(long long)w->idx, f.name);
					goto fail;
				}
			} else {
				sl->counter += f.counter;
				sl->found = 1;
			}
		}
		if (have < 0)
			goto fail;
		eval_window(ss, hw, nd, wi, (double)(w->end_ns - w->start_ns) / 1e9);
		need_reset(nd);
	}
	if (have < 0)
		goto fail;
	gl_store_figs_close(cur);
	free(hw);
	free(nd);
	return ss;
nomem:
	gl_errf(err, GL_ENOMEM, "series: out of memory");
fail:
	gl_store_figs_close(cur);
	if (nd)
		need_reset(nd);
	free(nd);
	free(hw);
	gl_series_free(ss);
	return NULL;
}

int gl_series_violates(const struct gl_series_set *ss, const struct gl_series *s, int w)
{
	enum gl_scope sc = ss->win[w].scope;
	const struct gl_target_spec *t;
	double v;

	if (sc != GL_SCOPE_STEADY && sc != GL_SCOPE_DEGRADED)
		return 0;
	if (!(t = s->target[sc]))
		return 0;
	v = s->v[w];
	return isnan(v) || !gl_cmp_eval(t->expr.op, v, t->expr.threshold);
}

double gl_series_elapsed_to_scn(const struct gl_analysis *an, int64_t elapsed_ns)
{
	const struct gl_window_info *w = an->windows;
	double scale = an->run.time_scale > 0 ? an->run.time_scale : 1;
	int lo = 0, hi = an->n_windows - 1;

	if (an->n_windows == 0)
		return (double)elapsed_ns * scale;
	if (elapsed_ns < w[0].start_ns)
		return (double)w[0].scn_start_ns - (double)(w[0].start_ns - elapsed_ns) * scale;
	if (elapsed_ns >= w[hi].end_ns)
		return (double)w[hi].scn_end_ns + (double)(elapsed_ns - w[hi].end_ns) * scale;
	/* last window starting at or before elapsed_ns */
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (w[mid].start_ns <= elapsed_ns)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (elapsed_ns >= w[lo].end_ns || w[lo].end_ns <= w[lo].start_ns) {
		/* in a gap (a resume): at the time scale, but not past the next window */
		double t = (double)w[lo].scn_end_ns + (double)(elapsed_ns - w[lo].end_ns) * scale;
		return lo + 1 < an->n_windows && t > (double)w[lo + 1].scn_start_ns ? (double)w[lo + 1].scn_start_ns
										    : t;
	}
	w += lo;
	return (double)w->scn_start_ns + (double)(w->scn_end_ns - w->scn_start_ns) *
						 (double)(elapsed_ns - w->start_ns) / (double)(w->end_ns - w->start_ns);
}
