/*
 * report_html_charts.c - report.html's charts (report_html.c): one inline
 * SVG per series (series.h) over scenario time, with phases, spikes and
 * faults as bands, the targets' thresholds, the windows that miss them and
 * the controller's outages.
 *
 * Charts stay small however long the run: a series with more windows than
 * GL_CHART_MAX_POINTS is drawn per pixel column as a min/max envelope with
 * the line of means, and every window that misses its target is drawn as
 * a red mark on top (merged per column), so a violation is never averaged
 * out of view. Size and time are linear in the number of windows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_html_int.h"
#include "timeline.h"
#include "units.h"

/* Chart geometry, in SVG user units (the SVG scales to the page width). */
#define CH_ML 64 /* left margin: y labels */
#define CH_MR 16
#define CH_MT 8
#define CH_MB 26 /* bottom margin: x labels */
#define CH_PW 1100 /* plot width: one downsampling bucket per unit */
#define CH_PH 220
#define CH_W (CH_ML + CH_PW + CH_MR)
#define CH_H (CH_MT + CH_PH + CH_MB)
#define GL_CHART_MAX_POINTS 1500

struct chart {
	double t0, t1; /* scenario ns at the plot's left and right edges */
	double y0, y1; /* value range */
};

static double cx(const struct chart *c, double t_ns)
{
	double x = CH_ML + (t_ns - c->t0) / (c->t1 - c->t0) * CH_PW;
	return x < CH_ML ? CH_ML : x > CH_ML + CH_PW ? CH_ML + CH_PW : x;
}

static double cy(const struct chart *c, double v)
{
	double y = CH_MT + CH_PH - (v - c->y0) / (c->y1 - c->y0) * CH_PH;
	return y < CH_MT ? CH_MT : y > CH_MT + CH_PH ? CH_MT + CH_PH : y;
}

/* 1, 2 or 5 times a power of ten, at least x. */
static double nice_step(double x)
{
	double p = pow(10, floor(log10(x))), f = x / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static void axes(struct out *o, const struct chart *c, const char *unit)
{
	static const double steps_s[] = {
		1,    2,    5,    10,    15,    30,    60,    120,    300,    600,     900,
		1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2592000
	};
	double span_s = (c->t1 - c->t0) / 1e9, step = steps_s[GL_ARRAY_LEN(steps_s) - 1], ys;

	for (size_t i = 0; i < GL_ARRAY_LEN(steps_s); i++)
		if (span_s / steps_s[i] <= 10) {
			step = steps_s[i];
			break;
		}
	if (span_s / step > 10)
		step = nice_step(span_s / 10);
	put(o, "<g class=\"xaxis\">");
	for (double t = 0; t <= span_s + 1e-9 && o->rc == 0; t += step) {
		double x = cx(c, c->t0 + t * 1e9);
		char lab[48];
		gl_format_duration((int64_t)llround(t) * 1000000000LL, lab, sizeof(lab));
		putf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x, CH_MT, x,
		     CH_MT + CH_PH + 4);
		putf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>", x, CH_MT + CH_PH + 17,
		     t == 0                   ? "start"
		     : x > CH_ML + CH_PW - 20 ? "end"
					      : "middle",
		     lab);
	}
	put(o, "</g><g class=\"yaxis\">");
	ys = nice_step((c->y1 - c->y0) / 5);
	for (double k = ceil(c->y0 / ys); k * ys <= c->y1 + ys * 1e-9 && o->rc == 0; k++) {
		double v = k * ys, y = cy(c, v);
		putf(o, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", CH_ML - 4, y,
		     CH_ML + CH_PW, y);
		/* %.7g of a multiple of the step: 15000, 0.015, 2.5e-05 */
		putf(o, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.7g</text>", CH_ML - 6, y + 4,
		     k == 0 ? 0.0 : v);
	}
	putf(o, "<text class=\"tick\" transform=\"translate(13 %d) rotate(-90)\" text-anchor=\"middle\">",
	     CH_MT + CH_PH / 2);
	esc(o, unit);
	putf(o, "</text></g><rect class=\"axis\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", CH_ML, CH_MT, CH_PW,
	     CH_PH);
}

