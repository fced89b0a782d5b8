/*
 * analysis.h - from the store to verdicts: per-window health, fault
 * recovery figures, aggregates per run, phase and scope, and every target's
 * measured value. Reports render a struct gl_analysis; nothing in it comes
 * from anywhere but the store, so `gauntlet report` works at any time.
 *
 * Definitions (docs/metrics.md): a window is healthy for a scope when it
 * meets every target of that scope; a target whose metric has no data in
 * the window counts as not met (no evidence of health is not health).
 *
 * A fault's degraded span: the windows from the one holding its inject
 * to the last one starting before its revert plus its settle (the fault's
 * "settle", real time, default GL_SETTLE_WINDOWS windows; a fault never
 * reverted: to the end). Those windows are judged in the degraded scope,
 * the rest by their phase. The span is fixed by the journal's times, not
 * by health, so the live view judges the same windows the same way.
 *
 * recovery_s: from inject until the start of the first run of `hold`
 * consecutive windows meeting the degraded targets (0 when the window of
 * the inject already starts such a run); restore_s likewise from revert
 * with the steady targets; -1 (null, a failure) when no such run happens
 * before the next fault's inject or the end, or when it starts later than
 * the revert plus the settle: a fault whose workloads do not meet the
 * steady targets again within its settle failed its restore.
 *
 * Incidents: a workload degraded where no scheduled fault explains it. A
 * fault explains the windows of its degraded span and at least those up
 * to GL_FAULT_TEARDOWN_NS after its revert. Outside those, each run of
 * consecutive windows showing one kind is an incident: a training job
 * that ended early (exit, signal, watchdog), training correctness errors,
 * a complete steady-scope window missing an inference target, storage
 * errors, an XID, ECC or uncorrectable memory errors. A fault whose
 * restore did not come within its settle is an incident of its own
 * (fault.restore), from the first window after its settle to its late
 * restore (or the next fault's inject, or the end), always counted.
 * "incidents": {"max": N} makes every kind count against N; without it
 * training failures, correctness errors and failed restores count,
 * against 0. More than the limit fails the verdict.
 *
 * Outages: per resume, the wall time from the last commit the store held
 * to the resume. The run's clock stands still meanwhile, so a fault
 * injected across one was held that much longer than planned (held_s),
 * unless it ended itself meanwhile: a fault that recorded its own end (a
 * flap loop's, a dead-man's switch's revert) is held to that end, and the
 * outage counts only up to it.
 */
#ifndef GL_ANALYSIS_H
#define GL_ANALYSIS_H

#include <stdint.h>

#include "catalog.h"
#include "hist.h"
#include "plugin.h"
#include "scenario.h"
#include "store.h"

/* A bag of merged series with the real seconds they cover. */
struct gl_agg;
struct gl_agg *gl_agg_new(void);
void gl_agg_free(struct gl_agg *a);
int gl_agg_add_hist(struct gl_agg *a, const char *name, const struct gl_hist *h);
int gl_agg_add_counter(struct gl_agg *a, const char *name, int64_t v);
void gl_agg_add_seconds(struct gl_agg *a, double s);
int gl_agg_merge(struct gl_agg *dst, const struct gl_agg *src);
double gl_agg_seconds(const struct gl_agg *a);
const struct gl_hist *gl_agg_hist(const struct gl_agg *a, const char *name);
/* Counter total; *found says whether any window recorded it. */
int64_t gl_agg_counter(const struct gl_agg *a, const char *name, int *found);
/* Iterate counters whose name starts with prefix. */
void gl_agg_each_counter(const struct gl_agg *a, const char *prefix, void (*fn)(void *arg, const char *name, int64_t v),
			 void *arg);
/* Value of a target name ("inference.ttft_ms.p99") over the aggregate.
 * Returns 0 and *out, or -1 when there is no data. Not for recovery names. */
int gl_agg_eval(const struct gl_agg *a, const char *target_name, double *out);

