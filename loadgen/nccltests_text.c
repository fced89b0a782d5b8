/*
 * nccltests_text.c - the text reader of nccl-tests output (nccltests.c has
 * the whole story): the "# size count ..." header becomes a layout, rows are
 * read against it, NCCL's log or a failure message glued to a row is split
 * off by the label ends and the row completed from a later line, and the
 * '#' lines give the run's figures (Avg bus bandwidth, out of bounds, ...).
 */
#include "nccltests_int.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text: table layout ------------------------------------------------- */

enum col_kind {
	C_SIZE,
	C_COUNT,
	C_TYPE,
	C_REDOP,
	C_ROOT, /* leading columns */
	C_TIME,
	C_ALGBW,
	C_BUSBW,
	C_WRONG,
	C_DELTA,
	C_ITER, /* per half */
	C_STAMP, /* "YYYY-MM-DD HH:MM:SS", two words */
	C_EXTRA, /* unknown label, one word, ignored */
};

struct col {
	unsigned char kind;
	signed char side; /* 0 out-of-place, 1 in-place, -1 leading or trailing */
	int end; /* offset just past the label in the header line */
};

struct layout {
	struct col c[GL_NCCL_MAX_COLS];
	int n;
	int nsides;
	int words_full; /* words in a complete row */
	int words_half; /* words in an in-place-only row; 0 with one half */
	int lead_words; /* words before the first out-of-place column */
	int end0, end1; /* label ends of the first column of each half */
};

