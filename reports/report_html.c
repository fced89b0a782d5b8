/*
 * report_html.c - report.html: one self-contained file for people and
 * ticket attachments. Inline CSS and inline SVG only: no script, no font,
 * no image, no URL of any kind, so it renders the same offline, from a
 * mail attachment or a ticket, years later.
 *
 * Order: verdict banner, targets (a missing threshold is a failure), one
 * chart per series (series.h) over scenario time (phases, spikes and
 * faults as bands), the timeline as planned, faults, phases,
 * preflight, run facts, manifest, metric definitions, and a sign-off block
 * (run, verdict, scenario hash, lines to sign).
 *
 * Printed (and rendered to report.pdf, report_pdf.c): A4, every section
 * after the first on a page of its own, no chart or table row cut across
 * two pages, colours kept.
 *
 * Charts stay small however long the run: a series with more windows than
 * GL_CHART_MAX_POINTS is drawn per pixel column as a min/max envelope with
 * the line of means, and every window that misses its target is drawn as
 * a red mark on top (merged per column), so a violation is never averaged
 * out of view. Size and time are linear in the number of windows.
 *
 * Every string that comes from the scenario or the store is escaped.
 *
 * The page carries a strict Content-Security-Policy (a <meta> before its
 * <style>): nothing may be fetched, framed, embedded, run or submitted
 * (default-src 'none', script-src 'none', object-src 'none', frame-src
 * 'none', form-action 'none', base-uri 'none'); the one style allowed is
 * its own <style> element, by the SHA-256 of its text computed here. So a
 * string that escaped the escaping, or a report.html someone edited, still
 * cannot make a reader's browser load a local file, a URL or a script.
 * No style="" attribute is used: the CSP would refuse it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents.h"
#include "manifest.h"
#include "report.h"
#include "series.h"
#include "sha256.h"
#include "timeline.h"
#include "units.h"

/* Chart geometry, in SVG user units (the SVG scales to the page width). */
#define CH_ML 64            /* left margin: y labels */
#define CH_MR 16
#define CH_MT 8
#define CH_MB 26            /* bottom margin: x labels */
#define CH_PW 1100          /* plot width: one downsampling bucket per unit */
#define CH_PH 220
#define CH_W (CH_ML + CH_PW + CH_MR)
#define CH_H (CH_MT + CH_PH + CH_MB)
#define GL_CHART_MAX_POINTS 1500

/* The writer: every append goes through here; the first failure sticks
 * and later appends are skipped, so callers check once at the end. */
struct out {
	struct gl_buf *b;
	int rc;
	int in_table;         /* a summary table is open */
};