struct gl_window_info {
	int64_t idx, start_ns, end_ns, scn_start_ns, scn_end_ns;
	int phase, complete;
	enum gl_scope scope; /* scope it was judged in */
	/* bit w set: workload w (index in the scenario) had targets of that
	 * scope in this window and did not meet every one of them */
	unsigned char bad_steady, bad_degraded;
	unsigned char inc_bits; /* 1 << incident kind a counter opens in the window */
	unsigned char fault_span; /* a scheduled fault explains this window */
	/* a resume of the controller disturbed it (the workloads it had
	 * started were started again): when unhealthy, passed over by the
	 * recovery search (docs/metrics.md, "Scopes") */
	unsigned char resume_span;
	/* a workload's load generator had no headroom: judged by no target,
	 * passed over by the recovery search (analysis_client.c) */
	unsigned char saturated;
};

/* The store's windows, in index order (the caller frees *out)
 * (analysis_load.c). */
int gl_windows_load(struct gl_store *st, struct gl_window_info **out, int *n, struct gl_err *err);
/* Each of wins[0..n-1] (as loaded, in order) with its series in a fresh
 * aggregate, its real seconds added: fn(i, agg, arg), agg freed after. */
int gl_windows_each(struct gl_store *st, const struct gl_window_info *wins, int n,
		    int (*fn)(int i, struct gl_agg *w, void *arg), void *arg, struct gl_err *err);

#define GL_MAX_WORKLOADS 8

/* After a fault, the TTFT of conversations already going (their later
 * turns; analysis_sessions.c): has 0 when the run had none or the fault
 * never went in. ms and s -1: no figure (note says why). */
struct gl_session_recovery {
	int has, windows_before;
	double before_ms, first_ms, peak_ms, recovery_s;
	char note[120];
};

struct gl_fault_result {
	struct gl_fault_row row;
	double recovery_s, restore_s; /* every workload healthy together; -1: null */
	double wl_recovery_s[GL_MAX_WORKLOADS], wl_restore_s[GL_MAX_WORKLOADS]; /* per workload */
	char recovery_note[160];
	double settle_s; /* its settle (real seconds) */
	int degraded_windows; /* windows of its degraded span */
	int unrestored; /* reverted, but not restored within its settle */
	int unrestored_w0, unrestored_w1; /* then: its incident's windows */
	/* real seconds injected: elapsed between inject and revert plus the
	 * controller outages in between; -1 never injected. planned_held_s:
	 * the spec's duration in real seconds. */
	double held_s, planned_held_s, outage_s;
	/* the fault's own record of its end (measured.self_reverted_s: a
	 * flap loop that ended, a dead-man's switch that reverted it), real
	 * seconds from its inject; -1 none. When an outage lay inside the
	 * fault, held_s and outage_s run to that end, not to the controller's
	 * return (self_ended), and ended_outage names the outage it ended in
	 * (index into outages[], -1: not in one), ended_into_s how far in. */
	double self_s;
	int self_ended, ended_outage;
	double ended_into_s;
	int64_t self_end_elapsed_ns; /* the run's clock at that end (self_ended) */
	/* the windows it explains (indices into windows[], one run of them;
	 * -1: none), and the scenario host it acts on alone (its kind's
	 * touches hook; -1: not known, it may reach every node) */
	int span_w0, span_w1, touches;
	struct gl_session_recovery sessions;
};

/* Incident kinds: the registered workloads' rules (plugin.h, struct
 * gl_incident_rule) ranked by their order, then a fault not restored
 * within its settle ("fault.restore"), the last; GL_INC_MAX at most. */
#define GL_INC_MAX 8
struct gl_incident_kind {
	const struct gl_incident_rule *rule; /* NULL: fault.restore */
	const struct gl_workload_ops *wl; /* the workload that declares it */
};
/* Kind k, NULL past the last; how many kinds; fault.restore's. */
const struct gl_incident_kind *gl_incident_kind(int k);
int gl_incident_kinds(void);
int gl_incident_restore(void);
/* Kind k's name ("training.failure", ..., "fault.restore"), "?" past the last. */
const char *gl_incident_kind_name(int k);
/* The kinds a counter opens that one window's series show, as bits
 * 1 << kind (analysis and the live view). */
unsigned gl_incident_bits(const struct gl_agg *w);
/* Is t a steady target in force of the named workload (its metric is
 * "<workload>.")? A steady_targets kind's windows miss one. */
int gl_incident_steady_target(const struct gl_target_spec *t, const char *workload);

/* A fault explains what is seen up to this long after its revert (real),
 * whatever its settle: a launcher sees its job's end only once it has torn
 * the job down (mpirun took about 2 s after a SIGKILLed rank). */
#define GL_FAULT_TEARDOWN_NS 5000000000LL

