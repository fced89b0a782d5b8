/*
 * executor.c - faults: their journal rows, the executor thread that runs
 * fault steps (inject, verify, revert) off the loop, and the steps the
 * timeline, resume and revert ask for (inject under the safety rules,
 * revert, revert all).
 */
#define _GNU_SOURCE
#include "controller_int.h"

#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "live.h"
#include "transport_ssh.h"

#define REVERT_ATTEMPTS 3

/* ---- faults -------------------------------------------------------------- */

int ctl_journal(struct gl_ctx *c, struct fault_rt *f)
{
	struct gl_err err = { 0 };
	char *plan = f->plan ? cJSON_PrintUnformatted(f->plan) : NULL;
	int rc;

	free(f->row.plan);
	f->row.plan = plan;
	/* the run's clock committed first: a controller that dies before its
	 * next timed commit resumes at or after every time the journal holds
	 * (an outage then begins after a fault's journaled inject, never
	 * before it, and a resumed revert never precedes the inject) */
	ctl_commit_now(c);
	rc = gl_store_fault_put(c->st, &f->row, &err);
	/* the live view judges windows by the journal's times */
	gl_live_fault(c->obs.live, (int)(f->spec - c->sc->faults), f->row.injected_elapsed_ns,
		      f->row.reverted_elapsed_ns);
	if (rc) {
		gl_error("fault journal: %s", err.msg);
		if (c->halt.reason == STOP_NONE) {
			c->halt.reason = STOP_ERROR;
			snprintf(c->halt.msg, sizeof(c->halt.msg), "fault journal write failed: %s", err.msg);
		}
	}
	ctl_notify_fault(c, f);
	return rc;
}

/* ---- the fault executor ---------------------------------------------------
 *
 * Fault steps (inject, verify, revert) can take seconds: ssh, scontrol,
 * Redfish. They run on one executor thread, so the event loop, and every
 * measurement it makes, never waits for them. Only the loop thread writes
 * the journal: before it hands a step over, and when the result comes back
 * through a pipe. Steps run one at a time, in the order they were asked for.
 * Without the executor (resume's reconciliation, `gauntlet revert`, the stop
 * sequence) the same steps run inline.
 */

struct fx_job {
	struct fx_job *next;
	int idx;
	enum fx_op op;
	char why[200];
	int rc; /* 0: the step succeeded */
	int verified; /* inject: -1 no verify hook, else 0/1 */
	int cleanup_ok; /* inject failed: the clean-up revert worked */
	int64_t t_done; /* elapsed when the step finished */
	char err[700], err2[700];
	int n_meas;
	char meas_name[8][48];
	double meas_val[8];
	int dm_pid; /* inject: the watcher started (0: none) */
	int by_watcher; /* revert: the watcher had reverted it (verified) */
	int watcher_fired; /* revert: the watcher had run its revert */
	int watcher_stopped; /* revert: the claim stopped the watcher */
	int dm_cleanup; /* revert: the watcher's files are still there */
	struct ctl_dm_rec rec;
};

/* The job the calling thread is running (for gl_fault_measure). */
static __thread struct fx_job *current_job;

void gl_fault_measure(struct gl_ctx *c, const char *name, double value)
{
	struct fx_job *j = current_job;
	int i;

	if (!j || !name)
		return;
	for (i = 0; i < j->n_meas; i++)
		if (!strcmp(j->meas_name[i], name))
			break;
	if (i == 8)
		return;
	snprintf(j->meas_name[i], sizeof(j->meas_name[i]), "%s", name);
	j->meas_val[i] = value;
	if (i == j->n_meas)
		j->n_meas++;
}

/* Merge a job's figures into the row's JSON object. */
static void keep_measures(struct fault_rt *f, const struct fx_job *j)
{
	cJSON *o;
	char *text;

	if (!j->n_meas)
		return;
	o = f->row.measured[0] ? cJSON_Parse(f->row.measured) : NULL;
	if (!o)
		o = cJSON_CreateObject();
	for (int i = 0; i < j->n_meas; i++) {
		cJSON_DeleteItemFromObjectCaseSensitive(o, j->meas_name[i]);
		cJSON_AddNumberToObject(o, j->meas_name[i], j->meas_val[i]);
	}
	text = cJSON_PrintUnformatted(o);
	if (text && strlen(text) < sizeof(f->row.measured))
		snprintf(f->row.measured, sizeof(f->row.measured), "%s", text);
	cJSON_free(text);
	cJSON_Delete(o);
}

