/*
 * notify_events.c - what the scenario's webhooks are told, and when
 * (docs/scenario.md, "notify"): the run started or resumed, each fault
 * injected, reverted or failed, each target missed for the first time,
 * an abort or a harness error, and the end with the verdict. notify.c
 * sends it from its own thread; everything here runs on the loop thread
 * and only queues.
 */
#include "controller_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "notify.h"
#include "timeline.h"

int ctl_notify_open(struct gl_ctx *c)
{
	struct gl_err err = { 0 };

	c->obs.nt = gl_notify_new(c->sc, &err);
	if (!c->obs.nt && err.code) {
		fprintf(stderr, "gauntlet: %s: no notification could be sent, nothing was started\n", err.msg);
		return GL_EXIT_HARNESS_ERROR;
	}
	return 0;
}

/* What every message adds: where the run stands, and the verdict so far
 * (as the live endpoint counts targets failing). */
static cJSON *figures(struct gl_ctx *c)
{
	cJSON *j = cJSON_CreateObject(), *f = cJSON_AddObjectToObject(j, "figures");
	int64_t windows = 0;
	int no_data = 0, failing = gl_live_failing(c->obs.live, &no_data, &windows);

	cJSON_AddNumberToObject(f, "elapsed_s", c->clk.mono_start ? (double)gl_ctx_elapsed_ns(c) / 1e9 : 0);
	cJSON_AddNumberToObject(f, "duration_s", (double)gl_timeline_real_ns(c->sc->duration_ns, c->clk.scale) / 1e9);
	cJSON_AddNumberToObject(f, "windows_closed", (double)windows);
	cJSON_AddNumberToObject(f, "active_faults", c->faults ? ctl_active_faults(c) : 0);
	cJSON_AddNumberToObject(f, "targets_failing", failing);
	cJSON_AddNumberToObject(f, "targets_no_data", no_data);
	cJSON_AddStringToObject(j, "verdict_so_far", failing ? "failing" : "passing");
	return j;
}

/* A resumed run's webhook counts so far, from the store (doc "notify"). */
static void restore_counts(struct gl_ctx *c)
{
	char *doc = NULL;
	struct gl_err err = { 0 };

	if (!c->run.resumes)
		return;
	if (gl_store_doc_get(c->st, "notify", &doc, &err) == 0 && doc)
		gl_notify_restore(c->obs.nt, doc);
	free(doc);
}

void ctl_notify_start(struct gl_ctx *c)
{
	char text[256];
	cJSON *j;

	if (!c->obs.nt)
		return;
	if (gl_notify_start(c->obs.nt, c->run.id, c->sc->name) != 0) {
		gl_ctx_event(c, GL_LOG_WARN, "notify",
			     "cannot start the sender thread: the run goes on without "
			     "notifications");
		return;
	}
	restore_counts(c);
	for (int i = 0; i < c->sc->n_notify; i++)
		gl_ctx_event(c, GL_LOG_INFO, "notify", "notify[%d] (%s): %s webhook", i, c->sc->notify[i].url_env,
			     c->sc->notify[i].slack ? "slack" : "json");
	if (c->run.resumes && c->run.down_ns > 0)
		snprintf(text, sizeof(text),
			 "run resumed (resume #%d) at %.1f s of %.1f s, after %.1f s with the "
			 "controller down",
			 c->run.resumes, (double)c->clk.elapsed_base / 1e9,
			 (double)gl_timeline_real_ns(c->sc->duration_ns, c->clk.scale) / 1e9,
			 (double)c->run.down_ns / 1e9);
	else if (c->run.resumes)
		snprintf(text, sizeof(text), "run resumed (resume #%d) at %.1f s of %.1f s", c->run.resumes,
			 (double)c->clk.elapsed_base / 1e9,
			 (double)gl_timeline_real_ns(c->sc->duration_ns, c->clk.scale) / 1e9);
	else
		snprintf(text, sizeof(text), "run started: %.1f s planned (time scale %g), %d fault(s), %d target(s)",
			 (double)gl_timeline_real_ns(c->sc->duration_ns, c->clk.scale) / 1e9, c->clk.scale,
			 c->sc->n_faults, c->sc->n_targets);
	j = figures(c);
	cJSON_AddBoolToObject(j, "resumed", c->run.resumes > 0);
	cJSON_AddNumberToObject(j, "resumes", c->run.resumes);
	if (c->run.resumes)
		/* from the last commit the store held to the resume; null when
		 * the store held no commit time */
		c->run.down_ns > 0 ? (void)cJSON_AddNumberToObject(j, "down_s", (double)c->run.down_ns / 1e9)
				   : (void)cJSON_AddNullToObject(j, "down_s");
	gl_notify_event(c->obs.nt, GL_NEV_START, text, j);
}

