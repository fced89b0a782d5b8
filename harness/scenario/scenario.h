/*
 * scenario.h - the scenario after parsing and validation: the typed view the
 * controller, the timeline and analysis work from. The JSON tree stays
 * alive (workload and fault plug-ins read their own sections from it).
 *
 * A scenario is loaded from a file (validate, run) or from the text stored
 * in a run's store (resume, report), so both paths give the same result.
 */
#ifndef GL_SCENARIO_H
#define GL_SCENARIO_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "jsonc.h"
#include "units.h"

#define GL_NAME_MAX 64
#define GL_MAX_SCENARIO_BYTES (4u << 20)

enum gl_scope { GL_SCOPE_NONE, GL_SCOPE_STEADY, GL_SCOPE_DEGRADED, GL_SCOPE_RECOVERY };
const char *gl_scope_name(enum gl_scope s);

struct gl_host {
	char name[GL_NAME_MAX];
	int local; /* local transport */
	char netns[GL_NAME_MAX]; /* local: run commands inside this netns */
	char ssh_user[GL_NAME_MAX], ssh_host[256];
	int ssh_port;
	char key[512], known_hosts[512];
	char slurm_node[GL_NAME_MAX]; /* "" when not given */
	char address[256]; /* "address": where its services listen ("" when not given) */
	const cJSON *json;
};

/* The name Slurm knows host h by (srun's --nodelist): its "slurm_node",
 * else its scenario name, never an address: an inventory host reached as
 * localhost or 10.77.1.2 is a node named lab-w1 to Slurm. */
const char *gl_host_slurm_node(const struct gl_host *h);

/* An edge phase (docs/scenario.md, "Edge phases"): the search for the
 * highest arrival rate at which the workload that takes it (the one whose
 * ops have edge_check) holds its SLO; scenario_edge.c parses it. */
struct gl_edge_spec {
	double from, to, factor; /* requests per second; factor > 1 */
	struct gl_target_expr goodput; /* ">= 0.95": a probe passes when its goodput holds it */
	char goodput_text[32];
	int64_t probe_ns; /* the probe's length asked for, real time */
	int64_t settle_ns; /* the end of each probe that sends nothing, real time (set by edge_check when not given) */
	int settle_given;
	/* at the scenario's time scale: how many probes the phase holds and
	 * each one's slot (real time; slots x slot_ns = the phase) */
	int slots;
	int64_t slot_ns;
	int workload; /* index in workloads of the workload it searches, -1 none */
};

enum gl_phase_kind { GL_PHASE_LOAD, GL_PHASE_EDGE };
/* An edge phase holds at most this many probes: a longer phase gives
 * each a longer slot. */
#define GL_EDGE_MAX_PROBES 64

struct gl_phase {
	char name[GL_NAME_MAX];
	int64_t start_ns, dur_ns; /* scenario time */
	double load; /* load multiplier, default 1 (a fraction of the edge: 1 for the other workloads) */
	enum gl_scope scope; /* NONE for warm-up and edge phases, else STEADY unless set */
	const cJSON *json;
	enum gl_phase_kind kind; /* "kind" */
	struct gl_edge_spec edge; /* GL_PHASE_EDGE */
	/* "load": "0.8 edge": the searched workload runs at this fraction of
	 * the edge phase edge_of found (the last one before it); 0: none */
	double edge_fraction;
	int edge_of;
};

struct gl_fault_spec {
	char id[GL_NAME_MAX];
	char kind[GL_NAME_MAX];
	char method[GL_NAME_MAX]; /* "" when the kind has no methods */
	char target[GL_NAME_MAX]; /* a host name */
	int64_t at_ns, dur_ns; /* dur_ns 0: instantaneous (no revert step) */
	const cJSON *params; /* may be NULL */
	const cJSON *json;
	const struct gl_fault_ops *ops;
	/* "runbook": the procedure for this failure, a URL or a path (relative
	 * to the scenario, confined like every file it names); "" none */
	char runbook[1024];
	/* "deadman_grace": how long its watcher waits for a lease renewal
	 * before reverting the fault itself; 0: safety's */
	int64_t deadman_grace_ns;
	/* "settle": real time after the revert (an instantaneous fault: the
	 * inject) that its windows stay judged degraded and in which its
	 * workloads must meet the steady targets again (restore_s at most
	 * this); 0 to GL_SETTLE_MAX_NS, default GL_SETTLE_WINDOWS windows.
	 * Always set once parsed (docs/metrics.md, "Scopes"). */
	int64_t settle_ns;
};

