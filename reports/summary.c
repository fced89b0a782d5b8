/*
 * summary.c - the per-workload summary tables report.md and report.html
 * both show (each workload's rows, figures.h): one list of rows, rendered
 * twice, so the two documents cannot disagree on what a figure
 * is or which figures there are. Every value comes from the run's
 * aggregate (gl_agg_eval's rules); "n/a" is a figure nothing measured,
 * never 0.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "figures.h"
#include "plugin.h"
#include "report.h"
#include "units.h"

struct sum {
	const struct gl_analysis *an;
	const struct gl_summary_ops *ops;
	void *arg;
};

static void num(char *buf, size_t n, int has, double v)
{
	if (!has || !isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.6g", v);
}

static void eval(struct sum *s, const char *label, const char *name)
{
	char v[64];
	double x = 0;
	int has = gl_agg_eval(s->an->all, name, &x) == 0;

	num(v, sizeof(v), has, x);
	s->ops->row(s->arg, label, v);
}

static void count(struct sum *s, const char *label, const char *name)
{
	char v[64];
	int found = 0;
	int64_t x = gl_agg_counter(s->an->all, name, &found);

	if (found)
		snprintf(v, sizeof(v), "%lld", (long long)x);
	else
		snprintf(v, sizeof(v), "n/a");
	s->ops->row(s->arg, label, v);
}

struct cls {
	struct sum *s;
	size_t skip;
	const char *what;
};

static void each_class(void *arg, const char *name, int64_t v)
{
	struct cls *c = arg;
	char label[128], val[32];

	if (!v)
		return;
	snprintf(label, sizeof(label), "%s: %s", c->what, name + c->skip);
	snprintf(val, sizeof(val), "%lld", (long long)v);
	c->s->ops->row(c->s->arg, label, val);
}

/* Every histogram and counter the catalogue has of workload w: p50 and
 * max over every reading, or the count. */
static void catalog_rows(struct sum *s, const char *w)
{
	size_t n;
	const struct gl_metric_def *cat = gl_catalog(&n);

	for (size_t i = 0; i < n; i++) {
		char label[160], name[160];
		if (strcmp(cat[i].workload, w) != 0)
			continue;
		if (cat[i].kind == GL_MK_HIST) {
			snprintf(label, sizeof(label), "%s (%s) p50", cat[i].name, cat[i].unit);
			snprintf(name, sizeof(name), "%s.p50", cat[i].name);
			eval(s, label, name);
			snprintf(label, sizeof(label), "%s (%s) max", cat[i].name, cat[i].unit);
			snprintf(name, sizeof(name), "%s.max", cat[i].name);
			eval(s, label, name);
		} else if (cat[i].kind == GL_MK_COUNTER) {
			snprintf(label, sizeof(label), "%s (%s)", cat[i].name, cat[i].unit);
			count(s, label, cat[i].name);
		}
	}
}

/* One workload's table: its heading, note and rows (figures.h). */
static void table(struct sum *s, const struct gl_workload_ops *w)
{
	const struct gl_workload_figures *f = w->figures;
	char note[512] = "";

	if (f->summary_note)
		f->summary_note(s->an, note, sizeof(note));
	s->ops->section(s->arg, w->name, f->title, note[0] ? note : NULL);
	for (const struct gl_report_row *r = f->summary; r->kind != GL_RK_NONE; r++) {
		struct cls c = { s, r->metric ? strlen(r->metric) : 0, r->label };
		switch (r->kind) {
		case GL_RK_COUNT: count(s, r->label, r->metric); break;
		case GL_RK_EVAL: eval(s, r->label, r->metric); break;
		case GL_RK_CLASSES: gl_agg_each_counter(s->an->all, r->metric, each_class, &c); break;
		case GL_RK_CATALOG: catalog_rows(s, w->name); break;
		case GL_RK_EXTRA:
			if (f->summary_extra)
				f->summary_extra(s->an, s->ops->row, s->arg);
			break;
		default: break; /* report.json's kinds */
		}
	}
}

void gl_report_summary(const struct gl_analysis *an, const struct gl_summary_ops *ops, void *arg)
{
	struct sum s = { an, ops, arg };
	const struct gl_workload_ops *w;

	for (size_t i = 0; (w = gl_workload_at(i)); i++)
		if (w->figures && w->figures->summary && gl_scenario_workload(an->sc, w->name))
			table(&s, w);
}
