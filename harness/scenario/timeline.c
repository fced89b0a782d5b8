/*
 * timeline.c - building, ordering and printing the schedule.
 */
#include "timeline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static int cmp_ev(const void *a, const void *b)
{
	const struct gl_tl_event *x = a, *y = b;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	return x->index - y->index;
}

int gl_timeline_build(const struct gl_scenario *s, struct gl_tl_event **out, int *n)
{
	int cap = s->n_phases + 2 * s->n_faults + 1, k = 0;
	struct gl_tl_event *ev = calloc((size_t)cap, sizeof(*ev));

	if (!ev)
		return -GL_ENOMEM;
	for (int i = 0; i < s->n_phases; i++)
		ev[k++] = (struct gl_tl_event){ s->phases[i].start_ns, GL_TL_PHASE, i };
	for (int i = 0; i < s->n_faults; i++) {
		ev[k++] = (struct gl_tl_event){ s->faults[i].at_ns, GL_TL_INJECT, i };
		if (s->faults[i].dur_ns > 0)
			ev[k++] = (struct gl_tl_event){ s->faults[i].at_ns + s->faults[i].dur_ns, GL_TL_REVERT, i };
	}
	ev[k++] = (struct gl_tl_event){ s->duration_ns, GL_TL_END, 0 };
	qsort(ev, (size_t)k, sizeof(*ev), cmp_ev);
	*out = ev;
	*n = k;
	return 0;
}

int64_t gl_timeline_real_ns(int64_t t_ns, double time_scale)
{
	long double r;

	if (!(time_scale > 0))
		time_scale = 1;
	r = (long double)t_ns / time_scale;
	/* validation refuses scales that leave this range (check_time_scale);
	 * never overflow into a negative time anyway */
	if (r >= (long double)INT64_MAX)
		return INT64_MAX;
	if (r <= (long double)INT64_MIN)
		return INT64_MIN;
	return (int64_t)r;
}

/* ---- what people are shown ------------------------------------------------------- */

static int64_t spike_count(const struct gl_load_spike *sp, int64_t end_ns)
{
	if (sp->start_ns < 0 || sp->start_ns >= end_ns)
		return 0;
	if (sp->every_ns <= 0)
		return 1;
	return (end_ns - 1 - sp->start_ns) / sp->every_ns + 1;
}

int gl_timeline_spikes(const struct gl_scenario *s, struct gl_tl_spike **out, int *n)
{
	int total = 0, k = 0;
	struct gl_tl_spike *v;

	*out = NULL;
	*n = 0;
	for (int i = 0; i < s->n_workloads; i++)
		if (s->workloads[i].ops && s->workloads[i].ops->spikes)
			total += s->workloads[i].ops->spikes(s->workloads[i].cfg, NULL, 0);
	if (total <= 0)
		return 0;
	v = calloc((size_t)total, sizeof(*v));
	if (!v)
		return -GL_ENOMEM;
	for (int i = 0; i < s->n_workloads && k < total; i++) {
		struct gl_load_spike *sp;
		int m;
		if (!s->workloads[i].ops || !s->workloads[i].ops->spikes)
			continue;
		m = s->workloads[i].ops->spikes(s->workloads[i].cfg, NULL, 0);
		if (m <= 0)
			continue;
		if (m > total - k)
			m = total - k;
		sp = calloc((size_t)m, sizeof(*sp));
		if (!sp) {
			free(v);
			return -GL_ENOMEM;
		}
		m = s->workloads[i].ops->spikes(s->workloads[i].cfg, sp, m) < m ? 0 : m;
		for (int j = 0; j < m; j++, k++) {
			v[k].workload = i;
			v[k].index = j;
			v[k].sp = sp[j];
			v[k].count = spike_count(&sp[j], s->duration_ns);
		}
		free(sp);
	}
	*out = v;
	*n = k;
	return 0;
}

