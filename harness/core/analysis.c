/*
 * analysis.c - two streaming passes over the store's windows: the first judges each window against
 * the steady and degraded targets, from which fault recovery figures and each window's scope follow;
 * the second merges windows into the run, phase and scope aggregates that targets and reports read,
 * and hands the steady windows' figures to the drift targets (analysis_drift.c). Memory: a few bytes
 * per window (two doubles per steady window and drift target) plus one histogram per metric per
 * aggregate, never the samples.
 */
#include "analysis_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

struct agg_entry {
	char name[96];
	struct gl_hist *h;
	int64_t counter;
	int has_counter;
};

struct gl_agg {
	struct agg_entry *e;
	int n, cap;
	int hint; /* index after the entry found last */
	double seconds;
};

struct gl_agg *gl_agg_new(void)
{
	return calloc(1, sizeof(struct gl_agg));
}

void gl_agg_free(struct gl_agg *a)
{
	if (!a)
		return;
	for (int i = 0; i < a->n; i++)
		gl_hist_free(a->e[i].h);
	free(a->e);
	free(a);
}

static struct agg_entry *entry(struct gl_agg *a, const char *name, int create)
{
	/* Series come in the same order window after window, and merges walk
	 * them in that order: the entry after the last one found is nearly
	 * always the one asked for next. */
	if (a->hint < a->n && !strcmp(a->e[a->hint].name, name))
		return &a->e[a->hint++];
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->e[i].name, name)) {
			a->hint = i + 1;
			return &a->e[i];
		}
	if (!create || strlen(name) >= sizeof(a->e[0].name))
		return NULL;
	if (a->n == a->cap) {
		int ncap = a->cap ? a->cap * 2 : 32;
		struct agg_entry *ne = realloc(a->e, sizeof(*ne) * (size_t)ncap);
		if (!ne)
			return NULL;
		a->e = ne;
		a->cap = ncap;
	}
	memset(&a->e[a->n], 0, sizeof(a->e[0]));
	strcpy(a->e[a->n].name, name);
	a->hint = a->n + 1;
	return &a->e[a->n++];
}

int gl_agg_add_hist(struct gl_agg *a, const char *name, const struct gl_hist *h)
{
	struct agg_entry *e = entry(a, name, 1);
	if (!e)
		return -1;
	if (!e->h && !(e->h = gl_hist_new()))
		return -1;
	return gl_hist_merge(e->h, h);
}

/* Like gl_agg_add_hist, but h becomes the aggregate's own when the series is
 * new to it (no copy: the per-window aggregates of each_window hold each
 * window's histograms exactly as read); h is consumed either way. */
static int agg_adopt_hist(struct gl_agg *a, const char *name, struct gl_hist *h)
{
	struct agg_entry *e = entry(a, name, 1);
	int rc = -1;

	if (e && !e->h) {
		e->h = h;
		return 0;
	}
	if (e)
		rc = gl_hist_merge(e->h, h);
	gl_hist_free(h);
	return rc;
}

int gl_agg_add_counter(struct gl_agg *a, const char *name, int64_t v)
{
	struct agg_entry *e = entry(a, name, 1);
	if (!e)
		return -1;
	e->counter += v;
	e->has_counter = 1;
	return 0;
}

void gl_agg_add_seconds(struct gl_agg *a, double s)
{
	a->seconds += s;
}
double gl_agg_seconds(const struct gl_agg *a)
{
	return a->seconds;
}

int gl_agg_merge(struct gl_agg *dst, const struct gl_agg *src)
{
	for (int i = 0; i < src->n; i++) {
		const struct agg_entry *e = &src->e[i];
		if (e->h && gl_agg_add_hist(dst, e->name, e->h) != 0)
			return -1;
		if (e->has_counter && gl_agg_add_counter(dst, e->name, e->counter) != 0)
			return -1;
	}
	dst->seconds += src->seconds;
	return 0;
}

const struct gl_hist *gl_agg_hist(const struct gl_agg *a, const char *name)
{
	struct agg_entry *e = entry((struct gl_agg *)a, name, 0);
	return e ? e->h : NULL;
}

int64_t gl_agg_counter(const struct gl_agg *a, const char *name, int *found)
{
	struct agg_entry *e = entry((struct gl_agg *)a, name, 0);
	if (found)
		*found = e && e->has_counter;
	return e ? e->counter : 0;
}

void gl_agg_each_counter(const struct gl_agg *a, const char *prefix, void (*fn)(void *arg, const char *name, int64_t v),
			 void *arg)
{
	size_t pl = strlen(prefix);
	for (int i = 0; i < a->n; i++)
		if (a->e[i].has_counter && !strncmp(a->e[i].name, prefix, pl))
			fn(arg, a->e[i].name, a->e[i].counter);
}

