/*
 * compare_write.c - the writers of `gauntlet compare` (compare.h): the
 * summary on stdout (the verdict, the first-class figures, the regressions
 * that gate, counts of the rest), the table of every comparison (--all),
 * and compare.json, compare.md and compare.html (self-contained), from the
 * rows compare_stats.c judged.
 */
#include "compare_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "units.h"

#define OUT_MAX_BYTES (64u << 20)

static const char *const verdict_names[] = { "insufficient data", "no change", "improvement", "regression" };

/* ---- rendering ------------------------------------------------------------------------- */

static void fmt_val(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.4g", v);
}

/* The change as judged: points for the first-class ratios (their
 * tolerance is absolute), else relative. */
static void fmt_change(char *buf, size_t n, const struct cmp *c, const struct row *r)
{
	double ch = r->change;

	if (c->figs[r->fig].judging == J_MEAN_ABS && !isnan(r->change_abs))
		snprintf(buf, n, "%+.1f pts", r->change_abs * 100);
	else if (isnan(ch))
		snprintf(buf, n, "n/a");
	else if (isinf(ch))
		snprintf(buf, n, "%s", ch > 0 ? "+inf" : "-inf");
	else
		snprintf(buf, n, "%+.1f%%", ch * 100);
}

static void fmt_p(char *buf, size_t n, const struct row *r)
{
	if (!r->tested)
		snprintf(buf, n, "-");
	else if (r->p < 1e-4)
		snprintf(buf, n, "%.1e", r->p);
	else
		snprintf(buf, n, "%.4f", r->p);
}

/* What was compared: the means where the change is of the means. */
static double shown_base(const struct row *r)
{
	return r->change_from_means ? r->mean_base : r->med_base;
}

static double shown_cand(const struct row *r)
{
	return r->change_from_means ? r->mean_cand : r->med_cand;
}

static const char *overall(const struct cmp *c)
{
	return c->count[V_REGRESSION] ? "regression" : "no regression";
}

const char *gl_cmp_row_where(const struct cmp *c, const struct row *r, char *buf, size_t n)
{
	if (r->grp >= 0)
		return c->groups[r->grp].label;
	snprintf(buf, n, "fault %s", r->fault_id);
	return buf;
}

/* The summary lists at most this many regressions; --all and the files
 * have every one. */
#define SUMMARY_MAX_LISTED 10

/* One row in a sentence: "  training.ettr, whole run: 0.95 -> 0.908 ratio
 * (-4.2 pts, p 6.0e-09)". */
static void summary_row(const struct cmp *c, const struct row *r, FILE *f, int with_verdict)
{
	const struct figure *fg = &c->figs[r->fig];
	char where[96], vb[32], vc[32], ch[32], p[32];

	fmt_val(vb, sizeof(vb), shown_base(r));
	fmt_val(vc, sizeof(vc), shown_cand(r));
	fmt_change(ch, sizeof(ch), c, r);
	fmt_p(p, sizeof(p), r);
	fprintf(f, "  %s, %s: %s -> %s %s (%s%s%s)", fg->name, gl_cmp_row_where(c, r, where, sizeof(where)), vb, vc,
		fg->def->unit, ch, r->tested ? ", p " : "", r->tested ? p : "");
	if (with_verdict)
		fprintf(f, ": %s", r->v == V_REGRESSION ? "REGRESSION" : verdict_names[r->v]);
	if (r->v == V_REGRESSION && r->note[0] && r->method == M_SINGLE && isnan(r->change))
		fprintf(f, ", %s", r->note);
	fputc('\n', f);
}

