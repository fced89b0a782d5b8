/*
 * analysis_incidents.c - the incidents of the analysis (analysis.h): the
 * kinds the registered workloads declare (plugin.h, struct
 * gl_incident_rule), the runs of windows showing one that no fault
 * explains, their figures and the workload's first event in them.
 */
#include "analysis_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

static struct gl_incident_kind kinds[GL_INC_MAX];
static int n_kinds;
static pthread_once_t kinds_once = PTHREAD_ONCE_INIT;

/* The registered workloads' rules ranked by their order (the registry's
 * order among equals), then fault.restore. gl_window_info.inc_bits holds
 * GL_INC_MAX kinds: rules past those are not read. */
static void kinds_build(void)
{
	const struct gl_workload_ops *w;

	for (size_t i = 0; (w = gl_workload_at(i)); i++)
		for (const struct gl_incident_rule *r = w->incidents; r && r->name && n_kinds < GL_INC_MAX - 1; r++) {
			int j = n_kinds++;
			for (; j > 0 && kinds[j - 1].rule->order > r->order; j--)
				kinds[j] = kinds[j - 1];
			kinds[j].rule = r;
			kinds[j].wl = w;
		}
	kinds[n_kinds++] = (struct gl_incident_kind){ NULL, NULL };
}

const struct gl_incident_kind *gl_incident_kind(int k)
{
	pthread_once(&kinds_once, kinds_build);
	return k >= 0 && k < n_kinds ? &kinds[k] : NULL;
}

int gl_incident_kinds(void)
{
	pthread_once(&kinds_once, kinds_build);
	return n_kinds;
}

int gl_incident_restore(void)
{
	return gl_incident_kinds() - 1;
}

const char *gl_incident_kind_name(int k)
{
	const struct gl_incident_kind *x = gl_incident_kind(k);

	return !x ? "?" : x->rule ? x->rule->name : "fault.restore";
}

unsigned gl_incident_bits(const struct gl_agg *w)
{
	unsigned bits = 0;

	for (int k = 0; k < gl_incident_restore(); k++)
		for (const char *const *c = kinds[k].rule->opens; c && *c; c++)
			if (gl_agg_counter(w, *c, NULL) > 0)
				bits |= 1u << k;
	return bits;
}

int gl_incident_openers(const char **out)
{
	int n = 0;

	for (int k = 0; k < gl_incident_restore(); k++)
		for (const char *const *c = kinds[k].rule->opens; c && *c; c++)
			if (out)
				out[n++] = *c;
			else
				n++;
	return n;
}

int gl_incident_steady_target(const struct gl_target_spec *t, const char *workload)
{
	size_t n = strlen(workload);

	return t->scope == GL_SCOPE_STEADY && !t->missing && !strncmp(t->metric, workload, n) && t->metric[n] == '.';
}

/* The events source an incident's kind looks for (its workload's); NULL:
 * none (a failed restore says what it is itself). */
static const char *incident_source(int k)
{
	const struct gl_incident_kind *x = gl_incident_kind(k);

	return x && x->wl ? x->wl->name : NULL;
}

static int workload_index(const struct gl_scenario *s, const char *name)
{
	for (int w = 0; w < s->n_workloads && w < GL_MAX_WORKLOADS; w++)
		if (!strcmp(s->workloads[w].name, name))
			return w;
	return -1;
}

/* Does window w show kind k where no fault explains it? wl: the index in
 * the scenario of the kind's workload (-1: absent). */
static int incident_window(const struct gl_analysis *an, int w, int k, int wl)
{
	const struct gl_window_info *x = &an->windows[w];

	if (x->fault_span || k >= gl_incident_restore())
		return 0;
	if (kinds[k].rule->steady_targets)
		return wl >= 0 && x->complete && x->scope == GL_SCOPE_STEADY && (x->bad_steady & (1u << wl));
	return (x->inc_bits >> k) & 1u;
}

static int incident_cmp(const void *a, const void *b)
{
	const struct gl_incident *x = a, *y = b;
	return x->w0 != y->w0 ? (x->w0 < y->w0 ? -1 : 1) : x->kind - y->kind;
}

/* A new, zeroed incident at the end of an->incidents (grown by doubling,
 * *cap its size); NULL with err when out of memory. */
