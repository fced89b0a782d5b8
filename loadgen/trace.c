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
 *
 * This file: the reader itself; what a line says is read in trace_rows.c,
 * prompts are made in trace_prompt.c (trace_int.h).
 */
#include "trace_int.h"

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
	static const enum gl_trace_format all[] = { GL_TRACE_AUTO, GL_TRACE_AZURE, GL_TRACE_BURSTGPT, GL_TRACE_MOONCAKE,
						    GL_TRACE_PROMPTS };

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

void tr_buf_clear(struct gl_buf *b)
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
	tr_buf_clear(&t->line);
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
				return gl_errf(&t->err, GL_ENOMEM, "trace %s: out of memory", t->name);
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

static void bad_row(struct gl_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
	case GL_TRACE_BURSTGPT: return tr_csv_row(t, row);
	case GL_TRACE_MOONCAKE:
	case GL_TRACE_PROMPTS:
		if (!(t->doc = tr_json_line(t, &why)))
			return why;
		if (t->fmt == GL_TRACE_MOONCAKE)
			return tr_mooncake_row(t, t->doc, row);
		return tr_prompts_row(t, t->doc, row);
	case GL_TRACE_AUTO: break;
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
			return 0; /* an empty JSONL trace has no rows, which is fine */
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
		return gl_errf(err, GL_EINVAL, "trace %s:%llu: first line longer than %u bytes", t->name,
			       (unsigned long long)t->line_no, GL_TRACE_MAX_LINE);
	while (i < t->line.len && tr_is_sp(t->line.data[i]))
		i++;
	if (fmt == GL_TRACE_AUTO && i < t->line.len && t->line.data[i] == '{') {
		fmt = detect_jsonl(t->line.data);
		if (fmt == GL_TRACE_AUTO)
			return gl_errf(err, GL_EINVAL,
				       "trace %s: unknown JSONL format: the first object has neither "
				       "hash_ids/input_length (Mooncake) nor prompt/messages",
				       t->name);
	}
	if (fmt == GL_TRACE_MOONCAKE || fmt == GL_TRACE_PROMPTS) {
		t->fmt = fmt;
		t->hold = true;
		return 0;
	}
	return tr_csv_header(t, fmt, err);
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

static struct gl_trace *trace_start(struct gl_trace *t, enum gl_trace_format fmt, struct gl_err *err)
{
	if (fmt != GL_TRACE_AUTO && fmt != GL_TRACE_AZURE && fmt != GL_TRACE_BURSTGPT && fmt != GL_TRACE_MOONCAKE &&
	    fmt != GL_TRACE_PROMPTS) {
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

struct gl_trace *gl_trace_open_mem(const void *data, size_t len, const char *name, enum gl_trace_format fmt,
				   struct gl_err *err)
{
	struct gl_trace *t = trace_new(name, err);

	if (!t)
		return NULL;
	t->rbuf = (char *)data; /* never written through: fd < 0 */
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
			return gl_errf(&t->err, GL_EIO, "trace %s: cannot rewind: %s", t->name, strerror(errno));
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
