/*
 * inference_sim.c - the inference workload's model for `gauntlet
 * simulate` (plugin.h: struct gl_workload_sim; docs/simulation.md):
 * open-loop arrivals at the section's rate times the phase's load, spread
 * over serving nodes (the hosts with "k8s_node", else one); a node serves
 * up to capacity/n requests/s (capacity: 4 x the rate). TTFT is
 * log-normal (median 120 ms, sigma 0.3) times 1/(1 - utilisation), TPOT
 * log-normal (median 25 ms, sigma 0.15); past 95 % utilisation the excess
 * errors. A node that is down fails the requests sent to it.
 *
 * An edge phase (docs/scenario.md, "Edge phases") runs the real search
 * (inference_edge_search.c) against the model's own goodput at each
 * probe's rate, without faults: (1 - the share errored past 95 %
 * utilisation) x P(TTFT within slo.ttft_ms) x P(TPOT within slo.tpot_ms),
 * the TTFT and TPOT of the log-normals above. Each slot of the phase
 * offers its probe's rate, the search goes into the store document "edge"
 * as the workload writes it, and a phase at a fraction of the edge offers
 * that fraction of what it found ("from" when nothing held).
 */
#include <math.h>
#include <stdio.h>

#include "inference_int.h"
#include "sim_model.h"

/* Edge phases: the section's SLO (setup), the searches (one per edge
 * phase, made when its phase starts), the edge phase in force (-1 none),
 * the world's time less the run's elapsed (set with the phase), the
 * simulated controller's section and whether the store document is owed
 * to it. */
static struct {
	double ttft_ms, tpot_ms;
	struct inf_edge_search *s;
	int n, cur, owed;
	int64_t offset;
	const cJSON *cfg;
} edge;

/* its metric ids, in the order of the names below */
enum { I_TTFT, I_TPOT, I_LAT, I_REQ, I_ERR, I_OUTTOT, I_AREQ, I_AERR };

static int setup_inference(struct sim_world *w, const struct gl_scenario *sc, const cJSON *cfg)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(cfg, "arrival");
	const cJSON *ads = cJSON_GetObjectItemCaseSensitive(cfg, "adapters"), *a;

	w->inf = 1;
	w->inf_load = 1;
	w->rate = sim_num(arr, "rate", 10);
	w->out_tokens = (int)sim_num(cfg, "output_tokens", 128);
	if (w->out_tokens < 1)
		w->out_tokens = 1;
	cJSON_ArrayForEach(a, ads) w->adapter_share += sim_num(a, "share", 0);
	for (int i = 0; i < sc->n_hosts && w->n_nodes < SIM_NODES; i++)
		if (cJSON_GetObjectItemCaseSensitive(sc->hosts[i].json, "k8s_node"))
			snprintf(w->nodes[w->n_nodes++], GL_NAME_MAX, "%s", sc->hosts[i].name);
	if (!w->n_nodes)
		snprintf(w->nodes[w->n_nodes++], GL_NAME_MAX, "%s", "serving");
	free(edge.s);
	memset(&edge, 0, sizeof(edge));
	edge.ttft_ms = gl_cfg_num(cJSON_GetObjectItemCaseSensitive(cfg, "slo"), "ttft_ms", -1);
	edge.tpot_ms = gl_cfg_num(cJSON_GetObjectItemCaseSensitive(cfg, "slo"), "tpot_ms", -1);
	edge.cur = -1;
	for (int i = 0; i < sc->n_phases; i++)
		edge.n += sc->phases[i].kind == GL_PHASE_EDGE;
	if (edge.n && !(edge.s = calloc((size_t)edge.n, sizeof(*edge.s))))
		return -1;
	edge.n = 0;
	for (int i = 0; i < sc->n_phases; i++)
		if (sc->phases[i].kind == GL_PHASE_EDGE)
			inf_edge_search_init(&edge.s[edge.n++], sc, i, 1);
	w->t_requests = sim_truth_counter(w, "inference.requests");
	w->t_errors = sim_truth_counter(w, "inference.errors");
	w->q_ttft = sim_truth_quantile(w, "inference", "ttft_ms", 1e-3);
	return w->t_requests < 0 || w->t_errors < 0 || w->q_ttft < 0 ? -1 : 0;
}

