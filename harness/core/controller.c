/*
 * controller.c - the event loop that runs a soak.
 *
 * Time: everything is measured on CLOCK_MONOTONIC as "elapsed", real
 * nanoseconds since the run started; a resumed run continues from the
 * elapsed value of its last commit, so the timeline (and window numbering)
 * picks up where the store says it stood. Scenario time is elapsed times
 * the time scale; windows, rates and timeouts stay in real time.
 *
 * Crash safety: a fault's journal row, with the plan its revert needs, is
 * committed before inject, and every state change is committed before the
 * next step. On resume the journal is reconciled first (finish reverts that
 * are due, revert what a crash left half-injected), then the loop goes on.
 *
 * Stopping: SIGINT and SIGTERM are a sticky request to stop (stop.h),
 * set up before the run's first phase. Each phase that waits ends on one:
 * the commands of the inventory, preflight and gates are ended
 * (interruptible on this thread), the wait for agents and the loop wake on
 * the request's pipe (ev_stop). Whatever the phase, the run then stops in
 * order and ends aborted, reported (exit 3); nothing already injected is
 * left in.
 *
 * This file is the loop: windows and commits, the timeline, signals,
 * start-up and the ordered stop. controller_int.h says what the engine's
 * other files own.
 */
#define _GNU_SOURCE
#include "controller_int.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "agents.h"
#include "analysis.h"
#include "catalog.h"
#include "live.h"
#include "metrics.h"
#include "sim.h"
#include "stop.h"
#include "timeline.h"

#define COMMIT_INTERVAL_NS GL_COMMIT_INTERVAL_NS

/* The live view's options, for run and resume alike (main sets them). */
static struct gl_live_opts live_opts;

static gl_report_writer reporter;

void gl_controller_reporter(gl_report_writer w)
{
	reporter = w;
}

static gl_report_writer_an reporter_an;

void gl_controller_reporter_an(gl_report_writer_an w)
{
	reporter_an = w;
}

int ctl_write_reports(const char *dir, struct gl_store *st, struct gl_err *err)
{
	return reporter ? reporter(dir, st, err) : 0;
}

/* The reports from the analysis judge kept (reporter_an), else from the
 * store (reporter). */
static int write_reports_from(struct gl_ctx *c, struct gl_analysis *an, struct gl_err *err)
{
	if (!reporter_an || !an)
		return ctl_write_reports(c->run.dir, c->st, err);
	gl_run_row_free(&an->run);
	if (gl_store_run_load(c->st, &an->run, err) != 0)
		return -GL_EIO;
	return reporter_an(c->run.dir, c->st, an, err);
}

void gl_controller_live_opts(const struct gl_live_opts *o)
{
	live_opts = *o;
}

/* ---- windows and commits ------------------------------------------------- */

/* What the store keeps, from the scenario's "store" (run and resume
 * alike; its validation refused anything the store would not take). */
void ctl_store_policy(struct gl_ctx *c)
{
	const struct gl_scenario *sc = c->sc;

	if (gl_store_request_policy(
		    c->st, sc->store_requests,
		    sc->store_sample_per_window >= 0 ? sc->store_sample_per_window : GL_STORE_SAMPLE_PER_WINDOW,
		    sc->store_errors_per_window >= 0 ? sc->store_errors_per_window : GL_STORE_ERRORS_PER_WINDOW) != 0 ||
	    gl_store_event_policy(c->st, sc->store_events,
				  sc->store_debug_per_minute >= 0 ? sc->store_debug_per_minute
								  : GL_STORE_DEBUG_PER_MINUTE) != 0)
		gl_warn("store: retention policy not taken (requests '%s', events '%s'): the defaults stay",
			sc->store_requests, sc->store_events);
}

struct snap {
	struct gl_ctx *c;
	int64_t idx;
	struct gl_agg *agg; /* for abort_if, may be NULL */
	int rc;
};

/* Does the window's aggregate need this metric? The live view judges
 * every one; abort_if only the figures its rules name (a ratio or rate
 * through its counters), so that each window does not copy every
 * histogram for nothing. */
static int agg_wants(struct gl_ctx *c, const char *name)
{
	if (c->obs.live)
		return 1;
	if (!c->win.agg_ready) {
		/* the names, once per process: a rule's figure and its
		 * counters (GL_AGG_NAMES at most, else everything) */
		for (int i = 0; i < c->sc->n_abort_rules && !c->win.agg_all; i++) {
			struct gl_target_name t;
			char why[200];
			const char *n3[3];
			if (gl_catalog_parse_target(c->sc->abort_rules[i].metric, &t, why, sizeof(why)) != 0 ||
			    !t.def) {
				c->win.agg_all = 1; /* not understood here: keep everything */
				break;
			}
			n3[0] = t.def->name;
			n3[1] = t.def->num;
			n3[2] = t.def->den;
			for (int k = 0; k < 3 && !c->win.agg_all; k++) {
				if (!n3[k])
					continue;
				if (c->win.n_agg_names == GL_AGG_NAMES)
					c->win.agg_all = 1;
				else
					c->win.agg_names[c->win.n_agg_names++] = n3[k];
			}
		}
		c->win.agg_ready = 1;
	}
	if (c->win.agg_all)
		return 1;
	for (int i = 0; i < c->win.n_agg_names; i++)
		if (!strcmp(c->win.agg_names[i], name))
			return 1;
	return 0;
}

