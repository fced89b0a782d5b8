/*
 * store.h - the run store: one SQLite database per run directory (run.db),
 * WAL mode, schema versioned with PRAGMA user_version and migrated forward
 * on open. It is the single source of reports: `gauntlet report` reads
 * nothing else.
 *
 * Writes are batched: the store keeps one transaction open and the
 * controller calls gl_store_flush at least once a second. The fault journal
 * is different: gl_store_fault_put commits at once (before an inject may
 * start), together with whatever was batched.
 *
 * One connection, used from the controller's loop thread only.
 */
#ifndef GL_STORE_H
#define GL_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "states.h"
#include "util.h"

#define GL_STORE_SCHEMA_VERSION 9

/* Retention defaults (scenario "store", docs/store.md): per analysis window
 * the successful requests sampled and the failed ones kept per error class;
 * the debug events kept per source and minute. And the size the WAL file
 * is cut back to when it restarts. */
#define GL_STORE_SAMPLE_PER_WINDOW 50
#define GL_STORE_ERRORS_PER_WINDOW 20
#define GL_STORE_DEBUG_PER_MINUTE 6
#define GL_STORE_WAL_LIMIT_STR "1048576"
/* SQLite's page cache of each store connection, as PRAGMA cache_size takes
 * it (negative: KiB): 256 KiB. The default (2 MiB) fills as the store grows
 * and shows as memory growth for the first hours of a run; this bound keeps
 * it small and fixed (appends touch only the rightmost pages of each table;
 * over test_memory's ~300 windows, 30-80 KiB of growth with it, 400-540 KiB
 * with the default). */
#define GL_STORE_CACHE_KIB_STR "-256"

struct gl_store;

/* create: make a new store (fails if one exists); else open an existing one
 * (fails if missing, or written by a newer schema). */
struct gl_store *gl_store_open(const char *path, int create, struct gl_err *err);
/* An existing store, to read beside a live controller (`status`): no
 * checkpoint thread, and no checkpoint when closed. A TRUNCATE checkpoint
 * holds the writer's lock while it waits for readers, and a controller
 * kept from writing that long stops the run ("store write failed"). */
struct gl_store *gl_store_open_reader(const char *path, struct gl_err *err);
void gl_store_close(struct gl_store *st); /* flushes; NULL is fine */

int gl_store_flush(struct gl_store *st, struct gl_err *err);

/* What gl_store_request_put keeps (store_keep.h has the rule): mode
 * "sample" keeps every k-th successful request of a window up to
 * sample_per_window and every k-th failed one up to errors_per_window per
 * error class; "all" every row; "none" none. Every request not kept is
 * counted per window and class in the table `retention`. Set by the
 * controller from the scenario at run start and at resume; until then the
 * defaults above. -GL_EINVAL for an unknown mode or a negative limit. */
int gl_store_request_policy(struct gl_store *st, const char *mode, int64_t sample_per_window,
			    int64_t errors_per_window);
/* events "info": debug events beyond debug_per_minute per source and
 * minute of the run are counted in `retention`, not stored; "debug": every
 * one is stored. Info and above are always stored. */
int gl_store_event_policy(struct gl_store *st, const char *events, int64_t debug_per_minute);
/* Between transactions: when the WAL has grown past journal_size_limit
 * (1 MiB), checkpoint it and cut it to zero bytes (TRUNCATE) without
 * waiting on readers; else nothing. The checkpoint thread has copied all
 * but the last seconds of it, so this copies little, but it does fsync the
 * database on the caller's thread. 0 done or not needed, 1 a reader still
 * needs frames (what could be copied was; the next call goes on), < 0 an
 * error. The controller calls it at each window close. */
int gl_store_wal_trim(struct gl_store *st);

struct gl_run_row {
	char id[40];
	char name[128];
	char scenario_path[1024];
	char *scenario_text; /* owned by the caller that filled it */
	char scenario_sha256[65];
	char *sets_json; /* JSON array of --set strings; owned */
	double time_scale;
	int64_t window_ns, duration_ns;
	int64_t started_wall_ns, ended_wall_ns;
	char state[16]; /* running | finished | aborted | failed */
	char verdict[16]; /* "" until known */
	int exit_code;
	int64_t elapsed_ns; /* progress: real time of the last commit */
	int resumes;
	char version[32], git_rev[32], hostname[128];
	int64_t progress_wall_ns; /* wall time of that commit; 0 if unknown */
};

