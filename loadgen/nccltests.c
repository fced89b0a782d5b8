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
 *
 * This file: the small helpers and the result both readers share,
 * gl_nccl_parse, and the judging helpers; the text reader is in
 * nccltests_text.c, the JSON one in nccltests_json.c (nccltests_int.h).
 */
#include "nccltests_int.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------ */

int nt_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int nt_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Characters of the hostname in NCCL's "host:pid:tid [dev] NCCL" prefix and in
 * nccl-tests' failure lines (getHostName cuts the name at the first dot). */
int nt_is_host_char(char c)
{
	return nt_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
}

/* The next whitespace-separated word of [*p, e): its bounds, or 0 at the end. */
int nt_next_word(const char **p, const char *e, const char **ws, const char **we)
{
	const char *s = *p;

	while (s < e && nt_is_space(*s))
		s++;
	if (s >= e) {
		*p = e;
		return 0;
	}
	*ws = s;
	while (s < e && !nt_is_space(*s))
		s++;
	*we = s;
	*p = s;
	return 1;
}

int nt_word_is(const char *ws, const char *we, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(we - ws) == n && memcmp(ws, lit, n) == 0;
}

int nt_all_digits(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!nt_is_digit(s[i]))
			return 0;
	return 1;
}

/* Copy at most n-1 bytes of [s, s+len) into out, printable ASCII only. */
void nt_copy_printable(char *out, size_t n, const char *s, size_t len)
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

int nt_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = strlen(s);

	if (!nt_all_digits(s, n))
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

int nt_parse_int(const char *s, int *out)
{
	long long v = 0;
	int neg = 0;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!nt_all_digits(s, strlen(s)))
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
int nt_parse_num(const char *s, double *out)
{
	const char *p = s, *w;
	int mant = 0;

	if (*p == '+' || *p == '-')
		p++;
	w = p;
	if (strcasecmp(w, "inf") == 0 || strcasecmp(w, "infinity") == 0 || strcasecmp(w, "nan") == 0) {
		*out = NAN;
		return 0;
	}
	while (nt_is_digit(*p)) {
		p++;
		mant = 1;
	}
	if (*p == '.') {
		p++;
		while (nt_is_digit(*p)) {
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
		if (!nt_is_digit(*p))
			return -1;
		while (nt_is_digit(*p))
			p++;
	}
	if (*p)
		return -1;
	*out = strtod(s, NULL);
	return 0;
}

/* A measured value: -1 for absent, inf or nan. */
double nt_metric(double v)
{
	return isfinite(v) && v >= 0 ? v : -1;
}

void nt_sat_add(long *acc, long v)
{
	if (v > 0 && *acc > LONG_MAX - v)
		*acc = LONG_MAX;
	else
		*acc += v;
}

/* A whole, non-negative count given as a double (#wrong, nwrong). */
int nt_count_from_double(double d, long *out)
{
	if (!isfinite(d) || d < 0 || d != floor(d))
		return -1;
	*out = d >= (double)LONG_MAX ? LONG_MAX : (long)d;
	return 0;
}

/* ---- the result --------------------------------------------------------- */

void nt_result_init(struct gl_nccl_result *r, int from_json)
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
	nt_result_init(r, 0);
}

void nt_row_init(struct gl_nccl_row *row)
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
int nt_push_row(struct gl_nccl_result *r, int *cap, const struct gl_nccl_row *row, const char *where,
		struct gl_err *err)
{
	if (r->nrows >= GL_NCCL_MAX_ROWS)
		return gl_errf(err, GL_ELIMIT, "%s: more than %d table rows", where, GL_NCCL_MAX_ROWS);
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
			nt_sat_add(&r->wrong_total, row->wrong[i]);
		if (row->err_delta[i] > r->max_err_delta)
			r->max_err_delta = row->err_delta[i];
	}
	return 0;
}

void nt_note_failure(struct gl_nccl_result *r, const char *s, size_t len)
{
	if (r->failures++ == 0)
		nt_copy_printable(r->failure, sizeof(r->failure), s, len);
}

int gl_nccl_parse(const char *buf, size_t len, struct gl_nccl_result *r, struct gl_err *err)
{
	size_t i = 0;

	if (buf && len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (buf && i < len && (nt_is_space(buf[i]) || buf[i] == '\n'))
		i++;
	if (buf && i < len && buf[i] == '[') {
		size_t k = i + 1;
		while (k < len && (nt_is_space(buf[k]) || buf[k] == '\n'))
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
			 r->headers, r->from_json ? "runs" : "header blocks", r->ranks_listed, r->max_rank, r->headers);
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
