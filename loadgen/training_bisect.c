/*
 * training_bisect.c - find the host that slows a multi-host all-reduce
 * (training_bisect.h; docs/nodes.md, "Bisection").
 *
 * Each job is gauntlet-train over a subset of the training workload's
 * hosts, one rank per host, launched as the workload launches (its
 * launcher, mca, env and launcher_args), with no compute and no
 * checkpoint: only the all-reduce is timed. A job is bad when it fails,
 * runs past its timeout, or its median busbw is below the threshold.
 *
 * The search assumes one bad host. The candidates start as every host;
 * each round tests the first half of them (a lone host with one host
 * already seen good, since one rank alone makes no traffic): a bad half
 * holds the culprit (the other half is then taken as good), a good one
 * clears its hosts. One candidate left is named only once two bad jobs
 * share it and no other host (a fault between two hosts is in every job
 * with both: it never names a host); pairs of it and a good host supply
 * them. Once the set is known bad, N hosts take at most ceil(log2 N) + 2
 * jobs, one more with the whole set run first
 * (tests/unit/test_bisect_search.c checks every N to 64).
 */
#define _GNU_SOURCE
#include "training_bisect.h"
#include "training_int.h"
#include "training_jobs.h"

#include <time.h>

#include "diag.h"
#include "states.h"
#include "stop.h"

#define MAX_STEPS TRN_JOB_STEPS

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int in_set(const struct gl_bisect_job *j, int h)
{
	for (int i = 0; i < j->n; i++)
		if (j->host[i] == h)
			return 1;
	return 0;
}

/* c is the culprit when two bad jobs share it and no other host: a fault
 * between two hosts (a link) is in every job that holds both, so it never
 * names either, nor a third. Its partners in those jobs are hosts a job
 * that passed cleared (the search pairs it with no other), so two bad
 * hosts never name a healthy third. */
static int confirmed(const struct gl_bisect_result *r, int c)
{
	for (int k = 0; k < r->n_jobs; k++)
		for (int g = k + 1; g < r->n_jobs; g++) {
			const struct gl_bisect_job *a = &r->jobs[k], *b = &r->jobs[g];
			int shared = 0;
			if (!a->bad || !b->bad || !in_set(a, c) || !in_set(b, c))
				continue;
			for (int i = 0; i < a->n; i++)
				shared += a->host[i] != c && in_set(b, a->host[i]);
			if (!shared)
				return 1;
		}
	return 0;
}

/* Has a job of exactly {c, h} run? */
static int paired(const struct gl_bisect_result *r, int c, int h)
{
	for (int k = 0; k < r->n_jobs; k++)
		if (r->jobs[k].n == 2 && in_set(&r->jobs[k], c) && in_set(&r->jobs[k], h))
			return 1;
	return 0;
}

static int read_host_names(const struct gl_scenario *sc, const cJSON *cfg, struct gl_bisect_result *r,
			   struct gl_err *err)
{
	const cJSON *h;

	cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(cfg, "hosts"))
	{
		char name[GL_NAME_MAX];
		int seen = 0;
		if (!cJSON_IsString(h))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(h->valuestring, ":"), h->valuestring);
		if (!gl_scenario_host(sc, name))
			return gl_errf(err, GL_EINVAL, "bisect: training.hosts: unknown host '%s'", name);
		for (int i = 0; i < r->n_hosts && !seen; i++)
			seen = !strcmp(r->hosts[i], name);
		if (seen)
			continue;
		if (r->n_hosts == GL_BISECT_HOSTS)
			return gl_errf(err, GL_EINVAL, "bisect: more than %d hosts", GL_BISECT_HOSTS);
		snprintf(r->hosts[r->n_hosts++], sizeof(r->hosts[0]), "%s", name);
	}
	if (r->n_hosts < 2)
		return gl_errf(err, GL_EINVAL,
			       "bisect: training.hosts names %d host(s): bisection needs 2 or more (3 to "
			       "name one)",
			       r->n_hosts);
	return 0;
}

/* The bad of a job already run over exactly h[0..n) and extra (-1:
 * none), or -1 when none was. */