int gl_store_run_create(struct gl_store *st, const struct gl_run_row *r, struct gl_err *err);
/* Fills r; r->scenario_text and r->sets_json are malloc'd (free them). */
int gl_store_run_load(struct gl_store *st, struct gl_run_row *r, struct gl_err *err);
void gl_run_row_free(struct gl_run_row *r);
int gl_store_run_progress(struct gl_store *st, int64_t elapsed_ns);
int gl_store_run_finish(struct gl_store *st, const char *state, const char *verdict, int exit_code,
			int64_t ended_wall_ns);
int gl_store_run_resumed(struct gl_store *st, int resumes);

/* A controller outage, recorded by the resume that ended it: the run's
 * clock stood at at_elapsed_ns (the last commit) from down_wall_ns (that
 * commit's wall time; 0 when the store did not record it) until the resume
 * at resumed_wall_ns. One row per resume: bounded by the resumes. */
struct gl_outage_row {
	int resume;
	int64_t at_elapsed_ns, down_wall_ns, resumed_wall_ns;
};
int gl_store_outage_put(struct gl_store *st, const struct gl_outage_row *o);
/* In resume order; *out malloc'd (free it). */
int gl_store_outage_list(struct gl_store *st, struct gl_outage_row **out, int *n, struct gl_err *err);
int gl_store_run_set(struct gl_store *st, const char *column, int64_t value);

int gl_store_phase_put(struct gl_store *st, int idx, const char *name, int64_t start_ns, int64_t end_ns, double load,
		       const char *scope);

/* Windows: meta row plus one row per series. complete = 0 while the window
 * is still filling (rewritten each flush), 1 once closed. */
int gl_store_window_put(struct gl_store *st, int64_t idx, int64_t start_ns, int64_t end_ns, int64_t scn_start_ns,
			int64_t scn_end_ns, int phase, int complete);
/* Remove a window and its series (an empty last window). */
int gl_store_window_drop(struct gl_store *st, int64_t idx);
/* Every window row in index order (fn: its index, whether complete), and
 * every window's row of one metric (fn: index, histogram blob or NULL,
 * counter). */
typedef void (*gl_store_window_fn)(void *arg, int64_t idx, int complete);
typedef void (*gl_store_metric_fn)(void *arg, int64_t idx, const unsigned char *hist, size_t len, int64_t counter);
int gl_store_window_scan(struct gl_store *st, gl_store_window_fn fn, void *arg, struct gl_err *err);
int gl_store_metric_scan(struct gl_store *st, const char *name, gl_store_metric_fn fn, void *arg, struct gl_err *err);
/* A cursor over the windows' figures (window_metrics), in window-index
 * order: gl_store_figs_next fills f with the next row and returns 1, 0 at
 * the end, or -1 with err set. f's pointers stay valid until the next call
 * or the close. idx >= 0: only that window's rows; -1: every window's. */
struct gl_store_fig {
	int64_t idx;
	const char *name;
	const void *hist; /* serialized histogram, NULL for a counter */
	size_t hist_len;
	int64_t counter;
};
struct gl_store_figs;
struct gl_store_figs *gl_store_figs_open(struct gl_store *st, int64_t idx, struct gl_err *err);
int gl_store_figs_next(struct gl_store_figs *c, struct gl_store_fig *f, struct gl_err *err);
void gl_store_figs_close(struct gl_store_figs *c);
/* A finished run's store, for `gauntlet verify`: any WAL folded into
 * db_path, then its run id and scenario text read without writing
 * anything (immutable: no -shm, no -wal, no locks). The caller frees both;
 * NULL both on an error. */
int gl_store_read_sealed(const char *db_path, char **run_id, char **scenario, struct gl_err *err);
/* A simulated SIGKILL (`gauntlet simulate`): what is not committed is
 * rolled back and the store closed as a killed process leaves it (no
 * flush, no checkpoint). */
void gl_store_abandon(struct gl_store *st);
/* No fsync at all (synchronous=OFF): a simulation's store, which a power
 * loss may lose whole; a crash of the process loses nothing committed. */
void gl_store_no_sync(struct gl_store *st);
int gl_store_window_metric_put(struct gl_store *st, int64_t idx, const char *name, const unsigned char *hist,
			       size_t hist_len, int64_t counter);

