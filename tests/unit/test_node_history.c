/*
 * test_node_history.c - the per-node analysis (analysis_nodes.c,
 * docs/nodes.md) on a store written through the real store code, with
 * node figures whose answer is known in advance:
 *
 *   50 windows of 1 s; hosts h1..h5 (h1..h4 with "address" 10.0.0.N)
 *   f1: a null fault on h2, injected at 10 s, reverted at 15 s, the
 *       default settle (3 s): it explains windows 10..20 (those starting
 *       by the revert plus the teardown of 5 s), 11 windows
 *   f2: an exec fault on h1 (what its argv reaches is not known) at 30 s,
 *       reverted at 33 s: it explains windows 30..38, 9 windows
 *   f3: a drain_worker (slurm, run on h1) of the Slurm node "n4", h4's
 *       slurm_node, at 42 s, reverted at 43 s: windows 42..48, 7 windows
 *
 *   endpoints (inference ttft_ms, 10 requests a window):
 *     e1 on h1: 40 ms; e2 on h2: 40 ms, 200 ms in f1's windows;
 *     e3 on h3: 41 ms; e4 on h4: 120 ms throughout (the bad node);
 *     e5 on 10.9.9.9 (no scenario host): 40 ms
 *   ranks (training compute_ms, 10 steps a window), two only, so no peer
 *     scoring can run: rank 0 on "h3.cluster" (h3 by its short name)
 *     50 ms throughout; rank 1 on "h5" 50 ms, from window 15 on 80.125 ms
 *
 * A (inside a fault's span): f1 touches h2 alone, so in its windows e1,
 * e3 and e4 are judged against each other, e2 (touched) and e5 (host not
 * known) are not; in f2's windows nobody is; in f3's all but e4 (on h4,
 * the node drained) and e5. e4 judged in 50 - 9 - 7 = 34 windows and out
 * in all of them; e2 in 50 - 11 - 9 = 30, e5 in 50 - 11 - 9 - 7 = 23.
 *
 * B (its own history): the baseline is max(3, 50 / 10) = 5 windows, the
 * ranks' windows 0..4 (50 ms). rank 1's later windows judged: 5..49 less
 * f2's 9 = 36, of them 26 at 80.125 (self z (80.125 - 50) / max(5 % of
 * 50, 0.5) = 12.05, kept as 12.0) and 10 at 50 (z 0): self score 12.0, a
 * suspect; rank 0's self score 0. e4, steady at 120, has self score 0.
 * e3's TTFT is 200 ms in window 27 alone: the incident that the errors
 * open from window 25 (the steady error_rate missed) names e4, out in all
 * of its windows, and not e3, out in one (fewer than a quarter).
 * Every endpoint's errors go from 0 to 0.3 at window 25 (the whole
 * cluster): the peers' median self z (15, each) is taken off each node's,
 * so no endpoint has an errors self score above 0, nor is a suspect by it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "check.h"
#include "nodes.h"
#include "store.h"

static const char *scenario =
	"{ \"name\": \"node-history\", \"duration\": \"50s\", \"window\": \"1s\",\n"
	"  \"hosts\": { \"h1\": { \"local\": true, \"address\": \"10.0.0.1\" },\n"
	"             \"h2\": { \"local\": true, \"address\": \"10.0.0.2\" },\n"
	"             \"h3\": { \"local\": true, \"address\": \"10.0.0.3\" },\n"
	"             \"h4\": { \"local\": true, \"address\": \"10.0.0.4\", \"slurm_node\": \"n4\" },\n"
	"             \"h5\": { \"local\": true } },\n"
	"  \"workloads\": { \"inference\": { \"endpoints\": [\"http://10.0.0.1:8000/v1\", "
	"\"http://10.0.0.2:8000/v1\",\n"
	"       \"http://10.0.0.3:8000/v1\", \"http://10.0.0.4:8000/v1\"],\n"
	"       \"model\": \"m\", \"arrival\": { \"mode\": \"constant\", \"rate\": 1 } } },\n"
	"  \"faults\": [ { \"id\": \"f1\", \"at\": \"10s\", \"for\": \"5s\", \"kind\": \"null\", \"target\": \"h2\" "
	"},\n"
	"              { \"id\": \"f2\", \"at\": \"30s\", \"for\": \"3s\", \"kind\": \"exec\", \"target\": \"h1\",\n"
	"                \"params\": { \"inject\": [\"true\"], \"revert\": [\"true\"] } },\n"
	"              { \"id\": \"f3\", \"at\": \"42s\", \"for\": \"1s\", \"kind\": \"drain_worker\", \"method\": "
	"\"slurm\",\n"
	"                \"target\": \"h1\", \"params\": { \"node\": \"n4\" } } ],\n"
	"  \"targets\": { \"steady\": { \"inference.error_rate\": \"<= 0.01\" },\n"
	"               \"degraded\": { \"inference.error_rate\": \"<= 0.5\" } } }\n";

#define NW 50
#define S 1000000000LL

static void put(struct gl_store *st, int w, const char *wl, const char *kind, const char *name, const char *host,
		const char *fig, double v)
{
	struct gl_node_fig f = { .idx = w, .n = 10, .sum = 10 * v, .max = v };

	snprintf(f.workload, sizeof(f.workload), "%s", wl);
	snprintf(f.kind, sizeof(f.kind), "%s", kind);
	snprintf(f.name, sizeof(f.name), "%s", name);
	snprintf(f.host, sizeof(f.host), "%s", host);
	snprintf(f.figure, sizeof(f.figure), "%s", fig);
	CHECK(gl_store_node_put(st, &f) == 0);
}

static void fault(struct gl_store *st, const char *id, const char *kind, const char *target, int64_t ti, int64_t tr)
{
	struct gl_fault_row f = { 0 };
	struct gl_err err = { 0 };

	snprintf(f.id, sizeof(f.id), "%s", id);
	snprintf(f.kind, sizeof(f.kind), "%s", kind);
	snprintf(f.target, sizeof(f.target), "%s", target);
	f.at_ns = ti;
	f.dur_ns = tr - ti;
	f.state = GL_FAULT_REVERTED;
	f.verified = f.verified_revert = 1;
	f.injected_elapsed_ns = f.injected_scn_ns = ti;
	f.reverted_elapsed_ns = f.reverted_scn_ns = tr;
	CHECKF(gl_store_fault_put(st, &f, &err) == 0, "fault %s: %s", id, err.msg);
}

static struct gl_store *make_store(const char *dir)
{
	char path[512];
	struct gl_err err = { 0 };
	struct gl_store *st;
	struct gl_run_row r = { 0 };

	snprintf(path, sizeof(path), "%s/run.db", dir);
	unlink(path);
	if (!(st = gl_store_open(path, 1, &err))) {
		fprintf(stderr, "store: %s\n", err.msg);
		exit(1);
	}
	strcpy(r.id, "node-history");
	strcpy(r.name, "node-history");
	strcpy(r.scenario_path, "inline.json");
	r.scenario_text = (char *)scenario;
	gl_sha256_hex(r.scenario_text, strlen(r.scenario_text), r.scenario_sha256);
	r.time_scale = 1;
	r.window_ns = S;
	r.duration_ns = NW * S;
	r.started_wall_ns = gl_wall_ns();
	CHECK(gl_store_run_create(st, &r, &err) == 0);
	for (int w = 0; w < NW; w++) {
		int in_f1 = w >= 10 && w <= 20;
		CHECK(gl_store_window_put(st, w, w * S, (w + 1) * S, w * S, (w + 1) * S, 0, 1) == 0);
		put(st, w, "inference", "endpoint", "10.0.0.1:8000", "h1", "ttft_ms", 40);
		put(st, w, "inference", "endpoint", "10.0.0.2:8000", "h2", "ttft_ms", in_f1 ? 200 : 40);
		put(st, w, "inference", "endpoint", "10.0.0.3:8000", "h3", "ttft_ms", w == 27 ? 200 : 41);
		put(st, w, "inference", "endpoint", "10.0.0.4:8000", "h4", "ttft_ms", 120);
		put(st, w, "inference", "endpoint", "10.9.9.9:8000", "10.9.9.9", "ttft_ms", 40);
		for (int e = 1; e <= 5; e++) { /* the whole cluster's errors move at once */
			char name[32], host[16];
			snprintf(name, sizeof(name), e == 5 ? "10.9.9.9:8000" : "10.0.0.%d:8000", e);
			snprintf(host, sizeof(host), e == 5 ? "10.9.9.9" : "h%d", e);
			put(st, w, "inference", "endpoint", name, host, "errors", w >= 25 ? 0.3 : 0);
		}
		put(st, w, "training", "rank", "0", "h3.cluster", "compute_ms", 50);
		put(st, w, "training", "rank", "1", "h5", "compute_ms", w >= 15 ? 80.125 : 50);
	}
	fault(st, "f1", "null", "h2", 10 * S, 15 * S);
	fault(st, "f2", "exec", "h1", 30 * S, 33 * S);
	fault(st, "f3", "drain_worker", "h1", 42 * S, 43 * S);
	CHECK(gl_store_run_finish(st, "finished", "", 0, gl_wall_ns()) == 0);
	return st;
}

