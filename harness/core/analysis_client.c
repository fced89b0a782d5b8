/*
 * analysis_client.c - windows where a workload's load generator had no
 * headroom (plugin.h: saturated, agents_needed; docs/metrics.md, "Client
 * saturation"). Such a window measured the client, not the cluster: no
 * target judges it (it joins no scope's and no phase's figures, only the
 * run's totals), a recovery search passes over it, and the reports count
 * it with the load agents the load needs.
 */
#include "analysis_int.h"
#include "plugin.h"

int gl_saturation_series(const char **out)
{
	const struct gl_workload_ops *w;
	int n = 0;

	for (size_t i = 0; (w = gl_workload_at(i)); i++)
		if (w->saturated) {
			if (out)
				out[n] = w->saturated;
			n++;
		}
	return n;
}

int gl_window_saturated(const struct gl_agg *w)
{
	const struct gl_workload_ops *ops;
	int found;

	for (size_t i = 0; (ops = gl_workload_at(i)); i++)
		if (ops->saturated && gl_agg_counter(w, ops->saturated, &found) > 0 && found)
			return 1;
	return 0;
}

void gl_saturation_judge(struct gl_analysis *an)
{
	const struct gl_workload_ops *ops;

	an->saturated_windows = 0;
	for (int i = 0; i < an->n_windows; i++)
		an->saturated_windows += an->windows[i].saturated;
	an->generator_saturated = an->saturated_windows > 0;
	an->agents_needed = 0;
	for (size_t i = 0; (ops = gl_workload_at(i)); i++) {
		const struct gl_hist *h = ops->agents_needed ? gl_agg_hist(an->all, ops->agents_needed) : NULL;
		if (h && gl_hist_count(h) > 0 && gl_hist_max(h) > an->agents_needed)
			an->agents_needed = (int)gl_hist_max(h);
	}
}
