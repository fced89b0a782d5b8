/*
 * prom.c - the Prometheus text format parser of prom.h. One pass over the
 * body, line by line; each sample line is decoded into a scratch buffer
 * sized from the line cap (names and unescaped label values are never
 * longer than the line they come from), so memory does not depend on the
 * input. Errors name the line and column but never echo the body's bytes,
 * which come from a server we do not trust and may hold control characters.
 */
#include "prom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEF_MAX_BODY (16u << 20)
#define DEF_MAX_LINE (64u << 10)
#define DEF_MAX_LABELS 64
#define DEF_MAX_SAMPLES 1000000u
#define MAX_NUMBER_TOKEN 64

const char *gl_prom_class_name(enum gl_prom_class c)
{
	static const char *const names[] = { "ok",     "syntax",    "name",      "label",  "value",   "meta",
					     "binary", "body_size", "line_size", "labels", "samples", "callback" };
	return (unsigned)c < GL_ARRAY_LEN(names) ? names[c] : "unknown";
}

struct parser {
	size_t max_line, max_samples;
	int max_labels;
	char *scratch; /* decoded name and label values of one line */
	size_t used;
	struct gl_prom_label *labels;
	char *type_name; /* family of the last # TYPE line */
	enum gl_prom_type type;
	int line;
	enum gl_prom_class cls; /* first error */
	int err_col;
	const char *err_what;
};

static int fail(struct parser *p, enum gl_prom_class cls, int col, const char *what)
{
	p->cls = cls;
	p->err_col = col;
	p->err_what = what;
	return -1;
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t';
}
static int is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
static int is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static size_t skip_ws(const char *s, size_t i, size_t n)
{
	while (i < n && is_ws(s[i]))
		i++;
	return i;
}

/* Copy s[a..b) into the scratch buffer, NUL-terminated. The buffer holds
 * 2 * max_line + 2 bytes and a line of n bytes never needs more than n + 1
 * plus one NUL per token, so this cannot overflow; the check is a guard. */
static char *keep(struct parser *p, const char *s, size_t a, size_t b)
{
	char *out;

	if (p->used + (b - a) + 1 > 2 * p->max_line + 2)
		return NULL;
	out = p->scratch + p->used;
	memcpy(out, s + a, b - a);
	out[b - a] = '\0';
	p->used += b - a + 1;
	return out;
}

/* A metric name at s[i..]: returns its end, or i when there is none. */
static size_t scan_name(const char *s, size_t i, size_t n, int colon_ok)
{
	size_t j = i;

	if (j < n && is_name_start(s[j]) && (colon_ok || s[j] != ':'))
		for (j++; j < n && is_name_char(s[j]) && (colon_ok || s[j] != ':'); j++)
			;
	return j;
}

/* Go's ParseFloat, as Prometheus uses it, reduced to what exporters print:
 * decimal floats and the words NaN and [+-]Inf(inity), any case. Hex floats
 * and strtod's "nan(...)" are refused so that the accepted set does not
 * depend on the C library. */
