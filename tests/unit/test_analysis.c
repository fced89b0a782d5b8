/*
 * test_analysis.c - the recovery definitions and target judging of
 * analysis.c on a store written through the real store code, with windows
 * whose values are chosen so every figure is known in advance:
 *
 *   window:  0-4   5-7   8-11   12-19
 *   value:   1     50    15     1        (null.tick_lag_ms, every sample)
 *   steady <= 10, degraded <= 20, hold 3, 1 s windows
 *   fault injected at 5.2 s, reverted at 9.5 s, settle 3 s (the default:
 *   3 windows)
 *
 * recovery_s = start of window 8 - 5.2 = 2.8 (windows 8,9,10 meet degraded)
 * restore_s  = start of window 12 - 9.5 = 2.5 (windows 12,13,14 meet steady),
 *              within the settle (2.5 <= 3)
 * degraded span: the inject window 5 to the last window starting before
 * 9.5 + 3 = 12.5, i.e. windows 5..12 (8: the 5 fault windows 5..9 and the
 * 3 settle windows 10..12); the rest of 0..19 steady (12 windows).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis.h"
#include "check.h"
#include "hist.h"
#include "store.h"

static const char *scenario =
	"{ \"name\": \"analysis\", \"duration\": \"20s\", \"window\": \"1s\",\n"
	"  \"hosts\": { \"me\": { \"local\": true } },\n"
	"  \"workloads\": { \"null\": {} },\n"
	"  \"faults\": [ { \"id\": \"f1\", \"at\": \"5200ms\", \"for\": \"4300ms\", \"kind\": \"null\", \"target\": "
	"\"me\" } ],\n"
	"  \"targets\": { \"steady\": { \"null.tick_lag_ms.p99\": \"<= 10\" },\n"
	"               \"degraded\": { \"null.tick_lag_ms.p99\": \"<= 20\" },\n"
	"               \"recovery\": { \"recovery_s\": \"<= 3\", \"restore_s\": \"<= 2\" } } }\n";

/* the scenario make_store records with the run (a test may swap it) */
static const char *cur_scenario;

static double value_of(int w)
{
	return w < 5 ? 1 : w < 8 ? 50 : w < 12 ? 15 : 1;
}

static struct gl_store *make_store(const char *dir, int n_windows, int64_t t_inj, int64_t t_rev, int (*val)(int),
				   enum gl_fault_state fault_state)
{
	char path[512];
	struct gl_err err = { 0 };
	struct gl_store *st;
	struct gl_run_row r = { 0 };
	struct gl_fault_row f = { 0 };

	snprintf(path, sizeof(path), "%s/run.db", dir);
	unlink(path);
	st = gl_store_open(path, 1, &err);
	if (!st) {
		fprintf(stderr, "store: %s\n", err.msg);
		exit(1);
	}
	strcpy(r.id, "test-run");
	strcpy(r.name, "analysis");
	strcpy(r.scenario_path, "inline.json");
	r.scenario_text = (char *)(cur_scenario ? cur_scenario : scenario);
	gl_sha256_hex(r.scenario_text, strlen(r.scenario_text), r.scenario_sha256);
	r.time_scale = 1;
	r.window_ns = 1000000000LL;
	r.duration_ns = 20000000000LL;
	r.started_wall_ns = gl_wall_ns();
	CHECK(gl_store_run_create(st, &r, &err) == 0);
	for (int w = 0; w < n_windows; w++) {
		struct gl_hist *h = gl_hist_new();
		unsigned char *blob;
		size_t len;
		for (int i = 0; i < 100; i++)
			gl_hist_record(h, val ? val(w) : value_of(w));
		CHECK(gl_hist_serialize(h, &blob, &len) == 0);
		CHECK(gl_store_window_put(st, w, w * 1000000000LL, (w + 1) * 1000000000LL, w * 1000000000LL,
					  (w + 1) * 1000000000LL, 0, 1) == 0);
		CHECK(gl_store_window_metric_put(st, w, "null.tick_lag_ms", blob, len, 0) == 0);
		CHECK(gl_store_window_metric_put(st, w, "null.ticks", NULL, 0, 100) == 0);
		free(blob);
		gl_hist_free(h);
	}
	strcpy(f.id, "f1");
	strcpy(f.kind, "null");
	strcpy(f.target, "me");
	f.at_ns = 5200000000LL;
	f.dur_ns = 4300000000LL;
	f.state = fault_state;
	f.verified = 1;
	f.verified_revert = 1;
	f.injected_elapsed_ns = f.injected_scn_ns = t_inj;
	f.reverted_elapsed_ns = f.reverted_scn_ns = t_rev;
	CHECK(gl_store_fault_put(st, &f, &err) == 0);
	CHECK(gl_store_run_finish(st, "finished", "", 0, gl_wall_ns()) == 0);
	return st;
}

