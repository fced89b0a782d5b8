/*
 * timeline.c - building, ordering and printing the schedule.
 */
#include "timeline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
			ev[k++] = (struct gl_tl_event){ s->faults[i].at_ns + s->faults[i].dur_ns,
							GL_TL_REVERT, i };
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

void gl_timeline_print(const struct gl_scenario *s, double time_scale, FILE *f)
{
	struct gl_tl_event *ev;
	int n;
	char d[64], w[64], r[64];

	gl_format_duration(s->duration_ns, d, sizeof(d));
	gl_format_duration(s->window_ns, w, sizeof(w));
	gl_format_duration(gl_timeline_real_ns(s->duration_ns, time_scale), r, sizeof(r));
	fprintf(f, "scenario '%s': duration %s (%s at time scale %g), window %s, %d workload(s), %d fault(s), %d target(s)\n",
		s->name, d, r, time_scale, w, s->n_workloads, s->n_faults, s->n_targets - s->n_missing);
	if (gl_timeline_build(s, &ev, &n) != 0)
		return;
	fprintf(f, "  %-14s %-14s %s\n", "scenario time", "real time", "event");
	for (int i = 0; i < n; i++) {
		char t[64], rt[64];
		gl_format_duration(ev[i].t_ns, t, sizeof(t));
		gl_format_duration(gl_timeline_real_ns(ev[i].t_ns, time_scale), rt, sizeof(rt));
		fprintf(f, "  %-14s %-14s ", t, rt);
		switch (ev[i].kind) {
		case GL_TL_PHASE: {
			const struct gl_phase *p = &s->phases[ev[i].index];
			gl_format_duration(p->dur_ns, d, sizeof(d));
			fprintf(f, "phase '%s' starts (for %s, load x%g, judged as %s)\n", p->name, d, p->load,
				gl_scope_name(p->scope));
			break;
		}
		case GL_TL_INJECT: {
			const struct gl_fault_spec *fs = &s->faults[ev[i].index];
			gl_format_duration(fs->dur_ns, d, sizeof(d));
			fprintf(f, "inject '%s': %s%s%s on %s%s%s", fs->id, fs->kind, fs->method[0] ? "/" : "",
				fs->method, fs->target, fs->dur_ns ? ", for " : " (instantaneous", fs->dur_ns ? d : "");
			if (!fs->dur_ns) {
				gl_format_duration(fs->settle_ns, d, sizeof(d));
				fprintf(f, "; judged degraded until %s of real time after it: its settle)", d);
			}
			fputc('\n', f);
			break;
		}
		case GL_TL_REVERT:
			gl_format_duration(s->faults[ev[i].index].settle_ns, d, sizeof(d));
			fprintf(f, "revert '%s' (judged degraded until %s of real time after it: its settle)\n",
				s->faults[ev[i].index].id, d);
			break;
		case GL_TL_END:
			fprintf(f, "end\n");
			break;
		}
	}
	for (int i = 0; i < s->n_targets; i++) {
		const struct gl_target_spec *t = &s->targets[i];
		if (i == 0)
			fprintf(f, "targets:\n");
		if (t->missing)
			fprintf(f, "  %-9s %-34s MISSING (failed gate)\n", gl_scope_name(t->scope), t->metric);
		else
			fprintf(f, "  %-9s %-34s %s %g\n", gl_scope_name(t->scope), t->metric,
				gl_cmp_str(t->expr.op), t->expr.threshold);
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
	free(ev);
}
