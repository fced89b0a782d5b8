/*
 * inference_edge.c - the inference workload's edge phases (docs/scenario.md,
 * "Edge phases"): the search for the highest arrival rate at which the
 * server holds the workload's SLO, and the later phases that run at a
 * fraction of what it found.
 *
 * An edge phase is cut into slots of equal length, as many as fit
 * (validation: 2 at least, GL_EDGE_MAX_PROBES at most), so its timeline is
 * known before it runs. Each slot is one probe at the rate the search
 * (inference_edge_search.h) asks for next: arrivals at that rate from the
 * slot's start until its settle (the slot's last part), then none. A
 * request is the probe's when its intended send time falls in the slot's
 * sending part. Its verdict:
 *   - good: it succeeded within the SLO (as inference.good counts it);
 *   - slow or error: it finished outside the SLO, or failed;
 *   - late: at the end of the sending part, a request past its TTFT
 *     budget (no first token after slo.ttft_ms), past its whole budget
 *     (slo.ttft_ms + (output_tokens - 1) x slo.tpot_ms), or held by
 *     max_in_flight that long, is late: a miss, cancelled at once (its
 *     connection closed, which frees its place in the server's queue).
 *     At the slot's end whatever is left of the probe is cancelled too:
 *     good when it met the SLO as far as it went (its first token in time
 *     and, with tpot_ms, its gaps so far), late otherwise. With the
 *     default settle (the SLO's whole budget) every request still running
 *     then is past it, so only on-time streams of a ttft-only SLO are
 *     judged so.
 * So no request of one probe is served during the next (the backlog of a
 * probe above the edge is dropped, not carried into a probe below it),
 * and every request sent is judged. goodput = good / requests; the probe
 * passes when it holds the phase's "goodput". Cancelled requests are not
 * finished ones (inference.requests): they are counted in
 * inference.edge_cancelled and in the probe.
 *
 * Every probe, as its slot ends, goes into the store document "edge" (all
 * the run's edge phases), so a resumed run continues the search from its
 * probes (the slot the controller was down in is lost, and the search
 * waits for the next slot), and reuses a concluded search's edge for the
 * later phases instead of searching again.
 */
#include "inference_int.h"
#include "timeline.h"

#define EDGE_DOC "edge"

/* ---- the schema's part: can the section take an edge phase? ---------- */

void inf_edge_check(const cJSON *cfg, struct gl_edge_spec *e, struct gl_diag *d, const cJSON *at, const char *path)
{
	const cJSON *slo = cJSON_GetObjectItemCaseSensitive(cfg, "slo");
	struct gl_inference_opts o;
	double ttft = gl_cfg_num(slo, "ttft_ms", -1), tpot = gl_cfg_num(slo, "tpot_ms", -1);

	memset(&o, 0, sizeof(o));
	gl_inference_opts_read(cfg, &o);
	if (o.mode != GL_INF_POISSON && o.mode != GL_INF_CONSTANT && o.mode != GL_INF_GAMMA)
		gl_diag_error(d, at, path,
			      "an edge phase sets the inference arrival rate: it needs arrival.mode constant, poisson "
			      "or gamma (trace replay keeps the trace's times, a closed loop sets no rate)");
	if (!(ttft > 0))
		gl_diag_error(
			d, at, path,
			"an edge phase judges each probe by its goodput against workloads.inference.slo: it needs "
			"slo.ttft_ms (a request past it without a first token is decided late)");
	if (cJSON_GetObjectItemCaseSensitive(cfg, "agents"))
		gl_diag_error(d, at, path,
			      "an edge phase runs its probes in the controller's process: workloads.inference with "
			      "\"agents\" cannot take one");
	if (!e->settle_given && ttft > 0) {
		/* the SLO's whole budget: a request sent as the sending ends is
		 * decided by the slot's end */
		double ms = ttft + (tpot > 0 && o.output_tokens > 1 ? tpot * (double)(o.output_tokens - 1) : 0);
		e->settle_ns = (int64_t)ceil(ms) * 1000000;
	}
}