static void phase_bands(struct out *o, const struct gl_analysis *an, const struct chart *c)
{
	const struct gl_scenario *sc = an->sc;

	for (int i = 0; i < sc->n_phases && o->rc == 0; i++) {
		const struct gl_phase *p = &sc->phases[i];
		double x0 = cx(c, (double)p->start_ns), x1 = cx(c, (double)(p->start_ns + p->dur_ns));
		char a[48], b[48];
		if (x1 <= x0)
			continue;
		fmt_scn(a, sizeof(a), (double)p->start_ns);
		fmt_scn(b, sizeof(b), (double)(p->start_ns + p->dur_ns));
		putf(o, "<rect class=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>phase ",
		     p->scope == GL_SCOPE_NONE ? "phn"
		     : i % 2                   ? "ph1"
					       : "ph0",
		     x0, CH_MT, x1 - x0, CH_PH);
		esc(o, p->name);
		putf(o, " (%s, load %.3g): %s to %s</title></rect>", gl_scope_name(p->scope), p->load, a, b);
		/* the name when the band has room for it (about 6.5 units a character) */
		if (x1 - x0 >= 6.5 * (double)strlen(p->name) + 6) {
			putf(o, "<text class=\"phl\" x=\"%.1f\" y=\"%d\">", x0 + 3, CH_MT + 12);
			esc(o, p->name);
			put(o, "</text>");
		}
	}
}

/* Each spike's occurrences as bands, per pixel column: a column is shaded
 * when a spike is on at some time in it, and runs of shaded columns are one
 * rect, so that a week of spikes every few minutes stays at most one rect
 * per column, and a spike shorter than a column still shows. */
static void spike_bands(struct out *o, const struct gl_analysis *an, const struct chart *c)
{
	struct gl_tl_spike *sp = NULL;
	int n = 0;

	if (gl_timeline_spikes(an->sc, &sp, &n) != 0)
		return;
	for (int i = 0; i < n && o->rc == 0; i++) {
		char name[GL_NAME_MAX + 32], e[48], st[48], d[48];
		int run0 = -1;
		gl_timeline_spike_name(an->sc, &sp[i], name, sizeof(name));
		gl_format_duration(sp[i].sp.every_ns, e, sizeof(e));
		gl_format_duration(sp[i].sp.start_ns, st, sizeof(st));
		gl_format_duration(sp[i].sp.dur_ns, d, sizeof(d));
		for (int k = 0; k <= CH_PW && o->rc == 0; k++) {
			int on = k < CH_PW &&
				 gl_timeline_spike_in(&sp[i], (int64_t)(c->t0 + (c->t1 - c->t0) * k / CH_PW),
						      (int64_t)(c->t0 + (c->t1 - c->t0) * (k + 1) / CH_PW));
			if (on && run0 < 0)
				run0 = k;
			if (on || run0 < 0)
				continue;
			putf(o, "<rect class=\"spk\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"><title>spike ",
			     CH_ML + run0, CH_MT, k - run0, CH_PH);
			esc(o, name);
			put(o, ": ");
			esc(o, sp[i].sp.what);
			putf(o, ", every %s from %s for %s (%lld in the run)</title></rect>", e, st, d,
			     (long long)sp[i].count);
			run0 = -1;
		}
	}
	free(sp);
}

/* Where a fault's shading ends: its revert, or the end of the data while it
 * is still injected. */
static double fault_end_scn(const struct gl_analysis *an, const struct gl_fault_result *f)
{
	if (f->row.reverted_scn_ns >= 0)
		return (double)f->row.reverted_scn_ns;
	if (f->row.dur_ns == 0)
		return (double)f->row.injected_scn_ns;
	return an->n_windows ? (double)an->windows[an->n_windows - 1].scn_end_ns : (double)f->row.injected_scn_ns;
}

static void marker(struct out *o, double x, const char *cls, const char *what, const char *fault_id, double secs)
{
	putf(o, "<g><line class=\"%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", cls, x, CH_MT, x, CH_MT + CH_PH);
	putf(o, "<path class=\"%sm\" d=\"M%.1f %dl-5 -7h10z\"/><title>", cls, x, CH_MT + 8);
	esc(o, fault_id);
	putf(o, ": %s %.3g s</title></g>", what, secs);
}

