/*
 * sim_models.c - the models `gauntlet simulate` puts in place of the
 * workloads and fault kinds (sim.h; docs/simulation.md says the same for
 * operators). A model is deterministic for its seed and keeps the truth
 * of what it produced, which sim.c checks the run's store against.
 *
 * The world runs on the virtual monotonic clock and outlives a simulated
 * controller crash: faults injected stay in, a training job dies with its
 * launcher (the controller) and is relaunched from its last checkpoint by
 * the resumed controller, and no load is generated while the controller
 * is down (the load generators live in it).
 *
 * Workloads:
 *   inference  open-loop arrivals at the section's rate times the phase's
 *              load, spread over serving nodes (the hosts with "k8s_node",
 *              else one); a node serves up to capacity/n requests/s
 *              (capacity: 4 x the rate). TTFT is log-normal (median
 *              120 ms, sigma 0.3) times 1/(1 - utilisation), TPOT
 *              log-normal (median 25 ms, sigma 0.15); past 95 %
 *              utilisation the excess errors. A node that is down fails
 *              the requests sent to it.
 *   training   ranks from "hosts"; a step is "compute" (default 250 ms)
 *              plus an all-reduce of "message" at 360 GB/s bus bandwidth;
 *              a checkpoint of "checkpoint.size" every "checkpoint.every"
 *              at 5 GB/s; a job that ends is relaunched after
 *              "restart_backoff" (default 5 s) plus 10 s of launch, and
 *              restores its last checkpoint at 5 GB/s (lost steps: those
 *              since it).
 *   storage    writes at 5 GB/s (the device), in "bs" blocks.
 *   telemetry  one scrape per 10 s, 8 GPUs at 60 C.
 *   null       ticks at "rate" (default 100/s), 0.05 ms late.
 * Faults (on the host they target):
 *   drain_worker     a serving node: down until 60 s after the revert (the
 *                    pod is rescheduled and loads the model); a training
 *                    host: none (a Slurm drain lets the job run).
 *   process_kill,    a training host (the pattern names the training
 *   gpu_xid          binary, or any XID): the job ends; a serving node:
 *                    down for 120 s (restart, model load), its in-flight
 *                    requests fail.
 *   link_flap,       "count" times "down" then "up": a training job's steps
 *   fabric_port      stall while the link is down; a serving node fails
 *                    its requests meanwhile.
 *   partition        a serving node leaves the endpoints after 40 s
 *                    (NotReady) until the revert; a training job's
 *                    all-reduce stalls until it (its watchdog ends it).
 *   storage_throttle the storage bandwidth capped at "write_bps".
 *   gpu_throttle     a training host's compute 1.5 x slower.
 *   model_swap       the adapter's requests fail until the revert.
 *   control_plane_loss, exec, null: no effect on the models (the data
 *                    path does not go through the control plane; an exec
 *                    command's effect is unknown).
 */
#define _GNU_SOURCE
#include "controller_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "sim.h"
#include "units.h"

#define NS 1000000000LL
#define SIM_NODES 64
#define SIM_FAULTS 256
#define SIM_SUBSTEP_NS NS            /* availability is evaluated once a second */
#define TTFT_BUCKETS 20000
#define BATCH 256                    /* samples handed to the metrics at once */           /* truth buckets: 0.1 % wide, 1 us .. 1e5 s */

/* ---- seeded randomness ----------------------------------------------------- */

