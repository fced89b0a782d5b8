/*
 * pdf_dates.c - the dates of report.pdf fixed to the run's, so that
 * printing the same report.html again gives the same bytes and a sealed
 * report.pdf still verifies after `gauntlet report` renders it again.
 *
 * Chromium's printer (Skia) writes the time of printing into the PDF's
 * document information dictionary, as /CreationDate and /ModDate
 * ("D:YYYYMMDDHHmmSS+HH'mm'", local time), and honours no variable that
 * would fix it. Everything else it writes is the same for the same page
 * and the same browser. So the dates are rewritten after printing, in
 * place: each date string becomes the given time in UTC in a form of
 * exactly its old length (D:YYYYMMDDHHmmSS+00'00', +00'00 or Z), so no
 * byte moves and the cross-reference table's offsets stay right. A file
 * identifier (/ID in the trailer), which Chromium does not write today,
 * would be rewritten the same way, to the SHA-256 of the file with its
 * dates fixed and its identifier zeroed.
 *
 * The dictionary is found as a PDF reader finds it: startxref, the
 * cross-reference table there, the trailer's /Info reference, that
 * object's offset in the table. A PDF in another shape (a cross-reference
 * stream, the dictionary in an earlier update, a date in a form that
 * cannot be rewritten at its length) is refused, never guessed at.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "sha256.h"

#define PDF_MAX_BYTES (1LL << 30)
#define PDF_TAIL 1024 /* startxref is within the file's last bytes */
#define XREF_ENTRY 20 /* "oooooooooo ggggg n" and a two-byte end of line */
#define MAX_SPANS 4 /* two dates, two identifier strings */

struct span {
	size_t at, len;
};

static int is_ws(int c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\0';
}

static int is_delim(int c)
{
	return is_ws(c) || (c && strchr("()<>[]{}/%", c));
}

static size_t skip_ws(const char *b, size_t i, size_t end)
{
	while (i < end && is_ws((unsigned char)b[i]))
		i++;
	return i;
}

/* An unsigned decimal at b[*i..end): 0 with *v and *i past it, or -1. */
static int read_uint(const char *b, size_t *i, size_t end, unsigned long long *v)
{
	unsigned long long x = 0;
	size_t k = *i;

	if (k >= end || b[k] < '0' || b[k] > '9')
		return -1;
	for (; k < end && b[k] >= '0' && b[k] <= '9'; k++) {
		if (x > (ULLONG_MAX - 9) / 10)
			return -1;
		x = x * 10 + (unsigned long long)(b[k] - '0');
	}
	*v = x;
	*i = k;
	return 0;
}

static long find_first(const char *b, size_t from, size_t to, const char *s)
{
	const char *p = from < to ? memmem(b + from, to - from, s, strlen(s)) : NULL;
	return p ? (long)(p - b) : -1;
}

static long find_last(const char *b, size_t from, size_t to, const char *s)
{
	size_t k = strlen(s);

	for (size_t i = to >= k ? to - k + 1 : 0; i-- > from;)
		if (!memcmp(b + i, s, k))
			return (long)i;
	return -1;
}

/* The dictionary that starts at b[from] ("<<"), scanned as a reader
 * does (strings, nested dictionaries and comments skipped whole, so a
 * title that reads "/ModDate (x)" or "endobj" is no key): *value the
 * index of the first byte after the top-level key (its value, white space
 * first), 0 when the key is absent; *end the index past the closing ">>".
 * 0, or -1 when no whole dictionary starts there. */
static int dict_key(const char *b, size_t from, size_t to, const char *key, size_t *value, size_t *end)
{
	size_t i = from, k = strlen(key);
	int depth = 0;

	*value = 0;
	if (from + 1 >= to || b[from] != '<' || b[from + 1] != '<')
		return -1;
	while (i < to) {
		char c = b[i];
		if (c == '(') { /* a literal string: escapes, balanced parentheses */
			int level = 1;
			for (i++; i < to && level; i++) {
				if (b[i] == '\\')
					i++;
				else if (b[i] == '(')
					level++;
				else if (b[i] == ')')
					level--;
			}
		} else if (c == '<' && i + 1 < to && b[i + 1] == '<') {
			depth++;
			i += 2;
		} else if (c == '<') { /* a hexadecimal string */
			while (i < to && b[i] != '>')
				i++;
			i++;
		} else if (c == '>' && i + 1 < to && b[i + 1] == '>') {
			i += 2;
			if (--depth == 0) {
				*end = i;
				return 0;
			}
		} else if (c == '%') {
			while (i < to && b[i] != '\n' && b[i] != '\r')
				i++;
		} else if (c == '/') {
			size_t name = i++;
			while (i < to && !is_delim((unsigned char)b[i]))
				i++;
			if (depth == 1 && !*value && i - name == k && !memcmp(b + name, key, k))
				*value = i;
		} else {
			i++;
		}
	}
	return -1;
}

/* The PDF date of wall_ns in UTC, in the form that is len characters
 * long, into out (len + 1 bytes); -1 when no form has that length. */