struct pending {
	int active;
	int line;
	int n; /* words so far */
	int noisy; /* log or failure text came with or after it */
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
	{ "size", C_SIZE },   { "count", C_COUNT },  { "type", C_TYPE },    { "redop", C_REDOP },
	{ "root", C_ROOT },   { "time", C_TIME },    { "cputime", C_TIME }, { "algbw", C_ALGBW },
	{ "busbw", C_BUSBW }, { "#wrong", C_WRONG }, { "error", C_DELTA },  { "i_min", C_ITER },
	{ "i_max", C_ITER },  { "i_p99", C_ITER },   { "i_cv%", C_ITER },   { "timestamp", C_STAMP },
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
	while (nt_next_word(&p, e, &ws, &we)) {
		struct col *c;
		if (L.n >= GL_NCCL_MAX_COLS)
			return gl_errf(t->err, GL_ELIMIT, "line %d: more than %d columns in the table header",
				       t->line_no, GL_NCCL_MAX_COLS);
		c = &L.c[L.n++];
		c->kind = C_EXTRA;
		for (size_t i = 0; i < GL_ARRAY_LEN(col_labels); i++)
			if (nt_word_is(ws, we, col_labels[i].label))
				c->kind = (unsigned char)col_labels[i].kind;
		c->end = (int)(we - w);
		c->side = -1;
		if (c->kind == C_TIME && ++side > 1)
			return gl_errf(t->err, GL_EINVAL, "line %d: more than two time columns in the table header",
				       t->line_no);
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
		return gl_errf(t->err, GL_EINVAL, "line %d: table header without size, count and busbw columns",
			       t->line_no);
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
static int row_from_cells(const struct layout *L, char cells[][CELL_MAX], int n, int half, struct gl_nccl_row *row,
			  char *why, size_t whyn)
{
	int k = 0;

	if (n != (half ? L->words_half : L->words_full)) {
		snprintf(why, whyn, "expected %d columns in a table row, got %d", L->words_full, n);
		return -1;
	}
	nt_row_init(row);
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
			if (nt_parse_u64(s, c->kind == C_SIZE ? &row->size : &row->count) < 0)
				goto bad;
			break;
		case C_TYPE: nt_copy_printable(row->type, sizeof(row->type), s, strlen(s)); break;
		case C_REDOP: nt_copy_printable(row->redop, sizeof(row->redop), s, strlen(s)); break;
		case C_ROOT:
			if (nt_parse_int(s, &row->root) < 0)
				goto bad;
			break;
		case C_TIME:
		case C_ALGBW:
		case C_BUSBW:
			if (nt_parse_num(s, &d) < 0)
				goto bad;
			d = nt_metric(d);
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
			if (nt_parse_num(s, &d) < 0 || nt_count_from_double(d, &row->wrong[side]) < 0)
				goto bad;
			break;
		case C_DELTA:
			if (strcmp(s, "N/A") == 0)
				break;
			if (nt_parse_num(s, &d) < 0 || d < 0)
				goto bad;
			row->err_delta[side] = isfinite(d) ? d : 1e300; /* nan: surely wrong */
			break;
		case C_ITER:
			if (strcmp(s, "N/A") != 0 && nt_parse_num(s, &d) < 0)
				goto bad;
			break;
		default: break;
		}
		continue;
bad:
		snprintf(why, whyn, "column %d: '%s' is not a valid %s", k - (c->kind == C_STAMP ? 1 : 0), s,
			 cell_name(c->kind));
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

	while (h > 0 && nt_is_host_char(w[h - 1]))
		h--;
	return h;
}

/* Does "host:pid:tid [dev]" end at w[m] (the ']')? Sets *colon to the ':'
 * after the hostname. */
static int nccl_prefix_at(const char *w, size_t m, size_t *colon)
{
	size_t j = m;
	int nd;

	for (nd = 0; j > 0 && nt_is_digit(w[j - 1]); j--, nd++)
		;
	if (!nd || j < 2 || w[j - 1] != '[' || w[j - 2] != ' ')
		return 0;
	j -= 2;
	for (int part = 0; part < 2; part++) { /* tid, then pid */
		for (nd = 0; j > 0 && nt_is_digit(w[j - 1]); j--, nd++)
			;
		if (!nd || j == 0 || w[j - 1] != ':')
			return 0;
		j--;
	}
	if (j == 0 || !nt_is_host_char(w[j - 1]))
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

	while (tok > 0 && !nt_is_space(w[tok - 1]))
		tok--;
	if (tok == 0 && h == 0)
		return 0; /* the line begins with the log: no value glued */
	if (row_start && t->have_layout) {
		while (nt_next_word(&p, w + tok, &ws, &we))
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
	while (s < colon && nt_is_digit(w[s]))
		s++;
	if (s < colon && s > h && w[s] == '.') {
		s++;
		while (s < colon && nt_is_digit(w[s]))
			s++;
	}
	if (s >= colon || (s > h && !nt_is_digit(w[s - 1])))
		s = h; /* all digits (a numeric hostname), or a lone sign: no value */
	if (s == h && h >= tok + 2 && w[h - 2] == 'N' && w[h - 1] == '/' && w[h] == 'A')
		s = h + 1; /* "N/A" glued */
	return s;
}

static const char *const fail_marks[] = {
	": Test NCCL failure",
	": Test CUDA failure",
	": Test failure",
	": Test timeout",
};

/* Find NCCL log text or a failure message in w (NUL-terminated, n bytes).
 * Returns its kind and sets *at to where it starts (after any value glued in
 * front of it); *msg is where the message proper starts. */
static enum noise find_noise(const struct tp *t, const char *w, int row_start, size_t *at, size_t *msg)
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
			while (k > 0 && !nt_is_space(w[k - 1]))
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
static int cells_from(const char *s, const char *e, char cells[][CELL_MAX], int have, int *too_long)
{
	const char *ws, *we;
	int n = have;

	while (nt_next_word(&s, e, &ws, &we)) {
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

	if (n > ROW_CELLS_MAX || row_from_cells(&t->lay, cells, n, half, &row, why, sizeof(why)) < 0) {
		if (!strict) {
			t->r->rows_incomplete++;
			return 0;
		}
		if (n > ROW_CELLS_MAX)
			snprintf(why, sizeof(why), "expected %d columns in a table row, got %d", t->lay.words_full, n);
		return gl_errf(t->err, GL_EINVAL, "line %d: %s", line, why);
	}
	row.block = t->r->headers > 0 ? t->r->headers - 1 : 0;
	row.line = line;
	snprintf(where, sizeof(where), "line %d", line);
	return nt_push_row(t->r, &t->rows_cap, &row, where, t->err);
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
	return gl_errf(t->err, GL_EINVAL, "line %d: expected %d columns in a table row, got %d", pd->line,
		       t->lay.words_full, pd->n);
}

/* A row with one half's words: in-place only (the out-of-place half left
 * blank) when its first measured value ends under the in-place labels. */
static int looks_inplace_only(const struct tp *t, const char *w, size_t at)
{
	const char *p = w, *ws = NULL, *we = NULL;
	long e;

	for (int k = 0; k <= t->lay.lead_words; k++)
		if (!nt_next_word(&p, w + at, &ws, &we))
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

	while (nt_next_word(&s, e, &ws, &we)) {
		if (nt_word_is(ws, we, key) && nt_next_word(&s, e, &ws, &we)) {
			char num[16];
			int v;
			if ((size_t)(we - ws) >= sizeof(num))
				return -1;
			memcpy(num, ws, (size_t)(we - ws));
			num[we - ws] = '\0';
			return nt_parse_int(num, &v) == 0 && v >= 0 ? v : -1;
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
	for (c++; nt_is_space(*c); c++)
		;
	return c;
}

static const char *const known_hash_lines[] = {
	"Using devices",        "Blocking Enabled",  "Parallel Init Enabled",
	"Per-Iteration Report", "Reducing maxBytes", "Writing JSON output",
	"skipping json output", "GPU memory usage",  "Collective test concluded",
	"Out of bounds values", "Avg bus bandwidth",
};

static int hash_line(struct tp *t, const char *w, size_t n)
{
	struct gl_nccl_result *r = t->r;
	const char *e = w + n, *p = w + 1, *ws, *we, *q = p;

	while (nt_is_space(*p))
		p++;
	if (!*p)
		return 0; /* "#" */
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
	if (nt_next_word(&q, e, &ws, &we) && nt_word_is(ws, we, "size") && nt_next_word(&q, e, &ws, &we) &&
	    nt_word_is(ws, we, "count"))
		return layout_from_header(t, w, n);
	if (starts(p, "(B)") || strstr(p, "out-of-place") || strstr(p, "in-place"))
		return 0;
	if (starts(p, "Out of bounds values") && (q = after_colon(p)) && nt_is_digit(*q)) {
		long v = strtol(q, NULL, 10);
		r->have_oob = 1;
		nt_sat_add(&r->oob_values, v < 0 ? 0 : v);
		return 0;
	}
	if (starts(p, "Avg bus bandwidth") && (q = after_colon(p))) {
		char num[CELL_MAX];
		double d;
		const char *s = q;
		if (nt_next_word(&s, e, &ws, &we) && (size_t)(we - ws) < sizeof(num)) {
			memcpy(num, ws, (size_t)(we - ws));
			num[we - ws] = '\0';
			if (nt_parse_num(num, &d) == 0 && !r->have_avg) {
				r->have_avg = 1;
				r->avg_busbw = isfinite(d) ? d : -1;
			}
		}
		return 0;
	}
	if (starts(p, "Collective test starting:")) {
		q = after_colon(p);
		if (!r->collective[0])
			nt_copy_printable(r->collective, sizeof(r->collective), q, strlen(q));
		return 0;
	}
	if (starts(p, "nccl-tests version ") || starts(p, "rccl-tests version ")) {
		const char *s = p + 19;
		int v;
		if (nt_next_word(&s, e, &ws, &we) && !r->tests_version[0])
			nt_copy_printable(r->tests_version, sizeof(r->tests_version), ws, (size_t)(we - ws));
		v = -1;
		for (s = p; (s = strstr(s, "library=")); s += 8) {
			char num[16];
			size_t k = 0;
			while (k + 1 < sizeof(num) && nt_is_digit(s[8 + k])) {
				num[k] = s[8 + k];
				k++;
			}
			num[k] = '\0';
			if (k && nt_parse_int(num, &v) == 0 && !r->nccl_version)
				r->nccl_version = v;
		}
		return 0;
	}
	if (starts(p, "error:")) {
		/* NCCL's last error, which newer nccl-tests print at the end */
		q = after_colon(p);
		if (*q)
			nt_note_failure(r, q, strlen(q));
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
		if (!nt_is_digit(*p))
			return 0;
		while (nt_is_digit(*p))
			p++;
		if (*p++ != ',' || !nt_is_digit(*p))
			return 0;
		while (nt_is_digit(*p))
			p++;
		if (*p++ != ']')
			return 0;
		if (starts(p, "<stdout>:"))
			return (size_t)(p + 9 - w);
		if (starts(p, "<stderr>:"))
			return (size_t)(p + 9 - w);
		return 0;
	}
	while (nt_is_space(*p))
		p++;
	if (!nt_is_digit(*p))
		return 0;
	while (nt_is_digit(*p))
		p++;
	if (p[0] == ':' && p[1] == ' ')
		return (size_t)(p + 2 - w);
	return 0;
}

static int is_cell_word(const char *s)
{
	double d;

	return strcmp(s, "N/A") == 0 || nt_parse_num(s, &d) == 0;
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
	while (n > 0 && nt_is_space(w[n - 1]))
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
		row_start = nt_next_word(&s, w + n, &ws, &we) && nt_all_digits(ws, (size_t)(we - ws)) &&
			    nt_next_word(&s, w + n, &ws, &we) && nt_all_digits(ws, (size_t)(we - ws));
	}
	nk = find_noise(t, w, row_start, &at, &msg);
	if (nk == N_FAIL)
		nt_note_failure(t->r, w + msg, n - msg);
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
			return gl_errf(t->err, GL_EINVAL, "line %d: table row before the table header", t->line_no);
		nc = cells_from(w, w + at, cells, 0, &too_long);
		if (too_long)
			return gl_errf(t->err, GL_EINVAL, "line %d: a cell of the table row is longer than %d bytes",
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

	nt_result_init(r, 0);
	if (!buf && len)
		return gl_errf(err, GL_EINVAL, "nccl-tests output: NULL buffer");
	if (len > GL_NCCL_MAX_INPUT)
		return gl_errf(err, GL_ELIMIT, "nccl-tests output: %zu bytes, more than the %u-byte limit", len,
			       GL_NCCL_MAX_INPUT);
	t = calloc(1, sizeof(*t));
	w = malloc(GL_NCCL_MAX_LINE + 1);
	if (!t || !w) {
		rc = gl_errf(err, GL_ENOMEM, "nccl-tests output: out of memory");
		goto out;
	}
	t->r = r;
	t->err = err;
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		pos = 3; /* a UTF-8 byte order mark (a log saved by an editor) */
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;

		t->line_no++;
		if (n > GL_NCCL_MAX_LINE) {
			rc = gl_errf(err, GL_ELIMIT, "line %d: longer than %u bytes", t->line_no, GL_NCCL_MAX_LINE);
			goto out;
		}
		for (size_t i = 0; i < n; i++) /* a NUL (a crashed node's file hole) is a blank */
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
			rc = gl_errf(err, GL_EINVAL, "no nccl-tests header or table in %d lines; first failure: %s",
				     t->line_no, r->failure);
		else
			rc = gl_errf(err, GL_EINVAL,
				     "no nccl-tests header or table in %d lines (not nccl-tests output?)", t->line_no);
	}
out:
	free(w);
	free(t);
	return rc;
}
