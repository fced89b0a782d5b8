/*
 * gates.c - the scenario's gates run (docs/gates.md): before the soak
 * starts any load (a failure stops the run, exit 4) and after it ends (a
 * failure fails the verdict); and the preflight gate before them
 * (ctl_preflight_run, at the end).
 *
 * Each gate runs on each of its hosts in turn, through the host's
 * transport, as argv with the gate's timeout. What it printed is kept
 * twice: in the store (gates table, at most GL_GATE_RAW_MAX bytes), where
 * `report` and `seal` (through run.db's hash) find it, and as
 * DIR/gates/ID-HOST-WHEN.json (dcgm_diag) or .log (command) for people.
 * dcgm_diag is judged from DCGM's JSON (gate_dcgm.c), never from dcgmi's
 * exit status alone: output that does not parse is a failure saying why.
 *
 * A stop request (SIGINT, SIGTERM) ends the gate running (its command is
 * killed, stop.h) and runs no more: each is recorded `skip` with why, and
 * the caller ends the run aborted.
 */
#define _GNU_SOURCE
#include "controller_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_dcgm.h"
#include "stop.h"

/* a host name in a file name: anything but [A-Za-z0-9_.-] becomes '_' */
static void file_word(char *out, size_t n, const char *s)
{
	size_t i = 0;
	for (; s[i] && i + 1 < n; i++)
		out[i] = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
					 s[i] == '_' || s[i] == '-' || (s[i] == '.' && i > 0)
				 ? s[i]
				 : '_';
	out[i] = '\0';
}