uint64_t sim_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double sim_unit(uint64_t *s) { return ((double)(sim_rand(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

/* A standard normal draw: the quantile at a uniform 1/4096 step, from a
 * table built once (Acklam's rational approximation of the inverse normal
 * CDF, relative error < 1.2e-9). A discrete normal cut at +-3.6 sigma is
 * all the models need, and a table lookup keeps a week's requests cheap. */
#define NORMAL_LEVELS 4096

static double inv_normal(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
				    1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
				    6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
				    -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00 };
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

static double normal(uint64_t *s)
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

struct truth_q {
	uint64_t *b;
	uint64_t n;
	double lo;                  /* value of bucket 0 */
};

static int tq_init(struct truth_q *t, double lo)
{
	t->b = calloc(TTFT_BUCKETS, sizeof(*t->b));
	t->n = 0;
	t->lo = lo;
	return t->b ? 0 : -1;
}

static void tq_add(struct truth_q *t, double v, uint64_t n)
{
	long k = v <= t->lo ? 0 : lround(log(v / t->lo) / log(1.001));
	if (k >= TTFT_BUCKETS)
		k = TTFT_BUCKETS - 1;
	t->b[k] += n;
	t->n += n;
}

static double tq_quantile(const struct truth_q *t, double q)
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

enum effect { FX_NONE, FX_NODE_DOWN, FX_JOB_KILL, FX_FLAP, FX_PARTITION, FX_THROTTLE_IO, FX_GPU_SLOW,
	      FX_ADAPTER };

struct sim_fault {
	char id[GL_NAME_MAX], kind[GL_NAME_MAX], target[GL_NAME_MAX];
	int injects, reverts, active;
	int64_t inj_t, rev_t;       /* world time; rev_t -1 while in */
	enum effect fx;
	int node;                   /* serving node index, or -1 */
	int training;               /* it acts on the training job's hosts */
	int64_t down_ns, up_ns;     /* flap */
	int count;
	double cap_bps;             /* storage throttle */
};

struct sim_world {
	uint64_t rng;
	int64_t now;
	int up;                     /* the controller process runs */
	struct sim_fault faults[SIM_FAULTS];
	int n_faults;
	/* inference */
	int inf;
	double rate, inf_load, adapter_share, inf_acc;
	int out_tokens;
	int n_nodes;
	char nodes[SIM_NODES][GL_NAME_MAX];
	int64_t node_back[SIM_NODES];    /* down until (a kill, a drain's reload) */
	int64_t node_failing[SIM_NODES]; /* sent requests until (a kill, until its endpoint goes) */
	int64_t inf_last;                /* last emission, -1 none yet (this process) */
	int64_t pend_inf_err;            /* a killed node's in-flight requests, failed */
	/* training */
	int tr;
	int ranks, n_tr_hosts;
	char tr_hosts[SIM_NODES][GL_NAME_MAX];
	double compute_s, comm_s, busbw, save_s, restore_load_s;
	int64_t ckpt_every_ns, backoff_ns, watchdog_ns;
	int job_up;
	int64_t job_t;                   /* running: end of the last step; down: relaunch time */
	int64_t next_ckpt;
	int64_t step_idx, ckpt_step;
	int64_t tr_last;
	int64_t pend_fail, pend_lost;    /* counted at the next emission */
	/* storage */
	int sto;
	double bw, bs;
	int64_t sto_last;
	/* telemetry, null */
	int tel, nul;
	double null_rate;
	int64_t tel_last, nul_last;
	double tel_acc, nul_acc;
	/* truth */
	struct sim_truth truth;
	struct truth_q q_ttft, q_step;
};

static struct sim_world *world;

void sim_world_set(struct sim_world *w) { world = w; }
void sim_world_time(struct sim_world *w, int64_t now) { w->now = now; }
const struct sim_truth *sim_world_truth(const struct sim_world *w) { return &w->truth; }

double sim_world_quantile(const struct sim_world *w, int which, double q)
{
	return tq_quantile(which == SIM_Q_TTFT ? &w->q_ttft : &w->q_step, q);
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
		int64_t **arrs[] = { &t->requests, &t->errors, &t->steps, &t->write_bytes };
		for (size_t k = 0; k < 4; k++) {
			int64_t *p = realloc(*arrs[k], (size_t)n * sizeof(int64_t));
			if (!p)
				return -1;
			memset(p + t->n_windows, 0, (size_t)(n - t->n_windows) * sizeof(int64_t));
			*arrs[k] = p;
		}
		t->n_windows = n;
	}
	return 0;
}

static double num(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static int64_t dur(const cJSON *o, const char *k, int64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	int64_t ns;
	struct gl_err e = { 0 };
	return cJSON_IsString(v) && gl_parse_duration_ns(v->valuestring, &ns, &e) == 0 ? ns : dflt;
}

static double size(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	uint64_t b;
	struct gl_err e = { 0 };
	if (cJSON_IsNumber(v))
		return v->valuedouble;
	return cJSON_IsString(v) && gl_parse_size_bytes(v->valuestring, &b, &e) == 0 ? (double)b : dflt;
}

static int serving_node(const struct sim_world *w, const char *host)
{
	for (int i = 0; i < w->n_nodes; i++)
		if (!strcmp(w->nodes[i], host))
			return i;
	return -1;
}

static int training_host(const struct sim_world *w, const char *host)
{
	for (int i = 0; i < w->n_tr_hosts; i++)
		if (!strcmp(w->tr_hosts[i], host))
			return 1;
	return 0;
}

static void setup_inference(struct sim_world *w, const struct gl_scenario *sc, const cJSON *cfg)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(cfg, "arrival");
	const cJSON *ads = cJSON_GetObjectItemCaseSensitive(cfg, "adapters"), *a;

	w->inf = 1;
	w->rate = num(arr, "rate", 10);
	w->out_tokens = (int)num(cfg, "output_tokens", 128);
	if (w->out_tokens < 1)
		w->out_tokens = 1;
	cJSON_ArrayForEach(a, ads)
		w->adapter_share += num(a, "share", 0);
	for (int i = 0; i < sc->n_hosts && w->n_nodes < SIM_NODES; i++)
		if (cJSON_GetObjectItemCaseSensitive(sc->hosts[i].json, "k8s_node"))
			snprintf(w->nodes[w->n_nodes++], GL_NAME_MAX, "%s", sc->hosts[i].name);
	if (!w->n_nodes)
		snprintf(w->nodes[w->n_nodes++], GL_NAME_MAX, "%s", "serving");
}

static void setup_training(struct sim_world *w, const cJSON *cfg)
{
	const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(cfg, "hosts"), *h;
	const cJSON *ck = cJSON_GetObjectItemCaseSensitive(cfg, "checkpoint");
	double msg = size(cfg, "message", 64.0 * 1024 * 1024), ck_size;

	w->tr = 1;
	cJSON_ArrayForEach(h, hosts) {
		const char *s = cJSON_GetStringValue(h);
		const char *colon;
		if (!s || w->n_tr_hosts >= SIM_NODES)
			continue;
		colon = strchr(s, ':');
		snprintf(w->tr_hosts[w->n_tr_hosts++], GL_NAME_MAX, "%.*s", colon ? (int)(colon - s) : (int)strlen(s), s);
		w->ranks += colon ? atoi(colon + 1) : 1;
	}
	if (w->ranks < 1)
		w->ranks = (int)num(cfg, "ranks", 2);
	if (w->ranks < 2)
		w->ranks = 2;
	w->compute_s = (double)dur(cfg, "compute", 250000000LL) / 1e9;
	w->busbw = 360e9;
	w->comm_s = msg * 2.0 * (w->ranks - 1) / w->ranks / w->busbw;
	ck_size = size(ck, "size", 0);
	w->ckpt_every_ns = ck ? dur(ck, "every", 0) : 0;
	w->save_s = ck_size / 5e9;
	w->restore_load_s = ck_size / 5e9;
	w->backoff_ns = dur(cfg, "restart_backoff", 5 * NS);
	w->watchdog_ns = dur(cfg, "watchdog", 120 * NS);
}

struct sim_world *sim_world_new(const struct gl_scenario *sc, uint64_t seed)
{
	struct sim_world *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->rng = seed * 0x2545f4914f6cdd1dULL + 1;
	w->inf_load = 1;
	w->inf_last = w->tr_last = w->sto_last = w->tel_last = w->nul_last = -1;
	if (tq_init(&w->q_ttft, 1e-3) || tq_init(&w->q_step, 1e-6)) {
		sim_world_free(w);
		return NULL;
	}
	for (int i = 0; i < sc->n_workloads; i++) {
		const char *n = sc->workloads[i].name;
		const cJSON *cfg = sc->workloads[i].cfg;
		if (!strcmp(n, "inference"))
			setup_inference(w, sc, cfg);
		else if (!strcmp(n, "training"))
			setup_training(w, cfg);
		else if (!strcmp(n, "storage")) {
			w->sto = 1;
			w->bw = 5e9;
			w->bs = size(cfg, "bs", 1 << 20);
		} else if (!strcmp(n, "telemetry"))
			w->tel = 1;
		else if (!strcmp(n, "null")) {
			w->nul = 1;
			w->null_rate = num(cfg, "rate", 100);
		}
	}
	w->truth.have_inference = w->inf;
	w->truth.have_training = w->tr;
	w->truth.have_storage = w->sto;
	for (int i = 0; i < sc->n_faults && i < SIM_FAULTS; i++) {
		struct sim_fault *f = &w->faults[w->n_faults++];
		const struct gl_fault_spec *s = &sc->faults[i];
		const cJSON *p = s->params;
		const char *tgt = s->target;
		const char *node = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "node"));
		const char *pat = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "pattern"));

		snprintf(f->id, sizeof(f->id), "%s", s->id);
		snprintf(f->kind, sizeof(f->kind), "%s", s->kind);
		snprintf(f->target, sizeof(f->target), "%s", tgt);
		f->rev_t = -1;
		f->node = serving_node(w, node && !strcmp(s->kind, "drain_worker") ? node : tgt);
		f->training = training_host(w, node && !strcmp(s->kind, "drain_worker") ? node : tgt);
		if (!strcmp(s->kind, "drain_worker"))
			f->fx = f->node >= 0 ? FX_NODE_DOWN : FX_NONE;
		else if (!strcmp(s->kind, "process_kill"))
			f->fx = f->training && pat && strstr(pat, "train") ? FX_JOB_KILL : f->node >= 0 ? FX_NODE_DOWN
														: FX_NONE;
		else if (!strcmp(s->kind, "gpu_xid"))
			f->fx = f->training ? FX_JOB_KILL : f->node >= 0 ? FX_NODE_DOWN : FX_NONE;
		else if (!strcmp(s->kind, "link_flap") || !strcmp(s->kind, "fabric_port")) {
			f->fx = FX_FLAP;
			f->down_ns = dur(p, "down", 5 * NS);
			f->up_ns = dur(p, "up", 5 * NS);
			f->count = (int)num(p, "count", 1);
		} else if (!strcmp(s->kind, "partition"))
			f->fx = FX_PARTITION;
		else if (!strcmp(s->kind, "storage_throttle")) {
			f->fx = FX_THROTTLE_IO;
			f->cap_bps = size(p, "write_bps", 1e9);
		} else if (!strcmp(s->kind, "gpu_throttle"))
			f->fx = f->training ? FX_GPU_SLOW : FX_NONE;
		else if (!strcmp(s->kind, "model_swap"))
			f->fx = FX_ADAPTER;
		else
			f->fx = FX_NONE;
	}
	return w;
}

