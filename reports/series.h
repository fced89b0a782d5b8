/*
 * series.h - per-window time series for the charts of report.html and for
 * timeseries.csv, read from the store in one pass.
 *
 * A series is a target-style name ("inference.ttft_ms.p99") evaluated in
 * every window by the rules analysis judges targets with (gl_agg_eval's:
 * nearest-rank percentiles of the window's histogram, ratios of its
 * counters, rates over its real seconds end_ns - start_ns). A window
 * without data for a series holds NaN.
 *
 * Which series: the list each workload the scenario has declares (its
 * figures' series, figures.h; in the registry's order: TTFT p50
 * and p99, error rate and throughput for inference; step time p50 and p95
 * and bus bandwidth p50 for training; read and write GB/s for storage; tick
 * lag p99 for null), then every steady or degraded target of the scenario
 * that is not already in the list, so that no judged metric goes unseen.
 *
 * Memory: one double per series per window (168 h of 10 s windows and ten
 * series: 4.8 MB), nothing else per window; the windows themselves (times,
 * phase, scope) are the analysis's, borrowed.
 */
#ifndef GL_SERIES_H
#define GL_SERIES_H

#include <cjson/cJSON.h>
#include "store.h"

#include "analysis.h"
#include "util.h"

#define GL_SERIES_NAME_MAX 128

struct gl_series {
	char name[GL_SERIES_NAME_MAX]; /* "inference.ttft_ms.p99" */
	char chart_id[GL_SERIES_NAME_MAX + 8]; /* "chart-inference-ttft_ms-p99" */
	const struct gl_metric_def *def; /* catalog entry of the metric */
	int from_target; /* added because a target names it */
	/* the target judging it in each scope (index enum gl_scope), NULL
	 * when none (missing thresholds are none: nothing to draw) */
	const struct gl_target_spec *target[3];
	double *v; /* [n_windows]; NaN: no data */
	int n_data; /* windows with a value */
	double min, max; /* over the values (0 when n_data == 0) */
};

struct gl_series_set {
	const struct gl_window_info *win; /* = an->windows (borrowed) */
	int n_windows; /* = an->n_windows */
	struct gl_series *s;
	int n;
};

/* Read the series of every window of an (an->windows, in index order) from
 * the store: one pass over the windows' figures (gl_store_figs),
 * deserializing only the histograms the series need. Metric rows of windows the analysis did not
 * see (a run still writing) are ignored. Returns the set (free with
 * gl_series_free; it borrows an->windows, so free it before an), or NULL
 * with err filled. Loop thread / any single thread. */
struct gl_series_set *gl_series_load(struct gl_store *st, const struct gl_analysis *an, struct gl_err *err);
void gl_series_free(struct gl_series_set *ss); /* NULL is fine */
/* The same list of series, names and definitions only (no values, no
 * windows): for tables over aggregates, such as report.md's phases. */
struct gl_series_set *gl_series_names(const struct gl_analysis *an);

/* The series named name, or NULL. */
const struct gl_series *gl_series_find(const struct gl_series_set *ss, const char *name);

/* 1 when window w of the series misses the target in force for it (the
 * target of the scope the window was judged in; no data counts as missed,
 * as in analysis), else 0. */
int gl_series_violates(const struct gl_series_set *ss, const struct gl_series *s, int w);

/* Run elapsed time (ns) to scenario time (ns), interpolated within the
 * window that holds it; past the last window, extrapolated at the run's
 * time scale. */
double gl_series_elapsed_to_scn(const struct gl_analysis *an, int64_t elapsed_ns);

/* ---- renderers over a series set (report_csv.c, report_html.c) ---------- */

/* timeseries.csv into out: a header row, then one row per window of an,
 * in index order; fields with a comma, quote or line break are quoted as
 * in RFC 4180, lines end in LF:
 *   idx          window index in the store
 *   start_s      real (elapsed) start of the window, seconds since the run began
 *   end_s        real end
 *   scn_start_s  scenario-time start (timeline; = real x --time-scale)
 *   scn_end_s    scenario-time end
 *   phase        phase name ("" when outside every phase)
 *   scope        scope the window was judged in: none | steady | degraded
 *   complete     1 for a closed window, 0 for one still filling
 *   then one column per series of ss, named as the series
 *   ("inference.ttft_ms.p99", ...), empty where the window has no data.
 * Returns 0, or a negative code when out would pass its cap. */
int gl_report_csv(const struct gl_analysis *an, const struct gl_series_set *ss, struct gl_buf *out);

/* report.html into out: one self-contained file (inline CSS and SVG, no
 * script, no URL of any kind): verdict banner, targets (missing shows as a
 * failure), one chart per series over scenario time (phases as bands,
 * faults shaded from inject to revert with recovery and restore marked,
 * thresholds dashed, long series drawn as min/max envelopes with the mean,
 * every window that misses its target marked red), faults, phases,
 * preflight, run facts, manifest (may be NULL) and the metric definitions.
 * Size is bounded by the chart resolution, not by the number of windows.
 * Returns 0, or a negative code when out would pass its cap. */
int gl_report_html(const struct gl_analysis *an, const struct gl_series_set *ss, const cJSON *manifest,
		   struct gl_buf *out);

#endif