void gl_cmp_print_summary(const struct cmp *c, FILE *f)
{
	int listed = 0, floor_n = 0, header = 0;

	fprintf(f, "gauntlet compare: base %s (%s), candidate %s (%s)\n", c->o.base, c->s[0].an->run.id, c->o.cand,
		c->s[1].an->run.id);
	if (c->count[V_REGRESSION])
		fprintf(f, "verdict: REGRESSION (exit 1): %d change(s) gate\n", c->count[V_REGRESSION]);
	else
		fprintf(f, "verdict: no regression (exit 0)\n");
	for (int i = 0; i < c->n_warnings; i++)
		fprintf(f, "warning: %s\n", c->warnings[i]);
	/* the first-class figures: the ratios over the whole run, the
	 * recovery figures counted over the faults */
	for (int fi = 0; fi < c->n_figs; fi++) {
		const struct figure *fg = &c->figs[fi];
		int n = 0, k[4] = { 0 };
		if (!fg->first_class)
			continue;
		for (int i = 0; i < c->n_rows; i++) {
			const struct row *r = &c->rows[i];
			if (r->fig != fi)
				continue;
			if (fg->judging == J_MEAN_ABS && r->grp >= 0 && c->groups[r->grp].occ == GROUP_WHOLE_RUN) {
				if (!header++)
					fprintf(f, "first-class figures:\n");
				summary_row(c, r, f, 1);
			} else if (fg->judging == J_FAULT) {
				n++;
				k[r->v]++;
			}
		}
		if (n) {
			if (!header++)
				fprintf(f, "first-class figures:\n");
			fprintf(f,
				"  %s: %d fault(s) in both runs: %d regression(s), %d improvement(s), %d unchanged%s\n",
				fg->name, n, k[V_REGRESSION], k[V_IMPROVEMENT], k[V_NONE],
				k[V_INSUFFICIENT] ? ", some never injected" : "");
		}
	}
	if (c->n_edges) {
		if (!header++)
			fprintf(f, "first-class figures:\n");
		gl_cmp_edges_summary(c, f, 0);
	}
	if (c->count[V_REGRESSION]) {
		fprintf(f, "regressions that gate (%d):\n", c->count[V_REGRESSION]);
		gl_cmp_edges_summary(c, f, 1);
		/* the first-class figures' first, then the rest in table order */
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < c->n_rows; i++) {
				const struct row *r = &c->rows[i];
				if (r->v != V_REGRESSION || c->figs[r->fig].first_class != !pass)
					continue;
				if (listed++ < SUMMARY_MAX_LISTED)
					summary_row(c, r, f, 0);
			}
		if (listed > SUMMARY_MAX_LISTED)
			fprintf(f, "  ... and %d more (--all lists them; compare.json has every one)\n",
				listed - SUMMARY_MAX_LISTED);
	}
	for (int i = 0; i < c->n_rows; i++)
		floor_n += c->rows[i].below_floor;
	fprintf(f,
		"not gating: %d improvement(s), %d unchanged (%d of them significant but within the noise floor), "
		"%d with insufficient data\n",
		c->count[V_IMPROVEMENT], c->count[V_NONE], floor_n, c->count[V_INSUFFICIENT]);
	if (!c->o.all)
		fprintf(f, "%d comparisons in all: --all lists every one\n", c->n_rows);
}

void gl_cmp_print_table(const struct cmp *c, FILE *f)
{
	fprintf(f,
		"\nevery comparison: Mann-Whitney U over per-window values (Welch's t for the first-class ratios), "
		"alpha %g, tolerance %g%% (ETTR %g points, goodput %g points, recovery %g%%), at least %d windows\n",
		c->o.alpha, c->o.tolerance * 100, c->o.ettr_tolerance * 100, c->o.goodput_tolerance * 100,
		c->o.recovery_tolerance * 100, c->o.min_windows);
	fprintf(f, "%-36s %-16s %-9s %10s %10s %9s %8s  %s\n", "metric", "phase", "windows", "base", "cand", "change",
		"p", "verdict");
	for (int i = 0; i < c->n_rows; i++) {
		const struct row *r = &c->rows[i];
		char nb[24], vb[32], vc[32], ch[32], p[32], where[96];
		snprintf(nb, sizeof(nb), "%d/%d", r->n_base, r->n_cand);
		fmt_val(vb, sizeof(vb), shown_base(r));
		fmt_val(vc, sizeof(vc), shown_cand(r));
		fmt_change(ch, sizeof(ch), c, r);
		fmt_p(p, sizeof(p), r);
		fprintf(f, "%-36s %-16s %-9s %10s %10s %9s %8s  %s%s\n", c->figs[r->fig].name,
			gl_cmp_row_where(c, r, where, sizeof(where)), nb, vb, vc, ch, p,
			r->v == V_REGRESSION ? "REGRESSION" : verdict_names[r->v],
			r->below_floor ? " (within the noise floor)" : "");
	}
}

