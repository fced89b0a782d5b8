/*
 * trace.c - streamed trace readers (Azure 2023/2024, BurstGPT, Mooncake,
 * prompt JSONL) and the deterministic prompt synthesizer (see trace.h).
 *
 * A reader owns one source (a file descriptor or a borrowed memory buffer),
 * a fixed read buffer and a line buffer capped at GL_TRACE_MAX_LINE: a longer
 * line is drained without being stored and reported as one bad row. Each
 * line becomes a row through a per-format parser that fills a row or says
 * what was wrong; time is kept in integer nanoseconds until the offset from
 * the first good row is taken, so a 7-digit fraction survives exactly. Bad
 * rows are counted once per line number, so that rewinding for another pass
 * neither double-counts nor re-logs them.
 */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#define READ_CHUNK (64u * 1024u)
#define CSV_MAX_FIELDS 256
/* Timestamps are kept within +-4e18 ns (about 126 years around the epoch)
 * so that the difference of any two fits in an int64. */
#define TS_LIMIT_NS 4000000000000000000LL
#define NUM_TEXT_MAX 64

struct gl_trace {
	char *name;
	enum gl_trace_format fmt;

	int fd;                   /* -1 for a memory source */
	char *rbuf;               /* fd: read buffer; memory: the caller's data */
	size_t rlen, rpos;
	bool eof;

	struct gl_buf line;       /* the current line, without its line end */
	bool overlong;            /* the current line was longer than the cap */
	uint64_t line_no;
	bool hold;                /* hand the current line out again (after detection) */

	int col_ts, col_in, col_out, n_cols;   /* CSV column indices */

	double backstep_tol_s;
	bool have_first, have_prev;
	int64_t first_ns;         /* timestamp of the first good row */
	int64_t prev_off_ns;      /* offset of the previous good row of this pass */

	/* Storage behind a row's borrowed pointers. */
	cJSON *doc;
	char *messages_json;
	struct gl_buf prompt;
	int64_t *hash;

	char msg[160];            /* what was wrong with the current row, when formatted */
	bool pass_done;           /* EOF of this pass already counted */
	uint64_t counted_upto;    /* highest line number already counted */
	uint64_t n_logged;
	struct gl_trace_stats st;
	struct gl_err err;
};

const char *gl_trace_format_name(enum gl_trace_format f)
{
	switch (f) {
	case GL_TRACE_AUTO: return "auto";
	case GL_TRACE_AZURE: return "azure";
	case GL_TRACE_BURSTGPT: return "burstgpt";
	case GL_TRACE_MOONCAKE: return "mooncake";
	case GL_TRACE_PROMPTS: return "prompts";
	}
	return "unknown";
}

int gl_trace_format_parse(const char *name)
{
	static const enum gl_trace_format all[] = { GL_TRACE_AUTO, GL_TRACE_AZURE,
		GL_TRACE_BURSTGPT, GL_TRACE_MOONCAKE, GL_TRACE_PROMPTS };

	for (size_t i = 0; name && i < GL_ARRAY_LEN(all); i++)
		if (strcmp(name, gl_trace_format_name(all[i])) == 0)
			return (int)all[i];
	return -1;
}

/* ---- reading lines ------------------------------------------------------ */