/* A fault's default settle, in windows, and the most a scenario may give. */
#define GL_SETTLE_WINDOWS 3
#define GL_SETTLE_MAX_NS 3600000000000LL

struct gl_target_spec {
	char metric[128]; /* as written: "inference.ttft_ms.p99" */
	enum gl_scope scope;
	struct gl_target_expr expr;
	char expr_text[64];
	int missing; /* required but absent from the scenario */
	const cJSON *json;
	/* "drift_per_day" (in gl_scenario.drifts only): expr bounds the
	 * figure's trend over the steady windows, per day of real time, in %
	 * of its fitted level at the start (drift_pct) or in its own units
	 * (docs/metrics.md, "Drift") */
	int drift, drift_pct;
};

struct gl_workload_spec {
	char name[GL_NAME_MAX]; /* "inference", "training", "storage", "null" */
	const cJSON *cfg;
	const struct gl_workload_ops *ops;
};

/* A workload's agents.connect_timeout (docs/agents.md) is 1 s to 10 min:
 * the controller waits that long for its agents before the run's clock
 * starts, and a typo ("168h") would hold the run and its launchers for a
 * week. */
#define GL_AGENTS_CONNECT_TIMEOUT_MIN_NS (1LL * 1000000000)
#define GL_AGENTS_CONNECT_TIMEOUT_MAX_NS (600LL * 1000000000)

/* "gates": checks run on hosts before the soak and after it
 * (scenario_gates.c, docs/gates.md). */
enum gl_gate_kind { GL_GATE_DCGM_DIAG, GL_GATE_COMMAND };
#define GL_GATE_ARGV_MAX 64
#define GL_GATE_HOSTS_MAX 64
struct gl_gate_spec {
	char id[GL_NAME_MAX];
	enum gl_gate_kind kind;
	int level; /* dcgm_diag: -r LEVEL, 1 to 4 */
	const char *argv[GL_GATE_ARGV_MAX + 1]; /* what runs, NULL-terminated (strings of the tree) */
	char level_text[4]; /* argv's "LEVEL" for dcgm_diag */
	int hosts[GL_GATE_HOSTS_MAX]; /* indices into hosts */
	int n_hosts;
	int before, after; /* "when" */
	int64_t timeout_ns; /* real time, per host */
	const cJSON *json;
};
const char *gl_gate_kind_name(enum gl_gate_kind k);

/* "notify": webhooks told of the run's events (scenario_notify.c,
 * docs/scenario.md). The URL is a secret: only the name of the variable
 * that holds it is in the scenario. */
enum gl_notify_event {
	GL_NEV_START,
	GL_NEV_FAULT,
	GL_NEV_TARGET_MISSED,
	GL_NEV_ABORT,
	GL_NEV_ERROR,
	GL_NEV_END,
	GL_NEV_N
};
#define GL_NOTIFY_MAX 16
struct gl_notify_spec {
	char url_env[128]; /* the variable holding the webhook's URL */
	int slack; /* "format": 0 "json", 1 "slack" */
	unsigned on; /* bit (1u << gl_notify_event) per event sent */
	const cJSON *json;
};
const char *gl_notify_event_name(enum gl_notify_event e);

struct gl_abort_rule {
	char metric[128];
	struct gl_target_expr expr;
	int64_t for_ns; /* condition must hold this long (real time) */
};

struct gl_scenario {
	char path[1024];
	char *text; /* the bytes the scenario was parsed from */
	size_t text_len;
	char sha256[65]; /* of text */
	char inventory_path[1024]; /* "inventory": the file ${...} values came from, or "" */
	char *inventory_text; /* its bytes, kept in the store with the run */
	struct gl_jsonc_doc *doc;
	cJSON *root; /* effective tree (after --set overrides) */