/* ---- a search, as recorded ------------------------------------------------ */

void inf_edge_search_init(struct inf_edge_search *s, const struct gl_scenario *sc, int phase, double scale)
{
	const struct gl_phase *ph = &sc->phases[phase];

	memset(s, 0, sizeof(*s));
	s->phase = phase;
	s->plan.from = ph->edge.from;
	s->plan.to = ph->edge.to;
	s->plan.factor = ph->edge.factor;
	s->plan.goodput = ph->edge.goodput;
	s->slots = ph->edge.slots;
	s->slot_ns = ph->edge.slot_ns;
	s->settle_ns = ph->edge.settle_ns;
	s->start_ns = gl_timeline_real_ns(ph->start_ns, scale);
	s->res.edge = s->res.lo = s->res.hi = -1;
}

static void steps_of(const struct inf_edge_search *s, struct gl_edge_step *h)
{
	for (int i = 0; i < s->n; i++)
		h[i] = (struct gl_edge_step){ s->p[i].rate, s->p[i].pass, s->p[i].lost };
}

double inf_edge_next_rate(const struct inf_edge_search *s)
{
	struct gl_edge_step h[GL_EDGE_MAX_PROBES];

	steps_of(s, h);
	return gl_edge_next_rate(&s->plan, h, s->n);
}

void inf_edge_conclude(struct inf_edge_search *s)
{
	struct gl_edge_step h[GL_EDGE_MAX_PROBES];

	steps_of(s, h);
	gl_edge_conclude(&s->plan, h, s->n, &s->res);
	s->done = 1;
}

/* The rate a phase at fraction f of this search's edge runs at. */
double inf_edge_fraction_rate(const struct inf_edge_search *s, double f)
{
	return gl_edge_fraction_rate(&s->plan, &s->res, f);
}

static cJSON *probe_json(const struct inf_edge_probe *p)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "slot", p->slot);
	cJSON_AddNumberToObject(o, "rate", p->rate);
	cJSON_AddNumberToObject(o, "start_s", (double)p->t0 / 1e9);
	cJSON_AddBoolToObject(o, "lost", p->lost);
	cJSON_AddNumberToObject(o, "requests", (double)p->requests);
	cJSON_AddNumberToObject(o, "good", (double)p->good);
	cJSON_AddNumberToObject(o, "slow", (double)p->slow);
	cJSON_AddNumberToObject(o, "errors", (double)p->errors);
	cJSON_AddNumberToObject(o, "late", (double)p->late);
	if (p->lost || p->requests == 0)
		cJSON_AddNullToObject(o, "goodput");
	else
		cJSON_AddNumberToObject(o, "goodput", (double)p->good / (double)p->requests);
	if (p->lost)
		cJSON_AddNullToObject(o, "pass");
	else
		cJSON_AddBoolToObject(o, "pass", p->pass);
	return o;
}

