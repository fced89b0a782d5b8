/*
 * report_sweep.c - the node sweep in report.md and report.html (the end
 * of the Nodes section, docs/nodes.md "Node sweeps"): what ran, a table
 * of the hosts (alone, their pairs, their scores) and, up to
 * MATRIX_HOSTS hosts, the host x host matrix of busbw, each cell shaded
 * by how far it is below what its two ends carry with their other peers.
 * Read from analysis.h sweep, the store document as the sweep wrote it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "escape.h"
#include "report.h"
#include "report_html_int.h"

#define MATRIX_HOSTS 32

static const cJSON *item(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = item(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static double at(const cJSON *arr, int i)
{
	const cJSON *v = cJSON_GetArrayItem(arr, i);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *text_at(const cJSON *arr, int i)
{
	const cJSON *v = cJSON_GetArrayItem(arr, i);
	return cJSON_IsString(v) ? v->valuestring : "?";
}

/* x as a cell: %.4g, "-" when not a number */
static void cell(char *out, size_t n, double x, int z)
{
	if (isnan(x))
		snprintf(out, n, "-");
	else
		snprintf(out, n, z ? "%.1f" : "%.4g", x);
}

/* The paragraph above the tables (escaped by the caller). */
static void intro(const cJSON *sw, char *out, size_t n)
{
	int hosts = cJSON_GetArraySize(item(sw, "hosts")), bad = cJSON_GetArraySize(item(sw, "bad"));
	double min = num(sw, "min_busbw_gbps");
	char thr[64] = "";

	if (!isnan(min))
		snprintf(thr, sizeof(thr), ", or below %g GB/s", min);
	snprintf(out, n,
		 "Before the load: each of the %d training hosts alone (shared memory and peer-to-peer off), then "
		 "every pair in %.0f of %.0f round(s): %.0f job(s) in %.0f s, %d bad (failed, past its "
		 "timeout%s)%s. Hosts and pairs are scored on the log of busbw against their peers (median and "
		 "MAD, the spread at least %g): %d suspect(s).",
		 hosts, num(sw, "rounds_run"), num(sw, "rounds"), num(sw, "jobs"), num(sw, "seconds"),
		 bad + (int)num(sw, "more_bad"), thr,
		 strcmp(cJSON_IsString(item(sw, "outcome")) ? item(sw, "outcome")->valuestring : "", "budget")
			 ? ""
			 : "; out of budget, rounds left out",
		 num(sw, "tolerance"), cJSON_GetArraySize(item(sw, "suspects")));
}

#define HOST_COLS 6
static const char *const host_heads[HOST_COLS] = { "host",    "ranks",  "alone (GB/s)", "pairs' level (GB/s)",
						   "z alone", "z pairs" };

static void host_cells(const cJSON *sw, int i, char c[HOST_COLS][128])
{
	snprintf(c[0], sizeof(c[0]), "%s", text_at(item(sw, "hosts"), i));
	cell(c[1], sizeof(c[1]), at(item(sw, "ranks"), i), 0);
	cell(c[2], sizeof(c[2]), num(cJSON_GetArrayItem(item(sw, "single"), i), "busbw_gbps"), 0);
	cell(c[3], sizeof(c[3]), at(item(sw, "pair_level_gbps"), i), 0);
	cell(c[4], sizeof(c[4]), at(item(sw, "single_z"), i), 1);
	cell(c[5], sizeof(c[5]), at(item(sw, "pair_level_z"), i), 1);
}

/* A suspect host? (its name in the sweep's suspects, kind host) */
static int host_out(const cJSON *sw, const char *h)
{
	const cJSON *s;

	cJSON_ArrayForEach(s, item(sw, "suspects"))
	{
		const cJSON *k = item(s, "kind"), *nm = item(s, "name");
		if (cJSON_IsString(k) && cJSON_IsString(nm) && !strcmp(k->valuestring, "host") &&
		    !strcmp(nm->valuestring, h))
			return 1;
	}
	return 0;
}

void gl_report_sweep_md(const struct gl_analysis *an, struct gl_buf *b)
{
	const cJSON *sw = an->sweep, *pairs = item(sw, "pairs"), *x;
	char text[1024], c[HOST_COLS][128];
	int n = cJSON_GetArraySize(item(sw, "hosts"));

	if (!sw)
		return;
	intro(sw, text, sizeof(text));
	gl_buf_printf(b, "\n### Node sweep\n\n");
	gl_md_text(b, text);
	gl_buf_printf(b, "\n\n|");
	for (int k = 0; k < HOST_COLS; k++)
		gl_buf_printf(b, " %s |", host_heads[k]);
	gl_buf_printf(b, "\n|---|---|---|---|---|---|\n");
	for (int i = 0; i < n; i++) {
		host_cells(sw, i, c);
		gl_buf_printf(b, "|");
		for (int k = 0; k < HOST_COLS; k++) {
			gl_buf_printf(b, " ");
			gl_md_text(b, c[k]);
			gl_buf_printf(b, k == 0 && host_out(sw, c[0]) ? " (suspect) |" : " |");
		}
		gl_buf_printf(b, "\n");
	}
	if (n <= MATRIX_HOSTS && cJSON_GetArraySize(pairs) == n && num(sw, "rounds_run") > 0) {
		gl_buf_printf(b, "\nPairs, busbw (GB/s):\n\n| |");
		for (int j = 0; j < n; j++) {
			gl_buf_printf(b, " ");
			gl_md_text(b, text_at(item(sw, "hosts"), j));
			gl_buf_printf(b, " |");
		}
		gl_buf_printf(b, "\n|---|");
		for (int j = 0; j < n; j++)
			gl_buf_printf(b, "---|");
		gl_buf_printf(b, "\n");
		for (int i = 0; i < n; i++) {
			gl_buf_printf(b, "| ");
			gl_md_text(b, text_at(item(sw, "hosts"), i));
			gl_buf_printf(b, " |");
			for (int j = 0; j < n; j++) {
				cell(text, sizeof(text), at(cJSON_GetArrayItem(pairs, i), j), 0);
				gl_buf_printf(b, " %s |", i == j ? "" : text);
			}
			gl_buf_printf(b, "\n");
		}
	} else if (n > MATRIX_HOSTS) {
		gl_buf_printf(b, "\nThe %d x %d matrix of pairs is in report.json (sweep.pairs).\n", n, n);
	}
	cJSON_ArrayForEach(x, item(sw, "bad"))
	{
		const cJSON *h = item(x, "hosts"), *why = item(x, "why");
		snprintf(text, sizeof(text), "Bad job: %s%s%s: %s", text_at(h, 0),
			 cJSON_GetArraySize(h) > 1 ? "," : " alone", cJSON_GetArraySize(h) > 1 ? text_at(h, 1) : "",
			 cJSON_IsString(why) ? why->valuestring : "");
		gl_buf_printf(b, "\n");
		gl_md_text(b, text);
		gl_buf_printf(b, "\n");
	}
}