/* gl_agg_eval of a name already parsed. */
static int agg_eval_tn(const struct gl_agg *a, const struct gl_target_name *tn, double *out)
{
	const struct gl_metric_def *d = tn->def;
	int found = 0;

	switch (d->kind) {
	case GL_MK_HIST: {
		const struct gl_hist *h = gl_agg_hist(a, d->name);
		if (!h || gl_hist_count(h) == 0)
			return -1;
		if (tn->pct >= 0)
			*out = gl_hist_percentile(h, tn->pct);
		else if (!strcmp(tn->stat, "min"))
			*out = gl_hist_min(h);
		else if (!strcmp(tn->stat, "max"))
			*out = gl_hist_max(h);
		else if (!strcmp(tn->stat, "mean"))
			*out = gl_hist_mean(h);
		else
			*out = (double)gl_hist_count(h);
		return 0;
	}
	case GL_MK_COUNTER: *out = (double)gl_agg_counter(a, d->name, &found); return found ? 0 : -1;
	case GL_MK_RATIO: {
		int64_t den = gl_agg_counter(a, d->den, &found), num;
		if (!found || den <= 0)
			return -1;
		num = gl_agg_counter(a, d->num, NULL);
		*out = (double)num / (double)den;
		return 0;
	}
	case GL_MK_RATE: {
		int64_t num = gl_agg_counter(a, d->num, &found);
		if (!found || a->seconds <= 0)
			return -1;
		*out = (double)num * d->scale / a->seconds;
		return 0;
	}
	default: return -1;
	}
}

int gl_agg_eval(const struct gl_agg *a, const char *target_name, double *out)
{
	struct gl_target_name tn;
	char why[256];

	if (gl_catalog_parse_target(target_name, &tn, why, sizeof(why)) != 0)
		return -1;
	return agg_eval_tn(a, &tn, out);
}

/* ---- the analysis ---------------------------------------------------------- */

static int wanted(const char *const *only, const char *name)
{
	if (!only)
		return 1;
	for (; *only; only++)
		if (!strcmp(*only, name))
			return 1;
	return 0;
}

/* Stream every window's series into a fresh aggregate, calling fn(window i,
 * agg) once per window in order. Both queries are ordered by window index,
 * so one cursor walks the metric rows alongside the windows. only: NULL for
 * every series, else a NULL-terminated list of the names fn reads (the
 * others are not even fetched: a week of histograms is most of the store). */
static int each_window(struct gl_store *st, const struct gl_window_info *wins, int n_wins, const char *const *only,
		       int (*fn)(int i, struct gl_agg *w, void *arg), void *arg, struct gl_err *err)
{
	struct gl_err none = { 0 };
	struct gl_store_figs *cur;
	struct gl_store_fig f;
	int rc = 0, have;

	if (!err)
		err = &none;
	cur = gl_store_figs_open(st, -1, err);
	if (!cur)
		return -err->code;
	have = gl_store_figs_next(cur, &f, err);
	for (int wi = 0; wi < n_wins && rc == 0 && have >= 0; wi++) {
		const struct gl_window_info *w = &wins[wi];
		struct gl_agg *agg = gl_agg_new();

		if (!agg) {
			rc = gl_errf(err, GL_ENOMEM, "analysis: out of memory");
			break;
		}
		/* rows of windows without a meta row are ignored */
		while (have == 1 && f.idx < w->idx)
			have = gl_store_figs_next(cur, &f, err);
		for (; have == 1 && f.idx == w->idx && rc == 0; have = gl_store_figs_next(cur, &f, err)) {
			if (!f.name || !wanted(only, f.name))
				continue;
			if (f.hist) {
				struct gl_hist *h = gl_hist_deserialize(f.hist, f.hist_len);
				if (!h)
					rc = gl_errf(err, GL_EIO, "store: window %lld: histogram '%s' is corrupt",
						     (long long)w->idx, f.name);
				else
					agg_adopt_hist(agg, f.name, h);
			} else {
				gl_agg_add_counter(agg, f.name, f.counter);
			}
		}
		gl_agg_add_seconds(agg, (double)(w->end_ns - w->start_ns) / 1e9);
		if (rc == 0 && have >= 0)
			rc = fn(wi, agg, arg);
		gl_agg_free(agg);
	}
	if (rc == 0 && have < 0)
		rc = -err->code;
	gl_store_figs_close(cur);
	return rc;
}

int gl_windows_each(struct gl_store *st, const struct gl_window_info *wins, int n,
		    int (*fn)(int i, struct gl_agg *w, void *arg), void *arg, struct gl_err *err)
{
	return each_window(st, wins, n, NULL, fn, arg, err);
}

/* Index of the workload a target names (by its metric's workload), or -1. */
static int target_workload(const struct gl_scenario *s, const struct gl_target_spec *t)
{
	struct gl_target_name tn;
	char why[256];

	if (gl_catalog_parse_target(t->metric, &tn, why, sizeof(why)) != 0)
		return -1;
	for (int w = 0; w < s->n_workloads && w < GL_MAX_WORKLOADS; w++)
		if (!strcmp(s->workloads[w].name, tn.def->workload))
			return w;
	return -1;
}