static int src_refill(struct gl_trace *t)
{
	ssize_t n;

	if (t->fd < 0 || t->eof)
		return 0;
	do
		n = read(t->fd, t->rbuf, READ_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return gl_errf(&t->err, GL_EIO, "trace %s: read: %s", t->name, strerror(errno));
	if (n == 0) {
		t->eof = true;
		return 0;
	}
	t->rlen = (size_t)n;
	t->rpos = 0;
	return 1;
}

static void buf_clear(struct gl_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

/* The next line into t->line. Returns 1, 0 at end of input, or < 0. */
static int read_line(struct gl_trace *t)
{
	bool got = false;

	if (t->hold) {
		t->hold = false;
		return 1;
	}
	buf_clear(&t->line);
	t->overlong = false;
	for (;;) {
		const char *s, *nl;
		size_t avail, take;

		if (t->rpos == t->rlen) {
			int rc = src_refill(t);
			if (rc < 0)
				return rc;
			if (rc == 0) {
				if (!got)
					return 0;
				break;
			}
		}
		s = t->rbuf + t->rpos;
		avail = t->rlen - t->rpos;
		nl = memchr(s, '\n', avail);
		take = nl ? (size_t)(nl - s) : avail;
		got = true;
		if (!t->overlong) {
			/* One byte over the cap is allowed for a CR before the LF. */
			if (t->line.len + take > GL_TRACE_MAX_LINE + 1) {
				t->overlong = true;
			} else if (gl_buf_append(&t->line, s, take) < 0) {
				return gl_errf(&t->err, GL_ENOMEM, "trace %s: out of memory",
					       t->name);
			}
		}
		t->rpos += take + (nl ? 1 : 0);
		if (nl)
			break;
	}
	t->line_no++;
	if (!t->overlong && t->line.len && t->line.data[t->line.len - 1] == '\r')
		t->line.data[--t->line.len] = '\0';
	if (t->line.len > GL_TRACE_MAX_LINE)
		t->overlong = true;
	if (t->line_no == 1 && t->line.len >= 3 && memcmp(t->line.data, "\xEF\xBB\xBF", 3) == 0) {
		memmove(t->line.data, t->line.data + 3, t->line.len - 2);
		t->line.len -= 3;
	}
	if (!t->line.data)
		gl_buf_append(&t->line, "", 0);
	return 1;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* The next non-blank line; overlong lines count as non-blank. */
static int read_nonblank(struct gl_trace *t)
{
	int rc;

	while ((rc = read_line(t)) == 1)
		if (t->overlong || !blank(t->line.data, t->line.len))
			break;
	return rc;
}

/* ---- bad rows ----------------------------------------------------------- */

static bool first_time(const struct gl_trace *t)
{
	return t->line_no > t->counted_upto;
}

static void bad_row(struct gl_trace *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void bad_row(struct gl_trace *t, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (!first_time(t))
		return;
	t->st.malformed++;
	if (t->n_logged > GL_TRACE_LOG_MALFORMED)
		return;
	t->n_logged++;
	if (t->n_logged > GL_TRACE_LOG_MALFORMED) {
		gl_warn("trace %s: more malformed rows; no longer logged, only counted", t->name);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	gl_warn("trace %s:%llu: %s (row skipped)", t->name, (unsigned long long)t->line_no, what);
}

/* ---- numbers and times -------------------------------------------------- */

/* A token count: digits, optionally ".0...", at most GL_TRACE_MAX_TOKENS. */
static const char *parse_count(const char *s, size_t n, int64_t *out)
{
	int64_t v = 0;
	size_t i = 0;

	if (n == 0)
		return "empty token count";
	if (s[0] == '-')
		return "negative token count";
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		v = v * 10 + (s[i] - '0');
		if (v > GL_TRACE_MAX_TOKENS)
			return "token count too large";
	}
	if (i == 0)
		return "token count is not a number";
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] == '0'; i++)
			;
	}
	if (i != n)
		return "token count is not an integer";
	*out = v;
	return NULL;
}

/* A JSON token count. */
static const char *json_count(const cJSON *v, int64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return "token count is not a number";
	d = v->valuedouble;
	if (!isfinite(d))
		return "token count is not finite";
	if (d < 0)
		return "negative token count";
	if (d != floor(d))
		return "token count is not an integer";
	if (d > (double)GL_TRACE_MAX_TOKENS)
		return "token count too large";
	*out = (int64_t)d;
	return NULL;
}

/* A number of units (seconds: unit_ns 1e9; ms: 1e6) in decimal text, kept
 * exact to the nanosecond when written without an exponent. */
static const char *parse_decimal_ns(const char *s, size_t n, int64_t unit_ns, int64_t *out)
{
	char text[NUM_TEXT_MAX];
	size_t i = 0;
	bool neg = false, digits = false;
	int64_t whole = 0, frac = 0, frac_scale = unit_ns;

	if (n == 0)
		return "empty timestamp";
	if (n >= sizeof(text))
		return "timestamp text too long";
	if (s[i] == '-' || s[i] == '+')
		neg = s[i++] == '-';
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		digits = true;
		whole = whole * 10 + (s[i] - '0');
		if (whole > TS_LIMIT_NS / unit_ns)
			return "timestamp out of range";
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			digits = true;
			if (frac_scale >= 10) {
				frac_scale /= 10;
				frac += (s[i] - '0') * frac_scale;
			}
		}
	}
	if (i == n && digits) {
		*out = (whole * unit_ns + frac) * (neg ? -1 : 1);
		return NULL;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E') && digits) {
		/* Exponent form: exact enough through a double. */
		char *end;
		double d;
		memcpy(text, s, n);
		text[n] = '\0';
		errno = 0;
		d = strtod(text, &end);
		if (*end || errno || !isfinite(d))
			return "bad timestamp number";
		d *= (double)unit_ns;
		if (fabs(d) > (double)TS_LIMIT_NS)
			return "timestamp out of range";
		*out = llround(d);
		return NULL;
	}
	return "timestamp is not a number";
}

static const char *json_time_ns(const cJSON *v, int64_t unit_ns, int64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return "timestamp is not a number";
	d = v->valuedouble * (double)unit_ns;
	if (!isfinite(d) || fabs(d) > (double)TS_LIMIT_NS)
		return "timestamp out of range";
	*out = llround(d);
	return NULL;
}