static void fault_bands(struct out *o, const struct gl_analysis *an, const struct chart *c)
{
	for (int i = 0; i < an->n_faults && o->rc == 0; i++) {
		const struct gl_fault_result *f = &an->faults[i];
		double x0, x1;
		char a[48], b[48];

		if (f->row.injected_scn_ns < 0)
			continue;
		x0 = cx(c, (double)f->row.injected_scn_ns);
		x1 = cx(c, fault_end_scn(an, f));
		fmt_scn(a, sizeof(a), (double)f->row.injected_scn_ns);
		if (f->row.reverted_scn_ns >= 0)
			fmt_scn(b, sizeof(b), (double)f->row.reverted_scn_ns);
		else
			snprintf(b, sizeof(b), "%s", f->row.dur_ns == 0 ? "(instantaneous)" : "(not reverted)");
		putf(o, "<rect class=\"flt\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>fault ", x0, CH_MT,
		     x1 - x0 < 2 ? 2 : x1 - x0, CH_PH);
		esc(o, f->row.id);
		put(o, " (");
		esc(o, f->row.kind);
		put(o, " on ");
		esc(o, f->row.target);
		putf(o, "): injected %s, reverted %s, state ", a, b);
		esc(o, gl_fault_state_name(f->row.state));
		fmt_num(a, sizeof(a), f->recovery_s >= 0, f->recovery_s);
		fmt_num(b, sizeof(b), f->restore_s >= 0, f->restore_s);
		putf(o, ", recovery_s %s, restore_s %s</title></rect>", a, b);
		putf(o, "<text class=\"fltl\" x=\"%.1f\" y=\"%d\">", x0 + 3, CH_MT + CH_PH - 5);
		esc(o, f->row.id);
		put(o, "</text>");
		if (f->recovery_s >= 0 && f->row.injected_elapsed_ns >= 0)
			marker(o,
			       cx(c, gl_series_elapsed_to_scn(an, f->row.injected_elapsed_ns +
									  (int64_t)llround(f->recovery_s * 1e9))),
			       "rec", "recovered (degraded targets met) recovery_s =", f->row.id, f->recovery_s);
		if (f->restore_s >= 0) {
			int64_t tr = f->row.reverted_elapsed_ns >= 0 ? f->row.reverted_elapsed_ns
				     : f->row.dur_ns == 0            ? f->row.injected_elapsed_ns
								     : -1;
			if (tr >= 0)
				marker(o,
				       cx(c, gl_series_elapsed_to_scn(an, tr + (int64_t)llround(f->restore_s * 1e9))),
				       "rst", "restored (steady targets met) restore_s =", f->row.id, f->restore_s);
		}
	}
}

/* Threshold lines; those far above the data (more than 3x its maximum)
 * would flatten the chart, so they are named at the top instead. */
static void thresholds(struct out *o, const struct chart *c, const struct gl_series *s, const double *shown)
{
	static const enum gl_scope scopes[] = { GL_SCOPE_STEADY, GL_SCOPE_DEGRADED };
	int off = 0;

	for (size_t i = 0; i < GL_ARRAY_LEN(scopes); i++) {
		const struct gl_target_spec *t = s->target[scopes[i]];
		const char *name = gl_scope_name(scopes[i]);
		const char *opx = t ? op_html(t->expr.op) : "";
		if (!t)
			continue;
		if (shown[i]) {
			double y = cy(c, t->expr.threshold);
			putf(o, "<line class=\"thr %s\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", name, CH_ML, y,
			     CH_ML + CH_PW, y);
			putf(o, "<text class=\"thrl %s\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s %s %.6g</text>",
			     name, CH_ML + CH_PW - 4, y < CH_MT + 14 ? y + 12 : y - 3, name, opx, t->expr.threshold);
		} else {
			/* below the row of phase names */
			putf(o,
			     "<text class=\"thrl %s\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%s %s %.6g (off the "
			     "scale)</text>",
			     name, CH_ML + CH_PW - 4, CH_MT + 27 + 13 * off++, name, opx, t->expr.threshold);
		}
	}
}