static void add_num_or_null(cJSON *o, const char *k, double v)
{
	if (v >= 0)
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

/* What the search concluded, in a sentence (the document's "note" and
 * the run's event). */
void inf_edge_note(const struct inf_edge_search *s, char *buf, size_t n)
{
	const struct gl_edge_result *r = &s->res;
	char g[40];

	snprintf(g, sizeof(g), "%s %g", gl_cmp_str(s->plan.goodput.op), s->plan.goodput.threshold);
	switch (r->outcome) {
	case GL_EDGE_FOUND:
		snprintf(buf, n,
			 "the edge is %.4g req/s: the highest rate whose probe held goodput %s; the first that failed "
			 "%.4g req/s (bracket %.4g req/s wide, %.2g %% of the edge), %d probe(s)",
			 r->edge, g, r->hi, r->hi - r->lo, 100 * (r->hi - r->lo) / r->lo, r->probes);
		break;
	case GL_EDGE_AT_TO:
		snprintf(buf, n,
			 "goodput %s held up to \"to\" (%g req/s): the edge is at least that, the highest rate "
			 "asked; %d probe(s)",
			 g, s->plan.to, r->probes);
		break;
	case GL_EDGE_BELOW_FROM:
		snprintf(buf, n,
			 "no rate held goodput %s, not even \"from\" (%g req/s): no edge was found (it lies below "
			 "what was asked); a missing figure is a failed gate; phases at a fraction of the edge run at "
			 "\"from\"",
			 g, s->plan.from);
		break;
	case GL_EDGE_UNBRACKETED:
		snprintf(buf, n,
			 "every probe held goodput %s, the last at %.4g req/s, but the phase ran out of probes before "
			 "a rate failed or \"to\" (%g req/s) was reached: the edge is at least %.4g req/s, its "
			 "precision unknown (a failed gate); a longer phase or a shorter probe would bracket it",
			 g, r->edge, s->plan.to, r->edge);
		break;
	default: snprintf(buf, n, "no probe was judged: no edge was measured (a failed gate)");
	}
}

static cJSON *search_json(const struct gl_scenario *sc, const cJSON *cfg, const struct inf_edge_search *s)
{
	const struct gl_phase *ph = &sc->phases[s->phase];
	const cJSON *slo = cJSON_GetObjectItemCaseSensitive(cfg, "slo");
	cJSON *o = cJSON_CreateObject(), *arr;
	char note[600];

	cJSON_AddNumberToObject(o, "phase", s->phase);
	cJSON_AddStringToObject(o, "phase_name", ph->name);
	cJSON_AddStringToObject(o, "workload", "inference");
	cJSON_AddNumberToObject(o, "from", s->plan.from);
	cJSON_AddNumberToObject(o, "to", s->plan.to);
	cJSON_AddNumberToObject(o, "factor", s->plan.factor);
	cJSON_AddStringToObject(o, "goodput", ph->edge.goodput_text);
	cJSON_AddItemToObject(o, "slo", slo ? cJSON_Duplicate(slo, 1) : cJSON_CreateNull());
	cJSON_AddNumberToObject(o, "slots", s->slots);
	cJSON_AddNumberToObject(o, "slot_s", (double)s->slot_ns / 1e9);
	cJSON_AddNumberToObject(o, "settle_s", (double)s->settle_ns / 1e9);
	arr = cJSON_AddArrayToObject(o, "probes");
	for (int i = 0; i < s->n; i++)
		cJSON_AddItemToArray(arr, probe_json(&s->p[i]));
	cJSON_AddBoolToObject(o, "done", s->done);
	if (!s->done) {
		cJSON_AddNullToObject(o, "outcome");
		cJSON_AddNullToObject(o, "edge_rps");
		cJSON_AddNullToObject(o, "low_rps");
		cJSON_AddNullToObject(o, "high_rps");
		cJSON_AddNullToObject(o, "width_rps");
		cJSON_AddNullToObject(o, "precision");
		cJSON_AddFalseToObject(o, "pass");
		cJSON_AddStringToObject(o, "note", "searching");
	} else {
		const struct gl_edge_result *r = &s->res;
		int both = r->lo > 0 && r->hi > 0;
		cJSON_AddStringToObject(o, "outcome", gl_edge_outcome_name(r->outcome));
		add_num_or_null(o, "edge_rps", r->edge);
		add_num_or_null(o, "low_rps", r->lo);
		add_num_or_null(o, "high_rps", r->hi);
		add_num_or_null(o, "width_rps", both ? r->hi - r->lo : -1);
		add_num_or_null(o, "precision", both ? (r->hi - r->lo) / r->lo : -1);
		cJSON_AddBoolToObject(o, "pass", r->pass);
		inf_edge_note(s, note, sizeof(note));
		cJSON_AddStringToObject(o, "note", note);
	}
	/* the later phases at a fraction of it, and the rate each runs at */
	arr = cJSON_AddArrayToObject(o, "fractions");
	for (int i = 0; s->done && i < sc->n_phases; i++) {
		const struct gl_phase *q = &sc->phases[i];
		cJSON *x;
		if (!(q->edge_fraction > 0) || q->edge_of != s->phase)
			continue;
		x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "phase", i);
		cJSON_AddStringToObject(x, "phase_name", q->name);
		cJSON_AddNumberToObject(x, "fraction", q->edge_fraction);
		cJSON_AddNumberToObject(x, "rate_rps", inf_edge_fraction_rate(s, q->edge_fraction));
		cJSON_AddBoolToObject(x, "at_from", !(s->res.edge > 0));
		cJSON_AddItemToArray(arr, x);
	}
	return o;
}