static void snap_one(void *arg, const char *name, const struct gl_hist *h, int64_t counter)
{
	struct snap *s = arg;
	unsigned char *blob = NULL;
	size_t len = 0;

	if (h && gl_hist_serialize(h, &blob, &len) != 0) {
		s->rc = -1;
		return;
	}
	if (gl_store_window_metric_put(s->c->st, s->idx, name, blob, len, counter) != 0)
		s->rc = -1;
	if (s->agg && agg_wants(s->c, name)) {
		if (h)
			gl_agg_add_hist(s->agg, name, h);
		else
			gl_agg_add_counter(s->agg, name, counter);
	}
	free(blob);
}

/* A window's phase is the phase in force at its start: a function of the
 * window alone, not of which of two timers due at the same moment (the
 * window's close, a phase's start) the loop ran first. */
static int window_phase(struct gl_ctx *c, int64_t start)
{
	return gl_scenario_phase_at(c->sc, ctl_scn_now(c, start));
}

static void node_one(void *arg, const struct gl_node_fig *f)
{
	struct snap *s = arg;

	if (gl_store_node_put(s->c->st, f) != 0)
		s->rc = -1;
}

static int write_window_of(struct gl_ctx *c, struct gl_metrics *m, int64_t idx, int64_t start, int64_t end_elapsed,
			   int complete, struct gl_agg *agg)
{
	struct snap s = { c, idx, agg, 0 };
	int rc;

	rc = gl_store_window_put(c->st, idx, start, end_elapsed, ctl_scn_now(c, start), ctl_scn_now(c, end_elapsed),
				 window_phase(c, start), complete);
	if (complete)
		gl_metrics_visit_reset(m, snap_one, &s); /* the window closes */
	else
		gl_metrics_visit(m, snap_one, &s);
	gl_nodes_visit(c->nodes, idx, complete, node_one, &s);
	return rc ? rc : s.rc;
}

static int write_window(struct gl_ctx *c, int64_t end_elapsed, int complete, struct gl_agg *agg)
{
	return write_window_of(c, c->m, c->win.idx, c->win.start_ns, end_elapsed, complete, agg);
}

static void fail_store(struct gl_ctx *c, const char *what)
{
	if (c->halt.reason == STOP_NONE) {
		c->halt.reason = STOP_ERROR;
		snprintf(c->halt.msg, sizeof(c->halt.msg), "store write failed (%s)", what);
		event_base_loopbreak(c->base);
	}
}

static void commit(struct gl_ctx *c)
{
	int64_t now = gl_ctx_elapsed_ns(c);
	struct gl_err err = { 0 };

	if (c->sim)
		ctl_sim_emit(c); /* the models' figures up to now (sim.h) */
	if (write_window(c, now, 0, NULL) != 0 || gl_store_run_progress(c->st, now) != 0 ||
	    gl_store_flush(c->st, &err) != 0)
		fail_store(c, err.code ? err.msg : "commit");
}

void ctl_commit_now(struct gl_ctx *c)
{
	/* only while the loop commits on its timer (not in resume's
	 * reconciliation, nor in `gauntlet revert`, nor once stopping) */
	if ((c->win.ev_commit && event_pending(c->win.ev_commit, EV_TIMEOUT, NULL)) || ctl_sim_running(c))
		commit(c);
}

/* Where the run stands, for the live view. */
static void live_status(struct gl_ctx *c)
{
	struct gl_live_status s = { 0 };
	char ids[512] = "";
	size_t k = 0;

	if (!c->obs.live)
		return;
	for (int i = 0; i < c->sc->n_faults; i++)
		if (gl_fault_state_live(c->faults[i].row.state) && k + strlen(c->faults[i].row.id) + 2 < sizeof(ids)) {
			k += (size_t)snprintf(ids + k, sizeof(ids) - k, "%s%s", s.n_active ? "," : "",
					      c->faults[i].row.id);
			s.n_active++;
		}
	s.elapsed_ns = gl_ctx_elapsed_ns(c);
	s.total_ns = gl_timeline_real_ns(c->sc->duration_ns, c->clk.scale);
	s.scale = c->clk.scale;
	s.phase = c->timeline.phase;
	s.active = ids;
	for (int i = 0; c->wl.agents && i < c->sc->n_workloads; i++)
		if (c->wl.agents[i])
			gl_agents_count(c->wl.agents[i], &s.agents_planned, &s.agents_connected);
	gl_live_status(c->obs.live, &s);
}

static void on_commit(evutil_socket_t fd, short what, void *arg)
{
	commit(arg);
	live_status(arg);
	ctl_notify_window(arg);
}