	char name[128];
	int64_t duration_ns, window_ns;
	int hold; /* recovery: consecutive healthy windows (3) */
	int incidents_max; /* "incidents": {"max": N}; -1 when not set */
	int suspects_max; /* "suspects": {"max": N}; -1 when not set */
	/* "store": what the run store keeps (docs/store.md). Limits -1 when
	 * not given: the store's defaults (store.h). */
	char store_requests[8]; /* "sample" (default), "all", "none" */
	long store_sample_per_window, store_errors_per_window;
	char store_events[8]; /* "info" (default), "debug" */
	long store_debug_per_minute;

	struct gl_host *hosts;
	int n_hosts;
	struct gl_workload_spec *workloads;
	int n_workloads;
	struct gl_phase *phases;
	int n_phases;
	struct gl_fault_spec *faults;
	int n_faults;
	struct gl_target_spec *targets;
	int n_targets; /* includes entries with missing = 1 */
	int n_missing;
	/* the "drift_per_day" targets (steady only): judged once over the
	 * run, never per window, so apart from targets */
	struct gl_target_spec *drifts;
	int n_drifts;
	/* figures validate does not require (no scheduled fault is sure to
	 * produce them), with why: listed by validate beside the targets */
	struct gl_optional_figure {
		enum gl_scope scope;
		char metric[128];
		char why[512];
	} * optional;
	int n_optional;

	struct gl_gate_spec *gates;
	int n_gates;

	struct gl_notify_spec *notify;
	int n_notify;

	int max_concurrent_faults; /* 0: no limit given (defaults to 1) */
	int require_runbooks; /* safety.require_runbooks */
	/* the dead-man's switch (docs/faults.md): safety.require_deadman,
	 * how often the controller renews a watcher's lease (real time) and
	 * the grace after which a watcher reverts on its own */
	int require_deadman;
	int64_t deadman_renew_ns, deadman_grace_ns;
	int64_t mw_start_wall_ns, mw_end_wall_ns; /* maintenance window; 0 = none */
	struct gl_abort_rule *abort_rules;
	int n_abort_rules;
};

/* Options that shape validation and the printed timeline. */
struct gl_scenario_opts {
	double time_scale; /* 1 when not given */
	const char *const *sets; /* "--set path=value" overrides, NULL-terminated */
	int64_t start_wall_ns; /* planned start (maintenance window checks); 0 = now */
	const char *inventory_text; /* the stored inventory of a run (resume, report): used
				       * instead of reading the "inventory" file again */
};

/* Parse and validate. Always returns a scenario when the text is valid JSON
 * (so callers can print what is wrong with it); diagnostics go to d. Returns
 * NULL only on syntax errors or I/O errors (also reported in d). The caller
 * checks d->n_errors and frees with gl_scenario_free. */
struct gl_scenario *gl_scenario_load_file(const char *path, const struct gl_scenario_opts *o, struct gl_diag *d);
struct gl_scenario *gl_scenario_load_text(const char *name, const char *text, size_t len,
					  const struct gl_scenario_opts *o, struct gl_diag *d);
void gl_scenario_free(struct gl_scenario *s);

const struct gl_host *gl_scenario_host(const struct gl_scenario *s, const char *name);
/* The fault with id, or NULL. */
const struct gl_fault_spec *gl_scenario_fault(const struct gl_scenario *s, const char *id);
/* The runbook of fault id as written, or NULL when it has none. */
const char *gl_scenario_runbook(const struct gl_scenario *s, const char *id);
/* 1 when a runbook is a URL (http:// or https://), 0 when it is a path. */
int gl_runbook_is_url(const char *runbook);
const struct gl_workload_spec *gl_scenario_workload(const struct gl_scenario *s, const char *name);

/* The gates and the command each runs, for validate and --dry-run. */
void gl_gates_print(const struct gl_scenario *s, FILE *f);

/* The webhooks and what each is told, for validate and --dry-run (the
 * variable's name, never its value). */
void gl_notify_print(const struct gl_scenario *s, FILE *f);

/* Index of the phase in force at scenario time t (last phase for t >= end). */
int gl_scenario_phase_at(const struct gl_scenario *s, int64_t t_ns);

#endif
