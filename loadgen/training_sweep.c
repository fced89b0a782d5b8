/*
 * training_sweep.c - a node sweep of the training workload's hosts
 * (training_sweep.h; docs/nodes.md, "Node sweeps").
 *
 * First every host alone, side by side: an all-reduce over its slots
 * (at least 2 ranks) with shared memory and peer-to-peer off, so that a
 * host's own network path (its NICs and stack for NCCL, its TCP stack
 * for Open MPI) carries it. Then the pairs, in the rounds of the circle
 * method: no host in two jobs of a round, each round's jobs side by side,
 * every pair once in N - 1 rounds. The busbw of each job fills a host x
 * host matrix; a bad host pulls its whole row down, a bad link one cell.
 */
#define _GNU_SOURCE
#include "training_sweep.h"
#include "training_int.h"
#include "training_jobs.h"

#include <math.h>
#include <time.h>

#include "diag.h"
#include "states.h"
#include "stop.h"

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- the rounds ------------------------------------------------------------------------------ */

int gl_sweep_rounds(int n)
{
	return n < 2 ? 0 : n % 2 ? n : n - 1;
}

int gl_sweep_round(int n, int r, int (*p)[2])
{
	int m = n % 2 ? n + 1 : n, k = 0; /* odd: a dummy, m - 1, sits out */

	if (n < 2 || r < 0 || r >= m - 1)
		return 0;
	for (int i = 0; i < m / 2; i++) {
		/* position 0 stays; the others turn one place a round */
		int a = i == 0 ? 0 : 1 + (i - 1 + r) % (m - 1);
		int b = 1 + (m - 1 - i - 1 + r) % (m - 1);
		if (a >= n || b >= n)
			continue;
		p[k][0] = a < b ? a : b;
		p[k][1] = a < b ? b : a;
		k++;
	}
	return k;
}

/* ---- the judgment ---------------------------------------------------------------------------- */

/* A cell's value for scoring: its busbw, 0 when its job made none. */
static double value(const struct gl_sweep_cell *c)
{
	return c->busbw >= 0 ? c->busbw : 0;
}

/* busbw on the log scale the scores use: a host ten times slower is as
 * far out whether its peers vary by 5 % or by a factor of 2; a job that
 * made no step at the bottom */
static double lg(double x)
{
	return log(x > 1e-12 ? x : 1e-12);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* How many of the pairwise differences of v (sorted, n) are t or less;
 * *top the largest of them (0 when none). */
static long pairs_within(const double *v, int n, double t, double *top)
{
	long c = 0;

	*top = 0;
	for (int i = 0, j = 0; i < n; i++) {
		j = j > i ? j : i;
		while (j + 1 < n && v[j + 1] - v[i] <= t)
			j++;
		c += j - i;
		if (j > i && v[j] - v[i] > *top)
			*top = v[j] - v[i];
	}
	return c;
}

/* Rousseeuw and Croux's Qn over v (n >= 2; sorted in place): 2.2219 x
 * the k-th smallest of the n (n - 1) / 2 differences |v_i - v_j|, k =
 * h (h - 1) / 2 with h = n / 2 + 1, times their small-sample factor: a
 * consistent estimate of the standard deviation of normal data. Unlike
 * the MAD it takes no centre: where healthy jobs fall into two groups (on
 * a loaded machine, jobs whose ranks waited a scheduler tick a step and
 * jobs that did not) the MAD is half the distance between the groups,
 * Qn the spread within them. The k-th difference is found by bisection
 * on its value, each step counting the differences below it in one pass
 * (O(n log n) in all, for the 32,640 pairs of 256 hosts too). */
static double qn_scale(double *v, int n)
{
	static const double small[] = { 0, 0, 0.399, 0.994, 0.512, 0.844, 0.611, 0.857, 0.669, 0.872 };
	long h = n / 2 + 1, k = h * (h - 1) / 2;
	double lo = 0, hi, top = 0, dn;

	qsort(v, (size_t)n, sizeof(*v), cmp_dbl);
	hi = v[n - 1] - v[0];
	if (pairs_within(v, n, lo, &top) >= k)
		return 0;
	for (int it = 0; it < 200 && hi - lo > 1e-12 * (1 + hi); it++) {
		double mid = lo + (hi - lo) / 2;
		if (pairs_within(v, n, mid, &top) >= k)
			hi = mid;
		else
			lo = mid;
	}
	pairs_within(v, n, hi, &top); /* the difference itself, not the bound */
	dn = n < 10 ? small[n] : n % 2 ? n / (n + 1.4) : n / (n + 3.8);
	return dn * 2.2219 * top;
}

/* z[i] = (log median - log x[i]) / spread over the i with use[i] (lower
 * is worse), NAN elsewhere and when fewer than 3 are used; *med the
 * median (GB/s); *qn the Qn scale of the logs (qn_scale) when
 * GL_SWEEP_SCALE_MIN or more are used (else 0: too few to tell noise from
 * a fault); the spread that, at least rel. */
static void robust_z(const double *x, const int *use, int n, double rel, double *z, double *med, double *qn)
{
	double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof(*v)), m, spread;
	int k = 0;

	*med = NAN;
	*qn = 0;
	for (int i = 0; i < n; i++)
		z[i] = NAN;
	if (!v)
		return;
	for (int i = 0; i < n; i++)
		if (use[i])
			v[k++] = x[i];
	if (k > 0)
		*med = trn_median(v, k);
	if (k < 3) {
		free(v);
		return;
	}
	for (int i = 0; i < k; i++)
		v[i] = lg(v[i]);
	m = trn_median(v, k);
	if (k >= GL_SWEEP_SCALE_MIN)
		*qn = qn_scale(v, k);
	spread = *qn > rel ? *qn : rel;
	for (int i = 0; i < n; i++)
		if (use[i]) {
			z[i] = (m - lg(x[i])) / spread;
			z[i] = z[i] > GL_SWEEP_ZMAX ? GL_SWEEP_ZMAX : z[i];
		}
	free(v);
}