/* JSON numbers: NaN and infinities are null. */
static void jnum(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *run_json(const struct side *s)
{
	cJSON *o = cJSON_CreateObject();
	const struct gl_run_row *r = &s->an->run;
	char wall[40];

	cJSON_AddStringToObject(o, "dir", s->dir);
	cJSON_AddStringToObject(o, "run_id", r->id);
	cJSON_AddStringToObject(o, "scenario", r->name);
	cJSON_AddStringToObject(o, "scenario_sha256", r->scenario_sha256);
	gl_format_wall(r->started_wall_ns, wall, sizeof(wall));
	cJSON_AddStringToObject(o, "started", wall);
	cJSON_AddStringToObject(o, "state", r->state);
	cJSON_AddStringToObject(o, "verdict", gl_verdict_name(s->an->verdict));
	cJSON_AddNumberToObject(o, "windows", s->an->n_windows);
	cJSON_AddNumberToObject(o, "window_s", (double)r->window_ns / 1e9);
	cJSON_AddNumberToObject(o, "time_scale", r->time_scale);
	return o;
}

static cJSON *compare_json(const struct cmp *c, int exit_code)
{
	cJSON *j = cJSON_CreateObject(), *o, *arr;

	cJSON_AddStringToObject(j, "verdict", overall(c));
	cJSON_AddNumberToObject(j, "exit_code", exit_code);
	cJSON_AddItemToObject(j, "base", run_json(&c->s[0]));
	cJSON_AddItemToObject(j, "candidate", run_json(&c->s[1]));
	o = cJSON_AddObjectToObject(j, "settings");
	cJSON_AddStringToObject(o, "test",
				"Mann-Whitney U, two-sided, over per-window values; Welch's t, "
				"two-sided, for the first-class ratios");
	cJSON_AddNumberToObject(o, "alpha", c->o.alpha);
	cJSON_AddNumberToObject(o, "tolerance", c->o.tolerance);
	cJSON_AddNumberToObject(o, "ettr_tolerance", c->o.ettr_tolerance);
	cJSON_AddNumberToObject(o, "goodput_tolerance", c->o.goodput_tolerance);
	cJSON_AddNumberToObject(o, "recovery_tolerance", c->o.recovery_tolerance);
	cJSON_AddNumberToObject(o, "min_windows", c->o.min_windows);
	arr = cJSON_AddArrayToObject(o, "stats");
	for (int i = 0; i < c->o.n_stats; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(c->o.stats[i]));
	arr = cJSON_AddArrayToObject(j, "warnings");
	for (int i = 0; i < c->n_warnings; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(c->warnings[i]));
	o = cJSON_AddObjectToObject(j, "counts");
	cJSON_AddNumberToObject(o, "regression", c->count[V_REGRESSION]);
	cJSON_AddNumberToObject(o, "improvement", c->count[V_IMPROVEMENT]);
	cJSON_AddNumberToObject(o, "no_change", c->count[V_NONE]);
	cJSON_AddNumberToObject(o, "insufficient_data", c->count[V_INSUFFICIENT]);
	arr = cJSON_AddArrayToObject(j, "comparisons");
	for (int i = 0; i < c->n_rows; i++) {
		const struct row *r = &c->rows[i];
		const struct figure *f = &c->figs[r->fig];
		const struct group *g = r->grp >= 0 ? &c->groups[r->grp] : NULL;
		cJSON *x = cJSON_CreateObject();
		char where[96];
		cJSON_AddStringToObject(x, "metric", f->name);
		cJSON_AddStringToObject(x, "unit", f->def->unit);
		cJSON_AddBoolToObject(x, "lower_is_better", f->def->lower_is_better);
		cJSON_AddBoolToObject(x, "first_class", f->first_class);
		cJSON_AddStringToObject(x, "phase", gl_cmp_row_where(c, r, where, sizeof(where)));
		if (g && g->occ > 0) {
			cJSON_AddStringToObject(x, "phase_name", g->name);
			cJSON_AddNumberToObject(x, "occurrence", g->occ);
		} else {
			cJSON_AddNullToObject(x, "phase_name");
			cJSON_AddNullToObject(x, "occurrence");
		}
		if (g)
			cJSON_AddNullToObject(x, "fault");
		else
			cJSON_AddStringToObject(x, "fault", r->fault_id);
		cJSON_AddNumberToObject(x, "n_base", r->n_base);
		cJSON_AddNumberToObject(x, "n_cand", r->n_cand);
		jnum(x, "base_median", r->med_base);
		jnum(x, "cand_median", r->med_cand);
		jnum(x, "base_mean", r->mean_base);
		jnum(x, "cand_mean", r->mean_cand);
		jnum(x, "change_pct", r->change * 100);
		if (isinf(r->change))
			cJSON_AddStringToObject(x, "change_note", r->change > 0 ? "from 0 up" : "from 0 down");
		cJSON_AddStringToObject(x, "change_of",
					f->judging == J_FAULT  ? "values"
					: r->change_from_means ? "means"
							       : "medians");
		jnum(x, "change_abs", r->change_abs);
		cJSON_AddStringToObject(x, "tolerance_kind", f->judging == J_MEAN_ABS ? "absolute" : "relative");
		jnum(x, "tolerance", r->tolerance);
		jnum(x, "floor", r->floor);
		cJSON_AddBoolToObject(x, "within_floor", r->below_floor);
		if (r->tested && r->method == M_MWU) {
			jnum(x, "u_base", r->t.u_a);
			jnum(x, "u_cand", r->t.u_b);
			jnum(x, "p_value", r->t.p);
			cJSON_AddStringToObject(x, "test", "mann-whitney");
			cJSON_AddStringToObject(x, "method", r->t.exact ? "exact" : "normal");
		} else if (r->tested && r->method == M_WELCH) {
			jnum(x, "t", r->w.t);
			jnum(x, "df", r->w.df);
			jnum(x, "p_value", r->w.p);
			cJSON_AddStringToObject(x, "test", "welch");
			cJSON_AddStringToObject(x, "method", "t distribution");
		} else {
			cJSON_AddNullToObject(x, "p_value");
			cJSON_AddNullToObject(x, "test");
			cJSON_AddNullToObject(x, "method");
		}
		cJSON_AddStringToObject(x, "verdict", verdict_names[r->v]);
		cJSON_AddBoolToObject(x, "gates", r->v == V_REGRESSION);
		if (r->note[0])
			cJSON_AddStringToObject(x, "note", r->note);
		cJSON_AddItemToArray(arr, x);
	}
	cJSON_AddItemToObject(j, "not_compared", cJSON_Duplicate(c->not_compared, 1));
	cJSON_AddItemToObject(j, "edges", gl_cmp_edges_json(c));
	return j;
}

typedef int (*esc_fn)(struct gl_buf *b, const char *s);

/* The run facts, one row per fact, as "| label | base | cand |" or the HTML equivalent. */
static void facts(const struct cmp *c, struct gl_buf *b, esc_fn esc, int html)
{
	static const char *const labels[] = { "directory",       "run id",  "scenario", "scenario sha256", "started",
					      "state / verdict", "windows", "window",   "time scale" };
	for (size_t i = 0; i < GL_ARRAY_LEN(labels); i++) {
		gl_buf_printf(b, html ? "<tr><th>%s</th>" : "| %s |", labels[i]);
		for (int k = 0; k < 2; k++) {
			const struct gl_analysis *an = c->s[k].an;
			char v[1100];
			switch (i) {
			case 0: snprintf(v, sizeof(v), "%s", c->s[k].dir); break;
			case 1: snprintf(v, sizeof(v), "%s", an->run.id); break;
			case 2: snprintf(v, sizeof(v), "%s", an->run.name); break;
			case 3: snprintf(v, sizeof(v), "%s", an->run.scenario_sha256); break;
			case 4: gl_format_wall(an->run.started_wall_ns, v, sizeof(v)); break;
			case 5: snprintf(v, sizeof(v), "%s / %s", an->run.state, gl_verdict_name(an->verdict)); break;
			case 6: snprintf(v, sizeof(v), "%d", an->n_windows); break;
			case 7: snprintf(v, sizeof(v), "%g s", (double)an->run.window_ns / 1e9); break;
			default: snprintf(v, sizeof(v), "%g", an->run.time_scale); break;
			}
			gl_buf_printf(b, html ? "<td>" : " ");
			esc(b, v);
			gl_buf_printf(b, html ? "</td>" : " |");
		}
		gl_buf_printf(b, html ? "</tr>\n" : "\n");
	}
}

/* The rows to show: 0 every one, 1 the changes, 2 the first-class
 * figures' (the whole run and the faults). */
static int row_shown(const struct cmp *c, const struct row *r, int which)
{
	if (which == 1)
		return r->v == V_REGRESSION || r->v == V_IMPROVEMENT;
	if (which == 2)
		return c->figs[r->fig].first_class && (r->grp < 0 || c->groups[r->grp].occ == GROUP_WHOLE_RUN);
	return 1;
}

/* How the verdicts were reached, in plain text (each writer escapes it). */
static void method_text(const struct cmp *c, char *buf, size_t n)
{
	snprintf(buf, n,
		 "Each figure is computed per window; the windows of a phase in the two runs are compared with "
		 "the two-sided Mann-Whitney U test at alpha %g, and a change counts when the median moved by "
		 "more than %g%% (--tolerance) and by more than the unit's noise floor (10 us for times, 0.001 for "
		 "ratios, 0.01 GB/s; the floor column) in the metric's bad direction (regression) or good direction "
		 "(improvement). training.ettr and inference.goodput are also compared over the whole run (every "
		 "window, faults included), on the change of their means in points against %g and %g points "
		 "(--ettr-tolerance, --goodput-tolerance), tested with Welch's t test. Each fault's recovery_s and "
		 "restore_s count when longer by more than %g%% (--recovery-tolerance) and by more than the "
		 "scenario's hold windows (one unhealthy window moves them that much). At least %d windows with data "
		 "are needed on each side. Windows under a fault are "
		 "grouped as faults.",
		 c->o.alpha, c->o.tolerance * 100, c->o.ettr_tolerance * 100, c->o.goodput_tolerance * 100,
		 c->o.recovery_tolerance * 100, c->o.min_windows);
}

static const char *change_of(const struct cmp *c, const struct row *r)
{
	if (c->figs[r->fig].judging == J_MEAN_ABS)
		return "";
	return r->change_from_means ? " (means)" : "";
}

static void md_rows(const struct cmp *c, struct gl_buf *b, int which)
{
	gl_buf_printf(b, "| metric | phase | better | windows (base/cand) | base | candidate | change | p-value | "
			 "note | verdict |\n|---|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < c->n_rows; i++) {
		const struct row *r = &c->rows[i];
		char vb[32], vc[32], ch[32], p[32], where[96];
		if (!row_shown(c, r, which))
			continue;
		fmt_val(vb, sizeof(vb), shown_base(r));
		fmt_val(vc, sizeof(vc), shown_cand(r));
		fmt_change(ch, sizeof(ch), c, r);
		fmt_p(p, sizeof(p), r);
		gl_buf_printf(b, "| `%s` | ", c->figs[r->fig].name);
		gl_md_text(b, gl_cmp_row_where(c, r, where, sizeof(where)));
		gl_buf_printf(b, " | %s | %d/%d | %s | %s | %s%s | %s | ",
			      c->figs[r->fig].def->lower_is_better ? "lower" : "higher", r->n_base, r->n_cand, vb, vc,
			      ch, change_of(c, r), p);
		gl_md_text(b, r->note);
		gl_buf_printf(b, " | %s%s%s |\n", r->v == V_REGRESSION ? "**" : "", verdict_names[r->v],
			      r->v == V_REGRESSION ? "**" : "");
	}
}

static int has_shown(const struct cmp *c, int which)
{
	for (int i = 0; i < c->n_rows; i++)
		if (row_shown(c, &c->rows[i], which))
			return 1;
	return 0;
}

/* "Not compared": each entry's metric, its fault if any, and the run it
 * was seen in, through esc. */
static void not_compared_list(const struct cmp *c, struct gl_buf *b, esc_fn esc, const char *pre, const char *post)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, c->not_compared)
	{
		const cJSON *fault = cJSON_GetObjectItem(it, "fault");
		char text[256];
		snprintf(text, sizeof(text), "%s%s%s (%s)", cJSON_GetObjectItem(it, "metric")->valuestring,
			 cJSON_IsString(fault) ? " of fault " : "", cJSON_IsString(fault) ? fault->valuestring : "",
			 cJSON_GetObjectItem(it, "only_in")->valuestring);
		gl_buf_printf(b, "%s", pre);
		esc(b, text);
		gl_buf_printf(b, "%s", post);
	}
}