static struct gl_incident *incident_add(struct gl_analysis *an, int *cap, struct gl_err *err)
{
	struct gl_incident *x;

	if (an->n_incidents == *cap) {
		struct gl_incident *ni;
		*cap = *cap ? *cap * 2 : 16;
		ni = realloc(an->incidents, sizeof(*ni) * (size_t)*cap);
		if (!ni) {
			gl_errf(err, GL_ENOMEM, "analysis: out of memory");
			return NULL;
		}
		an->incidents = ni;
	}
	x = &an->incidents[an->n_incidents++];
	memset(x, 0, sizeof(*x));
	return x;
}

/* Each fault not restored within its settle (recovery() found its
 * windows), always counted; the first GL_MAX_INCIDENTS kept. */
static int unrestored_incidents(struct gl_analysis *an, int *cap, struct gl_err *err)
{
	for (int i = 0; i < an->n_faults; i++) {
		const struct gl_fault_result *f = &an->faults[i];
		struct gl_incident *x;

		if (!f->unrestored)
			continue;
		an->incidents_total++;
		an->incidents_gated++;
		if (an->n_incidents == GL_MAX_INCIDENTS)
			continue;
		if (!(x = incident_add(an, cap, err)))
			return -GL_ENOMEM;
		x->kind = gl_incident_restore();
		x->fault = i;
		x->w0 = f->unrestored_w0;
		x->w1 = f->unrestored_w1;
		x->gated = 1;
	}
	return 0;
}

/* Runs of consecutive windows of one kind, after recovery() marked what
 * the faults explain; kept in time order, the first GL_MAX_INCIDENTS. */
int gl_incidents_find(struct gl_analysis *an, struct gl_err *err)
{
	int cap = 0;

	an->incidents_limit = an->sc->incidents_max >= 0 ? an->sc->incidents_max : 0;
	if (unrestored_incidents(an, &cap, err))
		return -GL_ENOMEM;
	for (int k = 0; k < gl_incident_restore(); k++) {
		int gated = an->sc->incidents_max >= 0 || kinds[k].rule->gated, kept = 0;
		int wl = workload_index(an->sc, kinds[k].wl->name);
		for (int w = 0; w < an->n_windows; w++) {
			struct gl_incident *x;
			int w1;
			if (!incident_window(an, w, k, wl))
				continue;
			for (w1 = w; w1 + 1 < an->n_windows && incident_window(an, w1 + 1, k, wl); w1++)
				;
			an->incidents_total++;
			an->incidents_gated += gated;
			/* the first GL_MAX_INCIDENTS of each kind hold the first
			 * GL_MAX_INCIDENTS of all: memory stays bounded */
			if (kept == GL_MAX_INCIDENTS) {
				w = w1;
				continue;
			}
			kept++;
			if (!(x = incident_add(an, &cap, err)))
				return -GL_ENOMEM;
			x->kind = k;
			x->fault = -1;
			x->w0 = w;
			x->w1 = w1;
			x->gated = gated;
			w = w1;
		}
	}
	if (an->n_incidents)
		qsort(an->incidents, (size_t)an->n_incidents, sizeof(*an->incidents), incident_cmp);
	if (an->n_incidents > GL_MAX_INCIDENTS)
		an->n_incidents = GL_MAX_INCIDENTS;
	an->incidents_failed = an->incidents_gated > an->incidents_limit;
	return 0;
}

/* The workload's targets in force in steady windows, first four. */
static int steady_targets(const struct gl_analysis *an, const char *workload, const struct gl_target_spec **out)
{
	int n = 0;
	for (int i = 0; i < an->sc->n_targets && n < 4; i++)
		if (gl_incident_steady_target(&an->sc->targets[i], workload))
			out[n++] = &an->sc->targets[i];
	return n;
}

/* The worst value of each steady target the window missed, into x. */
static void take_missed(const struct gl_analysis *an, struct gl_incident *x, const char *workload,
			const struct gl_agg *w)
{
	const struct gl_target_spec *t[4];
	int nt = steady_targets(an, workload, t);

	for (int i = 0; i < nt; i++) {
		double v;
		if (gl_agg_eval(w, t[i]->metric, &v) != 0) {
			x->missed[i] = x->nodata[i] = 1;
			continue;
		}
		if (gl_cmp_eval(t[i]->expr.op, v, t[i]->expr.threshold))
			continue;
		/* the worst: furthest on the failing side */
		if (!x->missed[i] || x->nodata[i] ||
		    ((t[i]->expr.op == GL_CMP_LE || t[i]->expr.op == GL_CMP_LT) ? v > x->worst[i] : v < x->worst[i]))
			x->worst[i] = v;
		x->missed[i] = 1;
		x->nodata[i] = 0;
	}
}