/* The window-level targets, parsed once for every window of pass 1. */
struct window_target {
	const struct gl_target_spec *t;
	struct gl_target_name tn;
	int wl;
};

static struct window_target *window_targets(const struct gl_scenario *s, int *n)
{
	struct window_target *wt = calloc((size_t)s->n_targets + 1, sizeof(*wt));
	char why[256];

	*n = 0;
	for (int i = 0; wt && i < s->n_targets; i++) {
		const struct gl_target_spec *t = &s->targets[i];
		struct window_target *x = &wt[*n];
		if ((t->scope != GL_SCOPE_STEADY && t->scope != GL_SCOPE_DEGRADED) || t->missing ||
		    (x->wl = target_workload(s, t)) < 0 ||
		    gl_catalog_parse_target(t->metric, &x->tn, why, sizeof(why)) != 0)
			continue;
		x->t = t;
		(*n)++;
	}
	return wt;
}

struct pass1_arg {
	struct gl_analysis *an;
	const struct window_target *wt;
	int n;
	const char **series; /* the series they read, NULL-terminated */
};

static const char **target_series(const struct window_target *wt, int n)
{
	const char **s = calloc(
		(size_t)n * 2 + (size_t)gl_incident_openers(NULL) + (size_t)gl_saturation_series(NULL) + 1, sizeof(*s));
	int k = s ? gl_incident_openers(s) : 0;

	k += s ? gl_saturation_series(s + k) : 0;

	for (int i = 0; s && i < n; i++) {
		const struct gl_metric_def *d = wt[i].tn.def;
		if (d->kind == GL_MK_RATIO || d->kind == GL_MK_RATE) {
			s[k++] = d->num;
			if (d->den)
				s[k++] = d->den;
		} else {
			s[k++] = d->name;
		}
	}
	return s;
}

/* The workloads (as bits) that had targets of scope and missed one in this
 * window; a target without data in the window counts as missed. */
static unsigned bad_workloads(const struct pass1_arg *p, enum gl_scope scope, const struct gl_agg *w)
{
	unsigned bad = 0;
	for (int i = 0; i < p->n; i++) {
		const struct window_target *x = &p->wt[i];
		double v;
		if (x->t->scope != scope)
			continue;
		if (agg_eval_tn(w, &x->tn, &v) != 0 || !gl_cmp_eval(x->t->expr.op, v, x->t->expr.threshold))
			bad |= 1u << x->wl;
	}
	return bad;
}

static int pass1(int i, struct gl_agg *w, void *arg)
{
	struct gl_analysis *an = ((struct pass1_arg *)arg)->an;

	an->windows[i].saturated = (unsigned char)gl_window_saturated(w);
	an->windows[i].bad_steady = (unsigned char)bad_workloads(arg, GL_SCOPE_STEADY, w);
	an->windows[i].bad_degraded = (unsigned char)bad_workloads(arg, GL_SCOPE_DEGRADED, w);
	an->windows[i].inc_bits = (unsigned char)gl_incident_bits(w);
	return 0;
}

struct pass2_arg {
	int floors; /* read and write: a workload's floors (floor_targets) */
	struct gl_target_name read, write;
	/* consecutive windows of one phase judged in one scope, merged here
	 * first: one merge per window instead of one per aggregate */
	struct gl_agg *stretch;
	int phase;
	enum gl_scope scope;
	struct gl_analysis *an;
	int inc_lo; /* first incident not yet behind */
};

/* The stretch into its phase's and its scope's aggregates; the run's
 * aggregate is the sum of the scopes (every window has exactly one),
 * merged after the pass. */
static int flush_stretch(struct gl_analysis *an, struct pass2_arg *p)
{
	int rc = 0;

	if (!p->stretch)
		return 0;
	if (p->phase >= 0 && p->phase < an->sc->n_phases)
		rc = gl_agg_merge(an->phase[p->phase], p->stretch);
	if (rc == 0)
		rc = gl_agg_merge(p->scope <= GL_SCOPE_DEGRADED ? an->scope[p->scope] : an->all, p->stretch);
	gl_agg_free(p->stretch);
	p->stretch = NULL;
	return rc;
}