/* The store document: every search of the run. */
int inf_edge_doc_put(struct gl_ctx *c, const cJSON *cfg, const struct inf_edge_search *all, int n)
{
	const struct gl_scenario *sc = gl_ctx_scenario(c);
	cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "searches");
	struct gl_err err = { 0 };
	char *text;
	int rc = -1;

	for (int i = 0; arr && i < n; i++)
		cJSON_AddItemToArray(arr, search_json(sc, cfg, &all[i]));
	text = cJSON_PrintUnformatted(doc);
	if (text && (rc = gl_store_doc_put(gl_ctx_store(c), EDGE_DOC, text, &err)) != 0)
		gl_ctx_event(c, GL_LOG_ERROR, "edge", "the edge search is not recorded in the store: %s", err.msg);
	cJSON_free(text);
	cJSON_Delete(doc);
	return rc;
}

static int64_t num_ns(const cJSON *o, const char *k)
{
	return (int64_t)llround(gl_cfg_num(o, k, 0) * 1e9);
}

/* The probes the store holds for the searches all[0..n) (a resumed run):
 * each search by its phase, taken only when its settings are the ones in
 * force (the same scenario, the same time scale). */
void inf_edge_doc_get(struct gl_ctx *c, struct inf_edge_search *all, int n)
{
	struct gl_err err = { 0 };
	char *text = NULL;
	const cJSON *x;
	cJSON *doc;

	if (gl_store_doc_get(gl_ctx_store(c), EDGE_DOC, &text, &err) != 0 || !text)
		return;
	doc = cJSON_Parse(text);
	free(text);
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(doc, "searches"))
	{
		struct inf_edge_search *s = NULL;
		const cJSON *p;
		for (int i = 0; i < n && !s; i++)
			if (all[i].phase == (int)gl_cfg_num(x, "phase", -1))
				s = &all[i];
		if (!s || (int)gl_cfg_num(x, "slots", -1) != s->slots || llabs(num_ns(x, "slot_s") - s->slot_ns) > 1000)
			continue;
		s->n = 0;
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(x, "probes"))
		{
			struct inf_edge_probe *q;
			if (s->n >= GL_EDGE_MAX_PROBES)
				break;
			q = &s->p[s->n++];
			memset(q, 0, sizeof(*q));
			q->slot = (int)gl_cfg_num(p, "slot", 0);
			q->rate = gl_cfg_num(p, "rate", 0);
			q->t0 = num_ns(p, "start_s");
			q->lost = gl_cfg_bool(p, "lost", 0);
			q->pass = gl_cfg_bool(p, "pass", 0);
			q->requests = (int64_t)gl_cfg_num(p, "requests", 0);
			q->good = (int64_t)gl_cfg_num(p, "good", 0);
			q->slow = (int64_t)gl_cfg_num(p, "slow", 0);
			q->errors = (int64_t)gl_cfg_num(p, "errors", 0);
			q->late = (int64_t)gl_cfg_num(p, "late", 0);
		}
		if (gl_cfg_bool(x, "done", 0))
			inf_edge_conclude(s);
	}
	cJSON_Delete(doc);
}

/* ---- the run: probes ------------------------------------------------------- */

enum edge_next { EN_NONE, EN_SLOT, EN_SEND_END, EN_SLOT_END };