static int ran_before(const struct gl_bisect_result *r, const int *h, int n, int extra)
{
	for (int k = 0; k < r->n_jobs; k++) {
		const struct gl_bisect_job *j = &r->jobs[k];
		int same = j->n == n + (extra >= 0);
		for (int i = 0; i < n && same; i++)
			same = in_set(j, h[i]);
		if (same && (extra < 0 || in_set(j, extra)))
			return j->bad;
	}
	return -1;
}

/* One job over h[0..n) and extra (-1: none), unless that set ran
 * already: its bad (0 or 1), -1 on the runner's error, -2 out of time or
 * jobs. */
static int try_set(const struct gl_bisect_opts *o, gl_bisect_run_fn run, void *arg, struct gl_bisect_result *r,
		   const int *h, int n, int extra, int64_t budget_end, struct gl_err *err)
{
	struct gl_bisect_job *j;
	int before = ran_before(r, h, n, extra);

	(void)o;
	if (before >= 0)
		return before;
	if (r->n_jobs == GL_BISECT_JOBS || mono_ns() >= budget_end)
		return -2;
	j = memset(&r->jobs[r->n_jobs], 0, sizeof(r->jobs[0]));
	for (int i = 0; i < n; i++)
		j->host[j->n++] = h[i];
	if (extra >= 0)
		j->host[j->n++] = extra;
	if (run(arg, r, j, err) != 0)
		return -1;
	r->n_jobs++;
	return j->bad;
}

/* The link a<->b named when {a, b} fails and a and b each pass beside a
 * third host g (one a good job cleared, else any): 1 named (r->link), 0
 * not, -1 the runner's error, -2 out of time or jobs. */
static int name_link(const struct gl_bisect_opts *o, gl_bisect_run_fn run, void *arg, struct gl_bisect_result *r, int a,
		     int b, int64_t budget_end, struct gl_err *err)
{
	int g = -1, rc, one[1] = { a };

	for (int k = 0; k < r->n_jobs && g < 0; k++)
		for (int i = 0; i < r->jobs[k].n && g < 0 && !r->jobs[k].bad; i++)
			if (r->jobs[k].host[i] != a && r->jobs[k].host[i] != b)
				g = r->jobs[k].host[i];
	for (int i = 0; i < r->n_hosts && g < 0; i++)
		if (i != a && i != b)
			g = i;
	if ((rc = try_set(o, run, arg, r, one, 1, b, budget_end, err)) != 1 ||
	    (rc = try_set(o, run, arg, r, one, 1, g, budget_end, err)) != 0)
		return rc < 0 ? rc : 0;
	one[0] = b;
	if ((rc = try_set(o, run, arg, r, one, 1, g, budget_end, err)) != 0)
		return rc < 0 ? rc : 0;
	r->link[0] = a < b ? a : b;
	r->link[1] = a < b ? b : a;
	return 1;
}

/* When the bad jobs point at no single host: a bad link, between two
 * hosts. Within S (the smallest bad job, else every host, the set known
 * bad), the shortest prefix that fails ends with one end, b; the shortest
 * prefix that fails with b added ends with the other, a (binary searches:
 * exact when every job with both ends fails). But a collective joins only
 * some pairs directly (a ring its neighbours), so when that names nothing
 * every pair of S runs in turn, as far as the jobs and the time allow,
 * until one fails. Named only by name_link: a bad host, two of them, or a
 * failure that comes and goes are never named a link. 1 named, 0 not, -1
 * the runner's error, -2 out of time or jobs. */
static int link_search(const struct gl_bisect_opts *o, gl_bisect_run_fn run, void *arg, struct gl_bisect_result *r,
		       int64_t budget_end, struct gl_err *err)
{
	int s[GL_BISECT_HOSTS], m = 0, best = -1, lo = 2, hi, b, rc, one[1];

	for (int k = 0; k < r->n_jobs; k++)
		if (r->jobs[k].bad && (best < 0 || r->jobs[k].n < r->jobs[best].n))
			best = k;
	for (int i = 0; i < (best >= 0 ? r->jobs[best].n : r->n_hosts); i++)
		s[m++] = best >= 0 ? r->jobs[best].host[i] : i;
	if (m < 2 || r->n_hosts < 3)
		return 0;
	for (hi = m; lo < hi;) { /* b: the shortest failing prefix's last */
		int mid = (lo + hi) / 2;
		if ((rc = try_set(o, run, arg, r, s, mid, -1, budget_end, err)) < 0)
			return rc;
		*(rc ? &hi : &lo) = rc ? mid : mid + 1;
	}
	b = s[lo - 1];
	for (hi = lo - 1, lo = 1; lo < hi;) { /* a: the same, b added to each */
		int mid = (lo + hi) / 2;
		if ((rc = try_set(o, run, arg, r, s, mid, b, budget_end, err)) < 0)
			return rc;
		*(rc ? &hi : &lo) = rc ? mid : mid + 1;
	}
	if ((rc = name_link(o, run, arg, r, s[lo - 1], b, budget_end, err)) != 0)
		return rc;
	for (int i = 0; i < m; i++)
		for (int k = i + 1; k < m; k++) {
			one[0] = s[i];
			if ((rc = try_set(o, run, arg, r, one, 1, s[k], budget_end, err)) < 0)
				return rc;
			if (rc == 1)
				return name_link(o, run, arg, r, s[i], s[k], budget_end, err);
		}
	return 0;
}