static int render_md(const struct cmp *c, struct gl_buf *b)
{
	gl_buf_printf(b, "# gauntlet compare: ");
	gl_md_text(b, c->s[1].an->run.name);
	gl_buf_printf(b,
		      " against its baseline\n\n**Verdict: %s** (%d regression(s), %d improvement(s), "
		      "%d unchanged, %d with insufficient data)\n\n",
		      c->count[V_REGRESSION] ? "REGRESSION" : "NO REGRESSION", c->count[V_REGRESSION],
		      c->count[V_IMPROVEMENT], c->count[V_NONE], c->count[V_INSUFFICIENT]);
	gl_buf_printf(b, "| | base | candidate |\n|---|---|---|\n");
	facts(c, b, gl_md_text, 0);
	{
		char text[1600];
		method_text(c, text, sizeof(text));
		gl_buf_printf(b, "\n");
		gl_md_text(b, text);
		gl_buf_printf(b, "\n\n");
	}
	for (int i = 0; i < c->n_warnings; i++) {
		gl_buf_printf(b, "> **Warning:** ");
		gl_md_text(b, c->warnings[i]);
		gl_buf_printf(b, "\n\n");
	}
	gl_buf_printf(b, "## First-class figures\n\n");
	if (has_shown(c, 2))
		md_rows(c, b, 2);
	else
		gl_buf_printf(b, "Neither ETTR, goodput nor a fault of both runs to compare.\n");
	gl_cmp_edges_table(c, b, 0);
	gl_buf_printf(b, "\n## Changes\n\n");
	if (c->count[V_REGRESSION] + c->count[V_IMPROVEMENT])
		md_rows(c, b, 1);
	else
		gl_buf_printf(b, "No significant change beyond the tolerance.\n");
	gl_buf_printf(b, "\n## All comparisons\n\n");
	md_rows(c, b, 0);
	if (cJSON_GetArraySize(c->not_compared)) {
		gl_buf_printf(b, "\n## Not compared\n\nMeasured in one run only:");
		not_compared_list(c, b, gl_md_text, " ", "");
		gl_buf_printf(b, "\n");
	}
	return b->len >= b->max ? -1 : 0;
}