/* a job's why, from r->bad */
static const char *why_of(const struct gl_sweep_result *r, int a, int b)
{
	for (int i = 0; i < r->n_bad; i++)
		if ((r->bad[i].a == a && r->bad[i].b == b) || (r->bad[i].a == b && r->bad[i].b == a))
			return r->bad[i].why;
	return "bad";
}

static struct gl_sweep_suspect *add_suspect(struct gl_sweep_result *r, const char *kind, int a, int b)
{
	struct gl_sweep_suspect *s;

	if (r->n_sus == GL_SWEEP_SUSPECTS)
		return NULL;
	s = memset(&r->sus[r->n_sus++], 0, sizeof(*s));
	snprintf(s->kind, sizeof(s->kind), "%s", kind);
	s->a = a;
	s->b = b;
	return s;
}

/* each host's figures scored; 1 in host_bad[] for the suspects. A
 * host's pairs are summed up by the median of its cells but its lowest:
 * a bad host pulls every cell of its row down, a bad link only one, so
 * that one bad link never makes its ends look like bad hosts. */
static void judge_hosts(struct gl_sweep_result *r, double rel, int *host_bad)
{
	int n = r->n_hosts, use[GL_SWEEP_HOSTS] = { 0 };
	double x[GL_SWEEP_HOSTS] = { 0 }, row[GL_SWEEP_HOSTS], qn;

	for (int i = 0; i < n; i++) {
		use[i] = r->single[i].state != 0;
		x[i] = value(&r->single[i]);
	}
	robust_z(x, use, n, rel, r->single_z, &r->single_median, &qn);
	for (int i = 0; i < n; i++) {
		int k = 0;
		for (int j = 0; j < n; j++)
			if (j != i && r->pair[i * n + j].state)
				row[k++] = value(&r->pair[i * n + j]);
		use[i] = k > 0;
		r->row_median[i] = NAN;
		if (k) {
			int lo = 0; /* its lowest left out: to the front, the median of the rest */
			double t;
			for (int m = 1; m < k; m++)
				lo = row[m] < row[lo] ? m : lo;
			t = row[0], row[0] = row[lo], row[lo] = t;
			r->row_median[i] = trn_median(row + (k > 1), k - (k > 1));
		}
		x[i] = use[i] ? r->row_median[i] : 0;
	}
	robust_z(x, use, n, rel, r->row_z, &r->pair_median, &qn);
	for (int i = 0; i < n; i++) {
		const struct gl_sweep_cell *c = &r->single[i];
		int single_bad = c->state == 2, single_out = r->single_z[i] >= GL_SWEEP_Z,
		    row_out = r->row_z[i] >= GL_SWEEP_Z;
		struct gl_sweep_suspect *s;
		size_t at = 0;
		if (!single_bad && !single_out && !row_out)
			continue;
		host_bad[i] = 1;
		if (!(s = add_suspect(r, "host", i, -1)))
			continue;
		s->score = single_bad ? (c->busbw < 0 ? GL_SWEEP_ZMAX : GL_SWEEP_Z) : 0;
		if (single_out && r->single_z[i] > s->score)
			s->score = r->single_z[i];
		if (row_out && r->row_z[i] > s->score)
			s->score = r->row_z[i];
		if (row_out)
			at += (size_t)snprintf(s->evidence, sizeof(s->evidence),
					       "its pairs' busbw %.3g GB/s (median but the lowest) against the hosts' "
					       "%.3g (z %.1f)",
					       r->row_median[i], r->pair_median, r->row_z[i]);
		if (at < sizeof(s->evidence) && single_bad)
			snprintf(s->evidence + at, sizeof(s->evidence) - at, "%salone: %s", at ? "; " : "",
				 why_of(r, i, -1));
		else if (at < sizeof(s->evidence) && single_out)
			snprintf(s->evidence + at, sizeof(s->evidence) - at,
				 "%salone busbw %.3g GB/s against the hosts' %.3g (z %.1f)", at ? "; " : "",
				 (double)c->busbw, r->single_median, r->single_z[i]);
	}
}