void ctl_notify_fault(struct gl_ctx *c, struct fault_rt *f)
{
	enum gl_fault_state st = f->row.state;
	const char *s = gl_fault_state_name(st);
	char text[768], subject[300];
	cJSON *j, *o;

	/* a step's outcome, each once */
	if (!c->obs.nt || st == f->notified ||
	    (st != GL_FAULT_INJECTED && st != GL_FAULT_REVERTED && st != GL_FAULT_REVERT_FAILED &&
	     st != GL_FAULT_FAILED))
		return;
	f->notified = st;
	/* what it acts on (the drained node, the flapped link), not only the
	 * host its commands ran on */
	gl_plan_subject(f->plan, f->row.target, subject, sizeof(subject));
	snprintf(text, sizeof(text), "fault '%s' %s (%s%s%s: %s)%s%s", f->row.id,
		 st == GL_FAULT_REVERT_FAILED ? "REVERT FAILED"
		 : st == GL_FAULT_FAILED      ? "inject failed"
					      : s,
		 f->row.kind, f->row.method[0] ? "/" : "", f->row.method, subject, f->row.error[0] ? ": " : "",
		 f->row.error);
	j = figures(c);
	o = cJSON_AddObjectToObject(j, "fault");
	cJSON_AddStringToObject(o, "id", f->row.id);
	cJSON_AddStringToObject(o, "kind", f->row.kind);
	cJSON_AddStringToObject(o, "method", f->row.method);
	cJSON_AddStringToObject(o, "target", f->row.target);
	cJSON_AddStringToObject(o, "subject", subject);
	cJSON_AddStringToObject(o, "state", s);
	if (f->row.error[0])
		cJSON_AddStringToObject(o, "error", f->row.error);
	gl_notify_event(c->obs.nt, GL_NEV_FAULT, text, j);
}

/* A target failing over its windows so far (missed), or passing again
 * after that (target_recovered, to the webhooks that take target_missed):
 * both provisional, the end's verdict is final. */
static void on_missed(void *arg, const struct gl_target_spec *t, double v, int missed)
{
	struct gl_ctx *c = arg;
	char text[400];
	cJSON *j = figures(c), *o;

	if (missed)
		snprintf(text, sizeof(text),
			 "target missed so far: %s %s %s (measured %g over the %s windows so far; "
			 "provisional, the end's verdict is final)",
			 gl_scope_name(t->scope), t->metric, t->expr_text, v, gl_scope_name(t->scope));
	else
		snprintf(text, sizeof(text),
			 "target passing again: %s %s %s (measured %g over the %s windows so far; "
			 "provisional, the end's verdict is final)",
			 gl_scope_name(t->scope), t->metric, t->expr_text, v, gl_scope_name(t->scope));
	cJSON_AddStringToObject(j, "event", missed ? "target_missed" : "target_recovered");
	cJSON_AddBoolToObject(j, "provisional", 1);
	o = cJSON_AddObjectToObject(j, "target");
	cJSON_AddStringToObject(o, "metric", t->metric);
	cJSON_AddStringToObject(o, "scope", gl_scope_name(t->scope));
	cJSON_AddStringToObject(o, "op", gl_cmp_str(t->expr.op));
	cJSON_AddNumberToObject(o, "threshold", t->expr.threshold);
	cJSON_AddStringToObject(o, "expr", t->expr_text);
	cJSON_AddNumberToObject(o, "measured", v);
	gl_notify_event(c->obs.nt, GL_NEV_TARGET_MISSED, text, j);
}

static void log_line(void *arg, const char *line)
{
	gl_ctx_event(arg, GL_LOG_WARN, "notify", "%s", line);
}

/* The counts into the store (doc "notify"), so that report.json has them
 * and a resume after a crash continues from them. */
static void save_counts(struct gl_ctx *c, int64_t s, int64_t f, int64_t d)
{
	struct gl_err err = { 0 };
	char *doc = gl_notify_report(c->obs.nt);

	if (!doc || gl_store_doc_put(c->st, "notify", doc, &err) != 0)
		gl_ctx_event(c, GL_LOG_WARN, "notify", "counts not stored: %s", doc ? err.msg : "out of memory");
	c->obs.nt_saved[0] = s;
	c->obs.nt_saved[1] = f;
	c->obs.nt_saved[2] = d;
	free(doc);
}