/* The model's goodput at an offered rate, every node up. */
static double model_goodput(const struct sim_world *w, double rate)
{
	double util = rate / (4.0 * w->rate), ok = util > 0.95 ? 1 - (util - 0.95) / util : 1;
	double q = 1.0 / (1.0 - (util < 0.95 ? util : 0.95));
	double ttft = edge.ttft_ms, tpot = edge.tpot_ms;

	if (ttft > 0)
		ok *= 0.5 * erfc(-log(ttft / (120.0 * q)) / 0.3 / sqrt(2));
	if (tpot > 0)
		ok *= 0.5 * erfc(-log(tpot / 25.0) / 0.15 / sqrt(2));
	return ok;
}

/* The search of an edge phase against the model, slot by slot. */
static void edge_search_model(const struct sim_world *w, struct inf_edge_search *e)
{
	double send_s = (double)(e->slot_ns - e->settle_ns) / 1e9;

	e->n = 0;
	for (int k = 0; k < e->slots && e->n < GL_EDGE_MAX_PROBES; k++) {
		struct inf_edge_probe *p = &e->p[e->n];
		double rate = inf_edge_next_rate(e);
		if (rate <= 0)
			break;
		memset(p, 0, sizeof(*p));
		p->slot = k;
		p->rate = rate;
		p->t0 = e->start_ns + (int64_t)k * e->slot_ns;
		p->requests = (int64_t)llround(rate * send_s);
		p->good = (int64_t)llround((double)p->requests * model_goodput(w, rate));
		p->slow = p->requests - p->good;
		p->pass = gl_edge_probe_passes(&e->plan, p->good, p->requests);
		e->n++;
	}
	inf_edge_conclude(e);
}

/* The rate offered at t in an edge phase: its probe's, or after the last
 * one what the search ended at. */
static double edge_rate_at(const struct inf_edge_search *e, int64_t t)
{
	for (int i = e->n - 1; i >= 0; i--)
		if (t >= e->p[i].t0)
			return i == e->n - 1 && e->n < e->slots && t >= e->p[i].t0 + e->slot_ns
				       ? (e->res.edge > 0 ? e->res.edge : e->plan.from)
				       : e->p[i].rate;
	return e->plan.from;
}

static void emit_inference(struct sim_wl *s, struct sim_world *w, int64_t t1)
{
	struct gl_metrics *m = gl_ctx_metrics(s->c);
	int64_t idx = sim_window(s);
	int64_t t0 = w->inf_last;

	if (edge.owed && edge.n && edge.cfg) {
		edge.owed = 0;
		inf_edge_doc_put(s->c, edge.cfg, edge.s, edge.n);
	}
	if (t0 < 0 || t1 <= t0)
		return;
	if (w->pend_inf_err) {
		gl_metrics_add(m, s->id[I_REQ], w->pend_inf_err);
		gl_metrics_add(m, s->id[I_ERR], w->pend_inf_err);
		sim_truth_add(w, w->t_requests, idx, w->pend_inf_err);
		sim_truth_add(w, w->t_errors, idx, w->pend_inf_err);
		w->pend_inf_err = 0;
	}
	for (int64_t a = t0; a < t1;) {
		int64_t b = a + SIM_SUBSTEP_NS - (a % SIM_SUBSTEP_NS);
		double dt, offered, cap, util, up = 0;
		double b_ttft[SIM_BATCH], b_tpot[SIM_BATCH], b_lat[SIM_BATCH];
		size_t k = 0;
		int64_t n, errs = 0, areq = 0, aerr = 0;
		int swap = sim_any_active(w, FX_ADAPTER, 0) >= 0;

		if (b > t1)
			b = t1;
		dt = (double)(b - a) / 1e9;
		enum sim_node_state ns[SIM_NODES];
		int routed[SIM_NODES], n_routed = 0;
		for (int i = 0; i < w->n_nodes; i++) {
			ns[i] = sim_node_state(w, i, a);
			up += ns[i] == NODE_UP;
			if (ns[i] != NODE_OUT)
				routed[n_routed++] = i;
		}
		offered = edge.cur >= 0 ? edge_rate_at(&edge.s[edge.cur], a - edge.offset) : w->rate * w->inf_load;
		w->inf_acc += offered * dt;
		n = (int64_t)w->inf_acc;
		w->inf_acc -= (double)n;
		cap = 4.0 * w->rate * up / w->n_nodes;
		util = cap > 0 ? offered / cap : 1e9;
		for (int64_t r = 0; r < n; r++) {
			/* the node the load balancer picks among those in
			 * its endpoints (none: refused) */
			int node = n_routed ? routed[sim_rand(&w->rng) % (uint64_t)n_routed] : -1;
			int adapter = w->adapter_share > 0 && sim_unit(&w->rng) < w->adapter_share;
			double ttft, tpot, q;
			if (adapter)
				areq++;
			if (node < 0 || ns[node] == NODE_FAILING || (adapter && swap) ||
			    (util > 0.95 && sim_unit(&w->rng) < (util - 0.95) / util)) {
				errs++;
				if (adapter)
					aerr++;
				continue;
			}
			q = 1.0 / (1.0 - (util < 0.95 ? util : 0.95));
			ttft = 120.0 * exp(0.3 * sim_normal(&w->rng)) * q;
			tpot = 25.0 * exp(0.15 * sim_normal(&w->rng));
			if (k < SIM_BATCH) {
				b_ttft[k] = ttft;
				b_tpot[k] = tpot;
				b_lat[k++] = ttft + tpot * (w->out_tokens - 1);
			} else {
				gl_metrics_record(m, s->id[I_TTFT], ttft);
				gl_metrics_record(m, s->id[I_TPOT], tpot);
				gl_metrics_record(m, s->id[I_LAT], ttft + tpot * (w->out_tokens - 1));
			}
			sim_truth_draw(w, w->q_ttft, ttft);
		}
		gl_metrics_record_many(m, s->id[I_TTFT], b_ttft, k);
		gl_metrics_record_many(m, s->id[I_TPOT], b_tpot, k);
		gl_metrics_record_many(m, s->id[I_LAT], b_lat, k);
		if (areq)
			gl_metrics_add(m, s->id[I_AREQ], areq);
		if (aerr)
			gl_metrics_add(m, s->id[I_AERR], aerr);
		gl_metrics_add(m, s->id[I_OUTTOT], (n - errs) * w->out_tokens);
		gl_metrics_add(m, s->id[I_REQ], n);
		gl_metrics_add(m, s->id[I_ERR], errs);
		sim_truth_add(w, w->t_requests, idx, n);
		sim_truth_add(w, w->t_errors, idx, errs);
		a = b;
	}
	w->inf_last = t1;
}

