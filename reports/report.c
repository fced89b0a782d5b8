/*
 * report.c - writing the report files of a run directory. Each file is
 * written whole to a temporary name and renamed, so a reader never sees a
 * half-written report, and a crash mid-write leaves the previous one.
 * report.pdf comes last, printed from report.html (report_pdf.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "manifest.h"
#include "report.h"
#include "series.h"

static int write_json(const char *dir, const char *name, cJSON *doc, struct gl_err *err)
{
	char path[1200];
	char *text = cJSON_Print(doc);
	int rc;

	if (!text)
		return gl_errf(err, GL_ENOMEM, "%s: out of memory", name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rc = gl_write_file_atomic(path, text, strlen(text), 0600, err);
	cJSON_free(text);
	return rc;
}

/* An unpinned image's warning in report.md (gl_manifest_image_warnings). */
static void md_image_warning(void *arg, const char *text)
{
	gl_buf_printf(arg, "> **Warning:** ");
	gl_md_text(arg, text);
	gl_buf_printf(arg, ".\n\n");
}

/* report.json alone, from an analysis (`gauntlet simulate` over many
 * seeds checks it). */
int gl_report_write_json(const char *dir, struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	cJSON *doc = gl_report_json(an);
	int rc;

	(void)st;
	rc = doc ? write_json(dir, "report.json", doc, err) : gl_errf(err, GL_ENOMEM, "report.json: out of memory");
	cJSON_Delete(doc);
	return rc;
}

static int write_all(const char *dir, struct gl_store *st, struct gl_analysis *an, int pdf, struct gl_err *err);

/* Every report but report.pdf, from an analysis: a simulation's run
 * directory (no browser is started for a plan's rehearsal). */
int gl_report_write_sim(const char *dir, struct gl_store *st, struct gl_analysis *an, struct gl_err *err)
{
	return write_all(dir, st, an, 0, err);
}

int gl_report_write(const char *dir, struct gl_store *st, struct gl_err *err)
{
	struct gl_analysis *an = NULL;
	int rc;

	if ((rc = gl_analyze(st, &an, err)))
		return rc;
	rc = write_all(dir, st, an, 1, err);
	gl_analysis_free(an);
	return rc;
}