struct inf_edge {
	struct inf *w;
	const cJSON *cfg;
	struct inf_edge_search *s; /* one per edge phase, in phase order */
	int n;
	struct inf_edge_search *cur; /* the phase in force is its edge phase */
	struct inf_edge_probe *open; /* the probe of the slot in progress */
	int next_slot; /* EN_SLOT: the slot it starts */
	enum edge_next next;
	struct event *ev;
	int id_cancelled;
	int64_t ttft_ns, tpot_ns, out_tokens;
	int phase_seen; /* the phase the last set_load was for, -1 none */
};

static struct inf_edge_search *search_of(struct inf_edge *E, int phase)
{
	for (int i = 0; i < E->n; i++)
		if (E->s[i].phase == phase)
			return &E->s[i];
	return NULL;
}

static int64_t slot_start(const struct inf_edge_search *s, int k)
{
	return s->start_ns + (int64_t)k * s->slot_ns;
}

/* The open-loop schedule at rate from now on (or from at_ns when later). */
static void arrivals_at(struct inf *w, double rate, int64_t at_ns)
{
	int64_t now = inf_now_ns(w);

	w->load = rate / w->rate;
	w->next_arrival = at_ns > now ? at_ns : now;
	inf_arm_arrival(w);
}

static void arm(struct inf_edge *E, enum edge_next what, int64_t at_ns)
{
	E->next = what;
	gl_ctx_arm_at(E->w->ctx, E->ev, at_ns);
}

static int in_probe(const struct inf_edge_probe *p, int64_t t_intended)
{
	return p && t_intended >= p->t0 && t_intended < p->t_send_end;
}

void inf_edge_done(struct inf *w, const struct req *r, int failed, int good)
{
	struct inf_edge_probe *p = w->edge ? w->edge->open : NULL;

	if (!in_probe(p, r->t_intended))
		return;
	p->requests++;
	if (good)
		p->good++;
	else if (failed)
		p->errors++;
	else
		p->slow++;
}

/* Is r past its SLO at now: no first token within the TTFT budget, a
 * late first token, or (with tpot_ms) past its whole budget? */
static int past_slo(const struct inf_edge *E, const struct req *r, int64_t now)
{
	if (r->t_first_token < 0)
		return now - r->t_intended > E->ttft_ns;
	if (r->t_first_token - r->t_intended > E->ttft_ns)
		return 1;
	return E->tpot_ns > 0 && now - r->t_intended > E->ttft_ns + (E->out_tokens - 1) * E->tpot_ns;
}

/* Did r meet the SLO as far as it went? (its first token in time, and
 * with tpot_ms its gaps so far) */
static int on_time_so_far(const struct inf_edge *E, const struct req *r)
{
	if (r->t_first_token < 0 || r->t_first_token - r->t_intended > E->ttft_ns)
		return 0;
	if (E->tpot_ns <= 0 || r->token_events < 2)
		return 1;
	return (r->t_last_token - r->t_first_token) / (r->token_events - 1) <= E->tpot_ns;
}

/* Cancel the probe's requests in flight, and drop those held by
 * max_in_flight: all of them (at_end), or those past the SLO. Each is
 * judged (late, or good when on time so far at the end). */
static void cancel_probe(struct inf_edge *E, int at_end)
{
	struct inf *w = E->w;
	struct inf_edge_probe *p = E->open;
	int64_t now = inf_now_ns(w), n = 0;
	struct req *r, *next;
	size_t keep = 0;

	for (r = w->live; r; r = next) {
		next = r->next;
		if (!in_probe(p, r->t_intended) || (!at_end && !past_slo(E, r, now)))
			continue;
		p->requests++;
		if (at_end && on_time_so_far(E, r))
			p->good++;
		else
			p->late++;
		inf_req_cancel(w, r);
		n++;
	}
	/* held ones: in intended order, the oldest first */
	for (size_t i = 0; i < w->q_len; i++) {
		struct pending q = w->q[(w->q_head + i) % w->q_cap];
		if (in_probe(p, q.t_intended) && (at_end || now - q.t_intended > E->ttft_ns)) {
			p->requests++;
			p->late++;
			n++;
			continue;
		}
		w->q[(w->q_head + keep++) % w->q_cap] = q;
	}
	w->q_len = keep;
	if (n > 0)
		gl_metrics_add(w->m, E->id_cancelled, n);
}