/* The fault journal. */
struct gl_fault_row {
	char id[64], kind[64], method[64], target[64];
	int64_t at_ns, dur_ns;
	char *plan; /* JSON: exactly what revert runs */
	enum gl_fault_state state; /* stored as its name (states.h) */
	int verified; /* -1 unknown, 0 no, 1 yes */
	int verified_revert;
	int64_t injected_elapsed_ns, reverted_elapsed_ns; /* -1 when not yet */
	int64_t injected_scn_ns, reverted_scn_ns;
	char error[512];
	char measured[512]; /* JSON object of figures the steps measured, "" if none */
	/* the dead-man's switch: "" never armed, "armed", "lost" (its watcher
	 * was found gone while the fault was in), "fired" (the watcher
	 * reverted it), "stopped" (a normal revert stopped it), "none: why"
	 * (this fault has none), "not needed: why" (nothing to undo) */
	char deadman[200];
	char reverted_by[16]; /* "controller", "watcher", "" not reverted */
};
/* Insert or update by id, and commit now (with the batch). */
int gl_store_fault_put(struct gl_store *st, const struct gl_fault_row *f, struct gl_err *err);
/* Load all faults in journal order; *out malloc'd, plans malloc'd: free with
 * gl_fault_rows_free. */
int gl_store_fault_list(struct gl_store *st, struct gl_fault_row **out, int *n, struct gl_err *err);
void gl_fault_rows_free(struct gl_fault_row *rows, int n);

/* One inference request; times are run elapsed ns, -1 when the moment
 * never came. error_class NULL or "" for success. Kept or only counted by
 * the policy of gl_store_request_policy. */
struct gl_request_row {
	int64_t window;
	int endpoint;
	int64_t t_intended, t_send, t_headers, t_first_event, t_first_token, t_last_token, t_end;
	int64_t input_tokens, output_tokens;
	int tokens_estimated;
	int http_status;
	const char *error_class;
	int64_t max_stall_ns;
};
int gl_store_request_put(struct gl_store *st, const struct gl_request_row *r);

/* A node's figure in a window (nodes.h), upserted in the batch: a window
 * written again replaces what an earlier commit wrote of it. */
struct gl_node_fig;
int gl_store_node_put(struct gl_store *st, const struct gl_node_fig *f);
/* Every node figure of window idx (idx < 0: of every window, in window
 * order): fn(arg, f). */
int gl_store_nodes_scan(struct gl_store *st, int64_t idx, void (*fn)(void *arg, const struct gl_node_fig *f), void *arg,
			struct gl_err *err);

/* A plug-in's own rows (plugin.h: gl_workload_ops.records), declared by
 * the plug-in as a record type: a table of that name with the columns seq
 * (the order written) and window, then one per field, of its kind. The
 * store makes the table at open where it is missing and writes and reads
 * it; the plug-in names fields, never SQL. Names are [a-z_][a-z0-9_]*, at
 * most GL_STORE_RECORD_FIELDS_MAX fields. A window keeps at most
 * per_window rows of a type: the ones past it are left out and counted
 * (a warning when the window ends). */
#define GL_STORE_RECORD_TYPES_MAX 8
#define GL_STORE_RECORD_FIELDS_MAX 16
enum gl_record_kind { GL_RECORD_INT, GL_RECORD_REAL, GL_RECORD_TEXT };
struct gl_record_field {
	const char *name;
	enum gl_record_kind kind;
};
struct gl_record_type {
	const char *table;
	const struct gl_record_field *fields;
	int n_fields;
	int64_t per_window;
};
/* One field's value, by its kind (text: NULL stores NULL). */
union gl_record_value {
	int64_t i;
	double r;
	const char *s;
};
/* A row of type t in window (v: one value per field, in order), in the
 * batch. 0 stored or left out by the bound, < 0 a store error. */
int gl_store_record_put(struct gl_store *st, const struct gl_record_type *t, int64_t window,
			const union gl_record_value *v);
/* The largest value of integer field `field` over t's rows: *out, 0 when
 * there is none. */
int gl_store_record_max(struct gl_store *st, const struct gl_record_type *t, const char *field, int64_t *out,
			struct gl_err *err);

/* A storage operation worth keeping: the workload stores failed ones
 * (error_class set), a bounded number per window. */
struct gl_storage_op_row {
	int64_t window;
	const char *op;
	uint64_t bytes;
	int64_t latency_ns;
	const char *error_class;
};
int gl_store_storage_op_put(struct gl_store *st, const struct gl_storage_op_row *r);

