/*
 * plugin.h - the ops tables through which the controller drives workloads,
 * faults and transports (like fio's struct ioengine_ops). Every plug-in is
 * listed in registry.c, one explicit table per family; each family has a
 * "null" member used to test the controller without touching a cluster.
 *
 * Hooks marked (required) must be set; (optional) ones may be NULL and are
 * looked up once when the run starts, never per event.
 *
 * Threading: every hook is called on the controller's event-loop thread,
 * the thread that runs main: it lives as long as the controller.
 */
#ifndef GL_PLUGIN_H
#define GL_PLUGIN_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"
#include "util.h"

struct event;
struct event_base;
struct gl_ctx;
struct gl_metrics;
struct gl_request_row;
struct gl_store;
struct gl_workload_figures;

/* What a plug-in may use of the controller (ctx.c implements it;
 * gl_fault_measure is with the fault executor, executor.c). */
struct event_base *gl_ctx_base(struct gl_ctx *c);
struct gl_metrics *gl_ctx_metrics(struct gl_ctx *c);
const struct gl_scenario *gl_ctx_scenario(struct gl_ctx *c);
/* Real nanoseconds since the run started, continuing across resume. */
int64_t gl_ctx_elapsed_ns(struct gl_ctx *c);
double gl_ctx_time_scale(struct gl_ctx *c);
const char *gl_ctx_run_dir(struct gl_ctx *c);
const char *gl_ctx_run_id(struct gl_ctx *c);
/* How many times this run was resumed before this process (0 at first). */
int gl_ctx_resumes(struct gl_ctx *c);
/* The index of the phase in force (scenario.h phases): the one whose
 * set_load is being called, or the last one that was. */
int gl_ctx_phase(struct gl_ctx *c);
/* Arm a one-shot timer event for run elapsed time at_ns (now if past). */
void gl_ctx_arm_at(struct gl_ctx *c, struct event *ev, int64_t at_ns);
/* The run store (per-sample rows go into its open batch) and the index of
 * the analysis window in force. */
struct gl_store *gl_ctx_store(struct gl_ctx *c);
int64_t gl_ctx_window(struct gl_ctx *c);
/* From a fault hook (any thread): a figure the step measured, e.g. the
 * control plane's own recovery ("control_plane_recovery_s", 1.6). Kept in
 * the fault's journal row and shown in report.json faults[].measured. At
 * most 8 per fault; a later value of the same name replaces it. c may be
 * NULL: the figure goes to the step the calling thread is running. */
void gl_fault_measure(struct gl_ctx *c, const char *name, double value);
/* Load agents (docs/agents.md): this process runs share index of count
 * of the workload's load (arrival n is its own when n % count == index),
 * and the open-loop schedule starts at run elapsed origin_ns (-1: when
 * start is called). Without agents: 0, 1, -1. */
void gl_ctx_shard(struct gl_ctx *c, int *index, int *count, int64_t *origin_ns);
/* n samples summing to sum (the largest max) of one node's figure, in the
 * window in force (nodes.h, docs/nodes.md): kind is one of GL_NODE_KINDS
 * ("endpoint", "rank", ...), name and host say which (host "-" when not
 * known), figure one of the workload's node figures (figures.h). Kept with
 * the window; from an agent, sent to the controller with its figures. */
void gl_ctx_node(struct gl_ctx *c, const char *workload, const char *kind, const char *name, const char *host,
		 const char *figure, int64_t n, double sum, double max);
/* The host this process's load runs on, as node figures name it: in a
 * load agent, the scenario host the controller launched it on (else the
 * host its hello named); in the controller, the scenario's one local host
 * without a netns, else the one whose name or ssh host is this machine's
 * host name, else "local". Valid node text (nodes.h). */
const char *gl_ctx_host(struct gl_ctx *c);
/* One request's row: into the store (which keeps what its retention
 * rules say), or, in an agent, to the controller. */
void gl_ctx_request_row(struct gl_ctx *c, const struct gl_request_row *r);
/* Record one preflight check (store, report, stderr): subject names the
 * host, endpoint or fault, check what was checked. Returns ok ? 0 : -1.
 * A check that failed while a stop request (SIGINT, SIGTERM) cuts the
 * preflight short is only logged, not stored: it was not finished. */