/* a matrix cell's colour: pale green at or above what its ends carry,
 * red from 4 spreads below (the tolerance, on the log of busbw) */
static void shade(char *buf, size_t n, double x, double e, double tol)
{
	double t;

	if (isnan(x) || isnan(e) || e <= 0 || !(tol > 0)) {
		snprintf(buf, n, "#eeeeee");
		return;
	}
	t = log(e / (x > 1e-12 ? x : 1e-12)) / (4 * tol);
	t = t <= 0 ? 0 : t >= 1 ? 1 : t;
	snprintf(buf, n, "#%02x%02x%02x", (int)(220 + 35 * t), (int)(239 - 184 * t), (int)(220 - 165 * t));
}

static void matrix_html(struct out *o, const cJSON *sw, int n)
{
	const cJSON *pairs = item(sw, "pairs"), *lv = item(sw, "pair_level_gbps");
	double tol = num(sw, "tolerance");
	char v[64], col[8];

	put(o, "<table class=\"matrix\"><thead><tr><th></th>");
	for (int j = 0; j < n; j++) {
		put(o, "<th>");
		esc(o, text_at(item(sw, "hosts"), j));
		put(o, "</th>");
	}
	put(o, "</tr></thead><tbody>\n");
	for (int i = 0; i < n; i++) {
		put(o, "<tr><th>");
		esc(o, text_at(item(sw, "hosts"), i));
		put(o, "</th>");
		for (int j = 0; j < n; j++) {
			double x = at(cJSON_GetArrayItem(pairs, i), j), e = fmin(at(lv, i), at(lv, j));
			if (i == j) {
				put(o, "<td></td>");
				continue;
			}
			cell(v, sizeof(v), x, 0);
			shade(col, sizeof(col), x, e, tol);
			putf(o, "<td style=\"background:%s\">%s</td>", col, v);
		}
		put(o, "</tr>\n");
	}
	put(o, "</tbody></table>\n");
}

void gl_rhtml_sweep(struct out *o, const struct gl_analysis *an)
{
	const cJSON *sw = an->sweep, *x;
	char text[1024], c[HOST_COLS][128];
	int n = cJSON_GetArraySize(item(sw, "hosts"));

	if (!sw)
		return;
	intro(sw, text, sizeof(text));
	put(o, "<h3>Node sweep</h3>\n<p>");
	esc(o, text);
	put(o, "</p>\n<table><thead><tr>");
	for (int k = 0; k < HOST_COLS; k++)
		putf(o, "<th>%s</th>", host_heads[k]);
	put(o, "</tr></thead><tbody>\n");
	for (int i = 0; i < n; i++) {
		host_cells(sw, i, c);
		put(o, host_out(sw, c[0]) ? "<tr class=\"bad\">" : "<tr>");
		for (int k = 0; k < HOST_COLS; k++) {
			put(o, "<td>");
			esc(o, c[k]);
			put(o, "</td>");
		}
		put(o, "</tr>\n");
	}
	put(o, "</tbody></table>\n");
	if (n <= MATRIX_HOSTS && cJSON_GetArraySize(item(sw, "pairs")) == n && num(sw, "rounds_run") > 0) {
		put(o, "<p>Pairs, busbw (GB/s): a cell shades to red as it falls below what its two hosts carry "
		       "with their other peers.</p>\n");
		matrix_html(o, sw, n);
	} else if (n > MATRIX_HOSTS) {
		putf(o, "<p>The %d x %d matrix of pairs is in report.json (sweep.pairs).</p>\n", n, n);
	}
	cJSON_ArrayForEach(x, item(sw, "bad"))
	{
		const cJSON *h = item(x, "hosts"), *why = item(x, "why");
		snprintf(text, sizeof(text), "Bad job: %s%s%s: %s", text_at(h, 0),
			 cJSON_GetArraySize(h) > 1 ? "," : " alone", cJSON_GetArraySize(h) > 1 ? text_at(h, 1) : "",
			 cJSON_IsString(why) ? why->valuestring : "");
		put(o, "<p>");
		esc(o, text);
		put(o, "</p>\n");
	}
}