static int64_t days_from_civil(int64_t y, int m, int d)
{
	/* Howard Hinnant's algorithm: days since 1970-01-01, proleptic Gregorian. */
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool digits_at(const char *s, size_t n, size_t at, size_t k, unsigned *out)
{
	unsigned v = 0;

	if (at + k > n)
		return false;
	for (size_t i = at; i < at + k; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return true;
}

/* "YYYY-MM-DD HH:MM:SS[.f...][Z|+HH:MM|+HHMM|+HH]" to ns since the epoch. */
static const char *parse_datetime(const char *s, size_t n, int64_t *out)
{
	static const unsigned mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned y, mo, d, h, mi, sec, tzh = 0, tzm = 0;
	int64_t frac = 0, scale = 1000000000, secs;
	size_t i = 19;
	int tz_sign = 0;

	if (!digits_at(s, n, 0, 4, &y) || n < 19 || s[4] != '-' ||
	    !digits_at(s, n, 5, 2, &mo) || s[7] != '-' || !digits_at(s, n, 8, 2, &d) ||
	    (s[10] != ' ' && s[10] != 'T') || !digits_at(s, n, 11, 2, &h) || s[13] != ':' ||
	    !digits_at(s, n, 14, 2, &mi) || s[16] != ':' || !digits_at(s, n, 17, 2, &sec))
		return "bad timestamp (want YYYY-MM-DD HH:MM:SS[.fraction][+HH:MM])";
	if (y < 1970 || y > 2095)
		return "timestamp year out of range";
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)))
		return "bad timestamp date";
	if (h > 23 || mi > 59 || sec > 59)
		return "bad timestamp time of day";
	if (i < n && s[i] == '.') {
		size_t start = ++i;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			if (scale >= 10) {
				scale /= 10;
				frac += (s[i] - '0') * scale;
			}
		}
		if (i == start)
			return "bad timestamp fraction";
	}
	if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
		i++;
	} else if (i < n && (s[i] == '+' || s[i] == '-')) {
		tz_sign = s[i] == '-' ? -1 : 1;
		if (!digits_at(s, n, i + 1, 2, &tzh))
			return "bad timestamp zone";
		i += 3;
		if (i < n && s[i] == ':' && ++i == n)
			return "bad timestamp zone";
		if (i < n) {
			if (!digits_at(s, n, i, 2, &tzm))
				return "bad timestamp zone";
			i += 2;
		}
		if (tzh > 23 || tzm > 59)
			return "bad timestamp zone";
	}
	if (i != n)
		return "trailing characters after timestamp";
	secs = days_from_civil(y, (int)mo, (int)d) * 86400 + h * 3600 + mi * 60 + sec;
	secs -= tz_sign * (int64_t)(tzh * 3600 + tzm * 60);
	*out = secs * 1000000000 + frac;
	return NULL;
}

/* Offset of a row from the first good row, clamped against going back.
 * Only called once everything else in the row is known good. */
static const char *apply_time(struct gl_trace *t, int64_t ts_ns, struct gl_trace_row *row)
{
	int64_t off;

	if (ts_ns > TS_LIMIT_NS || ts_ns < -TS_LIMIT_NS)
		return "timestamp out of range";
	off = t->have_first ? ts_ns - t->first_ns : 0;
	row->has_time = true;
	if (t->have_prev && off < t->prev_off_ns) {
		double back_s = (double)(t->prev_off_ns - off) / 1e9;
		if (back_s > t->backstep_tol_s) {
			snprintf(t->msg, sizeof(t->msg),
				 "timestamp goes back %.6f s (more than the %.3f s tolerance)",
				 back_s, t->backstep_tol_s);
			return t->msg;
		}
		off = t->prev_off_ns;
		row->time_clamped = true;
	} else if (!t->have_prev && off < 0) {
		off = 0;
		row->time_clamped = true;
	}
	if (!t->have_first) {
		t->have_first = true;
		t->first_ns = ts_ns;
	}
	t->have_prev = true;
	t->prev_off_ns = off;
	row->t_offset_s = (double)off / 1e9;
	return NULL;
}

/* ---- CSV ---------------------------------------------------------------- */

struct field {
	char *s;
	size_t n;
};

static bool is_sp(char c)
{
	return c == ' ' || c == '\t';
}

/* Split one line into fields, unquoting in place. Returns the number of
 * fields (more than max_f are counted, not stored) or -1 on bad quoting. */
static long csv_split(char *line, size_t len, struct field *f, size_t max_f)
{
	size_t i = 0, nf = 0;

	for (;;) {
		char *start;
		size_t n;

		while (i < len && is_sp(line[i]))
			i++;
		if (i < len && line[i] == '"') {
			char *w = line + i + 1;
			bool closed = false;
			start = w;
			for (i++; i < len; i++) {
				if (line[i] == '"') {
					if (i + 1 < len && line[i + 1] == '"') {
						*w++ = '"';
						i++;
					} else {
						closed = true;
						i++;
						break;
					}
				} else {
					*w++ = line[i];
				}
			}
			if (!closed)
				return -1;
			n = (size_t)(w - start);
			while (i < len && is_sp(line[i]))
				i++;
			if (i < len && line[i] != ',')
				return -1;
		} else {
			start = line + i;
			while (i < len && line[i] != ',')
				i++;
			n = (size_t)(line + i - start);
			while (n && is_sp(start[n - 1]))
				n--;
		}
		if (nf < max_f) {
			f[nf].s = start;
			f[nf].n = n;
		}
		nf++;
		if (i >= len)
			break;
		i++;   /* the comma */
	}
	return (long)nf;
}