/* the last non-empty line of out (a command's complaint), cut to n */
static void last_line(const struct gl_buf *b, char *out, size_t n)
{
	size_t e = b->len, s;
	out[0] = '\0';
	if (!b->data)
		return;
	while (e > 0 && (b->data[e - 1] == '\n' || b->data[e - 1] == '\r' || b->data[e - 1] == ' '))
		e--;
	for (s = e; s > 0 && b->data[s - 1] != '\n'; s--)
		;
	for (size_t i = 0; s + i < e && i + 1 < n; i++) {
		unsigned char ch = (unsigned char)b->data[s + i];
		out[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
		out[i + 1] = '\0';
	}
}

static char *dcgm_rows_json(const struct gl_dcgm_result *r)
{
	cJSON *a = cJSON_CreateArray();
	char *text;

	for (int i = 0; a && i < r->n_rows; i++) {
		const struct gl_dcgm_row *w = &r->rows[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "category", w->category);
		cJSON_AddStringToObject(o, "test", w->test);
		cJSON_AddStringToObject(o, "entity", w->entity[0] ? w->entity : "all");
		if (w->id >= 0)
			cJSON_AddNumberToObject(o, "id", w->id);
		else
			cJSON_AddNullToObject(o, "id");
		cJSON_AddStringToObject(o, "status", gl_gate_status_name(w->status));
		cJSON_AddStringToObject(o, "detail", w->detail);
		cJSON_AddItemToArray(a, o);
	}
	text = a ? cJSON_PrintUnformatted(a) : NULL;
	cJSON_Delete(a);
	return text;
}

/* The gate's raw output beside the reports, for people
 * (gates/ID-HOST-WHEN.log or .json, cut at GL_GATE_RAW_MAX); row->file
 * names it, or is empty when it could not be written (the store keeps it). */
static void write_raw(struct gl_ctx *c, const struct gl_gate_spec *g, const struct gl_host *h, const char *when,
		      const struct gl_buf *out, struct gl_gate_row *row)
{
	struct gl_err ferr = { 0 };
	size_t n = out->len > GL_GATE_RAW_MAX ? GL_GATE_RAW_MAX : out->len;
	char hw[GL_NAME_MAX], path[1400];

	file_word(hw, sizeof(hw), h->name);
	snprintf(row->file, sizeof(row->file), "gates/%s-%s-%s.%s", g->id, hw, when,
		 g->kind == GL_GATE_DCGM_DIAG ? "json" : "log");
	snprintf(path, sizeof(path), "%s/gates", c->run.dir);
	if (gl_mkdir_p(path, 0755, &ferr) == 0) {
		snprintf(path, sizeof(path), "%s/%s", c->run.dir, row->file);
		gl_write_file_atomic(path, out->data ? out->data : "", n, 0644, &ferr);
	}
	if (ferr.code) {
		gl_ctx_event(c, GL_LOG_WARN, "gates",
			     "gate %s %s on %s: raw output not written: %s (kept in the store)", g->id, when, h->name,
			     ferr.msg);
		row->file[0] = '\0';
	}
}

/* One gate on one host: run, judge, keep. Returns its status. */
static int gate_one(struct gl_ctx *c, const struct gl_gate_spec *g, const struct gl_host *h, const char *when,
		    char *why, size_t why_n)
{
	struct gl_gate_row row;
	struct gl_exec_result res = { 0 };
	struct gl_err err = { 0 };
	struct gl_dcgm_result dr = { 0 };
	char *results = NULL, tmo[64];
	int64_t t0 = gl_now_ns();
	int rc, status = GL_GATE_FAIL;

	memset(&row, 0, sizeof(row));
	snprintf(row.id, sizeof(row.id), "%s", g->id);
	snprintf(row.kind, sizeof(row.kind), "%s", gl_gate_kind_name(g->kind));
	snprintf(row.host, sizeof(row.host), "%s", h->name);
	snprintf(row.when, sizeof(row.when), "%s", when);
	row.started_wall_ns = gl_wall_ns();
	row.exit_status = -1;
	gl_format_duration(g->timeout_ns, tmo, sizeof(tmo));
	gl_ctx_event(c, GL_LOG_INFO, "gates", "gate %s %s on %s: running %s (timeout %s)", g->id, when, h->name,
		     g->argv[0], tmo);
	rc = gl_host_exec(h, g->argv, g->timeout_ns / 1000000, &res, &err);
	row.dur_s = (double)(gl_now_ns() - t0) / 1e9;
	if (rc == -GL_ESTOPPED) {
		/* not judged: the run is stopping */
		status = GL_GATE_SKIP;
		snprintf(row.reason, sizeof(row.reason), "stopped by %s: not judged",
			 gl_stop_name(gl_stop_requested()));
	} else if (rc != 0) {
		snprintf(row.reason, sizeof(row.reason), "could not run: %s", err.msg);
	} else if (res.timed_out) {
		snprintf(row.reason, sizeof(row.reason), "timed out after %s: killed", tmo);
	} else if (res.exit_status == 127) {
		row.exit_status = res.exit_status;
		snprintf(row.reason, sizeof(row.reason), "'%s' not found on the host (exit 127)", g->argv[0]);
	} else if (g->kind == GL_GATE_COMMAND) {
		char tail[200];
		row.exit_status = res.exit_status;
		last_line(&res.out, tail, sizeof(tail));
		status = res.exit_status == 0 ? GL_GATE_PASS : GL_GATE_FAIL;
		if (status != GL_GATE_PASS)
			snprintf(row.reason, sizeof(row.reason), "exited %d%s%s", res.exit_status, tail[0] ? ": " : "",
				 tail);
	} else {
		struct gl_err perr = { 0 };
		row.exit_status = res.exit_status;
		if (gl_dcgm_parse(res.out.data, res.out.len, &dr, &perr) != 0) {
			char tail[160];
			last_line(&res.out, tail, sizeof(tail));
			snprintf(row.reason, sizeof(row.reason),
				 "dcgmi exited %d and its output is not usable: %s%s%s%s", res.exit_status, perr.msg,
				 res.out.cut ? " (output cut at the transport's cap)" : "",
				 tail[0] ? "; it ended with: " : "", tail);
		} else {
			status = dr.status;
			gl_dcgm_first_problem(&dr, row.reason, sizeof(row.reason));
			results = dcgm_rows_json(&dr);
			row.results = results;
		}
	}
	snprintf(row.status, sizeof(row.status), "%s", gl_gate_status_name(status));
	write_raw(c, g, h, when, &res.out, &row);
	row.raw = res.out.data;
	row.raw_len = res.out.len;
	if (gl_store_gate_put(c->st, &row, &err) != 0)
		gl_ctx_event(c, GL_LOG_ERROR, "gates", "gate %s %s on %s: not stored: %s", g->id, when, h->name,
			     err.msg);
	if (status == GL_GATE_FAIL) {
		snprintf(why, why_n, "gate %s %s on %s: %s", g->id, when, h->name, row.reason);
		gl_ctx_event(c, GL_LOG_ERROR, "gates", "%s", why);
	} else {
		gl_ctx_event(c, status == GL_GATE_WARN || status == GL_GATE_SKIP ? GL_LOG_WARN : GL_LOG_INFO, "gates",
			     "gate %s %s on %s: %s in %.1f s%s%s", g->id, when, h->name, row.status, row.dur_s,
			     row.reason[0] ? ": " : "", row.reason);
	}
	if (g->kind == GL_GATE_DCGM_DIAG && rc == 0 && results)
		gl_ctx_event(c, GL_LOG_INFO, "gates",
			     "gate %s %s on %s: %d passed, %d warned, %d failed, %d skipped (%s)", g->id, when, h->name,
			     dr.n_pass, dr.n_warn, dr.n_fail, dr.n_skip, row.file);
	cJSON_free(results);
	gl_dcgm_free(&dr);
	gl_buf_free(&res.out);
	return status;
}

/* One gate on one host recorded as not run, with the reason. */
static int skip_one(struct gl_ctx *c, const struct gl_gate_spec *g, const char *host, int after, const char *reason,
		    struct gl_err *err)
{
	struct gl_gate_row row;

	memset(&row, 0, sizeof(row));
	snprintf(row.id, sizeof(row.id), "%s", g->id);
	snprintf(row.kind, sizeof(row.kind), "%s", gl_gate_kind_name(g->kind));
	snprintf(row.host, sizeof(row.host), "%s", host);
	snprintf(row.when, sizeof(row.when), "%s", after ? "after" : "before");
	snprintf(row.status, sizeof(row.status), "skip");
	snprintf(row.reason, sizeof(row.reason), "not run: %s", reason);
	row.exit_status = -1;
	row.started_wall_ns = gl_wall_ns();
	return gl_store_gate_put(c->st, &row, err);
}

int ctl_gates_run(struct gl_ctx *c, int after, char *why, size_t why_n)
{
	const struct gl_scenario *s = c->sc;
	const char *when = after ? "after" : "before";
	int failed = 0;

	if (why_n)
		why[0] = '\0';
	for (int i = 0; i < s->n_gates; i++) {
		const struct gl_gate_spec *g = &s->gates[i];
		if (!(after ? g->after : g->before))
			continue;
		for (int k = 0; k < g->n_hosts; k++) {
			char one[700];
			/* resume: what a killed process finished stays done */
			if (gl_store_gate_passed(c->st, g->id, s->hosts[g->hosts[k]].name, when))
				continue;
			if (gl_stop_interrupts()) {
				struct gl_err err = { 0 };
				char reason[64];
				snprintf(reason, sizeof(reason), "stopped by %s", gl_stop_name(gl_stop_interrupts()));
				skip_one(c, g, s->hosts[g->hosts[k]].name, after, reason, &err);
				gl_ctx_event(c, GL_LOG_WARN, "gates", "gate %s %s on %s: not run: %s", g->id, when,
					     s->hosts[g->hosts[k]].name, reason);
				continue;
			}
			if (gate_one(c, g, &s->hosts[g->hosts[k]], when, one, sizeof(one)) == GL_GATE_FAIL) {
				if (!failed++)
					snprintf(why, why_n, "%s", one);
			}
		}
	}
	return failed;
}

void ctl_gates_skip(struct gl_ctx *c, int after, const char *reason)
{
	const struct gl_scenario *s = c->sc;
	struct gl_err err = { 0 };

	for (int i = 0; i < s->n_gates; i++) {
		const struct gl_gate_spec *g = &s->gates[i];
		if (!(after ? g->after : g->before))
			continue;
		for (int k = 0; k < g->n_hosts; k++) {
			/* one that passed already (resume) stays so */
			if (gl_store_gate_passed(c->st, g->id, s->hosts[g->hosts[k]].name, after ? "after" : "before"))
				continue;
			if (skip_one(c, g, s->hosts[g->hosts[k]].name, after, reason, &err) != 0)
				break;
		}
		gl_ctx_event(c, GL_LOG_WARN, "gates", "gate %s %s: not run: %s", g->id, after ? "after" : "before",
			     reason);
	}
}

/* The preflight gate: every host a fault targets answers through its
 * transport (with a verified host key, for ssh), every tool a fault kind
 * needs is there, and each plug-in's own checks pass. Nothing is injected
 * when any check fails. Returns 0 when all passed. */
int ctl_preflight_run(struct gl_ctx *c)
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
			bad |= gl_ctx_preflight(c, subject,
						h->local ? "reachable (local transport)"
							 : "reachable (ssh, host key verified)",
						ok, detail) != 0;
			host_ok[hi] = ok ? 1 : 2;
		}
		if (host_ok && host_ok[hi] == 2)
			continue; /* its tools cannot be checked on an unreachable host */
		snprintf(subject, sizeof(subject), "fault %s on host %s", f->id, h->name);
		for (int t = 0; f->ops->tools && f->ops->tools[t]; t++) {
			const char *argv[] = {
				"sh", "-c", "command -v \"$1\" >/dev/null", "sh", f->ops->tools[t], NULL
			};
			struct gl_exec_result res;
			struct gl_err err = { 0 };
			char check[128];
			int rc = gl_host_exec(h, argv, 15000, &res, &err);
			snprintf(check, sizeof(check), "tool '%s' present", f->ops->tools[t]);
			bad |= gl_ctx_preflight(c, subject, check, rc == 0 && res.exit_status == 0,
						rc                ? err.msg
						: res.exit_status ? "not found on the host's PATH"
								  : "") != 0;
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