void sim_world_free(struct sim_world *w)
{
	if (!w)
		return;
	free(w->truth.requests);
	free(w->truth.errors);
	free(w->truth.steps);
	free(w->truth.write_bytes);
	free(w->q_ttft.b);
	free(w->q_step.b);
	free(w);
}

/* ---- effects at a moment ---------------------------------------------------- */

/* A serving node at t: up, out of the endpoints (the load balancer sends
 * it nothing: capacity lost, no error), or failing what it is sent (a
 * kill before its endpoint is removed, a link that flaps too fast for
 * the probes). */
enum node_state { NODE_UP, NODE_OUT, NODE_FAILING };

static enum node_state node_state(const struct sim_world *w, int i, int64_t t)
{
	enum node_state st = NODE_UP;

	if (t < w->node_back[i])
		st = t < w->node_failing[i] ? NODE_FAILING : NODE_OUT;
	for (int k = 0; k < w->n_faults; k++) {
		const struct sim_fault *f = &w->faults[k];
		if (!f->active || f->node != i || f->inj_t > t)
			continue;
		if (f->fx == FX_NODE_DOWN && f->kind[0] == 'd' && st == NODE_UP)
			st = NODE_OUT;     /* a drain: evicted gracefully */
		if (f->fx == FX_PARTITION && t >= f->inj_t + 40 * NS && st == NODE_UP)
			st = NODE_OUT;     /* NotReady: its endpoint is removed */
		if (f->fx == FX_FLAP) {
			int64_t per = f->down_ns + f->up_ns, k2 = per > 0 ? (t - f->inj_t) / per : 0;
			if (k2 < f->count && (t - f->inj_t) % (per ? per : 1) < f->down_ns)
				st = NODE_FAILING;
		}
	}
	return st;
}

