/*
 * report_junit.c - junit.xml, for CI systems that read JUnit results.
 *
 * Exactly one test case per target of the scenario, named "SCOPE METRIC"
 * ("steady inference.ttft_ms.p99"; a drift target: "steady
 * inference.ttft_ms.p99 drift_per_day"), with classname "gauntlet.SCOPE" so CI
 * views group them by scope. A target that failed, had no data or has no
 * threshold at all carries a <failure>: "measured X vs threshold OP Y", the
 * analysis note ("no data in the N window(s) judged as steady"), or "missing
 * threshold: a missing threshold is a failed gate". Facts of the run that
 * are not targets (verdict, run id, scenario SHA-256, faults and their
 * states) are properties of the one test suite, so the case count stays
 * the target count; a CI gate should read the verdict property or the exit
 * code, since a run can fail (aborted, fault left injected) while every
 * target passed.
 *
 * Every string from the scenario or the store is escaped for XML 1.0:
 * markup characters become entities, characters XML cannot carry (control
 * bytes, invalid UTF-8) become U+FFFD, so the file always parses.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cfg.h"
#include "report.h"
#include "units.h"

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	size_t len;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;
	return len;
}

/* The document being written; rc keeps the first failed append (the cap
 * reached), so a truncated file is never passed off as whole. */
struct jw {
	struct gl_buf *b;
	int rc;
};

static void put(struct jw *w, const void *p, size_t n)
{
	int rc = gl_buf_append(w->b, p, n);
	if (rc && !w->rc)
		w->rc = rc;
}

static void putf(struct jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct jw *w, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* callers format numbers and fixed words only: never near the size */
	if (n < 0 || (size_t)n >= sizeof(line)) {
		if (!w->rc)
			w->rc = -GL_ELIMIT;
		return;
	}
	put(w, line, (size_t)n);
}

/* s escaped for an attribute value or text node. */
static void xml_esc(struct jw *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p);

	while (n) {
		size_t k;
		switch (*p) {
		case '&':
			put(b, "&amp;", 5);
			k = 1;
			break;
		case '<':
			put(b, "&lt;", 4);
			k = 1;
			break;
		case '>':
			put(b, "&gt;", 4);
			k = 1;
			break;
		case '"':
			put(b, "&quot;", 6);
			k = 1;
			break;
		case '\'':
			put(b, "&apos;", 6);
			k = 1;
			break;
		/* kept as character references so attribute values keep them */
		case '\t':
			put(b, "&#9;", 4);
			k = 1;
			break;
		case '\n':
			put(b, "&#10;", 5);
			k = 1;
			break;
		case '\r':
			put(b, "&#13;", 5);
			k = 1;
			break;
		default:
			k = *p < 0x20 ? 0 : utf8_seq(p, n);
			if (k) {
				put(b, p, k);
			} else {
				put(b, "\xef\xbf\xbd", 3); /* U+FFFD */
				k = 1;
			}
		}
		p += k;
		n -= k;
	}
}

static void prop(struct jw *b, const char *name, const char *value)
{
	putf(b, "      <property name=\"");
	xml_esc(b, name);
	putf(b, "\" value=\"");
	xml_esc(b, value);
	putf(b, "\"/>\n");
}

static void fmt_num(char *buf, size_t n, double v)
{
	if (isfinite(v))
		snprintf(buf, n, "%.6g", v);
	else
		snprintf(buf, n, "n/a");
}

/* The failure text of target t, or "" when it passed. *type gets the
 * failure's type attribute. */
static void failure_text(const struct gl_target_result *t, char *out, size_t n, const char **type)
{
	char m[64], th[64];

	out[0] = '\0';
	if (t->spec->missing) {
		*type = "missing_threshold";
		snprintf(out, n, "%s",
			 t->note[0] ? t->note : "missing threshold: a missing threshold is a failed gate");
	} else if (!t->has) {
		*type = "no_data";
		snprintf(out, n, "%s", t->note[0] ? t->note : "no data");
	} else if (!t->pass) {
		*type = "threshold";
		fmt_num(m, sizeof(m), t->measured);
		fmt_num(th, sizeof(th), t->spec->expr.threshold);
		if (t->spec->drift)
			snprintf(out, n, "measured drift per day %s%s vs bound %s %s%s", m,
				 t->spec->drift_pct ? "%" : "", gl_cmp_str(t->spec->expr.op), th,
				 t->spec->drift_pct ? "%" : "");
		else
			snprintf(out, n, "measured %s vs threshold %s %s", m, gl_cmp_str(t->spec->expr.op), th);
	}
}

/* the gates' test cases are report_gates.c's */
static void gate_cases(struct jw *w, const struct gl_analysis *an)
{
	int rc = w->rc ? 0 : gl_report_gates_junit(an, w->b);
	if (rc && !w->rc)
		w->rc = rc;
}