/* Two workloads: null always healthy, inference failing 50% of requests in
 * windows 5..9. Fault at 5.2 s, reverted at 7.5 s. Per workload: null
 * recovers at once (0, 0); inference at window 10: recovery 4.8, restore 2.5. */
static const char *scenario2 =
	"{ \"name\": \"per-workload\", \"duration\": \"20s\", \"window\": \"1s\",\n"
	"  \"hosts\": { \"me\": { \"local\": true } },\n"
	"  \"workloads\": { \"null\": {}, \"inference\": { \"endpoints\": [\"http://127.0.0.1:9/v1\"],\n"
	"       \"model\": \"m\", \"arrival\": { \"mode\": \"constant\", \"rate\": 1 } } },\n"
	"  \"faults\": [ { \"id\": \"f1\", \"at\": \"5200ms\", \"for\": \"2300ms\", \"kind\": \"null\", \"target\": "
	"\"me\" } ],\n"
	"  \"targets\": { \"steady\": { \"null.tick_lag_ms.p99\": \"<= 10\", \"inference.error_rate\": \"<= 0.01\",\n"
	"                              \"inference.ttft_ms.p99\": \"<= 1000\" },\n"
	"               \"degraded\": { \"null.tick_lag_ms.p99\": \"<= 20\", \"inference.error_rate\": \"<= 0.1\" },\n"
	"               \"recovery\": { \"recovery_s\": \"<= 10\", \"restore_s\": \"<= 10\" } } }\n";

static struct gl_store *make_store2(const char *dir)
{
	char path[512];
	struct gl_err err = { 0 };
	struct gl_store *st;
	struct gl_run_row r = { 0 };
	struct gl_fault_row f = { 0 };

	snprintf(path, sizeof(path), "%s/run2.db", dir);
	unlink(path);
	st = gl_store_open(path, 1, &err);
	if (!st) {
		fprintf(stderr, "store: %s\n", err.msg);
		exit(1);
	}
	strcpy(r.id, "test-run-2");
	strcpy(r.name, "per-workload");
	strcpy(r.scenario_path, "inline2.json");
	r.scenario_text = (char *)scenario2;
	r.time_scale = 1;
	r.window_ns = 1000000000LL;
	r.duration_ns = 20000000000LL;
	CHECK(gl_store_run_create(st, &r, &err) == 0);
	for (int w = 0; w < 20; w++) {
		struct gl_hist *lag = gl_hist_new(), *ttft = gl_hist_new();
		unsigned char *b1, *b2;
		size_t l1, l2;
		for (int i = 0; i < 100; i++) {
			gl_hist_record(lag, 1);
			gl_hist_record(ttft, 50);
		}
		CHECK(gl_hist_serialize(lag, &b1, &l1) == 0);
		CHECK(gl_hist_serialize(ttft, &b2, &l2) == 0);
		CHECK(gl_store_window_put(st, w, w * 1000000000LL, (w + 1) * 1000000000LL, w * 1000000000LL,
					  (w + 1) * 1000000000LL, 0, 1) == 0);
		CHECK(gl_store_window_metric_put(st, w, "null.tick_lag_ms", b1, l1, 0) == 0);
		CHECK(gl_store_window_metric_put(st, w, "inference.ttft_ms", b2, l2, 0) == 0);
		CHECK(gl_store_window_metric_put(st, w, "inference.requests", NULL, 0, 100) == 0);
		CHECK(gl_store_window_metric_put(st, w, "inference.errors", NULL, 0, w >= 5 && w <= 9 ? 50 : 0) == 0);
		free(b1);
		free(b2);
		gl_hist_free(lag);
		gl_hist_free(ttft);
	}
	strcpy(f.id, "f1");
	strcpy(f.kind, "null");
	strcpy(f.target, "me");
	f.dur_ns = 2300000000LL;
	f.state = GL_FAULT_REVERTED;
	f.injected_elapsed_ns = f.injected_scn_ns = 5200000000LL;
	f.reverted_elapsed_ns = f.reverted_scn_ns = 7500000000LL;
	CHECK(gl_store_fault_put(st, &f, &err) == 0);
	CHECK(gl_store_run_finish(st, "finished", "", 0, gl_wall_ns()) == 0);
	return st;
}