static int pass2(int i, struct gl_agg *w, void *arg)
{
	struct pass2_arg *p = arg;
	struct gl_analysis *an = p->an;
	const struct gl_window_info *wi = &an->windows[i];
	int rc = 0;
	double v;

	if (an->n_incidents)
		gl_incidents_take(an, &p->inc_lo, i, w);
	if (wi->saturated) /* the run's totals only (analysis_client.c) */
		return flush_stretch(an, p) ? -1 : gl_agg_merge(an->all, w);
	gl_drift_take(an, i, w);
	gl_sessions_take(an, i, w);
	if (wi->complete && wi->scope == GL_SCOPE_STEADY && p->floors) {
		if (agg_eval_tn(w, &p->read, &v) == 0 && (!an->has_read_floor || v < an->read_floor_gbps)) {
			an->read_floor_gbps = v;
			an->has_read_floor = 1;
		}
		if (agg_eval_tn(w, &p->write, &v) == 0 && (!an->has_write_floor || v < an->write_floor_gbps)) {
			an->write_floor_gbps = v;
			an->has_write_floor = 1;
		}
	}
	if (p->stretch && (p->phase != wi->phase || p->scope != wi->scope))
		rc = flush_stretch(an, p);
	if (rc == 0 && !p->stretch) {
		if (!(p->stretch = gl_agg_new()))
			return -1;
		p->phase = wi->phase;
		p->scope = wi->scope;
	}
	return rc ? rc : gl_agg_merge(p->stretch, w);
}

/* First window whose interval contains or follows t. */
static int window_at(const struct gl_analysis *an, int64_t t)
{
	for (int i = 0; i < an->n_windows; i++)
		if (an->windows[i].end_ns > t)
			return i;
	return an->n_windows;
}

/* First k >= k0 such that windows k..k+hold-1 are all healthy for the
 * workloads in mask (degraded or steady targets), all ending by limit_ns.
 * Returns -1 when there is none. */
static int healthy_run(const struct gl_analysis *an, int k0, int degraded, unsigned mask, int64_t limit_ns)
{
	int hold = an->sc->hold, run = 0;
	for (int k = k0; k < an->n_windows; k++) {
		const struct gl_window_info *w = &an->windows[k];
		int ok = !((degraded ? w->bad_degraded : w->bad_steady) & mask);
		if (w->end_ns > limit_ns)
			return -1;
		if ((w->resume_span && !ok) || w->saturated)
			continue; /* the harness disturbed it, or measured itself */
		run = ok ? run + 1 : 0;
		if (run == hold)
			return k - hold + 1;
	}
	return -1;
}

int gl_fault_degrades(int64_t ti, int64_t tr, int64_t settle_ns, int64_t start, int64_t end)
{
	return ti >= 0 && ti < end && (tr < 0 || start < tr + settle_ns);
}

int gl_fault_explains(int64_t ti, int64_t tr, int64_t settle_ns, int64_t start, int64_t end)
{
	return gl_fault_degrades(ti, tr, settle_ns, start, end) ||
	       (ti >= 0 && ti < end && tr >= 0 && start <= tr + GL_FAULT_TEARDOWN_NS);
}

int64_t gl_fault_settle_ns(const struct gl_scenario *s, const char *id)
{
	for (int i = 0; i < s->n_faults; i++)
		if (!strcmp(s->faults[i].id, id))
			return s->faults[i].settle_ns;
	return GL_SETTLE_WINDOWS * s->window_ns;
}

/* Seconds from t to the start of window k: 0 when k is k0 (the window
 * holding t) or starts at or before t. */
static double since(const struct gl_analysis *an, int k, int k0, int64_t t)
{
	int64_t s = an->windows[k].start_ns;
	return k == k0 || s <= t ? 0 : (double)(s - t) / 1e9;
}

/* The time, from t up to window k, of the windows a resume disturbed: a
 * settle is longer by it (the time the harness took from the workloads
 * is not the fault's). */
static int64_t resume_ns(const struct gl_analysis *an, int64_t t, int k)
{
	int64_t ns = 0;

	for (int j = 0; j < k && j < an->n_windows; j++)
		if (an->windows[j].resume_span && an->windows[j].start_ns >= t)
			ns += an->windows[j].end_ns - an->windows[j].start_ns;
	return ns;
}

/* The windows each resume disturbed: from the one its resume point falls
 * in, for a default settle (GL_SETTLE_WINDOWS windows) after it. They are
 * judged in their scope as any other (what the cluster did meanwhile
 * counts: an XID, an error); only the recovery search passes over them
 * when unhealthy. */
static void mark_resumes(struct gl_analysis *an)
{
	int64_t span = GL_SETTLE_WINDOWS * an->sc->window_ns;

	for (int i = 0; i < an->n_outages; i++) {
		int64_t at = an->outages[i].at_elapsed_ns;
		for (int w = 0; w < an->n_windows; w++) {
			struct gl_window_info *x = &an->windows[w];
			if (x->end_ns > at && x->start_ns < at + span)
				x->resume_span = 1;
		}
	}
}

/* A fault reverted at tr and not restored: unrestored when its settle
 * ended before the bound (the steady targets had windows to hold in, and
 * did not). Its incident: from the first window after the settle to the
 * one before its late restore, or the last before the bound. */