static void check_abort(struct gl_ctx *c, struct gl_agg *w, int64_t w_start, int64_t w_end)
{
	for (int i = 0; i < c->sc->n_abort_rules; i++) {
		const struct gl_abort_rule *r = &c->sc->abort_rules[i];
		double v;
		if (gl_agg_eval(w, r->metric, &v) == 0 && gl_cmp_eval(r->expr.op, v, r->expr.threshold)) {
			if (c->halt.abort_since[i] < 0)
				c->halt.abort_since[i] = w_start;
			if (w_end - c->halt.abort_since[i] >= r->for_ns && c->halt.reason == STOP_NONE) {
				c->halt.reason = STOP_ABORT_IF;
				snprintf(c->halt.msg, sizeof(c->halt.msg), "abort_if: %s = %g %s %g", r->metric, v,
					 gl_cmp_str(r->expr.op), r->expr.threshold);
			}
		} else {
			c->halt.abort_since[i] = -1;
		}
	}
}

/* ---- windows with load agents: closed in two steps ------------------------------------------ */

static void move_one(void *arg, const char *name, const struct gl_hist *h, int64_t counter)
{
	gl_metrics_merge(arg, name, h, counter);
}

static void live_node_one(void *arg, const struct gl_node_fig *f)
{
	gl_live_node_row(arg, f);
}

/* Window idx, from m, written complete, then judged: abort_if and the
 * live view (both ways of closing a window end here). */
static void write_closed(struct gl_ctx *c, struct gl_metrics *m, int64_t idx, int64_t start, int64_t end)
{
	struct gl_agg *agg = c->sc->n_abort_rules || c->obs.live ? gl_agg_new() : NULL;

	if (c->obs.live) { /* its per-node rows, before the store takes them */
		gl_nodes_visit(c->nodes, idx, 0, live_node_one, c->obs.live);
		gl_live_nodes_close(c->obs.live, idx);
	}
	if (write_window_of(c, m, idx, start, end, 1, agg) != 0)
		fail_store(c, "window");
	if (agg) {
		gl_agg_add_seconds(agg, (double)(end - start) / 1e9);
		if (c->sc->n_abort_rules)
			check_abort(c, agg, start, end);
		gl_live_window(c->obs.live, idx, start, end, agg, window_phase(c, start));
		gl_agg_free(agg);
	}
}

/* The closing window's second step: every agent sent its last figures
 * for it (or the settle time passed): write it. */
static void settle(struct gl_ctx *c)
{
	struct gl_err err = { 0 };
	int64_t idx = c->win.closing_idx;

	if (!c->win.closing_pending)
		return;
	c->win.closing_pending = 0;
	event_del(c->win.ev_settle);
	for (int i = 0; i < c->sc->n_workloads; i++)
		if (c->wl.agents[i])
			gl_agents_window_done(c->wl.agents[i], idx, c->win.closing);
	write_closed(c, c->win.closing, idx, c->win.closing_start, c->win.closing_end);
	if (gl_store_flush(c->st, &err) != 0)
		fail_store(c, "window");
	gl_store_wal_trim(c->st);
	if (c->halt.reason != STOP_NONE)
		event_base_loopbreak(c->base);
}

static void on_settle(evutil_socket_t fd, short what, void *arg)
{
	settle(arg);
}

void ctl_window_settle_check(struct gl_ctx *c)
{
	if (!c->win.closing_pending)
		return;
	for (int i = 0; i < c->sc->n_workloads; i++)
		if (c->wl.agents[i] && !gl_agents_delivered(c->wl.agents[i], c->win.closing_idx))
			return;
	settle(c);
}

struct gl_metrics *ctl_window_metrics(struct gl_ctx *c, int64_t idx, int *late)
{
	*late = 0;
	if (c->win.closing_pending && idx == c->win.closing_idx)
		return c->win.closing;
	if (idx < c->win.idx)
		*late = 1;
	return c->m;
}

/* Close the current window at end_elapsed and open the next one. With
 * load agents this is the first of two steps: what this process recorded
 * moves aside, and the window is written once the agents' last figures
 * for it are in (settle). */
static void close_window(struct gl_ctx *c, int64_t end_elapsed)
{
	struct gl_err err = { 0 };

	settle(c); /* with agents, one still waiting: written as it stands */
	if (c->sim)
		ctl_sim_emit(c);
	for (int i = 0; i < c->sc->n_workloads; i++)
		if (c->wl.started && c->wl.state[i] && c->sc->workloads[i].ops->on_window)
			c->sc->workloads[i].ops->on_window(c->wl.state[i]);
	if (c->win.closing) {
		gl_metrics_visit_reset(c->m, move_one, c->win.closing);
		c->win.closing_idx = c->win.idx;
		c->win.closing_start = c->win.start_ns;
		c->win.closing_end = end_elapsed;
		c->win.closing_pending = 1;
	} else {
		write_closed(c, c->m, c->win.idx, c->win.start_ns, end_elapsed);
	}
	c->win.idx++;
	c->win.start_ns = end_elapsed;
	/* The next window's row appears with the next commit; an empty one at
	 * the very end is never written. */
	if (gl_store_run_progress(c->st, end_elapsed) != 0 ||
	    (!ctl_sim_defer_flush(c) && gl_store_flush(c->st, &err) != 0))
		fail_store(c, "window");
	if (c->win.closing) {
		gl_ctx_arm_at(c, c->win.ev_settle, end_elapsed + ctl_agents_settle_ns(c));
		ctl_window_settle_check(c);
		return;
	}
	/* The WAL cut back at each window close once past its limit: it
	 * stays at a few MiB for the run. */
	gl_store_wal_trim(c->st);
	gl_debug("window %lld closed", (long long)(c->win.idx - 1));
	if (c->halt.reason != STOP_NONE)
		event_base_loopbreak(c->base);
}

