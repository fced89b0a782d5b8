/*
 * controller_int.h - what the engine's files share; not for plug-ins
 * (they see plugin.h) nor for the command line (controller.h).
 *
 * Who owns what:
 *   controller.c  the loop: windows and commits, the timeline, signals,
 *                 start-up of the loop (ctl_start_loop) and the run from
 *                 the loop to the verdict and the ordered stop (ctl_drive);
 *                 the live view's options and the report writer main sets
 *   ctx.c         the context as plug-ins see it (gl_ctx_*), the run's
 *                 clock, and the processes the workloads start: their
 *                 records and stopping leftovers (ctl_stop_leftovers)
 *   executor.c    faults: the journal (ctl_journal), the executor thread
 *                 and the fault steps (inject, revert, revert all)
 *   gates.c       the scenario's gates, before the soak and after it
 *   commands.c    run, resume and revert (controller.h), and what they
 *                 share: opening a recorded run, the run lock, building
 *                 the faults, freeing the context
 *
 * Functions named ctl_* are the engine's own, shared between these files.
 */
#ifndef GL_CONTROLLER_INT_H
#define GL_CONTROLLER_INT_H

#include <stdint.h>

#include <cJSON.h>

#include "controller.h"
#include "nodes.h"
#include "plugin.h"
#include "store.h"

enum stop_reason { STOP_NONE, STOP_END, STOP_SIGNAL, STOP_ABORT_IF, STOP_ERROR };

struct fault_rt {
	struct gl_fault_row row;
	cJSON *plan;
	const struct gl_fault_spec *spec;
	int busy; /* a step is with the executor */
	char revert_pending[200]; /* revert asked for while busy: why */
	int replan; /* resume: once reverted, planned again (one journal commit) */
	int dm_fired_inject; /* its watcher fired while the inject still ran */
	enum gl_fault_state notified; /* the last state the webhooks were told of (planned: none) */
};

struct fx;
struct gl_dm;
struct gl_notify;

struct gl_sim;

/* The run's identity and its place on disk. */
struct ctx_run {
	char dir[1024];
	char id[40];
	int resumes; /* 0 on the first process of a run */
	int64_t down_ns; /* a resume: the controller down from its last commit, 0 unknown */
	int lock_fd;
	char child_mark[80]; /* GAUNTLET_RUN_ID=<run id> */
	char host[GL_NODE_NAME_MAX]; /* gl_ctx_host's answer, once asked */
};

/* The run's clock (ctx.c). */
struct ctx_clock {
	double scale;
	int64_t elapsed_base, mono_start;
	int held; /* resume's reconciliation: elapsed stays at the resume point */
	int log; /* log lines carry this run's elapsed clock (log_elapsed) */
};

/* The timeline: its events, the next one due, its timer, the phase in force. */
struct ctx_timeline {
	struct gl_tl_event *ev;
	int n, next;
	struct event *timer;
	int phase;
};

/* Windows and commits (controller.c). */
struct ctx_window {
	int64_t idx, start_ns;
	/* set by resume: idx and start_ns are the store's open window */
	int restored;
	struct event *ev_commit, *ev_close;
	/* the metrics abort_if's rules read (agg_wants): names from the
	 * catalog, all of them when agg_all */
#define GL_AGG_NAMES 24
	const char *agg_names[GL_AGG_NAMES];
	int n_agg_names, agg_all, agg_ready;
	/* with agents, a window closes in two steps: at its boundary what this
	 * process recorded moves to closing; once every agent sent its last
	 * figures for it, or after the settle time, it is written */
	struct gl_metrics *closing;
	int64_t closing_idx, closing_start, closing_end;
	int closing_pending;
	struct event *ev_settle;
};

/* The workloads' states, and their load agents (agents.c): per workload,
 * NULL where it runs here. */
struct ctx_workloads {
	void **state;
	int started;
	struct gl_agents **agents;
};

/* Why and how the run stops. */
struct ctx_halt {
	enum stop_reason reason;
	char msg[512];
	struct event *ev; /* SIGINT/SIGTERM's pipe (stop.h) readable */
	int64_t *abort_since;
};

/* Who watches: the live view and the webhooks. */
struct ctx_observers {
	struct gl_live *live; /* --metrics-listen, progress line, window log */
	struct gl_notify *nt; /* the scenario's webhooks (notify.h); NULL: none */
	int64_t nt_saved[3]; /* their counts as last stored (sent, failed, dropped) */
};

