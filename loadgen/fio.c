/*
 * fio.c - read fio's JSON reports (see fio.h for the layout) into struct
 * gl_fio_report, one at a time or as a --status-interval stream.
 *
 * Both entry points share one byte-at-a-time splitter. Outside a report it
 * works on lines: a line whose first non-blank byte is '{' starts a report,
 * any other non-blank line is fio's own text and is counted. Inside a report
 * it follows strings (with their escapes) and counts open braces and
 * brackets, so the report ends at the byte that closes its first brace; the
 * depth cap is enforced here, before cJSON sees the text. The report's bytes
 * then go through cJSON and a walk that checks the type of every field read
 * and names the field when one is wrong. The stream keeps only the report
 * being collected, in a buffer that grows to the cap and no further; a report
 * past the cap is scanned to its end without being stored.
 */
#include "fio.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define U64_LIMIT 18446744073709551616.0 /* 2^64 */
#define I64_LIMIT 9223372036854775808.0 /* 2^63 */
#define STREAM_DEFAULT_MAX (16u * 1024u * 1024u)
#define STREAM_FIRST_CAP (64u * 1024u)
#define PCT_KEY_DIGITS 15 /* so the mantissa stays exact in a double */

/* ---- splitter ----------------------------------------------------------- */

enum split_state { SP_LINE, SP_SKIP, SP_OBJ };
enum split_event { EV_NONE, EV_START, EV_END, EV_DEEP };

struct split {
	enum split_state state;
	int in_str, esc;
	int64_t depth; /* open { and [ of the current report */
	int skipped; /* non-blank lines outside reports */
	uint64_t line; /* 1-based line of the byte being looked at */
};