/* When the timeline ends (its END event, real elapsed ns), or INT64_MAX. */
static int64_t timeline_end_ns(const struct gl_ctx *c)
{
	for (int i = c->timeline.n - 1; i >= 0; i--)
		if (c->timeline.ev[i].kind == GL_TL_END)
			return gl_timeline_real_ns(c->timeline.ev[i].t_ns, c->clk.scale);
	return INT64_MAX;
}

static void on_window(evutil_socket_t fd, short what, void *arg)
{
	struct gl_ctx *c = arg;
	int64_t boundary = (c->win.idx + 1) * c->sc->window_ns;

	/* The window the timeline ends in is closed by the end itself
	 * (close_last_window), after the workloads stopped: what they count
	 * while stopping (requests cut by the end) belongs to it. Closed here
	 * when its boundary and the end coincide, it would leave the next
	 * window with that count and no time, and be dropped. */
	if (boundary >= timeline_end_ns(c))
		return;
	close_window(c, boundary);
	if (c->halt.reason == STOP_NONE)
		gl_ctx_arm_at(c, c->win.ev_close, (c->win.idx + 1) * c->sc->window_ns);
}

/* ---- timeline ------------------------------------------------------------ */

static void set_phase(struct gl_ctx *c, int p)
{
	c->timeline.phase = p;
	for (int i = 0; i < c->sc->n_workloads; i++)
		if (c->wl.agents[i])
			gl_agents_set_load(c->wl.agents[i], c->sc->phases[p].load);
		else if (c->wl.state[i] && c->sc->workloads[i].ops->set_load)
			c->sc->workloads[i].ops->set_load(c->wl.state[i], c->sc->phases[p].load);
}

static void on_timeline(evutil_socket_t fd, short what, void *arg)
{
	struct gl_ctx *c = arg;
	int64_t now = gl_ctx_elapsed_ns(c);

	while (c->timeline.next < c->timeline.n && c->halt.reason == STOP_NONE) {
		const struct gl_tl_event *e = &c->timeline.ev[c->timeline.next];
		if (gl_timeline_real_ns(e->t_ns, c->clk.scale) > now)
			break;
		c->timeline.next++;
		switch (e->kind) {
		case GL_TL_PHASE:
			set_phase(c, e->index);
			gl_ctx_event(c, GL_LOG_INFO, "timeline", "phase '%s' (load x%g)", c->sc->phases[e->index].name,
				     c->sc->phases[e->index].load);
			break;
		case GL_TL_INJECT: ctl_fault_inject(c, &c->faults[e->index]); break;
		case GL_TL_REVERT: ctl_fault_revert(c, &c->faults[e->index], "scheduled"); break;
		case GL_TL_END: c->halt.reason = STOP_END; break;
		}
	}
	if (c->halt.reason != STOP_NONE)
		event_base_loopbreak(c->base);
	else if (c->timeline.next < c->timeline.n)
		gl_ctx_arm_at(c, c->timeline.timer,
			      gl_timeline_real_ns(c->timeline.ev[c->timeline.next].t_ns, c->clk.scale));
}

int ctl_stopping(struct gl_ctx *c)
{
	int sig = gl_stop_requested();

	if (!sig)
		return 0;
	if (c->halt.reason == STOP_NONE || c->halt.reason == STOP_END) {
		/* a run that reached its end but not its verdict yet (after
		 * gates, reports) is stopped too: it ends aborted */
		c->halt.reason = STOP_SIGNAL;
		snprintf(c->halt.msg, sizeof(c->halt.msg), "stopped by %s", gl_stop_name(sig));
	}
	return 1;
}

/* A signal's byte in the stop request's pipe, in the loop, in a wait
 * that runs it (agents) or in --metrics-linger: drained (the request
 * stays, stop.h), so that only a further signal wakes the loop again. */
static void on_stop(evutil_socket_t fd, short what, void *arg)
{
	struct gl_ctx *c = arg;

	gl_stop_drain();
	if (ctl_stopping(c))
		event_base_loopbreak(c->base);
}