/* A red mark for windows that miss their target: spanning the values of
 * those windows, at least 3 units wide and 5 high so it always shows. */
static void viol_mark(struct out *o, const struct chart *c, double x0, double x1, int has_v, double lo, double hi)
{
	double w = x1 - x0, ytop, ybot;

	if (w < 3) {
		x0 -= (3 - w) / 2;
		w = 3;
	}
	if (!has_v) { /* no data where a target was in force: at the axis */
		putf(o, "<rect class=\"nodata\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"6\"/>", x0,
		     CH_MT + CH_PH - 6, w);
		return;
	}
	ytop = cy(c, hi) - 2.5;
	ybot = cy(c, lo) + 2.5;
	putf(o, "<rect class=\"viol\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x0, ytop, w,
	     ybot - ytop);
}

static double win_mid(const struct gl_window_info *w)
{
	return ((double)w->scn_start_ns + (double)w->scn_end_ns) / 2;
}

/* Did the controller go down during window w (a resume took it up)? */
static int outage_in(const struct gl_analysis *an, const struct gl_window_info *w)
{
	for (int i = 0; i < an->n_outages; i++)
		if (an->outages[i].at_elapsed_ns >= w->start_ns && an->outages[i].at_elapsed_ns < w->end_ns)
			return 1;
	return 0;
}

/* Where the controller was down: a gap in every line (draw_points) and a
 * grey dashed mark with the time it was down. */
static void outage_marks(struct out *o, const struct gl_analysis *an, const struct chart *c)
{
	for (int i = 0; i < an->n_outages && o->rc == 0; i++) {
		const struct gl_outage *x = &an->outages[i];
		double xx = cx(c, gl_series_elapsed_to_scn(an, x->at_elapsed_ns));
		putf(o, "<g><line class=\"outage\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><title>controller down",
		     xx, CH_MT, xx, CH_MT + CH_PH);
		if (x->down_s >= 0)
			putf(o, " %.3g s", x->down_s);
		putf(o, " (resume #%d)</title></g>", x->resume);
	}
}

/* Every window as a point: a polyline per run of windows with data, broken
 * after a window the controller went down in. */
static void draw_points(struct out *o, const struct gl_analysis *an, const struct chart *c,
			const struct gl_series_set *ss, const struct gl_series *s)
{
	int w = 0;

	while (w < ss->n_windows && o->rc == 0) {
		int a, n;
		while (w < ss->n_windows && isnan(s->v[w]))
			w++;
		if (w >= ss->n_windows)
			break;
		for (a = w; w < ss->n_windows && !isnan(s->v[w]); w++)
			if (w > a && outage_in(an, &ss->win[w - 1]))
				break;
		n = w - a;
		if (n == 1) {
			putf(o, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>", cx(c, win_mid(&ss->win[a])),
			     cy(c, s->v[a]));
			continue;
		}
		put(o, "<polyline class=\"line\" points=\"");
		for (int k = a; k < w; k++)
			putf(o, "%.1f,%.1f ", cx(c, win_mid(&ss->win[k])), cy(c, s->v[k]));
		put(o, "\"/>");
	}
	for (int k = 0; k < ss->n_windows && o->rc == 0; k++)
		if (gl_series_violates(ss, s, k))
			viol_mark(o, c, cx(c, (double)ss->win[k].scn_start_ns), cx(c, (double)ss->win[k].scn_end_ns),
				  !isnan(s->v[k]), s->v[k], s->v[k]);
}

struct bucket {
	double lo, hi, sum;
	int n;
	double vlo, vhi; /* violating windows with data */
	int nv, nv_nodata;
};

/* One bucket per plot unit: the min/max envelope as polygons, the means
 * as a line, the violations per bucket on top. */