/* In an agent process (agent.c): its share of the load, where the rows
 * and events go. */
struct ctx_agent {
	int shard, shards;
	int64_t origin_ns;
	char host[GL_NODE_NAME_MAX]; /* where the controller launched it (the plan's "host"); "" unknown */
	void (*row_sink)(void *arg, const struct gl_request_row *r);
	void (*event_sink)(void *arg, enum gl_log_level lvl, const char *source, const char *msg);
	void *sink_arg;
};

/* A run in this process: the parts it drives, then each concern's state. */
struct gl_ctx {
	struct event_base *base;
	struct gl_sim *sim; /* `gauntlet simulate` (sim.h); NULL in every real run */
	struct gl_scenario *sc;
	struct gl_store *st;
	struct gl_metrics *m;
	struct gl_nodes *nodes; /* per-node figures by window (nodes.h) */
	struct fault_rt *faults;
	struct fx *fx;
	struct gl_dm *dm; /* the watchers' lease renewals (watcher.c) */
	struct ctx_run run;
	struct ctx_clock clk;
	struct ctx_timeline timeline;
	struct ctx_window win;
	struct ctx_workloads wl;
	struct ctx_halt halt;
	struct ctx_observers obs;
	struct ctx_agent agent;
};

/* A fault step, as the executor runs it (executor.c). */
enum fx_op { FX_INJECT, FX_REVERT };

/* controller.c: a commit now (the open window, the run's clock), as the
 * commit timer makes one, while the loop runs; nothing otherwise */
void ctl_commit_now(struct gl_ctx *c);

/* ctx.c */
void ctl_log_clock_start(struct gl_ctx *c);
int ctl_stop_leftovers(struct gl_ctx *c, const char *who);
int64_t ctl_scn_now(struct gl_ctx *c, int64_t elapsed);

/* executor.c */
int ctl_journal(struct gl_ctx *c, struct fault_rt *f);
int ctl_fx_start(struct gl_ctx *c);
void ctl_fx_stop(struct gl_ctx *c);
void ctl_start_step(struct gl_ctx *c, struct fault_rt *f, enum gl_fault_state state, enum fx_op op, const char *why);
void ctl_fault_revert(struct gl_ctx *c, struct fault_rt *f, const char *why);
int ctl_active_faults(struct gl_ctx *c);
void ctl_fault_inject(struct gl_ctx *c, struct fault_rt *f);
void ctl_revert_all(struct gl_ctx *c, const char *why);

/* watcher.c: the dead-man's switch (docs/faults.md). ctl_dm_plan (loop
 * thread, before inject is journaled) puts the watcher's settings and
 * paths into plan["deadman"], or {"none": why}, and sets row.deadman.
 * ctl_dm_arm (before inject) starts the watcher on the host: 0 (*pid
 * set, 0 when the plan has none) or < 0 with err (nothing may be
 * injected). ctl_dm_claim (before a revert) takes the claim, stops the
 * watcher and removes its files (CTL_DM_CLAIMED; CTL_DM_CLAIMED_HELD when
 * the watcher did not end: its files stay), or finds that the watcher
 * reverted the fault already (CTL_DM_FIRED, rec filled), or that there is
 * none (CTL_DM_NONE); < 0 when the host could not be asked.
 * ctl_dm_cleanup removes the watcher's files once the fault is reverted
 * (needed after FIRED, CLAIMED_HELD or an error). */
enum { CTL_DM_NONE = 0, CTL_DM_CLAIMED = 1, CTL_DM_FIRED = 2, CTL_DM_CLAIMED_HELD = 3 };
struct ctl_dm_rec {
	char why[200];
	/* unix seconds on the host: the watcher's start (before the inject;
	 * 0 in records of older watchers), its revert's start and end */
	int64_t armed, started, reverted_at;
	int status; /* the revert's exit status */
};
/* ctl_dm_plan returns -1 when the fault has no switch and
 * safety.require_deadman forbids injecting it (row.deadman says why). */
int ctl_dm_plan(struct gl_ctx *c, struct fault_rt *f);
int ctl_dm_arm(struct gl_ctx *c, const struct fault_rt *f, int *pid, struct gl_err *err);
int ctl_dm_claim(struct gl_ctx *c, const struct fault_rt *f, const cJSON *plan, struct ctl_dm_rec *rec,
		 struct gl_err *err);