static const struct gl_node_result *node(const struct gl_analysis *an, const char *name, const char *fig)
{
	for (int i = 0; i < an->n_nodes; i++)
		if (!strcmp(an->nodes[i].name, name) && !strcmp(an->nodes[i].figure, fig))
			return &an->nodes[i];
	CHECKF(0, "no node %s %s", name, fig);
	return NULL;
}

static const struct gl_suspect *suspect(const struct gl_analysis *an, const char *name)
{
	for (int i = 0; i < an->n_suspects; i++)
		if (!strcmp(an->suspects[i].name, name))
			return &an->suspects[i];
	return NULL;
}

/* A: who is judged inside the spans, and against whom. */
static void spans(const struct gl_analysis *an)
{
	const struct gl_node_result *e1 = node(an, "10.0.0.1:8000", "ttft_ms"),
				    *e2 = node(an, "10.0.0.2:8000", "ttft_ms");
	const struct gl_node_result *e4 = node(an, "10.0.0.4:8000", "ttft_ms"),
				    *e5 = node(an, "10.9.9.9:8000", "ttft_ms");
	int col10 = 10 * GL_NODE_HEAT_COLS / NW + 1, col30 = 30 * GL_NODE_HEAT_COLS / NW + 1;

	if (!e1 || !e2 || !e4 || !e5)
		return;
	CHECKF(an->n_faults == 3 && an->faults[0].span_w0 == 10 && an->faults[0].span_w1 == 20 &&
		       an->faults[1].span_w0 == 30 && an->faults[1].span_w1 == 38 && an->faults[2].span_w0 == 42 &&
		       an->faults[2].span_w1 == 48,
	       "%d faults", an->n_faults);
	if (an->n_faults != 3)
		return;
	CHECKF(an->faults[0].touches == 1 && an->faults[1].touches == -1 && an->faults[2].touches == 3,
	       "f1 touches %d (h2 is 1), f2 %d (-1), f3 %d (h4 is 3)", an->faults[0].touches, an->faults[1].touches,
	       an->faults[2].touches);
	/* the bad node is judged inside f1's span, not inside f2's */
	CHECKF(e4->judged == 34 && e4->out == 34, "e4 judged %d, out %d (want 34, 34)", e4->judged, e4->out);
	CHECKF(e1->judged == 41, "e1 (on h1, which f1 does not touch) judged %d, want 41", e1->judged);
	/* the touched node and the node of no known host: neither */
	CHECKF(e2->judged == 30 && e2->out == 0, "e2 (on h2, touched) judged %d, out %d (want 30, 0)", e2->judged,
	       e2->out);
	CHECKF(e5->judged == 23, "e5 (host not known) judged %d, want 23", e5->judged);
	CHECKF(!isnan(e4->heat[col10]) && isnan(e2->heat[col10]) && isnan(e4->heat[col30]),
	       "heat: e4 in f1's span %g, e2 there %g (grey), e4 in f2's span %g (grey)", e4->heat[col10],
	       e2->heat[col10], e4->heat[col30]);
	/* in f1's windows e4 is judged against e1 and e3 alone: median 41,
	 * MAD 1, spread max(1.4826, 2.05) = 2.05, z 38.5; outside them the
	 * five nodes, median 40, spread 2, z 40: its largest in a column that
	 * holds only f1 windows is 38.5 */
	CHECKF(fabs(e4->heat[col10] - 79 / 2.05) < 1e-3, "e4's z in f1's span %.4f, want %.4f", e4->heat[col10],
	       79 / 2.05);
	CHECKF(suspect(an, "10.0.0.4:8000") && !suspect(an, "10.0.0.2:8000"), "suspects: e4 yes, e2 no");
}