static void put(struct out *o, const char *s)
{
	if (o->rc == 0)
		o->rc = gl_buf_append(o->b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void putf(struct out *o, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;

	if (o->rc)
		return;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->rc = -GL_EINVAL;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		o->rc = gl_buf_append(o->b, small, (size_t)n);
		return;
	}
	{
		char *big = malloc((size_t)n + 1);
		if (!big) {
			o->rc = -GL_ENOMEM;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		o->rc = gl_buf_append(o->b, big, (size_t)n);
		free(big);
	}
}

/* s as HTML text or an attribute value (gl_html_text). */
static void esc(struct out *o, const char *s)
{
	if (o->rc == 0)
		o->rc = gl_html_text(o->b, s);
}

static void fmt_num(char *buf, size_t n, int has, double v)
{
	if (!has || !isfinite(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.6g", v);
}

/* Scenario time as a duration: "1h30m", "45s", "6m12.5s" (rounded to the
 * millisecond under an hour, to the second above). */
static void fmt_scn(char *buf, size_t n, double ns)
{
	int64_t unit = fabs(ns) >= 3600e9 ? 1000000000LL : 1000000LL;

	if (!isfinite(ns)) {
		snprintf(buf, n, "n/a");
		return;
	}
	gl_format_duration((int64_t)llround(ns / (double)unit) * unit, buf, n);
}

/* A comparison as HTML text. */
static const char *op_html(enum gl_cmp op)
{
	switch (op) {
	case GL_CMP_LE: return "&le;";
	case GL_CMP_LT: return "&lt;";
	case GL_CMP_GE: return "&ge;";
	case GL_CMP_GT: return "&gt;";
	case GL_CMP_EQ: return "==";
	case GL_CMP_NE: return "!=";
	}
	return "?";
}

static const char *verdict_word(enum gl_verdict v)
{
	return v == GL_VERDICT_PASS ? "PASS" : v == GL_VERDICT_ABORTED ? "ABORTED" : "FAIL";
}

/* ---- document head ---------------------------------------------------------- */

static const char css[] =
	"*{box-sizing:border-box}"
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1b1f24;"
	"margin:0 auto;max-width:1280px;padding:0 16px 48px;background:#fff}"
	"h1{font-size:22px;margin:18px 0 6px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;"
	"padding-bottom:4px}"
	"nav{font-size:13px;margin:6px 0 0}nav a{margin-right:12px;color:#0550ae}"
	".verdict{border-radius:6px;padding:14px 18px;margin:12px 0;color:#fff}"
	".verdict .word{font-size:30px;font-weight:700;letter-spacing:.04em;margin-right:14px}"
	".verdict.pass{background:#1a7f37}.verdict.fail{background:#cf222e}.verdict.aborted{background:#9a6700}"
	".verdict p{margin:4px 0 0}"
	"table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}"
	"th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top;"
	"overflow-wrap:anywhere}"
	"th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"p.warn{background:#fff8c5;border-left:4px solid #bf8700;padding:6px 10px}"
	"td.ok{color:#1a7f37;font-weight:600}td.bad{color:#cf222e;font-weight:700}"
	"tr.bad td{background:#fff5f5}code{font-size:12px;white-space:pre-wrap;word-break:break-all}"
	"figure{margin:14px 0 22px}figcaption{font-size:12.5px;color:#424a53;margin-top:2px}"
	"svg.chart{width:100%;height:auto;display:block;border:1px solid #d0d7de;border-radius:4px;background:#fff}"
	".legend span{display:inline-block;margin-right:14px;font-size:12px}"
	".legend i{display:inline-block;width:18px;height:10px;margin-right:4px;vertical-align:middle}"
	".ph0{fill:#f4f6f8}.ph1{fill:#e8eef5}.phn{fill:#ececec}"
	".phl{font-size:11px;fill:#57606a}"
	".flt{fill:#fb8f44;fill-opacity:.22;stroke:#d4520c;stroke-opacity:.6;stroke-width:1}"
	".fltl{font-size:11px;fill:#bc4c00}"
	".spk{fill:#8250df;fill-opacity:.2}"
	".rec{stroke:#1a7f37;stroke-width:2}.rst{stroke:#0969da;stroke-width:2}"
	".recm{fill:#1a7f37}.rstm{fill:#0969da}.outage{stroke:#57606a;stroke-width:2;stroke-dasharray:3 3}"
	".thr{stroke-width:1.3;stroke-dasharray:6 4;fill:none}.thr.steady{stroke:#1a7f37}.thr.degraded{stroke:#9a6700}"
	".thrl{font-size:11px}.thrl.steady{fill:#1a7f37}.thrl.degraded{fill:#9a6700}"
	".grid{stroke:#d8dee4;stroke-width:1}.axis{stroke:#57606a;stroke-width:1;fill:none}"
	".tick{font-size:11px;fill:#57606a}"
	".env{fill:#0969da;fill-opacity:.25;stroke:none}.envl{stroke:#0969da;stroke-opacity:.35;stroke-width:1}"
	".line{fill:none;stroke:#0550ae;stroke-width:1.4;stroke-linejoin:round}.dot{fill:#0550ae}"
	".viol{fill:#cf222e}.nodata{fill:#cf222e;fill-opacity:.55}"
	".nodat{font-size:14px;fill:#57606a}"
	".legend i.lg-ph{background:#f4f6f8;border:1px solid #d0d7de}.legend i.lg-flt{background:#fb8f44;opacity:.5}"
	".legend i.lg-rec{background:#1a7f37;width:3px}.legend i.lg-rst{background:#0969da;width:3px}"
	".legend i.lg-ths{border-top:2px dashed #1a7f37;height:0}.legend i.lg-thd{border-top:2px dashed #9a6700;height:0}"
	".legend i.lg-val{background:#0550ae;height:2px}.legend i.lg-env{background:#0969da;opacity:.3}"
	".legend i.lg-viol{background:#cf222e}.legend i.lg-out{border-top:2px dashed #57606a;height:0}"
	".legend i.lg-spk{background:#8250df;opacity:.35}"
	"table.sign{width:100%;margin-top:14px}table.sign td{height:34px;width:34%}"
	"@page{size:A4;margin:14mm 12mm}"
	"@media print{body{max-width:none;margin:0}nav{display:none}"
	"*{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
	"h2:not(#targets){break-before:page}h2{break-after:avoid}"
	"figure,tr,.verdict,table.sign{break-inside:avoid}"
	"table{font-size:9.5px}th,td{padding:2px 4px;overflow-wrap:break-word;word-break:normal;hyphens:auto}"
	"code{font-size:9px}}";

/* out: the standard base64 of the n bytes at in (4 * ceil(n / 3) + 1 bytes). */
static void base64(const unsigned char *in, size_t n, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t k = 0;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);
		out[k++] = tab[v >> 18 & 63];
		out[k++] = tab[v >> 12 & 63];
		out[k++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		out[k++] = i + 2 < n ? tab[v & 63] : '=';
	}
	out[k] = '\0';
}

/* The page's Content-Security-Policy (see the top of this file): its one
 * <style> element, whose text is css, allowed by hash; nothing else. */
static void csp_meta(struct out *o, const char *css_text)
{
	struct gl_sha256 h;
	unsigned char d[32];
	char b64[48];

	gl_sha256_init(&h);
	gl_sha256_update(&h, css_text, strlen(css_text));
	gl_sha256_final(&h, d);
	base64(d, sizeof(d), b64);
	putf(o, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'none'; "
		"style-src 'sha256-%s'; img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; "
		"object-src 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; manifest-src 'none'; "
		"form-action 'none'; base-uri 'none'\">\n", b64);
}

static void head(struct out *o, const struct gl_analysis *an)
{
	put(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
	csp_meta(o, css);
	put(o, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	       "<meta name=\"generator\" content=\"gauntlet ");
	esc(o, an->run.version);
	put(o, "\">\n<title>gauntlet report: ");
	esc(o, an->run.name);
	putf(o, " (%s)</title>\n<style>", verdict_word(an->verdict));
	put(o, css);
	put(o, "</style>\n</head>\n<body>\n");
}

static void banner(struct out *o, const struct gl_analysis *an)
{
	int failed = 0, missing = 0;
	char wall[40];

	for (int i = 0; i < an->n_targets; i++) {
		failed += !an->targets[i].pass;
		missing += an->targets[i].spec->missing;
	}
	put(o, "<h1>gauntlet report: ");
	esc(o, an->run.name);
	put(o, "</h1>\n<nav><a href=\"#targets\">Targets</a><a href=\"#charts\">Charts</a>"
	       "<a href=\"#timeline\">Timeline</a><a href=\"#faults\">Faults</a><a href=\"#incidents\">Incidents</a><a href=\"#workloads\">Workloads</a>"
	       "<a href=\"#phases\">Phases</a><a href=\"#run\">Run</a>"
	       "<a href=\"#manifest\">Manifest</a><a href=\"#definitions\">Metric definitions</a>"
	       "<a href=\"#signoff\">Sign-off</a></nav>\n");
	putf(o, "<section id=\"verdict\" class=\"verdict %s\"><span class=\"word\">%s</span>",
	     gl_verdict_name(an->verdict), verdict_word(an->verdict));
	putf(o, "%d of %d target(s) failed or missing", failed, an->n_targets);
	if (missing)
		putf(o, " (%d missing)", missing);
	putf(o, "; %d fault(s), %d left injected; %d incident(s), %d counted against a limit of %d; run ", an->n_faults,
	     an->faults_left_injected, an->incidents_total, an->incidents_gated, an->incidents_limit);
	esc(o, an->run.state);
	gl_format_wall(an->run.started_wall_ns, wall, sizeof(wall));
	putf(o, ", %.0f s over %d window(s), started %s", an->duration_s, an->n_windows, wall);
	put(o, "<p>");
	if (an->n_targets == 0)
		put(o, "No targets: a run without targets cannot pass. ");
	if (an->preflight_failed)
		putf(o, "Preflight: %d check(s) failed. ", an->preflight_failed);
	if (an->gates_failed)
		putf(o, "Gates: %d failed (see <a href=\"#gates\">Gates</a>). ", an->gates_failed);
	if (an->generator_saturated)
		put(o, "Generator saturated: send lag p99 above 5 ms, latencies include client delay. ");
	if (an->incidents_failed)
		putf(o, "Incidents: %d counted, more than the %d allowed. ", an->incidents_gated, an->incidents_limit);
	if (an->n_outages)
		putf(o, "Controller outages: %d, %.1f s down in all. ", an->n_outages, an->outage_s);
	if (strcmp(an->run.state, "finished") && strcmp(an->run.state, "aborted"))
		put(o, "The run has not finished: this report covers what the store holds so far. ");
	put(o, "Scenario ");
	esc(o, an->run.scenario_path);
	put(o, " (sha256 <code>");
	esc(o, an->run.scenario_sha256);
	put(o, "</code>), run <code>");
	esc(o, an->run.id);
	put(o, "</code>.</p></section>\n");
}

/* ---- targets ------------------------------------------------------------------ */

static void targets_table(struct out *o, const struct gl_analysis *an, const struct gl_series_set *ss)
{
	put(o, "<h2 id=\"targets\">Targets</h2>\n");
	if (an->n_targets == 0) {
		put(o, "<p>The scenario has no targets: nothing was judged, and the verdict is fail.</p>\n");
		return;
	}
	put(o, "<table><thead><tr><th>metric</th><th>scope</th><th>requirement</th><th>measured</th>"
	       "<th>windows judged</th><th>result</th><th>note</th></tr></thead><tbody>\n");
	for (int i = 0; i < an->n_targets; i++) {
		const struct gl_target_result *t = &an->targets[i];
		const struct gl_series *s = gl_series_find(ss, t->spec->metric);
		const char *res = t->spec->missing ? "MISSING" : t->pass ? "PASS" : "FAIL";
		char m[64];

		fmt_num(m, sizeof(m), t->has, t->measured);
		putf(o, "<tr%s><td>", t->pass ? "" : " class=\"bad\"");
		if (s) {
			putf(o, "<a href=\"#%s\">", s->chart_id);
			esc(o, t->spec->metric);
			put(o, "</a>");
		} else {
			esc(o, t->spec->metric);
		}
		putf(o, "</td><td>%s</td><td>", gl_scope_name(t->spec->scope));
		if (t->spec->missing)
			put(o, "<em>no threshold given</em>");
		else
			putf(o, "%s %.6g", op_html(t->spec->expr.op), t->spec->expr.threshold);
		putf(o, "</td><td class=\"n\">%s</td><td class=\"n\">%d</td><td class=\"%s\">%s</td><td>", m,
		     t->windows_judged, t->pass ? "ok" : "bad", res);
		esc(o, t->note);
		put(o, "</td></tr>\n");
	}
	put(o, "</tbody></table>\n");
}

/* ---- charts ------------------------------------------------------------------- */

struct chart {
	double t0, t1;        /* scenario ns at the plot's left and right edges */
	double y0, y1;        /* value range */
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
	static const double steps_s[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
					  10800, 21600, 43200, 86400, 172800, 604800, 1209600, 2592000 };
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
		putf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x, CH_MT, x, CH_MT + CH_PH + 4);
		putf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>", x, CH_MT + CH_PH + 17,
		     t == 0 ? "start" : x > CH_ML + CH_PW - 20 ? "end" : "middle", lab);
	}
	put(o, "</g><g class=\"yaxis\">");
	ys = nice_step((c->y1 - c->y0) / 5);
	for (double k = ceil(c->y0 / ys); k * ys <= c->y1 + ys * 1e-9 && o->rc == 0; k++) {
		double v = k * ys, y = cy(c, v);
		putf(o, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", CH_ML - 4, y, CH_ML + CH_PW, y);
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
		     p->scope == GL_SCOPE_NONE ? "phn" : i % 2 ? "ph1" : "ph0", x0, CH_MT, x1 - x0, CH_PH);
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

static void marker(struct out *o, double x, const char *cls, const char *what,
		   const char *fault_id, double secs)
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
			marker(o, cx(c, gl_series_elapsed_to_scn(an, f->row.injected_elapsed_ns +
								      (int64_t)llround(f->recovery_s * 1e9))),
			       "rec", "recovered (degraded targets met) recovery_s =", f->row.id, f->recovery_s);
		if (f->restore_s >= 0) {
			int64_t tr = f->row.reverted_elapsed_ns >= 0 ? f->row.reverted_elapsed_ns
				     : f->row.dur_ns == 0 ? f->row.injected_elapsed_ns : -1;
			if (tr >= 0)
				marker(o, cx(c, gl_series_elapsed_to_scn(an, tr + (int64_t)llround(f->restore_s * 1e9))),
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
			putf(o, "<text class=\"thrl %s\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s %s %.6g</text>", name,
			     CH_ML + CH_PW - 4, y < CH_MT + 14 ? y + 12 : y - 3, name, opx, t->expr.threshold);
		} else {
			/* below the row of phase names */
			putf(o, "<text class=\"thrl %s\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%s %s %.6g (off the scale)</text>",
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
	if (!has_v) {   /* no data where a target was in force: at the axis */
		putf(o, "<rect class=\"nodata\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"6\"/>", x0, CH_MT + CH_PH - 6, w);
		return;
	}
	ytop = cy(c, hi) - 2.5;
	ybot = cy(c, lo) + 2.5;
	putf(o, "<rect class=\"viol\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", x0, ytop, w, ybot - ytop);
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
	double vlo, vhi;      /* violating windows with data */
	int nv, nv_nodata;
};

/* One bucket per plot unit: the min/max envelope as polygons, the means
 * as a line, the violations per bucket on top. */
static int draw_buckets(struct out *o, const struct chart *c, const struct gl_series_set *ss,
			const struct gl_series *s)
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

	putf(o, "<figure id=\"fig-%s\"><svg id=\"%s\" class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" "
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
		putf(o, ". Downsampled for drawing: %d windows in %d columns, band = min..max, line = mean; every "
			"window missing its target stays marked in red", ss->n_windows, CH_PW);
	put(o, ".</figcaption></figure>\n");
}

static void charts(struct out *o, const struct gl_analysis *an, const struct gl_series_set *ss)
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

/* ---- faults, phases, preflight ---------------------------------------------------- */

static void agent_row(void *arg, const char *workload, int index, int count, const char *host, const char *cmd)
{
	struct out *o = arg;

	putf(o, "<tr><td>");
	esc(o, workload);
	putf(o, "</td><td class=\"n\">%d of %d</td><td>", index, count);
	esc(o, host[0] ? host : "(the launcher's choice)");
	put(o, "</td><td><code>");
	esc(o, cmd);
	put(o, "</code></td></tr>\n");
	if (index == GL_AGENTS_SHOWN - 1 && count > GL_AGENTS_SHOWN)
		putf(o, "<tr><td colspan=\"4\">... and %d more (agents %d to %d), each the same with its own host</td>"
			"</tr>\n", count - GL_AGENTS_SHOWN, GL_AGENTS_SHOWN, count - 1);
}

/* The schedule as the scenario planned it (timeline.h): phases, spikes,
 * fault injects and reverts, the agents' launch, the end; real time at the
 * run's time scale. What happened to each fault is in Faults. */
static void timeline_table(struct out *o, const struct gl_analysis *an)
{
	struct gl_tl_row *rows = NULL;
	int n = 0, agents = 0;

	put(o, "<h2 id=\"timeline\">Timeline</h2>\n");
	if (gl_timeline_rows(an->sc, &rows, &n) != 0) {
		put(o, "<p>The timeline could not be built (out of memory).</p>\n");
		return;
	}
	put(o, "<table><thead><tr><th>scenario time</th><th>real time</th><th>event</th></tr></thead><tbody>\n");
	for (int i = 0; i < n && o->rc == 0; i++) {
		char t[64], rt[64];
		gl_format_duration(rows[i].t_ns, t, sizeof(t));
		fmt_scn(rt, sizeof(rt), (double)gl_timeline_real_ns(rows[i].t_ns, an->run.time_scale));
		putf(o, "<tr class=\"tl-%s\"><td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
		     rows[i].kind == GL_TLR_AGENTS ? "agents" : rows[i].kind == GL_TLR_SPIKE ? "spike"
		     : rows[i].kind == GL_TLR_SPIKES_MORE ? "spikes" : "event", t, rt);
		esc(o, rows[i].text);
		put(o, "</td></tr>\n");
		agents += rows[i].kind == GL_TLR_AGENTS;
	}
	free(rows);
	putf(o, "</tbody></table>\n<p>As the scenario planned it, at time scale %g; a spike that repeats shows its "
		"first %d times, then one row for the rest. What each fault did is under Faults.</p>\n",
	     an->run.time_scale, GL_TL_SPIKES_SHOWN);
	if (agents) {
		put(o, "<table><thead><tr><th>agents of</th><th>agent</th><th>host</th><th>launch command</th></tr>"
		       "</thead><tbody>\n");
		gl_agents_each_command(an->sc, GL_AGENTS_SHOWN, agent_row, o);
		put(o, "</tbody></table>\n<p>Each agent is launched by its own command, before the clock starts, "
		       "as this gauntlet launches them.</p>\n");
	}
}

static void td_secs(struct out *o, int has, double v)
{
	char b[64];
	fmt_num(b, sizeof(b), has, v);
	putf(o, "<td class=\"n\">%s</td>", b);
}

/* A moment of the run: scenario time, and real seconds since the start. */
static void td_when(struct out *o, int64_t scn_ns, int64_t elapsed_ns)
{
	char a[48];

	if (scn_ns < 0) {
		put(o, "<td class=\"n\">n/a</td>");
		return;
	}
	fmt_scn(a, sizeof(a), (double)scn_ns);
	putf(o, "<td class=\"n\">%s", a);
	if (elapsed_ns >= 0)
		putf(o, "<br><small>real %.3f s</small>", (double)elapsed_ns / 1e9);
	put(o, "</td>");
}

static void td_bool(struct out *o, int v)
{
	put(o, v < 0 ? "<td>unknown</td>" : v ? "<td class=\"ok\">yes</td>" : "<td class=\"bad\">no</td>");
}

static void faults_table(struct out *o, const struct gl_analysis *an)
{
	put(o, "<h2 id=\"faults\">Faults</h2>\n");
	if (an->n_faults == 0) {
		put(o, "<p>No faults in this run.</p>\n");
		return;
	}
	put(o, "<table><thead><tr><th>id</th><th>kind</th><th>method</th><th>target</th><th>state</th>"
	       "<th>injected at</th><th>verified</th><th>reverted at</th><th>revert verified</th>"
	       "<th>held s (planned)</th><th>recovery_s</th><th>restore_s</th><th>per workload (recovery_s / restore_s)</th>"
	       "<th>runbook</th><th>note</th></tr>"
	       "</thead><tbody>\n");
	for (int i = 0; i < an->n_faults && o->rc == 0; i++) {
		const struct gl_fault_result *f = &an->faults[i];
		char dmn[200];
		int ok = f->row.state == GL_FAULT_REVERTED && f->recovery_s >= 0 && f->restore_s >= 0;
		putf(o, "<tr%s><td>", ok ? "" : " class=\"bad\"");
		esc(o, f->row.id);
		put(o, "</td><td>");
		esc(o, f->row.kind);
		put(o, "</td><td>");
		esc(o, f->row.method);
		put(o, "</td><td>");
		esc(o, f->row.target);
		putf(o, "</td><td class=\"%s\">", f->row.state == GL_FAULT_REVERTED ? "ok" : "bad");
		esc(o, gl_fault_state_name(f->row.state));
		put(o, "</td>");
		td_when(o, f->row.injected_scn_ns, f->row.injected_elapsed_ns);
		td_bool(o, f->row.verified);
		td_when(o, f->row.reverted_scn_ns, f->row.reverted_elapsed_ns);
		td_bool(o, f->row.verified_revert);
		if (f->held_s < 0) {
			put(o, "<td class=\"n\">n/a</td>");
		} else {
			char hb[256];
			const char *hn = gl_report_held_note(an, f, hb, sizeof(hb));
			putf(o, "<td class=\"n%s\">%.3f (%.3f)%s", !strncmp(hn, "LONGER", 6) ? " bad" : "", f->held_s,
			     f->planned_held_s, hn[0] ? "<br>" : "");
			esc(o, hn);
			put(o, "</td>");
		}
		td_secs(o, f->recovery_s >= 0, f->recovery_s);
		td_secs(o, f->restore_s >= 0, f->restore_s);
		put(o, "<td>");
		for (int w = 0; w < an->sc->n_workloads && w < GL_MAX_WORKLOADS; w++) {
			char r1[32], r2[32];
			fmt_num(r1, sizeof(r1), f->wl_recovery_s[w] >= 0, f->wl_recovery_s[w]);
			fmt_num(r2, sizeof(r2), f->wl_restore_s[w] >= 0, f->wl_restore_s[w]);
			esc(o, an->sc->workloads[w].name);
			putf(o, ": %s / %s<br>", r1, r2);
		}
		put(o, "</td><td>");
		if (gl_scenario_runbook(an->sc, f->row.id))
			esc(o, gl_scenario_runbook(an->sc, f->row.id));
		else
			put(o, "<span class=\"bad\">none</span>");
		put(o, "</td><td>");
		esc(o, f->recovery_note);
		if (gl_report_deadman_note(&f->row, dmn, sizeof(dmn))[0]) {
			put(o, " ");
			esc(o, gl_report_deadman_note(&f->row, dmn, sizeof(dmn)));
		}
		if (f->row.error[0]) {
			put(o, f->recovery_note[0] ? "; error: " : "error: ");
			esc(o, f->row.error);
		}
		if (f->row.measured[0]) {
			put(o, " <code>");
			esc(o, f->row.measured);
			put(o, "</code>");
		}
		put(o, "</td></tr>\n");
	}
	put(o, "</tbody></table>\n<p>Inject and revert times are scenario time, with the real seconds since the "
	       "run began below them. recovery_s counts real seconds from the inject until the first run of hold "
	       "windows meeting the degraded targets, restore_s from the revert until such a run meeting the steady "
	       "targets, which must start by the revert plus the fault's settle; n/a (null) is a failure.</p>\n");
}

static void phases_table(struct out *o, const struct gl_analysis *an, const struct gl_series_set *ss)
{
	const struct gl_scenario *sc = an->sc;

	put(o, "<h2 id=\"phases\">Phases</h2>\n<table><thead><tr><th>#</th><th>phase</th><th>start</th><th>end</th>"
	       "<th>load</th><th>scope</th><th>measured s</th>");
	for (int i = 0; i < ss->n; i++) {
		put(o, "<th>");
		esc(o, ss->s[i].name);
		put(o, "</th>");
	}
	put(o, "</tr></thead><tbody>\n");
	for (int p = 0; p < sc->n_phases && o->rc == 0; p++) {
		const struct gl_phase *ph = &sc->phases[p];
		char a[48], b[48];
		fmt_scn(a, sizeof(a), (double)ph->start_ns);
		fmt_scn(b, sizeof(b), (double)(ph->start_ns + ph->dur_ns));
		putf(o, "<tr><td class=\"n\">%d</td><td>", p);
		esc(o, ph->name);
		putf(o, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%.3g</td><td>%s</td>"
			"<td class=\"n\">%.1f</td>", a, b, ph->load, gl_scope_name(ph->scope), gl_agg_seconds(an->phase[p]));
		for (int i = 0; i < ss->n; i++) {
			double v = 0;
			/* evaluated before the call: in one argument list the
			 * order is unspecified, and gcc may pass v before the
			 * evaluation fills it (every figure then shows 0) */
			int has = gl_agg_eval(an->phase[p], ss->s[i].name, &v) == 0;
			td_secs(o, has, v);
		}
		put(o, "</tr>\n");
	}
	put(o, "</tbody></table>\n<p>Each figure merges the phase's windows (histograms merged, rates over the "
	       "phase's real seconds).</p>\n");
}

/* ---- incidents, outages, workload summaries ------------------------------------ */

static void incidents_table(struct out *o, const struct gl_analysis *an)
{
	putf(o, "<h2 id=\"incidents\">Incidents</h2>\n<p%s>%d incident(s): degradations no scheduled fault explains; "
		"%d counted against a limit of %d (%s): <strong>%s</strong>.</p>\n",
	     an->incidents_failed ? " class=\"bad\"" : "", an->incidents_total, an->incidents_gated, an->incidents_limit,
	     an->sc->incidents_max >= 0 ? "incidents.max, every kind"
					: "no incidents.max: training failures, correctness errors and failed restores",
	     an->incidents_failed ? "FAIL" : "pass");
	if (!an->n_incidents)
		return;
	put(o, "<table><thead><tr><th>kind</th><th>from</th><th>to</th><th>windows</th><th>counted</th><th>what</th>"
	       "<th>first event</th></tr></thead><tbody>\n");
	for (int i = 0; i < an->n_incidents && o->rc == 0; i++) {
		const struct gl_incident *x = &an->incidents[i];
		const struct gl_window_info *a = &an->windows[x->w0], *b = &an->windows[x->w1];
		putf(o, "<tr%s><td>%s</td>", x->gated ? " class=\"bad\"" : "", gl_incident_kind_name(x->kind));
		td_when(o, a->scn_start_ns, a->start_ns);
		td_when(o, b->scn_end_ns, b->end_ns);
		putf(o, "<td class=\"n\">%d</td><td>%s</td><td>", x->w1 - x->w0 + 1, x->gated ? "yes" : "no");
		esc(o, x->what);
		put(o, "</td><td>");
		esc(o, x->event[0] ? x->event : "-");
		put(o, "</td></tr>\n");
	}
	put(o, "</tbody></table>\n");
	if (an->incidents_total > an->n_incidents)
		putf(o, "<p>The first %d are listed; all %d are counted.</p>\n", an->n_incidents, an->incidents_total);
}

static void outages_table(struct out *o, const struct gl_analysis *an)
{
	if (!an->n_outages)
		return;
	putf(o, "<h2 id=\"outages\">Controller outages</h2>\n<p>%d outage(s), %.1f s down in all. The run's clock "
		"stood still while the controller was down (charts show the resume point as a break in the lines). A "
		"fault in force then stayed in force unless it ended itself (a flap loop's end, a dead-man's switch's "
		"revert): its own record on the host says when, and its held time runs to that end, not to the "
		"controller's return.</p>\n<table><thead><tr><th>resume</th><th>at</th><th>down s</th>"
		"<th>last commit</th><th>resumed</th><th>faults in force</th></tr></thead><tbody>\n", an->n_outages,
		an->outage_s);
	for (int i = 0; i < an->n_outages && o->rc == 0; i++) {
		const struct gl_outage *x = &an->outages[i];
		char w0[40] = "unknown", w1[40], fl[1024];
		if (x->down_wall_ns > 0)
			gl_format_wall(x->down_wall_ns, w0, sizeof(w0));
		gl_format_wall(x->resumed_wall_ns, w1, sizeof(w1));
		putf(o, "<tr><td class=\"n\">%d</td>", x->resume);
		td_when(o, (int64_t)llround(gl_series_elapsed_to_scn(an, x->at_elapsed_ns)), x->at_elapsed_ns);
		td_secs(o, x->down_s >= 0, x->down_s);
		putf(o, "<td>%s</td><td>%s</td><td>", w0, w1);
		esc(o, gl_report_outage_faults(an, i, fl, sizeof(fl))[0] ? fl : "none");
		put(o, "</td></tr>\n");
	}
	put(o, "</tbody></table>\n");
}

static void sum_section(void *arg, const char *id, const char *title, const char *note)
{
	struct out *o = arg;
	if (o->in_table)
		put(o, "</tbody></table>\n");
	putf(o, "<h3 id=\"sum-%s\">", id);
	esc(o, title);
	put(o, "</h3>\n");
	if (note) {
		put(o, "<p>");
		esc(o, note);
		put(o, "</p>\n");
	}
	put(o, "<table class=\"sum\"><thead><tr><th>figure</th><th>value</th></tr></thead><tbody>\n");
	o->in_table = 1;
}

static void sum_row(void *arg, const char *label, const char *value)
{
	struct out *o = arg;
	put(o, "<tr><td>");
	esc(o, label);
	put(o, "</td><td class=\"n\">");
	esc(o, value);
	put(o, "</td></tr>\n");
}

static void summaries(struct out *o, const struct gl_analysis *an)
{
	static const struct gl_summary_ops ops = { sum_section, sum_row };

	put(o, "<h2 id=\"workloads\">Workloads</h2>\n<p>Whole-run figures per workload; n/a: nothing measured.</p>\n");
	o->in_table = 0;
	gl_report_summary(an, &ops, o);
	if (o->in_table)
		put(o, "</tbody></table>\n");
	o->in_table = 0;
}

static void preflight_table(struct out *o, const struct gl_analysis *an)
{
	if (an->n_preflight == 0)
		return;
	putf(o, "<h2 id=\"preflight\">Preflight (%d failed)</h2>\n<table><thead><tr><th>subject</th><th>check</th>"
		"<th>result</th><th>detail</th></tr></thead><tbody>\n", an->preflight_failed);
	for (int i = 0; i < an->n_preflight && o->rc == 0; i++) {
		const struct gl_preflight_result *p = &an->preflight[i];
		putf(o, "<tr%s><td>", p->ok ? "" : " class=\"bad\"");
		esc(o, p->subject);
		put(o, "</td><td>");
		esc(o, p->check);
		putf(o, "</td><td class=\"%s\">%s</td><td>", p->ok ? "ok" : "bad", p->ok ? "ok" : "FAILED");
		esc(o, p->detail);
		put(o, "</td></tr>\n");
	}
	put(o, "</tbody></table>\n");
}

/* the gates' section is report_gates.c's */
static void gates_table(struct out *o, const struct gl_analysis *an)
{
	if (o->rc == 0)
		o->rc = gl_report_gates_html(an, o->b);
}

/* ---- run facts, manifest, definitions ------------------------------------------- */

static void fact(struct out *o, const char *key, const char *val)
{
	put(o, "<tr><th>");
	esc(o, key);
	put(o, "</th><td>");
	esc(o, val);
	put(o, "</td></tr>\n");
}

static void run_table(struct out *o, const struct gl_analysis *an)
{
	char b[96];

	put(o, "<h2 id=\"run\">Run</h2>\n<table><tbody>\n");
	fact(o, "run id", an->run.id);
	fact(o, "scenario", an->run.name);
	fact(o, "scenario path", an->run.scenario_path);
	fact(o, "scenario sha256", an->run.scenario_sha256);
	fact(o, "overrides (--set)", an->run.sets_json ? an->run.sets_json : "[]");
	gl_format_wall(an->run.started_wall_ns, b, sizeof(b));
	fact(o, "started", b);
	if (an->run.ended_wall_ns > 0)
		gl_format_wall(an->run.ended_wall_ns, b, sizeof(b));
	else
		snprintf(b, sizeof(b), "not ended");
	fact(o, "ended", b);
	fact(o, "state", an->run.state);
	fact(o, "verdict", gl_verdict_name(an->verdict));
	snprintf(b, sizeof(b), "%.3f s measured, %.3f s planned (scenario time)", an->duration_s,
		 (double)an->run.duration_ns / 1e9);
	fact(o, "duration", b);
	snprintf(b, sizeof(b), "%g", an->run.time_scale);
	fact(o, "time scale", b);
	snprintf(b, sizeof(b), "%g s, %d stored", (double)an->run.window_ns / 1e9, an->n_windows);
	fact(o, "windows", b);
	snprintf(b, sizeof(b), "%d", an->run.resumes);
	fact(o, "resumes", b);
	fact(o, "generator saturated", an->generator_saturated ? "yes (send lag p99 > 5 ms)" : "no");
	snprintf(b, sizeof(b), "%s (%s)", an->run.version, an->run.git_rev);
	fact(o, "gauntlet", b);
	fact(o, "controller host", an->run.hostname);
	put(o, "</tbody></table>\n");
}

/* Flatten a JSON tree into rows "a.b[2].c | value". */
static void manifest_rows(struct out *o, const cJSON *j, char *path, size_t cap, size_t len)
{
	if (o->rc)
		return;
	if (cJSON_IsObject(j) || cJSON_IsArray(j)) {
		const cJSON *it;
		int i = 0;
		if (!j->child) {
			put(o, "<tr><th>");
			esc(o, path);
			put(o, cJSON_IsArray(j) ? "</th><td>[]</td></tr>\n" : "</th><td>{}</td></tr>\n");
		}
		cJSON_ArrayForEach(it, j) {
			size_t n;
			if (cJSON_IsArray(j))
				n = (size_t)snprintf(path + len, cap - len, "[%d]", i);
			else
				n = (size_t)snprintf(path + len, cap - len, "%s%s", len ? "." : "",
						     it->string ? it->string : "");
			if (len + n < cap)
				manifest_rows(o, it, path, cap, len + n);
			path[len] = '\0';
			i++;
		}
		return;
	}
	put(o, "<tr><th>");
	esc(o, path);
	put(o, "</th><td>");
	if (cJSON_IsString(j)) {
		esc(o, j->valuestring);
	} else {
		char *t = cJSON_PrintUnformatted(j);
		esc(o, t ? t : "");
		cJSON_free(t);
	}
	put(o, "</td></tr>\n");
}

static void manifest_table(struct out *o, const cJSON *manifest)
{
	char path[512] = "";

	put(o, "<h2 id=\"manifest\">Manifest</h2>\n");
	if (!manifest) {
		put(o, "<p>No manifest.</p>\n");
		return;
	}
	put(o, "<table><tbody>\n");
	manifest_rows(o, manifest, path, sizeof(path), 0);
	put(o, "</tbody></table>\n");
}

static const char *kind_name(enum gl_metric_kind k)
{
	switch (k) {
	case GL_MK_HIST: return "histogram per window";
	case GL_MK_COUNTER: return "counter per window";
	case GL_MK_RATIO: return "ratio of counters";
	case GL_MK_RATE: return "rate over real seconds";
	case GL_MK_RECOVERY: return "per fault";
	}
	return "";
}

static void definitions(struct out *o)
{
	size_t n;
	const struct gl_metric_def *d = gl_catalog(&n);

	put(o, "<h2 id=\"definitions\">Metric definitions</h2>\n"
	       "<p>All intervals are measured with CLOCK_MONOTONIC. Percentiles are nearest-rank over log-linear "
	       "histograms (at most 0.1% relative error), one per metric per window, merged for phases and the run. "
	       "Failed requests are out of latency percentiles and in error_rate. ttft_ms is charged from the "
	       "intended send time (open loop), so a request delayed by the client counts its wait. A window is "
	       "healthy when it meets every target of the scope in force; a target without data in a window counts "
	       "as missed. Windows from a fault's inject until its revert plus its settle are judged as degraded, "
	       "the rest by their phase; warm-up windows are not judged. A histogram target written without a statistic means its worst "
	       "value (max when lower is better, else min).</p>\n"
	       "<table><thead><tr><th>metric</th><th>workload</th><th>kind</th><th>unit</th><th>better</th>"
	       "<th>definition</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < n && o->rc == 0; i++) {
		put(o, "<tr><td><code>");
		esc(o, d[i].name);
		put(o, "</code></td><td>");
		esc(o, d[i].workload[0] ? d[i].workload : "(recovery)");
		putf(o, "</td><td>%s</td><td>", kind_name(d[i].kind));
		esc(o, d[i].unit);
		putf(o, "</td><td>%s</td><td>", d[i].lower_is_better ? "lower" : "higher");
		esc(o, d[i].help);
		if (d[i].kind == GL_MK_HIST)
			put(o, " (targets take .p&lt;N&gt;, .min, .max, .mean or .count)");
		put(o, "</td></tr>\n");
	}
	put(o, "</tbody></table>\n");
}

/* Unpinned images (gl_manifest_image_warnings), under the verdict. */
static void html_image_warning(void *arg, const char *text)
{
	struct out *o = arg;

	put(o, "<p class=\"warn\"><strong>Warning:</strong> ");
	esc(o, text);
	put(o, ".</p>\n");
}

/* The block a person signs: what is signed (run, scenario and its hash,
 * verdict, when), then lines for the operator and the customer. */
static void signoff(struct out *o, const struct gl_analysis *an)
{
	char b[96];

	put(o, "<h2 id=\"signoff\">Sign-off</h2>\n<p>This report covers the run below. Signing it accepts its "
	       "verdict for the scenario with this hash.</p>\n<table><tbody>\n");
	fact(o, "run id", an->run.id);
	fact(o, "scenario", an->run.name);
	fact(o, "scenario sha256", an->run.scenario_sha256);
	fact(o, "verdict", verdict_word(an->verdict));
	if (an->run.ended_wall_ns > 0)
		gl_format_wall(an->run.ended_wall_ns, b, sizeof(b));
	else
		snprintf(b, sizeof(b), "not ended");
	fact(o, "ended", b);
	put(o, "</tbody></table>\n<table class=\"sign\"><thead><tr><th></th><th>name and role</th><th>signature</th>"
	       "<th>date</th></tr></thead><tbody>\n<tr><th>operator</th><td></td><td></td><td></td></tr>\n"
	       "<tr><th>customer</th><td></td><td></td><td></td></tr>\n</tbody></table>\n");
}

int gl_report_html(const struct gl_analysis *an, const struct gl_series_set *ss, const cJSON *manifest,
		   struct gl_buf *out)
{
	struct out o = { out, 0, 0 };

	head(&o, an);
	banner(&o, an);
	gl_manifest_image_warnings(manifest, html_image_warning, &o);
	targets_table(&o, an, ss);
	charts(&o, an, ss);
	timeline_table(&o, an);
	faults_table(&o, an);
	incidents_table(&o, an);
	outages_table(&o, an);
	summaries(&o, an);
	phases_table(&o, an, ss);
	preflight_table(&o, an);
	gates_table(&o, an);
	run_table(&o, an);
	manifest_table(&o, manifest);
	definitions(&o);
	signoff(&o, an);
	put(&o, "<footer><p>Rendered by gauntlet from the run store alone; self-contained, no external resources."
		"</p></footer>\n</body>\n</html>\n");
	return o.rc;
}