void ctl_dm_cleanup(struct gl_ctx *c, const struct fault_rt *f, const cJSON *plan);
/* --dry-run, resume/revert --dry-run: the watcher script, or why none. */
void ctl_dm_describe(const struct fault_rt *f, const cJSON *plan, struct gl_buf *out);
/* The renewal thread (started with the executor; renews the watchers of
 * faults already injected, as on resume), and the set it renews. */
int ctl_dm_start(struct gl_ctx *c);
void ctl_dm_stop(struct gl_ctx *c);
void ctl_dm_watch(struct gl_ctx *c, struct fault_rt *f);
/* Executor, right after ctl_dm_arm: the lease renewed while the inject
 * runs (it may take longer than the grace), the planned end not yet in
 * force; ctl_dm_watch, once injected, sets the end. */
void ctl_dm_watch_arming(struct gl_ctx *c, struct fault_rt *f, int pid);
void ctl_dm_unwatch(struct gl_ctx *c, struct fault_rt *f);

/* gates.c: run every gate of the before (after 0) or after set on each
 * of its hosts; rows to the store, raw output to DIR/gates/. Returns how
 * many failed; the first failure's sentence in why ("gate ID WHEN on
 * HOST: GPU 1: memory failed: ..."). A gate that passed or warned on a
 * host already (resume of a run killed during its gates) is not run again. skip records them as not run. */
int ctl_gates_run(struct gl_ctx *c, int after, char *why, size_t why_n);
/* The preflight gate: every host a fault targets answers through its
 * transport (with a verified host key, for ssh), every tool a fault kind
 * needs is there, and each plug-in's own checks pass (gates.c). 0 when
 * all passed. */
int ctl_preflight_run(struct gl_ctx *c);
void ctl_gates_skip(struct gl_ctx *c, int after, const char *reason);

/* notify_events.c: what the webhooks are told (notify.h sends it).
 * open reads the URLs (run, resume): 0, or 4 after saying which variable
 * is missing (nothing may start). start: the run started (or resumed);
 * fault: a fault's journaled state, sent once per state (ctl_journal);
 * window: a window closed (targets missed for the first time; failures
 * to log; the live counters, stored); stopping: the loop ended on a
 * signal, abort_if or an error (before the reverts); stop: end with the
 * verdict and exit code, delivered within the end deadline, the counts
 * stored (doc "notify") for report.json. */
int ctl_notify_open(struct gl_ctx *c);
void ctl_notify_start(struct gl_ctx *c);
void ctl_notify_fault(struct gl_ctx *c, struct fault_rt *f);
void ctl_notify_window(struct gl_ctx *c);
void ctl_notify_stopping(struct gl_ctx *c);
/* preflight or a before-gate failed (exit 4, nothing started): error and
 * end are sent, no start */
void ctl_notify_failed_start(struct gl_ctx *c, const char *why);
/* a stop request before the soak started: the sender starts for the
 * abort and the end that follow (ctl_notify_stopping, ctl_notify_stop),
 * with no start message (nothing started) */
void ctl_notify_open_for_stop(struct gl_ctx *c);
void ctl_notify_stop(struct gl_ctx *c, const char *state, const char *verdict, int code, int targets_failing,
		     int targets);

/* controller.c */
/* Where figures an agent sent for window idx go: the open window's
 * metrics, or the closing one's; *late set when the window was written
 * already (they go to the open one). */
struct gl_metrics *ctl_window_metrics(struct gl_ctx *c, int64_t idx, int *late);
/* An agent finished a window: write the closing one if all have. */
void ctl_window_settle_check(struct gl_ctx *c);
int ctl_write_reports(const char *dir, struct gl_store *st, struct gl_err *err);
int ctl_start_loop(struct gl_ctx *c);
int ctl_drive(struct gl_ctx *c);
/* A stop request (SIGINT, SIGTERM, stop.h) came: 1, and c->stop says so
 * (STOP_SIGNAL, "stopped by SIGTERM") unless abort_if or an error stopped
 * the run first; a run that reached its end without its verdict yet is
 * stopped too. 0 while none came. */
int ctl_stopping(struct gl_ctx *c);
/* The run's end, whichever way it stopped (c->stop set): state, verdict
 * and exit code into the store, the reports, the webhooks' end, the last
 * line. Returns the exit code. */
int ctl_finish(struct gl_ctx *c);
void ctl_store_policy(struct gl_ctx *c);

#endif
