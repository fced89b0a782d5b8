/*
 * test_bisect_search.c - the bisection's search (gl_bisect_search,
 * loadgen/training_bisect.h; docs/nodes.md "Bisection") against an exact
 * oracle: a job is bad when it holds the bad host (or, for a bad link,
 * both its ends). For every N from 2 to 64 and every bad host: the
 * culprit named (N >= 3) in at most ceil(log2 N) + 2 jobs with the set
 * known bad (--known-bad), one more with the whole set run first; no bad
 * host: clean in one job; a bad link between two hosts, wherever it is,
 * N from 3 to 64: never a host named, the link named; two bad hosts:
 * never a link; out of time: "budget".
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "training_bisect.h"

struct oracle {
	int bad[2]; /* hosts whose presence makes a job bad; -1 none */
	/* 1: bad only with both (a link between them, every job with both
	 * using it); 2: with either (two bad hosts); 3: a link a ring uses
	 * only when its ends are neighbours in the job's order */
	int both;
	int jobs;
};

static int job(void *arg, const struct gl_bisect_result *r, struct gl_bisect_job *j, struct gl_err *err)
{
	struct oracle *o = arg;
	int has[2] = { 0, 0 };

	(void)r;
	(void)err;
	for (int i = 0; i < j->n; i++)
		for (int k = 0; k < 2; k++)
			has[k] |= o->bad[k] >= 0 && j->host[i] == o->bad[k];
	j->bad = o->both == 1 ? has[0] && has[1] : o->both == 2 ? has[0] || has[1] : has[0];
	if (o->both == 3) {
		j->bad = 0;
		for (int i = 0; i < j->n; i++) {
			int x = j->host[i], y = j->host[(i + 1) % j->n];
			j->bad |= (x == o->bad[0] && y == o->bad[1]) || (x == o->bad[1] && y == o->bad[0]);
		}
	}
	j->busbw = j->bad ? 0.0001 : 1.0;
	j->steps = 3;
	if (j->bad)
		snprintf(j->why, sizeof(j->why), "busbw below");
	o->jobs++;
	return 0;
}

static int ceil_log2(int n)
{
	int k = 0;

	while ((1 << k) < n)
		k++;
	return k;
}

static void setup(struct gl_bisect_result *r, int n)
{
	memset(r, 0, sizeof(*r));
	r->n_hosts = n;
	for (int i = 0; i < n; i++)
		snprintf(r->hosts[i], sizeof(r->hosts[i]), "h%d", i);
}

static struct gl_bisect_result res;