void gl_sweep_judge(struct gl_sweep_result *r, const struct gl_sweep_opts *o)
{
	int n = r->n_hosts, host_bad[GL_SWEEP_HOSTS] = { 0 }, k = 0, m = n * (n - 1) / 2;
	double *x = malloc((size_t)(m > 0 ? m : 1) * sizeof(*x)), *z = malloc((size_t)(m > 0 ? m : 1) * sizeof(*z));
	int *use = calloc((size_t)(m > 0 ? m : 1), sizeof(*use));
	double med, qn, rel = o->tolerance > 0 ? o->tolerance : GL_SWEEP_REL;

	r->n_sus = 0;
	judge_hosts(r, rel, host_bad);
	if (!x || !z || !use)
		goto out;
	/* the links: each pair of hosts that are no suspects */
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++, k++) {
			const struct gl_sweep_cell *c = &r->pair[a * n + b];
			use[k] = c->state && !host_bad[a] && !host_bad[b];
			x[k] = value(c);
		}
	/* each against what its two ends carry with their other peers (the
	 * lower of their levels), in the spread of every such pair */
	robust_z(x, use, m, rel, z, &med, &qn);
	k = 0;
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++, k++) {
			const struct gl_sweep_cell *c = &r->pair[a * n + b];
			double e = fmin(r->row_median[a], r->row_median[b]);
			struct gl_sweep_suspect *s;
			int out, bad = use[k] && c->state == 2;
			z[k] = NAN;
			if (use[k] && !isnan(e) && n >= 3) {
				z[k] = (lg(e) - lg(x[k])) / (qn > rel ? qn : rel);
				z[k] = z[k] > GL_SWEEP_ZMAX ? GL_SWEEP_ZMAX : z[k];
			}
			out = !isnan(z[k]) && z[k] >= GL_SWEEP_Z;
			if (!out && !bad)
				continue;
			if (!(s = add_suspect(r, "link", a, b)))
				continue;
			s->score = bad ? (c->busbw < 0 ? GL_SWEEP_ZMAX : GL_SWEEP_Z) : 0;
			if (out && z[k] > s->score)
				s->score = z[k];
			if (bad && c->busbw < 0)
				snprintf(s->evidence, sizeof(s->evidence), "the pair's job: %s", why_of(r, a, b));
			else if (!isnan(z[k]))
				snprintf(s->evidence, sizeof(s->evidence),
					 "busbw %.3g GB/s against its ends' %.3g with their other peers (z %.1f)%s%s",
					 (double)c->busbw, e, z[k], bad ? "; " : "", bad ? why_of(r, a, b) : "");
			else
				snprintf(s->evidence, sizeof(s->evidence), "the pair's job: %s", why_of(r, a, b));
		}
out:
	free(x);
	free(z);
	free(use);
}

/* ---- running it ------------------------------------------------------------------------------ */

static int read_hosts(const struct gl_scenario *sc, const cJSON *cfg, struct gl_sweep_result *r, struct gl_err *err)
{
	const cJSON *h;

	cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(cfg, "hosts"))
	{
		char name[GL_NAME_MAX];
		const char *colon;
		int seen = -1;
		long slots = 1;
		if (!cJSON_IsString(h))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(h->valuestring, ":"), h->valuestring);
		if ((colon = strchr(h->valuestring, ':')))
			slots = strtol(colon + 1, NULL, 10);
		slots = slots < 1 ? 1 : slots > 1024 ? 1024 : slots;
		if (!gl_scenario_host(sc, name))
			return gl_errf(err, GL_EINVAL, "sweep: training.hosts: unknown host '%s'", name);
		for (int i = 0; i < r->n_hosts && seen < 0; i++)
			if (!strcmp(r->hosts[i], name))
				seen = i;
		if (seen >= 0) {
			r->ranks[seen] += (int)slots;
			continue;
		}
		if (r->n_hosts == GL_SWEEP_HOSTS)
			return gl_errf(err, GL_EINVAL, "sweep: more than %d hosts", GL_SWEEP_HOSTS);
		r->ranks[r->n_hosts] = (int)slots;
		snprintf(r->hosts[r->n_hosts++], sizeof(r->hosts[0]), "%s", name);
	}
	if (r->n_hosts < 2)
		return gl_errf(err, GL_EINVAL, "sweep: training.hosts names %d host(s): a sweep needs 2 or more",
			       r->n_hosts);
	return 0;
}

