/*
 * sim_models.c - the world `gauntlet simulate` puts in place of the
 * cluster, and the ops the controller runs in place of the workloads and
 * fault kinds (sim.h; docs/simulation.md says the same for operators):
 * each workload's model is its plug-in's (its ops' sim,
 * loadgen/<workload>_sim.c), each fault kind's effect its ops' sim. A
 * model is deterministic for its seed and keeps the truth of what it
 * produced, which sim.c checks the run's store against.
 *
 * The world runs on the virtual monotonic clock and outlives a simulated
 * controller crash: faults injected stay in, a training job dies with its
 * launcher (the controller) and is relaunched from its last checkpoint by
 * the resumed controller, and no load is generated while the controller
 * is down (the load generators live in it).
 *
 * What each model does: its file (loadgen/<workload>_sim.c,
 * faults/sim_effects.c); docs/simulation.md lists them for operators.
 */
#define _GNU_SOURCE
#include "controller_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "sim.h"
#include "sim_model.h"
#include "units.h"

#define TTFT_BUCKETS 20000 /* truth buckets: 0.1 % wide, 1 us .. 1e5 s */

/* ---- seeded randomness ----------------------------------------------------- */

uint64_t sim_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double sim_unit(uint64_t *s)
{
	return ((double)(sim_rand(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* A standard normal draw: the quantile at a uniform 1/4096 step, from a
 * table built once (Acklam's rational approximation of the inverse normal
 * CDF, relative error < 1.2e-9). A discrete normal cut at +-3.6 sigma is
 * all the models need, and a table lookup keeps a week's requests cheap. */
#define NORMAL_LEVELS 4096

static double inv_normal(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
				    1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
				    6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
				    -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
				    3.754408661907416e+00 };
	double q, r;

	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		       ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	if (p > 1 - 0.02425)
		return -inv_normal(1 - p);
	q = p - 0.5;
	r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double sim_normal(uint64_t *s)
{
	static double table[NORMAL_LEVELS];
	static int built;

	if (!built) {
		for (int i = 0; i < NORMAL_LEVELS; i++)
			table[i] = inv_normal((i + 0.5) / NORMAL_LEVELS);
		built = 1;
	}
	return table[sim_rand(s) >> 52];
}

/* ---- the truth of a distribution: log buckets of its own ------------------- */

static int tq_init(struct sim_truth_q *t, double lo)
{
	t->b = calloc(TTFT_BUCKETS, sizeof(*t->b));
	t->n = 0;
	t->lo = lo;
	return t->b ? 0 : -1;
}

static void tq_add(struct sim_truth_q *t, double v, uint64_t n)
{
	long k = v <= t->lo ? 0 : lround(log(v / t->lo) / log(1.001));
	if (k >= TTFT_BUCKETS)
		k = TTFT_BUCKETS - 1;
	t->b[k] += n;
	t->n += n;
}

static double tq_quantile(const struct sim_truth_q *t, double q)
{
	uint64_t want, acc = 0;

	if (!t->n)
		return -1;
	want = (uint64_t)ceil(q * (double)t->n);
	if (want < 1)
		want = 1;
	for (long k = 0; k < TTFT_BUCKETS; k++) {
		acc += t->b[k];
		if (acc >= want)
			return t->lo * pow(1.001, (double)k);
	}
	return t->lo * pow(1.001, TTFT_BUCKETS - 1);
}

/* ---- the world --------------------------------------------------------------- */

static struct sim_world *world;

void sim_world_set(struct sim_world *w)
{
	world = w;
}
void sim_world_time(struct sim_world *w, int64_t now)
{
	w->now = now;
}
const struct sim_truth *sim_world_truth(const struct sim_world *w)
{
	return &w->truth;
}

double sim_world_quantile(const struct sim_world *w, int which, double q)
{
	return which >= 0 && which < w->truth.n_q ? tq_quantile(&w->q[which], q) : -1;
}

int sim_world_fault(const struct sim_world *w, const char *id, int *injects, int *reverts, int *active)
{
	for (int i = 0; i < w->n_faults; i++)
		if (!strcmp(w->faults[i].id, id)) {
			*injects = w->faults[i].injects;
			*reverts = w->faults[i].reverts;
			*active = w->faults[i].active;
			return 0;
		}
	return -1;
}

static int truth_slot(struct sim_world *w, int64_t idx)
{
	struct sim_truth *t = &w->truth;

	if (idx < 0)
		return -1;
	if (idx >= t->n_windows) {
		int64_t n = t->n_windows ? t->n_windows : 1024;
		while (n <= idx)
			n *= 2;
		for (int k = 0; k < t->n; k++) {
			int64_t *p = realloc(t->per[k], (size_t)n * sizeof(int64_t));
			if (!p)
				return -1;
			memset(p + t->n_windows, 0, (size_t)(n - t->n_windows) * sizeof(int64_t));
			t->per[k] = p;
		}
		t->n_windows = n;
	}
	return 0;
}

int sim_truth_counter(struct sim_world *w, const char *metric)
{
	struct sim_truth *t = &w->truth;

	if (t->n == SIM_TRUTH_MAX)
		return -1;
	t->metric[t->n] = metric;
	return t->n++;
}

void sim_truth_add(struct sim_world *w, int slot, int64_t idx, int64_t n)
{
	if (idx >= 0)
		w->truth.per[slot][idx] += n;
	w->truth.tot[slot] += n;
}

int sim_truth_quantile(struct sim_world *w, const char *workload, const char *figure, double lo)
{
	struct sim_truth *t = &w->truth;

	if (t->n_q == SIM_TRUTH_Q || tq_init(&w->q[t->n_q], lo))
		return -1;
	t->q_workload[t->n_q] = workload;
	t->q_figure[t->n_q] = figure;
	return t->n_q++;
}

void sim_truth_draw(struct sim_world *w, int slot, double v)
{
	tq_add(&w->q[slot], v, 1);
}

double sim_num(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

int64_t sim_dur(const cJSON *o, const char *k, int64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	int64_t ns;
	struct gl_err e = { 0 };
	return cJSON_IsString(v) && gl_parse_duration_ns(v->valuestring, &ns, &e) == 0 ? ns : dflt;
}

double sim_size(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	uint64_t b;
	struct gl_err e = { 0 };
	if (cJSON_IsNumber(v))
		return v->valuedouble;
	return cJSON_IsString(v) && gl_parse_size_bytes(v->valuestring, &b, &e) == 0 ? (double)b : dflt;
}

int sim_serving_node(const struct sim_world *w, const char *host)
{
	for (int i = 0; i < w->n_nodes; i++)
		if (!strcmp(w->nodes[i], host))
			return i;
	return -1;
}

int sim_training_host(const struct sim_world *w, const char *host)
{
	for (int i = 0; i < w->n_tr_hosts; i++)
		if (!strcmp(w->tr_hosts[i], host))
			return 1;
	return 0;
}

/* Each registered workload in the scenario that has a model sets up its
 * part (in the registry's order: the order the truth is checked in). */
static int setup_workloads(struct sim_world *w, const struct gl_scenario *sc)
{
	const struct gl_workload_ops *o;

	for (size_t i = 0; (o = gl_workload_at(i)); i++) {
		const struct gl_workload_spec *ws = gl_scenario_workload(sc, o->name);
		if (ws && o->sim && o->sim->setup(w, sc, ws->cfg) != 0)
			return -1;
	}
	return 0;
}

/* Each scheduled fault's place in the world: its target's serving node
 * and training hosts, and what its kind's sim says it does. */
static void setup_faults(struct sim_world *w, const struct gl_scenario *sc)
{
	for (int i = 0; i < sc->n_faults && i < SIM_FAULTS; i++) {
		struct sim_fault *f = &w->faults[w->n_faults++];
		const struct gl_fault_spec *s = &sc->faults[i];
		const struct gl_fault_ops *ops = gl_fault_find(s->kind);

		snprintf(f->id, sizeof(f->id), "%s", s->id);
		snprintf(f->kind, sizeof(f->kind), "%s", s->kind);
		snprintf(f->target, sizeof(f->target), "%s", s->target);
		f->rev_t = -1;
		f->node = sim_serving_node(w, s->target);
		f->training = sim_training_host(w, s->target);
		f->fx = FX_NONE;
		if (ops && ops->sim)
			ops->sim(f, w, s);
	}
}

struct sim_world *sim_world_new(const struct gl_scenario *sc, uint64_t seed)
{
	struct sim_world *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->rng = seed * 0x2545f4914f6cdd1dULL + 1;
	w->inf_last = w->tr_last = w->sto_last = w->tel_last = w->nul_last = -1;
	if (setup_workloads(w, sc) != 0) {
		sim_world_free(w);
		return NULL;
	}
	setup_faults(w, sc);
	return w;
}

void sim_world_free(struct sim_world *w)
{
	if (!w)
		return;
	for (int k = 0; k < w->truth.n; k++)
		free(w->truth.per[k]);
	for (int k = 0; k < w->truth.n_q; k++)
		free(w->q[k].b);
	free(w);
}

/* ---- effects at a moment ---------------------------------------------------- */

enum sim_node_state sim_node_state(const struct sim_world *w, int i, int64_t t)
{
	enum sim_node_state st = NODE_UP;

	if (t < w->node_back[i])
		st = t < w->node_failing[i] ? NODE_FAILING : NODE_OUT;
	for (int k = 0; k < w->n_faults; k++) {
		const struct sim_fault *f = &w->faults[k];
		if (!f->active || f->node != i || f->inj_t > t)
			continue;
		if (f->fx == FX_NODE_DOWN && f->drain && st == NODE_UP)
			st = NODE_OUT; /* a drain: evicted gracefully */
		if (f->fx == FX_PARTITION && t >= f->inj_t + 40 * SIM_NS && st == NODE_UP)
			st = NODE_OUT; /* NotReady: its endpoint is removed */
		if (f->fx == FX_FLAP) {
			int64_t per = f->down_ns + f->up_ns, k2 = per > 0 ? (t - f->inj_t) / per : 0;
			if (k2 < f->count && (t - f->inj_t) % (per ? per : 1) < f->down_ns)
				st = NODE_FAILING;
		}
	}
	return st;
}

int sim_any_active(const struct sim_world *w, enum sim_effect fx, int training_only)
{
	for (int k = 0; k < w->n_faults; k++)
		if (w->faults[k].active && w->faults[k].fx == fx && (!training_only || w->faults[k].training))
			return k;
	return -1;
}

/* When a training step running from t0 would be stalled by a link that is
 * down (a flap or a partition on a training host): the end of the stall,
 * else t0. */
int64_t sim_stall_until(const struct sim_world *w, int64_t t0, int64_t t1)
{
	int64_t until = t0;

	for (int k = 0; k < w->n_faults; k++) {
		const struct sim_fault *f = &w->faults[k];
		if (!f->active || !f->training)
			continue;
		if (f->fx == FX_PARTITION && f->inj_t < t1)
			until = INT64_MAX; /* until its revert */
		if (f->fx == FX_FLAP) {
			int64_t per = f->down_ns + f->up_ns;
			for (int j = 0; j < f->count && per > 0; j++) {
				int64_t d0 = f->inj_t + j * per, d1 = d0 + f->down_ns;
				if (d0 < t1 && d1 > until && d0 <= (until > t0 ? until : t1))
					until = d1;
			}
		}
	}
	return until;
}

/* ---- the fault kinds' model ---------------------------------------------------- */

static struct sim_fault *fault_of(const cJSON *plan)
{
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(plan, "id"));

	for (int i = 0; world && id && i < world->n_faults; i++)
		if (!strcmp(world->faults[i].id, id))
			return &world->faults[i];
	return NULL;
}

/* The job ends at t; seen: by a controller that counts it (a job that
 * dies with its controller is ended unseen: the resumed one relaunches it
 * from its checkpoint without having seen the end). */
static void job_end_seen(struct sim_world *w, int64_t t, int seen)
{
	if (!w->tr || !w->job_up)
		return;
	w->job_up = 0;
	if (seen) {
		w->pend_fail++;
		w->pend_lost += w->step_idx - w->ckpt_step;
	}
	w->step_idx = w->ckpt_step;
	w->job_t = t + w->backoff_ns;
}

void sim_job_end(struct sim_world *w, int64_t t)
{
	job_end_seen(w, t, 1);
}

static int sim_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	cJSON *p = cJSON_CreateObject();

	(void)s;
	if (!p || !cJSON_AddStringToObject(p, "id", f->id) || !cJSON_AddStringToObject(p, "kind", f->kind) ||
	    !cJSON_AddStringToObject(p, "target", f->target) || !cJSON_AddBoolToObject(p, "simulated", 1)) {
		cJSON_Delete(p);
		return gl_errf(err, GL_ENOMEM, "out of memory");
	}
	*plan = p;
	return 0;
}

static int sim_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct sim_fault *f = fault_of(plan);
	struct sim_world *w = world;

	if (!f)
		return gl_errf(err, GL_EINVAL, "simulation: no model for this fault");
	/* the figures up to the inject are the state before it */
	ctl_sim_emit(c);
	f->injects++;
	f->active = 1;
	f->inj_t = w->now;
	f->rev_t = -1;
	if (f->fx == FX_JOB_KILL)
		sim_job_end(w, w->now);
	if (f->fx == FX_NODE_DOWN && !f->drain && f->node >= 0) {
		/* a kill: its in-flight requests fail, it is back after 120 s */
		w->node_back[f->node] = w->now + 120 * SIM_NS;
		w->node_failing[f->node] = w->now + 10 * SIM_NS;
		if (w->inf && w->n_nodes)
			w->pend_inf_err += (int64_t)llround(w->rate * w->inf_load / w->n_nodes *
							    (0.12 + 0.025 * (w->out_tokens - 1)));
	}
	return 0;
}

static int sim_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	struct sim_fault *f = fault_of(plan);
	struct sim_world *w = world;

	if (!f)
		return gl_errf(err, GL_EINVAL, "simulation: no model for this fault");
	ctl_sim_emit(c);
	f->reverts++;
	if (f->active && f->fx == FX_NODE_DOWN && f->drain && f->node >= 0)
		w->node_back[f->node] = w->now + 60 * SIM_NS; /* rescheduled, model loaded */
	if (f->active && f->fx == FX_PARTITION && f->training && w->job_up && w->now - f->inj_t > w->watchdog_ns) {
		/* the all-reduce stalled past the watchdog: the job was ended
		 * then; it is relaunched now that the network is back */
		sim_job_end(w, w->now);
	}
	f->active = 0;
	f->rev_t = w->now;
	return 0;
}

static void sim_describe(const cJSON *plan, struct gl_buf *out)
{
	gl_buf_printf(out, "  simulated: %s on %s (no command runs)\n",
		      cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(plan, "kind")),
		      cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(plan, "target")));
}