int main(void)
{
	struct gl_bisect_opts o = { .min_busbw = 0.001, .steps = 3, .budget_ns = 3600LL * 1000000000 };
	struct gl_err err = { 0 };
	int worst[2][2] = { { 0, 0 }, { 0, 0 } }; /* [whole set first][8 hosts, 64 hosts] */
	int worst_link[2][2] = { { 0, 0 }, { 0, 0 } };

	for (int all = 1; all >= 0; all--) {
		o.test_all = all;
		for (int n = 2; n <= 64; n++)
			for (int b = 0; b < n; b++) {
				struct oracle orc = { { b, -1 }, 0, 0 };
				int bound = 2 + all + ceil_log2(n);
				setup(&res, n);
				CHECK(gl_bisect_search(&o, job, &orc, &res, &err) == 0);
				if (n == 2) { /* two hosts: the pair fails, nothing to tell them apart by */
					CHECKF(!strcmp(res.outcome, "not isolated"), "n 2 bad %d: %s", b, res.outcome);
					continue;
				}
				CHECKF(!strcmp(res.outcome, "culprit") && res.culprit == b,
				       "n %d bad %d all %d: %s culprit %d", n, b, all, res.outcome, res.culprit);
				CHECKF(res.n_jobs <= bound, "n %d bad %d all %d: %d jobs, bound %d", n, b, all,
				       res.n_jobs, bound);
				CHECK(res.n_jobs == orc.jobs);
				if ((n == 8 || n == 64) && res.n_jobs > worst[all][n == 64])
					worst[all][n == 64] = res.n_jobs;
			}
	}
	printf("worst case, set known bad: 8 hosts %d jobs, 64 hosts %d; whole set first: %d, %d\n", worst[0][0],
	       worst[0][1], worst[1][0], worst[1][1]);
	/* the bound is reached: ceil(log2 N) + 2, one more with the whole set */
	CHECKF(worst[0][0] == 5 && worst[0][1] == 8 && worst[1][0] == 6 && worst[1][1] == 9, "worst %d %d %d %d",
	       worst[0][0], worst[0][1], worst[1][0], worst[1][1]);

	/* no bad host: clean after the one job over every host */
	{
		struct oracle orc = { { -1, -1 }, 0, 0 };
		o.test_all = 1;
		setup(&res, 8);
		CHECK(gl_bisect_search(&o, job, &orc, &res, &err) == 0);
		CHECKF(!strcmp(res.outcome, "clean") && res.n_jobs == 1 && res.culprit < 0, "%s %d", res.outcome,
		       res.n_jobs);
	}
	/* a bad link, between any two hosts of N (3 to 64), the set known bad
	 * or not: no host named, the link named, in at most 3 ceil(log2 N) +
	 * 4 jobs (one more with the whole set first); of 2 hosts, nothing
	 * tells a link from either host */
	for (int all = 0; all <= 1; all++)
		for (int n = 2; n <= 64; n++)
			for (int a = 0; a < n; a++)
				for (int b = a + 1; b < n; b++) {
					struct oracle orc = { { a, b }, 1, 0 };
					int bound = 3 * ceil_log2(n) + 4 + all;
					o.test_all = all;
					setup(&res, n);
					CHECK(gl_bisect_search(&o, job, &orc, &res, &err) == 0);
					if (n == 2) {
						CHECKF(!strcmp(res.outcome, "not isolated") && res.culprit < 0,
						       "link of 2: %s", res.outcome);
						continue;
					}
					CHECKF(res.culprit < 0 && !strcmp(res.outcome, "link") && res.link[0] == a &&
						       res.link[1] == b,
					       "n %d link h%d-h%d all %d: %s culprit %d link %d-%d", n, a, b, all,
					       res.outcome, res.culprit, res.link[0], res.link[1]);
					CHECKF(res.n_jobs <= bound, "n %d link h%d-h%d all %d: %d jobs, bound %d", n, a,
					       b, all, res.n_jobs, bound);
					CHECK(res.n_jobs == orc.jobs);
					if ((n == 8 || n == 64) && res.n_jobs > worst_link[all][n == 64])
						worst_link[all][n == 64] = res.n_jobs;
				}
	printf("links, worst case, set known bad: 8 hosts %d jobs, 64 hosts %d; whole set first: %d, %d\n",
	       worst_link[0][0], worst_link[0][1], worst_link[1][0], worst_link[1][1]);
	/* a link a ring uses only between neighbours, of N from 3 to 11, the
	 * set known bad: named, never a host, within the 64 jobs (past 11
	 * hosts the pairs can outnumber them: "budget") */
	{
		int worst_ring = 0;
		o.test_all = 0;
		for (int n = 3; n <= 11; n++)
			for (int a = 0; a < n; a++)
				for (int b = a + 1; b < n; b++) {
					struct oracle orc = { { a, b }, 3, 0 };
					setup(&res, n);
					CHECK(gl_bisect_search(&o, job, &orc, &res, &err) == 0);
					CHECKF(res.culprit < 0 && !strcmp(res.outcome, "link") && res.link[0] == a &&
						       res.link[1] == b,
					       "ring n %d link h%d-h%d: %s culprit %d link %d-%d", n, a, b, res.outcome,
					       res.culprit, res.link[0], res.link[1]);
					if (n == 8 && res.n_jobs > worst_ring)
						worst_ring = res.n_jobs;
				}
		printf("a ring's link, worst case over 8 hosts: %d jobs\n", worst_ring);
	}
	/* two bad hosts (a job with either fails): never named a link */
	for (int a = 0; a < 8; a++)
		for (int b = a + 1; b < 8; b++) {
			struct oracle orc = { { a, b }, 2, 0 };
			o.test_all = 0;
			setup(&res, 8);
			CHECK(gl_bisect_search(&o, job, &orc, &res, &err) == 0);
			CHECKF(strcmp(res.outcome, "link") && res.link[0] < 0, "two bad h%d h%d: %s link %d-%d", a, b,
			       res.outcome, res.link[0], res.link[1]);
			CHECKF(res.culprit < 0 || res.culprit == a || res.culprit == b, "two bad h%d h%d: culprit h%d",
			       a, b, res.culprit);
		}
	/* no job left in the budget: "budget", with what was run */
	{
		struct oracle orc = { { 5, -1 }, 0, 0 };
		o.budget_ns = 0;
		setup(&res, 8);
		CHECK(gl_bisect_search(&o, job, &orc, &res, &err) == 0);
		CHECKF(!strcmp(res.outcome, "budget") && res.n_jobs == 0, "%s %d", res.outcome, res.n_jobs);
	}
	return check_done();
}