static void split_init(struct split *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->state = SP_LINE;
	sp->line = 1;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Look at one byte. EV_START: it opens a report; EV_END: it closes one;
 * EV_DEEP: it opens level GL_FIO_MAX_DEPTH + 1 (once per report). */
static enum split_event split_step(struct split *sp, char c)
{
	if (c == '\n')
		sp->line++;
	switch (sp->state) {
	case SP_LINE:
		if (c == '\n' || is_blank(c))
			return EV_NONE;
		if (c == '{') {
			sp->state = SP_OBJ;
			sp->depth = 1;
			sp->in_str = sp->esc = 0;
			return EV_START;
		}
		sp->state = SP_SKIP;
		if (sp->skipped < INT_MAX)
			sp->skipped++;
		return EV_NONE;
	case SP_SKIP:
		if (c == '\n')
			sp->state = SP_LINE;
		return EV_NONE;
	case SP_OBJ: break;
	}
	if (sp->in_str) {
		if (sp->esc)
			sp->esc = 0;
		else if (c == '\\')
			sp->esc = 1;
		else if (c == '"')
			sp->in_str = 0;
		return EV_NONE;
	}
	switch (c) {
	case '"': sp->in_str = 1; break;
	case '{':
	case '[':
		if (++sp->depth == GL_FIO_MAX_DEPTH + 1)
			return EV_DEEP;
		break;
	case '}':
	case ']':
		if (--sp->depth == 0) {
			/* What follows on the same line is judged like a new line:
			 * reports may come back to back ("}{"). */
			sp->state = SP_LINE;
			return EV_END;
		}
		break;
	}
	return EV_NONE;
}

/* ---- typed field access ------------------------------------------------- */

/* "where.key: what"; where or key may be empty. */
static int bad(struct gl_err *err, int code, const char *where, const char *key, const char *what)
{
	const char *dot = where[0] && key[0] ? "." : "";

	gl_errf(err, code, "%s%s%s: %s", where, dot, key, what);
	return -code;
}

static const cJSON *item(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A number that must be finite and non-negative. Absent: 1 (out untouched)
 * when optional, an error when required; present and right: 0. */
static int get_num(const cJSON *o, const char *where, const char *key, int required, double *out, struct gl_err *err)
{
	const cJSON *v = item(o, key);

	if (!v)
		return required ? bad(err, GL_EINVAL, where, key, "missing") : 1;
	if (!cJSON_IsNumber(v))
		return bad(err, GL_EINVAL, where, key, "expected a number");
	if (!isfinite(v->valuedouble))
		return bad(err, GL_EINVAL, where, key, "number out of range");
	if (v->valuedouble < 0)
		return bad(err, GL_EINVAL, where, key, "expected a non-negative number");
	*out = v->valuedouble;
	return 0;
}

static int get_u64(const cJSON *o, const char *where, const char *key, int required, uint64_t *out, struct gl_err *err)
{
	double d = 0;
	int rc = get_num(o, where, key, required, &d, err);

	if (rc != 0)
		return rc;
	if (d != floor(d))
		return bad(err, GL_EINVAL, where, key, "expected an integer");
	if (d >= U64_LIMIT)
		return bad(err, GL_EINVAL, where, key, "number out of range");
	*out = (uint64_t)d;
	return 0;
}

/* A signed integer in [lo, hi]. */
static int get_int(const cJSON *o, const char *where, const char *key, int required, double lo, double hi, double *out,
		   struct gl_err *err)
{
	const cJSON *v = item(o, key);

	if (!v)
		return required ? bad(err, GL_EINVAL, where, key, "missing") : 1;
	if (!cJSON_IsNumber(v))
		return bad(err, GL_EINVAL, where, key, "expected a number");
	if (!isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi)
		return bad(err, GL_EINVAL, where, key, "number out of range");
	if (v->valuedouble != floor(v->valuedouble))
		return bad(err, GL_EINVAL, where, key, "expected an integer");
	*out = v->valuedouble;
	return 0;
}

/* Copy a string field into dst (cut at a character boundary to fit). */
static int get_str(const cJSON *o, const char *where, const char *key, int required, char *dst, size_t n,
		   struct gl_err *err)
{
	const cJSON *v = item(o, key);
	size_t len;

	if (!v)
		return required ? bad(err, GL_EINVAL, where, key, "missing") : 1;
	if (!cJSON_IsString(v) || !v->valuestring)
		return bad(err, GL_EINVAL, where, key, "expected a string");
	len = strlen(v->valuestring);
	if (len >= n) {
		len = n - 1;
		while (len > 0 && ((unsigned char)v->valuestring[len] & 0xC0) == 0x80)
			len--;
	}
	memcpy(dst, v->valuestring, len);
	dst[len] = '\0';
	return 0;
}

/* ---- the report --------------------------------------------------------- */

/* A percentile key as fio prints it ("99.000000"): digits with at most one
 * dot, read without strtod so that the locale cannot change it. */
static int pct_key(const char *s, double *out)
{
	static const double pow10[PCT_KEY_DIGITS + 1] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	};
	uint64_t m = 0;
	int digits = 0, frac = -1;

	for (; *s; s++) {
		if (*s == '.' && frac < 0 && digits > 0) {
			frac = 0;
		} else if (*s >= '0' && *s <= '9' && digits < PCT_KEY_DIGITS) {
			m = m * 10 + (uint64_t)(*s - '0');
			digits++;
			if (frac >= 0)
				frac++;
		} else {
			return -1;
		}
	}
	if (digits == 0 || frac == 0)
		return -1;
	*out = (double)m / pow10[frac > 0 ? frac : 0];
	return *out > 0 && *out <= 100 ? 0 : -1;
}

static int parse_pcts(const cJSON *p, const char *where, struct gl_fio_dir *d, struct gl_err *err)
{
	const cJSON *e;

	if (!cJSON_IsObject(p))
		return bad(err, GL_EINVAL, where, "percentile", "expected an object");
	cJSON_ArrayForEach(e, p)
	{
		double pct, ns;
		int i;

		if (d->n_pct == GL_FIO_MAX_PCT)
			return bad(err, GL_ELIMIT, where, "percentile", "more than 32 percentiles");
		if (!e->string || pct_key(e->string, &pct) < 0) {
			gl_errf(err, GL_EINVAL, "%s.percentile: key \"%.40s\" is not a percentage", where,
				e->string ? e->string : "");
			return -GL_EINVAL;
		}
		if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0 ||
		    e->valuedouble >= U64_LIMIT || e->valuedouble != floor(e->valuedouble)) {
			gl_errf(err, GL_EINVAL, "%s.percentile.%.40s: expected a non-negative integer", where,
				e->string);
			return -GL_EINVAL;
		}
		ns = e->valuedouble;
		/* Insert in order; fio sorts percentile_list, but do not rely on it. */
		for (i = d->n_pct; i > 0 && d->pct[i - 1] >= pct; i--) {
			if (d->pct[i - 1] == pct) {
				gl_errf(err, GL_EINVAL, "%s.percentile: %.40s appears twice", where, e->string);
				return -GL_EINVAL;
			}
			d->pct[i] = d->pct[i - 1];
			d->pct_ns[i] = d->pct_ns[i - 1];
		}
		d->pct[i] = pct;
		d->pct_ns[i] = ns;
		d->n_pct++;
	}
	return 0;
}