/* The figure of job j (hosts a and b, b -1: a alone) into its cell(s),
 * its why kept when bad, and, in a run, a warning event when bad. */
static void record(struct gl_ctx *ctx, struct gl_sweep_result *r, const struct trn_job *j, int a, int b)
{
	struct gl_sweep_cell c = { (float)j->busbw, (float)((double)j->wall_ns / 1e9), (signed char)(j->bad ? 2 : 1) };

	r->jobs++;
	if (b < 0) {
		r->single[a] = c;
	} else {
		r->pair[a * r->n_hosts + b] = c;
		r->pair[b * r->n_hosts + a] = c;
	}
	if (!j->bad)
		return;
	if (r->n_bad < GL_SWEEP_BAD) {
		struct gl_sweep_bad *x = &r->bad[r->n_bad++];
		x->a = a;
		x->b = b;
		snprintf(x->why, sizeof(x->why), "%s", j->why);
	} else {
		r->more_bad++;
	}
	if (ctx && r->n_bad + r->more_bad <= GL_SWEEP_BAD)
		gl_ctx_event(ctx, GL_LOG_WARN, "sweep", "%s%s%s: bad (%s)", r->hosts[a], b < 0 ? " alone" : ",",
			     b < 0 ? "" : r->hosts[b], j->why);
}

/* jobs[0..n) over hosts pa[k] (and pb[k], -1: alone), at most
 * o->parallel at once. */
static int run_batch(struct gl_ctx *ctx, const struct gl_scenario *sc, const cJSON *cfg, const struct gl_sweep_opts *o,
		     struct gl_sweep_result *r, struct trn_job *jobs, const int *pa, const int *pb, int n,
		     struct gl_err *err)
{
	struct trn_job_opts jo = { o->steps, o->message, o->job_timeout_ns, o->min_busbw, "sweep" };

	for (int at = 0; at < n; at += o->parallel) {
		int k = n - at < o->parallel ? n - at : o->parallel;
		for (int i = 0; i < k; i++) {
			struct trn_job *j = memset(&jobs[i], 0, sizeof(jobs[i]));
			int a = pa[at + i], b = pb[at + i];
			j->host[0] = r->hosts[a];
			if (b < 0) { /* alone: its slots, 2 at least, through the network */
				j->n = 1;
				j->ranks[0] = r->ranks[a] < 2 ? 2 : r->ranks[a];
				j->force_net = 1;
			} else {
				j->n = 2;
				j->ranks[0] = r->ranks[a];
				j->host[1] = r->hosts[b];
				j->ranks[1] = r->ranks[b];
			}
		}
		if (trn_jobs_run(ctx, sc, cfg, &jo, jobs, k, err) != 0)
			return -1;
		for (int i = 0; i < k; i++)
			record(ctx, r, &jobs[i], pa[at + i], pb[at + i]);
	}
	return 0;
}

int gl_training_sweep(struct gl_ctx *ctx, const struct gl_scenario *sc, const struct gl_sweep_opts *o,
		      struct gl_sweep_result *r, struct gl_err *err)
{
	const struct gl_workload_spec *ws = gl_scenario_workload(sc, "training");
	int pa[GL_SWEEP_HOSTS], pb[GL_SWEEP_HOSTS], p[GL_SWEEP_HOSTS / 2][2], rc = -1;
	int64_t t0 = mono_ns();
	struct trn_job *jobs = NULL;
	const char *be;