static void mark_unrestored(const struct gl_analysis *an, struct gl_fault_result *f, int64_t tr, int64_t settle,
			    int64_t limit)
{
	int w0 = window_at(an, tr), w1, r;

	while (w0 < an->n_windows && an->windows[w0].start_ns < tr + settle)
		w0++;
	f->unrestored = w0 < an->n_windows && an->windows[w0].start_ns < limit;
	if (!f->unrestored)
		return;
	for (w1 = w0; w1 + 1 < an->n_windows && an->windows[w1 + 1].start_ns < limit; w1++)
		;
	r = healthy_run(an, w0, 0, 0xffu, limit);
	if (r >= w0)
		w1 = r > w0 ? r - 1 : w0;
	f->unrestored_w0 = w0;
	f->unrestored_w1 = w1;
}

/* Why a fault's recovery or restore failed (late: its restore past the
 * settle, else -1; limit: the next fault's inject, or INT64_MAX). */
static void note_recovery(const struct gl_analysis *an, struct gl_fault_result *f, double late, int64_t limit)
{
	const char *bound = limit == INT64_MAX ? "the end of the run" : "the next fault";

	if (f->unrestored && late >= 0)
		snprintf(f->recovery_note, sizeof(f->recovery_note),
			 "restored %.3f s after the revert, past its settle of %.3f s", late, f->settle_s);
	else if (f->unrestored)
		snprintf(f->recovery_note, sizeof(f->recovery_note),
			 "not restored within its settle of %.3f s (no %d healthy windows in a row before %s)",
			 f->settle_s, an->sc->hold, bound);
	else if (f->restore_s >= 0 && f->recovery_s < 0)
		snprintf(f->recovery_note, sizeof(f->recovery_note),
			 "no %d windows in a row meeting the degraded targets, starting by the revert plus its "
			 "settle of %.3f s",
			 an->sc->hold, f->settle_s);
	else if ((f->recovery_s < 0 || f->restore_s < 0) && !f->recovery_note[0])
		snprintf(f->recovery_note, sizeof(f->recovery_note), "no %d healthy windows in a row before %s",
			 an->sc->hold, bound);
}

static void recovery(struct gl_analysis *an)
{
	for (int i = 0; i < an->n_faults; i++) {
		struct gl_fault_result *f = &an->faults[i];
		int64_t ti = f->row.injected_elapsed_ns, tr = f->row.reverted_elapsed_ns, limit = INT64_MAX;
		int64_t settle = gl_fault_settle_ns(an->sc, f->row.id);
		double late = -1;
		int k0, k;

		f->recovery_s = f->restore_s = -1;
		f->span_w0 = f->span_w1 = -1;
		f->settle_s = (double)settle / 1e9;
		for (int wl = 0; wl < GL_MAX_WORKLOADS; wl++)
			f->wl_recovery_s[wl] = f->wl_restore_s[wl] = -1;
		if (ti < 0) {
			snprintf(f->recovery_note, sizeof(f->recovery_note), "never injected (%s)",
				 gl_fault_state_name(f->row.state));
			continue;
		}
		/* The next fault's inject bounds this fault's recovery. */
		for (int j = 0; j < an->n_faults; j++) {
			int64_t tj = an->faults[j].row.injected_elapsed_ns;
			if (j != i && tj > ti && tj < limit)
				limit = tj;
		}
		k0 = window_at(an, ti);
		if (f->row.dur_ns == 0 && tr < 0)
			tr = ti; /* instantaneous: restore counts from the inject */
		if (tr < 0)
			snprintf(f->recovery_note, sizeof(f->recovery_note), "not reverted (%s)",
				 gl_fault_state_name(f->row.state));
		/* mask = every workload (the fault's figures), then each alone.
		 * Both runs must start by the revert plus the settle: after it
		 * the windows are judged steady again. */
		for (int wl = -1; wl < an->sc->n_workloads && wl < GL_MAX_WORKLOADS; wl++) {
			unsigned mask = wl < 0 ? 0xffu : 1u << wl;
			double rec = -1, res = -1;
			k = healthy_run(an, k0, 1, mask, limit);
			if (k >= 0) {
				rec = since(an, k, k0, ti);
				if (tr >= 0 && an->windows[k].start_ns > tr + settle + resume_ns(an, tr, k) && k != k0)
					rec = -1;
			}
			if (tr >= 0) {
				int r0 = window_at(an, tr);
				k = healthy_run(an, r0, 0, mask, limit);
				if (k >= 0) {
					res = since(an, k, r0, tr);
					if (res * 1e9 > (double)(settle + resume_ns(an, tr, k))) {
						if (wl < 0)
							late = res;
						res = -1;
					}
				}
			}
			if (wl < 0) {
				f->recovery_s = rec;
				f->restore_s = res;
			} else {
				f->wl_recovery_s[wl] = rec;
				f->wl_restore_s[wl] = res;
			}
		}
		if (tr >= 0 && f->restore_s < 0)
			mark_unrestored(an, f, tr, settle, limit);
		note_recovery(an, f, late, limit);
		/* Scope and what the fault explains: fixed by its times and
		 * settle (gl_fault_degrades), never by health, so that a fault
		 * that never restores does not relabel the rest of the run */
		for (int w = k0; w < an->n_windows; w++) {
			struct gl_window_info *x = &an->windows[w];
			if (gl_fault_degrades(ti, tr, settle, x->start_ns, x->end_ns)) {
				x->scope = GL_SCOPE_DEGRADED;
				f->degraded_windows++;
			}
			if (gl_fault_explains(ti, tr, settle, x->start_ns, x->end_ns)) {
				x->fault_span = 1;
				f->span_w0 = f->span_w0 < 0 ? w : f->span_w0;
				f->span_w1 = w;
			} else if (tr >= 0)
				break;
		}
	}
}