static int parse_value(const char *s, size_t n, double *out)
{
	char buf[MAX_NUMBER_TOKEN + 1];
	const char *w;
	char *end;
	int digits = 0;

	if (n == 0 || n > MAX_NUMBER_TOKEN)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	w = buf + (buf[0] == '+' || buf[0] == '-');
	if (!strcasecmp(w, "nan")) {
		*out = NAN;
		return 0;
	}
	if (!strcasecmp(w, "inf") || !strcasecmp(w, "infinity")) {
		*out = buf[0] == '-' ? -INFINITY : INFINITY;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		char c = buf[i];
		if (c >= '0' && c <= '9')
			digits++;
		else if (c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-')
			return -1;
	}
	if (!digits)
		return -1;
	*out = strtod(buf, &end);
	return *end == '\0' ? 0 : -1;
}

static int parse_timestamp(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	uint64_t v = 0;

	if (n > 0 && (s[0] == '-' || s[0] == '+'))
		neg = s[i++] == '-';
	if (i == n)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (UINT64_C(1) << 63) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > (UINT64_C(1) << 63) - !neg)
			return -1;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* "# HELP name text" / "# TYPE name type"; any other comment is ignored. */
static int parse_comment(struct parser *p, const char *s, size_t i, size_t n)
{
	static const char *const types[] = { "untyped", "counter", "gauge", "histogram", "summary" };
	size_t kw, ne, te;
	int is_type;

	i++; /* '#' */
	if (i >= n || !is_ws(s[i]))
		return 0;
	kw = skip_ws(s, i, n);
	if (n - kw >= 4 && !memcmp(s + kw, "TYPE", 4))
		is_type = 1;
	else if (n - kw >= 4 && !memcmp(s + kw, "HELP", 4))
		is_type = 0;
	else
		return 0;
	i = kw + 4;
	if (i < n && !is_ws(s[i]))
		return 0; /* "# HELPER": a comment */
	i = skip_ws(s, i, n);
	ne = scan_name(s, i, n, 1);
	if (ne == i || (ne < n && !is_ws(s[ne])))
		return fail(p, GL_PROM_E_META, (int)i + 1,
			    is_type ? "bad metric name in # TYPE" : "bad metric name in # HELP");
	if (!is_type)
		return 0; /* the help text itself is free-form */
	te = skip_ws(s, ne, n);
	for (size_t k = 0; k < GL_ARRAY_LEN(types); k++) {
		size_t l = strlen(types[k]);
		if (n - te >= l && !memcmp(s + te, types[k], l) && skip_ws(s, te + l, n) == n) {
			memcpy(p->type_name, s + i, ne - i);
			p->type_name[ne - i] = '\0';
			p->type = (enum gl_prom_type)k;
			return 0;
		}
	}
	return fail(p, GL_PROM_E_META, (int)te + 1,
		    "expected a type (counter, gauge, histogram, summary, untyped) in # TYPE");
}

/* The family type of a sample name: its own TYPE, or for histograms and
 * summaries the TYPE of the name without _bucket/_sum/_count. */
static enum gl_prom_type family_type(const struct parser *p, const char *name)
{
	size_t tl = strlen(p->type_name), nl = strlen(name);

	if (!tl || strncmp(name, p->type_name, tl))
		return GL_PROM_UNTYPED;
	if (nl == tl)
		return p->type;
	if (p->type == GL_PROM_HISTOGRAM || p->type == GL_PROM_SUMMARY) {
		const char *suf = name + tl;
		if (!strcmp(suf, "_sum") || !strcmp(suf, "_count") ||
		    (p->type == GL_PROM_HISTOGRAM && !strcmp(suf, "_bucket")))
			return p->type;
	}
	return GL_PROM_UNTYPED;
}

/* One label value starting after its opening quote at s[*i]: decoded into
 * scratch. Returns the decoded string or NULL (error recorded). */
static char *parse_label_value(struct parser *p, const char *s, size_t *i, size_t n)
{
	char *out = p->scratch + p->used, *o = out;
	size_t j = *i;

	for (;;) {
		char c;
		if (j >= n)
			return fail(p, GL_PROM_E_LABEL, (int)j + 1, "label value not closed by '\"'"), NULL;
		c = s[j++];
		if (c == '"')
			break;
		if (c == '\\') {
			if (j >= n)
				return fail(p, GL_PROM_E_LABEL, (int)j + 1, "escape at the end of the line"), NULL;
			c = s[j++];
			if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"')
				return fail(p, GL_PROM_E_LABEL, (int)j - 1,
					    "unknown escape in a label value (only \\\\, \\\" and \\n)"),
				       NULL;
		}
		*o++ = c;
	}
	*o = '\0';
	if (!gl_utf8_valid(out, (size_t)(o - out)))
		return fail(p, GL_PROM_E_LABEL, (int)*i + 1, "label value is not valid UTF-8"), NULL;
	p->used += (size_t)(o - out) + 1;
	*i = j;
	return out;
}

static int parse_sample(struct parser *p, const char *s, size_t i, size_t n, gl_prom_sample_fn fn, void *arg,
			size_t *n_samples)
{
	struct gl_prom_sample smp;
	size_t ne, ve;

	memset(&smp, 0, sizeof(smp));
	p->used = 0;
	ne = scan_name(s, i, n, 1);
	if (ne == i)
		return fail(p, GL_PROM_E_NAME, (int)i + 1, "expected a metric name");
	smp.name = keep(p, s, i, ne);
	i = ne;
	if (i < n && s[i] == '{') {
		i++;
		for (;;) {
			size_t le;
			char *lname, *lval;
			i = skip_ws(s, i, n);
			if (i < n && s[i] == '}') {
				i++;
				break;
			}
			le = scan_name(s, i, n, 0);
			if (le == i)
				return fail(p, GL_PROM_E_NAME, (int)i + 1, "expected a label name or '}'");
			if (smp.n_labels >= p->max_labels)
				return fail(p, GL_PROM_E_LABELS, (int)i + 1, "too many labels on one sample");
			lname = keep(p, s, i, le);
			i = skip_ws(s, le, n);
			if (i >= n || s[i] != '=')
				return fail(p, GL_PROM_E_LABEL, (int)i + 1, "expected '=' after a label name");
			i = skip_ws(s, i + 1, n);
			if (i >= n || s[i] != '"')
				return fail(p, GL_PROM_E_LABEL, (int)i + 1, "expected '\"' to open a label value");
			i++;
			if (!(lval = parse_label_value(p, s, &i, n)))
				return -1;
			for (int k = 0; k < smp.n_labels; k++)
				if (!strcmp(p->labels[k].name, lname))
					return fail(p, GL_PROM_E_LABEL, (int)le, "label name repeated in one sample");
			p->labels[smp.n_labels].name = lname;
			p->labels[smp.n_labels].value = lval;
			smp.n_labels++;
			i = skip_ws(s, i, n);
			if (i < n && s[i] == ',') {
				i++;
				continue;
			}
			if (i < n && s[i] == '}') {
				i++;
				break;
			}
			return fail(p, GL_PROM_E_LABEL, (int)i + 1, "expected ',' or '}' after a label value");
		}
	} else if (i < n && !is_ws(s[i])) {
		return fail(p, GL_PROM_E_NAME, (int)i + 1, "unexpected character in a metric name");
	}
	i = skip_ws(s, i, n);
	for (ve = i; ve < n && !is_ws(s[ve]); ve++)
		;
	if (ve == i)
		return fail(p, GL_PROM_E_SYNTAX, (int)i + 1, "expected a value after the metric");
	if (parse_value(s + i, ve - i, &smp.value) != 0)
		return fail(p, GL_PROM_E_VALUE, (int)i + 1, "value is not a number (or NaN, +Inf, -Inf)");
	i = skip_ws(s, ve, n);
	if (i < n) {
		size_t te;
		for (te = i; te < n && !is_ws(s[te]); te++)
			;
		if (parse_timestamp(s + i, te - i, &smp.timestamp_ms) != 0)
			return fail(p, GL_PROM_E_VALUE, (int)i + 1, "timestamp is not an integer of milliseconds");
		smp.has_timestamp = 1;
		i = skip_ws(s, te, n);
		if (i < n)
			return fail(p, GL_PROM_E_SYNTAX, (int)i + 1, "unexpected text after the timestamp");
	}
	if (*n_samples >= p->max_samples)
		return fail(p, GL_PROM_E_SAMPLES, 1, "more samples than the cap");
	smp.labels = p->labels;
	smp.type = family_type(p, smp.name);
	smp.line = p->line;
	(*n_samples)++;
	if (fn && fn(arg, &smp) != 0)
		return fail(p, GL_PROM_E_CALLBACK, 1, "stopped by the reader");
	return 0;
}

int gl_prom_parse(const char *text, size_t len, const struct gl_prom_limits *lim, gl_prom_sample_fn fn, void *arg,
		  struct gl_prom_result *res, struct gl_err *err)
{
	struct parser p;
	size_t max_body, at = 0, n_samples = 0;
	int rc = 0;

	memset(&p, 0, sizeof(p));
	max_body = lim && lim->max_body ? lim->max_body : DEF_MAX_BODY;
	p.max_line = lim && lim->max_line ? lim->max_line : DEF_MAX_LINE;
	p.max_labels = lim && lim->max_labels > 0 ? lim->max_labels : DEF_MAX_LABELS;
	p.max_samples = lim && lim->max_samples ? lim->max_samples : DEF_MAX_SAMPLES;
	if (res)
		memset(res, 0, sizeof(*res));
	if (len > max_body) {
		p.cls = GL_PROM_E_BODY_SIZE;
		rc = gl_errf(err, GL_ELIMIT, "body of %zu bytes is over the cap of %zu", len, max_body);
		goto out;
	}
	p.scratch = malloc(2 * p.max_line + 2);
	p.type_name = malloc(p.max_line + 1);
	p.labels = calloc((size_t)p.max_labels, sizeof(*p.labels));
	if (!p.scratch || !p.type_name || !p.labels) {
		rc = gl_errf(err, GL_ENOMEM, "prometheus parser: out of memory");
		goto out;
	}
	p.type_name[0] = '\0';
	while (at < len) {
		const char *s = text + at, *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at, i;

		at += n + (nl != NULL);
		p.line++;
		if (n > 0 && s[n - 1] == '\r')
			n--;
		if (n > p.max_line) {
			fail(&p, GL_PROM_E_LINE_SIZE, 1, "line longer than the cap");
			break;
		}
		if (memchr(s, '\0', n)) {
			fail(&p, GL_PROM_E_BINARY, (int)((const char *)memchr(s, '\0', n) - s) + 1,
			     "NUL byte: not a text exposition");
			break;
		}
		i = skip_ws(s, 0, n);
		if (i == n)
			continue;
		if (s[i] == '#' ? parse_comment(&p, s, i, n) != 0 : parse_sample(&p, s, i, n, fn, arg, &n_samples) != 0)
			break;
	}
	if (p.cls != GL_PROM_OK) {
		int code = p.cls == GL_PROM_E_CALLBACK    ? GL_ESTATE
			   : p.cls >= GL_PROM_E_BODY_SIZE ? GL_ELIMIT
							  : GL_EINVAL;
		rc = gl_errf(err, code, "line %d, column %d: %s (%s)", p.line, p.err_col, p.err_what,
			     gl_prom_class_name(p.cls));
	}
out:
	if (res) {
		res->cls = p.cls;
		res->line = p.cls == GL_PROM_E_BODY_SIZE ? 0 : (p.cls ? p.line : 0);
		res->samples = n_samples;
	}
	free(p.scratch);
	free(p.type_name);
	free(p.labels);
	return rc;
}

const char *gl_prom_label(const struct gl_prom_sample *s, const char *name)
{
	for (int i = 0; i < s->n_labels; i++)
		if (!strcmp(s->labels[i].name, name))
			return s->labels[i].value;
	return NULL;
}

int gl_dcgm_is_blank(double v)
{
	/* INT32 family: 0x7ffffff0 (BLANK) .. 0x7fffffff; exporters print int32
	 * blanks inside int64 fields too, so the range is tested on any value. */
	if (!isfinite(v))
		return 1;
	if (v >= 2147483632.0 && v <= 2147483647.0 && v == floor(v))
		return 1;
	/* FP64 family from 2^47 (and INT64 blanks, 0x7ffffffffffffff0 ~ 2^63). */
	return v >= 140737488355328.0;
}
