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
 */
#define _GNU_SOURCE
#include "controller.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event2/event.h>

#include "analysis.h"
#include "child.h"
#include "inventory.h"
#include "live.h"
#include "metrics.h"
#include "plugin.h"
#include "secrets.h"
#include "store.h"
#include "timeline.h"

#define COMMIT_INTERVAL_NS GL_COMMIT_INTERVAL_NS
/* A fault's --dry-run description: whole scenarios are at most a few MiB,
 * and quoting at most quadruples a byte. */
#define DESCRIBE_MAX (64 << 20)
#define REVERT_ATTEMPTS 3

/* A description on a terminal: its lines as they are, any other control
 * character (CR, an escape sequence a value smuggled past the quoting) as
 * \xHH, so what is shown cannot hide or forge what runs. */
static void put_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char u = (unsigned char)*s;
		if ((u < 0x20 && u != '\n') || u == 0x7f)
			fprintf(f, "\\x%02x", u);
		else
			fputc(u, f);
	}
}

enum stop_reason { STOP_NONE, STOP_END, STOP_SIGNAL, STOP_ABORT_IF, STOP_ERROR };

struct fault_rt {
	struct gl_fault_row row;
	cJSON *plan;
	const struct gl_fault_spec *spec;
	int busy;                 /* a step is with the executor */
	char revert_pending[200]; /* revert asked for while busy: why */
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
};

/* The live view's options, for run and resume alike (main sets them). */
static struct gl_live_opts live_opts;

static gl_report_writer reporter;

void gl_controller_reporter(gl_report_writer w) { reporter = w; }

static int write_reports(const char *dir, struct gl_store *st, struct gl_err *err)
{
	return reporter ? reporter(dir, st, err) : 0;
}

void gl_controller_live_opts(const struct gl_live_opts *o)
{
	live_opts = *o;
}

/* ---- what plug-ins see --------------------------------------------------- */

struct event_base *gl_ctx_base(struct gl_ctx *c) { return c->base; }
struct gl_metrics *gl_ctx_metrics(struct gl_ctx *c) { return c->m; }
const struct gl_scenario *gl_ctx_scenario(struct gl_ctx *c) { return c->sc; }
double gl_ctx_time_scale(struct gl_ctx *c) { return c->scale; }
const char *gl_ctx_run_dir(struct gl_ctx *c) { return c->dir; }
const char *gl_ctx_run_id(struct gl_ctx *c) { return c->run_id; }
int gl_ctx_resumes(struct gl_ctx *c) { return c->resumes; }
struct gl_store *gl_ctx_store(struct gl_ctx *c) { return c->st; }
int64_t gl_ctx_window(struct gl_ctx *c) { return c->win_idx; }

int64_t gl_ctx_elapsed_ns(struct gl_ctx *c)
{
	if (c->time_held)
		return c->elapsed_base;
	return c->elapsed_base + (gl_now_ns() - c->mono_start);
}

/* The log's clock while this process drives the run: the run's elapsed
 * time, held at the point the loop starts from (0 for a new run, the last
 * commit for a resume) until it does. */
static int64_t log_elapsed(void *arg)
{
	struct gl_ctx *c = arg;
	return c->mono_start ? gl_ctx_elapsed_ns(c) : c->elapsed_base;
}

static void log_clock_start(struct gl_ctx *c)
{
	c->log_clock = 1;
	gl_log_clock(log_elapsed, c);
}

void gl_ctx_event(struct gl_ctx *c, enum gl_log_level lvl, const char *source, const char *fmt, ...)
{
	static const char *names[] = { "debug", "info", "warn", "error" };
	char msg[1024];
	va_list ap;
	int64_t t = c->mono_start ? gl_ctx_elapsed_ns(c) : c->elapsed_base;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the line and the stored event carry one time */
	if (c->log_clock)
		gl_log_at(lvl, t, "%s: %s", source, msg);
	else
		gl_log(lvl, "%s: %s", source, msg);
	if (c->st)
		gl_store_event(c->st, t, names[lvl], source, msg);
}

/* ---- processes the workloads start (child.h) ------------------------------ */

const char *gl_ctx_child_mark(struct gl_ctx *c)
{
	snprintf(c->child_mark, sizeof(c->child_mark), "%s=%s", GL_CHILD_MARK, c->run_id);
	return c->child_mark;
}

int64_t gl_ctx_child_started(struct gl_ctx *c, const char *source, int pid, const char *what)
{
	struct gl_child_row r;
	struct gl_proc_info pi;
	struct gl_err err = { 0 };
	struct utsname un;
	int64_t id;

	memset(&r, 0, sizeof(r));
	if (gl_proc_info(pid, &pi) != 0) {
		gl_ctx_event(c, GL_LOG_ERROR, source, "child pid %d: no /proc entry to record its start time", pid);
		return -1;
	}
	snprintf(r.source, sizeof(r.source), "%s", source);
	snprintf(r.what, sizeof(r.what), "%s", what ? what : "");
	r.pid = pid;
	r.pgid = pi.pgid;
	r.start_ticks = pi.start_ticks;
	gl_proc_boot_id(r.boot_id, sizeof(r.boot_id));
	if (uname(&un) == 0)
		snprintf(r.hostname, sizeof(r.hostname), "%s", un.nodename);
	r.started_wall_ns = gl_wall_ns();
	if (!c->st)
		return 1;     /* no store to record it in: nothing to wait for */
	id = gl_store_child_put(c->st, &r, &err);
	if (id <= 0) {
		gl_ctx_event(c, GL_LOG_ERROR, source, "child pid %d not recorded, so not started: %s", pid, err.msg);
		return -1;
	}
	return id;
}

void gl_ctx_child_ended(struct gl_ctx *c, int64_t id)
{
	if (c->st && id > 0)
		gl_store_child_ended(c->st, id);
}

#define LEFTOVERS_MAX 256
#define LEFTOVER_GRACE_MS 5000

/* Stop what an earlier controller of this run (or this one's launchers)
 * left running on this host: the recorded children still alive with their
 * recorded start time and boot, and every process carrying the run's mark
 * (child.h). who prefixes the log lines ("resume", "end of run"). Returns
 * -1 when one could not be stopped. */