static int parse_dir(const cJSON *o, const char *where, struct gl_fio_dir *d, struct gl_err *err)
{
	const cJSON *clat;
	char at[96];
	uint64_t runtime = 0;
	int rc, have_n;

	if (!cJSON_IsObject(o))
		return bad(err, GL_EINVAL, where, "", "expected an object");
	if ((rc = get_u64(o, where, "io_bytes", 1, &d->io_bytes, err)) < 0 ||
	    (rc = get_u64(o, where, "bw_bytes", 0, &d->bw_bytes, err)) < 0 ||
	    (rc = get_num(o, where, "iops", 0, &d->iops, err)) < 0 ||
	    (rc = get_u64(o, where, "total_ios", 0, &d->total_ios, err)) < 0 ||
	    (rc = get_u64(o, where, "runtime", 0, &runtime, err)) < 0)
		return rc;
	d->runtime_ms = (double)runtime;
	clat = item(o, "clat_ns");
	if (!clat)
		return 0;
	snprintf(at, sizeof(at), "%s.clat_ns", where);
	if (!cJSON_IsObject(clat))
		return bad(err, GL_EINVAL, at, "", "expected an object");
	if ((rc = get_num(clat, at, "mean", 0, &d->clat_mean_ns, err)) < 0)
		return rc;
	if ((rc = get_u64(clat, at, "N", 0, &d->clat_n, err)) < 0)
		return rc;
	have_n = rc == 0;
	if (item(clat, "percentile") && (rc = parse_pcts(item(clat, "percentile"), at, d, err)) < 0)
		return rc;
	/* Older fio printed no "N": then a mean or a percentile is enough. */
	d->have_clat = have_n ? d->clat_n > 0 : (d->clat_mean_ns > 0 || d->n_pct > 0);
	return 0;
}