static void html_rows(const struct cmp *c, struct gl_buf *b, int which)
{
	gl_buf_printf(b, "<table class=\"rows\"><thead><tr><th>metric</th><th>phase</th><th>better</th>"
			 "<th>windows (base/cand)</th><th>base</th><th>candidate</th><th>change</th>"
			 "<th>p-value</th><th>note</th><th>verdict</th></tr></thead><tbody>\n");
	for (int i = 0; i < c->n_rows; i++) {
		const struct row *r = &c->rows[i];
		char vb[32], vc[32], ch[32], p[32], where[96];
		static const char *const cls[] = { "insufficient", "none", "improvement", "regression" };
		if (!row_shown(c, r, which))
			continue;
		fmt_val(vb, sizeof(vb), shown_base(r));
		fmt_val(vc, sizeof(vc), shown_cand(r));
		fmt_change(ch, sizeof(ch), c, r);
		fmt_p(p, sizeof(p), r);
		gl_buf_printf(b, "<tr class=\"%s\"><td><code>", cls[r->v]);
		gl_html_text(b, c->figs[r->fig].name);
		gl_buf_printf(b, "</code></td><td>");
		gl_html_text(b, gl_cmp_row_where(c, r, where, sizeof(where)));
		gl_buf_printf(b,
			      "</td><td>%s</td><td>%d/%d</td><td>%s</td><td>%s</td><td>%s%s</td><td>%s</td>"
			      "<td class=\"note\">",
			      c->figs[r->fig].def->lower_is_better ? "lower" : "higher", r->n_base, r->n_cand, vb, vc,
			      ch, change_of(c, r), p);
		gl_html_text(b, r->note);
		gl_buf_printf(b, "</td><td class=\"verdict\">%s</td></tr>\n", verdict_names[r->v]);
	}
	gl_buf_printf(b, "</tbody></table>\n");
}