static int stop_leftovers(struct gl_ctx *c, const char *who)
{
	struct gl_child_row *rows = NULL;
	struct gl_leftover *l = calloc(LEFTOVERS_MAX, sizeof(*l));
	int *killed = calloc(LEFTOVERS_MAX, sizeof(int));
	pid_t *pids = NULL;
	uint64_t *ticks = NULL;
	struct gl_err err = { 0 };
	char boot[40];
	struct utsname un;
	const char *host = uname(&un) == 0 ? un.nodename : "";
	int n_rows = 0, n_rec = 0, n = 0, scanned = 0, left = 0, rc = 0, elsewhere = 0;

	gl_proc_boot_id(boot, sizeof(boot));
	if (c->st && gl_store_child_list(c->st, &rows, &n_rows, &err) != 0)
		gl_ctx_event(c, GL_LOG_WARN, "controller", "%s: recorded children not read: %s", who, err.msg);
	pids = calloc((size_t)n_rows + 1, sizeof(*pids));
	ticks = calloc((size_t)n_rows + 1, sizeof(*ticks));
	if (!l || !killed || !pids || !ticks) {
		gl_ctx_event(c, GL_LOG_ERROR, "controller", "%s: out of memory looking for leftover processes", who);
		rc = -1;
		goto out;
	}
	for (int i = 0; i < n_rows; i++) {
		if (strcmp(rows[i].boot_id, boot) || strcmp(rows[i].hostname, host)) {
			elsewhere++;
			continue;
		}
		pids[n_rec] = rows[i].pid;
		ticks[n_rec++] = rows[i].start_ticks;
	}
	n = gl_leftovers_find(c->run_id, pids, ticks, n_rec, l, LEFTOVERS_MAX, &scanned);
	if (elsewhere)
		gl_ctx_event(c, GL_LOG_WARN, "controller", "%s: %d recorded child process(es) were started on another "
			     "host or before a reboot: not looked for here", who, elsewhere);
	if (!scanned && c->run_id[0])
		gl_ctx_event(c, GL_LOG_WARN, "controller", "%s: this gauntlet carries %s itself: only the recorded "
			     "launchers were looked for", who, gl_ctx_child_mark(c));
	if (!n) {
		if (!c->wl_started)
			gl_ctx_event(c, GL_LOG_INFO, "controller", "%s: no process of this run left running (%d recorded "
				     "launch(es) checked%s)", who, n_rec, scanned ? ", processes carrying its "
				     GL_CHILD_MARK " looked for" : "");
		goto ended;
	}
	for (int i = 0; i < n; i++)
		gl_ctx_event(c, GL_LOG_WARN, "controller", "%s: stopping pid %d%s, left running by %s: %s", who,
			     (int)l[i].pid, l[i].group ? " and its process group" : "",
			     c->resumes && !c->wl_started ? "the controller before this resume" : "a workload's launcher",
			     l[i].cmd[0] ? l[i].cmd : "?");
	left = gl_leftovers_stop(l, n, LEFTOVER_GRACE_MS, killed);
	for (int i = 0; i < n; i++) {
		struct gl_proc_info pi;
		int alive = gl_proc_info(l[i].pid, &pi) == 0 && pi.start_ticks == l[i].start_ticks &&
			    pi.state != 'Z' && pi.state != 'X';
		if (alive)
			gl_ctx_event(c, GL_LOG_ERROR, "controller", "%s: pid %d is still running after SIGKILL "
				     "(state %c): %s", who, (int)l[i].pid, pi.state, l[i].cmd);
		else
			gl_ctx_event(c, GL_LOG_WARN, "controller", "%s: stopped pid %d (%s)", who, (int)l[i].pid,
				     killed[i] ? "SIGKILL: SIGTERM was not enough" : "SIGTERM");
	}
	if (left) {
		gl_ctx_event(c, GL_LOG_ERROR, "controller", "%s: %d process(es) of this run could not be stopped: "
			     "nothing is started beside them", who, left);
		rc = -1;
		goto out;
	}
	gl_ctx_event(c, GL_LOG_WARN, "controller", "%s: stopped %d process(es) of this run left running", who, n);
ended:
	for (int i = 0; i < n_rows; i++)
		if (!strcmp(rows[i].boot_id, boot) && !strcmp(rows[i].hostname, host))
			gl_store_child_ended(c->st, rows[i].seq);
	if (c->st)
		gl_store_flush(c->st, NULL);
out:
	free(rows);
	free(pids);
	free(ticks);
	free(l);
	free(killed);
	return rc;
}

int gl_ctx_preflight(struct gl_ctx *c, const char *subject, const char *check, int ok,
		     const char *detail)
{
	if (ok)
		gl_info("preflight: %s: %s: ok%s%s", subject, check, detail && *detail ? ": " : "",
			detail ? detail : "");
	else
		gl_error("preflight: %s: %s: FAILED%s%s", subject, check, detail && *detail ? ": " : "",
			 detail ? detail : "");
	if (c->st)
		gl_store_preflight_put(c->st, subject, check, ok, detail);
	return ok ? 0 : -1;
}

static int64_t scn_now(struct gl_ctx *c, int64_t elapsed)
{
	long double t = (long double)elapsed * c->scale;
	if (t > (long double)c->sc->duration_ns)
		return c->sc->duration_ns;
	return (int64_t)t;
}

void gl_ctx_arm_at(struct gl_ctx *c, struct event *ev, int64_t at_elapsed)
{
	int64_t wait = at_elapsed - gl_ctx_elapsed_ns(c);
	struct timeval tv;

	if (wait < 0)
		wait = 0;
	tv.tv_sec = wait / 1000000000LL;
	tv.tv_usec = (wait % 1000000000LL) / 1000;
	evtimer_add(ev, &tv);
}

/* ---- faults -------------------------------------------------------------- */

static int journal(struct gl_ctx *c, struct fault_rt *f)
{
	struct gl_err err = { 0 };
	char *plan = f->plan ? cJSON_PrintUnformatted(f->plan) : NULL;
	int rc;

	free(f->row.plan);
	f->row.plan = plan;
	rc = gl_store_fault_put(c->st, &f->row, &err);
	if (rc) {
		gl_error("fault journal: %s", err.msg);
		if (c->stop == STOP_NONE) {
			c->stop = STOP_ERROR;
			snprintf(c->stop_msg, sizeof(c->stop_msg), "fault journal write failed: %s", err.msg);
		}
	}
	return rc;
}

static int is_live(const char *state)
{
	return !strcmp(state, "injecting") || !strcmp(state, "injected") || !strcmp(state, "reverting") ||
	       !strcmp(state, "revert_failed");
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
enum fx_op { FX_INJECT, FX_REVERT };

struct fx_job {
	struct fx_job *next;
	int idx;
	enum fx_op op;
	char why[200];
	int rc;               /* 0: the step succeeded */
	int verified;         /* inject: -1 no verify hook, else 0/1 */
	int cleanup_ok;       /* inject failed: the clean-up revert worked */
	int64_t t_done;       /* elapsed when the step finished */
	char err[700], err2[700];
	int n_meas;
	char meas_name[8][48];
	double meas_val[8];
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
	pthread_cond_t cv;          /* work arrived / the executor went idle */
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
	if (j->op == FX_INJECT) {
		j->rc = ops->inject(c, f->plan, &err);
		if (j->rc != 0) {
			snprintf(j->err, sizeof(j->err), "%s", err.msg);
			/* A failed inject may have half happened: revert to be sure. */
			j->cleanup_ok = ops->revert(c, f->plan, &rerr) == 0;
			snprintf(j->err2, sizeof(j->err2), "%s", rerr.msg);
		} else if (ops->verify) {
			j->verified = ops->verify(c, f->plan, &err) == 0;
			snprintf(j->err, sizeof(j->err), "%s", err.msg);
		}
	} else {
		j->rc = -1;
		for (int attempt = 1; attempt <= REVERT_ATTEMPTS && j->rc != 0; attempt++) {
			gl_err_clear(&err);
			j->rc = ops->revert(c, f->plan, &err);
			if (j->rc == 0 && ops->verify_revert)
				j->rc = ops->verify_revert(c, f->plan, &err);
			if (j->rc)
				gl_warn("fault: '%s' revert attempt %d/%d failed: %s", f->row.id, attempt,
					REVERT_ATTEMPTS, err.msg);
		}
		snprintf(j->err, sizeof(j->err), "%s", err.msg);
	}
	current_job = NULL;
	j->t_done = c->mono_start ? gl_ctx_elapsed_ns(c) : f->row.injected_elapsed_ns;
}

static void fault_revert(struct gl_ctx *c, struct fault_rt *f, const char *why);

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
			snprintf(f->row.state, sizeof(f->row.state), j->cleanup_ok ? "failed" : "revert_failed");
			if (!j->cleanup_ok)
				gl_ctx_event(c, GL_LOG_ERROR, "fault", "'%s' revert after failed inject failed: %s",
					     f->row.id, j->err2);
			journal(c, f);
			return;
		}
		snprintf(f->row.state, sizeof(f->row.state), "injected");
		f->row.injected_elapsed_ns = j->t_done;
		f->row.injected_scn_ns = scn_now(c, j->t_done);
		f->row.verified = j->verified;
		if (j->verified == 0) {
			snprintf(f->row.error, sizeof(f->row.error), "verify: %s", j->err);
			gl_ctx_event(c, GL_LOG_WARN, "fault", "'%s' injected but not verified: %s", f->row.id, j->err);
		}
		gl_ctx_event(c, GL_LOG_INFO, "fault", "'%s' injected (%s%s%s on %s)%s", f->row.id, f->row.kind,
			     f->row.method[0] ? "/" : "", f->row.method, f->row.target,
			     f->row.verified == 1 ? ", verified" : "");
		journal(c, f);
		if (f->row.dur_ns == 0)
			fault_revert(c, f, "instantaneous fault");
		else if (f->revert_pending[0])
			fault_revert(c, f, f->revert_pending);
		return;
	}
	if (j->rc == 0) {
		snprintf(f->row.state, sizeof(f->row.state), "reverted");
		f->row.verified_revert = ops->verify_revert ? 1 : -1;
		f->row.reverted_elapsed_ns = j->t_done;
		f->row.reverted_scn_ns = c->sc ? scn_now(c, j->t_done) : 0;
		gl_ctx_event(c, GL_LOG_INFO, "fault", "'%s' reverted (%s)", f->row.id, j->why);
	} else {
		snprintf(f->row.state, sizeof(f->row.state), "revert_failed");
		snprintf(f->row.error, sizeof(f->row.error), "revert: %s", j->err);
		f->row.verified_revert = 0;
		gl_ctx_event(c, GL_LOG_ERROR, "fault", "'%s' REVERT FAILED: %s (run `gauntlet revert %s`)",
			     f->row.id, j->err, c->dir);
	}
	journal(c, f);
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