static int parse_job(const cJSON *o, int idx, struct gl_fio_job *j, struct gl_err *err)
{
	static const char *const dirs[] = { "read", "write", "trim", "mixed" };
	struct gl_fio_dir *dst[] = { &j->read, &j->write, &j->trim, &j->mixed };
	char where[32], at[48];
	double v = 0;
	int rc, n_dirs = 0;

	snprintf(where, sizeof(where), "jobs[%d]", idx);
	if (!cJSON_IsObject(o))
		return bad(err, GL_EINVAL, where, "", "expected an object");
	if ((rc = get_str(o, where, "jobname", 1, j->name, sizeof(j->name), err)) < 0)
		return rc;
	if ((rc = get_int(o, where, "error", 1, INT_MIN, INT_MAX, &v, err)) < 0)
		return rc;
	j->error = (int)v;
	if ((rc = get_int(o, where, "groupid", 0, INT_MIN, INT_MAX, &v, err)) < 0)
		return rc;
	j->groupid = rc == 0 ? (int)v : 0;
	if ((rc = get_int(o, where, "first_error", 0, INT_MIN, INT_MAX, &v, err)) < 0)
		return rc;
	j->first_error = rc == 0 ? (int)v : 0;
	if ((rc = get_u64(o, where, "total_err", 0, &j->total_err, err)) < 0 ||
	    (rc = get_u64(o, where, "job_runtime", 0, &j->job_runtime_ms, err)) < 0)
		return rc;
	for (size_t k = 0; k < GL_ARRAY_LEN(dirs); k++) {
		const cJSON *d = item(o, dirs[k]);
		if (!d)
			continue;
		snprintf(at, sizeof(at), "%s.%s", where, dirs[k]);
		if ((rc = parse_dir(d, at, dst[k], err)) < 0)
			return rc;
		n_dirs++;
	}
	if (!n_dirs)
		return bad(err, GL_EINVAL, where, "", "no read, write, trim or mixed section");
	j->have_mixed = item(o, "mixed") != NULL;
	j->runtime_ms_read = j->read.runtime_ms;
	j->runtime_ms_write = j->write.runtime_ms;
	return 0;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void sum_jobs(struct gl_fio_report *r)
{
	for (int i = 0; i < r->n_jobs; i++) {
		const struct gl_fio_job *j = &r->jobs[i];
		r->read_bytes = add_sat(r->read_bytes, j->read.io_bytes);
		r->write_bytes = add_sat(r->write_bytes, j->write.io_bytes);
		r->trim_bytes = add_sat(r->trim_bytes, j->trim.io_bytes);
		r->mixed_bytes = add_sat(r->mixed_bytes, j->mixed.io_bytes);
		r->total_err = add_sat(r->total_err, j->total_err);
		r->read_bw_bytes += (double)j->read.bw_bytes;
		r->write_bw_bytes += (double)j->write.bw_bytes;
		r->trim_bw_bytes += (double)j->trim.bw_bytes;
		r->mixed_bw_bytes += (double)j->mixed.bw_bytes;
		r->read_iops += j->read.iops;
		r->write_iops += j->write.iops;
		r->trim_iops += j->trim.iops;
		r->mixed_iops += j->mixed.iops;
		if (j->error != 0 || j->total_err > 0)
			r->any_error = 1;
	}
}

static int parse_root(const cJSON *root, struct gl_fio_report *r, struct gl_err *err)
{
	const cJSON *jobs, *it;
	double ts = 0;
	int rc, n, i = 0;

	if (!cJSON_IsObject(root))
		return bad(err, GL_EINVAL, "report", "", "expected an object");
	if ((rc = get_str(root, "", "fio version", 0, r->fio_version, sizeof(r->fio_version), err)) < 0)
		return rc;
	if (!strncmp(r->fio_version, "fio-", 4) && r->fio_version[4] >= '0' && r->fio_version[4] <= '2' &&
	    r->fio_version[5] == '.') {
		gl_errf(err, GL_EINVAL,
			"fio version: %s output is not supported (fio >= 3.0 is needed: "
			"older versions report io_bytes in KiB and clat in usec)",
			r->fio_version);
		return -GL_EINVAL;
	}
	rc = get_int(root, "", "timestamp_ms", 0, -I64_LIMIT, I64_LIMIT - 1024, &ts, err);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		r->timestamp_ms = (int64_t)ts;
	} else {
		rc = get_int(root, "", "timestamp", 0, -I64_LIMIT / 1000, I64_LIMIT / 1000, &ts, err);
		if (rc < 0)
			return rc;
		r->timestamp_ms = rc == 0 ? (int64_t)ts * 1000 : 0;
	}
	jobs = item(root, "jobs");
	if (!jobs && item(root, "client_stats"))
		return bad(err, GL_EINVAL, "client_stats", "", "fio client/server output is not supported");
	if (!jobs)
		return bad(err, GL_EINVAL, "jobs", "", "missing");
	if (!cJSON_IsArray(jobs))
		return bad(err, GL_EINVAL, "jobs", "", "expected an array");
	n = 0;
	cJSON_ArrayForEach(it, jobs)
	{
		if (++n > GL_FIO_MAX_JOBS)
			return bad(err, GL_ELIMIT, "jobs", "", "more than 4096 jobs");
	}
	if (n > 0) {
		r->jobs = calloc((size_t)n, sizeof(*r->jobs));
		if (!r->jobs) {
			gl_errf(err, GL_ENOMEM, "jobs: out of memory for %d jobs", n);
			return -GL_ENOMEM;
		}
	}
	r->n_jobs = n;
	cJSON_ArrayForEach(it, jobs)
	{
		if ((rc = parse_job(it, i, &r->jobs[i], err)) < 0)
			return rc;
		i++;
	}
	sum_jobs(r);
	return 0;
}

/* cJSON stopped at text[pos]: say where (line and column in fio's output)
 * and show what is there, quotes and control bytes made harmless. */
static int syntax_error(const char *text, size_t n, size_t pos, uint64_t line0, struct gl_err *err)
{
	uint64_t line = line0;
	size_t col = 1, k = 0;
	char near[17];

	for (size_t i = 0; i < pos; i++) {
		col++;
		if (text[i] == '\n') {
			line++;
			col = 1;
		}
	}
	for (size_t i = pos; i < n && k < sizeof(near) - 1; i++) {
		unsigned char c = (unsigned char)text[i];
		near[k++] = c == '"' ? '\'' : c < 0x20 || c >= 0x7F ? ' ' : (char)c;
	}
	near[k] = '\0';
	gl_errf(err, GL_EINVAL, "line %llu col %zu: invalid JSON near \"%s\"", (unsigned long long)line, col, near);
	return -GL_EINVAL;
}