	memset(r, 0, sizeof(*r));
	if (!ws)
		return gl_errf(err, GL_EINVAL, "sweep: the scenario has no training workload");
	be = gl_cfg_str(ws->cfg, "backend", "mpi");
	if (strcmp(be, "mpi") && strcmp(be, "nccl"))
		return gl_errf(err, GL_EINVAL,
			       "sweep: training.backend '%s': a sweep runs gauntlet-train (mpi or nccl)", be);
	if (read_hosts(sc, ws->cfg, r, err) != 0)
		return -1;
	r->rounds = o->pairs ? gl_sweep_rounds(r->n_hosts) : 0;
	snprintf(r->outcome, sizeof(r->outcome), "done");
	r->pair = calloc((size_t)r->n_hosts * (size_t)r->n_hosts, sizeof(*r->pair));
	jobs = calloc((size_t)o->parallel, sizeof(*jobs));
	if (!r->pair || !jobs) {
		gl_errf(err, GL_ENOMEM, "sweep: out of memory");
		goto out;
	}
	for (int i = 0; i < r->n_hosts; i++) {
		r->single[i].busbw = -1;
		pa[i] = i;
		pb[i] = -1;
	}
	for (int i = 0; i < r->n_hosts * r->n_hosts; i++)
		r->pair[i].busbw = -1;
	if (run_batch(ctx, sc, ws->cfg, o, r, jobs, pa, pb, r->n_hosts, err) != 0)
		goto out;
	if (ctx)
		gl_ctx_event(ctx, GL_LOG_INFO, "sweep", "%d host(s) alone: %d bad", r->n_hosts, r->n_bad + r->more_bad);
	for (int rd = 0; rd < r->rounds; rd++) {
		int np = gl_sweep_round(r->n_hosts, rd, p), before = r->n_bad + r->more_bad;
		if (mono_ns() - t0 >= o->budget_ns) {
			snprintf(r->outcome, sizeof(r->outcome), "budget");
			break;
		}
		for (int i = 0; i < np; i++) {
			pa[i] = p[i][0];
			pb[i] = p[i][1];
		}
		if (run_batch(ctx, sc, ws->cfg, o, r, jobs, pa, pb, np, err) != 0)
			goto out;
		r->rounds_run++;
		if (ctx)
			gl_ctx_event(ctx, GL_LOG_INFO, "sweep", "round %d of %d: %d pair(s), %d bad", rd + 1, r->rounds,
				     np, r->n_bad + r->more_bad - before);
	}
	r->seconds = (double)(mono_ns() - t0) / 1e9;
	gl_sweep_judge(r, o);
	rc = 0;
out:
	free(jobs);
	if (rc != 0) {
		free(r->pair);
		r->pair = NULL;
	}
	return rc;
}

void gl_sweep_result_free(struct gl_sweep_result *r)
{
	if (!r)
		return;
	free(r->pair);
	r->pair = NULL;
}

/* ---- JSON ------------------------------------------------------------------------------------ */

/* x to 4 significant digits (the report's precision, and a short store
 * document); a cell that made no step as null */
static cJSON *num4(double x)
{
	char b[32];

	if (x < 0 || isnan(x))
		return cJSON_CreateNull();
	snprintf(b, sizeof(b), "%.4g", x);
	return cJSON_CreateNumber(strtod(b, NULL));
}

static const char *state_name(int s)
{
	return s == 1 ? "good" : s == 2 ? "bad" : "not run";
}

/* a suspect's name: the host, or "a<->b" */
static void suspect_name(const struct gl_sweep_result *r, const struct gl_sweep_suspect *s, char *out, size_t n)
{
	if (s->b < 0)
		snprintf(out, n, "%s", r->hosts[s->a]);
	else
		snprintf(out, n, "%s<->%s", r->hosts[s->a], r->hosts[s->b]);
}