const struct gl_fault_ops sim_fault_ops = {
	.kind = "simulated",
	.plan = sim_plan,
	.inject = sim_inject,
	.revert = sim_revert,
	.describe = sim_describe,
};

/* ---- the workloads' models ------------------------------------------------------ */

int64_t sim_window(struct sim_wl *s)
{
	int64_t idx = gl_ctx_window(s->c);
	return truth_slot(world, idx) == 0 ? idx : -1;
}

void sim_emit_ticks(struct sim_wl *s, int64_t *last, double *acc, int64_t t1, double rate, double v, uint64_t per_tick)
{
	struct gl_metrics *m = gl_ctx_metrics(s->c);
	int64_t n;

	if (*last < 0 || t1 <= *last)
		return;
	*acc += (double)(t1 - *last) / 1e9 * rate;
	n = (int64_t)*acc;
	*acc -= (double)n;
	*last = t1;
	gl_metrics_add(m, s->id[0], n);
	gl_metrics_record_n(m, s->id[1], v, (uint64_t)n * per_tick);
}

static void wl_emit(struct sim_wl *s)
{
	struct sim_world *w = world;

	if (!w || !w->up)
		return;
	s->model->emit(s, w, w->now);
}

/* The controller's workloads, as sim.c asks them to emit. */
static struct sim_wl *wls[16];
static int n_wls;

