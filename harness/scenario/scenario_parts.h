/*
 * scenario_parts.h - how the parts of scenario loading call each other
 * (private to scenario.c and its parts, scenario_*.c; plug-ins use
 * scenario.h and schema.h).
 */
#ifndef GL_SCENARIO_PARTS_H
#define GL_SCENARIO_PARTS_H

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

/* scenario_doc.c: the document before its schema is checked. One --set
 * PATH=VALUE applied to root; 0, or -1 after reporting through d. */
int gl_scenario_apply_set(cJSON *root, const char *expr, struct gl_diag *d);
/* "inventory": "FILE": read it (resume and report: o->inventory_text,
 * the bytes the run started with), expand every ${...} of the scenario,
 * add its hosts; errors through d. */
void gl_scenario_apply_inventory(struct gl_scenario *s, const struct gl_scenario_opts *o, struct gl_diag *d);

/* scenario_gates.c: "gates", once the hosts are parsed; errors through d. */
void gl_scenario_parse_gates(struct gl_scenario *s, const cJSON *gates, struct gl_diag *d);

/* scenario_notify.c: "notify"; errors through d. */
void gl_scenario_parse_notify(struct gl_scenario *s, const cJSON *notify, struct gl_diag *d);

/* The parsers' shared state: where errors go, what is being filled. */
struct vctx {
	struct gl_diag *d;
	struct gl_scenario *s;
};

/* scenario_safety.c: "safety" (sf may be NULL: the defaults), once the
 * faults are parsed; errors through d. */
void gl_scenario_parse_safety(struct gl_scenario *s, struct gl_diag *d, const cJSON *sf,
			      const struct gl_scenario_opts *o);
/* A watcher's grace (a fault's, or safety's default) in its bounds. */
void gl_scenario_check_grace(struct gl_diag *d, const cJSON *obj, const char *path, int64_t ns);

/* scenario_targets.c: "targets" (ts may be NULL), once the workloads,
 * phases and faults are parsed; then whether each workload present is
 * judged by the targets it needs. Errors through v->d. */
void gl_scenario_parse_targets(struct vctx *v, const cJSON *ts);
void gl_scenario_check_required_targets(struct vctx *v);

/* scenario_edge.c: a phase's "kind" and "edge" (o's kind, edge and, for
 * an edge phase, its default scope), and its "load" when a fraction of
 * the edge ("0.8 edge": 1 when the string was taken, well-formed or not;
 * 0 when "load" is no string). Then, once the workloads and phases are
 * parsed, the checks across phases at the time scale in o. */
void gl_scenario_parse_phase_edge(struct gl_diag *d, const cJSON *p, const char *path, struct gl_phase *o);
int gl_scenario_phase_load(struct gl_diag *d, const cJSON *p, const char *path, struct gl_phase *o);
void gl_scenario_check_edges(struct vctx *v, const struct gl_scenario_opts *o);

/* scenario.c: sort the fault indices ix[0..n) by (at, index). */
void gl_scenario_sort_faults_at(const struct gl_fault_spec *faults, int *ix, int n);

/* scenario_fit.c: windows x hold against the timeline at time scale sc
 * (validate and run, on a scenario otherwise valid). */
void gl_scenario_check_window_fit(struct gl_scenario *s, double sc, struct gl_diag *d);

#endif