cJSON *gl_sweep_json(const struct gl_sweep_result *r, const struct gl_sweep_opts *o)
{
	cJSON *root = cJSON_CreateObject(), *a, *x;
	int n = r->n_hosts;

	if (!root)
		return NULL;
	cJSON_AddStringToObject(root, "workload", "training");
	a = cJSON_AddArrayToObject(root, "hosts");
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(r->hosts[i]));
	a = cJSON_AddArrayToObject(root, "ranks");
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(r->ranks[i]));
	cJSON_AddItemToObject(root, "min_busbw_gbps",
			      o->min_busbw > 0 ? cJSON_CreateNumber(o->min_busbw) : cJSON_CreateNull());
	cJSON_AddNumberToObject(root, "steps", o->steps);
	cJSON_AddNumberToObject(root, "message_bytes", (double)o->message);
	cJSON_AddNumberToObject(root, "tolerance", o->tolerance);
	a = cJSON_AddArrayToObject(root, "single");
	for (int i = 0; i < n; i++) {
		cJSON_AddItemToArray(a, x = cJSON_CreateObject());
		cJSON_AddItemToObject(x, "busbw_gbps", num4(r->single[i].busbw));
		cJSON_AddItemToObject(x, "seconds", num4(r->single[i].seconds));
		cJSON_AddStringToObject(x, "state", state_name(r->single[i].state));
	}
	a = cJSON_AddArrayToObject(root, "pairs");
	for (int i = 0; i < n; i++) {
		cJSON_AddItemToArray(a, x = cJSON_CreateArray());
		for (int j = 0; j < n; j++)
			cJSON_AddItemToArray(x, i == j || !r->pair[i * n + j].state ? cJSON_CreateNull()
										    : num4(r->pair[i * n + j].busbw));
	}
	a = cJSON_AddArrayToObject(root, "bad");
	for (int i = 0; i < r->n_bad; i++) {
		cJSON *h;
		cJSON_AddItemToArray(a, x = cJSON_CreateObject());
		h = cJSON_AddArrayToObject(x, "hosts");
		cJSON_AddItemToArray(h, cJSON_CreateString(r->hosts[r->bad[i].a]));
		if (r->bad[i].b >= 0)
			cJSON_AddItemToArray(h, cJSON_CreateString(r->hosts[r->bad[i].b]));
		cJSON_AddStringToObject(x, "why", r->bad[i].why);
	}
	cJSON_AddNumberToObject(root, "more_bad", r->more_bad);
	cJSON_AddNumberToObject(root, "rounds", r->rounds);
	cJSON_AddNumberToObject(root, "rounds_run", r->rounds_run);
	cJSON_AddNumberToObject(root, "jobs", r->jobs);
	cJSON_AddItemToObject(root, "seconds", num4(r->seconds));
	cJSON_AddStringToObject(root, "outcome", r->outcome);
	cJSON_AddItemToObject(root, "single_median_gbps", num4(r->single_median));
	cJSON_AddItemToObject(root, "pair_median_gbps", num4(r->pair_median));
	a = cJSON_AddArrayToObject(root, "pair_level_gbps");
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, num4(r->row_median[i]));
	for (int k = 0; k < 2; k++) {
		a = cJSON_AddArrayToObject(root, k ? "pair_level_z" : "single_z");
		for (int i = 0; i < n; i++) {
			double z = k ? r->row_z[i] : r->single_z[i];
			cJSON_AddItemToArray(a, isnan(z) ? cJSON_CreateNull() : cJSON_CreateNumber(trunc(z * 10) / 10));
		}
	}
	a = cJSON_AddArrayToObject(root, "suspects");
	for (int i = 0; i < r->n_sus; i++) {
		const struct gl_sweep_suspect *s = &r->sus[i];
		char name[2 * GL_NAME_MAX + 4], host[2 * GL_NAME_MAX + 2];
		suspect_name(r, s, name, sizeof(name));
		if (s->b < 0)
			snprintf(host, sizeof(host), "%s", r->hosts[s->a]);
		else
			snprintf(host, sizeof(host), "%s,%s", r->hosts[s->a], r->hosts[s->b]);
		cJSON_AddItemToArray(a, x = cJSON_CreateObject());
		cJSON_AddStringToObject(x, "kind", s->kind);
		cJSON_AddStringToObject(x, "name", name);
		cJSON_AddStringToObject(x, "host", host);
		cJSON_AddNumberToObject(x, "score", floor(s->score * 10) / 10);
		cJSON_AddStringToObject(x, "evidence", s->evidence);
	}
	return root;
}

/* ---- in a run: before the load ------------------------------------------------------------- */

static void opts_of(const cJSON *s, struct gl_sweep_opts *o)
{
	o->min_busbw = gl_cfg_num(s, "min_busbw", 0);
	o->steps = (int)gl_cfg_int(s, "steps", 4);
	o->message = gl_cfg_size(s, "message", 0);
	o->job_timeout_ns = gl_cfg_dur(s, "job_timeout", 90LL * 1000000000);
	o->budget_ns = gl_cfg_dur(s, "budget", 1800LL * 1000000000);
	o->pairs = gl_cfg_bool(s, "pairs", 1);
	o->parallel = (int)gl_cfg_int(s, "parallel", 32);
	o->tolerance = gl_cfg_num(s, "tolerance", GL_SWEEP_REL);
}