void ctl_notify_window(struct gl_ctx *c)
{
	int64_t s, f, d;

	if (!c->obs.nt)
		return;
	gl_live_missed(c->obs.live, on_missed, c);
	gl_notify_poll(c->obs.nt, log_line, c);
	gl_notify_totals(c->obs.nt, &s, &f, &d);
	gl_live_notify(c->obs.live, s, f, d);
	if (s != c->obs.nt_saved[0] || f != c->obs.nt_saved[1] || d != c->obs.nt_saved[2])
		save_counts(c, s, f, d);
}

/* What is queued gets the end deadline; then the counts are logged and
 * stored. */
static void finish(struct gl_ctx *c)
{
	int64_t s, f, d;

	/* a hanging receiver delays the exit by this much at most */
	gl_notify_finish(c->obs.nt, GL_NOTIFY_END_DEADLINE_NS);
	gl_notify_poll(c->obs.nt, log_line, c);
	gl_notify_totals(c->obs.nt, &s, &f, &d);
	gl_live_notify(c->obs.live, s, f, d);
	gl_ctx_event(c, GL_LOG_INFO, "notify", "webhook messages: %lld sent, %lld failed, %lld dropped", (long long)s,
		     (long long)f, (long long)d);
	save_counts(c, s, f, d);
}

void ctl_notify_stopping(struct gl_ctx *c)
{
	char text[700];
	cJSON *j;
	int abort = c->halt.reason != STOP_ERROR;

	if (!c->obs.nt ||
	    (c->halt.reason != STOP_SIGNAL && c->halt.reason != STOP_ABORT_IF && c->halt.reason != STOP_ERROR))
		return;
	j = figures(c);
	cJSON_AddStringToObject(j, "reason", c->halt.msg);
	snprintf(text, sizeof(text), "%s: %s", abort ? "run aborted" : "harness error, the run stops", c->halt.msg);
	gl_notify_event(c->obs.nt, abort ? GL_NEV_ABORT : GL_NEV_ERROR, text, j);
}

void ctl_notify_failed_start(struct gl_ctx *c, const char *why)
{
	char text[700];
	cJSON *j;

	if (!c->obs.nt || gl_notify_start(c->obs.nt, c->run.id, c->sc->name) != 0)
		return;
	c->halt.reason = STOP_ERROR;
	snprintf(c->halt.msg, sizeof(c->halt.msg), "%s", why);
	ctl_notify_stopping(c);
	j = figures(c);
	cJSON_AddStringToObject(j, "state", "failed");
	cJSON_AddStringToObject(j, "verdict", "error");
	cJSON_AddNumberToObject(j, "exit_code", 4);
	snprintf(text, sizeof(text), "run failed before it started (exit 4): %s", why);
	gl_notify_event(c->obs.nt, GL_NEV_END, text, j);
	finish(c);
}

void ctl_notify_open_for_stop(struct gl_ctx *c)
{
	if (!c->obs.nt)
		return;
	if (gl_notify_start(c->obs.nt, c->run.id, c->sc->name) != 0) {
		gl_ctx_event(c, GL_LOG_WARN, "notify", "cannot start the sender thread: the abort is not sent");
		gl_notify_free(c->obs.nt);
		c->obs.nt = NULL;
		return;
	}
	restore_counts(c);
}

void ctl_notify_stop(struct gl_ctx *c, const char *state, const char *verdict, int code, int targets_failing,
		     int targets)
{
	char text[700];
	cJSON *j;

	if (!c->obs.nt)
		return;
	j = figures(c);
	cJSON_AddStringToObject(j, "state", state);
	cJSON_AddStringToObject(j, "verdict", verdict);
	cJSON_AddNumberToObject(j, "exit_code", code);
	if (targets_failing >= 0) {
		/* the end's figures are the final report's, not the live count
		 * (which judges recovery targets and missing data otherwise) */
		cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "figures");
		cJSON_ReplaceItemInObjectCaseSensitive(f, "targets_failing", cJSON_CreateNumber(targets_failing));
		cJSON_DeleteItemFromObjectCaseSensitive(f, "targets_no_data");
		cJSON_AddNumberToObject(j, "targets_failing", targets_failing);
		cJSON_AddNumberToObject(j, "targets", targets);
	}
	/* and so is the verdict: "passing" only when the report passes */
	cJSON_ReplaceItemInObjectCaseSensitive(j, "verdict_so_far",
					       cJSON_CreateString(!strcmp(verdict, "pass") ? "passing" : "failing"));
	snprintf(text, sizeof(text), "run %s: %s (exit %d), %d of %d target(s) failing", state, verdict, code,
		 targets_failing < 0 ? 0 : targets_failing, targets);
	gl_notify_event(c->obs.nt, GL_NEV_END, text, j);
	finish(c);
}