static int fx_start(struct gl_ctx *c)
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
static void fx_stop(struct gl_ctx *c)
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
static void start_step(struct gl_ctx *c, struct fault_rt *f, const char *state, enum fx_op op, const char *why)
{
	struct fx_job *j;

	snprintf(f->row.state, sizeof(f->row.state), "%s", state);
	if (journal(c, f))
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
	snprintf(f->row.state, sizeof(f->row.state), "failed");
	snprintf(f->row.error, sizeof(f->row.error), "refused: %s", why);
	gl_ctx_event(c, GL_LOG_ERROR, "fault", "'%s' %s", f->row.id, f->row.error);
	journal(c, f);
}

static void fault_revert(struct gl_ctx *c, struct fault_rt *f, const char *why)
{
	if (f->busy) {
		/* inject still running: revert as soon as it is done */
		snprintf(f->revert_pending, sizeof(f->revert_pending), "%s", why);
		return;
	}
	f->revert_pending[0] = '\0';
	if (!is_live(f->row.state))
		return;
	start_step(c, f, "reverting", FX_REVERT, why);
}

static int active_faults(struct gl_ctx *c)
{
	int n = 0;
	for (int i = 0; i < c->sc->n_faults; i++)
		n += is_live(c->faults[i].row.state);
	return n;
}

static void fault_inject(struct gl_ctx *c, struct fault_rt *f)
{
	int64_t wall = gl_wall_ns();

	if (strcmp(f->row.state, "planned") != 0)
		return;   /* already handled (resume replays) */
	if (active_faults(c) >= c->sc->max_concurrent_faults) {
		char why[160];
		snprintf(why, sizeof(why), "%d fault(s) active, safety.max_concurrent_faults is %d",
			 active_faults(c), c->sc->max_concurrent_faults);
		refuse(c, f, why);
		return;
	}
	if (c->sc->mw_end_wall_ns && (wall < c->sc->mw_start_wall_ns || wall > c->sc->mw_end_wall_ns)) {
		refuse(c, f, "outside safety.maintenance_window");
		return;
	}
	/* The journal, with the plan revert needs, is durable before inject. */
	c->win_fault = 1;
	start_step(c, f, "injecting", FX_INJECT, NULL);
}

static void revert_all(struct gl_ctx *c, const char *why)
{
	for (int i = c->sc->n_faults - 1; i >= 0; i--)
		fault_revert(c, &c->faults[i], why);
}

/* ---- windows and commits ------------------------------------------------- */

struct snap {
	struct gl_ctx *c;
	int64_t idx;
	struct gl_agg *agg;    /* for abort_if, may be NULL */
	int rc;
};

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
	if (s->agg) {
		if (h)
			gl_agg_add_hist(s->agg, name, h);
		else
			gl_agg_add_counter(s->agg, name, counter);
	}
	free(blob);
}

static int write_window(struct gl_ctx *c, int64_t end_elapsed, int complete, struct gl_agg *agg)
{
	struct snap s = { c, c->win_idx, agg, 0 };
	int rc;

	rc = gl_store_window_put(c->st, c->win_idx, c->win_start_ns, end_elapsed,
				 scn_now(c, c->win_start_ns), scn_now(c, end_elapsed), c->phase, complete);
	if (complete)
		gl_metrics_visit_reset(c->m, snap_one, &s);   /* the window closes */
	else
		gl_metrics_visit(c->m, snap_one, &s);
	return rc ? rc : s.rc;
}

void gl_ctx_fail(struct gl_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->stop != STOP_NONE)
		return;
	c->stop = STOP_ERROR;
	va_start(ap, fmt);
	vsnprintf(c->stop_msg, sizeof(c->stop_msg), fmt, ap);
	va_end(ap);
	event_base_loopbreak(c->base);
}

static void fail_store(struct gl_ctx *c, const char *what)
{
	if (c->stop == STOP_NONE) {
		c->stop = STOP_ERROR;
		snprintf(c->stop_msg, sizeof(c->stop_msg), "store write failed (%s)", what);
		event_base_loopbreak(c->base);
	}
}

static void commit(struct gl_ctx *c)
{
	int64_t now = gl_ctx_elapsed_ns(c);
	struct gl_err err = { 0 };

	if (write_window(c, now, 0, NULL) != 0 || gl_store_run_progress(c->st, now) != 0 ||
	    gl_store_flush(c->st, &err) != 0)
		fail_store(c, err.code ? err.msg : "commit");
}

/* Where the run stands, for the live view. */
static void live_status(struct gl_ctx *c)
{
	struct gl_live_status s = { 0 };
	char ids[512] = "";
	size_t k = 0;

	if (!c->live)
		return;
	for (int i = 0; i < c->sc->n_faults; i++)
		if (is_live(c->faults[i].row.state) && k + strlen(c->faults[i].row.id) + 2 < sizeof(ids)) {
			k += (size_t)snprintf(ids + k, sizeof(ids) - k, "%s%s", s.n_active ? "," : "",
					      c->faults[i].row.id);
			s.n_active++;
		}
	s.elapsed_ns = gl_ctx_elapsed_ns(c);
	s.total_ns = gl_timeline_real_ns(c->sc->duration_ns, c->scale);
	s.scale = c->scale;
	s.phase = c->phase;
	s.active = ids;
	gl_live_status(c->live, &s);
}

static void on_commit(evutil_socket_t fd, short what, void *arg)
{
	commit(arg);
	live_status(arg);
}

static void check_abort(struct gl_ctx *c, struct gl_agg *w, int64_t w_start, int64_t w_end)
{
	for (int i = 0; i < c->sc->n_abort_rules; i++) {
		const struct gl_abort_rule *r = &c->sc->abort_rules[i];
		double v;
		if (gl_agg_eval(w, r->metric, &v) == 0 && gl_cmp_eval(r->expr.op, v, r->expr.threshold)) {
			if (c->abort_since[i] < 0)
				c->abort_since[i] = w_start;
			if (w_end - c->abort_since[i] >= r->for_ns && c->stop == STOP_NONE) {
				c->stop = STOP_ABORT_IF;
				snprintf(c->stop_msg, sizeof(c->stop_msg), "abort_if: %s = %g %s %g", r->metric, v,
					 gl_cmp_str(r->expr.op), r->expr.threshold);
			}
		} else {
			c->abort_since[i] = -1;
		}
	}
}

