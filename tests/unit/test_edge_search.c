/*
 * test_edge_search.c - the SLA edge search (gl_edge_next_rate,
 * gl_edge_conclude; loadgen/inference_edge_search.h, docs/scenario.md
 * "Edge phases") against an exact oracle: a probe passes when its rate is
 * at most the true edge E. For factors 1.5, 2 and 4, edges from below
 * `from` to above `to` and 2 to 24 probes: every geometric step is the
 * last good rate times the factor (capped at `to`), every bisection step
 * the middle of the bracket; the bracket always holds E (lo <= E < hi);
 * its width halves with each bisection, so after k of them it is the
 * first bracket's over 2^k; the outcome is found, below_from or at_to as
 * E says, unbracketed when the probes ran out on the way up; a lost probe
 * anywhere changes nothing; the goodput verdict's edges (no request, >=
 * against >); the rate of a phase at a fraction of the edge (`from` when
 * none held).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "inference_edge_search.h"

#define MAXP 64

struct run {
	struct gl_edge_step h[MAXP];
	int n;
	int geometric, bisect;
	int order_ok; /* every step where the search says it goes */
	double width0; /* the first bracket's width, -1 none yet */
};

/* n probes against the oracle E (lost: also a lost step before each) */
static void search(const struct gl_edge_plan *p, double E, int probes, int lost, struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->order_ok = 1;
	r->width0 = -1;
	for (int i = 0; i < probes && r->n < MAXP - 1; i++) {
		struct gl_edge_result before;
		double rate = gl_edge_next_rate(p, r->h, r->n);
		gl_edge_conclude(p, r->h, r->n, &before);
		if (rate == 0)
			break;
		if (before.probes == 0) {
			r->order_ok &= rate == p->from;
		} else if (before.hi < 0) {
			double up = before.lo * p->factor;
			r->order_ok &= rate == (up < p->to ? up : p->to);
			r->geometric++;
		} else {
			r->order_ok &= rate == (before.lo + before.hi) / 2 && before.lo < rate && rate < before.hi;
			if (r->width0 < 0)
				r->width0 = before.hi - before.lo;
			r->bisect++;
		}
		if (lost)
			r->h[r->n++] = (struct gl_edge_step){ .rate = rate * 3, .pass = 0, .lost = 1 };
		r->h[r->n++] = (struct gl_edge_step){ .rate = rate, .pass = rate <= E };
	}
}

static void oracle_sweep(void)
{
	const double factors[] = { 1.5, 2, 4 };
	int cases = 0, bad_order = 0, bad_bracket = 0, bad_outcome = 0, bad_width = 0, bad_lost = 0;

	for (size_t fi = 0; fi < sizeof(factors) / sizeof(factors[0]); fi++)
		for (double E = 3; E < 3000; E *= 1.37)
			for (int probes = 2; probes <= 24; probes++) {
				struct gl_edge_plan p = { .from = 10, .to = 2000, .factor = factors[fi] };
				struct gl_edge_result res, res_lost;
				struct run r, rl;
				int up_needed = 0;
				for (double x = p.from; x < p.to && x <= E;
				     x = x * p.factor < p.to ? x * p.factor : p.to)
					up_needed++; /* good rates on the way up */
				p.goodput = (struct gl_target_expr){ GL_CMP_GE, 0.95 };
				search(&p, E, probes, 0, &r);
				search(&p, E, probes, 1, &rl);
				gl_edge_conclude(&p, r.h, r.n, &res);
				gl_edge_conclude(&p, rl.h, rl.n, &res_lost);
				cases++;
				bad_order += !r.order_ok;
				if (res.outcome == GL_EDGE_FOUND)
					bad_bracket += !(res.lo <= E && E < res.hi && res.edge == res.lo && res.pass);
				if (E < p.from)
					bad_outcome += res.outcome != GL_EDGE_BELOW_FROM || res.edge != -1 ||
						       res.pass || r.n != 1;
				else if (E >= p.to)
					bad_outcome += probes > up_needed
							       ? res.outcome != GL_EDGE_AT_TO || res.edge != p.to
							       : res.outcome != GL_EDGE_UNBRACKETED;
				else if (probes > up_needed)
					bad_outcome += res.outcome != GL_EDGE_FOUND;
				else
					bad_outcome += res.outcome != GL_EDGE_UNBRACKETED || res.pass;
				if (res.outcome == GL_EDGE_FOUND && r.bisect > 0)
					bad_width += fabs((res.hi - res.lo) - r.width0 / pow(2, r.bisect)) >
						     1e-9 * r.width0;
				bad_lost += res_lost.outcome != res.outcome || res_lost.edge != res.edge ||
					    res_lost.hi != res.hi || res_lost.probes != res.probes;
			}
	printf("oracle: %d searches; order %d bad, bracket %d, outcome %d, width %d, lost %d\n", cases, bad_order,
	       bad_bracket, bad_outcome, bad_width, bad_lost);
	CHECK(cases > 1000);
	CHECK(bad_order == 0);
	CHECK(bad_bracket == 0);
	CHECK(bad_outcome == 0);
	CHECK(bad_width == 0);
	CHECK(bad_lost == 0);
}