/* r->detail, for its outcome; nc: the candidates left */
static void describe(struct gl_bisect_result *r, int nc)
{
	if (!strcmp(r->outcome, "culprit"))
		snprintf(r->detail, sizeof(r->detail), "%s: two bad jobs share it and no other host (%d job(s))",
			 r->hosts[r->culprit], r->n_jobs);
	else if (!strcmp(r->outcome, "link"))
		snprintf(r->detail, sizeof(r->detail),
			 "the link between %s and %s: a job fails with both, each passes beside a third host (%d "
			 "job(s))",
			 r->hosts[r->link[0]], r->hosts[r->link[1]], r->n_jobs);
	else if (!strcmp(r->outcome, "clean"))
		snprintf(r->detail, sizeof(r->detail), "every host together passed: no host to bisect");
	else if (!strcmp(r->outcome, "budget"))
		snprintf(r->detail, sizeof(r->detail), "out of time or jobs after %d job(s), %d candidate(s) left",
			 r->n_jobs, nc);
	else
		snprintf(r->detail, sizeof(r->detail),
			 "the bad jobs point at no single host or link (more than one bad host or link, or a "
			 "failure that comes and goes): %d job(s)",
			 r->n_jobs);
}

/* No cleared host to pair the first candidate with: a job over two hosts
 * that are not candidates and not yet cleared, else one and another
 * candidate (cand[1..*nc)), to clear them. 1 on progress: it passed (both
 * cleared, good[] set), or it failed holding that other candidate, which
 * becomes the only one (the bad host is in both failing sets); 0 when
 * there was no such job or it failed without a candidate (a second
 * fault); -1 the runner's error, -2 out of time or jobs. */
static int clear_two(const struct gl_bisect_opts *o, gl_bisect_run_fn run, void *arg, struct gl_bisect_result *r,
		     int *good, int *cand, int *nc, int64_t budget_end, struct gl_err *err)
{
	int h[2] = { -1, -1 }, rc, is_cand[GL_BISECT_HOSTS] = { 0 };

	for (int i = 0; i < *nc; i++)
		is_cand[cand[i]] = 1;
	for (int i = 0; i < r->n_hosts && h[1] < 0; i++)
		if (!is_cand[i] && good[i] != 1)
			h[h[0] < 0 ? 0 : 1] = i;
	if (h[0] >= 0 && h[1] < 0 && *nc > 1)
		h[1] = cand[1];
	if (h[1] < 0)
		return 0;
	if ((rc = try_set(o, run, arg, r, h, 2, -1, budget_end, err)) < 0)
		return rc;
	if (rc == 0) {
		good[h[0]] = good[h[1]] = 1;
		return 1;
	}
	if (!is_cand[h[1]])
		return 0;
	cand[0] = h[1];
	*nc = 1;
	return 1;
}

int gl_bisect_search(const struct gl_bisect_opts *o, gl_bisect_run_fn run, void *arg, struct gl_bisect_result *r,
		     struct gl_err *err)
{
	/* good[h]: 1 cleared by a good job, 2 left out beside a bad half */
	int cand[GL_BISECT_HOSTS], good[GL_BISECT_HOSTS] = { 0 }, nc = r->n_hosts;
	int64_t budget_end = mono_ns() + o->budget_ns;