int ctl_start_loop(struct gl_ctx *c)
{
	struct gl_err err = { 0 };

	{
		/* Precise timers (timerfd): the default epoll timeout rounds to
		 * milliseconds, which would show up as send lag. */
		struct event_config *cfg = event_config_new();
		if (cfg) {
			/* and no cached time: a timer armed after a slow callback
			 * must count from now, not from the loop's last wake-up,
			 * or windows close early */
			event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
			event_config_set_flag(cfg, EVENT_BASE_FLAG_NO_CACHE_TIME);
			c->base = event_base_new_with_config(cfg);
			event_config_free(cfg);
		}
	}
	if (!c->base)
		return -1;
	c->m = gl_metrics_new();
	c->nodes = gl_nodes_new();
	c->halt.abort_since = calloc((size_t)c->sc->n_abort_rules + 1, sizeof(int64_t));
	for (int i = 0; i < c->sc->n_abort_rules; i++)
		c->halt.abort_since[i] = -1;
	c->wl.state = calloc((size_t)c->sc->n_workloads + 1, sizeof(void *));
	c->timeline.timer = evtimer_new(c->base, on_timeline, c);
	c->win.ev_commit = event_new(c->base, -1, EV_PERSIST, on_commit, c);
	c->win.ev_close = evtimer_new(c->base, on_window, c);
	/* SIGINT and SIGTERM: their handler is the one the command set up
	 * before the first phase (gl_stop_install); the loop wakes on its pipe */
	c->halt.ev = gl_stop_fd() >= 0 ? event_new(c->base, gl_stop_fd(), EV_READ | EV_PERSIST, on_stop, c) : NULL;
	if (!c->m || !c->nodes || !c->wl.state || !c->timeline.timer || !c->win.ev_commit || !c->win.ev_close ||
	    !c->halt.ev || !c->halt.abort_since)
		return -1;
	event_add(c->halt.ev, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (gl_timeline_build(c->sc, &c->timeline.ev, &c->timeline.n) != 0)
		return -1;
	c->wl.agents = calloc((size_t)c->sc->n_workloads + 1, sizeof(*c->wl.agents));
	if (!c->wl.agents)
		return -1;
	for (int i = 0; i < c->sc->n_workloads; i++) {
		const struct gl_workload_spec *w = &c->sc->workloads[i];
		/* a workload run by agents has no state here (agents.c) */
		if (!c->sim && cJSON_GetObjectItemCaseSensitive(w->cfg, "agents")) {
			if (!c->win.closing && (!(c->win.closing = gl_metrics_new()) ||
						!(c->win.ev_settle = evtimer_new(c->base, on_settle, c))))
				return -1;
			continue;
		}
		if (w->ops->init(c, w->cfg, &c->wl.state[i], &err) != 0) {
			snprintf(c->halt.msg, sizeof(c->halt.msg), "workload %s: %s", w->name, err.msg);
			return -1;
		}
	}
	return 0;
}

/* The live view, from the first window this process closes; on resume
 * the windows before it come from the store. */
static int live_start(struct gl_ctx *c)
{
	struct gl_err err = { 0 };
	int64_t *inj = NULL, *rev = NULL;
	int rc = 0;

	c->obs.live = gl_live_new(c->base, c->sc, c->run.id, live_opts.listen, &err);
	if (!c->obs.live) {
		/* stopped like any other harness failure: failed, reported */
		c->halt.reason = STOP_ERROR;
		snprintf(c->halt.msg, sizeof(c->halt.msg), "--metrics-listen %s", err.msg);
		return -1;
	}
	if (live_opts.listen)
		gl_ctx_event(c, GL_LOG_INFO, "controller", "metrics at http://%s/metrics", gl_live_bound(c->obs.live));
	if (c->win.idx > 0) {
		inj = calloc((size_t)c->sc->n_faults + 1, sizeof(*inj));
		rev = calloc((size_t)c->sc->n_faults + 1, sizeof(*rev));
		for (int i = 0; inj && rev && i < c->sc->n_faults; i++) {
			inj[i] = c->faults[i].row.injected_elapsed_ns;
			rev[i] = c->faults[i].row.reverted_elapsed_ns;
		}
		if (!inj || !rev ||
		    gl_live_replay(c->obs.live, c->st, c->win.idx, inj, rev, c->sc->n_faults, &err) != 0)
			gl_ctx_event(c, GL_LOG_WARN, "controller", "live view: figures before the resume left out: %s",
				     err.code ? err.msg : "out of memory");
	}
	free(inj);
	free(rev);
	/* targets missed before the resume were told of then */
	gl_live_missed(c->obs.live, NULL, NULL);
	live_status(c);
	return rc;
}

/* The run is over and the endpoint shows its verdict: serve it for
 * --metrics-linger more, so that a last scrape sees the final figures. */
static void live_linger(struct gl_ctx *c)
{
	if (!c->obs.live || !live_opts.listen || live_opts.linger_ns <= 0)
		return;
	event_del(c->win.ev_commit);
	event_del(c->win.ev_close);
	event_del(c->timeline.timer);
	gl_info("metrics: serving the final figures at http://%s/metrics for %.1f s more", gl_live_bound(c->obs.live),
		(double)live_opts.linger_ns / 1e9);
	event_base_loopexit(c->base, &(struct timeval){ live_opts.linger_ns / 1000000000,
							(live_opts.linger_ns % 1000000000) / 1000 });
	event_base_dispatch(c->base);
}

/* The "after" gates, once the load stopped and faults are reverted: on a
 * run that reached its end only (a stop by signal, abort_if or error
 * records them as not run: the soak's verdict is not a pass anyway, and a
 * 2 h diagnostic is not what an operator stopping a run wants). A
 * failure fails the verdict (analysis.c). A stop request meanwhile ends
 * the gate running and records the rest as not run; the run ends aborted
 * (resume runs what did not pass). */
static void after_gates(struct gl_ctx *c)
{
	char why[700];
	int ended = c->halt.reason == STOP_END;

	if (ended && !ctl_stopping(c)) {
		gl_stop_interruptible(1);
		ctl_gates_run(c, 1, why, sizeof(why));
		gl_stop_interruptible(0);
		ctl_stopping(c); /* a request while they ran */
	} else {
		ctl_gates_skip(c, 1, c->halt.reason == STOP_NONE ? "the loop ended unexpectedly" : c->halt.msg);
	}
	/* a request after the loop had reached the end: not told yet */
	if (ended && c->halt.reason != STOP_END)
		ctl_notify_stopping(c);
}

/* Start the workloads (here or through their agents), then the fault
 * executor and the lease renewal; a failure is the run's stop. */
static void start_work(struct gl_ctx *c)
{
	struct gl_err err = { 0 };

	for (int i = 0; i < c->sc->n_workloads && c->halt.reason == STOP_NONE; i++) {
		if (c->wl.agents[i] ? gl_agents_start(c->wl.agents[i], &err) != 0
				    : c->sc->workloads[i].ops->start(c->wl.state[i], &err) != 0) {
			c->halt.reason = STOP_ERROR;
			snprintf(c->halt.msg, sizeof(c->halt.msg), "workload %s: %s", c->sc->workloads[i].name,
				 err.msg);
		}
	}
	c->wl.started = 1;
	/* a simulation runs every fault step inline, with no lease renewal
	 * (no watcher is modelled) */
	if (c->halt.reason == STOP_NONE && !c->sim && (ctl_fx_start(c) != 0 || ctl_dm_start(c) != 0)) {
		c->halt.reason = STOP_ERROR;
		snprintf(c->halt.msg, sizeof(c->halt.msg), "cannot start the fault executor or lease renewal thread");
	}
}

/* Stop in order: no new work, close the window, revert, flush, report.
 * Here the first: steps already handed to the executor finish and are
 * journaled (from here on fault steps run inline), the loop's timers end
 * (agents send their last figures while stopping: none may close a window
 * meanwhile), the workloads stop and settle. */
static void stop_work(struct gl_ctx *c)
{
	ctl_fx_stop(c);
	event_del(c->win.ev_close);
	event_del(c->win.ev_commit);
	event_del(c->timeline.timer);
	for (int i = 0; i < c->sc->n_workloads; i++)
		if (c->wl.agents[i])
			gl_agents_stop(c->wl.agents[i]);
		else if (c->wl.state[i])
			c->sc->workloads[i].ops->stop(c->wl.state[i]);
	settle(c);
	/* What a launcher moved out of its reach (a job in a session of its
	 * own) carries the run's mark: it ends with the run too. */
	ctl_stop_leftovers(c, "end of run");
}

/* The last window, ending at now, written (had_time) or dropped: a commit
 * may have opened a window that never got any time. */
static void close_last_window(struct gl_ctx *c, int64_t now, int had_time)
{
	struct gl_agg *agg;

	if (!had_time) {
		gl_store_window_drop(c->st, c->win.idx);
		return;
	}
	agg = c->obs.live ? gl_agg_new() : NULL;
	for (int i = 0; i < c->sc->n_workloads; i++)
		if (c->wl.agents[i])
			gl_agents_window_done(c->wl.agents[i], c->win.idx, c->m);
	write_window(c, now, 1, agg);
	gl_store_run_progress(c->st, now);
	if (agg) {
		gl_agg_add_seconds(agg, (double)(now - c->win.start_ns) / 1e9);
		gl_live_window(c->obs.live, c->win.idx, c->win.start_ns, now, agg, c->timeline.phase);
		gl_agg_free(agg);
	}
}

/* Run the loop from c->elapsed_base until the end, a signal or an error;
 * then stop everything in order. Returns the exit code. */
int ctl_drive(struct gl_ctx *c)
{
	struct gl_err err = { 0 };
	int64_t now, base = c->clk.elapsed_base;
	int ran = 0, reached_end;

	/* Agents are up before the clock goes on: no share of the schedule
	 * is lost to a slow launcher (agents.c). A stop request ends the
	 * wait: the run stops as from the loop. */
	if (c->win.closing && ctl_agents_launch(c, &err) != 0) {
		if (ctl_stopping(c)) {
			gl_ctx_event(c, GL_LOG_WARN, "controller",
				     "%s while waiting for the agents to connect: nothing "
				     "was started",
				     c->halt.msg);
		} else {
			c->halt.reason = STOP_ERROR;
			snprintf(c->halt.msg, sizeof(c->halt.msg), "%s", err.msg);
		}
	}
	ctl_stopping(c); /* one that came since the before gates */
	c->clk.mono_start = gl_now_ns();
	if (!c->win.restored) {
		c->win.idx = base / c->sc->window_ns;
		c->win.start_ns = c->win.idx * c->sc->window_ns;
	}
	set_phase(c, gl_scenario_phase_at(c->sc, ctl_scn_now(c, base)));
	/* Timeline: events already past were handled before the stop; the
	 * journal tells which fault steps are still owed (reconciled by the
	 * caller for resume). */
	if (!c->sim)
		live_start(c);
	c->timeline.next = 0;
	while (c->timeline.next < c->timeline.n &&
	       gl_timeline_real_ns(c->timeline.ev[c->timeline.next].t_ns, c->clk.scale) <= base &&
	       (base > 0 || c->timeline.ev[c->timeline.next].kind == GL_TL_PHASE) &&
	       c->timeline.ev[c->timeline.next].kind != GL_TL_END)
		c->timeline.next++;
	start_work(c);
	if (c->halt.reason == STOP_NONE && c->sim) {
		/* simulated: commits at each window's close and each fault
		 * step, not on a timer (docs/simulation.md); a kill drops
		 * the controller here, without its ordered stop */
		gl_ctx_arm_at(c, c->win.ev_close, (c->win.idx + 1) * c->sc->window_ns);
		gl_ctx_arm_at(c, c->timeline.timer, 0);
		ran = 1;
		if (ctl_sim_dispatch(c))
			return GL_SIM_KILLED;
	} else if (c->halt.reason == STOP_NONE) {
		event_add(c->win.ev_commit, &(struct timeval){ 0, COMMIT_INTERVAL_NS / 1000 });
		gl_ctx_arm_at(c, c->win.ev_close, (c->win.idx + 1) * c->sc->window_ns);
		gl_ctx_arm_at(c, c->timeline.timer, 0);
		ran = 1;
		event_base_dispatch(c->base);
	}
	/* (a signal during the stop below still ends the run aborted) */
	reached_end = c->halt.reason == STOP_END;
	stop_work(c);
	now = gl_ctx_elapsed_ns(c);
	/* The run ends at the scenario's end, not when the loop noticed. */
	if (reached_end && now > gl_timeline_real_ns(c->sc->duration_ns, c->clk.scale))
		now = gl_timeline_real_ns(c->sc->duration_ns, c->clk.scale);
	/* a new run stopped by a signal before its loop ran (in the wait for
	 * its agents) has no window: what there was is its start-up */
	close_last_window(c, now, now > c->win.start_ns && (ran || base > 0 || c->halt.reason != STOP_SIGNAL));
	ctl_notify_stopping(c);
	ctl_revert_all(c, c->halt.reason == STOP_END ? "end of run" : c->halt.msg);
	after_gates(c);
	if (c->halt.reason == STOP_NONE) {
		c->halt.reason = STOP_ERROR;
		snprintf(c->halt.msg, sizeof(c->halt.msg), "event loop ended unexpectedly");
	}
	return ctl_finish(c);
}

/* The verdict from the store, like any later `gauntlet report`: written
 * to the run row with state and exit code. -1 when the analysis failed. */
static int judge(struct gl_ctx *c, const char *state, int *code, enum gl_verdict *verdict, int *failing, int *targets,
		 struct gl_analysis **keep)
{
	struct gl_analysis *an = NULL;
	struct gl_err err = { 0 };

	if (gl_analyze(c->st, &an, &err) != 0) {
		fprintf(stderr, "gauntlet: analysis failed: %s\n", err.msg);
		return -1;
	}
	*code = c->halt.reason == STOP_ERROR ? GL_EXIT_HARNESS_ERROR : gl_verdict_exit(an->verdict);
	*verdict = an->verdict;
	*failing = 0;
	for (int i = 0; i < an->n_targets; i++)
		*failing += !an->targets[i].pass;
	*targets = an->n_targets;
	gl_store_run_finish(c->st, state, gl_verdict_name(an->verdict), *code, gl_wall_ns());
	if (keep)
		*keep = an;
	else
		gl_analysis_free(an);
	return 0;
}

/* The steady (and whole-run) targets on a workload's figures that failed,
 * as text into out: what its diagnose hook is told. */
static void failed_targets(const struct gl_analysis *an, const char *workload, char *out, size_t n)
{
	size_t len = strlen(workload);
	int at = 0;

	out[0] = '\0';
	for (int i = 0; i < an->n_targets && at < (int)n - 1; i++) {
		const struct gl_target_result *t = &an->targets[i];
		const struct gl_target_spec *sp = t->spec;
		char v[48] = "no value";
		if (t->pass || !sp || (sp->scope != GL_SCOPE_STEADY && sp->scope != GL_SCOPE_NONE) ||
		    strncmp(sp->metric, workload, len) || sp->metric[len] != '.')
			continue;
		if (t->has)
			snprintf(v, sizeof(v), "%.4g", t->measured);
		at += snprintf(out + at, n - (size_t)at, "%s%s %s, want %s", at ? "; " : "", sp->metric, v,
			       sp->expr_text);
	}
}

/* After a run that reached its end: each workload whose steady targets
 * failed runs the diagnosis its section asks for (plugin.h diagnose), a
 * stop request ending it. 1 when one put what it found in the store: the
 * analysis is made again, to carry it. */
static int diagnose(struct gl_ctx *c, const struct gl_analysis *an)
{
	int ran = 0;

	if (c->sim || !an)
		return 0;
	for (int w = 0; w < c->sc->n_workloads && !ctl_stopping(c); w++) {
		const struct gl_workload_spec *ws = &c->sc->workloads[w];
		char failed[1024];
		if (!ws->ops || !ws->ops->diagnose)
			continue;
		failed_targets(an, ws->name, failed, sizeof(failed));
		if (!failed[0])
			continue;
		gl_stop_interruptible(1);
		int put = ws->ops->diagnose(c, ws->cfg, failed);
		struct gl_err e = { 0 };
		gl_stop_interruptible(0);
		if (gl_store_flush(c->st, &e) != 0)
			gl_ctx_event(c, GL_LOG_ERROR, "controller", "%s", e.msg);
		ran |= put;
	}
	return ran;
}

int ctl_finish(struct gl_ctx *c)
{
	struct gl_err err = { 0 };
	const char *state;
	enum gl_verdict verdict;
	int code, failing, targets, rc;
	struct gl_analysis *an = NULL;

	ctl_stopping(c); /* a request since the after gates */
	if (c->halt.reason != STOP_END)
		gl_ctx_event(c, c->halt.reason == STOP_ERROR ? GL_LOG_ERROR : GL_LOG_WARN, "controller", "%s",
			     c->halt.msg);
	state = c->halt.reason == STOP_END ? "finished" : c->halt.reason == STOP_ERROR ? "failed" : "aborted";
	gl_store_flush(c->st, &err);
	gl_store_run_finish(c->st, state, "", 0, gl_wall_ns());
	if (judge(c, state, &code, &verdict, &failing, &targets, &an) != 0)
		return GL_EXIT_HARNESS_ERROR;
	if (!strcmp(state, "finished") && diagnose(c, an)) {
		gl_analysis_free(an);
		an = NULL;
		if (judge(c, state, &code, &verdict, &failing, &targets, &an) != 0)
			return GL_EXIT_HARNESS_ERROR;
	}
	/* the webhooks' end before the reports, which show what they sent */
	if (c->obs.nt) {
		ctl_notify_window(c); /* the last window's missed targets first */
		ctl_notify_stop(c, state, code == GL_EXIT_HARNESS_ERROR ? "error" : gl_verdict_name(verdict), code,
				failing, targets);
	}
	/* The reports. A stop request meanwhile ends report.pdf's browser; a
	 * run that had finished is then recorded aborted (the operator stopped
	 * it before its reports were out) and its reports rendered again,
	 * saying so. The webhooks' end said the verdict as it stood. */
	gl_stop_interruptible(1);
	rc = write_reports_from(c, an, &err);
	gl_analysis_free(an);
	if (rc == 0 && !strcmp(state, "finished") && ctl_stopping(c)) {
		gl_ctx_event(c, GL_LOG_WARN, "controller",
			     "%s while the reports were rendered: the run is recorded "
			     "aborted%s",
			     c->halt.msg, c->obs.nt ? " (the webhooks' end said it finished)" : "");
		state = "aborted";
		gl_store_run_finish(c->st, state, "", 0, gl_wall_ns());
		if (judge(c, state, &code, &verdict, &failing, &targets, NULL) != 0) {
			gl_stop_interruptible(0);
			return GL_EXIT_HARNESS_ERROR;
		}
		rc = ctl_write_reports(c->run.dir, c->st, &err);
	}
	gl_stop_interruptible(0);
	if (rc != 0) {
		fprintf(stderr, "gauntlet: report: %s\n", err.msg);
		return GL_EXIT_HARNESS_ERROR;
	}
	if (c->obs.live) {
		live_status(c);
		gl_live_final(c->obs.live, state, code == GL_EXIT_HARNESS_ERROR ? "error" : gl_verdict_name(verdict));
	}
	if (!c->sim)
		fprintf(stderr, "gauntlet: run %s: %s (exit %d); report: %s/report.json\n", state,
			code == GL_EXIT_HARNESS_ERROR ? "harness error" : gl_verdict_name(verdict), code, c->run.dir);
	/* a stop request ends the linger early; the verdict stands */
	live_linger(c);
	return code;
}