/* Parse the report in text[0, n) (exactly one JSON object, as the splitter
 * cut it); line0 is the line it starts on, for syntax error positions. */
static int parse_report(const char *text, size_t n, uint64_t line0, struct gl_fio_report *r, struct gl_err *err)
{
	const char *endp = NULL;
	cJSON *root;
	int rc;

	memset(r, 0, sizeof(*r));
	root = cJSON_ParseWithLengthOpts(text, n, &endp, 0);
	if (!root || endp != text + n) {
		size_t pos = endp && endp >= text && endp <= text + n ? (size_t)(endp - text) : 0;
		cJSON_Delete(root);
		return syntax_error(text, n, pos, line0, err);
	}
	rc = parse_root(root, r, err);
	cJSON_Delete(root);
	if (rc < 0)
		gl_fio_report_free(r);
	return rc;
}

int gl_fio_parse(const char *buf, size_t len, struct gl_fio_report *r, struct gl_err *err)
{
	struct split sp;
	size_t start = 0, end = 0;
	uint64_t start_line = 0;
	int found = 0, rc;

	memset(r, 0, sizeof(*r));
	if (len > GL_FIO_MAX_INPUT) {
		gl_errf(err, GL_ELIMIT, "fio output of %zu bytes is over the %u-byte cap", len, GL_FIO_MAX_INPUT);
		return -GL_ELIMIT;
	}
	if (!buf)
		len = 0;
	split_init(&sp);
	for (size_t i = 0; i < len; i++) {
		switch (split_step(&sp, buf[i])) {
		case EV_START:
			if (found) {
				gl_errf(err, GL_EINVAL,
					"line %llu: a second report starts here "
					"(--status-interval output needs gl_fio_stream)",
					(unsigned long long)sp.line);
				return -GL_EINVAL;
			}
			start = i;
			start_line = sp.line;
			break;
		case EV_DEEP:
			gl_errf(err, GL_EINVAL, "line %llu: nesting deeper than %d levels", (unsigned long long)sp.line,
				GL_FIO_MAX_DEPTH);
			return -GL_EINVAL;
		case EV_END:
			found = 1;
			end = i + 1;
			break;
		case EV_NONE: break;
		}
	}
	if (sp.state == SP_OBJ) {
		gl_errf(err, GL_EINVAL, "line %llu: the report is cut short (%s)", (unsigned long long)start_line,
			sp.in_str ? "inside a string" : "a '{' or '[' is never closed");
		return -GL_EINVAL;
	}
	if (!found) {
		gl_errf(err, GL_EINVAL, "no JSON report in %zu bytes of fio output (%d non-JSON lines)", len,
			sp.skipped);
		return -GL_EINVAL;
	}
	rc = parse_report(buf + start, end - start, start_line, r, err);
	if (rc == 0)
		r->skipped_lines = sp.skipped;
	return rc;
}

void gl_fio_report_free(struct gl_fio_report *r)
{
	if (!r)
		return;
	free(r->jobs);
	memset(r, 0, sizeof(*r));
}

double gl_fio_clat_ms(const struct gl_fio_dir *d, double p)
{
	if (!d || !d->have_clat || !(p > 0 && p <= 100))
		return -1;
	for (int i = 0; i < d->n_pct && i < GL_FIO_MAX_PCT; i++) {
		if (fabs(d->pct[i] - p) < 1e-9)
			return d->pct_ns[i] / 1e6;
	}
	return -1;
}

/* ---- the stream --------------------------------------------------------- */

struct gl_fio_stream {
	struct split sp;
	size_t max; /* cap on one report's bytes */
	char *buf; /* the report being collected */
	size_t len, cap;
	size_t obj_bytes; /* bytes of the current report, stored or not */
	uint64_t obj_line; /* line it started on */
	int dropping; /* the current report is bad: scan to its end only */
	int reports, bad;
};