	r->n_jobs = 0;
	r->culprit = r->link[0] = r->link[1] = -1;
	r->outcome[0] = '\0';
	for (int i = 0; i < nc; i++)
		cand[i] = i;
#define NEXT_JOB()                                                            \
	do {                                                                  \
		if (r->n_jobs == GL_BISECT_JOBS || mono_ns() >= budget_end) { \
			snprintf(r->outcome, sizeof(r->outcome), "budget");   \
			goto done;                                            \
		}                                                             \
	} while (0)
	if (o->test_all) {
		struct gl_bisect_job *j;
		NEXT_JOB();
		j = memset(&r->jobs[r->n_jobs], 0, sizeof(r->jobs[0]));
		for (int i = 0; i < nc; i++)
			j->host[j->n++] = i;
		if (run(arg, r, j, err) != 0)
			return -1;
		r->n_jobs++;
		if (!j->bad) {
			snprintf(r->outcome, sizeof(r->outcome), "clean");
			goto done;
		}
	}
	while (nc > 1 || (nc == 1 && !confirmed(r, cand[0]))) {
		int na = (nc + 1) / 2, helper = -1;
		struct gl_bisect_job *j;

		/* a lone candidate's partner: a cleared host, never one it was
		 * paired with already (two bad pairs share only it); none
		 * left: a job that clears two others first */
		for (int i = 0; na == 1 && i < r->n_hosts && helper < 0; i++)
			if (good[i] == 1 && !paired(r, cand[0], i))
				helper = i;
		if (na == 1 && helper < 0) {
			int rc = clear_two(o, run, arg, r, good, cand, &nc, budget_end, err);
			if (rc == -1)
				return -1;
			if (rc == -2) {
				snprintf(r->outcome, sizeof(r->outcome), "budget");
				goto done;
			}
			if (rc == 0)
				break;
			continue;
		}
		NEXT_JOB();
		j = memset(&r->jobs[r->n_jobs], 0, sizeof(r->jobs[0]));
		for (int i = 0; i < na; i++)
			j->host[j->n++] = cand[i];
		if (na == 1)
			j->host[j->n++] = helper;
		if (run(arg, r, j, err) != 0)
			return -1;
		r->n_jobs++;
		if (j->bad) {
			for (int i = na; i < nc; i++)
				good[cand[i]] = good[cand[i]] ? good[cand[i]] : 2;
			nc = na;
			continue;
		}
		for (int i = 0; i < j->n; i++)
			good[j->host[i]] = 1;
		if (nc == 1) { /* the last candidate with a cleared host: good */
			nc = 0;
			break;
		}
		memmove(cand, cand + na, (size_t)(nc - na) * sizeof(int));
		nc -= na;
	}
#undef NEXT_JOB
	if (nc == 1 && confirmed(r, cand[0])) {
		r->culprit = cand[0];
		snprintf(r->outcome, sizeof(r->outcome), "culprit");
	} else {
		int lr = link_search(o, run, arg, r, budget_end, err);
		if (lr == -1)
			return -1;
		snprintf(r->outcome, sizeof(r->outcome), "%s", lr == 1 ? "link" : lr == -2 ? "budget" : "not isolated");
	}
done:
	describe(r, nc);
	return 0;
}

/* gl_bisect_search's jobs, run for real */
struct real_run {
	struct gl_ctx *ctx; /* NULL: `gauntlet bisect`, no run */
	const struct gl_scenario *sc;
	const cJSON *cfg;
	const struct gl_bisect_opts *o;
};