static int render_html(const struct cmp *c, struct gl_buf *b)
{
	gl_buf_printf(b,
		      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>gauntlet compare: ");
	gl_html_text(b, c->s[1].an->run.name);
	gl_buf_printf(b, "</title>\n<style>\n"
			 "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\n"
			 "table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:3px 8px;"
			 "text-align:left}\n"
			 "td:nth-child(n+4){text-align:right}td.verdict,table.facts td{text-align:left}\n"
			 "table.facts td{word-break:break-all}\n"
			 ".verdict-box{font-size:1.3em;font-weight:bold;padding:.4em .8em;display:inline-block}\n"
			 ".bad{background:#f8d0d0}.good{background:#d4f0d4}\n"
			 "tr.regression{background:#f8d0d0}tr.improvement{background:#d4f0d4}"
			 "tr.insufficient{color:#888}\n"
			 ".warn{background:#fff3cd;padding:.4em .8em;margin:.3em 0}\n"
			 "</style></head><body>\n<h1>gauntlet compare: ");
	gl_html_text(b, c->s[1].an->run.name);
	gl_buf_printf(b,
		      " against its baseline</h1>\n<p class=\"verdict-box %s\" id=\"verdict\">%s</p>\n"
		      "<p>%d regression(s), %d improvement(s), %d unchanged, %d with insufficient data</p>\n",
		      c->count[V_REGRESSION] ? "bad" : "good", c->count[V_REGRESSION] ? "REGRESSION" : "NO REGRESSION",
		      c->count[V_REGRESSION], c->count[V_IMPROVEMENT], c->count[V_NONE], c->count[V_INSUFFICIENT]);
	gl_buf_printf(b, "<table class=\"facts\"><tr><th></th><th>base</th><th>candidate</th></tr>\n");
	facts(c, b, gl_html_text, 1);
	{
		char text[1600];
		method_text(c, text, sizeof(text));
		gl_buf_printf(b, "</table>\n<p>");
		gl_html_text(b, text);
		gl_buf_printf(b, "</p>\n");
	}
	for (int i = 0; i < c->n_warnings; i++) {
		gl_buf_printf(b, "<p class=\"warn\"><strong>Warning:</strong> ");
		gl_html_text(b, c->warnings[i]);
		gl_buf_printf(b, "</p>\n");
	}
	gl_buf_printf(b, "<h2>First-class figures</h2>\n");
	if (has_shown(c, 2))
		html_rows(c, b, 2);
	else
		gl_buf_printf(b, "<p>Neither ETTR, goodput nor a fault of both runs to compare.</p>\n");
	gl_cmp_edges_table(c, b, 1);
	gl_buf_printf(b, "<h2>Changes</h2>\n");
	if (c->count[V_REGRESSION] + c->count[V_IMPROVEMENT])
		html_rows(c, b, 1);
	else
		gl_buf_printf(b, "<p>No significant change beyond the tolerance.</p>\n");
	gl_buf_printf(b, "<h2>All comparisons</h2>\n");
	html_rows(c, b, 0);
	if (cJSON_GetArraySize(c->not_compared)) {
		gl_buf_printf(b, "<h2>Not compared</h2>\n<p>Measured in one run only:</p><ul>\n");
		not_compared_list(c, b, gl_html_text, "<li>", "</li>\n");
		gl_buf_printf(b, "</ul>\n");
	}
	gl_buf_printf(b, "</body></html>\n");
	return b->len >= b->max ? -1 : 0;
}

int gl_cmp_write_outputs(const struct cmp *c, const char *dir, int exit_code, struct gl_err *err)
{
	struct gl_buf md, html;
	char path[1200], *text = NULL;
	cJSON *j = NULL;
	int rc;

	gl_buf_init(&md, OUT_MAX_BYTES);
	gl_buf_init(&html, OUT_MAX_BYTES);
	if ((rc = gl_mkdir_p(dir, 0700, err)))
		goto out;
	if (!(j = compare_json(c, exit_code)) || !(text = cJSON_Print(j))) {
		rc = gl_errf(err, GL_ENOMEM, "compare.json: out of memory");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/compare.json", dir);
	if ((rc = gl_write_file_atomic(path, text, strlen(text), 0600, err)))
		goto out;
	if (render_md(c, &md) != 0) {
		rc = gl_errf(err, GL_ELIMIT, "compare.md: too large");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/compare.md", dir);
	if ((rc = gl_write_file_atomic(path, md.data, md.len, 0600, err)))
		goto out;
	if (render_html(c, &html) != 0) {
		rc = gl_errf(err, GL_ELIMIT, "compare.html: too large");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/compare.html", dir);
	rc = gl_write_file_atomic(path, html.data, html.len, 0600, err);
out:
	cJSON_free(text);
	cJSON_Delete(j);
	gl_buf_free(&md);
	gl_buf_free(&html);
	return rc;
}
