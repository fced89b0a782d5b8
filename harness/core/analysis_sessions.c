/*
 * analysis_sessions.c - after each fault, how the TTFT of conversations
 * that were already going came back (docs/metrics.md, "Sessions after a
 * fault"). A server that restarts, drains or swaps its model loses its
 * prefix cache: the next turn of every conversation it held computes its
 * whole history again, and its first token is late by that much until the
 * turn after refills the cache.
 *
 * Pass 2 hands each window's figures here (gl_sessions_take): the median
 * of the later turns' TTFT (plugin.h: session_ttft), one double a window,
 * none for a saturated window. Then per fault (gl_sessions_judge):
 *   before    the median of those medians over the steady windows that
 *             ended by its inject, the last GL_SESS_BEFORE of them (3 at
 *             least, else no figure);
 *   peak      the highest window median from the window of its end
 *             (revert, or inject for an instantaneous one) until it was
 *             back;
 *   back      the first window from that one whose median is within
 *             GL_SESS_BACK of before (and GL_SESS_BACK_MS); recovery_s
 *             runs from the fault's end to that window's end, bounded by
 *             the next fault's inject (none by then: no figure, a note).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis_int.h"
#include "plugin.h"

#define GL_SESS_BEFORE 30
#define GL_SESS_BACK 1.25 /* back: at most 25 % above before ... */
#define GL_SESS_BACK_MS 2.0 /* ... or 2 ms, whichever is more */

static const char *session_figure(const struct gl_analysis *an)
{
	const struct gl_workload_ops *ops;

	for (size_t i = 0; (ops = gl_workload_at(i)); i++)
		if (ops->session_ttft && gl_scenario_workload(an->sc, ops->name))
			return ops->session_ttft;
	return NULL;
}

void gl_sessions_take(struct gl_analysis *an, int wi, const struct gl_agg *w)
{
	const char *name = an->n_faults ? session_figure(an) : NULL;
	const struct gl_hist *h = name ? gl_agg_hist(w, name) : NULL;

	if (!h || gl_hist_count(h) == 0 || an->windows[wi].saturated)
		return;
	if (!an->sess_p50) {
		if (!(an->sess_p50 = malloc((size_t)an->n_windows * sizeof(double))))
			return; /* no figure: the reports say none was measured */
		for (int i = 0; i < an->n_windows; i++)
			an->sess_p50[i] = NAN;
	}
	an->sess_p50[wi] = gl_hist_percentile(h, 50);
}

static void judge_one(const struct gl_analysis *an, struct gl_fault_result *f, int64_t limit)
{
	struct gl_session_recovery *s = &f->sessions;
	int64_t ti = f->row.injected_elapsed_ns, te = f->row.reverted_elapsed_ns;
	double v[GL_SESS_BEFORE];
	int n = 0, k;

	if (te < 0 && f->row.dur_ns == 0)
		te = ti; /* instantaneous */
	for (k = an->n_windows - 1; k >= 0 && n < GL_SESS_BEFORE; k--) {
		const struct gl_window_info *w = &an->windows[k];
		if (w->end_ns <= ti && w->scope == GL_SCOPE_STEADY && !isnan(an->sess_p50[k]))
			v[n++] = an->sess_p50[k];
	}
	s->windows_before = n;
	if (n < 3) {
		snprintf(s->note, sizeof(s->note), "%d steady window(s) with later turns before the inject, 3 needed",
			 n);
		return;
	}
	s->before_ms = gl_median(v, n);
	if (te < 0) {
		snprintf(s->note, sizeof(s->note), "not reverted");
		return;
	}
	for (k = 0; k < an->n_windows && an->windows[k].end_ns <= te; k++)
		; /* from the window it ended in */
	for (; k < an->n_windows && an->windows[k].end_ns <= limit; k++) {
		double x = an->sess_p50[k];
		if (isnan(x))
			continue;
		if (s->first_ms < 0)
			s->first_ms = x;
		if (x > s->peak_ms)
			s->peak_ms = x;
		if (x <= fmax(s->before_ms * GL_SESS_BACK, s->before_ms + GL_SESS_BACK_MS)) {
			s->recovery_s = (double)(an->windows[k].end_ns - te) / 1e9;
			return;
		}
	}
	snprintf(s->note, sizeof(s->note), "later turns not back within 25 %% of before (%.1f ms) by %s", s->before_ms,
		 limit == INT64_MAX ? "the end of the run" : "the next fault");
}

void gl_sessions_judge(struct gl_analysis *an)
{
	for (int i = 0; i < an->n_faults; i++) {
		struct gl_fault_result *f = &an->faults[i];
		int64_t limit = INT64_MAX;

		f->sessions = (struct gl_session_recovery){
			.before_ms = -1, .first_ms = -1, .peak_ms = -1, .recovery_s = -1
		};
		if (!an->sess_p50 || f->row.injected_elapsed_ns < 0)
			continue;
		f->sessions.has = 1;
		for (int j = 0; j < an->n_faults; j++) {
			int64_t tj = an->faults[j].row.injected_elapsed_ns;
			if (j != i && tj > f->row.injected_elapsed_ns && tj < limit)
				limit = tj;
		}
		judge_one(an, f, limit);
	}
}