int gl_timeline_spike_in(const struct gl_tl_spike *t, int64_t a_ns, int64_t b_ns)
{
	const struct gl_load_spike *sp = &t->sp;
	int64_t k = 0, at;

	if (t->count <= 0 || b_ns <= a_ns)
		return 0;
	/* the first occurrence still on after a_ns */
	if (sp->every_ns > 0 && a_ns >= sp->start_ns + sp->dur_ns)
		k = (a_ns - sp->start_ns - sp->dur_ns) / sp->every_ns + 1;
	if (k >= t->count)
		return 0;
	at = sp->start_ns + k * (sp->every_ns > 0 ? sp->every_ns : 0);
	return at < b_ns && at + sp->dur_ns > a_ns;
}

void gl_timeline_spike_name(const struct gl_scenario *s, const struct gl_tl_spike *t, char *buf, size_t n)
{
	snprintf(buf, n, "workloads.%s.spikes[%d]", s->workloads[t->workload].name, t->index);
}

/* An edge phase: the search its probes make; a phase at a fraction of
 * an edge: which one. */
static void phase_edge_text(const struct gl_scenario *s, const struct gl_phase *p, const char *d, char *buf, size_t n)
{
	const struct gl_edge_spec *e = &p->edge;
	int wl = p->kind == GL_PHASE_EDGE ? e->workload : p->edge_of >= 0 ? s->phases[p->edge_of].edge.workload : -1;
	const char *who = wl >= 0 && wl < s->n_workloads ? s->workloads[wl].name : "?";
	char pr[64], st[64];

	if (p->kind != GL_PHASE_EDGE) {
		snprintf(buf, n,
			 "phase '%s' starts (for %s, %s at %g x the edge phase '%s' finds, load x%g, judged as %s)",
			 p->name, d, who, p->edge_fraction, p->edge_of >= 0 ? s->phases[p->edge_of].name : "?", p->load,
			 gl_scope_name(p->scope));
		return;
	}
	gl_format_duration(e->slot_ns, pr, sizeof(pr));
	gl_format_duration(e->settle_ns, st, sizeof(st));
	snprintf(buf, n,
		 "phase '%s' starts (for %s: the SLA edge of the %s arrival rate, %d probes of %s real time, each "
		 "settling its last %s; from %g/s x%g up to %g/s, then bisection; a probe holds with goodput %s; "
		 "load x%g, judged as %s)",
		 p->name, d, who, e->slots, pr, st, e->from, e->factor, e->to, e->goodput_text, p->load,
		 gl_scope_name(p->scope));
}

static void event_text(const struct gl_scenario *s, const struct gl_tl_event *e, char *buf, size_t n)
{
	char d[64];

	switch (e->kind) {
	case GL_TL_PHASE: {
		const struct gl_phase *p = &s->phases[e->index];
		gl_format_duration(p->dur_ns, d, sizeof(d));
		if (p->kind == GL_PHASE_EDGE || p->edge_fraction > 0)
			phase_edge_text(s, p, d, buf, n);
		else
			snprintf(buf, n, "phase '%s' starts (for %s, load x%g, judged as %s)", p->name, d, p->load,
				 gl_scope_name(p->scope));
		break;
	}
	case GL_TL_INJECT: {
		const struct gl_fault_spec *fs = &s->faults[e->index];
		gl_format_duration(fs->dur_ns, d, sizeof(d));
		if (fs->dur_ns) {
			snprintf(buf, n, "inject '%s': %s%s%s on %s, for %s", fs->id, fs->kind,
				 fs->method[0] ? "/" : "", fs->method, fs->target, d);
		} else {
			char st[64];
			gl_format_duration(fs->settle_ns, st, sizeof(st));
			snprintf(buf, n,
				 "inject '%s': %s%s%s on %s (instantaneous; judged degraded until %s of real "
				 "time after it: its settle)",
				 fs->id, fs->kind, fs->method[0] ? "/" : "", fs->method, fs->target, st);
		}
		break;
	}
	case GL_TL_REVERT:
		gl_format_duration(s->faults[e->index].settle_ns, d, sizeof(d));
		snprintf(buf, n, "revert '%s' (judged degraded until %s of real time after it: its settle)",
			 s->faults[e->index].id, d);
		break;
	case GL_TL_END: snprintf(buf, n, "end"); break;
	}
}

