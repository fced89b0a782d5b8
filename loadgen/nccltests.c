/*
 * nccltests.c - parse nccl-tests text output and JSON reports into one
 * struct gl_nccl_result (see nccltests.h for the formats).
 *
 * Text is read line by line through one work buffer of GL_NCCL_MAX_LINE
 * bytes. The "# size count ..." header line becomes a layout: the kind of
 * each column, which half (out-of-place or in-place) it belongs to, and where
 * its label ends, since nccl-tests right-aligns each value under its label.
 * A table row is a line whose first two words are whole numbers; its cells
 * are read against the layout. When NCCL's log (or a failure message) is
 * glued to a row, the label ends tell where the last value stops and the
 * hostname of the log prefix starts; the row's first cells wait in a pending
 * slot for the rest, which nccl-tests prints on a later line. JSON goes
 * through cJSON after a pass that turns the bare inf nccl-tests' writer can
 * print into null.
 */
#include "nccltests.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define CELL_MAX 40                          /* bytes of one table cell, NUL included */
#define ROW_CELLS_MAX (2 * GL_NCCL_MAX_COLS)  /* a timestamp column takes two words */
#define U64_LIMIT 18446744073709551616.0     /* 2^64 */

/* ---- small helpers ------------------------------------------------------ */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Characters of the hostname in NCCL's "host:pid:tid [dev] NCCL" prefix and in
 * nccl-tests' failure lines (getHostName cuts the name at the first dot). */
static int is_host_char(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
	       c == '_';
}

/* The next whitespace-separated word of [*p, e): its bounds, or 0 at the end. */
static int next_word(const char **p, const char *e, const char **ws, const char **we)
{
	const char *s = *p;

	while (s < e && is_space(*s))
		s++;
	if (s >= e) {
		*p = e;
		return 0;
	}
	*ws = s;
	while (s < e && !is_space(*s))
		s++;
	*we = s;
	*p = s;
	return 1;
}

static int word_is(const char *ws, const char *we, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(we - ws) == n && memcmp(ws, lit, n) == 0;
}

static int all_digits(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!is_digit(s[i]))
			return 0;
	return 1;
}