struct fx {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* work arrived / the executor went idle */
	struct fx_job *todo, *todo_tail, *done, *done_tail;
	int running_job, quit, on;
	int pipe[2];
	struct event *ev;
};

static void run_job(struct gl_ctx *c, struct fx_job *j)
{
	struct fault_rt *f = &c->faults[j->idx];
	const struct gl_fault_ops *ops = f->spec->ops;
	struct gl_err err = { 0 }, rerr = { 0 };

	j->verified = -1;
	current_job = j;
	if (j->op == FX_INJECT && ctl_dm_arm(c, f, &j->dm_pid, &err) != 0) {
		/* no fault without its dead-man's switch: nothing injected */
		j->rc = -1;
		snprintf(j->err, sizeof(j->err), "%s", err.msg);
		ctl_dm_cleanup(c, f, f->plan);
		j->cleanup_ok = 1;
	} else if (j->op == FX_INJECT) {
		ctl_dm_watch_arming(c, f, j->dm_pid);
		j->rc = ops->inject(c, f->plan, &err);
		if (j->rc != 0) {
			snprintf(j->err, sizeof(j->err), "%s", err.msg);
			ctl_dm_unwatch(c, f);
			/* A failed inject may have half happened: revert to be sure
			 * (its watcher stopped first: one revert, by this thread) */
			struct ctl_dm_rec rec;
			int claim = ctl_dm_claim(c, f, f->plan, &rec, &rerr);
			gl_err_clear(&rerr);
			j->cleanup_ok = ops->revert(c, f->plan, &rerr) == 0;
			if (j->cleanup_ok && claim != CTL_DM_CLAIMED && claim != CTL_DM_NONE)
				ctl_dm_cleanup(c, f, f->plan);
			snprintf(j->err2, sizeof(j->err2), "%s", rerr.msg);
		} else if (ops->verify) {
			j->verified = ops->verify(c, f->plan, &err) == 0;
			snprintf(j->err, sizeof(j->err), "%s", err.msg);
		}
	} else {
		int claim = ctl_dm_claim(c, f, f->plan, &j->rec, &err);
		j->watcher_stopped = claim == CTL_DM_CLAIMED || claim == CTL_DM_CLAIMED_HELD;
		j->dm_cleanup = claim != CTL_DM_CLAIMED && claim != CTL_DM_NONE;
		if (claim < 0)
			gl_warn("fault: '%s': %s; reverting anyway", f->row.id, err.msg);
		j->rc = -1;
		if (claim == CTL_DM_FIRED) {
			/* its watcher reverted it: check, never revert twice
			 * (unless what it did does not hold, or it ran before the
			 * inject was done, when the fault may have come in after) */
			const cJSON *early = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(f->plan, "deadman"), "fired_during_inject");
			gl_err_clear(&err);
			j->watcher_fired = 1;
			if (cJSON_IsTrue(early))
				j->rc = gl_errf(&err, GL_EINVAL, "it fired while the inject still ran");
			else
				j->rc = ops->verify_revert ? ops->verify_revert(c, f->plan, &err) : 0;
			gl_fault_measure(c, "watcher_took_s", (double)(j->rec.reverted_at - j->rec.started));
			gl_fault_measure(c, "watcher_reverted_at", (double)j->rec.reverted_at);
			/* how long the fault really held, on the host's clock
			 * (whole seconds, from the watcher's start just before the
			 * inject), whenever the controller came back */
			if (j->rec.armed > 0 && j->rec.reverted_at >= j->rec.armed)
				gl_fault_measure(c, "self_reverted_s", (double)(j->rec.reverted_at - j->rec.armed));
			if (j->rc == 0)
				j->by_watcher = 1;
			else
				gl_warn("fault: '%s': its watcher reverted it (exit %d), but %s: reverting again",
					f->row.id, j->rec.status, err.msg);
		}
		for (int attempt = 1; attempt <= REVERT_ATTEMPTS && j->rc != 0 && !j->by_watcher; attempt++) {
			gl_err_clear(&err);
			j->rc = ops->revert(c, f->plan, &err);
			if (j->rc == 0 && ops->verify_revert)
				j->rc = ops->verify_revert(c, f->plan, &err);
			if (j->rc)
				gl_warn("fault: '%s' revert attempt %d/%d failed: %s", f->row.id, attempt,
					REVERT_ATTEMPTS, err.msg);
		}
		snprintf(j->err, sizeof(j->err), "%s", err.msg);
		if (j->rc == 0 && j->dm_cleanup)
			ctl_dm_cleanup(c, f, f->plan);
	}
	current_job = NULL;
	j->t_done = c->clk.mono_start ? gl_ctx_elapsed_ns(c) : f->row.injected_elapsed_ns;
}