static void conclude(struct inf_edge *E, struct inf_edge_search *s);

/* The probe of slot k: the search's next rate, or the search is over. */
static void start_probe(struct inf_edge *E, int k)
{
	struct inf_edge_search *s = E->cur;
	struct inf_edge_probe *p;
	double rate;

	if (k >= s->slots || s->n >= GL_EDGE_MAX_PROBES) {
		conclude(E, s);
		return;
	}
	rate = inf_edge_next_rate(s);
	if (rate <= 0) {
		/* nothing left to ask: the rest of the phase runs at the rate
		 * the search ended at (`from` failed: from; `to` held: to) */
		conclude(E, s);
		arrivals_at(E->w, s->res.outcome == GL_EDGE_AT_TO ? s->plan.to : s->plan.from, 0);
		gl_ctx_event(E->w->ctx, GL_LOG_INFO, "edge",
			     "edge '%s': nothing left to ask after %d probe(s): the rest of the phase runs at %g/s",
			     gl_ctx_scenario(E->w->ctx)->phases[s->phase].name, s->n, E->w->rate * E->w->load);
		return;
	}
	p = E->open = &s->p[s->n];
	memset(p, 0, sizeof(*p));
	p->slot = k;
	p->rate = rate;
	p->t0 = slot_start(s, k);
	p->t_send_end = p->t0 + s->slot_ns - s->settle_ns;
	p->t1 = p->t0 + s->slot_ns;
	arrivals_at(E->w, rate, p->t0);
	arm(E, EN_SEND_END, p->t_send_end);
}

/* A slot's end: the probe judged, recorded, told; then the next. */
static void close_probe(struct inf_edge *E)
{
	struct inf_edge_search *s = E->cur;
	struct inf_edge_probe *p = E->open;
	const char *name = gl_ctx_scenario(E->w->ctx)->phases[s->phase].name;

	cancel_probe(E, 1);
	E->open = NULL;
	p->pass = gl_edge_probe_passes(&s->plan, p->good, p->requests);
	s->n++;
	inf_edge_doc_put(E->w->ctx, E->cfg, E->s, E->n);
	gl_ctx_event(E->w->ctx, GL_LOG_INFO, "edge",
		     "edge '%s': probe %d of %d at %.4g/s: goodput %.3f (%" PRId64 " of %" PRId64
		     " within the SLO; %" PRId64 " late, %" PRId64 " slow, %" PRId64 " errors): %s",
		     name, p->slot + 1, s->slots, p->rate, p->requests ? (double)p->good / (double)p->requests : 0,
		     p->good, p->requests, p->late, p->slow, p->errors, p->pass ? "holds" : "fails");
}

static void on_edge(evutil_socket_t fd, short what, void *arg)
{
	struct inf_edge *E = arg;
	enum edge_next next = E->next;

	E->next = EN_NONE;
	if (!E->cur || !E->w->running)
		return;
	switch (next) {
	case EN_SLOT: start_probe(E, E->next_slot); break;
	case EN_SEND_END:
		evtimer_del(E->w->ev_arrival); /* the settle: nothing sent */
		cancel_probe(E, 0);
		arm(E, EN_SLOT_END, E->open->t1);
		break;
	case EN_SLOT_END: {
		int k = E->open->slot + 1;
		close_probe(E);
		start_probe(E, k);
		break;
	}
	default: break;
	}
}

/* The search is over (its slots ran out, nothing left to ask, the phase
 * ended, the run stopped): concluded, recorded, told. */