void ctl_sim_emit(struct gl_ctx *c)
{
	for (int i = 0; i < n_wls; i++)
		if (wls[i] && wls[i]->c == c)
			wl_emit(wls[i]);
}

static int reg(struct gl_metrics *m, int *id, const char *const *names, int n)
{
	for (int i = 0; i < n; i++) {
		const char *nm = names[i];
		int hist = nm[0] == 'h';
		id[i] = hist ? gl_metrics_hist(m, nm + 2) : gl_metrics_counter(m, nm + 2);
		if (id[i] < 0)
			return -1;
	}
	return 0;
}

static int wl_init(struct gl_ctx *c, const cJSON *cfg, void **state, struct gl_err *err)
{
	struct sim_wl *s = calloc(1, sizeof(*s));
	const struct gl_scenario *sc = gl_ctx_scenario(c);
	const struct gl_workload_ops *o;
	int rc = -1;

	if (!s)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	s->c = c;
	for (int i = 0; i < sc->n_workloads; i++)
		if (sc->workloads[i].cfg == cfg)
			snprintf(s->name, sizeof(s->name), "%s", sc->workloads[i].name);
	o = gl_workload_find(s->name);
	s->model = o ? o->sim : NULL;
	if (s->model) {
		const char *const *names = NULL;
		int n = s->model->metrics(world, &names);
		rc = n >= 0 && n <= (int)GL_ARRAY_LEN(s->id) ? reg(gl_ctx_metrics(c), s->id, names, n) : -1;
	}
	if (rc != 0 || n_wls >= 16) {
		rc = gl_errf(err, GL_EINVAL, "simulation: no model for workload '%s'", s->name);
		free(s);
		return rc;
	}
	wls[n_wls++] = s;
	*state = s;
	return 0;
}

