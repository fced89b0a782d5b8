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
#include "plugin.h"
#include "store.h"

enum stop_reason { STOP_NONE, STOP_END, STOP_SIGNAL, STOP_ABORT_IF, STOP_ERROR };

struct fault_rt {
	struct gl_fault_row row;
	cJSON *plan;
	const struct gl_fault_spec *spec;
	int busy;                 /* a step is with the executor */
	char revert_pending[200]; /* revert asked for while busy: why */
	int replan;               /* resume: once reverted, planned again (one journal commit) */
};

struct fx;

struct gl_ctx {
	struct event_base *base;
	struct gl_scenario *sc;
	struct gl_store *st;
	struct gl_metrics *m;
	char dir[1024];
	char run_id[40];
	int resumes;              /* 0 on the first process of a run */
	double scale;
	int64_t elapsed_base, mono_start;
	int time_held;            /* resume's reconciliation: elapsed stays at the resume point */
	int log_clock;            /* log lines carry this run's elapsed clock (log_elapsed) */
	struct gl_tl_event *tl;
	int n_tl, tl_next;
	int64_t win_idx, win_start_ns;
	int phase;
	void **wl_state;
	int wl_started;
	struct fault_rt *faults;
	struct event *ev_tl, *ev_commit, *ev_window, *ev_int, *ev_term;
	enum stop_reason stop;
	char stop_msg[512];
	int64_t *abort_since;
	int lock_fd;
	struct fx *fx;
	struct gl_live *live;     /* --metrics-listen, progress line, window log */
	int win_fault;            /* a fault was injected during the open window */
	char child_mark[80];      /* GAUNTLET_RUN_ID=<run id> */
	/* load agents (agents.c): per workload, NULL where it runs here */
	struct gl_agents **agents;
	/* with agents, a window closes in two steps (controller.c): at its
	 * boundary what this process recorded moves to closing; once every
	 * agent sent its last figures for it, or after the settle time, it
	 * is written */
	struct gl_metrics *closing;
	int64_t closing_idx, closing_start, closing_end;
	int closing_phase, closing_pending, closing_fault;
	struct event *ev_settle;
	/* in an agent process (agent.c): its share of the load, where the
	 * rows and events go */
	int shard, shards;
	int64_t origin_ns;
	void (*row_sink)(void *arg, const struct gl_request_row *r);
	void (*event_sink)(void *arg, enum gl_log_level lvl, const char *source, const char *msg);
	void *sink_arg;
};

/* A fault step, as the executor runs it (executor.c). */
enum fx_op { FX_INJECT, FX_REVERT };

/* ctx.c */
void ctl_log_clock_start(struct gl_ctx *c);
int ctl_stop_leftovers(struct gl_ctx *c, const char *who);
int64_t ctl_scn_now(struct gl_ctx *c, int64_t elapsed);

/* executor.c */
int ctl_journal(struct gl_ctx *c, struct fault_rt *f);
int ctl_is_live(const char *state);
int ctl_fx_start(struct gl_ctx *c);
void ctl_fx_stop(struct gl_ctx *c);
void ctl_start_step(struct gl_ctx *c, struct fault_rt *f, const char *state, enum fx_op op, const char *why);
void ctl_fault_revert(struct gl_ctx *c, struct fault_rt *f, const char *why);
int ctl_active_faults(struct gl_ctx *c);
void ctl_fault_inject(struct gl_ctx *c, struct fault_rt *f);
void ctl_revert_all(struct gl_ctx *c, const char *why);

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
void ctl_store_policy(struct gl_ctx *c);

#endif
