/*
 * report_csv.c - timeseries.csv: the per-window series of a run, one row
 * per stored window, for spreadsheets and scripts. The columns are listed
 * in series.h (gl_report_csv); values use the same evaluation as targets,
 * so a row shows exactly what analysis judged for that window.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "series.h"

/* A CSV field, quoted (with doubled quotes) when it holds a comma, a quote
 * or a line break. */
static int csv_str(struct gl_buf *b, const char *s)
{
	int rc;

	if (!strpbrk(s, ",\"\r\n"))
		return gl_buf_append(b, s, strlen(s));
	rc = gl_buf_append(b, "\"", 1);
	for (const char *p = s; *p && rc == 0; p++)
		rc = *p == '"' ? gl_buf_append(b, "\"\"", 2) : gl_buf_append(b, p, 1);
	return rc ? rc : gl_buf_append(b, "\"", 1);
}

static int csv_num(struct gl_buf *b, double v)
{
	char num[64];
	int n;

	if (!isfinite(v))
		return 0; /* empty cell */
	n = snprintf(num, sizeof(num), "%.10g", v);
	return gl_buf_append(b, num, (size_t)n);
}

int gl_report_csv(const struct gl_analysis *an, const struct gl_series_set *ss, struct gl_buf *out)
{
	int rc = gl_buf_printf(out, "idx,start_s,end_s,scn_start_s,scn_end_s,phase,scope,complete");

	for (int i = 0; i < ss->n && rc == 0; i++) {
		rc = gl_buf_append(out, ",", 1);
		if (rc == 0)
			rc = csv_str(out, ss->s[i].name);
	}
	if (rc == 0)
		rc = gl_buf_append(out, "\n", 1);
	for (int w = 0; w < ss->n_windows && rc == 0; w++) {
		const struct gl_window_info *wi = &ss->win[w];
		const char *phase = wi->phase >= 0 && wi->phase < an->sc->n_phases ? an->sc->phases[wi->phase].name
										   : "";

		rc = gl_buf_printf(out, "%lld,%.6f,%.6f,%.6f,%.6f,", (long long)wi->idx, (double)wi->start_ns / 1e9,
				   (double)wi->end_ns / 1e9, (double)wi->scn_start_ns / 1e9,
				   (double)wi->scn_end_ns / 1e9);
		if (rc == 0)
			rc = csv_str(out, phase);
		if (rc == 0)
			rc = gl_buf_printf(out, ",%s,%d", gl_scope_name(wi->scope), wi->complete);
		for (int i = 0; i < ss->n && rc == 0; i++) {
			rc = gl_buf_append(out, ",", 1);
			if (rc == 0)
				rc = csv_num(out, ss->s[i].v[w]);
		}
		if (rc == 0)
			rc = gl_buf_append(out, "\n", 1);
	}
	return rc;
}