static int find_col(const struct field *f, long nf, const char *name)
{
	for (long i = 0; i < nf && i < CSV_MAX_FIELDS; i++)
		if (f[i].n == strlen(name) && memcmp(f[i].s, name, f[i].n) == 0)
			return (int)i;
	return -1;
}

static const char *const azure_cols[3] = { "TIMESTAMP", "ContextTokens", "GeneratedTokens" };
static const char *const burst_cols[3] = { "Timestamp", "Request tokens", "Response tokens" };

/* Find the columns of fmt in the header line; for AUTO, pick the format. */
static int csv_header(struct gl_trace *t, enum gl_trace_format fmt, struct gl_err *err)
{
	struct field f[CSV_MAX_FIELDS];
	long nf = csv_split(t->line.data, t->line.len, f, CSV_MAX_FIELDS);
	const char *const *cols;
	int c[3];

	if (nf < 0)
		return gl_errf(err, GL_EINVAL, "trace %s:%llu: bad quoting in the CSV header",
			       t->name, (unsigned long long)t->line_no);
	if (fmt == GL_TRACE_AUTO) {
		if (find_col(f, nf, azure_cols[0]) >= 0)
			fmt = GL_TRACE_AZURE;
		else if (find_col(f, nf, burst_cols[0]) >= 0)
			fmt = GL_TRACE_BURSTGPT;
		else
			return gl_errf(err, GL_EINVAL,
				       "trace %s: unknown format: the first line is neither a JSON "
				       "object nor a CSV header with TIMESTAMP (Azure) or Timestamp "
				       "(BurstGPT)", t->name);
	}
	cols = fmt == GL_TRACE_AZURE ? azure_cols : burst_cols;
	for (int k = 0; k < 3; k++) {
		c[k] = find_col(f, nf, cols[k]);
		if (c[k] < 0)
			return gl_errf(err, GL_EINVAL,
				       "trace %s:%llu: the %s header has no \"%s\" column",
				       t->name, (unsigned long long)t->line_no,
				       gl_trace_format_name(fmt), cols[k]);
	}
	t->fmt = fmt;
	t->col_ts = c[0];
	t->col_in = c[1];
	t->col_out = c[2];
	t->n_cols = 1 + (c[0] > c[1] ? (c[0] > c[2] ? c[0] : c[2]) : (c[1] > c[2] ? c[1] : c[2]));
	return 0;
}

static const char *csv_row(struct gl_trace *t, struct gl_trace_row *row)
{
	struct field f[CSV_MAX_FIELDS];
	long nf = csv_split(t->line.data, t->line.len, f, CSV_MAX_FIELDS);
	const char *why;
	int64_t ts_ns = 0;
	const char *const *cols = t->fmt == GL_TRACE_AZURE ? azure_cols : burst_cols;

	if (nf < 0)
		return "bad CSV quoting";
	if (nf < t->n_cols) {
		int missing = t->col_ts >= nf ? 0 : t->col_in >= nf ? 1 : 2;
		snprintf(t->msg, sizeof(t->msg), "missing column \"%s\" (%ld of %d fields)",
			 cols[missing], nf, t->n_cols);
		return t->msg;
	}
	if ((why = parse_count(f[t->col_in].s, f[t->col_in].n, &row->input_tokens)) ||
	    (why = parse_count(f[t->col_out].s, f[t->col_out].n, &row->output_tokens)))
		return why;
	if (t->fmt == GL_TRACE_AZURE)
		why = parse_datetime(f[t->col_ts].s, f[t->col_ts].n, &ts_ns);
	else
		why = parse_decimal_ns(f[t->col_ts].s, f[t->col_ts].n, 1000000000, &ts_ns);
	if (why)
		return why;
	if (t->fmt == GL_TRACE_BURSTGPT)
		row->failed_in_trace = row->output_tokens == 0;
	return apply_time(t, ts_ns, row);
}

/* ---- JSONL -------------------------------------------------------------- */