int gl_ctx_preflight(struct gl_ctx *c, const char *subject, const char *check, int ok, const char *detail);
/* The run cannot mean what it claims (a launcher that did not make one
 * job, a required transport absent): stop it as a harness/infra failure
 * (state failed, exit 4) with this message. Faults are reverted as on any
 * stop. The first call wins. */
void gl_ctx_fail(struct gl_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line for the run's event log (store and stderr). */
void gl_ctx_event(struct gl_ctx *c, enum gl_log_level lvl, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Processes a workload starts that could outlive the controller (a
 * launcher, fio; child.h). Fork on the loop thread (every hook runs there,
 * and it lives as long as the process: PR_SET_PDEATHSIG follows the thread
 * that forked), with a gate (gl_child_gate_open) the child waits on, and
 * in the child's environment gl_ctx_child_mark(): "GAUNTLET_RUN_ID=<id>".
 * Make the child the leader of a process group of its own, then call
 * gl_ctx_child_started: it records pid, group, start time and boot in the
 * store and commits. Open the gate (gl_child_gate_release(g, 1)) only when
 * it returned an id > 0; otherwise close it and fail the start (the error
 * is logged). gl_ctx_child_ended when the child was reaped. */
const char *gl_ctx_child_mark(struct gl_ctx *c);
int64_t gl_ctx_child_started(struct gl_ctx *c, const char *source, int pid, const char *what);
void gl_ctx_child_ended(struct gl_ctx *c, int64_t id);

/* What a workload's targets hooks may call (scenario.c implements it), while
 * validation checks that every workload is judged by the figures it needs. */
struct gl_target_need;
/* A target written in scope (not a missing one): the metric prefix itself
 * (exact) or any metric that starts with prefix. */
int gl_need_has(const struct gl_target_need *n, enum gl_scope scope, const char *prefix, int exact);
/* Without such a target, the error "targets.<scope>: missing threshold for
 * <shown> (<why>): a missing threshold is a failed gate" (why NULL: the
 * hook's reason, e.g. "the <name> workload is present"), and <shown> is
 * judged as a missing threshold. */
void gl_need_require(struct gl_target_need *n, enum gl_scope scope, const char *prefix, int exact, const char *shown,
		     const char *why);
/* A target the workload's section implies (json: where), as if written. */
void gl_need_imply(struct gl_target_need *n, const char *metric, enum gl_scope scope, const cJSON *json,
		   const struct gl_target_expr *e, const char *text);

/* A recurring change of load a workload's section schedules (a storage
 * spike), in scenario time: the first at start_ns, then one every every_ns
 * (0: that one only), each for dur_ns. what says what it changes, in the
 * section's own words ("16 threads, bs 4MiB"). */
struct gl_load_spike {
	int64_t start_ns, every_ns, dur_ns;
	char what[160];
};

/* The scheduled faults against a workload's processes: each fault kind's
 * ends hook (struct gl_fault_ops) is asked about the processes described
 * by p. Returns the strongest answer over the scenario's faults
 * (GL_ENDS_SURE, GL_ENDS_MAYBE or GL_ENDS_NO); sure and maybe each name
 * the faults that gave that answer, "id (kind): why; ...". */
struct gl_proc_view;
int gl_need_faults_end(const struct gl_target_need *n, const struct gl_proc_view *p, char *sure, size_t ns, char *maybe,
		       size_t nm);
/* A figure validate does not require because no scheduled fault is sure
 * to produce it: listed as optional, with why. never: no fault can
 * produce it at all, and a target written for it gets a warning (it
 * would never get data, and no data is a failed gate). */
void gl_need_optional(struct gl_target_need *n, enum gl_scope scope, const char *metric, const char *why, int never);

/* An incident kind of a workload (docs/metrics.md, "Incidents"): a run of
 * windows no fault explains in each of which one of the counters opens
 * rose, or (steady_targets) a complete steady window missed one of the
 * workload's steady targets. counts: the counters summed over the span
 * into the incident's n[] (NULL: none); text writes its figures from
 * those into out (the missed targets follow). gated: it counts against
 * the default limit of 0. order: among incidents starting in the same
 * window, the lower is listed first (it ranks the kinds). */
#define GL_INCIDENT_COUNTS 6
struct gl_incident_rule {
	const char *name; /* as reports show it: "<workload>.<what>" */
	int order, gated, steady_targets;
	const char *const *opens; /* NULL-terminated */
	const char *counts[GL_INCIDENT_COUNTS];
	void (*text)(const int64_t *n, char *out, size_t cap);
};

/* A figure of the live status line: pre, the last window's value of
 * metric, post ("p99 TTFT ", 812, " ms"). */
struct gl_live_figure {
	const char *metric, *pre, *post;
};

/* A workload's model for `gauntlet simulate` (harness/core/sim_model.h,
 * docs/simulation.md): its part of the world, from its section (0, or -1
 * out of memory); the figures it records ("h:name" histograms, "c:name"
 * counters), how many of them for this world; and what the run hooks do
 * to it: start, a new load multiplier (optional), emit up to t1; and
 * (optional) right after set_load, the phase in force changed (c: the
 * simulated controller, gl_ctx_phase; edge phases). */
struct sim_fault;
struct sim_world;
struct sim_wl;
struct gl_workload_sim {
	int (*setup)(struct sim_world *w, const struct gl_scenario *sc, const cJSON *cfg);
	int (*metrics)(const struct sim_world *w, const char *const **names);
	void (*start)(struct sim_world *w);
	void (*set_load)(struct sim_world *w, double mult);
	void (*emit)(struct sim_wl *s, struct sim_world *w, int64_t t1);
	void (*set_phase)(struct sim_world *w, struct gl_ctx *c);
};

struct gl_workload_ops {
	const char *name;
	/* (optional) the workload's schema: every key of its section cfg
	 * ("workloads.<name>", at path), type, unit and range, and its checks
	 * against the rest of the scenario s (hosts it names exist; s is
	 * parsed up to its workloads). Report through d with the getters of
	 * schema.h; scenario.c knows no workload's keys. A workload without it
	 * takes any section. */
	void (*validate)(const struct gl_scenario *s, const cJSON *cfg, struct gl_diag *d, const char *path);
	/* (optional) the targets the workload must be judged by when present
	 * (gl_need_require) and those its section implies (gl_need_imply);
	 * called in the workloads' order once the targets are parsed. */
	void (*targets)(const cJSON *cfg, struct gl_target_need *n);
	/* (optional) the recovery targets it needs when faults are scheduled,
	 * asked after recovery_s and restore_s: a figure only some faults can
	 * produce is required when one of them is scheduled
	 * (gl_need_faults_end), else named optional (gl_need_optional). */
	void (*fault_targets)(const cJSON *cfg, struct gl_target_need *n);
	/* (optional) when faults are scheduled, no degraded target is written
	 * and no steady one either, the figure whose degraded threshold is
	 * asked for if this workload comes first (else null.tick_lag_ms.p99). */
	const char *degraded_default;
	/* What the analysis and the live view read of the workload (all
	 * optional): its incident kinds, ended by one without a name; its
	 * throughput figures whose slowest complete steady window the
	 * analysis keeps (the cold-start floor, read and write); the
	 * histogram of its generator's send lag in ms (a p99 over 5 ms: the
	 * generator was saturated); the live status line's figures of the
	 * last window, ended by one without a metric. */
	const struct gl_incident_rule *incidents;
	const char *floor_read, *floor_write;
	const char *send_lag;
	/* (optional) client saturation (docs/metrics.md, "Client
	 * saturation"): a counter its generator adds 1 to in a window where it
	 * had no headroom (the analysis then judges no target on that window),
	 * and a histogram of how many load agents the load needs, recorded in
	 * those windows */
	const char *saturated, *agents_needed;
	/* (optional) the histogram of the TTFT of conversations' later turns
	 * (docs/metrics.md, "Sessions after a fault"): its window medians
	 * before and after each fault give the fault's session recovery */
	const char *session_ttft;
	const struct gl_live_figure *live_figures;
	/* (optional) 1: its section's "image" and "image_source" name what
	 * it runs, recorded with the inventory (images.c) */
	int imaged;
	/* (optional) its model for `gauntlet simulate` */
	const struct gl_workload_sim *sim;
	/* (optional) checks of the files the workload will read (a trace has
	 * rows it can replay, ...), run by validate and run on a scenario
	 * file whose schema passed; not on a stored scenario, not fuzzed. */
	void (*check_files)(const struct gl_scenario *s, const cJSON *cfg, struct gl_diag *d, const char *path);
	/* (optional) the spikes its section schedules, for the timeline that
	 * validate, --dry-run and the reports show (timeline.h): the first
	 * max into out, in the section's order; returns how many it has.
	 * Called on a section its validate accepted. */
	int (*spikes)(const cJSON *cfg, struct gl_load_spike *out, int max);
	/* (required to run) allocate state; nothing runs yet. */
	int (*init)(struct gl_ctx *c, const cJSON *cfg, void **state, struct gl_err *err);
	/* (required to run) begin issuing work on the event loop. */
	int (*start)(void *state, struct gl_err *err);
	/* (optional) the phase's load multiplier changed. */
	void (*set_load)(void *state, double multiplier);
	/* (optional) a window closed: flush per-window state into the metrics. */
	void (*on_window)(void *state);
	/* (required to run) stop issuing work; in-flight work is ended. */
	void (*stop)(void *state);
	void (*free)(void *state);
	/* (optional) checks before the soak starts (endpoints answer, ...):
	 * each check calls gl_ctx_preflight; return 0 when all passed. */
	int (*preflight)(struct gl_ctx *c, const cJSON *cfg);
	/* (optional) once the before gates passed and before any load (a
	 * fresh run, not a resume): the measurements its section asks for
	 * (training's "sweep"), in the store as a document for the analysis
	 * and the reports, and in the event log. Runs on the loop thread, in
	 * the time its section allows, a stop request ending it. 0, or -1
	 * when a stop request ended it (the run then ends before the soak).
	 * Not in `gauntlet simulate`. */
	int (*survey)(struct gl_ctx *c, const cJSON *cfg);
	/* (optional) after the run, its verdict known and every fault
	 * reverted: the diagnosis its section asks for when its steady
	 * targets failed (training's "bisect"), called only then: failed
	 * names them. Runs on the loop thread, in the time its section allows;
	 * what it finds goes in the store (a document) and the event log,
	 * for the analysis and the reports. Not in `gauntlet simulate`.
	 * Returns 1 when it put something in the store that the analysis
	 * reads (the run is judged again), else 0 (its section asks for no
	 * diagnosis, a resumed run's end finds it done, an error). */
	int (*diagnose)(struct gl_ctx *c, const cJSON *cfg, const char *failed);
	/* (optional) the record types of the rows it keeps in the store
	 * (store.h), NULL-terminated: the store makes their tables. */
	const struct gl_record_type *const *records;
	/* (optional) its metrics and the reports' rows of them (figures.h) */
	const struct gl_workload_figures *figures;
	/* set when its section names OpenAI-compatible "endpoints" (and
	 * their "api_key_env"): a model swap takes its defaults from the
	 * first such workload of the scenario */
	int serves_endpoints;
	/* (optional) the workload whose arrival rate an edge phase searches
	 * (docs/scenario.md, "Edge phases"; one per scenario): whether its
	 * section can take such a search (report through d at the phase's
	 * node at, path its path), and e->settle_ns when the phase gives none
	 * (e->settle_given 0). Its set_load then reads the phase in force
	 * (gl_ctx_phase) and runs the search, or a fraction of its edge. */
	void (*edge_check)(const cJSON *cfg, struct gl_edge_spec *e, struct gl_diag *d, const cJSON *at,
			   const char *path);
};

/*
 * Faults. The controller asks plan() for the exact actions (a JSON object
 * with everything revert needs) and commits it to the store before inject;
 * revert and verify_revert must work from that plan alone, in a later
 * process, after the controller that injected it died.
 */
/* A workload's processes, as a fault kind's ends hook sees them: the hosts
 * they run on (names from "hosts"; none: not known), words that name them
 * in a command line (their binaries' base names), and how long they may
 * stop making progress before the workload's own watchdog ends them (0:
 * never). */
struct gl_proc_view {
	const char *const *hosts;
	int n_hosts;
	const char *const *names;
	int n_names;
	int64_t watchdog_ns;
};
enum { GL_ENDS_NO = 0, GL_ENDS_MAYBE = 1, GL_ENDS_SURE = 2 };
/* Is host one of p's hosts? */
int gl_proc_on_host(const struct gl_proc_view *p, const char *host);
/* Does text (a pattern, a command) name one of p's processes? */
int gl_proc_named(const struct gl_proc_view *p, const char *text);

struct gl_fault_ops {
	const char *kind;
	const char *const *methods; /* NULL-terminated; NULL: no "method" key */
	/* (optional) check params; report through d. */
	void (*validate)(const struct gl_fault_spec *f, struct gl_diag *d, const char *path);
	/* (optional) the files its params name are readable and confined
	 * (paths.h); run like the workloads' check_files. */
	void (*check_files)(const struct gl_scenario *s, const struct gl_fault_spec *f, struct gl_diag *d,
			    const char *path);
	/* (optional) duration implied by params when "for" is absent. */
	int64_t (*implied_duration_ns)(const struct gl_fault_spec *f);
	/* (required to run) the plan; caller frees it with cJSON_Delete. */
	int (*plan)(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err);
	int (*inject)(struct gl_ctx *c, const cJSON *plan, struct gl_err *err); /* (required) */
	int (*verify)(struct gl_ctx *c, const cJSON *plan, struct gl_err *err); /* (optional) */
	int (*revert)(struct gl_ctx *c, const cJSON *plan, struct gl_err *err); /* (required) */
	int (*verify_revert)(struct gl_ctx *c, const cJSON *plan, struct gl_err *err); /* (optional) */
	/* (optional) human-readable commands for --dry-run, one per line into out. */
	void (*describe)(const cJSON *plan, struct gl_buf *out);
	/* (optional) commands that must exist on the target host; the
	 * controller's preflight checks each with `command -v`. */
	const char *const *tools;
	/* (optional) more preflight checks, reported through gl_ctx_preflight;
	 * return 0 when all passed. */
	int (*preflight)(struct gl_ctx *c, const cJSON *plan);
	/* (optional) the dead-man's switch (docs/faults.md): append to script
	 * the fault's revert as POSIX sh text, one command per line, and set
	 * *h to the host it must run on (the plan's host), for a watcher there
	 * to run when the controller is lost. The text runs where the revert
	 * step's commands run (inside the host's netns, as its user), so it is
	 * those same commands; it must be idempotent and hold no line that is
	 * exactly GL_WATCHER_EOF. Returns 0, or GL_DEADMAN_NONE with script
	 * holding why this plan has none ("acts through the Kubernetes API"),
	 * or GL_DEADMAN_NOTHING with script saying why nothing needs undoing,
	 * or a negative code with err set. c may be NULL (--dry-run). */
	int (*deadman)(struct gl_ctx *c, const cJSON *plan, struct gl_host *h, struct gl_buf *script,
		       struct gl_err *err);
	/* (optional) why a fault of this spec will have no watcher (validate's
	 * note, safety.require_deadman's refusal): a static string, or NULL
	 * when deadman will give one. A kind without deadman has none. */
	const char *(*deadman_none)(const struct gl_fault_spec *f);
	/* (optional) whether a fault of this spec ends the processes p
	 * describes: GL_ENDS_SURE (it kills them, or stops them past their
	 * watchdog), GL_ENDS_MAYBE (it may: a network cut they may ride
	 * through), GL_ENDS_NO; why (may be NULL) says how in a few words.
	 * Validate asks it to tell which figures the scenario can produce
	 * (a checkpoint restore only follows a job's end). NULL: GL_ENDS_NO. */
	int (*ends)(const struct gl_fault_spec *f, const struct gl_proc_view *p, char *why, size_t n);
	/* (optional) resume's question about a fault the journal holds as
	 * injected, not yet due for its revert: has it ended by itself while
	 * no controller ran (a flap loop that finished)? 1 yes (resume reverts
	 * it at once; the revert takes its record of when), 0 no, < 0 cannot
	 * tell (err). */
	int (*ended)(struct gl_ctx *c, const cJSON *plan, struct gl_err *err);
	/* (optional) `gauntlet simulate`: what a fault of spec s does to the
	 * world w (harness/core/sim_model.h), into f (its effect, ...); its
	 * node and training fields hold what its target is. NULL: nothing. */
	void (*sim)(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s);
	/* (optional) the one scenario host a fault of spec f acts on
	 * (docs/nodes.md, "Inside a fault's span"): its index in s->hosts, or
	 * -1 when what it reaches cannot be known (the cluster, its control
	 * plane, every endpoint, a node outside the scenario's hosts). The
	 * per-node analysis judges the nodes of the other hosts inside the
	 * fault's span. NULL: -1. */
	int (*touches)(const struct gl_scenario *s, const struct gl_fault_spec *f);
};

/* deadman's "this plan has no watcher" (a fault left unguarded: validate
 * says so), and "this plan leaves nothing to undo" (none needed; its
 * deadman_none gives NULL) */
#define GL_DEADMAN_NONE 1
#define GL_DEADMAN_NOTHING 2
#define GL_WATCHER_EOF "GL_WATCHER_EOF"

/* Transports run commands on hosts, each call with a deadline. */
struct gl_exec_result {
	int exit_status; /* exit code, or 128+signal */
	int timed_out;
	struct gl_buf out; /* stdout+stderr, capped */
};

struct gl_transport_ops {
	const char *name;
	/* (required) run argv on host; kills it on deadline. */
	int (*exec)(const struct gl_host *h, const char *const *argv, int64_t deadline_ms, struct gl_exec_result *res,
		    struct gl_err *err);
};

/* Run argv on host h through its transport ("local" for local hosts, "ssh"
 * for ssh hosts), killed at the deadline. res->out must be freed with
 * gl_buf_free (also on error). Returns 0 when the command ran (whatever its
 * exit status), or a negative code with err naming host and cause:
 * -GL_ESTOPPED when a stop request ended it, or kept it from starting, on
 * a thread such a request interrupts (stop.h: the controller's thread
 * during the inventory, preflight and gates). */
int gl_host_exec(const struct gl_host *h, const char *const *argv, int64_t deadline_ms, struct gl_exec_result *res,
		 struct gl_err *err);

/*
 * registry.c: the plug-ins. Each workload and fault kind registers its ops
 * table from its own file, with its rank in the registry's order (the order
 * validate names them in and reports list them in):
 *
 *	static const struct gl_workload_ops gl_workload_inference = { ... };
 *	GL_REGISTER_WORKLOAD(gl_workload_inference, 10)
 *
 * The registration runs before main. The build links every object of the
 * core library into each program (CMakeLists.txt: an object library), so a
 * plug-in that no code calls is still registered. Two plug-ins with one
 * name or one rank, or more than the registry holds, end the program at
 * start with a message: a build defect, never a user's.
 */
void gl_register_workload(const struct gl_workload_ops *ops, int rank);
void gl_register_fault(const struct gl_fault_ops *ops, int rank);
#define GL_REGISTER_WORKLOAD(ops, rank)                                  \
	__attribute__((constructor)) static void gl_register_##ops(void) \
	{                                                                \
		gl_register_workload(&ops, rank);                        \
	}
#define GL_REGISTER_FAULT(ops, rank)                                     \
	__attribute__((constructor)) static void gl_register_##ops(void) \
	{                                                                \
		gl_register_fault(&ops, rank);                           \
	}
const struct gl_workload_ops *gl_workload_find(const char *name);
const struct gl_fault_ops *gl_fault_find(const char *kind);
/* The registered plug-ins in the registry's order (the order reports list
 * them in): entry i, or NULL when i is past the last. */
const struct gl_workload_ops *gl_workload_at(size_t i);
const struct gl_fault_ops *gl_fault_at(size_t i);
/* The rank workload entry i registered with, or -1 past the last. */
int gl_workload_rank_at(size_t i);
const struct gl_transport_ops *gl_transport_find(const char *name);
/* name lists for messages: "inference, training, storage, null" */
void gl_registry_names(int family, char *buf, size_t n);
enum { GL_FAMILY_WORKLOAD, GL_FAMILY_FAULT, GL_FAMILY_TRANSPORT };

/* What a fault acts on, for people (webhook messages, the live view): the
 * node a drain takes out, the link or port that flaps, the GPUs, the
 * processes, the storage device, the partitioned groups, the endpoints of
 * a model swap, read from its plan; the plan's host (else target) when the
 * kind names nothing narrower. A drain adds "(via HOST)": the command runs
 * on another host than the node it takes out. */
void gl_plan_subject(const cJSON *plan, const char *target, char *out, size_t n);

#endif