static int wl_start(void *state, struct gl_err *err)
{
	struct sim_wl *s = state;

	(void)err;
	s->model->start(world);
	return 0;
}

static void wl_set_load(void *state, double mult)
{
	struct sim_wl *s = state;

	wl_emit(s);
	s->model->set_load(world, mult);
	if (s->model->set_phase)
		s->model->set_phase(world, s->c);
}

static void wl_stop(void *state)
{
	wl_emit(state);
}

static void wl_free(void *state)
{
	for (int i = 0; i < n_wls; i++)
		if (wls[i] == state)
			wls[i] = wls[--n_wls];
	free(state);
}

/* The run hooks of a registered workload that has a model (set_load only
 * where the model has one), at its index in the registry. */
static struct gl_workload_ops wl_ops[16];

const struct gl_workload_ops *sim_workload_ops(const char *name)
{
	const struct gl_workload_ops *o;

	for (size_t i = 0; (o = gl_workload_at(i)) && i < GL_ARRAY_LEN(wl_ops); i++) {
		if (strcmp(o->name, name) != 0 || !o->sim)
			continue;
		wl_ops[i] = (struct gl_workload_ops){ .name = o->name,
						      .init = wl_init,
						      .start = wl_start,
						      .set_load = o->sim->set_load ? wl_set_load : NULL,
						      .stop = wl_stop,
						      .free = wl_free };
		return &wl_ops[i];
	}
	return NULL;
}

/* The controller dies (its launcher takes the training job with it) or
 * comes back. */
void sim_world_controller(struct sim_world *w, int up)
{
	if (!up && w->up) {
		job_end_seen(w, w->now, 0);
		w->inf_last = w->tr_last = w->sto_last = w->tel_last = w->nul_last = -1;
	}
	w->up = up;
}