struct gl_fio_stream *gl_fio_stream_new(size_t max_object_bytes)
{
	struct gl_fio_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (max_object_bytes == 0)
		max_object_bytes = STREAM_DEFAULT_MAX;
	if (max_object_bytes > GL_FIO_MAX_INPUT)
		max_object_bytes = GL_FIO_MAX_INPUT;
	s->max = max_object_bytes;
	split_init(&s->sp);
	return s;
}

void gl_fio_stream_free(struct gl_fio_stream *s)
{
	if (!s)
		return;
	free(s->buf);
	free(s);
}

int gl_fio_stream_skipped(const struct gl_fio_stream *s)
{
	return s ? s->sp.skipped : 0;
}

int gl_fio_stream_reports(const struct gl_fio_stream *s)
{
	return s ? s->reports : 0;
}

int gl_fio_stream_bad(const struct gl_fio_stream *s)
{
	return s ? s->bad : 0;
}

size_t gl_fio_stream_pending(const struct gl_fio_stream *s)
{
	return s && s->sp.state == SP_OBJ ? s->obj_bytes : 0;
}

/* Drop the current report: count it, keep the first error of this call. */
static void drop(struct gl_fio_stream *s, int *first, struct gl_err *err, int code, const char *msg)
{
	s->dropping = 1;
	s->len = 0;
	if (s->bad < INT_MAX)
		s->bad++;
	gl_errf(err, code, "fio report at line %llu: %s", (unsigned long long)s->obj_line, msg);
	if (!*first)
		*first = -code;
}

/* Append one byte to the report buffer, growing it up to the cap.
 * Returns 0, -GL_ELIMIT at the cap, -GL_ENOMEM. */
static int put(struct gl_fio_stream *s, char c)
{
	if (s->len == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : STREAM_FIRST_CAP;
		char *p;
		if (s->len >= s->max)
			return -GL_ELIMIT;
		if (cap > s->max)
			cap = s->max;
		p = realloc(s->buf, cap);
		if (!p)
			return -GL_ENOMEM;
		s->buf = p;
		s->cap = cap;
	}
	s->buf[s->len++] = c;
	return 0;
}

static void finish_report(struct gl_fio_stream *s, int *first,
			  void (*on_report)(void *arg, const struct gl_fio_report *r), void *arg, struct gl_err *err)
{
	struct gl_fio_report r;
	struct gl_err e = { 0 };

	if (parse_report(s->buf, s->len, s->obj_line, &r, &e) < 0) {
		drop(s, first, err, e.code, e.msg);
		return;
	}
	if (s->reports < INT_MAX)
		s->reports++;
	if (on_report)
		on_report(arg, &r);
	gl_fio_report_free(&r);
}

int gl_fio_stream_feed(struct gl_fio_stream *s, const char *data, size_t len,
		       void (*on_report)(void *arg, const struct gl_fio_report *r), void *arg, struct gl_err *err)
{
	int first = 0;

	if (!s)
		return gl_errf(err, GL_EINVAL, "gl_fio_stream_feed: no stream");
	if (!data)
		len = 0;
	for (size_t i = 0; i < len; i++) {
		enum split_event ev = split_step(&s->sp, data[i]);
		int rc;

		if (ev == EV_START) {
			s->len = 0;
			s->obj_bytes = 0;
			s->obj_line = s->sp.line;
			s->dropping = 0;
		} else if (ev == EV_NONE && s->sp.state != SP_OBJ) {
			continue;
		}
		s->obj_bytes++;
		if (!s->dropping && (rc = put(s, data[i])) < 0) {
			char msg[96];
			if (rc == -GL_ELIMIT)
				snprintf(msg, sizeof(msg), "larger than the %zu-byte cap", s->max);
			else
				snprintf(msg, sizeof(msg), "out of memory at %zu bytes", s->len);
			drop(s, &first, err, -rc, msg);
		}
		if (ev == EV_DEEP && !s->dropping) {
			char msg[64];
			snprintf(msg, sizeof(msg), "nesting deeper than %d levels", GL_FIO_MAX_DEPTH);
			drop(s, &first, err, GL_EINVAL, msg);
		}
		if (ev == EV_END) {
			if (!s->dropping)
				finish_report(s, &first, on_report, arg, err);
			s->len = 0;
			s->obj_bytes = 0;
			s->dropping = 0;
		}
	}
	return first;
}