/* Copy at most n-1 bytes of [s, s+len) into out, printable ASCII only. */
static void copy_printable(char *out, size_t n, const char *s, size_t len)
{
	size_t k = 0;

	if (n == 0)
		return;
	for (size_t i = 0; i < len && k + 1 < n; i++) {
		unsigned char c = (unsigned char)s[i];
		out[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	out[k] = '\0';
}

static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = strlen(s);

	if (!all_digits(s, n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int parse_int(const char *s, int *out)
{
	long long v = 0;
	int neg = 0;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!all_digits(s, strlen(s)))
		return -1;
	for (; *s; s++) {
		v = v * 10 + (*s - '0');
		if (v > (long long)INT_MAX + 1)
			return -1;
	}
	if (neg)
		v = -v;
	if (v < INT_MIN || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

/* A decimal number as printf writes it: [+-]digits[.digits][e[+-]digits].
 * inf and nan (any case, signed) are accepted and reported as non-finite. */
static int parse_num(const char *s, double *out)
{
	const char *p = s, *w;
	int mant = 0;

	if (*p == '+' || *p == '-')
		p++;
	w = p;
	if (strcasecmp(w, "inf") == 0 || strcasecmp(w, "infinity") == 0 ||
	    strcasecmp(w, "nan") == 0) {
		*out = NAN;
		return 0;
	}
	while (is_digit(*p)) {
		p++;
		mant = 1;
	}
	if (*p == '.') {
		p++;
		while (is_digit(*p)) {
			p++;
			mant = 1;
		}
	}
	if (!mant)
		return -1;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!is_digit(*p))
			return -1;
		while (is_digit(*p))
			p++;
	}
	if (*p)
		return -1;
	*out = strtod(s, NULL);
	return 0;
}

/* A measured value: -1 for absent, inf or nan. */
static double metric(double v)
{
	return isfinite(v) && v >= 0 ? v : -1;
}

static void sat_add(long *acc, long v)
{
	if (v > 0 && *acc > LONG_MAX - v)
		*acc = LONG_MAX;
	else
		*acc += v;
}

/* A whole, non-negative count given as a double (#wrong, nwrong). */
static int count_from_double(double d, long *out)
{
	if (!isfinite(d) || d < 0 || d != floor(d))
		return -1;
	*out = d >= (double)LONG_MAX ? LONG_MAX : (long)d;
	return 0;
}

/* ---- the result --------------------------------------------------------- */

static void result_init(struct gl_nccl_result *r, int from_json)
{
	memset(r, 0, sizeof(*r));
	r->from_json = from_json;
	r->max_rank = -1;
	r->validation = -1;
	r->max_err_delta = -1;
}

void gl_nccl_result_free(struct gl_nccl_result *r)
{
	if (!r)
		return;
	free(r->rows);
	result_init(r, 0);
}

static void row_init(struct gl_nccl_row *row)
{
	memset(row, 0, sizeof(*row));
	row->root = -1;
	for (int i = 0; i < 2; i++) {
		row->time_us[i] = row->algbw[i] = row->busbw[i] = -1;
		row->wrong[i] = -1;
		row->err_delta[i] = -1;
	}
}

/* Append a row; where ("line 12", "run 1: results[3]") prefixes errors. */
static int push_row(struct gl_nccl_result *r, int *cap, const struct gl_nccl_row *row,
		    const char *where, struct gl_err *err)
{
	if (r->nrows >= GL_NCCL_MAX_ROWS)
		return gl_errf(err, GL_ELIMIT, "%s: more than %d table rows", where,
			       GL_NCCL_MAX_ROWS);
	if (r->nrows == *cap) {
		int ncap = *cap ? *cap * 2 : 64;
		struct gl_nccl_row *nr;
		if (ncap > GL_NCCL_MAX_ROWS)
			ncap = GL_NCCL_MAX_ROWS;
		nr = realloc(r->rows, (size_t)ncap * sizeof(*nr));
		if (!nr)
			return gl_errf(err, GL_ENOMEM, "%s: no memory for %d rows", where, ncap);
		r->rows = nr;
		*cap = ncap;
	}
	r->rows[r->nrows++] = *row;
	for (int i = 0; i < 2; i++) {
		if (row->wrong[i] > 0)
			sat_add(&r->wrong_total, row->wrong[i]);
		if (row->err_delta[i] > r->max_err_delta)
			r->max_err_delta = row->err_delta[i];
	}
	return 0;
}

static void note_failure(struct gl_nccl_result *r, const char *s, size_t len)
{
	if (r->failures++ == 0)
		copy_printable(r->failure, sizeof(r->failure), s, len);
}

/* ---- text: table layout ------------------------------------------------- */

enum col_kind {
	C_SIZE, C_COUNT, C_TYPE, C_REDOP, C_ROOT,   /* leading columns */
	C_TIME, C_ALGBW, C_BUSBW, C_WRONG, C_DELTA, C_ITER,   /* per half */
	C_STAMP,                                    /* "YYYY-MM-DD HH:MM:SS", two words */
	C_EXTRA,                                    /* unknown label, one word, ignored */
};

struct col {
	unsigned char kind;
	signed char side;   /* 0 out-of-place, 1 in-place, -1 leading or trailing */
	int end;            /* offset just past the label in the header line */
};

struct layout {
	struct col c[GL_NCCL_MAX_COLS];
	int n;
	int nsides;
	int words_full;     /* words in a complete row */
	int words_half;     /* words in an in-place-only row; 0 with one half */
	int lead_words;     /* words before the first out-of-place column */
	int end0, end1;     /* label ends of the first column of each half */
};

struct pending {
	int active;
	int line;
	int n;              /* words so far */
	int noisy;          /* log or failure text came with or after it */
	char cell[ROW_CELLS_MAX][CELL_MAX];
};

struct tp {
	struct gl_nccl_result *r;
	struct gl_err *err;
	int line_no;
	int have_layout;
	struct layout lay;
	struct pending pend;
	int rows_cap;
};

static const struct {
	const char *label;
	enum col_kind kind;
} col_labels[] = {
	{ "size", C_SIZE }, { "count", C_COUNT }, { "type", C_TYPE }, { "redop", C_REDOP },
	{ "root", C_ROOT }, { "time", C_TIME }, { "cputime", C_TIME }, { "algbw", C_ALGBW },
	{ "busbw", C_BUSBW }, { "#wrong", C_WRONG }, { "error", C_DELTA }, { "i_min", C_ITER },
	{ "i_max", C_ITER }, { "i_p99", C_ITER }, { "i_cv%", C_ITER }, { "timestamp", C_STAMP },
};

static int is_half_kind(int k)
{
	return k >= C_TIME && k <= C_ITER;
}

/* "#  size  count  type ..." : w is the whole line, starting with '#'. */
static int layout_from_header(struct tp *t, const char *w, size_t n)
{
	struct layout L;
	const char *p = w + 1, *e = w + n, *ws, *we;
	int side = -1, has_busbw = 0;

	memset(&L, 0, sizeof(L));
	L.lead_words = -1;
	while (next_word(&p, e, &ws, &we)) {
		struct col *c;
		if (L.n >= GL_NCCL_MAX_COLS)
			return gl_errf(t->err, GL_ELIMIT, "line %d: more than %d columns in the table header",
				       t->line_no, GL_NCCL_MAX_COLS);
		c = &L.c[L.n++];
		c->kind = C_EXTRA;
		for (size_t i = 0; i < GL_ARRAY_LEN(col_labels); i++)
			if (word_is(ws, we, col_labels[i].label))
				c->kind = (unsigned char)col_labels[i].kind;
		c->end = (int)(we - w);
		c->side = -1;
		if (c->kind == C_TIME && ++side > 1)
			return gl_errf(t->err, GL_EINVAL,
				       "line %d: more than two time columns in the table header", t->line_no);
		if (is_half_kind(c->kind)) {
			if (side < 0)
				return gl_errf(t->err, GL_EINVAL,
					       "line %d: column '%.*s' before any time column in the table header",
					       t->line_no, (int)(we - ws), ws);
			c->side = (signed char)side;
		}
		if (c->kind == C_BUSBW)
			has_busbw = 1;
		if (c->side == 0 && L.lead_words < 0) {
			L.lead_words = L.words_full;
			L.end0 = c->end;
		}
		if (c->side == 1 && !L.end1)
			L.end1 = c->end;
		L.words_full += c->kind == C_STAMP ? 2 : 1;
		if (c->side == 0)
			L.words_half--;
	}
	if (L.n < 2 || L.c[0].kind != C_SIZE || L.c[1].kind != C_COUNT || !has_busbw)
		return gl_errf(t->err, GL_EINVAL,
			       "line %d: table header without size, count and busbw columns", t->line_no);
	L.nsides = side + 1;
	L.words_half = L.nsides == 2 ? L.words_full + L.words_half : 0;
	t->lay = L;
	t->have_layout = 1;
	return 0;
}

static const char *cell_name(int kind)
{
	switch (kind) {
	case C_SIZE: return "byte count";
	case C_COUNT: return "element count";
	case C_ROOT: return "root";
	case C_WRONG: return "#wrong count";
	default: return "number";
	}
}

/* Read the cells of one row against the layout. half: an in-place-only row.
 * Returns 0, or -1 with what was wrong in why. */
static int row_from_cells(const struct layout *L, char cells[][CELL_MAX], int n, int half,
			  struct gl_nccl_row *row, char *why, size_t whyn)
{
	int k = 0;

	if (n != (half ? L->words_half : L->words_full)) {
		snprintf(why, whyn, "expected %d columns in a table row, got %d", L->words_full, n);
		return -1;
	}
	row_init(row);
	for (int i = 0; i < L->n; i++) {
		const struct col *c = &L->c[i];
		const char *s;
		int side = c->side > 0 ? 1 : 0;
		double d;

		if (half && c->side == 0)
			continue;
		s = cells[k];
		k += c->kind == C_STAMP ? 2 : 1;
		switch (c->kind) {
		case C_SIZE:
		case C_COUNT:
			if (parse_u64(s, c->kind == C_SIZE ? &row->size : &row->count) < 0)
				goto bad;
			break;
		case C_TYPE:
			copy_printable(row->type, sizeof(row->type), s, strlen(s));
			break;
		case C_REDOP:
			copy_printable(row->redop, sizeof(row->redop), s, strlen(s));
			break;
		case C_ROOT:
			if (parse_int(s, &row->root) < 0)
				goto bad;
			break;
		case C_TIME:
		case C_ALGBW:
		case C_BUSBW:
			if (parse_num(s, &d) < 0)
				goto bad;
			d = metric(d);
			if (c->kind == C_TIME)
				row->time_us[side] = d;
			else if (c->kind == C_ALGBW)
				row->algbw[side] = d;
			else
				row->busbw[side] = d;
			break;
		case C_WRONG:
			if (strcmp(s, "N/A") == 0)
				break;
			if (parse_num(s, &d) < 0 || count_from_double(d, &row->wrong[side]) < 0)
				goto bad;
			break;
		case C_DELTA:
			if (strcmp(s, "N/A") == 0)
				break;
			if (parse_num(s, &d) < 0 || d < 0)
				goto bad;
			row->err_delta[side] = isfinite(d) ? d : 1e300;   /* nan: surely wrong */
			break;
		case C_ITER:
			if (strcmp(s, "N/A") != 0 && parse_num(s, &d) < 0)
				goto bad;
			break;
		default:
			break;
		}
		continue;
bad:
		snprintf(why, whyn, "column %d: '%s' is not a valid %s",
			 k - (c->kind == C_STAMP ? 1 : 0), s, cell_name(c->kind));
		return -1;
	}
	return 0;
}

/* ---- text: NCCL log and failure text inside a line ---------------------- */

enum noise { N_NONE, N_NCCL, N_FAIL };

/* Where a run of hostname characters ending just before `colon` begins. */
static size_t host_start(const char *w, size_t colon)
{
	size_t h = colon;

	while (h > 0 && is_host_char(w[h - 1]))
		h--;
	return h;
}

/* Does "host:pid:tid [dev]" end at w[m] (the ']')? Sets *colon to the ':'
 * after the hostname. */
static int nccl_prefix_at(const char *w, size_t m, size_t *colon)
{
	size_t j = m;
	int nd;

	for (nd = 0; j > 0 && is_digit(w[j - 1]); j--, nd++)
		;
	if (!nd || j < 2 || w[j - 1] != '[' || w[j - 2] != ' ')
		return 0;
	j -= 2;
	for (int part = 0; part < 2; part++) {   /* tid, then pid */
		for (nd = 0; j > 0 && is_digit(w[j - 1]); j--, nd++)
			;
		if (!nd || j == 0 || w[j - 1] != ':')
			return 0;
		j--;
	}
	if (j == 0 || !is_host_char(w[j - 1]))
		return 0;
	*colon = j;
	return 1;
}

/*
 * Where the value glued in front of a hostname ends. [h, colon) is the run of
 * hostname characters, which may begin with the end of a table value when
 * NCCL wrote its log straight after a partial row. When the line is a row
 * start, the header's label ends say where the value stops; otherwise the
 * value's digits are taken, which fails only for hostnames that begin with a
 * digit.
 */
static size_t split_glued(const struct tp *t, const char *w, size_t h, size_t colon, int row_start)
{
	size_t tok = h, s;
	int k = 0;
	const char *p = w, *ws, *we;

	while (tok > 0 && !is_space(w[tok - 1]))
		tok--;
	if (tok == 0 && h == 0)
		return 0;   /* the line begins with the log: no value glued */
	if (row_start && t->have_layout) {
		while (next_word(&p, w + tok, &ws, &we))
			k++;
		if (k < t->lay.n) {
			size_t end = (size_t)t->lay.c[k].end;
			if (end > tok && end >= h && end < colon)
				return end;
		}
	}
	s = h;
	if (h == tok && (w[s] == '-' || w[s] == '+'))
		s++;
	while (s < colon && is_digit(w[s]))
		s++;
	if (s < colon && s > h && w[s] == '.') {
		s++;
		while (s < colon && is_digit(w[s]))
			s++;
	}
	if (s >= colon || (s > h && !is_digit(w[s - 1])))
		s = h;   /* all digits (a numeric hostname), or a lone sign: no value */
	if (s == h && h >= tok + 2 && w[h - 2] == 'N' && w[h - 1] == '/' && w[h] == 'A')
		s = h + 1;   /* "N/A" glued */
	return s;
}

static const char *const fail_marks[] = {
	": Test NCCL failure", ": Test CUDA failure", ": Test failure", ": Test timeout",
};

/* Find NCCL log text or a failure message in w (NUL-terminated, n bytes).
 * Returns its kind and sets *at to where it starts (after any value glued in
 * front of it); *msg is where the message proper starts. */
static enum noise find_noise(const struct tp *t, const char *w, int row_start, size_t *at,
			     size_t *msg)
{
	const char *m;

	for (size_t i = 0; i < GL_ARRAY_LEN(fail_marks); i++) {
		m = strstr(w, fail_marks[i]);
		if (m) {
			size_t colon = (size_t)(m - w), h = host_start(w, colon);
			const char *dots = strstr(w, " .. ");
			if (dots && (size_t)(dots - w) < h) {
				*at = *msg = (size_t)(dots - w);
			} else {
				*msg = h;
				*at = split_glued(t, w, h, colon, row_start);
			}
			return N_FAIL;
		}
	}
	/* NCCL's debug.cc: "%s:%d:%d [%d] NCCL INFO ", "\n%s:%d:%d [%d] %s:%d NCCL
	 * WARN " (file:line between) and "... [%d] %f %s:%d NCCL TRACE ". */
	for (m = strstr(w, " NCCL "); m; m = strstr(m + 1, " NCCL ")) {
		size_t k = (size_t)(m - w), colon;
		for (int words = 0; words <= 2 && k > 0; words++) {
			if (w[k - 1] == ']') {
				if (!nccl_prefix_at(w, k - 1, &colon))
					break;
				size_t h = host_start(w, colon);
				*msg = h;
				*at = split_glued(t, w, h, colon, row_start);
				return N_NCCL;
			}
			while (k > 0 && !is_space(w[k - 1]))
				k--;
			if (k == 0)
				break;
			k--;
		}
	}
	if (strncmp(w, "NCCL version ", 13) == 0 || strncmp(w, "NCCL INFO", 9) == 0 ||
	    strncmp(w, "NCCL WARN", 9) == 0) {
		*at = *msg = 0;
		return N_NCCL;
	}
	return N_NONE;
}

/* ---- text: rows --------------------------------------------------------- */

/* Split [s, e) into cells; returns the word count (cells past the array and
 * past CELL_MAX bytes are counted, flagged in *too_long, not stored). */
static int cells_from(const char *s, const char *e, char cells[][CELL_MAX], int have,
		      int *too_long)
{
	const char *ws, *we;
	int n = have;

	while (next_word(&s, e, &ws, &we)) {
		size_t len = (size_t)(we - ws);
		if (len >= CELL_MAX)
			*too_long = 1;
		else if (n < ROW_CELLS_MAX) {
			memcpy(cells[n], ws, len);
			cells[n][len] = '\0';
		}
		n++;
	}
	return n;
}

static int emit_row(struct tp *t, char cells[][CELL_MAX], int n, int half, int line, int strict)
{
	struct gl_nccl_row row;
	char why[160], where[32];

	if (n > ROW_CELLS_MAX ||
	    row_from_cells(&t->lay, cells, n, half, &row, why, sizeof(why)) < 0) {
		if (!strict) {
			t->r->rows_incomplete++;
			return 0;
		}
		if (n > ROW_CELLS_MAX)
			snprintf(why, sizeof(why), "expected %d columns in a table row, got %d",
				 t->lay.words_full, n);
		return gl_errf(t->err, GL_EINVAL, "line %d: %s", line, why);
	}
	row.block = t->r->headers > 0 ? t->r->headers - 1 : 0;
	row.line = line;
	snprintf(where, sizeof(where), "line %d", line);
	return push_row(t->r, &t->rows_cap, &row, where, t->err);
}

/*
 * A pending row ends: kept when it is whole. A row cut short is counted in
 * rows_incomplete when log or failure text came with or after it, or the
 * output ends there (the run died mid-row); when the table just goes on, the
 * row was malformed. Its cells came in order, so a half row is the
 * out-of-place half, never an in-place-only row.
 */
static int pend_flush(struct tp *t, int at_end)
{
	struct pending *pd = &t->pend;

	if (!pd->active)
		return 0;
	pd->active = 0;
	if (pd->n == t->lay.words_full)
		return emit_row(t, pd->cell, pd->n, 0, pd->line, !pd->noisy);
	if (pd->noisy || at_end) {
		t->r->rows_incomplete++;
		return 0;
	}
	return gl_errf(t->err, GL_EINVAL, "line %d: expected %d columns in a table row, got %d",
		       pd->line, t->lay.words_full, pd->n);
}

/* A row with one half's words: in-place only (the out-of-place half left
 * blank) when its first measured value ends under the in-place labels. */
static int looks_inplace_only(const struct tp *t, const char *w, size_t at)
{
	const char *p = w, *ws = NULL, *we = NULL;
	long e;

	for (int k = 0; k <= t->lay.lead_words; k++)
		if (!next_word(&p, w + at, &ws, &we))
			return 0;
	e = (long)(we - w);
	return labs(e - t->lay.end1) < labs(e - t->lay.end0);
}

static int pend_start(struct tp *t, char cells[][CELL_MAX], int n, int noisy)
{
	struct pending *pd = &t->pend;

	pd->active = 1;
	pd->noisy = noisy;
	pd->line = t->line_no;
	pd->n = n < ROW_CELLS_MAX ? n : ROW_CELLS_MAX;
	memcpy(pd->cell, cells, (size_t)pd->n * CELL_MAX);
	return 0;
}

/* ---- text: '#' lines ---------------------------------------------------- */

/* The integer after the word key in [s, e) ("nGpus 8"), or -1 if none. */
static int int_after(const char *s, const char *e, const char *key)
{
	const char *ws, *we;

	while (next_word(&s, e, &ws, &we)) {
		if (word_is(ws, we, key) && next_word(&s, e, &ws, &we)) {
			char num[16];
			int v;
			if ((size_t)(we - ws) >= sizeof(num))
				return -1;
			memcpy(num, ws, (size_t)(we - ws));
			num[we - ws] = '\0';
			return parse_int(num, &v) == 0 && v >= 0 ? v : -1;
		}
	}
	return -1;
}

static int starts(const char *p, const char *lit)
{
	return strncmp(p, lit, strlen(lit)) == 0;
}

/* The text after the first ':' of p, trimmed. */
static const char *after_colon(const char *p)
{
	const char *c = strchr(p, ':');

	if (!c)
		return NULL;
	for (c++; is_space(*c); c++)
		;
	return c;
}

static const char *const known_hash_lines[] = {
	"Using devices", "Blocking Enabled", "Parallel Init Enabled", "Per-Iteration Report",
	"Reducing maxBytes", "Writing JSON output", "skipping json output", "GPU memory usage",
	"Collective test concluded", "Out of bounds values", "Avg bus bandwidth",
};

static int hash_line(struct tp *t, const char *w, size_t n)
{
	struct gl_nccl_result *r = t->r;
	const char *e = w + n, *p = w + 1, *ws, *we, *q = p;

	while (is_space(*p))
		p++;
	if (!*p)
		return 0;   /* "#" */
	if (starts(p, "nThread ")) {
		if (++r->headers == 1) {
			int v = int_after(p, e, "nThread");
			r->nthread = v > 0 ? v : 0;
			v = int_after(p, e, "nGpus");
			r->ngpus = v > 0 ? v : 0;
			r->validation = int_after(p, e, "validation:");
		}
		return 0;
	}
	if (starts(p, "Rank ")) {
		int rank = int_after(p, e, "Rank");
		if (rank >= 0) {
			r->ranks_listed++;
			if (rank > r->max_rank)
				r->max_rank = rank;
			return 0;
		}
	}
	if (next_word(&q, e, &ws, &we) && word_is(ws, we, "size") && next_word(&q, e, &ws, &we) &&
	    word_is(ws, we, "count"))
		return layout_from_header(t, w, n);
	if (starts(p, "(B)") || strstr(p, "out-of-place") || strstr(p, "in-place"))
		return 0;
	if (starts(p, "Out of bounds values") && (q = after_colon(p)) && is_digit(*q)) {
		long v = strtol(q, NULL, 10);
		r->have_oob = 1;
		sat_add(&r->oob_values, v < 0 ? 0 : v);
		return 0;
	}
	if (starts(p, "Avg bus bandwidth") && (q = after_colon(p))) {
		char num[CELL_MAX];
		double d;
		const char *s = q;
		if (next_word(&s, e, &ws, &we) && (size_t)(we - ws) < sizeof(num)) {
			memcpy(num, ws, (size_t)(we - ws));
			num[we - ws] = '\0';
			if (parse_num(num, &d) == 0 && !r->have_avg) {
				r->have_avg = 1;
				r->avg_busbw = isfinite(d) ? d : -1;
			}
		}
		return 0;
	}
	if (starts(p, "Collective test starting:")) {
		q = after_colon(p);
		if (!r->collective[0])
			copy_printable(r->collective, sizeof(r->collective), q, strlen(q));
		return 0;
	}
	if (starts(p, "nccl-tests version ") || starts(p, "rccl-tests version ")) {
		const char *s = p + 19;
		int v;
		if (next_word(&s, e, &ws, &we) && !r->tests_version[0])
			copy_printable(r->tests_version, sizeof(r->tests_version), ws,
				       (size_t)(we - ws));
		v = -1;
		for (s = p; (s = strstr(s, "library=")); s += 8) {
			char num[16];
			size_t k = 0;
			while (k + 1 < sizeof(num) && is_digit(s[8 + k])) {
				num[k] = s[8 + k];
				k++;
			}
			num[k] = '\0';
			if (k && parse_int(num, &v) == 0 && !r->nccl_version)
				r->nccl_version = v;
		}
		return 0;
	}
	if (starts(p, "error:")) {
		/* NCCL's last error, which newer nccl-tests print at the end */
		q = after_colon(p);
		if (*q)
			note_failure(r, q, strlen(q));
		return 0;
	}
	for (size_t i = 0; i < GL_ARRAY_LEN(known_hash_lines); i++)
		if (starts(p, known_hash_lines[i]))
			return 0;
	r->lines_skipped++;
	return 0;
}

/* ---- text: one line ----------------------------------------------------- */

/* Drop a launcher's per-line label: Open MPI --tag-output "[1,0]<stdout>:"
 * and srun --label "0: ". Returns the number of bytes to skip. */
static size_t launcher_prefix(const char *w)
{
	const char *p = w;

	if (*p == '[') {
		p++;
		if (!is_digit(*p))
			return 0;
		while (is_digit(*p))
			p++;
		if (*p++ != ',' || !is_digit(*p))
			return 0;
		while (is_digit(*p))
			p++;
		if (*p++ != ']')
			return 0;
		if (starts(p, "<stdout>:"))
			return (size_t)(p + 9 - w);
		if (starts(p, "<stderr>:"))
			return (size_t)(p + 9 - w);
		return 0;
	}
	while (is_space(*p))
		p++;
	if (!is_digit(*p))
		return 0;
	while (is_digit(*p))
		p++;
	if (p[0] == ':' && p[1] == ' ')
		return (size_t)(p + 2 - w);
	return 0;
}

static int is_cell_word(const char *s)
{
	double d;

	return strcmp(s, "N/A") == 0 || parse_num(s, &d) == 0;
}

static int text_line(struct tp *t, char *w, size_t n)
{
	char cells[ROW_CELLS_MAX][CELL_MAX];
	size_t skip, at, msg;
	enum noise nk;
	int nc, too_long = 0, row_start;

	skip = launcher_prefix(w);
	w += skip;
	n -= skip;
	while (n > 0 && is_space(w[n - 1]))
		w[--n] = '\0';
	if (n == 0)
		return 0;
	at = msg = n;
	if (w[0] == '#') {
		int rc = pend_flush(t, 0);
		return rc ? rc : hash_line(t, w, n);
	}

	{
		const char *s = w, *ws, *we;
		row_start = next_word(&s, w + n, &ws, &we) && all_digits(ws, (size_t)(we - ws)) &&
			    next_word(&s, w + n, &ws, &we) && all_digits(ws, (size_t)(we - ws));
	}
	nk = find_noise(t, w, row_start, &at, &msg);
	if (nk == N_FAIL)
		note_failure(t->r, w + msg, n - msg);
	else if (nk == N_NCCL)
		t->r->nccl_lines++;

	if (t->pend.active) {
		struct pending *pd = &t->pend;
		int rc;

		nc = cells_from(w, w + at, cells, 0, &too_long);
		if (nc > 0 && !row_start && !too_long && is_cell_word(cells[0])) {
			/* the rest of the row, after the log text */
			if (nk != N_NONE)
				pd->noisy = 1;
			if (pd->n + nc > t->lay.words_full) {
				pd->n += nc;
				return pend_flush(t, 0);
			}
			memcpy(pd->cell[pd->n], cells, (size_t)nc * CELL_MAX);
			pd->n += nc;
			return pd->n == t->lay.words_full ? pend_flush(t, 0) : 0;
		}
		if (row_start) {
			rc = pend_flush(t, 0);
			if (rc)
				return rc;
		} else {
			/* log, failure or launcher lines: the run may be dying */
			pd->noisy = 1;
		}
	}

	if (row_start && at > 0) {
		int half = 0;

		if (!t->have_layout)
			return gl_errf(t->err, GL_EINVAL, "line %d: table row before the table header",
				       t->line_no);
		nc = cells_from(w, w + at, cells, 0, &too_long);
		if (too_long)
			return gl_errf(t->err, GL_EINVAL,
				       "line %d: a cell of the table row is longer than %d bytes",
				       t->line_no, CELL_MAX - 1);
		if (t->lay.words_half && nc == t->lay.words_half && nk == N_NONE)
			half = looks_inplace_only(t, w, at);
		/* Cut short: the rest may follow after log lines, or the run
		 * died here. */
		if (nc < t->lay.words_full && !half)
			return pend_start(t, cells, nc, nk != N_NONE);
		return emit_row(t, cells, nc, half, t->line_no, 1);
	}
	if (nk == N_FAIL)
		return 0;
	t->r->lines_skipped++;
	return 0;
}

int gl_nccl_parse_text(const char *buf, size_t len, struct gl_nccl_result *r, struct gl_err *err)
{
	struct tp *t = NULL;
	char *w = NULL;
	size_t pos = 0;
	int rc = 0;

	result_init(r, 0);
	if (!buf && len)
		return gl_errf(err, GL_EINVAL, "nccl-tests output: NULL buffer");
	if (len > GL_NCCL_MAX_INPUT)
		return gl_errf(err, GL_ELIMIT, "nccl-tests output: %zu bytes, more than the %u-byte limit",
			       len, GL_NCCL_MAX_INPUT);
	t = calloc(1, sizeof(*t));
	w = malloc(GL_NCCL_MAX_LINE + 1);
	if (!t || !w) {
		rc = gl_errf(err, GL_ENOMEM, "nccl-tests output: out of memory");
		goto out;
	}
	t->r = r;
	t->err = err;
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		pos = 3;   /* a UTF-8 byte order mark (a log saved by an editor) */
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;

		t->line_no++;
		if (n > GL_NCCL_MAX_LINE) {
			rc = gl_errf(err, GL_ELIMIT, "line %d: longer than %u bytes", t->line_no,
				     GL_NCCL_MAX_LINE);
			goto out;
		}
		for (size_t i = 0; i < n; i++)   /* a NUL (a crashed node's file hole) is a blank */
			w[i] = buf[pos + i] ? buf[pos + i] : ' ';
		w[n] = '\0';
		rc = text_line(t, w, n);
		if (rc)
			goto out;
		pos += n + (nl ? 1 : 0);
	}
	rc = pend_flush(t, 1);
	if (rc)
		goto out;
	if (r->headers == 0 && !t->have_layout && r->nrows == 0) {
		if (r->failures)
			rc = gl_errf(err, GL_EINVAL,
				     "no nccl-tests header or table in %d lines; first failure: %s",
				     t->line_no, r->failure);
		else
			rc = gl_errf(err, GL_EINVAL,
				     "no nccl-tests header or table in %d lines (not nccl-tests output?)",
				     t->line_no);
	}
out:
	free(w);
	free(t);
	return rc;
}

/* ---- JSON ---------------------------------------------------------------- */

struct jp {
	struct gl_nccl_result *r;
	struct gl_err *err;
	int rows_cap;
	int run;   /* 1-based, for messages */
};

/*
 * nccl-tests prints doubles with "%lf", so an infinite bandwidth comes out as
 * a bare inf, which is not JSON. Outside strings, a bare [+-]inf, infinity or
 * nan word becomes null. *out is malloc'd. *open_at_end says whether a string,
 * object or array was still open at the end: the writer never finished.
 */
static int json_fix_nonfinite(const char *in, size_t len, char **out, size_t *out_len,
			      int *open_at_end)
{
	char *o = malloc(len + len / 3 + 16);
	size_t k = 0;
	long depth = 0;
	int in_str = 0, esc = 0;
	char prev = 0;   /* last significant byte outside strings */

	if (!o)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = in[i];
		if (in_str) {
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				in_str = 0;
			o[k++] = c;
			continue;
		}
		if (c == '"') {
			in_str = 1;
			prev = c;
			o[k++] = c;
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && depth > 0)
			depth--;
		if ((prev == ':' || prev == ',' || prev == '[') &&
		    (c == '-' || c == '+' || c == 'i' || c == 'I' || c == 'n' || c == 'N')) {
			static const char *const words[] = { "infinity", "inf", "nan" };
			size_t j = i + (c == '-' || c == '+');
			for (size_t wi = 0; wi < GL_ARRAY_LEN(words); wi++) {
				size_t wl = strlen(words[wi]);
				if (j + wl <= len && strncasecmp(in + j, words[wi], wl) == 0 &&
				    (j + wl == len || is_space(in[j + wl]) || in[j + wl] == '\n' ||
				     in[j + wl] == ',' || in[j + wl] == '}' || in[j + wl] == ']')) {
					memcpy(o + k, "null", 4);
					k += 4;
					i = j + wl - 1;
					c = 'l';
					goto next;
				}
			}
		}
		o[k++] = c;
next:
		if (!is_space(c) && c != '\n')
			prev = c;
	}
	*out = o;
	*out_len = k;
	*open_at_end = in_str || depth > 0;
	return 0;
}

/* A measured value of a JSON half: number, null, or "nan"/"inf" strings. */
static int j_metric(const struct jp *j, const cJSON *o, const char *key, const char *where,
		    double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = -1;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsString(v) && v->valuestring) {
		double d;
		if (parse_num(v->valuestring, &d) == 0 && !isfinite(d))
			return 0;
	} else if (cJSON_IsNumber(v) && !(v->valuedouble < 0)) {
		*out = metric(v->valuedouble);
		return 0;
	}
	return gl_errf(j->err, GL_EINVAL, "run %d: %s.%s: expected a non-negative number", j->run,
		       where, key);
}

