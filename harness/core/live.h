/*
 * live.h - watching a run while it goes: the Prometheus text endpoint
 * (--metrics-listen), the progress line on a terminal, and one log line
 * per window when stderr is not a terminal.
 *
 * The figures are those of closed windows only (the same histograms and
 * counters the store gets), so a scrape always agrees with the store and,
 * at the end, with the report: run totals are the merge of every window
 * closed so far, "window" figures are the last closed window's. Targets
 * are judged live the way analysis judges them at the end, over the
 * windows of each scope so far (steady, degraded); recovery targets only
 * exist at the end (docs/live.md says where live and final may differ).
 *
 * Everything runs on the controller's loop thread.
 */
#ifndef GL_LIVE_H
#define GL_LIVE_H

#include <stdint.h>

#include "scenario.h"
#include "util.h"

struct event_base;
struct gl_agg;
struct gl_live;
struct gl_store;

/* listen may be NULL (no endpoint: progress and log lines only). */
struct gl_live *gl_live_new(struct event_base *base, const struct gl_scenario *sc, const char *run_id,
			    const char *listen, struct gl_err *err);
void gl_live_free(struct gl_live *l);
/* The address really bound ("127.0.0.1:9464"), or "" without an endpoint. */
const char *gl_live_bound(const struct gl_live *l);

/* Resume: take in the windows the store holds with idx < upto (complete or
 * not; the controller restores a partial last window itself and closes it
 * later through gl_live_window), with the faults' journal times as they
 * stand (inj[i], rev[i]: elapsed ns, -1 not yet; i the scenario's index). */
int gl_live_replay(struct gl_live *l, struct gl_store *st, int64_t upto, const int64_t *inj, const int64_t *rev,
		   int n_faults, struct gl_err *err);

/* Fault i (the scenario's index) as the journal has it now: injected and
 * reverted at these elapsed ns (-1: not yet). Each window's scope, what
 * the faults explain and their restores are judged by these times and
 * the faults' settles, as the analysis judges them (analysis.h). */
void gl_live_fault(struct gl_live *l, int i, int64_t injected, int64_t reverted);

/* A window [start, end) (elapsed ns) closed: w holds its metrics, seconds
 * its real length. */
void gl_live_window(struct gl_live *l, int64_t idx, int64_t start, int64_t end, const struct gl_agg *w, int phase);

/* Per-node figures of the window being closed (before gl_live_window):
 * each row of window idx, then gl_live_nodes_close scores them against
 * their peers and shows them until the next window closes. */
struct gl_node_fig;
void gl_live_node_row(struct gl_live *l, const struct gl_node_fig *f);
void gl_live_nodes_close(struct gl_live *l, int64_t idx);

/* Where the run stands now (called every commit, ~2/s); draws the
 * progress line on a terminal at most once a second. */
struct gl_live_status {
	int64_t elapsed_ns, total_ns; /* real time, since the run started / planned */
	double scale;
	int phase;
	int n_active;
	const char *active; /* ids of the faults injected now, comma separated */
	int agents_planned; /* load agents of every workload (0: none) */
	int agents_connected; /* of those, connected now */
};
void gl_live_status(struct gl_live *l, const struct gl_live_status *s);

/* Targets failing so far, as gauntlet_targets_failing counts them (missing
 * thresholds included); *no_data and *windows (closed) when not NULL. */
int gl_live_failing(const struct gl_live *l, int *no_data, int64_t *windows);
/* Each steady or degraded target whose state over its windows so far
 * changed since the last call: fn(arg, target, measured, 1) when it fails
 * (the first time, or again after passing), fn(..., 0) when a target named
 * failing passes again (fn NULL: only marked, as after a resume's replay). */
void gl_live_missed(struct gl_live *l, void (*fn)(void *arg, const struct gl_target_spec *t, double v, int missed),
		    void *arg);
/* The webhooks' totals (notify.h), for the gauntlet_notify_* families. */
void gl_live_notify(struct gl_live *l, int64_t sent, int64_t failed, int64_t dropped);

/* The run ended: state "finished"/"aborted"/"failed", the verdict. */
void gl_live_final(struct gl_live *l, const char *state, const char *verdict);

/* Whether an HTTP Accept header's value (after "Accept:") asks for
 * OpenMetrics 1.0.0 before the Prometheus text format. */
int gl_live_wants_openmetrics(const char *accept);

#endif