static int real_job(void *arg, const struct gl_bisect_result *r, struct gl_bisect_job *j, struct gl_err *err)
{
	const struct real_run *rr = arg;
	struct trn_job_opts jo = { rr->o->steps, rr->o->message, rr->o->job_timeout_ns, rr->o->min_busbw, "bisect" };
	struct trn_job *t = calloc(1, sizeof(*t));
	char hosts[512] = "", bw[48] = "no step";

	if (!t)
		return gl_errf(err, GL_ENOMEM, "bisect: out of memory");
	t->n = j->n;
	for (int i = 0; i < j->n; i++) {
		t->host[i] = r->hosts[j->host[i]];
		t->ranks[i] = 1;
	}
	if (trn_jobs_run(rr->ctx, rr->sc, rr->cfg, &jo, t, 1, err) != 0) {
		if (err->code == GL_ESTOPPED)
			gl_errf(err, GL_ESTOPPED, "bisect: stopped by %s after %d job(s)",
				gl_stop_name(gl_stop_interrupts()), r->n_jobs);
		free(t);
		return -1;
	}
	j->busbw = t->busbw;
	j->steps = t->steps;
	j->exit_code = t->exit_code;
	j->timed_out = t->timed_out;
	j->bad = t->bad;
	j->wall_ns = t->wall_ns;
	snprintf(j->why, sizeof(j->why), "%s", t->why);
	snprintf(j->command, sizeof(j->command), "%s", t->command);
	trn_job_hosts_text(t, hosts, sizeof(hosts));
	free(t);
	if (!rr->ctx)
		return 0;
	/* a run's: each job in its event log as it ends */
	if (j->busbw >= 0)
		snprintf(bw, sizeof(bw), "busbw %.4g GB/s", j->busbw);
	gl_ctx_event(rr->ctx, j->bad ? GL_LOG_WARN : GL_LOG_INFO, "bisect", "job %d: %s: %s, %.1f s: %s%s%s",
		     r->n_jobs + 1, hosts, bw, (double)j->wall_ns / 1e9, j->bad ? "bad (" : "good",
		     j->bad ? j->why : "", j->bad ? ")" : "");
	return 0;
}

int gl_training_bisect(struct gl_ctx *ctx, const struct gl_scenario *sc, const struct gl_bisect_opts *o,
		       struct gl_bisect_result *r, struct gl_err *err)
{
	const struct gl_workload_spec *ws = gl_scenario_workload(sc, "training");
	struct real_run rr = { ctx, sc, ws ? ws->cfg : NULL, o };
	const char *be;

	memset(r, 0, sizeof(*r));
	r->culprit = -1;
	if (!ws)
		return gl_errf(err, GL_EINVAL, "bisect: the scenario has no training workload");
	be = gl_cfg_str(ws->cfg, "backend", "mpi");
	if (strcmp(be, "mpi") && strcmp(be, "nccl"))
		return gl_errf(err, GL_EINVAL,
			       "bisect: training.backend '%s': bisection runs gauntlet-train (mpi or nccl)", be);
	if (read_host_names(sc, ws->cfg, r, err) != 0)
		return -1;
	return gl_bisect_search(o, real_job, &rr, r, err);
}

/* ---- after a failed run ------------------------------------------------------------------- */

int gl_training_diagnose(struct gl_ctx *c, const cJSON *cfg, const char *failed)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(cfg, "bisect");
	struct gl_bisect_opts o = { 0 };
	struct gl_bisect_result *r;
	struct gl_err err = { 0 };
	char *have = NULL, *text;
	cJSON *doc;
	int put = 0;

	if (!cJSON_IsObject(b))
		return 0;
	if (gl_store_doc_get(gl_ctx_store(c), "bisect", &have, &err) != 0 || have) {
		free(have); /* a resumed run's end: it ran already */
		return 0;
	}
	o.min_busbw = gl_cfg_num(b, "min_busbw", 0);
	o.steps = (int)gl_cfg_int(b, "steps", 4);
	o.message = gl_cfg_size(b, "message", 0);
	o.job_timeout_ns = gl_cfg_dur(b, "job_timeout", 90LL * 1000000000);
	o.budget_ns = gl_cfg_dur(b, "budget", 600LL * 1000000000);
	o.test_all = 0; /* the run failed: the set is known bad */
	gl_ctx_event(c, GL_LOG_WARN, "bisect",
		     "the training targets failed (%s): bisecting the training hosts, busbw below %g GB/s bad, "
		     "at most %.0f s",
		     failed, o.min_busbw, (double)o.budget_ns / 1e9);
	if (!(r = calloc(1, sizeof(*r)))) {
		gl_ctx_event(c, GL_LOG_ERROR, "bisect", "out of memory");
		return 0;
	}
	if (gl_training_bisect(c, gl_ctx_scenario(c), &o, r, &err) != 0) {
		gl_ctx_event(c, GL_LOG_ERROR, "bisect", "%s", err.msg);
		free(r);
		return 0;
	}
	if (r->culprit >= 0)
		gl_ctx_event(c, GL_LOG_WARN, "bisect", "culprit %s in %d job(s): %s", r->hosts[r->culprit], r->n_jobs,
			     r->detail);
	else
		gl_ctx_event(c, GL_LOG_WARN, "bisect", "%s in %d job(s): %s", r->outcome, r->n_jobs, r->detail);
	doc = gl_bisect_json(r, &o);
	if (doc) {
		cJSON_AddStringToObject(doc, "trigger", failed);
		cJSON_AddStringToObject(doc, "workload", "training");
	}
	text = doc ? cJSON_PrintUnformatted(doc) : NULL;
	if (!text || gl_store_doc_put(gl_ctx_store(c), "bisect", text, &err) != 0)
		gl_ctx_event(c, GL_LOG_ERROR, "bisect", "not recorded in the store: %s",
			     text ? err.msg : "out of memory");
	else
		put = 1;
	free(text);
	cJSON_Delete(doc);
	free(r);
	return put;
}