/* The ground-truth test's plan (tests/scripts/test_edge.sh): from 30 x2,
 * the server's capacity 100 req/s: 30 60 120, then 90 105 97.5 101.25
 * ... in 8 probes the bracket is 7.5 req/s wide around 100. */
static void worked_example(void)
{
	struct gl_edge_plan p = { .from = 30, .to = 1000, .factor = 2, .goodput = { GL_CMP_GE, 0.95 } };
	const double want[] = { 30, 60, 120, 90, 105, 97.5, 101.25, 99.375 };
	struct gl_edge_step h[8];
	struct gl_edge_result r;
	int ok = 1;

	for (int i = 0; i < 8; i++) {
		double rate = gl_edge_next_rate(&p, h, i);
		ok &= fabs(rate - want[i]) < 1e-9;
		h[i] = (struct gl_edge_step){ .rate = rate, .pass = rate <= 100 };
	}
	CHECK(ok);
	gl_edge_conclude(&p, h, 8, &r);
	CHECKF(r.outcome == GL_EDGE_FOUND && r.edge == 99.375 && r.lo == 99.375 && r.hi == 101.25 && r.probes == 8,
	       "outcome %s edge %g [%g, %g] %d probes", gl_edge_outcome_name(r.outcome), r.edge, r.lo, r.hi, r.probes);
	CHECK(gl_edge_fraction_rate(&p, &r, 0.8) == 0.8 * 99.375);
}

static void verdicts(void)
{
	struct gl_edge_plan ge = { .from = 1, .to = 2, .factor = 2, .goodput = { GL_CMP_GE, 0.95 } };
	struct gl_edge_plan gt = ge;

	gt.goodput.op = GL_CMP_GT;
	CHECK(!gl_edge_probe_passes(&ge, 0, 0)); /* no request: no evidence */
	CHECK(gl_edge_probe_passes(&ge, 95, 100));
	CHECK(!gl_edge_probe_passes(&gt, 95, 100));
	CHECK(gl_edge_probe_passes(&gt, 96, 100));
	CHECK(!gl_edge_probe_passes(&ge, 94, 100));
	CHECK(gl_edge_probe_passes(&ge, 1, 1));
}

static void ends(void)
{
	struct gl_edge_plan p = { .from = 10, .to = 40, .factor = 2, .goodput = { GL_CMP_GE, 0.95 } };
	struct gl_edge_step h[4] = { { 0 } };
	struct gl_edge_result r;

	/* nothing yet: from; nothing judged (all lost): from again */
	CHECK(gl_edge_next_rate(&p, h, 0) == 10);
	h[0] = (struct gl_edge_step){ .rate = 10, .lost = 1 };
	CHECK(gl_edge_next_rate(&p, h, 1) == 10);
	gl_edge_conclude(&p, h, 1, &r);
	CHECK(r.outcome == GL_EDGE_NOT_RUN && !r.pass && r.edge == -1 && r.probes == 0);
	CHECK(gl_edge_fraction_rate(&p, &r, 0.8) == 10); /* no edge: from */
	/* from fails: nothing left to ask, no edge, the later phases at from */
	h[0] = (struct gl_edge_step){ .rate = 10, .pass = 0 };
	CHECK(gl_edge_next_rate(&p, h, 1) == 0);
	gl_edge_conclude(&p, h, 1, &r);
	CHECK(r.outcome == GL_EDGE_BELOW_FROM && !r.pass && r.edge == -1 && r.hi == 10);
	CHECK(gl_edge_fraction_rate(&p, &r, 0.8) == 10);
	CHECK(!strcmp(gl_edge_outcome_name(r.outcome), "below_from"));
	/* up to `to` (20, then 40 = to, not 40 x 2), which holds: done */
	h[0] = (struct gl_edge_step){ .rate = 10, .pass = 1 };
	h[1] = (struct gl_edge_step){ .rate = 20, .pass = 1 };
	CHECK(gl_edge_next_rate(&p, h, 2) == 40);
	h[2] = (struct gl_edge_step){ .rate = 40, .pass = 1 };
	CHECK(gl_edge_next_rate(&p, h, 3) == 0);
	gl_edge_conclude(&p, h, 3, &r);
	CHECK(r.outcome == GL_EDGE_AT_TO && r.pass && r.edge == 40 && r.hi == -1);
	CHECK(gl_edge_fraction_rate(&p, &r, 0.5) == 20);
	/* a pass above a failure (not the search's order) is passed over */
	h[2] = (struct gl_edge_step){ .rate = 40, .pass = 0 };
	h[3] = (struct gl_edge_step){ .rate = 50, .pass = 1 };
	gl_edge_conclude(&p, h, 4, &r);
	CHECK(r.outcome == GL_EDGE_FOUND && r.lo == 20 && r.hi == 40 && r.probes == 4);
	CHECK(gl_edge_next_rate(&p, h, 4) == 30);
}

int main(void)
{
	oracle_sweep();
	worked_example();
	verdicts();
	ends();
	return check_done();
}
