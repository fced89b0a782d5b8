/*
 * ctx.c - the run's context as plug-ins see it (plugin.h, gl_ctx_*): its
 * accessors, its clock (elapsed time, the log's clock, timers armed at an
 * elapsed time), events, preflight records and gl_ctx_fail; and the
 * processes the workloads start (child.h): their records, and stopping
 * what a run left running.
 */
#define _GNU_SOURCE
#include "controller_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event2/event.h>

#include "child.h"
#include "sim.h"
#include "stop.h"

/* ---- what plug-ins see --------------------------------------------------- */

struct event_base *gl_ctx_base(struct gl_ctx *c)
{
	return c->base;
}
struct gl_metrics *gl_ctx_metrics(struct gl_ctx *c)
{
	return c->m;
}
const struct gl_scenario *gl_ctx_scenario(struct gl_ctx *c)
{
	return c->sc;
}
double gl_ctx_time_scale(struct gl_ctx *c)
{
	return c->clk.scale;
}
const char *gl_ctx_run_dir(struct gl_ctx *c)
{
	return c->run.dir;
}
const char *gl_ctx_run_id(struct gl_ctx *c)
{
	return c->run.id;
}
int gl_ctx_resumes(struct gl_ctx *c)
{
	return c->run.resumes;
}
int gl_ctx_phase(struct gl_ctx *c)
{
	return c->timeline.phase;
}
struct gl_store *gl_ctx_store(struct gl_ctx *c)
{
	return c->st;
}
int64_t gl_ctx_window(struct gl_ctx *c)
{
	return c->win.idx;
}

void gl_ctx_shard(struct gl_ctx *c, int *index, int *count, int64_t *origin_ns)
{
	*index = c->agent.shards > 0 ? c->agent.shard : 0;
	*count = c->agent.shards > 0 ? c->agent.shards : 1;
	*origin_ns = c->agent.shards > 0 ? c->agent.origin_ns : -1;
}

void gl_ctx_node(struct gl_ctx *c, const char *workload, const char *kind, const char *name, const char *host,
		 const char *figure, int64_t n, double sum, double max)
{
	gl_nodes_add(c->nodes, c->win.idx, workload, kind, name, host && *host ? host : "-", figure, n, sum, max);
}

const char *gl_ctx_host(struct gl_ctx *c)
{
	const struct gl_scenario *sc = c->sc;
	const struct gl_host *one = NULL;
	char me[256] = "";
	int n = 0;

	if (c->agent.host[0])
		return c->agent.host;
	if (c->run.host[0])
		return c->run.host;
	for (int i = 0; sc && i < sc->n_hosts; i++)
		if (sc->hosts[i].local && !sc->hosts[i].netns[0]) {
			one = &sc->hosts[i];
			n++;
		}
	if (n != 1) {
		one = NULL;
		gethostname(me, sizeof(me) - 1);
		for (int i = 0; sc && me[0] && i < sc->n_hosts && !one; i++)
			if (!strcmp(sc->hosts[i].name, me) || !strcmp(sc->hosts[i].ssh_host, me))
				one = &sc->hosts[i];
	}
	snprintf(c->run.host, sizeof(c->run.host), "%s", one ? one->name : "local");
	gl_node_text_fix(c->run.host);
	return c->run.host;
}

void gl_ctx_request_row(struct gl_ctx *c, const struct gl_request_row *r)
{
	if (c->agent.row_sink)
		c->agent.row_sink(c->agent.sink_arg, r);
	else if (c->st)
		gl_store_request_put(c->st, r);
}

int64_t gl_ctx_elapsed_ns(struct gl_ctx *c)
{
	if (c->clk.held)
		return c->clk.elapsed_base;
	return c->clk.elapsed_base + (gl_now_ns() - c->clk.mono_start);
}

/* The log's clock while this process drives the run: the run's elapsed
 * time, held at the point the loop starts from (0 for a new run, the last
 * commit for a resume) until it does. */
static int64_t log_elapsed(void *arg)
{
	struct gl_ctx *c = arg;
	return c->clk.mono_start ? gl_ctx_elapsed_ns(c) : c->clk.elapsed_base;
}

void ctl_log_clock_start(struct gl_ctx *c)
{
	c->clk.log = 1;
	gl_log_clock(log_elapsed, c);
}

void gl_ctx_event(struct gl_ctx *c, enum gl_log_level lvl, const char *source, const char *fmt, ...)
{
	static const char *names[] = { "debug", "info", "warn", "error" };
	char msg[1024];
	va_list ap;
	int64_t t = c->clk.mono_start ? gl_ctx_elapsed_ns(c) : c->clk.elapsed_base;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the line and the stored event carry one time */
	if (c->clk.log)
		gl_log_at(lvl, t, "%s: %s", source, msg);
	else
		gl_log(lvl, "%s: %s", source, msg);
	if (c->st)
		gl_store_event(c->st, t, names[lvl], source, msg);
	if (c->agent.event_sink)
		c->agent.event_sink(c->agent.sink_arg, lvl, source, msg);
}

