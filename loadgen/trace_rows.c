/*
 * trace_rows.c - what a line of a trace says (trace.c has the whole story):
 * token counts, timestamps kept in integer nanoseconds (decimal seconds,
 * dates), the offset from the first good row, the CSV formats (Azure 2023
 * and 2024, BurstGPT) and the JSONL ones (Mooncake, prompts).
 */
#include "trace_int.h"

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

	if (!digits_at(s, n, 0, 4, &y) || n < 19 || s[4] != '-' || !digits_at(s, n, 5, 2, &mo) || s[7] != '-' ||
	    !digits_at(s, n, 8, 2, &d) || (s[10] != ' ' && s[10] != 'T') || !digits_at(s, n, 11, 2, &h) ||
	    s[13] != ':' || !digits_at(s, n, 14, 2, &mi) || s[16] != ':' || !digits_at(s, n, 17, 2, &sec))
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
			snprintf(t->msg, sizeof(t->msg), "timestamp goes back %.6f s (more than the %.3f s tolerance)",
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

bool tr_is_sp(char c)
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

		while (i < len && tr_is_sp(line[i]))
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
			while (i < len && tr_is_sp(line[i]))
				i++;
			if (i < len && line[i] != ',')
				return -1;
		} else {
			start = line + i;
			while (i < len && line[i] != ',')
				i++;
			n = (size_t)(line + i - start);
			while (n && tr_is_sp(start[n - 1]))
				n--;
		}
		if (nf < max_f) {
			f[nf].s = start;
			f[nf].n = n;
		}
		nf++;
		if (i >= len)
			break;
		i++; /* the comma */
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
int tr_csv_header(struct gl_trace *t, enum gl_trace_format fmt, struct gl_err *err)
{
	struct field f[CSV_MAX_FIELDS];
	long nf = csv_split(t->line.data, t->line.len, f, CSV_MAX_FIELDS);
	const char *const *cols;
	int c[3];

	if (nf < 0)
		return gl_errf(err, GL_EINVAL, "trace %s:%llu: bad quoting in the CSV header", t->name,
			       (unsigned long long)t->line_no);
	if (fmt == GL_TRACE_AUTO) {
		if (find_col(f, nf, azure_cols[0]) >= 0)
			fmt = GL_TRACE_AZURE;
		else if (find_col(f, nf, burst_cols[0]) >= 0)
			fmt = GL_TRACE_BURSTGPT;
		else
			return gl_errf(err, GL_EINVAL,
				       "trace %s: unknown format: the first line is neither a JSON "
				       "object nor a CSV header with TIMESTAMP (Azure) or Timestamp "
				       "(BurstGPT)",
				       t->name);
	}
	cols = fmt == GL_TRACE_AZURE ? azure_cols : burst_cols;
	for (int k = 0; k < 3; k++) {
		c[k] = find_col(f, nf, cols[k]);
		if (c[k] < 0)
			return gl_errf(err, GL_EINVAL, "trace %s:%llu: the %s header has no \"%s\" column", t->name,
				       (unsigned long long)t->line_no, gl_trace_format_name(fmt), cols[k]);
	}
	t->fmt = fmt;
	t->col_ts = c[0];
	t->col_in = c[1];
	t->col_out = c[2];
	t->n_cols = 1 + (c[0] > c[1] ? (c[0] > c[2] ? c[0] : c[2]) : (c[1] > c[2] ? c[1] : c[2]));
	return 0;
}

const char *tr_csv_row(struct gl_trace *t, struct gl_trace_row *row)
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
		snprintf(t->msg, sizeof(t->msg), "missing column \"%s\" (%ld of %d fields)", cols[missing], nf,
			 t->n_cols);
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
cJSON *tr_json_line(struct gl_trace *t, const char **why)
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

const char *tr_mooncake_row(struct gl_trace *t, const cJSON *doc, struct gl_trace_row *row)
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
			snprintf(t->msg, sizeof(t->msg), "more than %d hash_ids", GL_TRACE_MAX_HASH_IDS);
			return t->msg;
		}
		if (!t->hash && !(t->hash = malloc(GL_TRACE_MAX_HASH_IDS * sizeof(*t->hash))))
			return "out of memory for hash_ids";
		cJSON_ArrayForEach(e, h)
		{
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
		bool sp = s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f';
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
	cJSON_ArrayForEach(m, msgs)
	{
		const cJSON *role, *content;
		if (!cJSON_IsObject(m))
			return "a message is not an object";
		role = member(m, "role");
		if (!cJSON_IsString(role))
			return "a message has no role";
		content = member(m, "content");
		if (!content)
			continue; /* e.g. an assistant turn with tool calls only */
		if (cJSON_IsString(content)) {
			if ((why = append_text(t, content->valuestring)))
				return why;
		} else if (cJSON_IsArray(content)) {
			const cJSON *part;
			cJSON_ArrayForEach(part, content)
			{
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

const char *tr_prompts_row(struct gl_trace *t, const cJSON *doc, struct gl_trace_row *row)
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
	tr_buf_clear(&t->prompt);
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