/* The job ends counted since the last emission: failures and the steps
 * they lost. */
/* the figures the model has (docs/simulation.md): fewer than the real
 * workload records, each one a row per window; the adapters' two only
 * with adapters */
static int metrics(const struct sim_world *w, const char *const **names)
{
	static const char *const inf[] = { "h:inference.ttft_ms",          "h:inference.tpot_ms",
					   "h:inference.latency_ms",       "c:inference.requests",
					   "c:inference.errors",           "c:inference.output_tokens_total",
					   "c:inference.adapter_requests", "c:inference.adapter_errors" };

	*names = inf;
	return w && w->adapter_share > 0 ? 8 : 6;
}

static void start(struct sim_world *w)
{
	w->inf_last = w->now;
}

static void set_load(struct sim_world *w, double mult)
{
	w->inf_load = mult;
}

/* An edge phase: its search against the model; a phase at a fraction of
 * an edge: that fraction of what the search found (made now when a
 * resumed controller finds it not made). */
static void set_phase(struct sim_world *w, struct gl_ctx *c)
{
	const struct gl_scenario *sc = gl_ctx_scenario(c);
	const struct gl_workload_spec *ws = gl_scenario_workload(sc, "inference");
	int p = gl_ctx_phase(c);
	const struct gl_phase *ph;

	edge.cur = -1;
	if (p < 0 || p >= sc->n_phases || !ws)
		return;
	ph = &sc->phases[p];
	edge.cfg = ws->cfg;
	edge.offset = w->now - gl_ctx_elapsed_ns(c);
	for (int i = 0; i < edge.n; i++) {
		struct inf_edge_search *e = &edge.s[i];
		if (ph->kind == GL_PHASE_EDGE && e->phase == p) {
			edge_search_model(w, e);
			edge.cur = i;
			edge.owed = 1;
		} else if (ph->edge_fraction > 0 && e->phase == ph->edge_of) {
			if (!e->done) {
				edge_search_model(w, e);
				edge.owed = 1;
			}
			w->inf_load = inf_edge_fraction_rate(e, ph->edge_fraction) / w->rate;
		}
	}
}

const struct gl_workload_sim gl_inference_sim = {
	.setup = setup_inference,
	.metrics = metrics,
	.start = start,
	.set_load = set_load,
	.emit = emit_inference,
	.set_phase = set_phase,
};