int gl_store_preflight_put(struct gl_store *st, const char *subject, const char *check, int ok, const char *detail);

/* One gate on one host, before or after the soak (docs/gates.md). raw is
 * kept up to GL_GATE_RAW_MAX bytes (raw_len says how much there was);
 * results is the DCGM rows as a JSON array, or NULL. put commits now. */
#define GL_GATE_RAW_MAX (1u << 20)
struct gl_gate_row {
	char id[64], kind[16], host[64], when[8];
	char status[8]; /* pass | warn | fail | skip */
	char reason[512]; /* why it failed or warned, or skipped */
	int exit_status; /* -1: did not run or timed out */
	int64_t started_wall_ns;
	double dur_s;
	char file[256]; /* the raw output, relative to the run directory; "" if none */
	const char *results;
	const char *raw;
	size_t raw_len;
};
int gl_store_gate_put(struct gl_store *st, const struct gl_gate_row *g, struct gl_err *err);
/* 1 when that gate passed (or warned) on that host and when already */
int gl_store_gate_passed(struct gl_store *st, const char *id, const char *host, const char *when);

int gl_store_event(struct gl_store *st, int64_t elapsed_ns, const char *level, const char *source, const char *message);

/* Readers, in the order written. Each calls fn once per row (its strings
 * valid during the call only; a NULL column is ""); fn returns 0 to go on,
 * non-zero to stop there (the scan then returns that value). A store
 * error returns < 0 with err set. */
typedef int (*gl_store_preflight_fn)(void *arg, const char *subject, const char *check, int ok, const char *detail);
int gl_store_preflight_scan(struct gl_store *st, gl_store_preflight_fn fn, void *arg, struct gl_err *err);
/* the gate rows: raw and started_wall_ns are not read back (0, NULL) */
typedef int (*gl_store_gate_fn)(void *arg, const struct gl_gate_row *g);
int gl_store_gate_scan(struct gl_store *st, gl_store_gate_fn fn, void *arg, struct gl_err *err);
/* the warn and error events (debug and info left out) */
typedef int (*gl_store_event_fn)(void *arg, int64_t elapsed_ns, const char *source, const char *message);
int gl_store_problem_scan(struct gl_store *st, gl_store_event_fn fn, void *arg, struct gl_err *err);
/* every window's row, in index order */
struct gl_store_window_row {
	int64_t idx, start_ns, end_ns, scn_start_ns, scn_end_ns;
	int phase, complete;
};
typedef int (*gl_store_window_row_fn)(void *arg, const struct gl_store_window_row *w);
int gl_store_window_rows(struct gl_store *st, gl_store_window_row_fn fn, void *arg, struct gl_err *err);
/* the last window when it is still open (complete = 0): 1 and its index
 * and start, else 0 (none, or not read) */
int gl_store_window_open(struct gl_store *st, int64_t *idx, int64_t *start_ns);

/* Documents kept with the run by key, e.g. "inventory" (what the hosts and
 * the scenario's git repository were at run start), so that reports can
 * show them later from the store alone. put replaces any earlier document
 * of that key and commits now (with the batch). get sets *out to a malloc'd
 * copy (caller frees), or NULL with 0 returned when there is none. */
int gl_store_doc_put(struct gl_store *st, const char *key, const char *json, struct gl_err *err);
int gl_store_doc_get(struct gl_store *st, const char *key, char **out, struct gl_err *err);

/* A process a workload started that could outlive the controller (child.h):
 * put commits now, before the child is let go, and returns the row's seq
 * (> 0) or a negative code; ended marks it reaped (in the batch); list
 * gives the rows not marked ended, in order (*out malloc'd, free it). */
struct gl_child_row {
	int64_t seq;
	char source[32]; /* the workload: "training", "storage" */
	char what[256]; /* its command, cut */
	int pid, pgid;
	uint64_t start_ticks; /* /proc/PID/stat field 22 */
	char boot_id[40], hostname[128];
	int64_t started_wall_ns;
};
int64_t gl_store_child_put(struct gl_store *st, const struct gl_child_row *c, struct gl_err *err);
int gl_store_child_ended(struct gl_store *st, int64_t seq);
int gl_store_child_list(struct gl_store *st, struct gl_child_row **out, int *n, struct gl_err *err);

#endif