/* Parse the current line as one JSON object; NULL with *why on failure. */
static cJSON *json_line(struct gl_trace *t, const char **why)
{
	const char *end = NULL;
	cJSON *doc;

	if (!gl_utf8_valid(t->line.data, t->line.len)) {
		*why = "not valid UTF-8 (or a NUL byte)";
		return NULL;
	}
	doc = cJSON_ParseWithOpts(t->line.data, &end, 0);
	if (!doc) {
		*why = "invalid JSON";
		return NULL;
	}
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	if (*end) {
		*why = "trailing characters after the JSON value";
		cJSON_Delete(doc);
		return NULL;
	}
	if (!cJSON_IsObject(doc)) {
		*why = "line is not a JSON object";
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

static const cJSON *member(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return v && !cJSON_IsNull(v) ? v : NULL;
}

static const char *mooncake_row(struct gl_trace *t, const cJSON *doc, struct gl_trace_row *row)
{
	const cJSON *ts = member(doc, "timestamp"), *in = member(doc, "input_length");
	const cJSON *out = member(doc, "output_length"), *h = member(doc, "hash_ids"), *e;
	const char *why;
	int64_t ts_ns;
	size_t n = 0;

	if (!ts)
		return "missing \"timestamp\"";
	if (!in)
		return "missing \"input_length\"";
	if (!out)
		return "missing \"output_length\"";
	if ((why = json_count(in, &row->input_tokens)) || (why = json_count(out, &row->output_tokens)))
		return why;
	if ((why = json_time_ns(ts, 1000000, &ts_ns)))
		return why;
	if (h) {
		if (!cJSON_IsArray(h))
			return "hash_ids is not an array";
		if (cJSON_GetArraySize(h) > GL_TRACE_MAX_HASH_IDS) {
			snprintf(t->msg, sizeof(t->msg), "more than %d hash_ids",
				 GL_TRACE_MAX_HASH_IDS);
			return t->msg;
		}
		if (!t->hash && !(t->hash = malloc(GL_TRACE_MAX_HASH_IDS * sizeof(*t->hash))))
			return "out of memory for hash_ids";
		cJSON_ArrayForEach(e, h) {
			double d;
			if (!cJSON_IsNumber(e))
				return "hash id is not a number";
			d = e->valuedouble;
			if (!isfinite(d) || d != floor(d) || fabs(d) > 9007199254740992.0)
				return "hash id is not an exact integer";
			t->hash[n++] = (int64_t)d;
		}
		row->hash_ids = t->hash;
		row->n_hash_ids = n;
	}
	return apply_time(t, ts_ns, row);
}

static uint64_t count_words(const char *s, size_t n)
{
	uint64_t w = 0;
	bool in = false;

	for (size_t i = 0; i < n; i++) {
		bool sp = s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' ||
			  s[i] == '\v' || s[i] == '\f';
		if (!sp && !in)
			w++;
		in = !sp;
	}
	return w;
}

static const char *append_text(struct gl_trace *t, const char *s)
{
	if (t->prompt.len && gl_buf_append(&t->prompt, "\n", 1) < 0)
		return "prompt text too long";
	if (gl_buf_append(&t->prompt, s, strlen(s)) < 0)
		return "prompt text too long";
	return NULL;
}

static const char *messages_text(struct gl_trace *t, const cJSON *msgs)
{
	const cJSON *m;
	const char *why;

	if (!cJSON_IsArray(msgs) || cJSON_GetArraySize(msgs) == 0)
		return "messages is not a non-empty array";
	cJSON_ArrayForEach(m, msgs) {
		const cJSON *role, *content;
		if (!cJSON_IsObject(m))
			return "a message is not an object";
		role = member(m, "role");
		if (!cJSON_IsString(role))
			return "a message has no role";
		content = member(m, "content");
		if (!content)
			continue;   /* e.g. an assistant turn with tool calls only */
		if (cJSON_IsString(content)) {
			if ((why = append_text(t, content->valuestring)))
				return why;
		} else if (cJSON_IsArray(content)) {
			const cJSON *part;
			cJSON_ArrayForEach(part, content) {
				const cJSON *type, *text;
				if (!cJSON_IsObject(part))
					return "a content part is not an object";
				type = member(part, "type");
				text = member(part, "text");
				if (cJSON_IsString(type) && strcmp(type->valuestring, "text") == 0) {
					if (!cJSON_IsString(text))
						return "a text part has no text";
					if ((why = append_text(t, text->valuestring)))
						return why;
				}
			}
		} else {
			return "message content is neither a string nor an array";
		}
	}
	return NULL;
}

static const char *prompts_row(struct gl_trace *t, const cJSON *doc, struct gl_trace_row *row)
{
	const cJSON *p = member(doc, "prompt"), *msgs = member(doc, "messages");
	const cJSON *ts = member(doc, "timestamp");
	const cJSON *out = member(doc, "output_tokens");
	const char *why;
	int64_t ts_ns = 0;

	if (!out)
		out = member(doc, "max_tokens");
	if (!p && !msgs)
		return "neither \"prompt\" nor \"messages\"";
	buf_clear(&t->prompt);
	if (p) {
		if (!cJSON_IsString(p))
			return "prompt is not a string";
		if ((why = append_text(t, p->valuestring)))
			return why;
	}
	if (msgs) {
		if (p) {
			/* Keep the prompt's text; the messages still must be sound. */
			size_t keep = t->prompt.len;
			why = messages_text(t, msgs);
			t->prompt.len = keep;
			t->prompt.data[keep] = '\0';
		} else {
			why = messages_text(t, msgs);
		}
		if (why)
			return why;
		if (!(t->messages_json = cJSON_PrintUnformatted(msgs)))
			return "out of memory for messages";
		row->messages_json = t->messages_json;
	}
	if (out && (why = json_count(out, &row->output_tokens)))
		return why;
	if (ts && (why = json_time_ns(ts, 1000000000, &ts_ns)))
		return why;
	if (!t->prompt.data)
		gl_buf_append(&t->prompt, "", 0);
	row->prompt = t->prompt.data;
	row->prompt_len = t->prompt.len;
	row->input_tokens = (int64_t)count_words(t->prompt.data, t->prompt.len);
	row->input_estimated = true;
	if (ts)
		return apply_time(t, ts_ns, row);
	return NULL;
}

/* ---- rows --------------------------------------------------------------- */

static void release_row(struct gl_trace *t)
{
	cJSON_Delete(t->doc);
	t->doc = NULL;
	cJSON_free(t->messages_json);
	t->messages_json = NULL;
}

static void row_init(struct gl_trace_row *row, uint64_t line_no)
{
	memset(row, 0, sizeof(*row));
	row->row_number = line_no;
	row->input_tokens = -1;
	row->output_tokens = -1;
}

/* One data line into *row; NULL when good, else what was wrong. */
static const char *parse_row(struct gl_trace *t, struct gl_trace_row *row)
{
	const char *why = NULL;

	row_init(row, t->line_no);
	if (t->overlong) {
		snprintf(t->msg, sizeof(t->msg), "line longer than %u bytes", GL_TRACE_MAX_LINE);
		return t->msg;
	}
	switch (t->fmt) {
	case GL_TRACE_AZURE:
	case GL_TRACE_BURSTGPT:
		return csv_row(t, row);
	case GL_TRACE_MOONCAKE:
	case GL_TRACE_PROMPTS:
		if (!(t->doc = json_line(t, &why)))
			return why;
		if (t->fmt == GL_TRACE_MOONCAKE)
			return mooncake_row(t, t->doc, row);
		return prompts_row(t, t->doc, row);
	case GL_TRACE_AUTO:
		break;
	}
	return "no format";
}

int gl_trace_next(struct gl_trace *t, struct gl_trace_row *row)
{
	int rc;

	if (t->err.code)
		return -t->err.code;
	for (;;) {
		const char *why;
		bool fresh;

		release_row(t);
		rc = read_line(t);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			if (!t->pass_done) {
				t->pass_done = true;
				t->st.passes++;
				t->st.span_s = t->have_prev ? (double)t->prev_off_ns / 1e9 : 0.0;
			}
			return 0;
		}
		if (!t->overlong && blank(t->line.data, t->line.len))
			continue;
		fresh = first_time(t);
		why = parse_row(t, row);
		if (why) {
			bad_row(t, "%s", why);
		} else {
			if (row->time_clamped && fresh)
				t->st.clamped++;
			if (row->failed_in_trace)
				t->st.failed_in_trace++;
			t->st.rows++;
		}
		if (t->line_no > t->counted_upto)
			t->counted_upto = t->line_no;
		if (!why)
			return 1;
	}
}

/* ---- open / rewind / close ---------------------------------------------- */

static enum gl_trace_format detect_jsonl(const char *line)
{
	enum gl_trace_format f = GL_TRACE_AUTO;
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithOpts(line, &end, 0);

	if (cJSON_IsObject(doc)) {
		if (cJSON_GetObjectItemCaseSensitive(doc, "hash_ids") ||
		    cJSON_GetObjectItemCaseSensitive(doc, "input_length"))
			f = GL_TRACE_MOONCAKE;
		else if (cJSON_GetObjectItemCaseSensitive(doc, "prompt") ||
			 cJSON_GetObjectItemCaseSensitive(doc, "messages"))
			f = GL_TRACE_PROMPTS;
	} else if (!doc) {
		/* A broken first row: go by the keys it names. */
		if (strstr(line, "\"hash_ids\"") || strstr(line, "\"input_length\""))
			f = GL_TRACE_MOONCAKE;
		else if (strstr(line, "\"prompt\"") || strstr(line, "\"messages\""))
			f = GL_TRACE_PROMPTS;
	}
	cJSON_Delete(doc);
	return f;
}

/* Read up to the first row: the CSV header, or hold the first JSONL line. */
static int start_pass(struct gl_trace *t, enum gl_trace_format fmt, struct gl_err *err)
{
	int rc = read_nonblank(t);
	size_t i = 0;

	if (rc < 0)
		return gl_errf(err, -rc, "%s", t->err.msg);
	if (rc == 0) {
		if (fmt == GL_TRACE_MOONCAKE || fmt == GL_TRACE_PROMPTS) {
			t->fmt = fmt;
			return 0;   /* an empty JSONL trace has no rows, which is fine */
		}
		return gl_errf(err, GL_EINVAL, "trace %s: empty file", t->name);
	}
	if (fmt == GL_TRACE_MOONCAKE || fmt == GL_TRACE_PROMPTS) {
		/* Forced JSONL: even a bad first line is just a bad row. */
		t->fmt = fmt;
		t->hold = true;
		return 0;
	}
	if (t->overlong)
		return gl_errf(err, GL_EINVAL, "trace %s:%llu: first line longer than %u bytes",
			       t->name, (unsigned long long)t->line_no, GL_TRACE_MAX_LINE);
	while (i < t->line.len && is_sp(t->line.data[i]))
		i++;
	if (fmt == GL_TRACE_AUTO && i < t->line.len && t->line.data[i] == '{') {
		fmt = detect_jsonl(t->line.data);
		if (fmt == GL_TRACE_AUTO)
			return gl_errf(err, GL_EINVAL,
				       "trace %s: unknown JSONL format: the first object has neither "
				       "hash_ids/input_length (Mooncake) nor prompt/messages", t->name);
	}
	if (fmt == GL_TRACE_MOONCAKE || fmt == GL_TRACE_PROMPTS) {
		t->fmt = fmt;
		t->hold = true;
		return 0;
	}
	return csv_header(t, fmt, err);
}

static struct gl_trace *trace_new(const char *name, struct gl_err *err)
{
	struct gl_trace *t = calloc(1, sizeof(*t));

	if (!t || !(t->name = strdup(name ? name : "(memory)"))) {
		free(t);
		gl_errf(err, GL_ENOMEM, "trace: out of memory");
		return NULL;
	}
	t->fd = -1;
	t->backstep_tol_s = 1.0;
	t->st.span_s = -1;
	gl_buf_init(&t->line, GL_TRACE_MAX_LINE + 1);
	/* Message texts joined with '\n' stay within twice the line. */
	gl_buf_init(&t->prompt, 2 * (size_t)GL_TRACE_MAX_LINE);
	return t;
}

static struct gl_trace *trace_start(struct gl_trace *t, enum gl_trace_format fmt,
				    struct gl_err *err)
{
	if (fmt != GL_TRACE_AUTO && fmt != GL_TRACE_AZURE && fmt != GL_TRACE_BURSTGPT &&
	    fmt != GL_TRACE_MOONCAKE && fmt != GL_TRACE_PROMPTS) {
		gl_errf(err, GL_EINVAL, "trace %s: unknown format %d", t->name, (int)fmt);
		goto fail;
	}
	if (start_pass(t, fmt, err) < 0)
		goto fail;
	return t;
fail:
	gl_trace_close(t);
	return NULL;
}

struct gl_trace *gl_trace_open(const char *path, enum gl_trace_format fmt, struct gl_err *err)
{
	struct gl_trace *t = trace_new(path, err);

	if (!t)
		return NULL;
	{
		/* a FIFO would block open and every read: regular files only */
		struct gl_err e = { 0 };
		t->fd = gl_open_regular(path, &e);
		if (t->fd < 0) {
			t->fd = -1;
			gl_errf(err, e.code, "trace %s", e.msg);
			gl_trace_close(t);
			return NULL;
		}
	}
	if (!(t->rbuf = malloc(READ_CHUNK))) {
		gl_errf(err, GL_ENOMEM, "trace %s: out of memory", path);
		gl_trace_close(t);
		return NULL;
	}
	return trace_start(t, fmt, err);
}

struct gl_trace *gl_trace_open_mem(const void *data, size_t len, const char *name,
				   enum gl_trace_format fmt, struct gl_err *err)
{
	struct gl_trace *t = trace_new(name, err);

	if (!t)
		return NULL;
	t->rbuf = (char *)data;   /* never written through: fd < 0 */
	t->rlen = data ? len : 0;
	t->eof = true;
	return trace_start(t, fmt, err);
}

int gl_trace_rewind(struct gl_trace *t)
{
	struct gl_err err = { 0 };
	int rc;

	release_row(t);
	if (t->fd >= 0) {
		if (lseek(t->fd, 0, SEEK_SET) < 0)
			return gl_errf(&t->err, GL_EIO, "trace %s: cannot rewind: %s", t->name,
				       strerror(errno));
		t->rlen = t->rpos = 0;
		t->eof = false;
	} else {
		t->rpos = 0;
	}
	t->line_no = 0;
	t->hold = false;
	t->have_prev = false;
	t->pass_done = false;
	gl_err_clear(&t->err);
	rc = start_pass(t, t->fmt, &err);
	if (rc < 0)
		return gl_errf(&t->err, err.code, "%s", err.msg);
	return 0;
}

int gl_trace_measure(struct gl_trace *t)
{
	struct gl_trace_row row;
	int rc;

	while ((rc = gl_trace_next(t, &row)) == 1)
		;
	if (rc < 0)
		return rc;
	return gl_trace_rewind(t);
}

const char *gl_trace_error(const struct gl_trace *t)
{
	return t->err.msg;
}

enum gl_trace_format gl_trace_format(const struct gl_trace *t)
{
	return t->fmt;
}

uint64_t gl_trace_malformed_count(const struct gl_trace *t)
{
	return t->st.malformed;
}

double gl_trace_span_s(const struct gl_trace *t)
{
	return t->st.span_s;
}

void gl_trace_get_stats(const struct gl_trace *t, struct gl_trace_stats *out)
{
	*out = t->st;
}

void gl_trace_set_backstep_tolerance(struct gl_trace *t, double seconds)
{
	t->backstep_tol_s = isfinite(seconds) && seconds > 0 ? seconds : 0;
}

void gl_trace_close(struct gl_trace *t)
{
	if (!t)
		return;
	release_row(t);
	if (t->fd >= 0) {
		close(t->fd);
		free(t->rbuf);
	}
	gl_buf_free(&t->line);
	gl_buf_free(&t->prompt);
	free(t->hash);
	free(t->name);
	free(t);
}

/* ---- prompt synthesis --------------------------------------------------- */

/* Common short words; each one is a single token in typical BPE vocabularies
 * when preceded by a space. */
static const char *const vocab[] = {
	"the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with",
	"be", "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which",
	"but", "have", "an", "had", "they", "you", "were", "their", "one", "all", "we",
	"can", "her", "has", "there", "been", "if", "more", "when", "will", "would", "who",
	"so", "no", "she", "other", "its", "may", "these", "what", "them", "than", "some",
	"him", "time", "into", "only", "do", "out", "new", "about", "two", "could", "then",
	"first", "any", "my", "now", "such", "like", "our", "over", "man", "me", "even",
	"most", "made", "after", "also", "did", "many", "before", "must", "through", "back",
	"years", "where", "much", "your", "way", "well", "down", "should", "because", "each",
	"just", "those", "people", "how", "too", "little", "state", "good", "very", "make",
	"world", "still", "own", "see", "men", "work", "long", "get", "here", "between",
	"both", "life", "being", "under", "never", "day", "same", "another", "know", "while",
	"last", "might", "us", "great", "old", "year", "off", "come", "since", "against",
	"go", "came", "right", "used", "take", "three", "small", "water", "light", "house",
	"part", "place", "point", "hand", "high", "city", "line", "number", "name", "word",
	"found", "game", "music", "river", "table", "plant", "order", "model", "data", "text",
	"power", "level", "field", "group", "story", "paper", "value", "money", "voice", "green",
	"space", "north", "south", "east", "west", "stone", "cloud", "glass", "metal", "train",
	"road", "door", "tree", "fire", "wind", "rain", "snow", "sun", "moon", "star", "sea",
	"ship", "boat", "car", "bird", "fish", "dog", "cat", "horse", "food", "bread", "milk",
	"tea", "book", "page", "song", "art", "film", "show", "board", "chair", "room", "wall",
	"floor", "yard", "farm", "town", "market", "price", "cost", "rate", "plan", "test",
	"run", "step", "path", "map", "key", "lock", "code", "file", "disk", "node", "link",
	"port", "rack", "fan", "heat", "cold", "warm", "cool", "dark", "bright", "quiet", "loud",
};

static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static int synth_words(uint64_t state, size_t n, bool *first, struct gl_buf *out)
{
	int rc;

	for (size_t i = 0; i < n; i++) {
		const char *w;
		state = mix64(state);
		w = vocab[state % GL_ARRAY_LEN(vocab)];
		if (!*first && (rc = gl_buf_append(out, " ", 1)) < 0)
			return rc;
		*first = false;
		if ((rc = gl_buf_append(out, w, strlen(w))) < 0)
			return rc;
	}
	return 0;
}

int gl_prompt_synth(uint64_t seed, uint64_t request_index, unsigned n_tokens,
		    const int64_t *hash_ids, size_t n_hash, size_t block_tokens,
		    struct gl_buf *out)
{
	size_t old_len = out->len, done = 0;
	bool first = true;
	int rc = 0;

	if (n_hash && (!hash_ids || block_tokens == 0))
		return -GL_EINVAL;
	for (size_t b = 0; b < n_hash && done < n_tokens; b++) {
		size_t n = n_tokens - done < block_tokens ? n_tokens - done : block_tokens;
		/* Block text from the hash id alone: same id, same words. */
		uint64_t st = mix64((uint64_t)hash_ids[b] ^ 0x6A09E667F3BCC908ULL);
		if ((rc = synth_words(st, n, &first, out)) < 0)
			goto fail;
		done += n;
	}
	if (done < n_tokens) {
		uint64_t st = mix64(seed ^ mix64(request_index ^ 0xBB67AE8584CAA73BULL));
		if ((rc = synth_words(st, n_tokens - done, &first, out)) < 0)
			goto fail;
	}
	if (!out->data && (rc = gl_buf_append(out, "", 0)) < 0)
		goto fail;
	out->data[out->len] = '\0';   /* also when the caller reset len by hand */
	return 0;
fail:
	out->len = old_len;
	if (out->data)
		out->data[old_len] = '\0';
	return rc;
}