static int draw_buckets(struct out *o, const struct chart *c, const struct gl_series_set *ss, const struct gl_series *s)
{
	struct bucket *bk = calloc(CH_PW, sizeof(*bk));
	int b = 0;

	if (!bk)
		return -GL_ENOMEM;
	for (int w = 0; w < ss->n_windows; w++) {
		double v = s->v[w];
		int k = (int)(cx(c, win_mid(&ss->win[w])) - CH_ML);
		struct bucket *q;
		if (k >= CH_PW)
			k = CH_PW - 1;
		q = &bk[k < 0 ? 0 : k];
		if (!isnan(v)) {
			if (!q->n || v < q->lo)
				q->lo = v;
			if (!q->n || v > q->hi)
				q->hi = v;
			q->sum += v;
			q->n++;
		}
		if (gl_series_violates(ss, s, w)) {
			if (isnan(v)) {
				q->nv_nodata++;
			} else {
				if (!q->nv || v < q->vlo)
					q->vlo = v;
				if (!q->nv || v > q->vhi)
					q->vhi = v;
				q->nv++;
			}
		}
	}
	/* runs of buckets with data: envelope polygon, then mean line */
	while (b < CH_PW && o->rc == 0) {
		int a;
		while (b < CH_PW && !bk[b].n)
			b++;
		if (b >= CH_PW)
			break;
		for (a = b; b < CH_PW && bk[b].n; b++)
			;
		if (b - a == 1) {
			putf(o, "<line class=\"envl\" x1=\"%d.5\" y1=\"%.1f\" x2=\"%d.5\" y2=\"%.1f\"/>", CH_ML + a,
			     cy(c, bk[a].hi), CH_ML + a, cy(c, bk[a].lo));
			putf(o, "<circle class=\"dot\" cx=\"%d.5\" cy=\"%.1f\" r=\"1.5\"/>", CH_ML + a,
			     cy(c, bk[a].sum / bk[a].n));
			continue;
		}
		put(o, "<polygon class=\"env\" points=\"");
		for (int k = a; k < b; k++)
			putf(o, "%d.5,%.1f ", CH_ML + k, cy(c, bk[k].hi));
		for (int k = b - 1; k >= a; k--)
			putf(o, "%d.5,%.1f ", CH_ML + k, cy(c, bk[k].lo));
		put(o, "\"/><polyline class=\"line\" points=\"");
		for (int k = a; k < b; k++)
			putf(o, "%d.5,%.1f ", CH_ML + k, cy(c, bk[k].sum / bk[k].n));
		put(o, "\"/>");
	}
	for (int k = 0; k < CH_PW && o->rc == 0; k++) {
		if (bk[k].nv)
			viol_mark(o, c, CH_ML + k, CH_ML + k + 1, 1, bk[k].vlo, bk[k].vhi);
		if (bk[k].nv_nodata)
			viol_mark(o, c, CH_ML + k, CH_ML + k + 1, 0, 0, 0);
	}
	free(bk);
	return 0;
}