/* B: a node against its own history. */
static void history(const struct gl_analysis *an)
{
	const struct gl_node_result *r0 = node(an, "0", "compute_ms"), *r1 = node(an, "1", "compute_ms");
	const struct gl_node_result *e4 = node(an, "10.0.0.4:8000", "ttft_ms");
	const struct gl_suspect *sp = suspect(an, "1");

	if (!r0 || !r1 || !e4)
		return;
	CHECKF(an->self_base == 5, "baseline of %d windows, want 5", an->self_base);
	CHECKF(r1->judged == 0 && r0->judged == 0, "two ranks: no peer scoring (judged %d, %d)", r0->judged,
	       r1->judged);
	CHECKF(r1->base_windows == 5 && fabs(r1->base_sum / (double)r1->base_n - 50) < 1e-9,
	       "rank 1 baseline %d windows", r1->base_windows);
	CHECKF(r1->self_judged == 36 && r1->self_out == 26, "rank 1 self judged %d, out %d (want 36, 26)",
	       r1->self_judged, r1->self_out);
	CHECKF(fabs(r1->self_score - 12.0) < 1e-9 && r1->self_suspect, "rank 1 self score %.3f (want 12.0), suspect %d",
	       r1->self_score, r1->self_suspect);
	CHECKF(fabs(r1->late_sum / (double)r1->late_n - (26 * 80.125 + 10 * 50) / 36.0) < 1e-9,
	       "rank 1 later mean %.4f", r1->late_sum / (double)r1->late_n);
	CHECKF(r0->self_judged == 36 && r0->self_score == 0 && !r0->self_suspect, "rank 0 self %d, %.2f, %d",
	       r0->self_judged, r0->self_score, r0->self_suspect);
	CHECKF(e4->self_score == 0 && !e4->self_suspect, "e4, steady at 120: self score %.2f", e4->self_score);
	CHECKF(sp && fabs(sp->score - 12.0) < 1e-9 && sp->windows == 26 &&
		       strstr(sp->evidence, "against its own 50 in its first 5 windows (self z 12.0; out in 26 of 36"),
	       "rank 1 a suspect by its own history: %s", sp ? sp->evidence : "(none)");
	CHECKF(!suspect(an, "0"), "rank 0 is no suspect");
	/* an incident names the node out through it, not one window's noise */
	for (int i = 0; i < an->n_incidents; i++) {
		const struct gl_incident *x = &an->incidents[i];
		int in3 = 0, in4 = 0;
		if (x->w0 > 27 || x->w1 < 27 || x->w1 - x->w0 + 1 < 8)
			continue;
		for (int k = 0; k < x->n_nodes; k++) {
			in3 |= !strcmp(x->nodes[k].name, "10.0.0.3:8000");
			in4 |= !strcmp(x->nodes[k].name, "10.0.0.4:8000");
		}
		CHECKF(in4 && !in3, "incident of windows %d..%d: e4 named %d (want 1), e3 %d (want 0: out in 1 window)",
		       x->w0, x->w1, in4, in3);
	}
	/* what moved the whole cluster moves no node's self score */
	for (int i = 0; i < an->n_nodes; i++)
		if (!strcmp(an->nodes[i].figure, "errors"))
			CHECKF(an->nodes[i].self_judged > 0 && an->nodes[i].self_score <= 0 &&
				       !an->nodes[i].self_suspect,
			       "%s errors: self score %.1f over %d windows, suspect %d (the cluster moved, not it)",
			       an->nodes[i].name, an->nodes[i].self_score, an->nodes[i].self_judged,
			       an->nodes[i].self_suspect);
}

int main(void)
{
	char dir[] = "/tmp/gl-node-history.XXXXXX";
	struct gl_err err = { 0 };
	struct gl_analysis *an = NULL;
	struct gl_store *st;

	if (!mkdtemp(dir)) {
		CHECKF(0, "mkdtemp %s failed", dir);
		return check_done();
	}
	st = make_store(dir);
	CHECKF(gl_analyze(st, &an, &err) == 0 && an, "gl_analyze: %s", err.msg);
	if (an) {
		spans(an);
		history(an);
	}
	gl_analysis_free(an);
	gl_store_close(st);
	{
		char path[600];
		snprintf(path, sizeof(path), "%s/run.db", dir);
		unlink(path);
		rmdir(dir);
	}
	return check_done();
}