static int pdf_date(int64_t wall_ns, size_t len, char *out)
{
	time_t s = (time_t)(wall_ns / 1000000000LL);
	struct tm tm;
	char base[32];

	if (!gmtime_r(&s, &tm) || strftime(base, sizeof(base), "D:%Y%m%d%H%M%S", &tm) != 16)
		return -1;
	if (len == 17)
		snprintf(out, len + 1, "%sZ", base);
	else if (len == 22)
		snprintf(out, len + 1, "%s+00'00", base);
	else if (len == 23)
		snprintf(out, len + 1, "%s+00'00'", base);
	else
		return -1;
	return 0;
}

/* "N G" then white space and word ("obj", "R") at b[*i..end): 0 with
 * *i past word, or -1. */
static int num_gen(const char *b, size_t *i, size_t end, unsigned long long *num, unsigned long long *gen,
		   const char *word)
{
	size_t k = skip_ws(b, *i, end), w = strlen(word);

	if (read_uint(b, &k, end, num) != 0)
		return -1;
	k = skip_ws(b, k, end);
	if (read_uint(b, &k, end, gen) != 0)
		return -1;
	k = skip_ws(b, k, end);
	if (k + w > end || memcmp(b + k, word, w) != 0 || (k + w < end && !is_delim((unsigned char)b[k + w])))
		return -1;
	*i = k + w;
	return 0;
}

/* The offset of object num in the cross-reference table at b[xref]
 * ("xref", then sections "FIRST COUNT" of 20-byte entries) ending at tr. */
static int xref_offset(const char *b, size_t xref, size_t tr, unsigned long long num, size_t *off)
{
	size_t i = xref + 4;

	for (;;) {
		unsigned long long first, count;
		size_t entry;

		i = skip_ws(b, i, tr);
		if (i >= tr || read_uint(b, &i, tr, &first) != 0)
			return -1;
		i = skip_ws(b, i, tr);
		if (read_uint(b, &i, tr, &count) != 0)
			return -1;
		i = skip_ws(b, i, tr);
		if (count > (tr - i) / XREF_ENTRY)
			return -1;
		if (num >= first && num - first < count) {
			entry = i + (size_t)(num - first) * XREF_ENTRY;
			for (int k = 0; k < 10; k++)
				if (b[entry + k] < '0' || b[entry + k] > '9')
					return -1;
			if (b[entry + 10] != ' ' || b[entry + 16] != ' ' || b[entry + 17] != 'n')
				return -1;
			*off = (size_t)strtoull(b + entry, NULL, 10);
			return 0;
		}
		i += (size_t)count * XREF_ENTRY;
	}
}

/* A PDF being fixed: its bytes, where its last cross-reference table and
 * trailer lie, and the spans of b rewritten, to be written back. */
struct pdf {
	const char *path;
	char *b;
	size_t size;
	size_t xref, sx, tr; /* "xref", "startxref", "trailer" */
	size_t trailer, trailer_end; /* the trailer dictionary */
	size_t info_at; /* the trailer's /Info value; 0: none */
	struct span spans[MAX_SPANS];
	size_t nspans;
	char *why;
	size_t n;
};

static int fail(struct pdf *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct pdf *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, p->n, fmt, ap);
	va_end(ap);
	return -1;
}

/* The whole file into p->b (NUL-terminated). */
static int read_pdf(struct pdf *p, int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return fail(p, "%s: %s", p->path, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size > PDF_MAX_BYTES)
		return fail(p, "%s: not a regular file of at most %lld bytes", p->path, PDF_MAX_BYTES);
	p->size = (size_t)st.st_size;
	if (!(p->b = malloc(p->size + 1)))
		return fail(p, "%s: out of memory", p->path);
	for (size_t i = 0; i < p->size;) {
		ssize_t r = pread(fd, p->b + i, p->size - i, (off_t)i);
		if (r <= 0)
			return fail(p, "%s: %s", p->path, r < 0 ? strerror(errno) : "shorter than its size");
		i += (size_t)r;
	}
	p->b[p->size] = '\0';
	return 0;
}

/* startxref, a cross-reference table where it points, the trailer. */
static int find_trailer(struct pdf *p)
{
	const char *b = p->b;
	unsigned long long xref;
	long sx, tr;
	size_t i;

	sx = find_last(b, p->size > PDF_TAIL ? p->size - PDF_TAIL : 0, p->size, "startxref");
	i = sx < 0 ? 0 : skip_ws(b, (size_t)sx + 9, p->size);
	if (sx < 0 || read_uint(b, &i, p->size, &xref) != 0 || xref >= (unsigned long long)sx)
		return fail(p, "%s: no startxref", p->path);
	if (memcmp(b + xref, "xref", 4) != 0)
		return fail(
			p,
			"%s: no cross-reference table at startxref (a cross-reference stream?): its dates cannot be "
			"rewritten in place",
			p->path);
	if ((tr = find_first(b, (size_t)xref, (size_t)sx, "trailer")) < 0 ||
	    dict_key(b, skip_ws(b, (size_t)tr + 7, (size_t)sx), (size_t)sx, "/Info", &p->info_at, &p->trailer_end) != 0)
		return fail(p, "%s: no trailer dictionary after the cross-reference table", p->path);
	p->xref = (size_t)xref;
	p->sx = (size_t)sx;
	p->tr = (size_t)tr;
	p->trailer = skip_ws(b, p->tr + 7, p->sx);
	return 0;
}

