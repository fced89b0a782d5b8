/*
 * analysis_int.h - what the analysis's files share (analysis.c, the
 * passes and the verdict; analysis_incidents.c, the incidents).
 */
#ifndef GL_ANALYSIS_INT_H
#define GL_ANALYSIS_INT_H

#include "analysis.h"

/* The counters that open an incident kind (gl_incident_bits reads them),
 * into out (NULL: only counted); returns how many. */
int gl_incident_openers(const char **out);
/* The incidents, once recovery() marked what the faults explain. */
int gl_incidents_find(struct gl_analysis *an, struct gl_err *err);
/* Window wi's figures into each incident that spans it (pass 2; *lo: the
 * first incident not yet behind). */
void gl_incidents_take(struct gl_analysis *an, int *lo, int wi, const struct gl_agg *w);
/* Each incident's text and its workload's first event in its span. */
int gl_incidents_describe(struct gl_store *st, struct gl_analysis *an, struct gl_err *err);
/* Window wi's values of the drift targets' figures (pass 2), once its
 * scope is known; then their fits judged into an->targets, after the
 * others (analysis_drift.c). */
void gl_drift_take(struct gl_analysis *an, int wi, const struct gl_agg *w);
int gl_drift_judge(struct gl_analysis *an, struct gl_err *err);
void gl_drift_free(struct gl_analysis *an);

/* Client saturation (analysis_client.c): the counters that mark a
 * window's generator saturated, into out (NULL: only counted); whether
 * window w's figures hold one; then the run's count of such windows, its
 * generator_saturated flag and the load agents the load needs. */
int gl_saturation_series(const char **out);
int gl_window_saturated(const struct gl_agg *w);
void gl_saturation_judge(struct gl_analysis *an);

/* Sessions after a fault (analysis_sessions.c): window wi's later-turn
 * TTFT (pass 2), then each fault's recovery of it. */
void gl_sessions_take(struct gl_analysis *an, int wi, const struct gl_agg *w);
void gl_sessions_judge(struct gl_analysis *an);

/* The median of v[0..n-1] (n >= 1), which it sorts (analysis_nodes.c). */
double gl_median(double *v, int n);

#endif