/* A fault injected at ti and reverted at tr (elapsed ns; ti -1: never
 * injected, tr -1: not reverted) with settle_ns: whether the window
 * [start, end) lies in its degraded span (judged degraded), and whether
 * the fault explains what that window shows (incidents). The analysis and
 * the live view both judge by these. */
int gl_fault_degrades(int64_t ti, int64_t tr, int64_t settle_ns, int64_t start, int64_t end);
int gl_fault_explains(int64_t ti, int64_t tr, int64_t settle_ns, int64_t start, int64_t end);
/* The settle of the scenario's fault with this id (the default for an id
 * the scenario does not have). */
int64_t gl_fault_settle_ns(const struct gl_scenario *s, const char *id);

#define GL_MAX_INCIDENTS 1000 /* kept with their figures; all are counted */

#define GL_INCIDENT_NODES 4
struct gl_incident {
	int kind; /* gl_incident_kind */
	int w0, w1; /* first and last window (indices into windows[]) */
	int gated; /* counts against the limit */
	int64_t n[GL_INCIDENT_COUNTS]; /* the kind's counts over the span (its rule's) */
	int fault; /* fault.restore: index into faults[]; else -1 */
	double worst[4]; /* inference: each steady target's worst window value */
	unsigned char missed[4], nodata[4];
	char what[384]; /* the figures around it */
	char event[256]; /* the workload's first warning or error in the span, or "" */
	/* the nodes that stood out against their peers inside its windows
	 * (docs/nodes.md): a figure at or above the suspect threshold, or a
	 * wrong value; the first GL_INCIDENT_NODES by time, more counted */
	struct gl_incident_node {
		char workload[24], kind[12], name[96], host[96], figure[32];
		double z; /* the largest in the incident's windows */
		int windows; /* its windows out in the incident */
	} nodes[GL_INCIDENT_NODES];
	int n_nodes, more_nodes;
};

/* An incident's nodes as one line ("endpoint 10.77.1.2:8000 on lab-w1:
 * errors z 50.0 in 8 windows; ...; and 2 more"), "-" when none. */
void gl_incident_nodes_text(const struct gl_incident *x, char *out, size_t n);

struct gl_outage {
	int resume;
	int64_t at_elapsed_ns; /* the run's clock while it was down */
	int64_t down_wall_ns, resumed_wall_ns;
	double down_s; /* -1: the store did not record the last commit's time */
};

struct gl_target_result {
	const struct gl_target_spec *spec;
	int has; /* a measured value exists */
	double measured; /* a drift: the slope per day in its bound's unit */
	int pass;
	int windows_judged; /* a drift: the steady windows fitted */
	char note[160];
	/* a drift target (spec->drift, analysis_drift.c): the fit in the
	 * figure's units, per day of real time: slope, its 95 % interval,
	 * the fitted level at the first window, and the points fitted (the
	 * windows, or their medians in at most GL_DRIFT_MAX_POINTS buckets) */
	struct gl_drift_fit {
		double slope, lo, hi, level;
		int points;
	} drift;
};

/* Drift targets (docs/metrics.md, "Drift"): fewer steady windows with a
 * value than GL_DRIFT_MIN_WINDOWS is no value (a failed gate); more than
 * GL_DRIFT_MAX_POINTS are fitted as that many buckets of consecutive
 * windows, each its windows' median time and median value. */
#define GL_DRIFT_MIN_WINDOWS 10
#define GL_DRIFT_MAX_POINTS 256
/* The Theil-Sen fit of y over x (seconds, increasing; n points): the
 * median of the pairwise slopes, Sen's rank-based 95 % interval, and the
 * level at x[0] (the median of y - slope (x - x[0])), per second. 0, or
 * -1 when n < GL_DRIFT_MIN_WINDOWS or out of memory. */
int gl_drift_fit(const double *x, const double *y, int n, struct gl_drift_fit *out);

struct gl_preflight_result {
	char subject[160], check[128], detail[512];
	int ok;
};

/* A gate on a host, before or after the soak (docs/gates.md). */
struct gl_gate_result {
	char id[64], kind[16], host[64], when[8], status[8], reason[512], file[256];
	int exit_status;
	double dur_s;
	char *results; /* dcgm_diag: its rows as a JSON array, or NULL */
};

