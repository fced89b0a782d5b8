/*
 * scenario_fit.c - the timeline against the analysis: can every fault's
 * recovery_s and restore_s, and every steady and degraded target, be judged
 * by `hold` consecutive windows at the time scale? (validate and run, once
 * the scenario is otherwise valid; see the comment below.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_parts.h"
#include "timeline.h"
#include "units.h"

/* ---- windows x hold against the timeline (validate, run) --------------------
 *
 * The analysis (analysis.c) judges real-time windows: window k covers
 * [k*window, (k+1)*window) of elapsed real time from the run's start, the
 * last one cut at the run's end, and each is labelled with the phase in
 * force at its start. A
 * fault's recovery_s needs `hold` consecutive windows, from the one holding
 * its inject, all ending by the next fault's inject (the run's end for the
 * last); restore_s the same from the window holding its revert. A steady
 * (degraded) target needs a window judged in its scope: one labelled with
 * a phase of that scope, and not in a fault's degraded span (from its
 * inject window to the last window starting before its revert plus its
 * settle: analysis.h).
 *
 * Judged on the schedule (every step and commit on time, which is the best
 * case: a late inject or revert only moves its window later; a phase at a
 * window's labelling instant may give it either label); refused only what
 * can then never pass and would pass at a lower time scale. What can never
 * pass at any scale is a choice of the scenario's (a fault reverted as, or
 * after, the next one is injected, or at the run's end; a steady phase
 * that faults cover): a warning, not refused. */
struct fit_fault {
	int i; /* index in s->faults */
	int64_t ti, tr; /* real inject and revert */
};