/* ---- gauntlet bisect ---------------------------------------------------------------------- */

static void print_hosts(const struct gl_bisect_result *r, const struct gl_bisect_job *j)
{
	for (int i = 0; i < j->n; i++)
		printf("%s%s", i ? "," : "", r->hosts[j->host[i]]);
}

static void print_text(const struct gl_bisect_result *r, const struct gl_bisect_opts *o)
{
	printf("bisect: %d host(s); a job is bad when it fails, runs past %.0f s, or its median busbw of %d "
	       "step(s) is below %g GB/s\n",
	       r->n_hosts, (double)o->job_timeout_ns / 1e9, o->steps - 1, o->min_busbw);
	for (int k = 0; k < r->n_jobs; k++) {
		const struct gl_bisect_job *j = &r->jobs[k];
		printf("job %d: %d host(s) ", k + 1, j->n);
		print_hosts(r, j);
		if (j->busbw >= 0)
			printf(": busbw %.4g GB/s (median of %d steps)", j->busbw, j->steps);
		else
			printf(": no step");
		printf(", %.1f s: %s%s%s%s\n", (double)j->wall_ns / 1e9, j->bad ? "bad" : "good", j->bad ? " (" : "",
		       j->bad ? j->why : "", j->bad ? ")" : "");
	}
	if (r->culprit >= 0)
		printf("culprit: %s in %d job(s): %s\n", r->hosts[r->culprit], r->n_jobs, r->detail);
	else
		printf("%s: %s\n", r->outcome, r->detail);
}

cJSON *gl_bisect_json(const struct gl_bisect_result *r, const struct gl_bisect_opts *o)
{
	cJSON *root = cJSON_CreateObject(), *hosts = cJSON_AddArrayToObject(root, "hosts"), *jobs;

	for (int i = 0; i < r->n_hosts; i++)
		cJSON_AddItemToArray(hosts, cJSON_CreateString(r->hosts[i]));
	cJSON_AddNumberToObject(root, "min_busbw_gbps", o->min_busbw);
	jobs = cJSON_AddArrayToObject(root, "jobs");
	for (int k = 0; k < r->n_jobs; k++) {
		const struct gl_bisect_job *j = &r->jobs[k];
		cJSON *jj = cJSON_CreateObject(), *jh = cJSON_AddArrayToObject(jj, "hosts");
		for (int i = 0; i < j->n; i++)
			cJSON_AddItemToArray(jh, cJSON_CreateString(r->hosts[j->host[i]]));
		if (j->busbw >= 0)
			cJSON_AddNumberToObject(jj, "busbw_gbps", j->busbw);
		else
			cJSON_AddNullToObject(jj, "busbw_gbps");
		cJSON_AddNumberToObject(jj, "steps", j->steps);
		cJSON_AddNumberToObject(jj, "exit", j->exit_code);
		cJSON_AddBoolToObject(jj, "timed_out", j->timed_out);
		cJSON_AddNumberToObject(jj, "seconds", (double)j->wall_ns / 1e9);
		cJSON_AddBoolToObject(jj, "bad", j->bad);
		cJSON_AddStringToObject(jj, "why", j->why);
		cJSON_AddStringToObject(jj, "command", j->command);
		cJSON_AddItemToArray(jobs, jj);
	}
	cJSON_AddStringToObject(root, "outcome", r->outcome);
	if (r->culprit >= 0)
		cJSON_AddStringToObject(root, "culprit", r->hosts[r->culprit]);
	else
		cJSON_AddNullToObject(root, "culprit");
	if (r->link[0] >= 0) {
		cJSON *l = cJSON_AddArrayToObject(root, "link");
		cJSON_AddItemToArray(l, cJSON_CreateString(r->hosts[r->link[0]]));
		cJSON_AddItemToArray(l, cJSON_CreateString(r->hosts[r->link[1]]));
	} else {
		cJSON_AddNullToObject(root, "link");
	}
	cJSON_AddStringToObject(root, "detail", r->detail);
	return root;
}