int gl_training_survey(struct gl_ctx *c, const cJSON *cfg)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(cfg, "sweep");
	struct gl_sweep_opts o = { 0 };
	struct gl_sweep_result *r;
	struct gl_err err = { 0 };
	char *have = NULL, *text;
	cJSON *doc;

	if (!cJSON_IsObject(s))
		return 0;
	if (gl_store_doc_get(gl_ctx_store(c), "sweep", &have, &err) != 0 || have) {
		free(have); /* a resumed run: it ran already */
		return 0;
	}
	opts_of(s, &o);
	if (!(r = calloc(1, sizeof(*r)))) {
		gl_ctx_event(c, GL_LOG_ERROR, "sweep", "out of memory");
		return 0;
	}
	gl_ctx_event(c, GL_LOG_INFO, "sweep",
		     "sweeping the training hosts before the load: each alone through the network, then %s, at "
		     "most %.0f s",
		     o.pairs ? "every pair" : "no pairs", (double)o.budget_ns / 1e9);
	if (gl_training_sweep(c, gl_ctx_scenario(c), &o, r, &err) != 0) {
		int stopped = err.code == GL_ESTOPPED;
		gl_ctx_event(c, stopped ? GL_LOG_WARN : GL_LOG_ERROR, "sweep", "%s", err.msg);
		free(r);
		return stopped ? -1 : 0;
	}
	for (int i = 0; i < r->n_sus; i++) {
		char name[2 * GL_NAME_MAX + 4];
		suspect_name(r, &r->sus[i], name, sizeof(name));
		gl_ctx_event(c, GL_LOG_WARN, "sweep", "suspect %s %s (score %.1f): %s", r->sus[i].kind, name,
			     r->sus[i].score, r->sus[i].evidence);
	}
	gl_ctx_event(c, GL_LOG_INFO, "sweep", "%s: %d job(s) in %.0f s, %d of %d round(s), %d suspect(s)", r->outcome,
		     r->jobs, r->seconds, r->rounds_run, r->rounds, r->n_sus);
	doc = gl_sweep_json(r, &o);
	text = doc ? cJSON_PrintUnformatted(doc) : NULL;
	if (!text || gl_store_doc_put(gl_ctx_store(c), "sweep", text, &err) != 0)
		gl_ctx_event(c, GL_LOG_ERROR, "sweep", "not recorded in the store: %s",
			     text ? err.msg : "out of memory");
	free(text);
	cJSON_Delete(doc);
	gl_sweep_result_free(r);
	free(r);
	return 0;
}

/* ---- gauntlet sweep -------------------------------------------------------------------------- */

static void print_text(const struct gl_sweep_result *r, const struct gl_sweep_opts *o)
{
	int n = r->n_hosts;

	printf("sweep: %d host(s): each alone (its slots, 2 ranks at least, shared memory off), then %d pair(s) in "
	       "%d round(s); a job is bad when it fails or runs past %.0f s",
	       n, o->pairs ? n * (n - 1) / 2 : 0, r->rounds, (double)o->job_timeout_ns / 1e9);
	if (o->min_busbw > 0)
		printf(", or its median busbw of %d step(s) is below %g GB/s", o->steps - 1, o->min_busbw);
	printf("\n%-24s %12s %14s %8s %8s\n", "host", "alone GB/s", "pairs' median", "z alone", "z pairs");
	for (int i = 0; i < n; i++) {
		printf("%-24s ", r->hosts[i]);
		if (r->single[i].busbw >= 0)
			printf("%12.4g ", (double)r->single[i].busbw);
		else
			printf("%12s ", r->single[i].state ? "no step" : "-");
		if (!isnan(r->row_median[i]))
			printf("%14.4g ", r->row_median[i]);
		else
			printf("%14s ", "-");
		for (int k = 0; k < 2; k++) {
			double z = k ? r->row_z[i] : r->single_z[i];
			if (isnan(z))
				printf("%8s%s", "-", k ? "\n" : " ");
			else
				printf("%8.1f%s", z, k ? "\n" : " ");
		}
	}
	if (r->rounds_run && n <= 16) {
		printf("pairs, busbw GB/s:\n%-10s", "");
		for (int j = 0; j < n; j++)
			printf(" %9.9s", r->hosts[j]);
		printf("\n");
		for (int i = 0; i < n; i++) {
			printf("%-10.10s", r->hosts[i]);
			for (int j = 0; j < n; j++) {
				const struct gl_sweep_cell *c = &r->pair[i * n + j];
				if (i == j || !c->state || c->busbw < 0)
					printf(" %9s", i == j ? "" : c->state ? "failed" : "-");
				else
					printf(" %9.4g", (double)c->busbw);
			}
			printf("\n");
		}
	}
	for (int i = 0; i < r->n_bad; i++)
		printf("bad: %s%s%s: %s\n", r->hosts[r->bad[i].a], r->bad[i].b < 0 ? " alone" : ",",
		       r->bad[i].b < 0 ? "" : r->hosts[r->bad[i].b], r->bad[i].why);
	for (int i = 0; i < r->n_sus; i++) {
		char name[2 * GL_NAME_MAX + 4];
		suspect_name(r, &r->sus[i], name, sizeof(name));
		printf("suspect %s %s (score %.1f): %s\n", r->sus[i].kind, name, r->sus[i].score, r->sus[i].evidence);
	}
	printf("%s: %d job(s) in %.1f s, %d of %d round(s), %d suspect(s)\n", r->outcome, r->jobs, r->seconds,
	       r->rounds_run, r->rounds, r->n_sus);
}

static int bad_arg(const char *what, const char *val, const char *want)
{
	fprintf(stderr, "gauntlet: sweep: %s: expected %s, got '%s'\n", what, want, val);
	return GL_EXIT_BAD_INPUT;
}