static void conclude(struct inf_edge *E, struct inf_edge_search *s)
{
	char note[600];
	int was_done = s->done;

	inf_edge_conclude(s);
	if (was_done)
		return;
	inf_edge_doc_put(E->w->ctx, E->cfg, E->s, E->n);
	inf_edge_note(s, note, sizeof(note));
	gl_ctx_event(E->w->ctx, s->res.pass ? GL_LOG_INFO : GL_LOG_WARN, "edge", "edge '%s': %s",
		     gl_ctx_scenario(E->w->ctx)->phases[s->phase].name, note);
}

/* Leave the edge phase: the open probe judged as it stands, the search
 * concluded. */
static void end_search(struct inf_edge *E)
{
	struct inf_edge_search *s = E->cur;

	if (!s)
		return;
	evtimer_del(E->ev);
	E->next = EN_NONE;
	if (E->open)
		close_probe(E);
	conclude(E, s);
	E->cur = NULL;
}

/* Enter edge phase s now: at the start of a slot (within a twentieth of
 * it) its probe starts; otherwise (a resumed run) the slots it missed are
 * lost and the search waits, sending nothing, for the next. */
static void begin_search(struct inf_edge *E, struct inf_edge_search *s)
{
	int64_t now = inf_now_ns(E->w);
	int k = s->slot_ns > 0 ? (int)((now - s->start_ns) / s->slot_ns) : 0, first = 0;

	E->cur = s;
	if (s->done) { /* concluded before a resume: hold what it ended at */
		arrivals_at(E->w, s->res.edge > 0 ? s->res.edge : s->plan.from, 0);
		return;
	}
	if (k < 0)
		k = 0;
	for (int i = 0; i < s->n; i++)
		if (s->p[i].slot >= first)
			first = s->p[i].slot + 1;
	if (now - slot_start(s, k) > s->slot_ns / 20)
		k++;
	for (int j = first; j < k && j < s->slots && s->n < GL_EDGE_MAX_PROBES; j++) {
		struct inf_edge_probe *p = &s->p[s->n++];
		memset(p, 0, sizeof(*p));
		p->slot = j;
		p->lost = 1;
		p->t0 = slot_start(s, j);
		gl_ctx_event(E->w->ctx, GL_LOG_WARN, "edge",
			     "edge '%s': probe slot %d of %d lost (the controller was down): the search goes on "
			     "with the next",
			     gl_ctx_scenario(E->w->ctx)->phases[s->phase].name, j + 1, s->slots);
	}
	if (k > first)
		inf_edge_doc_put(E->w->ctx, E->cfg, E->s, E->n);
	if (k >= s->slots) {
		conclude(E, s);
		return;
	}
	if (slot_start(s, k) <= now + 1000000) {
		start_probe(E, k);
		return;
	}
	evtimer_del(E->w->ev_arrival);
	E->next_slot = k;
	arm(E, EN_SLOT, slot_start(s, k));
}

/* A phase at a fraction of an edge: its rate from the search (concluded
 * here when a resume finds it unfinished). */
static void run_fraction(struct inf_edge *E, const struct gl_phase *ph)
{
	struct inf_edge_search *s = search_of(E, ph->edge_of);
	const char *edge_name = gl_ctx_scenario(E->w->ctx)->phases[ph->edge_of].name;
	double rate;

	if (!s)
		return;
	if (!s->done) {
		E->cur = s;
		conclude(E, s);
		E->cur = NULL;
	}
	rate = inf_edge_fraction_rate(s, ph->edge_fraction);
	arrivals_at(E->w, rate, 0);
	if (s->res.edge > 0 && !s->res.pass)
		gl_ctx_event(E->w->ctx, GL_LOG_WARN, "edge",
			     "phase '%s': inference at %g x %.4g req/s, the lower bound phase '%s' found (%s: no "
			     "edge measured, the verdict fails on it): %.4g req/s",
			     ph->name, ph->edge_fraction, s->res.edge, edge_name, gl_edge_outcome_name(s->res.outcome),
			     rate);
	else if (s->res.edge > 0)
		gl_ctx_event(E->w->ctx, GL_LOG_INFO, "edge",
			     "phase '%s': inference at %g x the edge %.4g req/s that phase '%s' found: %.4g req/s",
			     ph->name, ph->edge_fraction, s->res.edge, edge_name, rate);
	else
		gl_ctx_event(E->w->ctx, GL_LOG_WARN, "edge",
			     "phase '%s': phase '%s' found no edge (%s), so no %g x edge exists: inference runs at "
			     "\"from\" (%g req/s), not at a made-up rate, and the verdict fails on the missing edge",
			     ph->name, edge_name, gl_edge_outcome_name(s->res.outcome), ph->edge_fraction, rate);
}