/* Close the current window at end_elapsed and open the next one. */
static void close_window(struct gl_ctx *c, int64_t end_elapsed)
{
	struct gl_agg *agg = c->sc->n_abort_rules || c->live ? gl_agg_new() : NULL;
	struct gl_err err = { 0 };

	for (int i = 0; i < c->sc->n_workloads; i++)
		if (c->wl_started && c->sc->workloads[i].ops->on_window)
			c->sc->workloads[i].ops->on_window(c->wl_state[i]);
	if (write_window(c, end_elapsed, 1, agg) != 0) {
		fail_store(c, "window");
	}
	if (agg) {
		gl_agg_add_seconds(agg, (double)(end_elapsed - c->win_start_ns) / 1e9);
		if (c->sc->n_abort_rules)
			check_abort(c, agg, c->win_start_ns, end_elapsed);
		gl_live_window(c->live, c->win_idx, agg, c->phase, c->win_fault || active_faults(c) > 0);
		gl_agg_free(agg);
	}
	c->win_fault = active_faults(c) > 0;
	c->win_idx++;
	c->win_start_ns = end_elapsed;
	/* The next window's row appears with the next commit; an empty one at
	 * the very end is never written. */
	if (gl_store_run_progress(c->st, end_elapsed) != 0 || gl_store_flush(c->st, &err) != 0)
		fail_store(c, "window");
	gl_debug("window %lld closed", (long long)(c->win_idx - 1));
	if (c->stop != STOP_NONE)
		event_base_loopbreak(c->base);
}

static void on_window(evutil_socket_t fd, short what, void *arg)
{
	struct gl_ctx *c = arg;
	int64_t boundary = (c->win_idx + 1) * c->sc->window_ns;

	close_window(c, boundary);
	if (c->stop == STOP_NONE)
		gl_ctx_arm_at(c, c->ev_window, (c->win_idx + 1) * c->sc->window_ns);
}

/* ---- timeline ------------------------------------------------------------ */

static void set_phase(struct gl_ctx *c, int p)
{
	c->phase = p;
	for (int i = 0; i < c->sc->n_workloads; i++)
		if (c->sc->workloads[i].ops->set_load)
			c->sc->workloads[i].ops->set_load(c->wl_state[i], c->sc->phases[p].load);
}

static void on_timeline(evutil_socket_t fd, short what, void *arg)
{
	struct gl_ctx *c = arg;
	int64_t now = gl_ctx_elapsed_ns(c);

	while (c->tl_next < c->n_tl && c->stop == STOP_NONE) {
		const struct gl_tl_event *e = &c->tl[c->tl_next];
		if (gl_timeline_real_ns(e->t_ns, c->scale) > now)
			break;
		c->tl_next++;
		switch (e->kind) {
		case GL_TL_PHASE:
			set_phase(c, e->index);
			gl_ctx_event(c, GL_LOG_INFO, "timeline", "phase '%s' (load x%g)",
				     c->sc->phases[e->index].name, c->sc->phases[e->index].load);
			break;
		case GL_TL_INJECT:
			fault_inject(c, &c->faults[e->index]);
			break;
		case GL_TL_REVERT:
			fault_revert(c, &c->faults[e->index], "scheduled");
			break;
		case GL_TL_END:
			c->stop = STOP_END;
			break;
		}
	}
	if (c->stop != STOP_NONE)
		event_base_loopbreak(c->base);
	else if (c->tl_next < c->n_tl)
		gl_ctx_arm_at(c, c->ev_tl, gl_timeline_real_ns(c->tl[c->tl_next].t_ns, c->scale));
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct gl_ctx *c = arg;
	if (c->stop == STOP_NONE) {
		c->stop = STOP_SIGNAL;
		snprintf(c->stop_msg, sizeof(c->stop_msg), "stopped by %s", sig == SIGINT ? "SIGINT" : "SIGTERM");
	}
	event_base_loopbreak(c->base);
}

/* ---- set-up and tear-down ------------------------------------------------ */