/* The run's properties: the verdict, the run, each fault */
static void run_props(struct jw *b, const struct gl_analysis *an, const char *wall)
{
	char v[96];

	prop(b, "verdict", gl_verdict_name(an->verdict));
	prop(b, "run.id", an->run.id);
	prop(b, "run.scenario", an->run.name);
	prop(b, "run.scenario_path", an->run.scenario_path);
	prop(b, "run.scenario_sha256", an->run.scenario_sha256);
	prop(b, "run.state", an->run.state);
	prop(b, "run.started", wall);
	snprintf(v, sizeof(v), "%g", an->run.time_scale);
	prop(b, "run.time_scale", v);
	snprintf(v, sizeof(v), "%.3f", an->duration_s);
	prop(b, "run.duration_s", v);
	prop(b, "run.generator_saturated", an->generator_saturated ? "true" : "false");
	prop(b, "preflight_passed", an->preflight_failed ? "false" : "true");
	snprintf(v, sizeof(v), "%d", an->faults_left_injected);
	prop(b, "faults_left_injected", v);
	snprintf(v, sizeof(v), "%d", an->incidents_total);
	prop(b, "incidents", v);
	snprintf(v, sizeof(v), "%.3f", an->outage_s);
	prop(b, "controller_outage_s", v);
	snprintf(v, sizeof(v), "%s (%s)", an->run.version, an->run.git_rev);
	prop(b, "gauntlet", v);
	for (int i = 0; i < an->n_faults; i++) {
		const struct gl_fault_result *f = &an->faults[i];
		char name[128], val[1024], rc[32], rs[32];
		fmt_num(rc, sizeof(rc), f->recovery_s >= 0 ? f->recovery_s : NAN);
		fmt_num(rs, sizeof(rs), f->restore_s >= 0 ? f->restore_s : NAN);
		snprintf(name, sizeof(name), "fault.%s", f->row.id);
		snprintf(val, sizeof(val), "%s%s%s on %s: %s, verified %s, recovery_s %s, restore_s %s%s%s",
			 f->row.kind, f->row.method[0] ? "/" : "", f->row.method, f->row.target,
			 gl_fault_state_name(f->row.state),
			 f->row.verified == 1   ? "yes"
			 : f->row.verified == 0 ? "no"
						: "n/a",
			 rc, rs, f->row.error[0] ? "; error: " : "", f->row.error);
		prop(b, name, val);
		snprintf(name, sizeof(name), "fault.%s.runbook", f->row.id);
		prop(b, name, gl_scenario_runbook(an->sc, f->row.id) ? gl_scenario_runbook(an->sc, f->row.id) : "none");
	}
}

/* A test case per target */
static void target_cases(struct jw *b, const struct gl_analysis *an)
{
	for (int i = 0; i < an->n_targets; i++) {
		const struct gl_target_result *t = &an->targets[i];
		const char *scope = gl_scope_name(t->spec->scope), *type = "";
		char fail[512];

		failure_text(t, fail, sizeof(fail), &type);
		putf(b, "    <testcase classname=\"gauntlet.");
		xml_esc(b, scope);
		putf(b, "\" name=\"");
		xml_esc(b, scope);
		putf(b, " ");
		xml_esc(b, t->spec->metric);
		if (t->spec->drift)
			putf(b, " drift_per_day");
		putf(b, "\" time=\"0\"");
		if (!fail[0]) {
			putf(b, "/>\n");
			continue;
		}
		putf(b, ">\n      <failure type=\"%s\" message=\"", type);
		xml_esc(b, fail);
		putf(b, "\">");
		xml_esc(b, fail);
		if (t->windows_judged && !t->spec->missing)
			putf(b, " (%d window(s) judged)", t->windows_judged);
		putf(b, "</failure>\n    </testcase>\n");
	}
}

/* The incidents gate's test case */
static void incidents_case(struct jw *b, const struct gl_analysis *an)
{
	putf(b, "    <testcase classname=\"gauntlet.incidents\" name=\"incidents counted &lt;= %d\" time=\"0\"",
	     an->incidents_limit);
	if (!an->incidents_failed) {
		putf(b, "/>\n");
	} else {
		char fail[512];
		const struct gl_incident *first = NULL;
		for (int i = 0; i < an->n_incidents && !first; i++)
			if (an->incidents[i].gated)
				first = &an->incidents[i];
		snprintf(fail, sizeof(fail),
			 "%d incident(s) counted (%d in all), more than the %d allowed; first counted: %s %s",
			 an->incidents_gated, an->incidents_total, an->incidents_limit,
			 first ? gl_incident_kind_name(first->kind) : "", first ? first->what : "");
		putf(b, ">\n      <failure type=\"incidents\" message=\"");
		xml_esc(b, fail);
		putf(b, "\">");
		xml_esc(b, fail);
		putf(b, "</failure>\n    </testcase>\n");
	}
}