/* one option and its value (i at the option); 1 taken, 0 not this kind,
 * or a GL_EXIT_BAD_INPUT code (negated) */
static int take_opt(const char *a, const char *v, struct gl_sweep_opts *o)
{
	char *end = NULL;

	if (!v)
		return 0;
	if (!strcmp(a, "--min-busbw")) {
		o->min_busbw = strtod(v, &end);
		return !*v || *end || !(o->min_busbw > 0 && o->min_busbw < 1e6) ? -bad_arg(a, v, "GB/s above 0") : 1;
	}
	if (!strcmp(a, "--steps")) {
		long s = strtol(v, &end, 10);
		if (!*v || *end || s < 3 || s > TRN_JOB_STEPS)
			return -bad_arg(a, v, "a whole number of steps, 3 to 4096");
		o->steps = (int)s;
		return 1;
	}
	if (!strcmp(a, "--tolerance")) {
		o->tolerance = strtod(v, &end);
		return !*v || *end || !(o->tolerance >= 0.01 && o->tolerance <= 2)
			       ? -bad_arg(a, v, "a spread of log busbw, 0.01 to 2")
			       : 1;
	}
	if (!strcmp(a, "--parallel")) {
		long s = strtol(v, &end, 10);
		if (!*v || *end || s < 1 || s > 128)
			return -bad_arg(a, v, "a whole number of jobs, 1 to 128");
		o->parallel = (int)s;
		return 1;
	}
	if (!strcmp(a, "--message"))
		return gl_parse_size_bytes(v, &o->message, NULL) != 0 || !o->message
			       ? -bad_arg(a, v, "a size such as 1MiB")
			       : 1;
	if (!strcmp(a, "--job-timeout") || !strcmp(a, "--budget")) {
		int64_t ns;
		if (gl_parse_duration_ns(v, &ns, NULL) != 0 || ns <= 0)
			return -bad_arg(a, v, "a duration such as 60s");
		*(a[2] == 'j' ? &o->job_timeout_ns : &o->budget_ns) = ns;
		return 1;
	}
	return 0;
}

int gl_training_sweep_main(int argc, char **argv)
{
	struct gl_sweep_opts o = { .steps = 10,
				   .job_timeout_ns = 60LL * 1000000000,
				   .budget_ns = 1800LL * 1000000000,
				   .pairs = 1,
				   .parallel = 32,
				   .tolerance = GL_SWEEP_REL };
	struct gl_sweep_result *r = NULL;
	const char *path = NULL, *sets[65];
	struct gl_err err = { 0 };
	struct gl_scenario *sc = NULL;
	int n_sets = 0, json = 0, code = GL_EXIT_BAD_INPUT, t;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if ((t = take_opt(a, v, &o)) < 0)
			return -t;
		if (t) {
			i++;
		} else if (!strcmp(a, "--no-pairs")) {
			o.pairs = 0;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--set") && v) {
			if (n_sets == 64)
				return bad_arg(a, v, "at most 64 --set");
			sets[n_sets++] = v;
			i++;
		} else if (a[0] == '-' || path) {
			fprintf(stderr, "gauntlet: sweep: unexpected argument '%s' (sweep --help)\n", a);
			return GL_EXIT_BAD_INPUT;
		} else {
			path = a;
		}
	}
	if (!path) {
		fprintf(stderr, "gauntlet: sweep: usage: gauntlet sweep SCENARIO [--min-busbw GBPS] [--steps N] "
				"[--message SIZE]\n"
				"       [--job-timeout DURATION] [--budget DURATION] [--parallel N] [--tolerance F] "
				"[--no-pairs]\n       [--set path=value]... [--json]\n");
		return GL_EXIT_BAD_INPUT;
	}
	sets[n_sets] = NULL;
	if (!(sc = trn_cli_scenario(path, sets)))
		goto out;
	r = calloc(1, sizeof(*r));
	code = GL_EXIT_HARNESS_ERROR;
	if (!r)
		goto out;
	if (gl_training_sweep(NULL, sc, &o, r, &err) != 0) {
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		code = err.code == GL_EINVAL ? GL_EXIT_BAD_INPUT : GL_EXIT_HARNESS_ERROR;
		goto out;
	}
	if (json) {
		cJSON *root = gl_sweep_json(r, &o);
		char *s = root ? cJSON_Print(root) : NULL;
		if (s)
			printf("%s\n", s);
		free(s);
		cJSON_Delete(root);
	} else {
		print_text(r, &o);
	}
	code = r->n_sus == 0 && !strcmp(r->outcome, "done") ? 0 : 1;
out:
	gl_sweep_result_free(r);
	free(r);
	gl_scenario_free(sc);
	return code;
}