static void judge_targets(struct gl_analysis *an)
{
	const struct gl_scenario *s = an->sc;
	int judged[3] = { 0 };

	for (int i = 0; i < an->n_windows; i++)
		if (an->windows[i].scope <= GL_SCOPE_DEGRADED && !an->windows[i].saturated)
			judged[an->windows[i].scope]++;
	an->targets = calloc((size_t)s->n_targets + 1, sizeof(*an->targets));
	an->n_targets = s->n_targets;
	for (int i = 0; i < s->n_targets; i++) {
		const struct gl_target_spec *t = &s->targets[i];
		struct gl_target_result *r = &an->targets[i];
		r->spec = t;
		if (t->missing) {
			snprintf(r->note, sizeof(r->note), "missing threshold: a missing threshold is a failed gate");
			continue;
		}
		if (t->scope == GL_SCOPE_RECOVERY &&
		    (!strcmp(t->metric, "recovery_s") || !strcmp(t->metric, "restore_s"))) {
			int is_rec = !strcmp(t->metric, "recovery_s"), n = 0;
			double worst = 0;
			r->has = 1;
			for (int f = 0; f < an->n_faults; f++) {
				double v = is_rec ? an->faults[f].recovery_s : an->faults[f].restore_s;
				if (v < 0) {
					r->has = 0;
					snprintf(r->note, sizeof(r->note), "fault '%s': %s", an->faults[f].row.id,
						 an->faults[f].recovery_note);
					break;
				}
				if (v > worst)
					worst = v;
				n++;
			}
			if (an->n_faults == 0) {
				r->has = 0;
				snprintf(r->note, sizeof(r->note), "no fault was injected");
			}
			r->measured = worst;
			r->windows_judged = n;
		} else {
			const struct gl_agg *a = t->scope == GL_SCOPE_RECOVERY ? an->all : an->scope[t->scope];
			r->windows_judged = t->scope == GL_SCOPE_RECOVERY ? an->n_windows : judged[t->scope];
			r->has = gl_agg_eval(a, t->metric, &r->measured) == 0;
			if (!r->has)
				snprintf(r->note, sizeof(r->note), "no data in the %d window(s) judged as %s",
					 r->windows_judged, gl_scope_name(t->scope));
		}
		r->pass = r->has && gl_cmp_eval(t->expr.op, r->measured, t->expr.threshold);
	}
}

/* ---- outages ------------------------------------------------------------- */

/* A fault's own record of its end, from what its steps measured
 * (self_reverted_s: faults/deadman.h, the dead-man's switch); -1 none. */
static double self_reverted_s(const struct gl_fault_row *r)
{
	cJSON *m = r->measured[0] ? cJSON_Parse(r->measured) : NULL;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "self_reverted_s");
	double s = cJSON_IsNumber(v) && v->valuedouble >= 0 ? v->valuedouble : -1;

	cJSON_Delete(m);
	return s;
}