static const struct gl_target_result *target(const struct gl_analysis *an, const char *metric, enum gl_scope sc)
{
	for (int i = 0; i < an->n_targets; i++)
		if (!strcmp(an->targets[i].spec->metric, metric) && an->targets[i].spec->scope == sc)
			return &an->targets[i];
	return NULL;
}

/* gl_analyze must succeed and give an analysis of the one fault; when it
 * does not, that is a failed check (not a skipped block) and NULL. */
static struct gl_analysis *analyze(struct gl_store *st, const char *what)
{
	struct gl_err err = { 0 };
	struct gl_analysis *an = NULL;
	int rc = gl_analyze(st, &an, &err);

	CHECKF(rc == 0 && an != NULL, "%s: gl_analyze rc %d, analysis %p: %s", what, rc, (void *)an, err.msg);
	if (rc != 0 || !an) {
		gl_analysis_free(an);
		return NULL;
	}
	CHECKF(an->n_faults == 1 && an->faults != NULL, "%s: %d faults analysed, want 1", what, an->n_faults);
	if (an->n_faults != 1 || !an->faults) {
		gl_analysis_free(an);
		return NULL;
	}
	return an;
}

static int never_recovers(int w)
{
	return w < 5 ? 1 : 50;
}

static int mild(int w)
{
	return w >= 5 && w <= 9 ? 15 : 1;
}

static int late_restore(int w)
{
	return w >= 5 && w <= 13 ? 50 : 1;
}

/* the designed scenario with the fault's own settle */
static const char *scenario_settle0 =
	"{ \"name\": \"analysis\", \"duration\": \"20s\", \"window\": \"1s\",\n"
	"  \"hosts\": { \"me\": { \"local\": true } },\n"
	"  \"workloads\": { \"null\": {} },\n"
	"  \"faults\": [ { \"id\": \"f1\", \"at\": \"5200ms\", \"for\": \"4300ms\", \"kind\": \"null\", \"target\": "
	"\"me\",\n"
	"                \"settle\": \"0s\" } ],\n"
	"  \"targets\": { \"steady\": { \"null.tick_lag_ms.p99\": \"<= 10\" },\n"
	"               \"degraded\": { \"null.tick_lag_ms.p99\": \"<= 20\" },\n"
	"               \"recovery\": { \"recovery_s\": \"<= 3\", \"restore_s\": \"<= 2\" } } }\n";