/* at equal times: agents, revert, phase, spike, inject, end */
struct row_sort {
	struct gl_tl_row r;
	int rank, seq;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row_sort *x = a, *y = b;
	if (x->r.t_ns != y->r.t_ns)
		return x->r.t_ns < y->r.t_ns ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return x->seq - y->seq;
}

static int event_rank(enum gl_tl_kind k)
{
	return k == GL_TL_REVERT ? 1 : k == GL_TL_PHASE ? 2 : k == GL_TL_INJECT ? 4 : 5;
}

int gl_timeline_rows(const struct gl_scenario *s, struct gl_tl_row **out, int *n)
{
	struct gl_tl_event *ev = NULL;
	struct gl_tl_spike *sp = NULL;
	struct row_sort *v;
	struct gl_tl_row *rows;
	int n_ev = 0, n_sp = 0, cap, k = 0, rc;

	*out = NULL;
	*n = 0;
	if ((rc = gl_timeline_build(s, &ev, &n_ev)) != 0)
		return rc;
	if ((rc = gl_timeline_spikes(s, &sp, &n_sp)) != 0) {
		free(ev);
		return rc;
	}
	cap = s->n_workloads + n_ev + n_sp * (GL_TL_SPIKES_SHOWN + 1) + 1;
	v = calloc((size_t)cap, sizeof(*v));
	rows = calloc((size_t)cap, sizeof(*rows));
	if (!v || !rows) {
		free(v);
		free(rows);
		free(ev);
		free(sp);
		return -GL_ENOMEM;
	}
	for (int i = 0; i < s->n_workloads; i++) {
		const cJSON *ac = cJSON_GetObjectItemCaseSensitive(s->workloads[i].cfg, "agents");
		const cJSON *cnt = cJSON_GetObjectItemCaseSensitive(ac, "count");
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(ac, "launcher");
		if (!cJSON_IsObject(ac))
			continue;
		v[k].r.t_ns = 0;
		v[k].r.kind = GL_TLR_AGENTS;
		snprintf(v[k].r.text, sizeof(v[k].r.text),
			 "launch %d %s agent(s) through %s, before the clock starts (each its own launcher command)",
			 cJSON_IsNumber(cnt) ? (int)cnt->valuedouble : 1, s->workloads[i].name,
			 cJSON_IsString(l) ? l->valuestring : "mpirun");
		v[k].rank = 0;
		v[k].seq = k;
		k++;
	}
	for (int i = 0; i < n_ev; i++) {
		v[k].r.t_ns = ev[i].t_ns;
		v[k].r.kind = GL_TLR_EVENT;
		event_text(s, &ev[i], v[k].r.text, sizeof(v[k].r.text));
		v[k].rank = event_rank(ev[i].kind);
		v[k].seq = k;
		k++;
	}
	for (int i = 0; i < n_sp; i++) {
		const struct gl_tl_spike *t = &sp[i];
		int64_t shown = t->count > GL_TL_SPIKES_SHOWN + 1 ? GL_TL_SPIKES_SHOWN : t->count;
		char name[GL_NAME_MAX + 32], d[64], to[64], e[64], st[64], last[64];
		gl_timeline_spike_name(s, t, name, sizeof(name));
		gl_format_duration(t->sp.dur_ns, d, sizeof(d));
		for (int64_t j = 0; j < shown; j++) {
			int64_t at = t->sp.start_ns + j * t->sp.every_ns;
			gl_format_duration(at + t->sp.dur_ns, to, sizeof(to));
			v[k].r.t_ns = at;
			v[k].r.kind = GL_TLR_SPIKE;
			if (t->count == 1)
				snprintf(v[k].r.text, sizeof(v[k].r.text), "spike %s: %s, for %s (to %s)", name,
					 t->sp.what, d, to);
			else
				snprintf(v[k].r.text, sizeof(v[k].r.text), "spike %lld of %lld, %s: %s, for %s (to %s)",
					 (long long)j + 1, (long long)t->count, name, t->sp.what, d, to);
			v[k].rank = 3;
			v[k].seq = k;
			k++;
		}
		if (shown < t->count) {
			gl_format_duration(t->sp.every_ns, e, sizeof(e));
			gl_format_duration(t->sp.start_ns, st, sizeof(st));
			gl_format_duration(t->sp.start_ns + (t->count - 1) * t->sp.every_ns, last, sizeof(last));
			v[k].r.t_ns = t->sp.start_ns + shown * t->sp.every_ns;
			v[k].r.kind = GL_TLR_SPIKES_MORE;
			snprintf(v[k].r.text, sizeof(v[k].r.text),
				 "spike %s goes on every %s from %s for %s: %lld more, the last at %s (%lld in all)",
				 name, e, st, d, (long long)(t->count - shown), last, (long long)t->count);
			v[k].rank = 3;
			v[k].seq = k;
			k++;
		}
	}
	qsort(v, (size_t)k, sizeof(*v), cmp_row);
	for (int i = 0; i < k; i++)
		rows[i] = v[i].r;
	free(v);
	free(ev);
	free(sp);
	*out = rows;
	*n = k;
	return 0;
}