void gl_incidents_take(struct gl_analysis *an, int *lo, int wi, const struct gl_agg *w)
{
	while (*lo < an->n_incidents && an->incidents[*lo].w1 < wi)
		(*lo)++;
	for (int j = *lo; j < an->n_incidents && an->incidents[j].w0 <= wi; j++) {
		struct gl_incident *x = &an->incidents[j];
		const struct gl_incident_kind *k = gl_incident_kind(x->kind);
		if (x->w1 < wi || !k || !k->rule)
			continue;
		for (int i = 0; i < GL_INCIDENT_COUNTS; i++)
			if (k->rule->counts[i])
				x->n[i] += gl_agg_counter(w, k->rule->counts[i], NULL);
		if (k->rule->steady_targets)
			take_missed(an, x, k->wl->name, w);
	}
}

static void incident_text(const struct gl_analysis *an, struct gl_incident *x)
{
	const struct gl_incident_kind *k = gl_incident_kind(x->kind);
	char *p = x->what;
	size_t cap = sizeof(x->what);
	int n = 0;

#define ADD(...)                                                            \
	do {                                                                \
		if ((size_t)n < cap)                                        \
			n += snprintf(p + n, cap - (size_t)n, __VA_ARGS__); \
	} while (0)
	if (k && !k->rule) {
		const struct gl_fault_result *f = &an->faults[x->fault];
		int64_t tr = f->row.reverted_elapsed_ns >= 0 ? f->row.reverted_elapsed_ns : f->row.injected_elapsed_ns;
		ADD("fault '%s' (%s on %s), reverted at %.3f s: %s", f->row.id, f->row.kind, f->row.target,
		    (double)tr / 1e9, f->recovery_note);
		return;
	}
	if (!k || !k->rule->text)
		return;
	k->rule->text(x->n, p, cap);
	n = (int)strlen(p);
	if (k->rule->steady_targets) {
		const struct gl_target_spec *t[4];
		int nt = steady_targets(an, k->wl->name, t);
		for (int i = 0; i < nt; i++) {
			if (!x->missed[i])
				continue;
			if (x->nodata[i])
				ADD("; %s %s %g: no data", t[i]->metric, gl_cmp_str(t[i]->expr.op),
				    t[i]->expr.threshold);
			else
				ADD("; %s %s %g: worst window %.6g", t[i]->metric, gl_cmp_str(t[i]->expr.op),
				    t[i]->expr.threshold, x->worst[i]);
		}
	}
#undef ADD
}

/* Each incident's first warning or error from its workload, in one pass
 * over those events (in the order written, which is time order). */
struct ev_walk {
	struct gl_analysis *an;
	int lo;
};

static int incident_event(void *arg, int64_t t, const char *src, const char *msg)
{
	struct ev_walk *e = arg;
	struct gl_analysis *an = e->an;

	/* events come in time order: an incident that ended before this one
	 * can get none any more */
	while (e->lo < an->n_incidents && an->windows[an->incidents[e->lo].w1].end_ns <= t)
		e->lo++;
	if (e->lo >= an->n_incidents)
		return 1; /* every incident is past: stop reading */
	for (int j = e->lo; j < an->n_incidents; j++) {
		struct gl_incident *x = &an->incidents[j];
		if (an->windows[x->w0].start_ns > t)
			break;
		if (!x->event[0] && t < an->windows[x->w1].end_ns && incident_source(x->kind) &&
		    !strcmp(src, incident_source(x->kind)))
			snprintf(x->event, sizeof(x->event), "%s", msg);
	}
	return 0;
}

int gl_incidents_describe(struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	struct ev_walk e = { an, 0 };
	int rc;

	for (int i = 0; i < an->n_incidents; i++)
		incident_text(an, &an->incidents[i]);
	if (!an->n_incidents)
		return 0;
	rc = gl_store_problem_scan(st, incident_event, &e, err);
	return rc > 0 ? 0 : rc;
}