static void print_json(const struct gl_bisect_result *r, const struct gl_bisect_opts *o)
{
	cJSON *root = gl_bisect_json(r, o);
	char *s = root ? cJSON_Print(root) : NULL;

	if (s)
		printf("%s\n", s);
	free(s);
	cJSON_Delete(root);
}

static int bad_arg(const char *what, const char *val, const char *want)
{
	fprintf(stderr, "gauntlet: bisect: %s: expected %s, got '%s'\n", what, want, val);
	return GL_EXIT_BAD_INPUT;
}

int gl_training_bisect_main(int argc, char **argv)
{
	struct gl_bisect_opts o = { .min_busbw = -1,
				    .steps = 10,
				    .job_timeout_ns = 60LL * 1000000000,
				    .budget_ns = 600LL * 1000000000,
				    .test_all = 1 };
	struct gl_bisect_result *r = NULL;
	const char *path = NULL, *sets[65];
	struct gl_err err = { 0 };
	struct gl_scenario *sc = NULL;
	int n_sets = 0, json = 0, code = GL_EXIT_BAD_INPUT;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "--min-busbw") && v) {
			o.min_busbw = strtod(v, &end);
			if (!*v || *end || !(o.min_busbw > 0 && o.min_busbw < 1e6))
				return bad_arg(a, v, "GB/s above 0");
			i++;
		} else if (!strcmp(a, "--steps") && v) {
			long s = strtol(v, &end, 10);
			if (!*v || *end || s < 3 || s > MAX_STEPS)
				return bad_arg(a, v, "a whole number of steps, 3 to 4096");
			o.steps = (int)s;
			i++;
		} else if (!strcmp(a, "--message") && v) {
			if (gl_parse_size_bytes(v, &o.message, NULL) != 0 || !o.message)
				return bad_arg(a, v, "a size such as 1MiB");
			i++;
		} else if ((!strcmp(a, "--job-timeout") || !strcmp(a, "--budget")) && v) {
			int64_t ns;
			if (gl_parse_duration_ns(v, &ns, NULL) != 0 || ns <= 0)
				return bad_arg(a, v, "a duration such as 60s");
			*(a[2] == 'j' ? &o.job_timeout_ns : &o.budget_ns) = ns;
			i++;
		} else if (!strcmp(a, "--known-bad")) {
			o.test_all = 0;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--set") && v) {
			if (n_sets == 64)
				return bad_arg(a, v, "at most 64 --set");
			sets[n_sets++] = v;
			i++;
		} else if (a[0] == '-' || path) {
			fprintf(stderr, "gauntlet: bisect: unexpected argument '%s' (bisect --help)\n", a);
			return GL_EXIT_BAD_INPUT;
		} else {
			path = a;
		}
	}
	if (!path || o.min_busbw < 0) {
		fprintf(stderr, "gauntlet: bisect: usage: gauntlet bisect SCENARIO --min-busbw GBPS [--steps N] "
				"[--message SIZE]\n"
				"       [--job-timeout DURATION] [--budget DURATION] [--known-bad] [--set "
				"path=value]... [--json]\n");
		return GL_EXIT_BAD_INPUT;
	}
	sets[n_sets] = NULL;
	if (!(sc = trn_cli_scenario(path, sets)))
		goto out;
	r = calloc(1, sizeof(*r));
	code = GL_EXIT_HARNESS_ERROR;
	if (!r)
		goto out;
	if (gl_training_bisect(NULL, sc, &o, r, &err) != 0) {
		fprintf(stderr, "gauntlet: %s\n", err.msg);
		code = err.code == GL_EINVAL ? GL_EXIT_BAD_INPUT : GL_EXIT_HARNESS_ERROR;
		goto out;
	}
	if (json)
		print_json(r, &o);
	else
		print_text(r, &o);
	code = !strcmp(r->outcome, "clean") ? 0 : 1;
out:
	free(r);
	gl_scenario_free(sc);
	return code;
}