static int j_half(const struct jp *j, const cJSON *h, const char *where, struct gl_nccl_row *row,
		  int side)
{
	const cJSON *v;
	int rc;

	if (!cJSON_IsObject(h))
		return gl_errf(j->err, GL_EINVAL, "run %d: %s: expected an object or null", j->run,
			       where);
	rc = j_metric(j, h, cJSON_GetObjectItemCaseSensitive(h, "cpu_time") ? "cpu_time" : "time",
		      where, &row->time_us[side]);
	if (!rc)
		rc = j_metric(j, h, "alg_bw", where, &row->algbw[side]);
	if (!rc)
		rc = j_metric(j, h, "bus_bw", where, &row->busbw[side]);
	if (rc)
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(h, "nwrong");
	if (!v || cJSON_IsNull(v) || (cJSON_IsString(v) && v->valuestring &&
				      strcasecmp(v->valuestring, "nan") == 0))
		return 0;
	if (!cJSON_IsNumber(v) || count_from_double(v->valuedouble, &row->wrong[side]) < 0)
		return gl_errf(j->err, GL_EINVAL, "run %d: %s.nwrong: expected a whole number or null",
			       j->run, where);
	return 0;
}

/* A whole non-negative JSON number below 2^64. */
static int j_u64(const cJSON *v, uint64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return -1;
	d = v->valuedouble;
	if (!isfinite(d) || d < 0 || d != floor(d) || d >= U64_LIMIT)
		return -1;
	*out = (uint64_t)d;
	return 0;
}