static int load_outages(struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	struct gl_outage_row *rows;
	int n;

	if (gl_store_outage_list(st, &rows, &n, err))
		return -GL_EIO;
	an->outages = calloc((size_t)n + 1, sizeof(*an->outages));
	if (!an->outages) {
		free(rows);
		return gl_errf(err, GL_ENOMEM, "analysis: out of memory");
	}
	for (int i = 0; i < n; i++) {
		struct gl_outage *o = &an->outages[i];
		o->resume = rows[i].resume;
		o->at_elapsed_ns = rows[i].at_elapsed_ns;
		o->down_wall_ns = rows[i].down_wall_ns;
		o->resumed_wall_ns = rows[i].resumed_wall_ns;
		o->down_s = o->down_wall_ns > 0 && o->resumed_wall_ns >= o->down_wall_ns
				    ? (double)(o->resumed_wall_ns - o->down_wall_ns) / 1e9
				    : -1;
		if (o->down_s > 0)
			an->outage_s += o->down_s;
	}
	an->n_outages = n;
	free(rows);
	/* each fault's real time injected: its elapsed span plus the
	 * outages inside it (the clock stood still, the fault did not), or,
	 * when it recorded its own end and an outage lay inside it, that end:
	 * what the host saw, not when the controller came back */
	for (int i = 0; i < an->n_faults; i++) {
		struct gl_fault_result *f = &an->faults[i];
		int64_t a = f->row.injected_elapsed_ns, b = f->row.reverted_elapsed_ns, e;
		double left, part = 0;
		int inside = 0;
		f->planned_held_s = an->run.time_scale > 0 ? (double)f->row.dur_ns / an->run.time_scale / 1e9 : 0;
		f->held_s = -1;
		f->ended_outage = -1;
		f->self_s = self_reverted_s(&f->row);
		if (a < 0)
			continue;
		if (b < 0)
			b = f->row.dur_ns == 0 ? a : an->run.elapsed_ns;
		f->held_s = (double)(b - a) / 1e9;
		for (int k = 0; k < an->n_outages; k++) {
			const struct gl_outage *o = &an->outages[k];
			if (o->down_s > 0 && o->at_elapsed_ns >= a && o->at_elapsed_ns <= b && f->row.dur_ns > 0) {
				f->outage_s += o->down_s;
				inside = 1;
			}
		}
		f->held_s += f->outage_s;
		if (!inside || f->self_s < 0)
			continue;
		/* walk the run's clock from the inject, outages in order, until the fault's own end */
		f->self_ended = 1;
		e = a;
		left = f->self_s;
		for (int k = 0; k < an->n_outages && left > 0; k++) {
			const struct gl_outage *o = &an->outages[k];
			double pre;
			if (!(o->down_s > 0 && o->at_elapsed_ns >= a && o->at_elapsed_ns <= b))
				continue;
			pre = (double)(o->at_elapsed_ns - e) / 1e9;
			if (left <= pre)
				break; /* it ended before this outage */
			left -= pre;
			e = o->at_elapsed_ns;
			if (left <= o->down_s) {
				part += left;
				f->ended_outage = k;
				f->ended_into_s = left;
				left = 0; /* the clock stood at the outage's start */
				break;
			}
			part += o->down_s;
			left -= o->down_s;
		}
		f->self_end_elapsed_ns = e + (int64_t)llround(left * 1e9);
		f->held_s = f->self_s;
		f->outage_s = part;
	}
	return 0;
}

/* The journal's faults, into an->faults (their plans owned there). */
static int load_faults(struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	struct gl_fault_row *rows;
	int n, rc;

	if ((rc = gl_store_fault_list(st, &rows, &n, err)))
		return rc;
	an->faults = calloc((size_t)n + 1, sizeof(*an->faults));
	for (int i = 0; i < n; i++) {
		an->faults[i].row = rows[i];
		if (gl_fault_state_live(rows[i].state))
			an->faults_left_injected++;
	}
	an->n_faults = n;
	free(rows);
	return 0;
}

/* Pass 1: each window's health per workload and its incident bits. */
static int judge_windows(struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	struct pass1_arg p1 = { .an = an };
	struct window_target *wt = window_targets(an->sc, &p1.n);
	int rc;

	p1.wt = wt;
	p1.series = wt ? target_series(wt, p1.n) : NULL;
	if (!wt || !p1.series)
		rc = gl_errf(err, GL_ENOMEM, "analysis: out of memory");
	else
		rc = each_window(st, an->windows, an->n_windows, p1.series, pass1, &p1, err);
	free(p1.series);
	free(wt);
	return rc;
}

/* The floors' figures of the first workload in the scenario that declares
 * them (plugin.h: floor_read, floor_write): 1, or 0 when none does. */
static int floor_targets(const struct gl_scenario *sc, struct gl_target_name *read, struct gl_target_name *write)
{
	const struct gl_workload_ops *w;
	char why[256];

	for (size_t i = 0; (w = gl_workload_at(i)); i++)
		if (w->floor_read && w->floor_write && gl_scenario_workload(sc, w->name))
			return !gl_catalog_parse_target(w->floor_read, read, why, sizeof(why)) &&
			       !gl_catalog_parse_target(w->floor_write, write, why, sizeof(why));
	return 0;
}

/* Pass 2: the run, phase and scope aggregates, floors, incidents' figures. */
static int aggregate(struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	struct pass2_arg p2 = { 0, { 0 }, { 0 }, NULL, 0, 0, an, 0 };
	int rc;

	an->all = gl_agg_new();
	an->phase = calloc((size_t)an->sc->n_phases + 1, sizeof(*an->phase));
	for (int i = 0; i < an->sc->n_phases; i++)
		an->phase[i] = gl_agg_new();
	for (int i = 0; i < 3; i++)
		an->scope[i] = gl_agg_new();
	p2.floors = floor_targets(an->sc, &p2.read, &p2.write);
	rc = each_window(st, an->windows, an->n_windows, NULL, pass2, &p2, err);
	if (rc == 0)
		rc = flush_stretch(an, &p2);
	gl_agg_free(p2.stretch);
	for (int i = 0; i < 3 && rc == 0; i++)
		rc = gl_agg_merge(an->all, an->scope[i]);
	/* merges fail only for memory; a corrupt blob has said so itself */
	if (rc && (!err || !err->code))
		rc = gl_errf(err, GL_ENOMEM, "analysis: out of memory");
	return rc;
}