static int lock_dir(struct gl_ctx *c)
{
	char path[1100];
	snprintf(path, sizeof(path), "%s/run.lock", c->dir);
	c->lock_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (c->lock_fd < 0) {
		fprintf(stderr, "gauntlet: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (flock(c->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		char pid[32] = "";
		ssize_t n = pread(c->lock_fd, pid, sizeof(pid) - 1, 0);
		if (n > 0)
			pid[n] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		fprintf(stderr, "gauntlet: %s: another gauntlet (pid %s) is running this run\n", c->dir,
			pid[0] ? pid : "?");
		close(c->lock_fd);
		c->lock_fd = -1;
		return -1;
	}
	if (ftruncate(c->lock_fd, 0) == 0) {
		char pid[32];
		int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (pwrite(c->lock_fd, pid, (size_t)n, 0) < 0) {
			/* the pid is informative only */
		}
	}
	return 0;
}

static void ctx_free(struct gl_ctx *c)
{
	fx_stop(c);
	if (c->wl_state)
		for (int i = 0; i < c->sc->n_workloads; i++)
			if (c->wl_state[i] && c->sc->workloads[i].ops->free)
				c->sc->workloads[i].ops->free(c->wl_state[i]);
	free(c->wl_state);
	if (c->faults)
		for (int i = 0; i < c->sc->n_faults; i++) {
			cJSON_Delete(c->faults[i].plan);
			free(c->faults[i].row.plan);
		}
	free(c->faults);
	free(c->tl);
	free(c->abort_since);
	if (c->ev_tl) event_free(c->ev_tl);
	if (c->ev_commit) event_free(c->ev_commit);
	if (c->ev_window) event_free(c->ev_window);
	if (c->ev_int) event_free(c->ev_int);
	if (c->ev_term) event_free(c->ev_term);
	gl_live_free(c->live);
	if (c->base) event_base_free(c->base);
	gl_metrics_free(c->m);
	gl_store_close(c->st);
	gl_scenario_free(c->sc);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	/* every thread that logs is gone: the log's clock is the process's
	 * again (c is about to go) */
	if (c->log_clock) {
		gl_log_clock(NULL, NULL);
		c->log_clock = 0;
	}
	/* every thread and workload that used a secret is gone: wipe the
	 * copies taken from the environment (secrets.h) */
	gl_secrets_clear();
}

/* Every workload and fault kind used must have its run hooks in this build. */
static int preflight_plugins(const struct gl_scenario *s)
{
	int bad = 0;
	for (int i = 0; i < s->n_workloads; i++) {
		const struct gl_workload_ops *o = s->workloads[i].ops;
		if (!o->init || !o->start || !o->stop) {
			fprintf(stderr, "gauntlet: workload '%s' cannot run in this build yet (its engine is not built)\n",
				o->name);
			bad = 1;
		}
	}
	for (int i = 0; i < s->n_faults; i++) {
		const struct gl_fault_ops *o = s->faults[i].ops;
		if (!o->plan || !o->inject || !o->revert) {
			fprintf(stderr, "gauntlet: faults[%d] '%s': fault kind '%s' cannot run in this build yet\n", i,
				s->faults[i].id, o->kind);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* The preflight gate: every host a fault targets answers through its
 * transport (with a verified host key, for ssh), every tool a fault kind
 * needs is there, and each plug-in's own checks pass. Nothing is injected
 * when any check fails. Returns 0 when all passed. */
static int preflight(struct gl_ctx *c)
{
	const struct gl_scenario *s = c->sc;
	char *host_ok = calloc((size_t)s->n_hosts + 1, 1);
	int bad = 0;

	for (int i = 0; i < s->n_faults; i++) {
		const struct gl_fault_spec *f = &s->faults[i];
		const struct gl_host *h = gl_scenario_host(s, f->target);
		int hi = h ? (int)(h - s->hosts) : -1;
		char subject[160];

		if (!h || !f->ops)
			continue;
		if (host_ok && !host_ok[hi]) {
			static const char *const argv[] = { "true", NULL };
			struct gl_exec_result res;
			struct gl_err err = { 0 };
			char detail[600] = "";
			int rc = gl_host_exec(h, argv, 15000, &res, &err), ok = rc == 0 && res.exit_status == 0;
			if (rc)
				snprintf(detail, sizeof(detail), "%s", err.msg);
			else if (!ok)
				snprintf(detail, sizeof(detail), "'true' exited %d", res.exit_status);
			gl_buf_free(&res.out);
			snprintf(subject, sizeof(subject), "host %s", h->name);
			bad |= gl_ctx_preflight(c, subject, h->local ? "reachable (local transport)"
							  : "reachable (ssh, host key verified)", ok, detail) != 0;
			host_ok[hi] = ok ? 1 : 2;
		}
		if (host_ok && host_ok[hi] == 2)
			continue;   /* its tools cannot be checked on an unreachable host */
		snprintf(subject, sizeof(subject), "fault %s on host %s", f->id, h->name);
		for (int t = 0; f->ops->tools && f->ops->tools[t]; t++) {
			const char *argv[] = { "sh", "-c", "command -v \"$1\" >/dev/null", "sh", f->ops->tools[t], NULL };
			struct gl_exec_result res;
			struct gl_err err = { 0 };
			char check[128];
			int rc = gl_host_exec(h, argv, 15000, &res, &err);
			snprintf(check, sizeof(check), "tool '%s' present", f->ops->tools[t]);
			bad |= gl_ctx_preflight(c, subject, check, rc == 0 && res.exit_status == 0,
						rc ? err.msg : res.exit_status ? "not found on the host's PATH" : "") != 0;
			gl_buf_free(&res.out);
		}
		if (f->ops->preflight && c->faults[i].plan)
			bad |= f->ops->preflight(c, c->faults[i].plan) != 0;
	}
	for (int i = 0; i < s->n_workloads; i++)
		if (s->workloads[i].ops->preflight)
			bad |= s->workloads[i].ops->preflight(c, s->workloads[i].cfg) != 0;
	free(host_ok);
	return bad ? -1 : 0;
}

static int build_faults(struct gl_ctx *c, int fresh)
{
	c->faults = calloc((size_t)c->sc->n_faults + 1, sizeof(*c->faults));
	if (!c->faults)
		return -1;
	for (int i = 0; i < c->sc->n_faults; i++) {
		struct fault_rt *f = &c->faults[i];
		const struct gl_fault_spec *s = &c->sc->faults[i];
		struct gl_err err = { 0 };
		f->spec = s;
		if (!s->ops->plan) {
			/* kind not built: run refuses it in preflight; revert and
			 * resume use the journaled plan */
			continue;
		}
		if (s->ops->plan(c->sc, s, &f->plan, &err) != 0) {
			fprintf(stderr, "gauntlet: faults[%d] '%s': cannot plan: %s\n", i, s->id, err.msg);
			return -1;
		}
		if (!fresh)
			continue;
		snprintf(f->row.id, sizeof(f->row.id), "%s", s->id);
		snprintf(f->row.kind, sizeof(f->row.kind), "%s", s->kind);
		snprintf(f->row.method, sizeof(f->row.method), "%s", s->method);
		snprintf(f->row.target, sizeof(f->row.target), "%s", s->target);
		f->row.at_ns = s->at_ns;
		f->row.dur_ns = s->dur_ns;
		snprintf(f->row.state, sizeof(f->row.state), "planned");
		f->row.verified = f->row.verified_revert = -1;
		f->row.injected_elapsed_ns = f->row.reverted_elapsed_ns = -1;
		f->row.injected_scn_ns = f->row.reverted_scn_ns = -1;
	}
	return 0;
}

static int start_loop(struct gl_ctx *c)
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
	c->abort_since = calloc((size_t)c->sc->n_abort_rules + 1, sizeof(int64_t));
	for (int i = 0; i < c->sc->n_abort_rules; i++)
		c->abort_since[i] = -1;
	c->wl_state = calloc((size_t)c->sc->n_workloads + 1, sizeof(void *));
	c->ev_tl = evtimer_new(c->base, on_timeline, c);
	c->ev_commit = event_new(c->base, -1, EV_PERSIST, on_commit, c);
	c->ev_window = evtimer_new(c->base, on_window, c);
	c->ev_int = evsignal_new(c->base, SIGINT, on_signal, c);
	c->ev_term = evsignal_new(c->base, SIGTERM, on_signal, c);
	if (!c->m || !c->wl_state || !c->ev_tl || !c->ev_commit || !c->ev_window || !c->ev_int ||
	    !c->ev_term || !c->abort_since)
		return -1;
	evsignal_add(c->ev_int, NULL);
	evsignal_add(c->ev_term, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (gl_timeline_build(c->sc, &c->tl, &c->n_tl) != 0)
		return -1;
	for (int i = 0; i < c->sc->n_workloads; i++) {
		const struct gl_workload_spec *w = &c->sc->workloads[i];
		if (w->ops->init(c, w->cfg, &c->wl_state[i], &err) != 0) {
			snprintf(c->stop_msg, sizeof(c->stop_msg), "workload %s: %s", w->name, err.msg);
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

	c->live = gl_live_new(c->base, c->sc, c->run_id, live_opts.listen, &err);
	if (!c->live) {
		/* stopped like any other harness failure: failed, reported */
		c->stop = STOP_ERROR;
		snprintf(c->stop_msg, sizeof(c->stop_msg), "--metrics-listen %s", err.msg);
		return -1;
	}
	if (live_opts.listen)
		gl_ctx_event(c, GL_LOG_INFO, "controller", "metrics at http://%s/metrics", gl_live_bound(c->live));
	c->win_fault = active_faults(c) > 0;
	if (c->win_idx > 0) {
		inj = calloc((size_t)c->sc->n_faults + 1, sizeof(*inj));
		rev = calloc((size_t)c->sc->n_faults + 1, sizeof(*rev));
		for (int i = 0; inj && rev && i < c->sc->n_faults; i++) {
			inj[i] = c->faults[i].row.injected_elapsed_ns;
			rev[i] = c->faults[i].row.reverted_elapsed_ns;
		}
		if (!inj || !rev || gl_live_replay(c->live, c->st, c->win_idx, inj, rev, c->sc->n_faults, &err) != 0)
			gl_ctx_event(c, GL_LOG_WARN, "controller", "live view: figures before the resume left out: %s",
				     err.code ? err.msg : "out of memory");
	}
	free(inj);
	free(rev);
	live_status(c);
	return rc;
}

/* The run is over and the endpoint shows its verdict: serve it for
 * --metrics-linger more, so that a last scrape sees the final figures. */
static void live_linger(struct gl_ctx *c)
{
	if (!c->live || !live_opts.listen || live_opts.linger_ns <= 0)
		return;
	event_del(c->ev_commit);
	event_del(c->ev_window);
	event_del(c->ev_tl);
	gl_info("metrics: serving the final figures at http://%s/metrics for %.1f s more",
		gl_live_bound(c->live), (double)live_opts.linger_ns / 1e9);
	event_base_loopexit(c->base, &(struct timeval){ live_opts.linger_ns / 1000000000,
							(live_opts.linger_ns % 1000000000) / 1000 });
	event_base_dispatch(c->base);
}

/* Run the loop from c->elapsed_base until the end, a signal or an error;
 * then stop everything in order. Returns the exit code. */
static int drive(struct gl_ctx *c)
{
	struct gl_err err = { 0 };
	struct gl_analysis *an = NULL;
	const char *state;
	int code;
	int64_t now, base = c->elapsed_base;

	c->mono_start = gl_now_ns();
	c->win_idx = base / c->sc->window_ns;
	c->win_start_ns = c->win_idx * c->sc->window_ns;
	set_phase(c, gl_scenario_phase_at(c->sc, scn_now(c, base)));
	/* Timeline: events already past were handled before the stop; the
	 * journal tells which fault steps are still owed (reconciled by the
	 * caller for resume). */
	live_start(c);
	c->tl_next = 0;
	while (c->tl_next < c->n_tl && gl_timeline_real_ns(c->tl[c->tl_next].t_ns, c->scale) <= base &&
	       (base > 0 || c->tl[c->tl_next].kind == GL_TL_PHASE) && c->tl[c->tl_next].kind != GL_TL_END)
		c->tl_next++;
	for (int i = 0; i < c->sc->n_workloads && c->stop == STOP_NONE; i++) {
		if (c->sc->workloads[i].ops->start(c->wl_state[i], &err) != 0) {
			c->stop = STOP_ERROR;
			snprintf(c->stop_msg, sizeof(c->stop_msg), "workload %s: %s", c->sc->workloads[i].name, err.msg);
		}
	}
	c->wl_started = 1;
	if (c->stop == STOP_NONE && fx_start(c) != 0) {
		c->stop = STOP_ERROR;
		snprintf(c->stop_msg, sizeof(c->stop_msg), "cannot start the fault executor thread");
	}
	if (c->stop == STOP_NONE) {
		event_add(c->ev_commit, &(struct timeval){ 0, COMMIT_INTERVAL_NS / 1000 });
		gl_ctx_arm_at(c, c->ev_window, (c->win_idx + 1) * c->sc->window_ns);
		gl_ctx_arm_at(c, c->ev_tl, 0);
		event_base_dispatch(c->base);
	}
	/* Steps already handed to the executor finish and are journaled; from
	 * here on fault steps run inline. */
	fx_stop(c);
	/* Stop in order: no new work, close the window, revert, flush, report. */
	for (int i = 0; i < c->sc->n_workloads; i++)
		if (c->wl_state[i])
			c->sc->workloads[i].ops->stop(c->wl_state[i]);
	/* What a launcher moved out of its reach (a job in a session of its
	 * own) carries the run's mark: it ends with the run too. */
	stop_leftovers(c, "end of run");
	now = gl_ctx_elapsed_ns(c);
	/* The run ends at the scenario's end, not when the loop noticed. */
	if (c->stop == STOP_END && now > gl_timeline_real_ns(c->sc->duration_ns, c->scale))
		now = gl_timeline_real_ns(c->sc->duration_ns, c->scale);
	if (now > c->win_start_ns) {
		struct gl_agg *agg = c->live ? gl_agg_new() : NULL;
		write_window(c, now, 1, agg);
		gl_store_run_progress(c->st, now);
		if (agg) {
			gl_agg_add_seconds(agg, (double)(now - c->win_start_ns) / 1e9);
			gl_live_window(c->live, c->win_idx, agg, c->phase, c->win_fault || active_faults(c) > 0);
			gl_agg_free(agg);
		}
	} else {
		/* a commit may have opened a window that never got any time */
		gl_store_window_drop(c->st, c->win_idx);
	}
	revert_all(c, c->stop == STOP_END ? "end of run" : c->stop_msg);
	if (c->stop == STOP_NONE) {
		c->stop = STOP_ERROR;
		snprintf(c->stop_msg, sizeof(c->stop_msg), "event loop ended unexpectedly");
	}
	if (c->stop != STOP_END)
		gl_ctx_event(c, c->stop == STOP_ERROR ? GL_LOG_ERROR : GL_LOG_WARN, "controller", "%s", c->stop_msg);
	state = c->stop == STOP_END ? "finished" : c->stop == STOP_ERROR ? "failed" : "aborted";
	gl_store_flush(c->st, &err);
	gl_store_run_finish(c->st, state, "", 0, gl_wall_ns());
	/* The verdict comes from the store, like any later `gauntlet report`. */
	if (gl_analyze(c->st, &an, &err) != 0) {
		fprintf(stderr, "gauntlet: analysis failed: %s\n", err.msg);
		return 4;
	}
	code = c->stop == STOP_ERROR ? 4 : !strcmp(an->verdict, "pass") ? 0 : !strcmp(an->verdict, "aborted") ? 3 : 1;
	gl_store_run_finish(c->st, state, an->verdict, code, gl_wall_ns());
	gl_analysis_free(an);
	if (write_reports(c->dir, c->st, &err) != 0) {
		fprintf(stderr, "gauntlet: report: %s\n", err.msg);
		return 4;
	}
	if (c->live) {
		live_status(c);
		gl_live_final(c->live, state, code == 0 ? "pass" : code == 1 ? "fail" : code == 3 ? "aborted" : "error");
	}
	fprintf(stderr, "gauntlet: run %s: %s (exit %d); report: %s/report.json\n", state,
		code == 0 ? "pass" : code == 1 ? "fail" : code == 3 ? "aborted" : "harness error", code, c->dir);
	live_linger(c);
	return code;
}

static void make_run_id(char *out, size_t n)
{
	unsigned char rnd[4] = { 0 };
	char t[40];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	time_t now = time(NULL);
	struct tm tm;

	if (fd >= 0) {
		if (read(fd, rnd, sizeof(rnd)) < 0) {
			/* fall back to the clock below */
		}
		close(fd);
	}
	if (!rnd[0] && !rnd[1])
		*(uint32_t *)rnd = (uint32_t)gl_now_ns();
	gmtime_r(&now, &tm);
	strftime(t, sizeof(t), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(out, n, "%s-%02x%02x%02x%02x", t, rnd[0], rnd[1], rnd[2], rnd[3]);
}

static void print_diag(const struct gl_diag *d)
{
	if (d->text.data)
		fputs(d->text.data, stderr);
	if (d->n_dropped)
		fprintf(stderr, "(%d more diagnostics not shown)\n", d->n_dropped);
}

int gl_controller_run(const struct gl_run_opts *o)
{
	struct gl_ctx c = { .lock_fd = -1 };
	struct gl_diag d;
	struct gl_scenario_opts so = { o->time_scale, o->sets, 0, NULL };
	struct gl_run_row row;
	struct gl_err err = { 0 };
	struct utsname un;
	cJSON *sets = NULL;
	int code = 4;

	gl_diag_init(&d, NULL);
	so.start_wall_ns = gl_wall_ns();
	c.sc = gl_scenario_load_file(o->scenario_path, &so, &d);
	if (!c.sc || d.n_errors > c.sc->n_missing) {
		print_diag(&d);
		fprintf(stderr, "gauntlet: %s: invalid scenario, nothing was run\n", o->scenario_path);
		gl_diag_free(&d);
		gl_scenario_free(c.sc);
		return 2;
	}
	if (d.n_errors) {
		print_diag(&d);
		fprintf(stderr, "gauntlet: running anyway: the missing thresholds above fail the verdict\n");
	}
	gl_diag_free(&d);
	gl_secrets_take(c.sc->root);    /* before any thread or child (secrets.h) */
	c.scale = o->time_scale > 0 ? o->time_scale : 1;
	if (preflight_plugins(c.sc) != 0) {
		gl_scenario_free(c.sc);
		return 4;
	}
	if (build_faults(&c, 1) != 0)
		goto out;
	if (o->dry_run) {
		gl_timeline_print(c.sc, c.scale, stdout);
		for (int i = 0; i < c.sc->n_faults; i++) {
			struct gl_buf b;
			gl_buf_init(&b, DESCRIBE_MAX);
			if (c.sc->faults[i].ops->describe)
				c.sc->faults[i].ops->describe(c.faults[i].plan, &b);
			printf("fault '%s' on host '%s':\n", c.faults[i].row.id, c.faults[i].row.target);
			put_text(stdout, b.data ? b.data : "  (no commands)\n");
			if (b.cut)
				printf("  (THE DESCRIPTION ABOVE IS INCOMPLETE: it did not fit in %d MiB; the run would "
				       "execute more than is shown)\n", DESCRIBE_MAX >> 20);
			gl_buf_free(&b);
		}
		printf("dry run: nothing was started, injected or written\n");
		code = 0;
		goto out;
	}
	memset(&row, 0, sizeof(row));
	make_run_id(row.id, sizeof(row.id));
	snprintf(c.run_id, sizeof(c.run_id), "%s", row.id);
	if (o->out_dir)
		snprintf(c.dir, sizeof(c.dir), "%s", o->out_dir);
	else
		snprintf(c.dir, sizeof(c.dir), "runs/%s-%s", c.sc->name, row.id);
	{
		size_t n = strlen(c.dir);
		while (n > 1 && c.dir[n - 1] == '/')
			c.dir[--n] = '\0';
	}
	/* A new directory, or an empty one of ours: never one another user
	 * prepared (links planted in it would redirect root's writes). */
	if (gl_rundir_create(c.dir, &err) != 0) {
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		code = err.code == GL_EINVAL ? 2 : 4;
		goto out;
	}
	if (lock_dir(&c) != 0)
		goto out;
	{
		char db[1100];
		snprintf(db, sizeof(db), "%s/run.db", c.dir);
		c.st = gl_store_open(db, 1, &err);
		if (!c.st) {
			fprintf(stderr, "gauntlet: %s\n", err.msg);
			code = 2;
			goto out;
		}
	}
	/* the run exists: log lines carry its clock, at 0 until the loop
	 * starts (the events stored before then are at 0 too) */
	log_clock_start(&c);
	snprintf(row.name, sizeof(row.name), "%s", c.sc->name);
	snprintf(row.scenario_path, sizeof(row.scenario_path), "%s", o->scenario_path);
	row.scenario_text = c.sc->text;
	snprintf(row.scenario_sha256, sizeof(row.scenario_sha256), "%s", c.sc->sha256);
	sets = cJSON_CreateArray();
	for (int i = 0; o->sets && o->sets[i]; i++)
		cJSON_AddItemToArray(sets, cJSON_CreateString(o->sets[i]));
	row.sets_json = cJSON_PrintUnformatted(sets);
	row.time_scale = c.scale;
	row.window_ns = c.sc->window_ns;
	row.duration_ns = c.sc->duration_ns;
	row.started_wall_ns = gl_wall_ns();
	snprintf(row.version, sizeof(row.version), "%s", GL_VERSION);
	snprintf(row.git_rev, sizeof(row.git_rev), "%s", GL_GIT_REV);
	if (uname(&un) == 0)
		snprintf(row.hostname, sizeof(row.hostname), "%s", un.nodename);
	if (gl_store_run_create(c.st, &row, &err) != 0) {
		free(row.sets_json);
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		goto out;
	}
	free(row.sets_json);
	for (int i = 0; i < c.sc->n_phases; i++) {
		const struct gl_phase *p = &c.sc->phases[i];
		gl_store_phase_put(c.st, i, p->name, p->start_ns, p->start_ns + p->dur_ns, p->load,
				   gl_scope_name(p->scope));
	}
	for (int i = 0; i < c.sc->n_faults; i++)
		if (journal(&c, &c.faults[i]) != 0)
			goto out;
	if (c.sc->inventory_text && gl_store_doc_put(c.st, "scenario_inventory", c.sc->inventory_text, &err) != 0) {
		/* resume and report rebuild the scenario from it */
		fprintf(stderr, "gauntlet: the scenario's inventory %s could not be stored: %s\n",
			c.sc->inventory_path, err.msg);
		goto out;
	}
	{
		/* provenance for manifest.json, kept in the store; bounded, and
		 * never a reason to fail the run */
		cJSON *inv = gl_inventory_collect(c.sc, 0);
		char *text = inv ? cJSON_PrintUnformatted(inv) : NULL;
		struct gl_err ierr = { 0 };
		if (!text || gl_store_doc_put(c.st, "inventory", text, &ierr) != 0)
			gl_ctx_event(&c, GL_LOG_WARN, "inventory", "not stored: %s", text ? ierr.msg : "out of memory");
		else
			gl_ctx_event(&c, GL_LOG_INFO, "inventory", "%d host(s) in %.1f s", c.sc->n_hosts,
				     cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(inv, "collect_s")));
		cJSON_free(text);
		cJSON_Delete(inv);
	}
	if (preflight(&c) != 0) {
		struct gl_err rerr = { 0 };
		gl_ctx_event(&c, GL_LOG_ERROR, "controller", "preflight failed: nothing was started or injected");
		gl_store_run_finish(c.st, "failed", "fail", 4, gl_wall_ns());
		if (write_reports(c.dir, c.st, &rerr) != 0)
			fprintf(stderr, "gauntlet: report: %s\n", rerr.msg);
		fprintf(stderr, "gauntlet: preflight failed (see above); report: %s/report.json\n", c.dir);
		code = 4;
		goto out;
	}
	if (start_loop(&c) != 0) {
		fprintf(stderr, "gauntlet: cannot start: %s\n", c.stop_msg[0] ? c.stop_msg : "out of memory");
		goto out;
	}
	gl_ctx_event(&c, GL_LOG_INFO, "controller", "run %s started in %s (time scale %g)", row.id, c.dir, c.scale);
	c.elapsed_base = 0;
	code = drive(&c);
out:
	cJSON_Delete(sets);
	ctx_free(&c);
	return code;
}

/* Open DIR's store and scenario as the run recorded them. */
static int open_existing(struct gl_ctx *c, const char *dir, struct gl_run_row *row)
{
	struct gl_err err = { 0 };
	struct gl_diag d;
	char db[1100];

	snprintf(c->dir, sizeof(c->dir), "%s", dir);
	snprintf(db, sizeof(db), "%s/run.db", dir);
	if (access(db, F_OK) != 0) {
		fprintf(stderr, "gauntlet: %s: no run store (run.db) here\n", dir);
		return 2;
	}
	/* The plans in this store run as us: refuse one another user could
	 * have written, before touching anything in the directory. */
	if (gl_path_trusted(dir, 1, &err) != 0) {
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		return 2;
	}
	if (lock_dir(c) != 0)
		return 4;
	c->st = gl_store_open(db, 0, &err);
	if (!c->st || gl_store_run_load(c->st, row, &err) != 0) {
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		return err.code == GL_EINVAL ? 2 : 4;
	}
	c->sc = gl_scenario_from_store(c->st, row, &d);
	if (!c->sc || d.n_errors > c->sc->n_missing) {
		print_diag(&d);
		gl_diag_free(&d);
		fprintf(stderr, "gauntlet: %s: the stored scenario does not validate with this gauntlet\n", dir);
		return 2;
	}
	gl_diag_free(&d);
	gl_secrets_take(c->sc->root);   /* before any thread or child (secrets.h) */
	c->scale = row->time_scale;
	if (build_faults(c, 0) != 0)
		return 4;
	/* Take each fault's state from the journal, matching by id. */
	{
		struct gl_fault_row *rows;
		int n;
		if (gl_store_fault_list(c->st, &rows, &n, &err) != 0) {
			fprintf(stderr, "gauntlet: %s\n", err.msg);
			return 4;
		}
		for (int i = 0; i < c->sc->n_faults; i++)
			for (int j = 0; j < n; j++)
				if (!strcmp(rows[j].id, c->sc->faults[i].id)) {
					c->faults[i].row = rows[j];
					rows[j].plan = NULL;
					/* Revert with the plan that was journaled, not a new one. */
					if (c->faults[i].row.plan) {
						cJSON *p = cJSON_Parse(c->faults[i].row.plan);
						if (p) {
							cJSON_Delete(c->faults[i].plan);
							c->faults[i].plan = p;
						}
					}
				}
		gl_fault_rows_free(rows, n);
	}
	return 0;
}

/* Print what reverting each fault the journal holds as live would execute:
 * the plan stored in run.db, as --dry-run describes a new run's. */
static int print_live_plans(struct gl_ctx *c, FILE *out)
{
	int n = 0;

	for (int i = 0; i < c->sc->n_faults; i++) {
		struct fault_rt *f = &c->faults[i];
		struct gl_buf b;

		if (!is_live(f->row.state))
			continue;
		n++;
		gl_buf_init(&b, DESCRIBE_MAX);
		if (f->spec->ops->describe)
			f->spec->ops->describe(f->plan, &b);
		fprintf(out, "fault '%s' (%s on host '%s', journal state %s): its stored plan:\n", f->row.id,
			f->row.kind, f->row.target, f->row.state);
		put_text(out, b.data ? b.data : "  (no commands)\n");
		if (b.cut)
			fprintf(out, "  (THE PLAN ABOVE IS INCOMPLETE: it did not fit in %d MiB; more would be "
				"executed than is shown)\n", DESCRIBE_MAX >> 20);
		gl_buf_free(&b);
	}
	if (!n)
		fprintf(out, "no fault is injected: nothing to revert\n");
	return n;
}

/* The plans in a store run as whoever runs resume or revert. When another
 * gauntlet version or host wrote the store, show them before executing
 * anything (they may mean something else here); --dry-run shows them and
 * stops. Returns 1 when the caller must stop (dry run). */
static int show_plans_if_needed(struct gl_ctx *c, const struct gl_run_row *row, const char *what, int dry_run)
{
	struct utsname un;
	const char *host = uname(&un) == 0 ? un.nodename : "";
	int other_version = strcmp(row->version, GL_VERSION) != 0 || strcmp(row->git_rev, GL_GIT_REV) != 0;
	int other_host = strcmp(row->hostname, host) != 0;

	if (dry_run) {
		printf("dry run of %s %s: run %s, written by gauntlet %s (%s) on host '%s'\n", what, c->dir, row->id,
		       row->version, row->git_rev, row->hostname);
		print_live_plans(c, stdout);
		printf("dry run: nothing was executed\n");
		return 1;
	}
	if (other_version || other_host) {
		fprintf(stderr,
			"gauntlet: %s: this store was written by gauntlet %s (%s) on host '%s'; this is gauntlet %s "
			"(%s) on host '%s'. The plans %s executes now:\n",
			c->dir, row->version, row->git_rev, row->hostname, GL_VERSION, GL_GIT_REV, host, what);
		print_live_plans(c, stderr);
	}
	return 0;
}

int gl_controller_resume(const char *dir, int dry_run)
{
	struct gl_ctx c = { .lock_fd = -1 };
	struct gl_run_row row = { 0 };
	int code = open_existing(&c, dir, &row);
	int64_t base;

	if (code != 0)
		goto out;
	if (show_plans_if_needed(&c, &row, "resume", dry_run))
		goto out;
	if (!strcmp(row.state, "finished") || !strcmp(row.state, "failed")) {
		fprintf(stderr, "gauntlet: %s: nothing to resume: the run is %s (verdict %s)\n", dir, row.state,
			row.verdict[0] ? row.verdict : "none");
		code = 2;
		goto out;
	}
	/* log lines carry the run's clock from here: held where the last
	 * commit left it until the loop goes on from there */
	c.elapsed_base = row.elapsed_ns;
	log_clock_start(&c);
	/* count this resume at once: one killed in its preflight or start-up
	 * was still a restart of the controller (it may have reverted
	 * faults); the record must not lose it */
	gl_store_run_resumed(c.st, row.resumes + 1);
	if (preflight_plugins(c.sc) != 0) {
		code = 4;
		goto out;
	}
	code = 4;
	if (start_loop(&c) != 0) {
		fprintf(stderr, "gauntlet: cannot start: %s\n", c.stop_msg[0] ? c.stop_msg : "out of memory");
		goto out;
	}
	base = row.elapsed_ns;
	c.elapsed_base = base;
	c.mono_start = gl_now_ns();
	/* The steps reconciliation runs below happen, on the run's timeline,
	 * at the resume point: the loop restarts from there (time spent here
	 * is down time, like the time the controller was dead), so their
	 * journal times must not run ahead of it. */
	c.time_held = 1;
	snprintf(c.run_id, sizeof(c.run_id), "%s", row.id);
	c.resumes = row.resumes + 1;
	{
		/* the outage: from the last commit the store holds (work after
		 * it was lost with the controller) to now */
		struct gl_outage_row o = { row.resumes + 1, base, row.progress_wall_ns, gl_wall_ns() };
		gl_store_outage_put(c.st, &o);
		if (o.down_wall_ns > 0)
			gl_ctx_event(&c, GL_LOG_WARN, "controller", "run %s resumed at elapsed %.3f s (resume #%d): "
				     "the controller was down %.3f s since its last commit", row.id, (double)base / 1e9,
				     row.resumes + 1, (double)(o.resumed_wall_ns - o.down_wall_ns) / 1e9);
		else
			gl_ctx_event(&c, GL_LOG_INFO, "controller", "run %s resumed at elapsed %.3f s (resume #%d)",
				     row.id, (double)base / 1e9, row.resumes + 1);
	}
	/* Nothing the dead controller started may run beside what this one
	 * starts: two training jobs would share a checkpoint directory. */
	if (stop_leftovers(&c, "resume") != 0) {
		fprintf(stderr, "gauntlet: %s: processes of the run are still running and could not be stopped "
			"(see above); nothing was started\n", dir);
		gl_store_flush(c.st, NULL);
		code = 4;
		goto out;
	}
	/* Put back the partial window the store holds. */
	{
		sqlite3 *db = gl_store_db(c.st);
		sqlite3_stmt *q;
		int64_t widx = base / c.sc->window_ns;
		if (sqlite3_prepare_v2(db, "SELECT name,hist,counter FROM window_metrics WHERE idx=?", -1, &q,
				       NULL) == SQLITE_OK) {
			sqlite3_bind_int64(q, 1, widx);
			while (sqlite3_step(q) == SQLITE_ROW) {
				const char *name = (const char *)sqlite3_column_text(q, 0);
				if (sqlite3_column_type(q, 1) == SQLITE_BLOB)
					gl_metrics_restore_hist(c.m, name, sqlite3_column_blob(q, 1),
								(size_t)sqlite3_column_bytes(q, 1));
				else
					gl_metrics_restore_counter(c.m, name, sqlite3_column_int64(q, 2));
			}
			sqlite3_finalize(q);
		}
	}
	/* Reconcile the journal with the timeline position. */
	for (int i = 0; i < c.sc->n_faults; i++) {
		struct fault_rt *f = &c.faults[i];
		int64_t t_inj = gl_timeline_real_ns(f->spec->at_ns, c.scale);
		int64_t t_rev = gl_timeline_real_ns(f->spec->at_ns + f->spec->dur_ns, c.scale);
		if (!strcmp(f->row.state, "injecting")) {
			/* Died mid-inject: unknown effect; revert, then inject again if due.
			 * The row stays "injecting" during this clean-up, so a controller
			 * killed again now leaves the same case for the next resume (as
			 * "reverting" it would be reverted and never injected again). */
			start_step(&c, f, "injecting", FX_REVERT, "controller died while injecting");
			/* Still due, or not yet (killed after the inject started but
			 * before the commit that passed its time): planned again, and
			 * journaled so, or a kill before it is injected would lose it.
			 * An instantaneous fault never happened: it is still owed. */
			if (!strcmp(f->row.state, "reverted") && (base < t_rev || f->spec->dur_ns == 0)) {
				snprintf(f->row.state, sizeof(f->row.state), "planned");
				f->row.injected_elapsed_ns = f->row.reverted_elapsed_ns = -1;
				journal(&c, f);
			}
		} else if (!strcmp(f->row.state, "reverting") || !strcmp(f->row.state, "revert_failed")) {
			fault_revert(&c, f, "revert owed from before the resume");
		} else if (!strcmp(f->row.state, "injected") && f->spec->dur_ns > 0 && t_rev <= base) {
			fault_revert(&c, f, "revert time passed while the controller was down");
		}
		if (!strcmp(f->row.state, "planned") && t_inj <= base)
			fault_inject(&c, f);   /* due before the stop but never started */
	}
	c.time_held = 0;
	code = drive(&c);
out:
	gl_run_row_free(&row);
	ctx_free(&c);
	return code;
}

int gl_controller_revert(const char *dir, int dry_run)
{
	struct gl_ctx c = { .lock_fd = -1 };
	struct gl_run_row row = { 0 };
	int code = open_existing(&c, dir, &row), left = 0, done = 0;

	if (code != 0)
		goto out;
	if (show_plans_if_needed(&c, &row, "revert", dry_run))
		goto out;
	for (int i = 0; i < c.sc->n_faults; i++) {
		struct fault_rt *f = &c.faults[i];
		if (!is_live(f->row.state))
			continue;
		if (!f->spec->ops->revert) {
			fprintf(stderr, "gauntlet: fault '%s': kind '%s' has no revert in this build\n", f->row.id,
				f->row.kind);
			left++;
			continue;
		}
		fault_revert(&c, f, "gauntlet revert");
		if (strcmp(f->row.state, "reverted") != 0)
			left++;
		else
			done++;
	}
	gl_store_flush(c.st, NULL);
	printf("%d fault(s) reverted, %d still injected\n", done, left);
	code = left ? 1 : 0;
out:
	gl_run_row_free(&row);
	ctx_free(&c);
	return code;
}
