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
 * The charts are report_html_charts.c's, the tables after them
 * report_html_tables.c's (report_html_int.h).
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
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "report_html_int.h"
#include "sha256.h"

/* Formatted into a small buffer first, into one of its size when longer. */
void gl_rhtml_vputf(struct out *o, const char *fmt, va_list ap)
{
	char small[512];
	va_list again;
	int n;

	if (o->rc)
		return;
	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n < 0) {
		o->rc = -GL_EINVAL;
	} else if ((size_t)n < sizeof(small)) {
		o->rc = gl_buf_append(o->b, small, (size_t)n);
	} else {
		char *big = malloc((size_t)n + 1);
		if (!big) {
			o->rc = -GL_ENOMEM;
		} else {
			vsnprintf(big, (size_t)n + 1, fmt, again);
			o->rc = gl_buf_append(o->b, big, (size_t)n);
			free(big);
		}
	}
	va_end(again);
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
	".legend i.lg-ths{border-top:2px dashed #1a7f37;height:0}.legend i.lg-thd{border-top:2px dashed "
	"#9a6700;height:0}"
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
	putf(o,
	     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'none'; "
	     "style-src 'sha256-%s'; img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; "
	     "object-src 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; manifest-src 'none'; "
	     "form-action 'none'; base-uri 'none'\">\n",
	     b64);
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
	       "<a href=\"#timeline\">Timeline</a><a href=\"#faults\">Faults</a><a href=\"#incidents\">Incidents</a><a "
	       "href=\"#nodes\">Nodes</a><a href=\"#workloads\">Workloads</a>"
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
	if (an->edge_failed)
		putf(o, "SLA edge: %d of %d edge phase(s) found no edge (see <a href=\"#edge\">SLA edge</a>). ",
		     an->edge_failed, an->edge_phases);
	if (an->generator_saturated) {
		char note[512];
		put(o, "Generator saturated: ");
		esc(o, gl_report_saturation_note(an, note, sizeof(note)));
		put(o, ". ");
	}
	if (an->incidents_failed)
		putf(o, "Incidents: %d counted, more than the %d allowed. ", an->incidents_gated, an->incidents_limit);
	if (an->n_suspects)
		putf(o, "Suspects: %d node(s) stand out from their peers (see <a href=\"#nodes\">Nodes</a>)%s. ",
		     an->n_suspects, an->suspects_failed ? ", more than allowed" : "");
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
		char m[160], req[64];

		fmt_num(m, sizeof(m), t->has, t->measured);
		if (t->spec->drift)
			gl_report_drift_cells(t, req, sizeof(req), m, sizeof(m));
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
		else if (t->spec->drift)
			esc(o, req);
		else
			putf(o, "%s %.6g", op_html(t->spec->expr.op), t->spec->expr.threshold);
		put(o, "</td><td class=\"n\">");
		esc(o, m);
		putf(o, "</td><td class=\"n\">%d</td><td class=\"%s\">%s</td><td>", t->windows_judged,
		     t->pass ? "ok" : "bad", res);
		esc(o, t->note);
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
	gl_rhtml_edge(&o, an);
	gl_rhtml_charts(&o, an, ss);
	gl_rhtml_timeline_table(&o, an);
	gl_rhtml_faults_table(&o, an);
	gl_rhtml_incidents_table(&o, an);
	gl_rhtml_nodes(&o, an);
	gl_rhtml_outages_table(&o, an);
	gl_rhtml_summaries(&o, an);
	gl_rhtml_phases_table(&o, an, ss);
	gl_rhtml_preflight_table(&o, an);
	gl_rhtml_gates_table(&o, an);
	gl_rhtml_run_table(&o, an);
	gl_rhtml_manifest_table(&o, manifest);
	gl_rhtml_definitions(&o);
	signoff(&o, an);
	put(&o, "<footer><p>Rendered by gauntlet from the run store alone; self-contained, no external resources."
		"</p></footer>\n</body>\n</html>\n");
	return o.rc;
}