void inf_edge_phase(struct inf *w)
{
	struct inf_edge *E = w->edge;
	const struct gl_scenario *sc;
	const struct gl_phase *ph;
	int p, was;

	if (!E || !w->running)
		return;
	sc = gl_ctx_scenario(w->ctx);
	p = gl_ctx_phase(w->ctx);
	if (p < 0 || p >= sc->n_phases)
		return;
	was = E->phase_seen;
	E->phase_seen = p;
	ph = &sc->phases[p];
	if (E->cur && E->cur->phase != p)
		end_search(E);
	if (ph->kind == GL_PHASE_EDGE) {
		struct inf_edge_search *s = search_of(E, p);
		if (s && E->cur != s)
			begin_search(E, s);
	} else if (ph->edge_fraction > 0 && ph->edge_of >= 0) {
		if (was != p)
			run_fraction(E, ph);
	} else if (was >= 0 && was != p &&
		   (sc->phases[was].kind == GL_PHASE_EDGE || sc->phases[was].edge_fraction > 0)) {
		/* back to the section's rate times the phase's load (set_load
		 * set it): from now, not after the gap the last rate drew */
		arrivals_at(w, w->rate * w->load, 0);
	}
}

int inf_edge_init(struct inf *w, const cJSON *cfg, struct gl_err *err)
{
	const struct gl_scenario *sc = gl_ctx_scenario(w->ctx);
	const cJSON *slo = cJSON_GetObjectItemCaseSensitive(cfg, "slo");
	struct inf_edge *E;
	int n = 0;

	for (int i = 0; i < sc->n_phases; i++)
		n += sc->phases[i].kind == GL_PHASE_EDGE;
	if (n == 0)
		return 0;
	if (!(E = calloc(1, sizeof(*E))) || !(E->s = calloc((size_t)n, sizeof(*E->s))) ||
	    !(E->ev = evtimer_new(gl_ctx_base(w->ctx), on_edge, E))) {
		if (E)
			free(E->s);
		free(E);
		return gl_errf(err, GL_ENOMEM, "inference: out of memory");
	}
	E->w = w;
	E->cfg = cfg;
	E->phase_seen = -1;
	E->ttft_ns = (int64_t)llround(gl_cfg_num(slo, "ttft_ms", 0) * 1e6);
	E->tpot_ns = (int64_t)llround(gl_cfg_num(slo, "tpot_ms", -1) * 1e6);
	E->out_tokens = w->o.output_tokens;
	E->id_cancelled = gl_metrics_counter(w->m, "inference.edge_cancelled");
	for (int i = 0; i < sc->n_phases; i++)
		if (sc->phases[i].kind == GL_PHASE_EDGE)
			inf_edge_search_init(&E->s[E->n++], sc, i, gl_ctx_time_scale(w->ctx));
	inf_edge_doc_get(w->ctx, E->s, E->n);
	w->edge = E;
	return 0;
}

void inf_edge_stop(struct inf *w)
{
	if (w->edge && w->edge->cur)
		end_search(w->edge);
}

void inf_edge_free(struct inf *w)
{
	if (!w->edge)
		return;
	if (w->edge->ev)
		event_free(w->edge->ev);
	free(w->edge->s);
	free(w->edge);
	w->edge = NULL;
}