static void chart(struct out *o, const struct gl_analysis *an, const struct gl_series_set *ss,
		  const struct gl_series *s)
{
	struct chart c;
	double top = s->n_data ? s->max : 0, bottom = s->n_data && s->min < 0 ? s->min : 0, shown[2] = { 0, 0 };
	double win_s = (double)an->run.window_ns / 1e9;
	int n_viol = 0, n_viol_nodata = 0, sampled = ss->n_windows > GL_CHART_MAX_POINTS;
	static const enum gl_scope scopes[] = { GL_SCOPE_STEADY, GL_SCOPE_DEGRADED };

	for (int w = 0; w < ss->n_windows; w++)
		if (gl_series_violates(ss, s, w)) {
			n_viol++;
			n_viol_nodata += isnan(s->v[w]);
		}
	c.t0 = 0;
	c.t1 = (double)an->sc->duration_ns;
	if (ss->n_windows && (double)ss->win[ss->n_windows - 1].scn_end_ns > c.t1)
		c.t1 = (double)ss->win[ss->n_windows - 1].scn_end_ns;
	if (c.t1 <= c.t0)
		c.t1 = c.t0 + 1e9;
	for (size_t i = 0; i < 2; i++) {
		const struct gl_target_spec *t = s->target[scopes[i]];
		if (!t)
			continue;
		/* a threshold far above the data would flatten it: named instead */
		if (!s->n_data || t->expr.threshold <= 3 * top || top <= 0) {
			shown[i] = 1;
			if (t->expr.threshold > top)
				top = t->expr.threshold;
			if (t->expr.threshold < bottom)
				bottom = t->expr.threshold;
		}
	}
	c.y0 = bottom;
	c.y1 = top > bottom ? bottom + (top - bottom) * 1.08 : bottom + 1;
	{
		double ys = nice_step((c.y1 - c.y0) / 5);
		c.y1 = c.y0 + ceil((c.y1 - c.y0) / ys) * ys;
	}

	putf(o,
	     "<figure id=\"fig-%s\"><svg id=\"%s\" class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" "
	     "aria-labelledby=\"cap-%s\" preserveAspectRatio=\"xMidYMid meet\">",
	     s->chart_id, s->chart_id, CH_W, CH_H, s->chart_id);
	put(o, "<title>");
	esc(o, s->name);
	put(o, "</title>");
	phase_bands(o, an, &c);
	spike_bands(o, an, &c);
	axes(o, &c, s->def->unit);
	fault_bands(o, an, &c);
	outage_marks(o, an, &c);
	thresholds(o, &c, s, shown);
	if (!s->n_data)
		putf(o, "<text class=\"nodat\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">no data in any window</text>",
		     CH_ML + CH_PW / 2, CH_MT + CH_PH / 2);
	put(o, "<g class=\"data\">");
	if (sampled) {
		if (o->rc == 0)
			o->rc = draw_buckets(o, &c, ss, s);
	} else {
		draw_points(o, an, &c, ss, s);
	}
	put(o, "</g></svg>");
	putf(o, "<figcaption id=\"cap-%s\"><strong>", s->chart_id);
	esc(o, s->name);
	put(o, "</strong> (");
	esc(o, s->def->unit);
	putf(o, ") per %.3g s window over scenario time: ", win_s);
	esc(o, s->def->help);
	put(o, ". ");
	if (s->target[GL_SCOPE_STEADY] || s->target[GL_SCOPE_DEGRADED]) {
		putf(o, "%d window(s) miss the target in force", n_viol);
		if (n_viol_nodata)
			putf(o, " (%d of them without data, marked at the axis)", n_viol_nodata);
		put(o, "; ");
	} else {
		put(o, "No steady or degraded target names this series; ");
	}
	putf(o, "%d of %d window(s) have data", s->n_data, ss->n_windows);
	if (s->n_data)
		putf(o, ", from %.4g to %.4g", s->min, s->max);
	if (sampled)
		putf(o,
		     ". Downsampled for drawing: %d windows in %d columns, band = min..max, line = mean; every "
		     "window missing its target stays marked in red",
		     ss->n_windows, CH_PW);
	put(o, ".</figcaption></figure>\n");
}

void gl_rhtml_charts(struct out *o, const struct gl_analysis *an, const struct gl_series_set *ss)
{
	put(o, "<h2 id=\"charts\">Time series</h2>\n<p class=\"legend\">"
	       "<span><i class=\"lg-ph\"></i>phase (name at the top)</span>"
	       "<span><i class=\"lg-spk\"></i>spike (workload load, as planned)</span>"
	       "<span><i class=\"lg-flt\"></i>fault, inject to revert</span>"
	       "<span><i class=\"lg-rec\"></i>recovered (recovery_s)</span>"
	       "<span><i class=\"lg-rst\"></i>restored (restore_s)</span>"
	       "<span><i class=\"lg-ths\"></i>steady threshold</span>"
	       "<span><i class=\"lg-thd\"></i>degraded threshold</span>"
	       "<span><i class=\"lg-val\"></i>value (mean when downsampled)</span>"
	       "<span><i class=\"lg-env\"></i>min..max when downsampled</span>"
	       "<span><i class=\"lg-viol\"></i>window missing its target</span>"
	       "<span><i class=\"lg-out\"></i>controller down (resume), lines break</span></p>\n");
	if (ss->n == 0)
		put(o, "<p>No series: the scenario has no workload with per-window metrics.</p>\n");
	for (int i = 0; i < ss->n && o->rc == 0; i++)
		chart(o, an, ss, &ss->s[i]);
}