static int write_all(const char *dir, struct gl_store *st, struct gl_analysis *an, int pdf_wanted, struct gl_err *err)
{
	struct gl_series_set *ss = NULL;
	struct gl_buf md, html, csv, junit;
	cJSON *doc = NULL, *man = NULL;
	char path[1200];
	int rc;

	gl_buf_init(&md, 64u << 20);
	gl_buf_init(&html, 64u << 20);
	gl_buf_init(&csv, 256u << 20);
	gl_buf_init(&junit, 64u << 20);
	doc = gl_report_json(an);
	if (!doc) {
		rc = gl_errf(err, GL_ENOMEM, "report.json: out of memory");
		goto out;
	}
	if ((rc = write_json(dir, "report.json", doc, err)))
		goto out;
	if ((rc = gl_report_md(an, &md)) != 0) {
		gl_errf(err, GL_ELIMIT, "report.md: too large");
		goto out;
	}
	man = gl_manifest_from_store(an, st); /* the inventory taken at run start */
	if (!man) {
		rc = gl_errf(err, GL_ENOMEM, "manifest.json: out of memory");
		goto out;
	}
	gl_manifest_image_warnings(man, md_image_warning, &md);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	if ((rc = gl_write_file_atomic(path, md.data, md.len, 0600, err)))
		goto out;
	if ((rc = gl_report_junit(an, &junit)) != 0) {
		gl_errf(err, GL_ELIMIT, "junit.xml: too large");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/junit.xml", dir);
	if ((rc = gl_write_file_atomic(path, junit.data, junit.len, 0600, err)))
		goto out;
	cJSON_Delete(doc);
	doc = man;
	man = NULL;
	if ((rc = write_json(dir, "manifest.json", doc, err)))
		goto out;
	/* per-window series: timeseries.csv and the charts of report.html */
	if (!(ss = gl_series_load(st, an, err))) {
		rc = -(err && err->code ? err->code : GL_EIO);
		goto out;
	}
	if (gl_report_csv(an, ss, &csv) != 0) {
		rc = gl_errf(err, GL_ELIMIT, "timeseries.csv: too large");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/timeseries.csv", dir);
	if ((rc = gl_write_file_atomic(path, csv.data, csv.len, 0600, err)))
		goto out;
	if (gl_report_html(an, ss, doc, &html) != 0) {
		rc = gl_errf(err, GL_ELIMIT, "report.html: too large");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/report.html", dir);
	if ((rc = gl_write_file_atomic(path, html.data, html.len, 0600, err)) == 0 && pdf_wanted) {
		char msg[900];
		/* dated at the run's end (a run still going: its last commit,
		 * else its start), so a re-rendering gives the same bytes */
		int64_t date = an->run.ended_wall_ns > 0      ? an->run.ended_wall_ns
			       : an->run.progress_wall_ns > 0 ? an->run.progress_wall_ns
							      : an->run.started_wall_ns;
		int pdf = gl_report_pdf(dir, date, msg, sizeof(msg));
		/* a report.pdf from an earlier rendering would no longer match
		 * the store: it goes when none replaces it */
		snprintf(path, sizeof(path), "%s/report.pdf", dir);
		if (pdf != GL_PDF_WRITTEN && unlink(path) == 0) {
			size_t k = strlen(msg);
			snprintf(msg + k, sizeof(msg) - k,
				 "; the earlier report.pdf was removed (it no longer "
				 "matches the store)");
		}
		if (pdf < 0)
			gl_warn("%s", msg);
		else
			gl_info("%s", msg);
	}
out:
	cJSON_Delete(man);
	cJSON_Delete(doc);
	gl_series_free(ss); /* borrows the analysis: free it first */
	gl_buf_free(&md);
	gl_buf_free(&html);
	gl_buf_free(&csv);
	gl_buf_free(&junit);
	return rc;
}

void gl_report_drift_cells(const struct gl_target_result *t, char *req, size_t nr, char *meas, size_t nm)
{
	const struct gl_drift_fit *f = &t->drift;
	const char *u = t->spec->drift_pct ? "%" : "";
	double k = t->spec->drift_pct && f->level > 0 ? 100 / f->level : 1;

	snprintf(req, nr, "drift/day %s %g%s", gl_cmp_str(t->spec->expr.op), t->spec->expr.threshold, u);
	if (t->has)
		snprintf(meas, nm, "%.4g%s/day (95 %%: %.4g to %.4g), level %.4g at the start, %d windows", t->measured,
			 u, f->lo * k, f->hi * k, f->level, t->windows_judged);
	else
		snprintf(meas, nm, "n/a");
}

const char *gl_report_saturation_note(const struct gl_analysis *an, char *buf, size_t n)
{
	char agents[96] = "";

	if (!an->saturated_windows) {
		snprintf(buf, n, "%s", "");
		return buf;
	}
	if (an->agents_needed > 0)
		snprintf(agents, sizeof(agents), "; the load needs about %d load agent(s) (the section's \"agents\")",
			 an->agents_needed);
	snprintf(buf, n,
		 "the load generator had no headroom in %d of %d windows (busy 90 %% of a core or more, or behind "
		 "its schedule by a quarter of a window): those windows measured the client, not the cluster, and "
		 "are judged by no target (the run's totals include them)%s",
		 an->saturated_windows, an->n_windows, agents);
	return buf;
}

const char *gl_report_sessions_note(const struct gl_fault_result *f, char *buf, size_t n)
{
	const struct gl_session_recovery *s = &f->sessions;
	char after[96] = "";

	buf[0] = 0;
	if (!s->has)
		return buf;
	if (s->before_ms < 0) {
		snprintf(buf, n, "conversations: no figure (%s)", s->note);
		return buf;
	}
	if (s->first_ms >= 0)
		snprintf(after, sizeof(after), ", %.1f ms in the first window after, at most %.1f", s->first_ms,
			 s->peak_ms);
	if (s->recovery_s >= 0)
		snprintf(buf, n, "conversations: later turns' TTFT median %.1f ms before%s; back in %.3f s",
			 s->before_ms, after, s->recovery_s);
	else
		snprintf(buf, n, "conversations: later turns' TTFT median %.1f ms before%s; %s", s->before_ms, after,
			 s->note);
	return buf;
}