/* The suspects gate's test case, when the scenario sets "suspects": {"max"} */
static void suspects_case(struct jw *b, const struct gl_analysis *an)
{
	char fail[700];

	if (an->sc->suspects_max < 0)
		return;
	putf(b, "    <testcase classname=\"gauntlet.nodes\" name=\"suspects &lt;= %d\" time=\"0\"",
	     an->sc->suspects_max);
	if (!an->suspects_failed) {
		putf(b, "/>\n");
		return;
	}
	snprintf(fail, sizeof(fail), "%d suspect(s), more than the %d allowed; first: %s %s on %s: %s", an->n_suspects,
		 an->sc->suspects_max, an->suspects[0].kind, an->suspects[0].name, an->suspects[0].host,
		 an->suspects[0].evidence);
	putf(b, ">\n      <failure type=\"suspects\" message=\"");
	xml_esc(b, fail);
	putf(b, "\">");
	xml_esc(b, fail);
	putf(b, "</failure>\n    </testcase>\n");
}

/* An edge phase's test case (docs/scenario.md, "Edge phases"): it fails
 * when its search concluded with no edge, or none was recorded. */
static void edge_cases(struct jw *b, const struct gl_analysis *an)
{
	for (int i = 0; i < an->sc->n_phases; i++) {
		const cJSON *s;
		char fail[700];
		if (an->sc->phases[i].kind != GL_PHASE_EDGE)
			continue;
		s = gl_edge_search_of(an, i);
		putf(b, "    <testcase classname=\"gauntlet.edge\" name=\"");
		xml_esc(b, an->sc->phases[i].name);
		putf(b, "\" time=\"0\"");
		if (s && gl_cfg_bool(s, "done", 0) && gl_cfg_bool(s, "pass", 0)) {
			putf(b, "/>\n");
			continue;
		}
		snprintf(fail, sizeof(fail), "%s",
			 s ? gl_cfg_str(s, "note", "the search did not finish")
			   : "no edge search was recorded: a missing figure is a failed gate");
		putf(b, ">\n      <failure type=\"edge\" message=\"");
		xml_esc(b, fail);
		putf(b, "\">");
		xml_esc(b, fail);
		putf(b, "</failure>\n    </testcase>\n");
	}
}

int gl_report_junit(const struct gl_analysis *an, struct gl_buf *out)
{
	struct jw w = { out, 0 }, *b = &w;
	char wall[40];
	int failures = 0, skipped = 0, cases;

	for (int i = 0; i < an->n_targets; i++)
		failures += !an->targets[i].pass;
	failures += an->incidents_failed; /* the incidents gate is one more test case */
	failures += an->gates_failed; /* and a test case per gate, host and when */
	failures += an->suspects_failed; /* and the suspects gate's, when set */
	failures += an->edge_failed; /* and a test case per edge phase */
	cases = an->n_targets + 1 + an->n_gates + (an->sc->suspects_max >= 0) + an->edge_phases;
	for (int i = 0; i < an->n_gates; i++)
		skipped += !strcmp(an->gates[i].status, "skip");
	gl_format_wall(an->run.started_wall_ns, wall, sizeof(wall));
	putf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	putf(b, "<testsuites name=\"gauntlet\" tests=\"%d\" failures=\"%d\" errors=\"0\" time=\"%.3f\">\n", cases,
	     failures, an->duration_s);
	putf(b, "  <testsuite name=\"gauntlet.");
	xml_esc(b, an->run.name);
	putf(b, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\" time=\"%.3f\" timestamp=\"", cases,
	     failures, skipped, an->duration_s);
	xml_esc(b, wall);
	putf(b, "\" hostname=\"");
	xml_esc(b, an->run.hostname);
	putf(b, "\">\n    <properties>\n");
	run_props(b, an, wall);
	putf(b, "    </properties>\n");
	target_cases(b, an);
	incidents_case(b, an);
	suspects_case(b, an);
	edge_cases(b, an);
	gate_cases(b, an);
	putf(b, "    <system-out>verdict ");
	xml_esc(b, gl_verdict_name(an->verdict));
	putf(b, ": %d of %d target(s) failed or missing; %d fault(s) left injected; %d incident(s); run ",
	     failures - an->incidents_failed - an->gates_failed - an->suspects_failed - an->edge_failed, an->n_targets,
	     an->faults_left_injected, an->incidents_total);
	xml_esc(b, an->run.state);
	putf(b, "</system-out>\n  </testsuite>\n</testsuites>\n");
	return w.rc;
}