/* An inject that armed the host's watcher: its pid and start in the plan's
 * "deadman" (revert stops it); a watcher that fired while the inject still
 * ran is journaled, and the fault reverted at once. */
static void note_watcher(struct gl_ctx *c, struct fault_rt *f, const struct fx_job *j)
{
	cJSON *d = cJSON_GetObjectItemCaseSensitive(f->plan, "deadman");

	if (f->dm_fired_inject) {
		/* journaled, so that no revert (resume's included)
		 * takes its record for the fault's revert */
		cJSON_DeleteItemFromObjectCaseSensitive(d, "fired_during_inject");
		cJSON_AddTrueToObject(d, "fired_during_inject");
		gl_ctx_event(c, GL_LOG_ERROR, "fault",
			     "'%s': its watcher fired while the inject still ran (its lease renewals did "
			     "not arrive): the controller reverts it now",
			     f->row.id);
		snprintf(f->revert_pending, sizeof(f->revert_pending), "its watcher fired during the inject");
		f->dm_fired_inject = 0;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(d, "pid");
	cJSON_DeleteItemFromObjectCaseSensitive(d, "started_wall_ns");
	cJSON_AddNumberToObject(d, "pid", j->dm_pid);
	cJSON_AddNumberToObject(d, "started_wall_ns", (double)gl_wall_ns());
}

/* Loop thread: journal what a step did. */
static void apply_job(struct gl_ctx *c, struct fx_job *j)
{
	struct fault_rt *f = &c->faults[j->idx];
	const struct gl_fault_ops *ops = f->spec->ops;

	f->busy = 0;
	keep_measures(f, j);
	if (j->op == FX_INJECT) {
		if (j->rc != 0) {
			gl_ctx_event(c, GL_LOG_ERROR, "fault", "'%s' inject failed: %s", f->row.id, j->err);
			snprintf(f->row.error, sizeof(f->row.error), "inject: %s", j->err);
			f->row.state = j->cleanup_ok ? GL_FAULT_FAILED : GL_FAULT_REVERT_FAILED;
			if (!j->cleanup_ok)
				gl_ctx_event(c, GL_LOG_ERROR, "fault", "'%s' revert after failed inject failed: %s",
					     f->row.id, j->err2);
			ctl_journal(c, f);
			return;
		}
		f->row.state = GL_FAULT_INJECTED;
		if (j->dm_pid > 0)
			note_watcher(c, f, j);
		f->row.injected_elapsed_ns = j->t_done;
		f->row.injected_scn_ns = ctl_scn_now(c, j->t_done);
		f->row.verified = j->verified;
		if (j->verified == 0) {
			snprintf(f->row.error, sizeof(f->row.error), "verify: %s", j->err);
			gl_ctx_event(c, GL_LOG_WARN, "fault", "'%s' injected but not verified: %s", f->row.id, j->err);
		}
		gl_ctx_event(c, GL_LOG_INFO, "fault", "'%s' injected (%s%s%s on %s)%s", f->row.id, f->row.kind,
			     f->row.method[0] ? "/" : "", f->row.method, f->row.target,
			     f->row.verified == 1 ? ", verified" : "");
		ctl_journal(c, f);
		ctl_dm_watch(c, f);
		if (f->row.dur_ns == 0)
			ctl_fault_revert(c, f, "instantaneous fault");
		else if (f->revert_pending[0])
			ctl_fault_revert(c, f, f->revert_pending);
		return;
	}
	if (j->rc == 0 && f->replan) {
		/* resume's clean-up of a half-done inject of a fault still due:
		 * straight back to planned, in one commit, so that a controller
		 * killed again never finds it reverted and owed nothing */
		f->replan = 0;
		f->row.state = GL_FAULT_PLANNED;
		f->row.injected_elapsed_ns = f->row.reverted_elapsed_ns = -1;
		gl_ctx_event(c, GL_LOG_INFO, "fault", "'%s' reverted (%s) and planned again", f->row.id, j->why);
	} else if (j->rc == 0) {
		f->replan = 0;
		f->row.state = GL_FAULT_REVERTED;
		f->row.verified_revert = ops->verify_revert ? 1 : -1;
		f->row.reverted_elapsed_ns = j->t_done;
		f->row.reverted_scn_ns = c->sc ? ctl_scn_now(c, j->t_done) : 0;
		snprintf(f->row.reverted_by, sizeof(f->row.reverted_by), "%s",
			 j->by_watcher ? "watcher" : "controller");
		if (j->watcher_fired && !j->by_watcher)
			snprintf(f->row.deadman, sizeof(f->row.deadman), "fired"); /* its revert did not hold */
		else if (j->watcher_stopped && !strcmp(f->row.deadman, "armed"))
			snprintf(f->row.deadman, sizeof(f->row.deadman),
				 "stopped"); /* by this revert (a lost one stays lost) */
		if (j->by_watcher) {
			char when[64];
			snprintf(f->row.deadman, sizeof(f->row.deadman), "fired");
			gl_format_wall(j->rec.reverted_at * 1000000000LL, when, sizeof(when));
			gl_ctx_event(
				c, GL_LOG_WARN, "fault",
				"'%s' had been reverted by its watcher at %s (%s; its revert took %lld s, exit %d)%s: "
				"nothing left to revert",
				f->row.id, when, j->rec.why[0] ? j->rec.why : "no reason recorded",
				(long long)(j->rec.reverted_at - j->rec.started), j->rec.status,
				ops->verify_revert ? ", verified" : "");
		} else {
			gl_ctx_event(c, GL_LOG_INFO, "fault", "'%s' reverted (%s)", f->row.id, j->why);
		}
	} else {
		f->row.state = GL_FAULT_REVERT_FAILED;
		snprintf(f->row.error, sizeof(f->row.error), "revert: %s", j->err);
		f->row.verified_revert = 0;
		gl_ctx_event(c, GL_LOG_ERROR, "fault", "'%s' REVERT FAILED: %s (run `gauntlet revert %s`)", f->row.id,
			     j->err, c->run.dir);
	}
	ctl_journal(c, f);
}

static void *fx_main(void *arg)
{
	struct gl_ctx *c = arg;
	struct fx *x = c->fx;

	pthread_mutex_lock(&x->mu);
	for (;;) {
		struct fx_job *j;
		char one = 1;
		while (!x->todo && !x->quit)
			pthread_cond_wait(&x->cv, &x->mu);
		if (!x->todo)
			break;
		j = x->todo;
		x->todo = j->next;
		if (!x->todo)
			x->todo_tail = NULL;
		x->running_job = 1;
		pthread_mutex_unlock(&x->mu);
		run_job(c, j);
		pthread_mutex_lock(&x->mu);
		j->next = NULL;
		if (x->done_tail)
			x->done_tail->next = j;
		else
			x->done = j;
		x->done_tail = j;
		x->running_job = 0;
		pthread_cond_broadcast(&x->cv);
		if (write(x->pipe[1], &one, 1) < 0) {
			/* the loop also collects results when it drains */
		}
	}
	pthread_mutex_unlock(&x->mu);
	gl_ssh_thread_done();
	return NULL;
}

static void fx_collect(struct gl_ctx *c)
{
	struct fx *x = c->fx;
	struct fx_job *list;
	char buf[64];

	while (read(x->pipe[0], buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&x->mu);
	list = x->done;
	x->done = x->done_tail = NULL;
	pthread_mutex_unlock(&x->mu);
	while (list) {
		struct fx_job *next = list->next;
		apply_job(c, list);
		free(list);
		list = next;
	}
}

static void on_fx_done(evutil_socket_t fd, short what, void *arg)
{
	fx_collect(arg);
}

static void submit(struct gl_ctx *c, struct fx_job *j)
{
	struct fx *x = c->fx;

	c->faults[j->idx].busy = 1;
	if (!x || !x->on) {
		run_job(c, j);
		apply_job(c, j);
		free(j);
		return;
	}
	pthread_mutex_lock(&x->mu);
	j->next = NULL;
	if (x->todo_tail)
		x->todo_tail->next = j;
	else
		x->todo = j;
	x->todo_tail = j;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

int ctl_fx_start(struct gl_ctx *c)
{
	struct fx *x = calloc(1, sizeof(*x));

	if (!x)
		return -1;
	c->fx = x;
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	if (pipe2(x->pipe, O_CLOEXEC | O_NONBLOCK) != 0)
		return -1;
	x->ev = event_new(c->base, x->pipe[0], EV_READ | EV_PERSIST, on_fx_done, c);
	if (!x->ev || event_add(x->ev, NULL) != 0 || pthread_create(&x->th, NULL, fx_main, c) != 0)
		return -1;
	x->on = 1;
	return 0;
}

/* Wait for every step asked for, journal the results, stop the thread. */
void ctl_fx_stop(struct gl_ctx *c)
{
	struct fx *x = c->fx;

	if (!x)
		return;
	if (x->on) {
		pthread_mutex_lock(&x->mu);
		while (x->todo || x->running_job)
			pthread_cond_wait(&x->cv, &x->mu);
		x->quit = 1;
		pthread_cond_broadcast(&x->cv);
		pthread_mutex_unlock(&x->mu);
		pthread_join(x->th, NULL);
		x->on = 0;
		fx_collect(c);
	}
	if (x->ev)
		event_free(x->ev);
	if (x->pipe[0] > 0) {
		close(x->pipe[0]);
		close(x->pipe[1]);
	}
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	free(x);
	c->fx = NULL;
}

/* ---- faults --------------------------------------------------------------- */

/* Journal the state a step starts from (durable before the step runs),
 * then hand the step to the executor (or run it inline). */
void ctl_start_step(struct gl_ctx *c, struct fault_rt *f, enum gl_fault_state state, enum fx_op op, const char *why)
{
	struct fx_job *j;

	/* a step starts from injecting or reverting, the states resume
	 * finishes from the journal */
	assert(state == GL_FAULT_INJECTING || state == GL_FAULT_REVERTING);
	f->row.state = state;
	if (ctl_journal(c, f))
		return;
	j = calloc(1, sizeof(*j));
	if (!j) {
		/* the journal says what was due: resume or `gauntlet revert` finish it */
		gl_ctx_event(c, GL_LOG_ERROR, "fault", "'%s': out of memory starting the step", f->row.id);
		return;
	}
	j->idx = (int)(f - c->faults);
	j->op = op;
	snprintf(j->why, sizeof(j->why), "%s", why ? why : "");
	submit(c, j);
}

/* A fault the safety rules do not let in: journaled as failed, never run. */
static void refuse(struct gl_ctx *c, struct fault_rt *f, const char *why)
{
	f->row.state = GL_FAULT_FAILED;
	snprintf(f->row.error, sizeof(f->row.error), "refused: %s", why);
	gl_ctx_event(c, GL_LOG_ERROR, "fault", "'%s' %s", f->row.id, f->row.error);
	ctl_journal(c, f);
}

void ctl_fault_revert(struct gl_ctx *c, struct fault_rt *f, const char *why)
{
	char reason[sizeof(f->revert_pending)];

	/* why may be f->revert_pending itself, cleared below */
	snprintf(reason, sizeof(reason), "%s", why);
	if (f->busy) {
		/* inject still running: revert as soon as it is done */
		snprintf(f->revert_pending, sizeof(f->revert_pending), "%s", reason);
		return;
	}
	f->revert_pending[0] = '\0';
	if (!gl_fault_state_live(f->row.state))
		return;
	ctl_dm_unwatch(c, f);
	ctl_start_step(c, f, GL_FAULT_REVERTING, FX_REVERT, reason);
}

int ctl_active_faults(struct gl_ctx *c)
{
	int n = 0;
	for (int i = 0; i < c->sc->n_faults; i++)
		n += gl_fault_state_live(c->faults[i].row.state);
	return n;
}

void ctl_fault_inject(struct gl_ctx *c, struct fault_rt *f)
{
	int64_t wall = gl_wall_ns();

	if (f->row.state != GL_FAULT_PLANNED)
		return; /* already handled (resume replays) */
	if (ctl_active_faults(c) >= c->sc->max_concurrent_faults) {
		char why[160];
		snprintf(why, sizeof(why), "%d fault(s) active, safety.max_concurrent_faults is %d",
			 ctl_active_faults(c), c->sc->max_concurrent_faults);
		refuse(c, f, why);
		return;
	}
	if (c->sc->mw_end_wall_ns && (wall < c->sc->mw_start_wall_ns || wall > c->sc->mw_end_wall_ns)) {
		refuse(c, f, "outside safety.maintenance_window");
		return;
	}
	/* The journal, with the plan revert needs (its watcher's paths
	 * included), is durable before inject. */
	if (ctl_dm_plan(c, f) != 0) {
		char why[260];
		snprintf(why, sizeof(why), "safety.require_deadman, and this fault has %s", f->row.deadman);
		refuse(c, f, why);
		return;
	}
	ctl_start_step(c, f, GL_FAULT_INJECTING, FX_INJECT, NULL);
}

void ctl_revert_all(struct gl_ctx *c, const char *why)
{
	for (int i = c->sc->n_faults - 1; i >= 0; i--)
		ctl_fault_revert(c, &c->faults[i], why);
}