static int j_int(const cJSON *v, int *out)
{
	double d;

	if (cJSON_IsString(v) && v->valuestring) {
		const char *s = v->valuestring;
		char num[16];
		size_t k = 0;
		while (is_space(*s))
			s++;
		while (*s && !is_space(*s) && k + 1 < sizeof(num))
			num[k++] = *s++;
		num[k] = '\0';
		while (is_space(*s))
			s++;
		return *s ? -1 : parse_int(num, out);
	}
	if (!cJSON_IsNumber(v))
		return -1;
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d) || d < INT_MIN || d > INT_MAX)
		return -1;
	*out = (int)d;
	return 0;
}

static int j_string(const struct jp *j, const cJSON *o, const char *key, const char *where,
		    char *out, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || !v->valuestring)
		return gl_errf(j->err, GL_EINVAL, "run %d: %s.%s: expected a string", j->run, where,
			       key);
	copy_printable(out, n, v->valuestring, strlen(v->valuestring));
	return 0;
}

static int j_result(struct jp *j, const cJSON *res, int idx)
{
	struct gl_nccl_row row;
	const cJSON *v, *oop, *ip;
	char where[48];
	int rc;

	snprintf(where, sizeof(where), "results[%d]", idx);
	if (!cJSON_IsObject(res))
		return gl_errf(j->err, GL_EINVAL, "run %d: %s: expected an object", j->run, where);
	row_init(&row);
	row.block = j->run - 1;
	if (j_u64(cJSON_GetObjectItemCaseSensitive(res, "size"), &row.size) < 0)
		return gl_errf(j->err, GL_EINVAL, "run %d: %s.size: expected a byte count", j->run,
			       where);
	v = cJSON_GetObjectItemCaseSensitive(res, "count");
	if (v && !cJSON_IsNull(v) && j_u64(v, &row.count) < 0)
		return gl_errf(j->err, GL_EINVAL, "run %d: %s.count: expected an element count",
			       j->run, where);
	rc = j_string(j, res, "type", where, row.type, sizeof(row.type));
	if (!rc)
		rc = j_string(j, res, "redop", where, row.redop, sizeof(row.redop));
	if (rc)
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(res, "root");
	if (v && !cJSON_IsNull(v) && j_int(v, &row.root) < 0)
		return gl_errf(j->err, GL_EINVAL, "run %d: %s.root: expected a rank", j->run, where);
	oop = cJSON_GetObjectItemCaseSensitive(res, "out_of_place");
	ip = cJSON_GetObjectItemCaseSensitive(res, "in_place");
	if ((!oop || cJSON_IsNull(oop)) && (!ip || cJSON_IsNull(ip)))
		return gl_errf(j->err, GL_EINVAL, "run %d: %s: neither out_of_place nor in_place",
			       j->run, where);
	if (oop && !cJSON_IsNull(oop)) {
		char w2[64];
		snprintf(w2, sizeof(w2), "%s.out_of_place", where);
		if ((rc = j_half(j, oop, w2, &row, 0)))
			return rc;
	}
	if (ip && !cJSON_IsNull(ip)) {
		char w2[64];
		snprintf(w2, sizeof(w2), "%s.in_place", where);
		if ((rc = j_half(j, ip, w2, &row, 1)))
			return rc;
	}
	{
		char w3[96];
		snprintf(w3, sizeof(w3), "run %d: %s", j->run, where);
		return push_row(j->r, &j->rows_cap, &row, w3, j->err);
	}
}