static enum gl_verdict verdict(const struct gl_analysis *an)
{
	int all_pass = an->edge_failed == 0; /* and every target, and no fault failed */

	for (int i = 0; i < an->n_targets; i++)
		all_pass &= an->targets[i].pass;
	for (int i = 0; i < an->n_faults; i++)
		if (an->faults[i].row.state == GL_FAULT_FAILED)
			all_pass = 0;
	if (!strcmp(an->run.state, "aborted"))
		return GL_VERDICT_ABORTED;
	if (!strcmp(an->run.state, "finished") && all_pass && an->faults_left_injected == 0 && an->n_targets > 0 &&
	    an->preflight_failed == 0 && !an->incidents_failed && an->gates_failed == 0 && !an->suspects_failed)
		return GL_VERDICT_PASS;
	return GL_VERDICT_FAIL;
}

int gl_analyze(struct gl_store *st, struct gl_analysis **out, struct gl_err *err)
{
	struct gl_analysis *an = calloc(1, sizeof(*an));
	struct gl_diag d;
	int rc = 0;

	*out = NULL;
	if (!an)
		return gl_errf(err, GL_ENOMEM, "analysis: out of memory");
	if ((rc = gl_store_run_load(st, &an->run, err)))
		goto out;
	/* Rebuild the scenario exactly as the run saw it. */
	an->sc = gl_scenario_from_store(st, &an->run, &d);
	if (!an->sc || d.n_errors - (an->sc ? an->sc->n_missing : 0) > 0) {
		rc = gl_errf(err, GL_ESTATE, "store: the stored scenario no longer validates:\n%s",
			     d.text.data ? d.text.data : "");
		gl_diag_free(&d);
		goto out;
	}
	gl_diag_free(&d);
	{
		struct gl_err nerr = { 0 }; /* a store without it (older runs) has none */
		gl_store_doc_get(st, "notify", &an->notify, &nerr);
	}
	if ((rc = gl_windows_load(st, &an->windows, &an->n_windows, err)) ||
	    (rc = gl_analysis_load_checks(st, an, err)))
		goto out;
	for (int i = 0; i < an->n_windows; i++) {
		int p = an->windows[i].phase;
		an->windows[i].scope = p >= 0 && p < an->sc->n_phases ? an->sc->phases[p].scope : GL_SCOPE_NONE;
		an->duration_s += (double)(an->windows[i].end_ns - an->windows[i].start_ns) / 1e9;
	}
	if ((rc = load_faults(st, an, err)) || (rc = judge_windows(st, an, err)) || (rc = load_outages(st, an, err)))
		goto out;
	mark_resumes(an);
	recovery(an);
	if ((rc = gl_incidents_find(an, err)) || (rc = aggregate(st, an, err)))
		goto out;
	judge_targets(an);
	if ((rc = gl_drift_judge(an, err)) || (rc = gl_incidents_describe(st, an, err)))
		goto out;
	if ((rc = gl_nodes_analyze(st, an, err)) || (rc = gl_edge_analyze(st, an, err)))
		goto out;
	gl_saturation_judge(an);
	gl_sessions_judge(an);
	an->verdict = verdict(an);
out:
	if (rc) {
		gl_analysis_free(an);
		return rc;
	}
	*out = an;
	return 0;
}

void gl_analysis_free(struct gl_analysis *a)
{
	if (!a)
		return;
	gl_run_row_free(&a->run);
	free(a->notify);
	if (a->phase && a->sc)
		for (int i = 0; i < a->sc->n_phases; i++)
			gl_agg_free(a->phase[i]);
	free(a->phase);
	gl_drift_free(a);
	free(a->sess_p50);
	gl_scenario_free(a->sc);
	free(a->windows);
	gl_agg_free(a->all);
	for (int i = 0; i < 3; i++)
		gl_agg_free(a->scope[i]);
	for (int i = 0; i < a->n_faults; i++)
		free(a->faults[i].row.plan);
	free(a->faults);
	free(a->targets);
	free(a->preflight);
	for (int i = 0; i < a->n_gates; i++)
		free(a->gates[i].results);
	free(a->gates);
	free(a->incidents);
	free(a->outages);
	free(a->nodes);
	free(a->suspects);
	gl_analysis_docs_free(a);
	free(a);
}