/* ---- processes the workloads start (child.h) ------------------------------ */

const char *gl_ctx_child_mark(struct gl_ctx *c)
{
	snprintf(c->run.child_mark, sizeof(c->run.child_mark), "%s=%s", GL_CHILD_MARK, c->run.id);
	return c->run.child_mark;
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
		return 1; /* no store to record it in: nothing to wait for */
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
int ctl_stop_leftovers(struct gl_ctx *c, const char *who)
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

	/* a simulation starts no process (sim.h): none of ours can be left */
	if (c->sim)
		goto out;
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
	n = gl_leftovers_find(c->run.id, pids, ticks, n_rec, l, LEFTOVERS_MAX, &scanned);
	if (elsewhere)
		gl_ctx_event(c, GL_LOG_WARN, "controller",
			     "%s: %d recorded child process(es) were started on another "
			     "host or before a reboot: not looked for here",
			     who, elsewhere);
	if (!scanned && c->run.id[0])
		gl_ctx_event(c, GL_LOG_WARN, "controller",
			     "%s: this gauntlet carries %s itself: only the recorded "
			     "launchers were looked for",
			     who, gl_ctx_child_mark(c));
	if (!n) {
		if (!c->wl.started)
			gl_ctx_event(c, GL_LOG_INFO, "controller",
				     "%s: no process of this run left running (%d recorded "
				     "launch(es) checked%s)",
				     who, n_rec,
				     scanned ? ", processes carrying its " GL_CHILD_MARK " looked for" : "");
		goto ended;
	}
	for (int i = 0; i < n; i++)
		gl_ctx_event(c, GL_LOG_WARN, "controller", "%s: stopping pid %d%s, left running by %s: %s", who,
			     (int)l[i].pid, l[i].group ? " and its process group" : "",
			     c->run.resumes && !c->wl.started ? "the controller before this resume"
							      : "a workload's launcher",
			     l[i].cmd[0] ? l[i].cmd : "?");
	left = gl_leftovers_stop(l, n, LEFTOVER_GRACE_MS, killed);
	for (int i = 0; i < n; i++) {
		struct gl_proc_info pi;
		int alive = gl_proc_info(l[i].pid, &pi) == 0 && pi.start_ticks == l[i].start_ticks && pi.state != 'Z' &&
			    pi.state != 'X';
		if (alive)
			gl_ctx_event(c, GL_LOG_ERROR, "controller",
				     "%s: pid %d is still running after SIGKILL "
				     "(state %c): %s",
				     who, (int)l[i].pid, pi.state, l[i].cmd);
		else
			gl_ctx_event(c, GL_LOG_WARN, "controller", "%s: stopped pid %d (%s)", who, (int)l[i].pid,
				     killed[i] ? "SIGKILL: SIGTERM was not enough" : "SIGTERM");
	}
	if (left) {
		gl_ctx_event(c, GL_LOG_ERROR, "controller",
			     "%s: %d process(es) of this run could not be stopped: "
			     "nothing is started beside them",
			     who, left);
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

int gl_ctx_preflight(struct gl_ctx *c, const char *subject, const char *check, int ok, const char *detail)
{
	if (!ok && gl_stop_interrupts()) {
		/* cut short by a stop request (stop.h), not failed: the run
		 * ends aborted, and no row says this check failed */
		gl_warn("preflight: %s: %s: not finished: %s came", subject, check, gl_stop_name(gl_stop_interrupts()));
		return -1;
	}
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

int64_t ctl_scn_now(struct gl_ctx *c, int64_t elapsed)
{
	long double t = (long double)elapsed * c->clk.scale;
	if (t > (long double)c->sc->duration_ns)
		return c->sc->duration_ns;
	return (int64_t)t;
}

void gl_ctx_arm_at(struct gl_ctx *c, struct event *ev, int64_t at_elapsed)
{
	int64_t wait = at_elapsed - gl_ctx_elapsed_ns(c);
	struct timeval tv;

	if (c->sim) {
		ctl_sim_arm(c, ev, at_elapsed);
		return;
	}
	if (wait < 0)
		wait = 0;
	tv.tv_sec = wait / 1000000000LL;
	tv.tv_usec = (wait % 1000000000LL) / 1000;
	evtimer_add(ev, &tv);
}

void gl_ctx_fail(struct gl_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->halt.reason != STOP_NONE)
		return;
	c->halt.reason = STOP_ERROR;
	va_start(ap, fmt);
	vsnprintf(c->halt.msg, sizeof(c->halt.msg), fmt, ap);
	va_end(ap);
	event_base_loopbreak(c->base);
}
