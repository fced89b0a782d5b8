/*
 * inference_edge_search.h - the SLA edge search as a pure function of its
 * history (docs/scenario.md, "Edge phases"): which arrival rate the next
 * probe sends, and what the probes so far conclude. No clock, no I/O: the
 * workload (inference_edge.c), its model for `gauntlet simulate`
 * (inference_sim.c) and the unit test (tests/unit/test_edge_search.c) all
 * drive the same code, and a resumed run continues a search from the
 * probes its store holds.
 *
 * The search: geometric steps up from `from` (x factor, capped at `to`)
 * until a probe fails, then bisection between the last rate that held and
 * the first that failed, one probe per step, for as many probes as the
 * phase has. Probes follow each other in that order, so replaying the
 * verdicts gives the bracket: a pass raises its low end, a failure lowers
 * its high end. Two ends have nothing left to ask: `from` failed (no rate
 * holds the SLO: the edge is below what was asked), or `to` held (the
 * edge is at least `to`).
 */
#ifndef GL_INFERENCE_EDGE_SEARCH_H
#define GL_INFERENCE_EDGE_SEARCH_H

#include "units.h"

/* The search's settings: rates in requests per second, from < to, factor
 * > 1; a probe passes when its goodput op threshold holds. */
struct gl_edge_plan {
	double from, to, factor;
	struct gl_target_expr goodput;
};

/* One probe of the history: its rate and verdict. A lost probe (its slot
 * passed while the controller was down) says nothing and is skipped. */
struct gl_edge_step {
	double rate;
	int pass, lost;
};

enum gl_edge_outcome {
	GL_EDGE_NOT_RUN, /* no probe judged */
	GL_EDGE_FOUND, /* bracketed: the edge is the highest rate that held */
	GL_EDGE_BELOW_FROM, /* `from` failed: no rate held the SLO */
	GL_EDGE_AT_TO, /* `to` held: the edge is at least `to` */
	GL_EDGE_UNBRACKETED /* every probe held, `to` not reached: a lower bound only */
};

struct gl_edge_result {
	enum gl_edge_outcome outcome;
	double edge; /* the highest rate that held (FOUND, AT_TO, UNBRACKETED); -1: none */
	double lo, hi; /* the bracket: last rate that held, first that failed; -1: none */
	int probes; /* judged (lost ones left out) */
	int pass; /* FOUND or AT_TO: the search answered its question */
};

/* Does a probe with good of n requests within the SLO pass? (n == 0: no
 * evidence, a failure) */
int gl_edge_probe_passes(const struct gl_edge_plan *p, long long good, long long n);
/* The rate of the next probe after the n steps h (any number lost), or 0
 * when the search has nothing left to ask. */
double gl_edge_next_rate(const struct gl_edge_plan *p, const struct gl_edge_step *h, int n);
/* What the steps conclude. */
void gl_edge_conclude(const struct gl_edge_plan *p, const struct gl_edge_step *h, int n, struct gl_edge_result *r);
/* "found", "below_from", "at_to", "unbracketed", "not_run" */
const char *gl_edge_outcome_name(enum gl_edge_outcome o);
/* The rate a phase at fraction of the edge runs at: fraction x edge, or
 * `from` when the search found no rate that held (or ran no probe). */
double gl_edge_fraction_rate(const struct gl_edge_plan *p, const struct gl_edge_result *r, double fraction);

#endif