static const char *scenario_settle6 =
	"{ \"name\": \"analysis\", \"duration\": \"20s\", \"window\": \"1s\",\n"
	"  \"hosts\": { \"me\": { \"local\": true } },\n"
	"  \"workloads\": { \"null\": {} },\n"
	"  \"faults\": [ { \"id\": \"f1\", \"at\": \"5200ms\", \"for\": \"4300ms\", \"kind\": \"null\", \"target\": "
	"\"me\",\n"
	"                \"settle\": \"6s\" } ],\n"
	"  \"targets\": { \"steady\": { \"null.tick_lag_ms.p99\": \"<= 10\" },\n"
	"               \"degraded\": { \"null.tick_lag_ms.p99\": \"<= 20\" },\n"
	"               \"recovery\": { \"recovery_s\": \"<= 3\", \"restore_s\": \"<= 2\" } } }\n";

int main(void)
{
	char dir[] = "/tmp/gl-analysis.XXXXXX";
	struct gl_err err = { 0 };
	struct gl_analysis *an = NULL;
	struct gl_store *st;
	const struct gl_target_result *t;

	if (!mkdtemp(dir)) {
		CHECKF(0, "mkdtemp %s failed", dir);
		return check_done();
	}

	/* 1. the designed run */
	st = make_store(dir, 20, 5200000000LL, 9500000000LL, NULL, GL_FAULT_REVERTED);
	if ((an = analyze(st, "designed run"))) {
		CHECKF(an->n_windows == 20, "%d windows", an->n_windows);
		CHECKF(fabs(an->faults[0].recovery_s - 2.8) < 1e-9, "recovery_s = %g", an->faults[0].recovery_s);
		CHECKF(fabs(an->faults[0].restore_s - 2.5) < 1e-9, "restore_s = %g", an->faults[0].restore_s);
		for (int w = 0; w < 20 && w < an->n_windows; w++)
			CHECKF(an->windows[w].scope == (w >= 5 && w <= 12 ? GL_SCOPE_DEGRADED : GL_SCOPE_STEADY),
			       "window %d judged as %s", w, gl_scope_name(an->windows[w].scope));
		CHECKF(an->faults[0].degraded_windows == 8 && an->faults[0].settle_s == 3 && !an->faults[0].unrestored,
		       "degraded windows %d (want 5 fault + 3 settle), settle %g, unrestored %d",
		       an->faults[0].degraded_windows, an->faults[0].settle_s, an->faults[0].unrestored);
		t = target(an, "null.tick_lag_ms.p99", GL_SCOPE_STEADY);
		CHECK(t && t->has && fabs(t->measured - 1) < 0.001 && t->pass && t->windows_judged == 12);
		t = target(an, "null.tick_lag_ms.p99", GL_SCOPE_DEGRADED);
		CHECK(t && t->has && fabs(t->measured - 50) < 0.05 && !t->pass && t->windows_judged == 8);
		t = target(an, "recovery_s", GL_SCOPE_RECOVERY);
		CHECK(t && t->has && fabs(t->measured - 2.8) < 1e-9 && t->pass);
		t = target(an, "restore_s", GL_SCOPE_RECOVERY);
		CHECK(t && t->has && fabs(t->measured - 2.5) < 1e-9 && !t->pass); /* 2.5 > 2 */
		CHECK(an->verdict == GL_VERDICT_FAIL);
		CHECK(an->faults_left_injected == 0);
		CHECKF(an->incidents_total == 0, "%d incidents", an->incidents_total);
		gl_analysis_free(an);
	}
	gl_store_close(st);

	/* 1b. a mild fault: windows 5..9 at 15 (meet degraded, miss steady),
	 * the rest at 1. Recovery 0 (window 5, the inject window, already
	 * meets degraded), restore = start of window 10 - 9.5 = 0.5; degraded
	 * windows 5..12 (the span, whatever the health), steady 0..4 and
	 * 13..19: every target met, verdict pass (so a verdict stuck at
	 * "fail", or a target judged the wrong way round, is caught). */
	st = make_store(dir, 20, 5200000000LL, 9500000000LL, mild, GL_FAULT_REVERTED);
	if ((an = analyze(st, "mild fault"))) {
		CHECKF(an->faults[0].recovery_s == 0, "recovery_s = %g", an->faults[0].recovery_s);
		CHECKF(fabs(an->faults[0].restore_s - 0.5) < 1e-9, "restore_s = %g", an->faults[0].restore_s);
		for (int w = 0; w < 20 && w < an->n_windows; w++)
			CHECKF(an->windows[w].scope == (w >= 5 && w <= 12 ? GL_SCOPE_DEGRADED : GL_SCOPE_STEADY),
			       "mild: window %d judged as %s", w, gl_scope_name(an->windows[w].scope));
		t = target(an, "null.tick_lag_ms.p99", GL_SCOPE_DEGRADED);
		CHECKF(t && t->has && fabs(t->measured - 15) < 0.015 && t->pass && t->windows_judged == 8,
		       "mild: degraded p99");
		t = target(an, "null.tick_lag_ms.p99", GL_SCOPE_STEADY);
		CHECKF(t && t->has && fabs(t->measured - 1) < 0.001 && t->pass && t->windows_judged == 12,
		       "mild: steady p99");
		t = target(an, "restore_s", GL_SCOPE_RECOVERY);
		CHECK(t && t->has && t->pass);
		CHECKF(an->verdict == GL_VERDICT_PASS, "mild: verdict %s", gl_verdict_name(an->verdict));
		gl_analysis_free(an);
	}
	gl_store_close(st);

	/* 2. a system that never comes back: recovery and restore are null, a
	 * failure; the degraded span still ends at the revert plus the settle
	 * (windows 5..12): windows 13..19 are judged steady again and miss the
	 * steady target, and the fault is a fault.restore incident of its own
	 * over them (were every window after the inject kept degraded, the
	 * steady target would be judged on windows 0..4 only, and pass) */
	st = make_store(dir, 20, 5200000000LL, 9500000000LL, never_recovers, GL_FAULT_REVERTED);
	if ((an = analyze(st, "never recovers"))) {
		CHECK(an->faults[0].recovery_s < 0 && an->faults[0].restore_s < 0);
		t = target(an, "restore_s", GL_SCOPE_RECOVERY);
		CHECK(t && !t->has && !t->pass && strstr(t->note, "f1"));
		t = target(an, "recovery_s", GL_SCOPE_RECOVERY);
		CHECK(t && !t->has && !t->pass);
		CHECKF(an->faults[0].degraded_windows == 8, "never: %d degraded windows",
		       an->faults[0].degraded_windows);
		for (int w = 0; w < 20 && w < an->n_windows; w++)
			CHECKF(an->windows[w].scope == (w >= 5 && w <= 12 ? GL_SCOPE_DEGRADED : GL_SCOPE_STEADY),
			       "never: window %d judged as %s", w, gl_scope_name(an->windows[w].scope));
		t = target(an, "null.tick_lag_ms.p99", GL_SCOPE_STEADY);
		CHECKF(t && t->windows_judged == 12 && t->has && fabs(t->measured - 50) < 0.05 && !t->pass,
		       "never: steady judged on %d windows, measured %g", t ? t->windows_judged : -1,
		       t ? t->measured : -1);
		CHECKF(an->faults[0].unrestored &&
			       strstr(an->faults[0].recovery_note, "not restored within its settle of 3.000 s"),
		       "never: unrestored %d, note '%s'", an->faults[0].unrestored, an->faults[0].recovery_note);
		CHECKF(an->incidents_total == 1 && an->incidents_gated == 1 && an->n_incidents == 1 &&
			       an->incidents[0].kind == gl_incident_restore() && an->incidents[0].w0 == 13 &&
			       an->incidents[0].w1 == 19 && an->incidents_failed,
		       "never: %d incident(s), %d counted, first %s windows %d..%d", an->incidents_total,
		       an->incidents_gated, an->n_incidents ? gl_incident_kind_name(an->incidents[0].kind) : "-",
		       an->n_incidents ? an->incidents[0].w0 : -1, an->n_incidents ? an->incidents[0].w1 : -1);
		CHECKF(an->n_incidents && strstr(an->incidents[0].what, "fault 'f1'"), "never: incident says '%s'",
		       an->n_incidents ? an->incidents[0].what : "");
		CHECK(an->verdict == GL_VERDICT_FAIL);
		gl_analysis_free(an);
	}
	gl_store_close(st);

	/* 2b. a late restore: 50 in windows 5..13, then 1: the steady targets
	 * hold from window 14, 4.5 s after the revert, past the settle of 3 s:
	 * restore_s null, a fault.restore incident over window 13 alone (the
	 * first after the settle, up to the late restore) */
	st = make_store(dir, 20, 5200000000LL, 9500000000LL, late_restore, GL_FAULT_REVERTED);
	if ((an = analyze(st, "late restore"))) {
		CHECKF(an->faults[0].restore_s < 0 && an->faults[0].unrestored &&
			       strstr(an->faults[0].recovery_note,
				      "restored 4.500 s after the revert, past its settle of 3.000 s"),
		       "late: restore_s %g, note '%s'", an->faults[0].restore_s, an->faults[0].recovery_note);
		CHECKF(an->faults[0].wl_restore_s[0] < 0, "late: null's own restore_s %g",
		       an->faults[0].wl_restore_s[0]);
		CHECKF(an->n_incidents == 1 && an->incidents[0].kind == gl_incident_restore() &&
			       an->incidents[0].w0 == 13 && an->incidents[0].w1 == 13,
		       "late: incident windows %d..%d", an->n_incidents ? an->incidents[0].w0 : -1,
		       an->n_incidents ? an->incidents[0].w1 : -1);
		CHECKF(an->faults[0].degraded_windows == 8, "late: %d degraded windows",
		       an->faults[0].degraded_windows);
		CHECK(an->verdict == GL_VERDICT_FAIL);
		gl_analysis_free(an);
	}
	gl_store_close(st);

	/* 2c. the fault's own "settle": 0s ends the span with the window
	 * holding the revert (windows 5..9: 5), and the mild fault, whose
	 * revert window 9 misses the steady target, is then restored 0.5 s
	 * late; 6s reaches the last window starting before 15.5 (5..15: 11) */
	cur_scenario = scenario_settle0;
	st = make_store(dir, 20, 5200000000LL, 9500000000LL, mild, GL_FAULT_REVERTED);
	if ((an = analyze(st, "settle 0s"))) {
		CHECKF(an->faults[0].degraded_windows == 5 && an->faults[0].settle_s == 0,
		       "settle 0s: %d degraded windows", an->faults[0].degraded_windows);
		for (int w = 0; w < 20 && w < an->n_windows; w++)
			CHECKF(an->windows[w].scope == (w >= 5 && w <= 9 ? GL_SCOPE_DEGRADED : GL_SCOPE_STEADY),
			       "settle 0s: window %d judged as %s", w, gl_scope_name(an->windows[w].scope));
		CHECKF(an->faults[0].restore_s < 0 && an->faults[0].unrestored && an->incidents_total == 1,
		       "settle 0s: restore_s %g, unrestored %d, %d incident(s)", an->faults[0].restore_s,
		       an->faults[0].unrestored, an->incidents_total);
		gl_analysis_free(an);
	}
	gl_store_close(st);
	cur_scenario = scenario_settle6;
	st = make_store(dir, 20, 5200000000LL, 9500000000LL, mild, GL_FAULT_REVERTED);
	if ((an = analyze(st, "settle 6s"))) {
		CHECKF(an->faults[0].degraded_windows == 11 && an->faults[0].settle_s == 6,
		       "settle 6s: %d degraded windows", an->faults[0].degraded_windows);
		CHECKF(an->faults[0].restore_s == 0.5 && !an->faults[0].unrestored, "settle 6s: restore_s %g",
		       an->faults[0].restore_s);
		t = target(an, "null.tick_lag_ms.p99", GL_SCOPE_STEADY);
		CHECK(t && t->windows_judged == 9);
		gl_analysis_free(an);
	}
	gl_store_close(st);
	cur_scenario = NULL;

	/* 3. a fault still injected: fail, counted; degraded to the end (it
	 * is still in), no restore incident (never reverted) */
	st = make_store(dir, 20, 5200000000LL, -1, NULL, GL_FAULT_INJECTED);
	if ((an = analyze(st, "still injected"))) {
		CHECK(an->faults_left_injected == 1 && an->verdict == GL_VERDICT_FAIL);
		CHECKF(an->faults[0].degraded_windows == 15 && !an->faults[0].unrestored && an->incidents_total == 0,
		       "still injected: %d degraded windows", an->faults[0].degraded_windows);
		CHECK(an->faults[0].restore_s < 0 && strstr(an->faults[0].recovery_note, "not reverted"));
		gl_analysis_free(an);
	}
	gl_store_close(st);

	/* 4. recovery per workload, each judged by the targets naming it */
	st = make_store2(dir);
	if ((an = analyze(st, "per workload"))) {
		/* workloads in scenario order: null = 0, inference = 1 */
		CHECKF(an->faults[0].wl_recovery_s[0] == 0 && an->faults[0].wl_restore_s[0] == 0, "null: %g %g",
		       an->faults[0].wl_recovery_s[0], an->faults[0].wl_restore_s[0]);
		CHECKF(fabs(an->faults[0].wl_recovery_s[1] - 4.8) < 1e-9, "inference recovery %g",
		       an->faults[0].wl_recovery_s[1]);
		CHECKF(fabs(an->faults[0].wl_restore_s[1] - 2.5) < 1e-9, "inference restore %g",
		       an->faults[0].wl_restore_s[1]);
		CHECK(fabs(an->faults[0].recovery_s - 4.8) < 1e-9 && fabs(an->faults[0].restore_s - 2.5) < 1e-9);
		/* windows 5..9 fail half their requests; the degraded span is
		 * windows 5..10 (revert 7.5 + settle 3 s): 250 errors in 600
		 * requests, 0.41667 > 0.1 */
		t = target(an, "inference.error_rate", GL_SCOPE_DEGRADED);
		CHECKF(t && t->has && fabs(t->measured - 250.0 / 600) < 1e-9 && !t->pass && t->windows_judged == 6,
		       "degraded error_rate %g over %d windows", t ? t->measured : -1, t ? t->windows_judged : -1);
		t = target(an, "inference.error_rate", GL_SCOPE_STEADY);
		CHECKF(t && t->has && t->measured == 0 && t->pass, "steady error_rate");
		CHECK(an->verdict == GL_VERDICT_FAIL);
		gl_analysis_free(an);
	}
	gl_store_close(st);

	/* 4b. a controller outage inside the fault (the designed run, 5.2 s to
	 * 9.5 s): the run's clock stood at 6.0 s for 10 s of wall time. The
	 * fault without a record of its own end was held (9.5 - 5.2) + 10 =
	 * 14.3 s, the whole outage in it; with one (a flap loop that ended
	 * 3 s after the inject, during the outage), held 3 s, the outage
	 * counted up to that end only: 3 - (6.0 - 5.2) = 2.2 s into it. */
	st = make_store(dir, 20, 5200000000LL, 9500000000LL, NULL, GL_FAULT_REVERTED);
	{
		struct gl_outage_row o = { 1, 6000000000LL, 1000000000000LL, 1010000000000LL };
		CHECK(gl_store_outage_put(st, &o) == 0);
	}
	if ((an = analyze(st, "outage, no record"))) {
		const struct gl_fault_result *f = &an->faults[0];
		CHECKF(fabs(f->held_s - 14.3) < 1e-9 && fabs(f->outage_s - 10) < 1e-9 && !f->self_ended,
		       "no record: held %g, outage %g, self_ended %d", f->held_s, f->outage_s, f->self_ended);
		gl_analysis_free(an);
	}
	{
		struct gl_fault_row f = { 0 };
		strcpy(f.id, "f1");
		strcpy(f.kind, "null");
		strcpy(f.target, "me");
		f.at_ns = 5200000000LL;
		f.dur_ns = 4300000000LL;
		f.state = GL_FAULT_REVERTED;
		f.verified = f.verified_revert = 1;
		f.injected_elapsed_ns = f.injected_scn_ns = 5200000000LL;
		f.reverted_elapsed_ns = f.reverted_scn_ns = 9500000000LL;
		strcpy(f.measured, "{\"self_reverted_s\":3}");
		CHECK(gl_store_fault_put(st, &f, &err) == 0);
	}
	if ((an = analyze(st, "outage, own record"))) {
		const struct gl_fault_result *f = &an->faults[0];
		CHECKF(fabs(f->held_s - 3) < 1e-9 && fabs(f->outage_s - 2.2) < 1e-9 && f->self_ended &&
			       f->ended_outage == 0 && fabs(f->ended_into_s - 2.2) < 1e-9 &&
			       f->self_end_elapsed_ns == 6000000000LL,
		       "own record: held %g, outage %g, self_ended %d, ended in outage %d, %g s into it", f->held_s,
		       f->outage_s, f->self_ended, f->ended_outage, f->ended_into_s);
		gl_analysis_free(an);
	}
	gl_store_close(st);

	/* 5. schema: a store from a newer gauntlet is refused, not misread */
	{
		char path[512];
		sqlite3 *db;
		struct gl_store *st2;
		snprintf(path, sizeof(path), "%s/run.db", dir);
		CHECK(sqlite3_open(path, &db) == SQLITE_OK);
		CHECK(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL) == SQLITE_OK);
		sqlite3_close(db);
		gl_err_clear(&err);
		st2 = gl_store_open(path, 0, &err);
		CHECK(st2 == NULL && strstr(err.msg, "newer than this gauntlet"));
		gl_store_close(st2);
		gl_err_clear(&err);
		CHECK(gl_store_open(path, 1, &err) == NULL && strstr(err.msg, "already exists"));
	}

	/* 6. aggregates: error_rate and GB/s from counters */
	{
		struct gl_agg *a = gl_agg_new();
		double v;
		gl_agg_add_counter(a, "inference.requests", 1000);
		gl_agg_add_counter(a, "inference.errors", 3);
		gl_agg_add_counter(a, "storage.write_bytes", 20000000000LL);
		gl_agg_add_seconds(a, 4);
		CHECK(gl_agg_eval(a, "inference.error_rate", &v) == 0 && fabs(v - 0.003) < 1e-12);
		CHECK(gl_agg_eval(a, "storage.write_gbps", &v) == 0 && fabs(v - 5) < 1e-12);
		CHECK(gl_agg_eval(a, "inference.throughput_rps", &v) == 0 && fabs(v - 250) < 1e-12);
		CHECK(gl_agg_eval(a, "storage.read_gbps", &v) != 0); /* no data is not 0 */
		CHECK(gl_agg_eval(a, "inference.ttft_ms.p99", &v) != 0);
		gl_agg_free(a);
	}
	{
		/* the incident kinds the workloads declare, ranked by their
		 * order (reports list same-window incidents in it), restore last */
		static const char *const want[] = { "training.failure", "training.correctness", "inference.targets",
						    "storage.errors",   "telemetry.xid",        "telemetry.ecc",
						    "fault.restore" };
		int n = gl_incident_kinds();
		CHECKF(n == 7 && gl_incident_restore() == 6, "%d incident kinds, restore %d", n, gl_incident_restore());
		for (int k = 0; k < n && k < 7; k++)
			CHECKF(!strcmp(gl_incident_kind_name(k), want[k]), "kind %d is %s, want %s", k,
			       gl_incident_kind_name(k), want[k]);
		CHECK(!strcmp(gl_incident_kind_name(n), "?"));
	}
	{
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cleanup of %s failed\n", dir);
	}
	return check_done();
}