static int cmp_fit_fault(const void *a, const void *b)
{
	const struct fit_fault *x = a, *y = b;
	if (x->ti != y->ti)
		return x->ti < y->ti ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

struct fit {
	int64_t W, E, nwin;
	int hold;
	double sc;
};

/* analysis.c window_at: the first window ending after t (nwin: none). */
static int64_t fit_at(const struct fit *f, int64_t t)
{
	return t >= f->E ? f->nwin : t / f->W;
}

/* How many consecutive windows from k0 end by limit (INT64_MAX: any). */
static int64_t fit_count(const struct fit *f, int64_t k0, int64_t limit)
{
	int64_t last = f->nwin - 1;
	if (limit < f->E)
		last = limit / f->W - 1; /* (k+1)W <= limit; the last window ends at E > limit */
	return last >= k0 ? last - k0 + 1 : 0;
}

static void fit_secs(int64_t ns, char *buf, size_t n)
{
	snprintf(buf, n, "%.9g s", (double)ns / 1e9);
}

static void check_fault_fit(struct gl_scenario *s, const struct fit *w, struct gl_diag *d)
{
	struct fit_fault *ff = calloc((size_t)s->n_faults + 1, sizeof(*ff));
	char p[GL_NAME_MAX + 32], a[64], b[64], c[64], ws[64], bound[GL_NAME_MAX + 96];

	if (!ff)
		return;
	for (int i = 0; i < s->n_faults; i++) {
		const struct gl_fault_spec *f = &s->faults[i];
		ff[i].i = i;
		ff[i].ti = gl_timeline_real_ns(f->at_ns, w->sc);
		ff[i].tr = f->dur_ns > 0 ? gl_timeline_real_ns(f->at_ns + f->dur_ns, w->sc) : ff[i].ti;
	}
	qsort(ff, (size_t)s->n_faults, sizeof(*ff), cmp_fit_fault);
	fit_secs(w->W, ws, sizeof(ws));
	for (int k = 0, nx = 0; k < s->n_faults; k++) {
		const struct gl_fault_spec *f = &s->faults[ff[k].i];
		const struct gl_fault_spec *next;
		int64_t limit, gap_scn, k0, r0, n;

		/* the bound: the earliest inject strictly after this one */
		if (nx <= k)
			nx = k + 1;
		while (nx < s->n_faults && ff[nx].ti <= ff[k].ti)
			nx++;
		next = nx < s->n_faults ? &s->faults[ff[nx].i] : NULL;
		limit = next ? ff[nx].ti : INT64_MAX;
		snprintf(p, sizeof(p), "faults[%d]", ff[k].i);
		if (next) {
			fit_secs(limit, b, sizeof(b));
			snprintf(bound, sizeof(bound), "the next fault's inject ('%s' at %s)", next->id, b);
		} else {
			fit_secs(w->E, b, sizeof(b));
			snprintf(bound, sizeof(bound), "the run's end (at %s)", b);
		}
		k0 = fit_at(w, ff[k].ti);
		n = fit_count(w, k0, limit);
		if (n < w->hold) {
			fit_secs(ff[k].ti, a, sizeof(a));
			fit_secs((next ? limit : w->E) - ff[k].ti, c, sizeof(c));
			gl_diag_error(d, f->json, p,
				      "fault '%s': recovery_s needs hold %d consecutive windows of %s, from the one "
				      "holding its inject (at %s of real time) to %s, but at time scale %g those "
				      "%s of real time hold only %lld such window(s) (windows start every %s from "
				      "the run's start): it can never pass; use a lower --time-scale, a longer gap "
				      "after this fault, or a smaller window or hold",
				      f->id, w->hold, ws, a, bound, w->sc, c, (long long)n, ws);
			continue;
		}
		gap_scn = (next ? next->at_ns : s->duration_ns) - (f->at_ns + (f->dur_ns > 0 ? f->dur_ns : 0));
		fit_secs(ff[k].tr, a, sizeof(a));
		if (gap_scn <= 0) {
			/* never measured at any scale: the scenario's choice */
			gl_diag_warn(d, f->json, p,
				     "fault '%s': its restore_s cannot be measured: its revert (at %s of real time) "
				     "is not before %s, and restore_s counts only windows that end by then",
				     f->id, a, bound);
			continue;
		}
		r0 = fit_at(w, ff[k].tr);
		n = fit_count(w, r0, limit);
		if (n < w->hold) {
			fit_secs((next ? limit : w->E) - ff[k].tr, c, sizeof(c));
			gl_diag_error(d, f->json, p,
				      "fault '%s': restore_s needs hold %d consecutive windows of %s, from the one "
				      "holding its revert (at %s of real time) to %s, but at time scale %g those "
				      "%s of real time hold only %lld such window(s) (windows start every %s from "
				      "the run's start): it can never pass; use a lower --time-scale, a longer gap "
				      "after this fault, or a smaller window or hold",
				      f->id, w->hold, ws, a, bound, w->sc, c, (long long)n, ws);
		}
	}
	free(ff);
}

/* Window k takes the phase in force at its start (controller.c): the phase
 * of scenario time kW x scale, truncated and capped at the run's length,
 * as the controller computes it. */
static int64_t window_scn(const struct gl_scenario *s, const struct fit *w, int64_t k)
{
	long double t = (long double)(k * w->W) * w->sc;
	return t > (long double)s->duration_ns ? s->duration_ns : (int64_t)t;
}

/* The first window whose start is at scenario time T or later (nwin:
 * none); window_scn grows with k. */
static int64_t first_window_at(const struct gl_scenario *s, const struct fit *w, int64_t T)
{
	int64_t a = 0, b = w->nwin;

	while (a < b) {
		int64_t m = a + (b - a) / 2;
		if (window_scn(s, w, m) >= T)
			b = m;
		else
			a = m + 1;
	}
	return a;
}

/* The window indices [*lo, *hi] that phase p labels (lo > hi: none): those
 * starting in its span of scenario time; the last phase also takes what
 * starts at the run's end or later. */
static void phase_windows(const struct gl_scenario *s, const struct fit *w, int p, int64_t *lo, int64_t *hi)
{
	*lo = p == 0 ? 0 : first_window_at(s, w, s->phases[p].start_ns);
	*hi = (p == s->n_phases - 1 ? w->nwin : first_window_at(s, w, s->phases[p].start_ns + s->phases[p].dur_ns)) - 1;
}

/* Do faults (by_at: their indices in (at, index) order) cover scenario
 * time [t, end) from start to end, inject to revert? */
static int covered(const struct gl_scenario *s, const int *by_at, int64_t t, int64_t end)
{
	for (int k = 0; k < s->n_faults && t < end; k++) {
		const struct gl_fault_spec *f = &s->faults[by_at[k]];
		if (f->at_ns > t)
			return 0;
		if (f->dur_ns > 0 && f->at_ns + f->dur_ns > t)
			t = f->at_ns + f->dur_ns;
	}
	return t >= end;
}

struct span {
	int64_t lo, hi;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The windows of each fault's degraded span, from its inject window to
 * the last one starting before its revert plus its settle, sorted and
 * merged where they touch; their count in *n. NULL when out of memory. */
static struct span *fault_spans(const struct gl_scenario *s, const struct fit *w, int *n)
{
	struct span *fs = calloc((size_t)s->n_faults, sizeof(*fs));
	int n_fs = 0, m = 0;

	if (!fs)
		return NULL;
	for (int i = 0; i < s->n_faults; i++) {
		const struct gl_fault_spec *f = &s->faults[i];
		int64_t ti = gl_timeline_real_ns(f->at_ns, w->sc);
		int64_t tr = f->dur_ns > 0 ? gl_timeline_real_ns(f->at_ns + f->dur_ns, w->sc) : ti;
		int64_t end = tr + f->settle_ns;
		struct span sp = { fit_at(w, ti), end >= w->E ? w->nwin - 1 : (end + w->W - 1) / w->W - 1 };
		if (sp.lo <= sp.hi)
			fs[n_fs++] = sp;
	}
	qsort(fs, (size_t)n_fs, sizeof(*fs), cmp_span);
	for (int i = 0; i < n_fs; i++) {
		if (m && fs[i].lo <= fs[m - 1].hi + 1) {
			if (fs[i].hi > fs[m - 1].hi)
				fs[m - 1].hi = fs[i].hi;
		} else {
			fs[m++] = fs[i];
		}
	}
	*n = m;
	return fs;
}

/* Does a phase judged in scope label a window outside every fault span
 * of fs (n_fs, sorted)? Phases come in order: their window ranges never
 * go back. */
static int scope_has_window(const struct gl_scenario *s, const struct fit *w, enum gl_scope scope,
			    const struct span *fs, int n_fs)
{
	for (int p = 0, j = 0; p < s->n_phases; p++) {
		int64_t lo, hi;
		if (s->phases[p].scope != scope)
			continue;
		phase_windows(s, w, p, &lo, &hi);
		if (lo > hi)
			continue;
		while (j < n_fs && fs[j].hi < lo)
			j++;
		if (!(j < n_fs && fs[j].lo <= lo && fs[j].hi >= hi))
			return 1;
	}
	return 0;
}

/* No window can be judged in scope: say why, phase by phase (tn: the
 * scope's first target, by_at: the faults in (at, index) order or NULL). */
static void explain_no_window(const struct gl_scenario *s, const struct fit *w, enum gl_scope scope, const char *tn,
			      const int *by_at, struct gl_diag *d)
{
	const char *sn = gl_scope_name(scope);
	char ws[64], a[64], dur[64];

	fit_secs(w->W, ws, sizeof(ws));
	for (int p = 0; p < s->n_phases; p++) {
		const struct gl_phase *ph = &s->phases[p];
		int64_t lo, hi;
		int covered_scn;
		char path[64];
		if (ph->scope != scope)
			continue;
		/* the scenario's choice when faults cover the whole phase in
		 * scenario time (no scale would help) */
		covered_scn = scope == GL_SCOPE_STEADY && by_at &&
			      covered(s, by_at, ph->start_ns, ph->start_ns + ph->dur_ns);
		phase_windows(s, w, p, &lo, &hi);
		snprintf(path, sizeof(path), "phases[%d]", p);
		fit_secs(gl_timeline_real_ns(ph->start_ns + ph->dur_ns, w->sc) -
				 gl_timeline_real_ns(ph->start_ns, w->sc),
			 a, sizeof(a));
		gl_format_duration(ph->dur_ns, dur, sizeof(dur));
		if (covered_scn)
			gl_diag_warn(d, ph->json, s->phases[p].json ? path : "phases",
				     "phase '%s': faults cover it from start to end, so no window of it is judged %s "
				     "and the %s targets ('%s'...) can have no data there",
				     ph->name, sn, sn, tn);
		else if (lo > hi)
			gl_diag_error(
				d, ph->json, s->phases[p].json ? path : "phases",
				"phase '%s' (%s, judged %s) lasts %s of real time at time scale %g, and no window "
				"of %s takes it (windows start every %s from the run's start and take the phase "
				"in force at their start); no window of the "
				"run is judged %s, so the %s targets ('%s'...) can never have data: use a lower "
				"--time-scale, a longer phase or a smaller window",
				ph->name, dur, sn, a, w->sc, ws, ws, sn, sn, tn);
		else
			gl_diag_error(d, ph->json, s->phases[p].json ? path : "phases",
				      "phase '%s' (%s, judged %s) lasts %s of real time at time scale %g: the %lld "
				      "window(s) of %s that take it all lie between a fault's inject and its "
				      "revert plus its settle, judged degraded; no window of the run is judged %s, so "
				      "the %s targets "
				      "('%s'...) can never have data: use a lower --time-scale, a longer phase or "
				      "gaps between faults, or a smaller window",
				      ph->name, dur, sn, a, w->sc, (long long)(hi - lo + 1), ws, sn, sn, tn);
	}
}

/* Each scope with window targets needs a window judged in it. */
static void check_scope_fit(struct gl_scenario *s, const struct fit *w, enum gl_scope scope, struct gl_diag *d)
{
	struct span *fs = NULL;
	int n_fs = 0, any_target = 0, any_phase = 0, found;
	int *by_at = NULL;
	char tn[200] = "";

	for (int i = 0; i < s->n_targets; i++)
		if (s->targets[i].scope == scope && !s->targets[i].missing && !any_target++)
			snprintf(tn, sizeof(tn), "%s", s->targets[i].metric);
	for (int p = 0; p < s->n_phases; p++)
		any_phase |= s->phases[p].scope == scope;
	if (!any_target || !any_phase)
		return;
	if (scope == GL_SCOPE_DEGRADED && s->n_faults > 0)
		return; /* a fault's inject window is judged degraded */
	if (scope == GL_SCOPE_STEADY && s->n_faults > 0 && !(fs = fault_spans(s, w, &n_fs)))
		return;
	found = scope_has_window(s, w, scope, fs, n_fs);
	free(fs);
	if (found)
		return;
	if (s->n_faults > 0 && (by_at = calloc((size_t)s->n_faults, sizeof(*by_at)))) {
		for (int i = 0; i < s->n_faults; i++)
			by_at[i] = i;
		gl_scenario_sort_faults_at(s->faults, by_at, s->n_faults);
	}
	explain_no_window(s, w, scope, tn, by_at, d);
	free(by_at);
}

void gl_scenario_check_window_fit(struct gl_scenario *s, double sc, struct gl_diag *d)
{
	struct fit w;

	if (s->window_ns <= 0 || s->duration_ns <= 0 || s->n_phases <= 0)
		return;
	w.sc = sc > 0 ? sc : 1;
	w.W = s->window_ns;
	w.E = gl_timeline_real_ns(s->duration_ns, w.sc);
	w.hold = s->hold;
	if (w.E <= 0)
		return;
	w.nwin = (w.E + w.W - 1) / w.W;
	check_fault_fit(s, &w, d);
	check_scope_fit(s, &w, GL_SCOPE_STEADY, d);
	check_scope_fit(s, &w, GL_SCOPE_DEGRADED, d);
}