/* Per-node figures scored against the node's peers (analysis_nodes.c,
 * docs/nodes.md). In each window the nodes judged there (every node in a
 * window no scheduled fault explains; in one a fault explains, the nodes
 * on known hosts that no fault explaining it touches, when every such
 * fault's host is known) of one kind and figure that have at least the
 * figure's min_n samples there are compared: z = (mean - median of the
 * peers' means) / spread, spread = max(1.4826 x MAD, rel_scale x |median|,
 * min_scale), signed so that worse is positive, at least 3 nodes. A node's
 * score is the median of its z over the windows it was judged in; it is a
 * suspect when that is at least GL_SUSPECT_Z over at least
 * GL_SUSPECT_WINDOWS windows (more than half of them out, then); z is
 * kept to a tenth, toward 0, from -8 to GL_NODE_ZMAX. A
 * zero_expected figure makes its node a suspect as soon as it is above 0
 * anywhere. */
#define GL_SUSPECT_Z 4.0
#define GL_SUSPECT_WINDOWS 3
/* A node against its own history (docs/nodes.md): the baseline is its
 * first windows judged, a tenth of the run's windows (GL_SELF_BASE_SHARE)
 * and at least GL_SELF_BASE_MIN; each later window's self z = (mean -
 * baseline) / max(rel_scale x |baseline|, min_scale), worse positive; the
 * self score is their median, a suspect as the peers' score is (at least
 * GL_SUSPECT_Z over at least GL_SUSPECT_WINDOWS later windows). */
#define GL_SELF_BASE_SHARE 10
#define GL_SELF_BASE_MIN 3
#define GL_NODE_HEAT_COLS 60 /* the heatmap's columns: windows bucketed */
#define GL_NODE_ZBINS 640 /* z from -8 to +56 in tenths, for its median */
#define GL_NODE_ZMAX 56.0

struct gl_node_figure_def;
struct gl_node_result {
	char workload[24], kind[12], name[96], host[96], figure[32];
	const struct gl_node_figure_def *def; /* NULL: a figure no workload declares */
	int64_t n; /* samples */
	double sum, max; /* over the run */
	double peer_median; /* the median of its peers' run means */
	int judged, out; /* windows it was judged in, and stood out in (z >= GL_SUSPECT_Z) */
	double score; /* its median z (zero_expected: the values above 0) */
	int suspect; /* by its peers (self_suspect: by its own history) */
	uint32_t zbins[GL_NODE_ZBINS];
	float heat[GL_NODE_HEAT_COLS]; /* the largest z of each column (NaN: not judged) */
	int host_idx; /* the scenario host its host is (-1: none known) */
	/* against its own history (GL_SELF_*): its samples in the first
	 * windows it was judged in (base_windows of them, the baseline), then
	 * each later window's self z against that baseline */
	int base_windows, self_judged, self_out;
	int64_t base_n, late_n;
	double base_sum, late_sum;
	double self_score; /* the median self z over the later windows */
	int self_suspect;
	uint32_t self_zbins[GL_NODE_ZBINS];
};

/* A suspect: a node (kind, name, host of one workload) with at least one
 * figure that made it one; evidence says which and by how much. */
struct gl_suspect {
	char workload[24], kind[12], name[96], host[96];
	double score; /* the largest of its figures' */
	int windows; /* windows it stood out in */
	char evidence[512];
};

