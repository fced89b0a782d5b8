/*
 * inference_edge_search.c - the SLA edge search as a pure function of its
 * history (inference_edge_search.h has the whole story).
 */
#include "inference_edge_search.h"

#include <stddef.h>

int gl_edge_probe_passes(const struct gl_edge_plan *p, long long good, long long n)
{
	if (n <= 0)
		return 0;
	return gl_cmp_eval(p->goodput.op, (double)good / (double)n, p->goodput.threshold);
}

/* The bracket the judged steps leave: lo the last rate that held, hi the
 * first that failed (-1: none). In the search's own order every probe
 * lies inside the bracket, so a pass raises lo and a failure lowers hi;
 * a step outside it (a history the settings did not make) is passed
 * over, never allowed to turn the bracket inside out. */
static int bracket(const struct gl_edge_step *h, int n, double *lo, double *hi)
{
	int judged = 0;

	*lo = *hi = -1;
	for (int i = 0; i < n; i++) {
		if (h[i].lost || !(h[i].rate > 0))
			continue;
		judged++;
		if (h[i].pass && h[i].rate > *lo && (*hi < 0 || h[i].rate < *hi))
			*lo = h[i].rate;
		else if (!h[i].pass && (*hi < 0 || h[i].rate < *hi) && h[i].rate > *lo)
			*hi = h[i].rate;
	}
	return judged;
}

double gl_edge_next_rate(const struct gl_edge_plan *p, const struct gl_edge_step *h, int n)
{
	double lo, hi, up;

	if (bracket(h, n, &lo, &hi) == 0)
		return p->from;
	if (lo < 0)
		return 0; /* `from` failed: below what was asked */
	if (hi < 0) {
		if (lo >= p->to)
			return 0; /* `to` held */
		up = lo * p->factor;
		return up < p->to ? up : p->to;
	}
	return (lo + hi) / 2;
}

void gl_edge_conclude(const struct gl_edge_plan *p, const struct gl_edge_step *h, int n, struct gl_edge_result *r)
{
	r->probes = bracket(h, n, &r->lo, &r->hi);
	r->edge = r->lo;
	if (r->probes == 0)
		r->outcome = GL_EDGE_NOT_RUN;
	else if (r->lo < 0)
		r->outcome = GL_EDGE_BELOW_FROM;
	else if (r->hi >= 0)
		r->outcome = GL_EDGE_FOUND;
	else if (r->lo >= p->to)
		r->outcome = GL_EDGE_AT_TO;
	else
		r->outcome = GL_EDGE_UNBRACKETED;
	r->pass = r->outcome == GL_EDGE_FOUND || r->outcome == GL_EDGE_AT_TO;
}

const char *gl_edge_outcome_name(enum gl_edge_outcome o)
{
	switch (o) {
	case GL_EDGE_FOUND: return "found";
	case GL_EDGE_BELOW_FROM: return "below_from";
	case GL_EDGE_AT_TO: return "at_to";
	case GL_EDGE_UNBRACKETED: return "unbracketed";
	default: return "not_run";
	}
}

double gl_edge_fraction_rate(const struct gl_edge_plan *p, const struct gl_edge_result *r, double fraction)
{
	return r->edge > 0 ? fraction * r->edge : p->from;
}