static int any_active(const struct sim_world *w, enum effect fx, int training_only)
{
	for (int k = 0; k < w->n_faults; k++)
		if (w->faults[k].active && w->faults[k].fx == fx && (!training_only || w->faults[k].training))
			return k;
	return -1;
}

/* When a training step running from t0 would be stalled by a link that is
 * down (a flap or a partition on a training host): the end of the stall,
 * else t0. */
static int64_t stall_until(const struct sim_world *w, int64_t t0, int64_t t1)
{
	int64_t until = t0;

	for (int k = 0; k < w->n_faults; k++) {
		const struct sim_fault *f = &w->faults[k];
		if (!f->active || !f->training)
			continue;
		if (f->fx == FX_PARTITION && f->inj_t < t1)
			until = INT64_MAX;  /* until its revert */
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

static void job_end(struct sim_world *w, int64_t t) { job_end_seen(w, t, 1); }

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
		job_end(w, w->now);
	if (f->fx == FX_NODE_DOWN && f->kind[0] != 'd' && f->node >= 0) {
		/* a kill: its in-flight requests fail, it is back after 120 s */
		w->node_back[f->node] = w->now + 120 * NS;
		w->node_failing[f->node] = w->now + 10 * NS;
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
	if (f->active && f->fx == FX_NODE_DOWN && f->kind[0] == 'd' && f->node >= 0)
		w->node_back[f->node] = w->now + 60 * NS;   /* rescheduled, model loaded */
	if (f->active && f->fx == FX_PARTITION && f->training && w->job_up && w->now - f->inj_t > w->watchdog_ns) {
		/* the all-reduce stalled past the watchdog: the job was ended
		 * then; it is relaunched now that the network is back */
		job_end(w, w->now);
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

struct wl {
	struct gl_ctx *c;
	char name[GL_NAME_MAX];
	int id[24];
};

/* each workload's metric ids, in the order wl_init registers them */
enum { I_TTFT, I_TPOT, I_LAT, I_REQ, I_ERR, I_OUTTOT, I_AREQ, I_AERR };
enum { T_STEP, T_BUSBW, T_STEPS, T_CORR, T_LOST, T_SAVES, T_RESTORES, T_SAVE_S, T_RESTORE_S, T_PROD,
       T_RELAUNCH, T_FAIL };

static int64_t win(struct wl *s)
{
	int64_t idx = gl_ctx_window(s->c);
	return truth_slot(world, idx) == 0 ? idx : -1;
}

static void emit_inference(struct wl *s, struct sim_world *w, int64_t t1)
{
	struct gl_metrics *m = gl_ctx_metrics(s->c);
	int64_t idx = win(s);
	int64_t t0 = w->inf_last;

	if (t0 < 0 || t1 <= t0)
		return;
	if (w->pend_inf_err) {
		gl_metrics_add(m, s->id[I_REQ], w->pend_inf_err);
		gl_metrics_add(m, s->id[I_ERR], w->pend_inf_err);
		if (idx >= 0) {
			w->truth.requests[idx] += w->pend_inf_err;
			w->truth.errors[idx] += w->pend_inf_err;
		}
		w->truth.tot_requests += w->pend_inf_err;
		w->truth.tot_errors += w->pend_inf_err;
		w->pend_inf_err = 0;
	}
	for (int64_t a = t0; a < t1;) {
		int64_t b = a + SIM_SUBSTEP_NS - (a % SIM_SUBSTEP_NS);
		double dt, offered, cap, util, up = 0;
		double b_ttft[BATCH], b_tpot[BATCH], b_lat[BATCH];
		size_t k = 0;
		int64_t n, errs = 0, areq = 0, aerr = 0;
		int swap = any_active(w, FX_ADAPTER, 0) >= 0;

		if (b > t1)
			b = t1;
		dt = (double)(b - a) / 1e9;
		enum node_state ns[SIM_NODES];
		int routed[SIM_NODES], n_routed = 0;
		for (int i = 0; i < w->n_nodes; i++) {
			ns[i] = node_state(w, i, a);
			up += ns[i] == NODE_UP;
			if (ns[i] != NODE_OUT)
				routed[n_routed++] = i;
		}
		offered = w->rate * w->inf_load;
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
			ttft = 120.0 * exp(0.3 * normal(&w->rng)) * q;
			tpot = 25.0 * exp(0.15 * normal(&w->rng));
			if (k < BATCH) {
				b_ttft[k] = ttft;
				b_tpot[k] = tpot;
				b_lat[k++] = ttft + tpot * (w->out_tokens - 1);
			} else {
				gl_metrics_record(m, s->id[I_TTFT], ttft);
				gl_metrics_record(m, s->id[I_TPOT], tpot);
				gl_metrics_record(m, s->id[I_LAT], ttft + tpot * (w->out_tokens - 1));
			}
			tq_add(&w->q_ttft, ttft, 1);
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
		if (idx >= 0) {
			w->truth.requests[idx] += n;
			w->truth.errors[idx] += errs;
		}
		w->truth.tot_requests += n;
		w->truth.tot_errors += errs;
		a = b;
	}
	w->inf_last = t1;
}

/* The job ends counted since the last emission: failures and the steps
 * they lost. */
static void emit_job_ends(struct wl *s, struct sim_world *w)
{
	struct gl_metrics *m = gl_ctx_metrics(s->c);

	if (!w->pend_fail)
		return;
	gl_metrics_add(m, s->id[T_FAIL], w->pend_fail);
	gl_metrics_add(m, s->id[T_LOST], w->pend_lost);
	w->pend_fail = w->pend_lost = 0;
}

static void emit_training(struct wl *s, struct sim_world *w, int64_t t1)
{
	struct gl_metrics *m = gl_ctx_metrics(s->c);
	int64_t idx = win(s);
	int64_t steps = 0;
	double slow = any_active(w, FX_GPU_SLOW, 1) >= 0 ? 1.5 : 1.0;

	if (w->tr_last < 0 || t1 <= w->tr_last)
		return;
	emit_job_ends(s, w);
	for (;;) {
		if (!w->job_up) {
			/* relaunch at job_t (unless a partition keeps the
			 * network cut), then the checkpoint is loaded */
			int64_t first;
			if (any_active(w, FX_PARTITION, 1) >= 0 || w->job_t + 10 * NS > t1)
				break;
			first = w->job_t + 10 * NS + (int64_t)(w->restore_load_s * 1e9);
			if (first > t1)
				break;
			w->job_up = 1;
			gl_metrics_add(m, s->id[T_RELAUNCH], 1);
			if (w->ckpt_step > 0 || w->ckpt_every_ns) {
				gl_metrics_add(m, s->id[T_RESTORES], 1);
				gl_metrics_record(m, s->id[T_RESTORE_S], (double)(first - w->job_t) / 1e9);
			}
			w->job_t = first;
			if (w->ckpt_every_ns)
				w->next_ckpt = first + w->ckpt_every_ns;
			continue;
		}
		{
			int64_t start = w->job_t, end, until;
			double compute = w->compute_s * slow * (1.0 + 0.01 * normal(&w->rng));
			double comm = w->comm_s;
			end = start + (int64_t)((compute + comm) * 1e9);
			until = stall_until(w, start, end);
			if (until == INT64_MAX) {
				/* the network is cut: past the watchdog the job is
				 * ended (relaunched once the cut is reverted) */
				if (t1 - start > w->watchdog_ns) {
					job_end(w, start + w->watchdog_ns);
					emit_job_ends(s, w);
				}
				break;
			}
			if (until > start) {
				comm += (double)(until - start) / 1e9;
				end = start + (int64_t)((compute + comm) * 1e9);
			}
			if (end > t1)
				break;
			w->job_t = end;
			w->step_idx++;
			steps++;
			gl_metrics_record(m, s->id[T_STEP], compute + comm);
			gl_metrics_record(m, s->id[T_BUSBW], w->comm_s / comm * w->busbw / 1e9);
			gl_metrics_add(m, s->id[T_PROD], (int64_t)((compute + comm) * 1e6));
			tq_add(&w->q_step, compute + comm, 1);
			if (w->ckpt_every_ns && w->job_t >= w->next_ckpt) {
				w->job_t += (int64_t)(w->save_s * 1e9);
				w->ckpt_step = w->step_idx;
				w->next_ckpt += w->ckpt_every_ns;
				gl_metrics_add(m, s->id[T_SAVES], 1);
				gl_metrics_record(m, s->id[T_SAVE_S], w->save_s);
			}
		}
	}
	gl_metrics_add(m, s->id[T_STEPS], steps);
	gl_metrics_add(m, s->id[T_CORR], 0);
	if (idx >= 0)
		w->truth.steps[idx] += steps;
	w->truth.tot_steps += steps;
	w->tr_last = t1;
}

static void emit_storage(struct wl *s, struct sim_world *w, int64_t t1)
{
	struct gl_metrics *m = gl_ctx_metrics(s->c);
	int64_t idx = win(s), bytes;
	int k = any_active(w, FX_THROTTLE_IO, 0);
	double bw = k >= 0 && w->faults[k].cap_bps < w->bw ? w->faults[k].cap_bps : w->bw;

	if (w->sto_last < 0 || t1 <= w->sto_last)
		return;
	bytes = (int64_t)(bw * (double)(t1 - w->sto_last) / 1e9);
	gl_metrics_add(m, s->id[0], bytes);
	gl_metrics_add(m, s->id[1], 0);
	if (idx >= 0)
		w->truth.write_bytes[idx] += bytes;
	w->truth.tot_write_bytes += bytes;
	w->sto_last = t1;
}

static void emit_small(struct wl *s, struct sim_world *w, int64_t t1, int null)
{
	struct gl_metrics *m = gl_ctx_metrics(s->c);
	int64_t *last = null ? &w->nul_last : &w->tel_last;
	double *acc = null ? &w->nul_acc : &w->tel_acc;
	int64_t n;

	if (*last < 0 || t1 <= *last)
		return;
	*acc += (double)(t1 - *last) / 1e9 * (null ? w->null_rate : 0.1);
	n = (int64_t)*acc;
	*acc -= (double)n;
	*last = t1;
	gl_metrics_add(m, s->id[0], n);
	gl_metrics_record_n(m, s->id[1], null ? 0.05 : 60, (uint64_t)(null ? n : n * 8));
}

static void wl_emit(struct wl *s)
{
	struct sim_world *w = world;

	if (!w || !w->up)
		return;
	if (!strcmp(s->name, "inference"))
		emit_inference(s, w, w->now);
	else if (!strcmp(s->name, "training"))
		emit_training(s, w, w->now);
	else if (!strcmp(s->name, "storage"))
		emit_storage(s, w, w->now);
	else
		emit_small(s, w, w->now, !strcmp(s->name, "null"));
}

/* The controller's workloads, as sim.c asks them to emit. */
static struct wl *wls[16];
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
	/* the figures the models have (docs/simulation.md): fewer than the
	 * real workloads record, each one a row per window */
	static const char *const inf[] = { "h:inference.ttft_ms", "h:inference.tpot_ms", "h:inference.latency_ms",
					   "c:inference.requests", "c:inference.errors",
					   "c:inference.output_tokens_total", "c:inference.adapter_requests",
					   "c:inference.adapter_errors" };
	static const char *const tr[] = { "h:training.step_time_s", "h:training.busbw_gbps",
					  "c:training.steps", "c:training.correctness_errors", "c:training.lost_steps",
					  "c:training.checkpoint.saves", "c:training.checkpoint.restores",
					  "h:training.checkpoint.save_s", "h:training.checkpoint.restore_s",
					  "c:training.productive_us", "c:training.relaunches", "c:training.job_failures" };
	static const char *const sto[] = { "c:storage.write_bytes", "c:storage.errors" };
	static const char *const tel[] = { "c:telemetry.scrapes", "h:dcgm.gpu_temp" };
	static const char *const nul[] = { "c:null.ticks", "h:null.tick_lag_ms" };
	struct wl *s = calloc(1, sizeof(*s));
	const struct gl_scenario *sc = gl_ctx_scenario(c);
	struct gl_metrics *m = gl_ctx_metrics(c);
	int rc = -1;

	(void)cfg;
	if (!s)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	s->c = c;
	for (int i = 0; i < sc->n_workloads; i++)
		if (sc->workloads[i].cfg == cfg)
			snprintf(s->name, sizeof(s->name), "%s", sc->workloads[i].name);
	if (!strcmp(s->name, "inference"))
		rc = reg(m, s->id, inf, world && world->adapter_share > 0 ? 8 : 6);
	else if (!strcmp(s->name, "training"))
		rc = reg(m, s->id, tr, 12);
	else if (!strcmp(s->name, "storage"))
		rc = reg(m, s->id, sto, 2);
	else if (!strcmp(s->name, "telemetry"))
		rc = reg(m, s->id, tel, 2);
	else if (!strcmp(s->name, "null"))
		rc = reg(m, s->id, nul, 2);
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
	struct wl *s = state;
	struct sim_world *w = world;

	(void)err;
	if (!strcmp(s->name, "inference"))
		w->inf_last = w->now;
	else if (!strcmp(s->name, "training")) {
		w->tr_last = w->now;
		if (!w->job_up && !w->step_idx && !w->ckpt_step && !w->pend_fail) {
			w->job_up = 1;     /* the first launch */
			w->job_t = w->now;
			if (w->ckpt_every_ns)
				w->next_ckpt = w->now + w->ckpt_every_ns;
		} else if (!w->job_up && w->job_t < w->now) {
			w->job_t = w->now;   /* relaunched by this controller */
		}
	} else if (!strcmp(s->name, "storage"))
		w->sto_last = w->now;
	else if (!strcmp(s->name, "telemetry"))
		w->tel_last = w->now;
	else
		w->nul_last = w->now;
	return 0;
}

static void wl_set_load(void *state, double mult)
{
	struct wl *s = state;

	wl_emit(s);
	if (!strcmp(s->name, "inference"))
		world->inf_load = mult;
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

static const struct gl_workload_ops wl_ops[] = {
	{ .name = "inference", .init = wl_init, .start = wl_start, .set_load = wl_set_load, .stop = wl_stop, .free = wl_free },
	{ .name = "training", .init = wl_init, .start = wl_start, .stop = wl_stop, .free = wl_free },
	{ .name = "storage", .init = wl_init, .start = wl_start, .stop = wl_stop, .free = wl_free },
	{ .name = "telemetry", .init = wl_init, .start = wl_start, .stop = wl_stop, .free = wl_free },
	{ .name = "null", .init = wl_init, .start = wl_start, .stop = wl_stop, .free = wl_free },
};

const struct gl_workload_ops *sim_workload_ops(const char *name)
{
	for (size_t i = 0; i < sizeof(wl_ops) / sizeof(wl_ops[0]); i++)
		if (!strcmp(wl_ops[i].name, name))
			return &wl_ops[i];
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