struct gl_analysis {
	struct gl_run_row run;
	struct gl_scenario *sc;
	struct gl_window_info *windows;
	int n_windows;
	struct gl_agg *all; /* every complete or partial window */
	struct gl_agg **phase; /* per phase */
	struct gl_agg *scope[3]; /* none, steady, degraded */
	struct gl_fault_result *faults;
	int n_faults;
	struct gl_target_result *targets;
	int n_targets;
	struct gl_preflight_result *preflight;
	int n_preflight, preflight_failed;
	struct gl_gate_result *gates; /* in the order they ran */
	int n_gates, gates_failed; /* any failed gate fails the verdict */
	/* windows whose load generator had no headroom (judged by no
	 * target), and the most load agents a saturated window said the load
	 * needs (0: none said); generator_saturated: any such window */
	int generator_saturated, saturated_windows, agents_needed;
	/* per window, the later turns' TTFT median (NAN: none), while the
	 * analysis runs (analysis_sessions.c); NULL: no window had one */
	double *sess_p50;
	int faults_left_injected; /* faults not reverted */
	enum gl_verdict verdict; /* pass | fail | aborted (a run not finished is fail) */
	double duration_s; /* real seconds covered by windows */
	/* storage: the slowest complete steady window (GB/s), for the
	 * cold-start floor shown next to its requirement */
	int has_read_floor, has_write_floor;
	double read_floor_gbps, write_floor_gbps;
	struct gl_incident *incidents; /* in time order, the first GL_MAX_INCIDENTS */
	int n_incidents;
	int incidents_total, incidents_gated;
	int incidents_limit; /* the scenario's max, or 0 for the default kinds */
	int incidents_failed; /* gated > limit: the verdict fails */
	struct gl_outage *outages;
	int n_outages;
	double outage_s; /* known down time, summed */
	char *notify; /* the webhooks' counts (notify.h), JSON; NULL: none */
	struct gl_node_result *nodes; /* by workload, kind, figure, then name */
	int n_nodes;
	struct gl_suspect *suspects; /* highest score first */
	int n_suspects;
	int suspects_failed; /* more than the scenario's "suspects": {"max"} */
	/* a failed run's bisection (training_bisect.h, store document
	 * "bisect"), or NULL: none ran */
	cJSON *bisect;
	/* the node sweep before the load (training_sweep.h, store document
	 * "sweep"), or NULL: none ran */
	cJSON *sweep;
	/* edge phases (docs/scenario.md, "Edge phases"): the store document
	 * "edge" as the workload that searched wrote it (NULL: none), how
	 * many edge phases the scenario has, and how many of them concluded
	 * with no edge (no search recorded, not finished, no rate that held,
	 * no bracket): each fails the verdict (analysis_edge.c) */
	cJSON *edge;
	int edge_phases, edge_failed;
	/* each drift target's (sc->drifts) per-window values: the complete
	 * steady windows' mid times (real s) and values (analysis_drift.c) */
	struct gl_drift_series {
		double *x, *y;
		int n, cap;
	} * drift;
	int drift_oom;
	int64_t node_windows; /* windows that had per-node figures */
	int self_base; /* the windows of a node's own baseline (GL_SELF_*) */
};

/* One window's z of count nodes of one figure d (their means and sample
 * counts): z[i] NaN where node i had fewer than d's min_n samples or fewer
 * than 3 nodes were judged. Returns the nodes judged, -1 out of memory. */
int gl_node_zscores(const struct gl_node_figure_def *d, const double *mean, const int64_t *n, int count, double *z);
/* The definition a workload gives of (kind, figure), or NULL. */
const struct gl_node_figure_def *gl_node_def_find(const char *workload, const char *kind, const char *figure);
/* Score the store's per-node figures into an (analysis_nodes.c). */
int gl_nodes_analyze(struct gl_store *st, struct gl_analysis *an, struct gl_err *err);
/* The node sweep's document (store "sweep"): kept in an->sweep for the
 * reports, its suspects added to an->suspects (analysis_sweep.c). */
int gl_sweep_analyze(struct gl_store *st, struct gl_analysis *an, struct gl_err *err);
/* Edge phases: the store document "edge" into an->edge, and the edge
 * phases without an edge counted (analysis_edge.c); the search of phase
 * (an object of an->edge's "searches"), or NULL. */
int gl_edge_analyze(struct gl_store *st, struct gl_analysis *an, struct gl_err *err);
const cJSON *gl_edge_search_of(const struct gl_analysis *an, int phase);
/* The store documents an analysis keeps whole (bisect, sweep, edge),
 * freed (analysis_edge.c). */
void gl_analysis_docs_free(struct gl_analysis *a);
/* suspects' order: highest score first, then by name */
int gl_suspect_cmp(const void *a, const void *b);

/* The preflight checks and the gates, into an's arrays (analysis_load.c). */
int gl_analysis_load_checks(struct gl_store *st, struct gl_analysis *an, struct gl_err *err);
int gl_analyze(struct gl_store *st, struct gl_analysis **out, struct gl_err *err);

/* The scenario as the run recorded it (stored text, --set overrides and
 * inventory); diagnostics into d, which this initialises. */
struct gl_scenario *gl_scenario_from_store(struct gl_store *st, const struct gl_run_row *run, struct gl_diag *d);
void gl_analysis_free(struct gl_analysis *a);

#endif