void gl_timeline_print(const struct gl_scenario *s, double time_scale, FILE *f)
{
	struct gl_tl_row *rows;
	struct gl_tl_spike *sp = NULL;
	int n, n_sp = 0;
	int64_t occurrences = 0;
	char d[64], w[64], r[64];

	gl_format_duration(s->duration_ns, d, sizeof(d));
	gl_format_duration(s->window_ns, w, sizeof(w));
	gl_format_duration(gl_timeline_real_ns(s->duration_ns, time_scale), r, sizeof(r));
	if (gl_timeline_spikes(s, &sp, &n_sp) == 0)
		for (int i = 0; i < n_sp; i++)
			occurrences += sp[i].count;
	free(sp);
	fprintf(f, "scenario '%s': duration %s (%s at time scale %g), window %s, %d workload(s), %d fault(s), %d target(s)",
		s->name, d, r, time_scale, w, s->n_workloads, s->n_faults, s->n_targets - s->n_missing + s->n_drifts);
	if (n_sp)
		fprintf(f, ", %d spike(s) (%lld in the run)", n_sp, (long long)occurrences);
	fprintf(f, "\n");
	if (gl_timeline_rows(s, &rows, &n) != 0)
		return;
	fprintf(f, "  %-14s %-14s %s\n", "scenario time", "real time", "event");
	for (int i = 0; i < n; i++) {
		char t[64], rt[64];
		gl_format_duration(rows[i].t_ns, t, sizeof(t));
		gl_format_duration(gl_timeline_real_ns(rows[i].t_ns, time_scale), rt, sizeof(rt));
		fprintf(f, "  %-14s %-14s %s\n", t, rt, rows[i].text);
	}
	for (int i = 0; i < s->n_targets; i++) {
		const struct gl_target_spec *t = &s->targets[i];
		if (i == 0)
			fprintf(f, "targets:\n");
		if (t->missing)
			fprintf(f, "  %-9s %-34s MISSING (failed gate)\n", gl_scope_name(t->scope), t->metric);
		else
			fprintf(f, "  %-9s %-34s %s %g\n", gl_scope_name(t->scope), t->metric, gl_cmp_str(t->expr.op),
				t->expr.threshold);
	}
	for (int i = 0; i < s->n_drifts; i++) {
		const struct gl_target_spec *t = &s->drifts[i];
		if (i == 0 && s->n_targets == 0)
			fprintf(f, "targets:\n");
		fprintf(f, "  %-9s %-34s drift per day %s %g%s\n", gl_scope_name(t->scope), t->metric,
			gl_cmp_str(t->expr.op), t->expr.threshold, t->drift_pct ? "%" : "");
	}
	/* figures no scheduled fault is sure to produce: not required */
	for (int i = 0; i < s->n_optional; i++) {
		const struct gl_optional_figure *o = &s->optional[i];
		int written = 0;
		for (int k = 0; k < s->n_targets; k++)
			written |= s->targets[k].scope == o->scope && !s->targets[k].missing &&
				   !strcmp(s->targets[k].metric, o->metric);
		if (i == 0)
			fprintf(f, "not required:\n");
		fprintf(f, "  %-9s %-34s %s: %s\n", gl_scope_name(o->scope), o->metric,
			written ? "written, optional" : "optional", o->why);
	}
	free(rows);
}