/* The trailer's /Info N G R: that object, "N G obj << ... >>", its
 * /CreationDate and /ModDate rewritten to wall_ns at their length. */
static int fix_info_dates(struct pdf *p, int64_t wall_ns)
{
	static const char *const keys[] = { "/CreationDate", "/ModDate" };
	char *b = p->b;
	unsigned long long num = 0, gen = 0, v1, v2;
	size_t at = p->info_at, info = 0, info_end;

	if (!at)
		return 0;
	if (num_gen(b, &at, p->trailer_end, &num, &gen, "R") != 0)
		return fail(p, "%s: the trailer's /Info is not a reference", p->path);
	if (xref_offset(b, p->xref, p->tr, num, &info) != 0 || info >= p->size)
		return fail(p, "%s: object %llu is not in use in the last cross-reference table", p->path, num);
	if (num_gen(b, &info, p->size, &v1, &v2, "obj") != 0 || v1 != num || v2 != gen)
		return fail(p, "%s: object %llu %llu is not where the cross-reference table says", p->path, num, gen);
	info = skip_ws(b, info, p->size);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		char date[32];
		size_t open_at, j, len;

		if (dict_key(b, info, p->size, keys[k], &at, &info_end) != 0)
			return fail(p, "%s: object %llu is not a dictionary", p->path, num);
		if (!at)
			continue;
		open_at = skip_ws(b, at, info_end);
		for (j = open_at + 1; j < info_end && b[j] != ')' && b[j] != '(' && b[j] != '\\'; j++)
			;
		if (open_at >= info_end || b[open_at] != '(' || j >= info_end || b[j] != ')')
			return fail(p, "%s: %s is not a plain literal string", p->path, keys[k] + 1);
		len = j - open_at - 1;
		if (pdf_date(wall_ns, len, date) != 0)
			return fail(p, "%s: %s (%.*s) is in no form that can be rewritten at its length", p->path,
				    keys[k] + 1, (int)(len < 40 ? len : 40), b + open_at + 1);
		memcpy(b + open_at + 1, date, len);
		p->spans[p->nspans++] = (struct span){ open_at + 1, len };
	}
	return 0;
}

/* The trailer's /ID [<hex> <hex>], when there is one: both strings the
 * SHA-256 of the file with its dates fixed and its identifier zeroed. */
static int fix_id(struct pdf *p)
{
	char *b = p->b, hex[65];
	struct span ids[2];
	struct gl_sha256 s;
	size_t at, i, nids = 0;

	if (dict_key(b, p->trailer, p->trailer_end, "/ID", &at, &p->trailer_end) != 0 || !at)
		return 0;
	i = skip_ws(b, at, p->trailer_end);
	if (i >= p->trailer_end || b[i++] != '[')
		return fail(p, "%s: the trailer's /ID is not an array", p->path);
	for (; nids < 2; nids++) {
		size_t h;
		i = skip_ws(b, i, p->trailer_end);
		if (i >= p->trailer_end || b[i++] != '<')
			return fail(p, "%s: the trailer's /ID is not two hexadecimal strings", p->path);
		for (h = i; h < p->trailer_end && b[h] && strchr("0123456789abcdefABCDEF", b[h]); h++)
			b[h] = '0';
		if (h >= p->trailer_end || b[h] != '>' || h == i)
			return fail(p, "%s: the trailer's /ID is not two hexadecimal strings", p->path);
		ids[nids] = (struct span){ i, h - i };
		i = h + 1;
	}
	if ((i = skip_ws(b, i, p->trailer_end)) >= p->trailer_end || b[i] != ']')
		return fail(p, "%s: the trailer's /ID is not two hexadecimal strings", p->path);
	gl_sha256_init(&s);
	gl_sha256_update(&s, b, p->size);
	gl_sha256_final_hex(&s, hex);
	for (size_t k = 0; k < nids; k++) {
		for (size_t j = 0; j < ids[k].len; j++)
			b[ids[k].at + j] = hex[j % 64];
		p->spans[p->nspans++] = ids[k];
	}
	return 0;
}

int gl_pdf_fix_dates(const char *path, int64_t wall_ns, char *why, size_t n)
{
	struct pdf p = { .path = path, .why = why, .n = n };
	int fd, rc = -1;

	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fail(&p, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (read_pdf(&p, fd) != 0 || find_trailer(&p) != 0 || fix_info_dates(&p, wall_ns) != 0 || fix_id(&p) != 0)
		goto out;
	for (size_t k = 0; k < p.nspans; k++)
		if (pwrite(fd, p.b + p.spans[k].at, p.spans[k].len, (off_t)p.spans[k].at) != (ssize_t)p.spans[k].len) {
			fail(&p, "%s: %s", path, strerror(errno));
			goto out;
		}
	if (p.nspans && fsync(fd) != 0) {
		fail(&p, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(p.b);
	if (fd >= 0)
		close(fd);
	return rc;
}