static int j_run(struct jp *j, const cJSON *run)
{
	struct gl_nccl_result *r = j->r;
	const cJSON *cfg, *res, *v, *it;
	int rc, i;

	j->run = r->headers + 1;
	if (!cJSON_IsObject(run))
		return gl_errf(j->err, GL_EINVAL, "run %d: expected a JSON object", j->run);
	cfg = cJSON_GetObjectItemCaseSensitive(run, "config");
	res = cJSON_GetObjectItemCaseSensitive(run, "results");
	if (!cfg && !res && !cJSON_GetObjectItemCaseSensitive(run, "nccl_version"))
		return gl_errf(j->err, GL_EINVAL,
			       "run %d: no config, results or nccl_version: not an nccl-tests JSON report",
			       j->run);
	r->headers++;

	v = cJSON_GetObjectItemCaseSensitive(run, "nccl_version");
	if (cJSON_IsNumber(v) && !r->nccl_version && v->valuedouble > 0 &&
	    v->valuedouble < INT_MAX)
		r->nccl_version = (int)v->valuedouble;
	v = cJSON_GetObjectItemCaseSensitive(run, "args");
	if (cJSON_IsArray(v) && cJSON_IsString(v->child) && v->child->valuestring &&
	    !r->collective[0]) {
		const char *a0 = v->child->valuestring, *slash = strrchr(a0, '/');
		const char *base = slash ? slash + 1 : a0;
		copy_printable(r->collective, sizeof(r->collective), base, strlen(base));
	}

	if (cfg && !cJSON_IsObject(cfg))
		return gl_errf(j->err, GL_EINVAL, "run %d: config: expected an object", j->run);
	if (cfg) {
		int nt = -1, ng = -1, val = -1;
		const cJSON *dev = cJSON_GetObjectItemCaseSensitive(cfg, "devices");
		if (r->headers == 1) {
			v = cJSON_GetObjectItemCaseSensitive(cfg, "nthreads");
			if (v && j_int(v, &nt) == 0 && nt > 0)
				r->nthread = nt;
			v = cJSON_GetObjectItemCaseSensitive(cfg, "ngpus");
			if (v && j_int(v, &ng) == 0 && ng > 0)
				r->ngpus = ng;
			v = cJSON_GetObjectItemCaseSensitive(cfg, "validation");
			if (v && j_int(v, &val) == 0 && val >= 0)
				r->validation = val;
		}
		if (dev && !cJSON_IsArray(dev))
			return gl_errf(j->err, GL_EINVAL, "run %d: config.devices: expected an array",
				       j->run);
		i = 0;
		cJSON_ArrayForEach(it, dev) {
			int rank;
			const cJSON *rk = cJSON_GetObjectItemCaseSensitive(it, "rank");
			if (!cJSON_IsObject(it) || j_int(rk, &rank) < 0 || rank < 0)
				return gl_errf(j->err, GL_EINVAL,
					       "run %d: config.devices[%d]: expected an object with a rank",
					       j->run, i);
			r->ranks_listed++;
			if (rank > r->max_rank)
				r->max_rank = rank;
			i++;
		}
	}

	if (res && !cJSON_IsNull(res) && !cJSON_IsArray(res))
		return gl_errf(j->err, GL_EINVAL, "run %d: results: expected an array", j->run);
	i = 0;
	cJSON_ArrayForEach(it, res) {
		if ((rc = j_result(j, it, i++)))
			return rc;
	}

	v = cJSON_GetObjectItemCaseSensitive(run, "out_of_bounds");
	if (cJSON_IsObject(v)) {
		long n;
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, "count");
		if (cJSON_IsNumber(c) && count_from_double(c->valuedouble, &n) == 0) {
			r->have_oob = 1;
			sat_add(&r->oob_values, n);
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(run, "average_bus_bandwidth");
	if (cJSON_IsObject(v) && !r->have_avg) {
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(v, "bandwidth");
		if (cJSON_IsNumber(b)) {
			r->have_avg = 1;
			r->avg_busbw = isfinite(b->valuedouble) ? b->valuedouble : -1;
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(run, "errors");
	if (!cJSON_IsArray(v))
		v = NULL;
	cJSON_ArrayForEach(it, v) {
		if (cJSON_IsString(it) && it->valuestring && it->valuestring[0])
			note_failure(r, it->valuestring, strlen(it->valuestring));
	}
	return 0;
}

static int line_of(const char *s, size_t off)
{
	int line = 1;

	for (size_t i = 0; i < off; i++)
		if (s[i] == '\n' && line < INT_MAX)
			line++;
	return line;
}

int gl_nccl_parse_json(const char *buf, size_t len, struct gl_nccl_result *r, struct gl_err *err)
{
	struct jp j = { r, err, 0, 0 };
	char *fixed = NULL;
	size_t flen = 0, pos = 0;
	cJSON *doc = NULL;
	int rc = 0, docs = 0, open_at_end = 0;

	result_init(r, 1);
	if (!buf && len)
		return gl_errf(err, GL_EINVAL, "nccl-tests JSON: NULL buffer");
	if (len > GL_NCCL_MAX_INPUT)
		return gl_errf(err, GL_ELIMIT, "nccl-tests JSON: %zu bytes, more than the %u-byte limit",
			       len, GL_NCCL_MAX_INPUT);
	if (json_fix_nonfinite(buf ? buf : "", len, &fixed, &flen, &open_at_end) < 0)
		return gl_errf(err, GL_ENOMEM, "nccl-tests JSON: out of memory");
	for (;;) {
		const char *end = NULL;

		while (pos < flen && (is_space(fixed[pos]) || fixed[pos] == '\n'))
			pos++;
		if (pos >= flen)
			break;
		doc = cJSON_ParseWithLengthOpts(fixed + pos, flen - pos, &end, 0);
		if (!doc) {
			size_t at = end && end >= fixed + pos && end <= fixed + flen ?
					    (size_t)(end - fixed) : pos;
			char near[24];
			copy_printable(near, sizeof(near), fixed + at,
				       flen - at < sizeof(near) - 1 ? flen - at : sizeof(near) - 1);
			rc = gl_errf(err, GL_EINVAL, "line %d: JSON syntax error near '%s'%s",
				     line_of(fixed, at), near,
				     open_at_end ? " (the report ends early: was the run cut short?)" : "");
			goto out;
		}
		docs++;
		if (cJSON_IsArray(doc)) {
			const cJSON *it;
			cJSON_ArrayForEach(it, doc) {
				if ((rc = j_run(&j, it)))
					goto out;
			}
		} else if ((rc = j_run(&j, doc))) {
			goto out;
		}
		cJSON_Delete(doc);
		doc = NULL;
		if (!end || end <= fixed + pos || end > fixed + flen)
			break;
		pos = (size_t)(end - fixed);
	}
	if (r->headers == 0)
		rc = gl_errf(err, GL_EINVAL, docs ? "nccl-tests JSON: no run in the report" :
						    "nccl-tests JSON: empty input");
out:
	cJSON_Delete(doc);
	free(fixed);
	return rc;
}

int gl_nccl_parse(const char *buf, size_t len, struct gl_nccl_result *r, struct gl_err *err)
{
	size_t i = 0;

	if (buf && len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (buf && i < len && (is_space(buf[i]) || buf[i] == '\n'))
		i++;
	if (buf && i < len && buf[i] == '[') {
		size_t k = i + 1;
		while (k < len && (is_space(buf[k]) || buf[k] == '\n'))
			k++;
		if (k < len && (buf[k] == '{' || buf[k] == ']'))
			return gl_nccl_parse_json(buf, len, r, err);
	}
	if (buf && i < len && buf[i] == '{')
		return gl_nccl_parse_json(buf, len, r, err);
	return gl_nccl_parse_text(buf, len, r, err);
}

/* ---- judging helpers ---------------------------------------------------- */

int gl_nccl_pitfall(const struct gl_nccl_result *r, int world, char *why, size_t n)
{
	char tmp[320];
	long per, need;

	if (why && n)
		why[0] = '\0';
	if (!r || r->headers == 0)
		return 0;
	if (r->headers > 1) {
		snprintf(tmp, sizeof(tmp),
			 "the output holds %d nccl-tests %s, each listing its own ranks (%d listed, "
			 "highest %d): %d independent runs, as when nccl-tests built without MPI=1 "
			 "is started by mpirun",
			 r->headers, r->from_json ? "runs" : "header blocks", r->ranks_listed,
			 r->max_rank, r->headers);
		goto yes;
	}
	if (world <= 1 || r->ranks_listed == 0)
		return 0;
	if (r->ranks_listed < world) {
		snprintf(tmp, sizeof(tmp),
			 "the output lists %d rank%s but %d processes were launched: each process "
			 "ran alone, as when nccl-tests is built without MPI=1",
			 r->ranks_listed, r->ranks_listed == 1 ? "" : "s", world);
		goto yes;
	}
	per = (long)(r->nthread > 0 ? r->nthread : 1) * (r->ngpus > 0 ? r->ngpus : 1);
	need = (long)(world - 1) * per;
	if (r->max_rank < need) {
		snprintf(tmp, sizeof(tmp),
			 "the highest rank listed is %d but %d processes x %ld GPUs each were "
			 "launched (rank %ld expected): each process ran alone, as when nccl-tests "
			 "is built without MPI=1",
			 r->max_rank, world, per, need);
		goto yes;
	}
	return 0;
yes:
	if (why && n)
		snprintf(why, n, "%s", tmp);
	return 1;
}

double gl_nccl_busbw_at(const struct gl_nccl_result *r, uint64_t size)
{
	double best = -1;

	if (!r)
		return -1;
	for (int i = 0; i < r->nrows; i++) {
		const struct gl_nccl_row *row = &r->rows[i];
		if (row->size != size)
			continue;
		for (int k = 0; k < 2; k++)
			if (row->busbw[k] >= 0 && (best < 0 || row->busbw[k] < best))
				best = row->busbw[k];
	}
	return best;
}
