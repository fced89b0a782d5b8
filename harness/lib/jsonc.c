/*
 * jsonc.c - a strict single-pass recursive-descent parser for JSON with //
 * and block comments. It reads the raw bytes once, checks RFC 8259 syntax,
 * UTF-8 (in strings and comments alike), escapes, nesting depth, duplicate
 * keys and number range, and builds the cJSON tree as it goes, recording the
 * line and column of every node it creates. The records are sorted by node
 * address at the end so that gl_jsonc_where is a binary search. Errors stop
 * the parse at the first problem in document order and name NAME:LINE:COL.
 */
#include "jsonc.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lines and columns are ints; refuse inputs they could not count. */
#define JSONC_MAX_INPUT ((size_t)INT_MAX / 2)

struct node_pos {
	const cJSON *node;
	int line, col;
};

struct gl_jsonc_doc {
	cJSON *root;
	char *name;
	struct node_pos *pos; /* sorted by node address */
	size_t n_pos;
};

/* One key already seen in one object: the open-addressing set that finds
 * duplicate keys without comparing every pair. */
struct key_slot {
	const cJSON *obj; /* NULL: empty slot */
	const char *key; /* the member's ->string, owned by the tree */
	uint64_t hash;
	int line, col;
};

struct parser {
	const unsigned char *p, *end;
	const unsigned char *line_start;
	int line;
	const char *name;
	struct gl_err *err;
	int failed;
	char *scratch; /* decoded string, len + 1 bytes */
	struct node_pos *pos;
	size_t n_pos, cap_pos;
	struct key_slot *keys;
	size_t n_keys, cap_keys; /* cap is a power of two */
};

struct lc {
	int line, col;
};

static struct lc here(const struct parser *ps)
{
	struct lc at = { ps->line, (int)(ps->p - ps->line_start) + 1 };
	return at;
}

/* Only the first error is kept (gl_errf does that too); failed stops
 * callers that would otherwise carry on after a NULL. */
static void fail(struct parser *ps, struct lc at, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void fail(struct parser *ps, struct lc at, int code, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = 1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	gl_errf(ps->err, code, "%s:%d:%d: %s", ps->name, at.line, at.col, what);
}

/* Length of the well-formed UTF-8 sequence at p (2..4 bytes, p[0] >= 0x80),
 * or 0 with *why naming the defect. */
static int utf8_len(const unsigned char *p, const unsigned char *end, const char **why)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xBF;
	int n;

	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		if (c == 0xE0)
			lo = 0xA0; /* below: overlong */
		if (c == 0xED)
			hi = 0x9F; /* above: a UTF-16 surrogate */
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		if (c == 0xF0)
			lo = 0x90; /* below: overlong */
		if (c == 0xF4)
			hi = 0x8F; /* above: past U+10FFFF */
	} else {
		*why = c == 0xC0 || c == 0xC1 ? "overlong UTF-8 sequence"
		       : c < 0xC0             ? "stray UTF-8 continuation byte"
					      : "invalid UTF-8 byte";
		return 0;
	}
	if (end - p < n) {
		*why = "truncated UTF-8 sequence";
		return 0;
	}
	if (p[1] < lo || p[1] > hi) {
		*why = p[1] < 0x80 || p[1] > 0xBF ? "truncated UTF-8 sequence"
		       : c == 0xED                ? "UTF-8 encoded surrogate"
		       : c == 0xF4                ? "UTF-8 sequence past U+10FFFF"
						  : "overlong UTF-8 sequence";
		return 0;
	}
	for (int i = 2; i < n; i++) {
		if (p[i] < 0x80 || p[i] > 0xBF) {
			*why = "truncated UTF-8 sequence";
			return 0;
		}
	}
	return n;
}

/* Describe the token at p for "unexpected X": a quoted character, or what
 * the byte is when it cannot be shown. */
static const char *describe(const struct parser *ps, const unsigned char *p, char *buf, size_t n)
{
	const char *why;
	int len;

	if (p >= ps->end)
		return "end of input";
	if (*p == '\0')
		return "NUL byte";
	if (*p == '\n')
		return "newline";
	if (*p < 0x20 || *p == 0x7f) {
		snprintf(buf, n, "control character 0x%02x", *p);
		return buf;
	}
	if (*p < 0x80) {
		snprintf(buf, n, "'%c'", *p);
		return buf;
	}
	if (ps->end - p >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
		return "byte order mark";
	len = utf8_len(p, ps->end, &why);
	if (len > 0)
		snprintf(buf, n, "'%.*s'", len, (const char *)p);
	else
		snprintf(buf, n, "%s (byte 0x%02x)", why, *p);
	return buf;
}

static void unexpected(struct parser *ps, const char *expected)
{
	char buf[64];

	fail(ps, here(ps), GL_EINVAL, "unexpected %s, expected %s", describe(ps, ps->p, buf, sizeof(buf)), expected);
}

static int record(struct parser *ps, const cJSON *node, struct lc at)
{
	if (ps->n_pos == ps->cap_pos) {
		size_t cap = ps->cap_pos ? ps->cap_pos * 2 : 64;
		struct node_pos *np = realloc(ps->pos, cap * sizeof(*np));
		if (!np) {
			fail(ps, at, GL_ENOMEM, "out of memory, expected to keep a position");
			return -1;
		}
		ps->pos = np;
		ps->cap_pos = cap;
	}
	ps->pos[ps->n_pos].node = node;
	ps->pos[ps->n_pos].line = at.line;
	ps->pos[ps->n_pos].col = at.col;
	ps->n_pos++;
	return 0;
}

/* Skips whitespace and comments. Returns 0, or -1 after recording an error
 * (unterminated comment, NUL or bad UTF-8 inside one). */
static int skip_ws(struct parser *ps)
{
	while (ps->p < ps->end) {
		unsigned char c = *ps->p;

		if (c == ' ' || c == '\t' || c == '\r') {
			ps->p++;
		} else if (c == '\n') {
			ps->p++;
			ps->line++;
			ps->line_start = ps->p;
		} else if (c == '/' && ps->end - ps->p >= 2 && (ps->p[1] == '/' || ps->p[1] == '*')) {
			int block = ps->p[1] == '*';
			struct lc start = here(ps);

			ps->p += 2;
			for (;;) {
				const char *why;
				int n;

				if (ps->p >= ps->end) {
					if (!block)
						return 0;
					fail(ps, start, GL_EINVAL, "unterminated comment, expected '*/'");
					return -1;
				}
				c = *ps->p;
				if (c == '\n') {
					if (!block)
						break; /* the outer loop counts it */
					ps->p++;
					ps->line++;
					ps->line_start = ps->p;
				} else if (block && c == '*' && ps->end - ps->p >= 2 && ps->p[1] == '/') {
					ps->p += 2;
					break;
				} else if (c == '\0') {
					fail(ps, here(ps), GL_EINVAL, "NUL byte in comment, expected text");
					return -1;
				} else if (c < 0x80) {
					ps->p++;
				} else if ((n = utf8_len(ps->p, ps->end, &why)) > 0) {
					ps->p += n;
				} else {
					fail(ps, here(ps), GL_EINVAL,
					     "%s (byte 0x%02x) in comment, expected valid UTF-8", why, c);
					return -1;
				}
			}
		} else {
			return 0;
		}
	}
	return 0;
}

static int hex4(const unsigned char *p, const unsigned char *end, unsigned *out)
{
	unsigned v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		unsigned char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Parses the string at p (which is '"') into ps->scratch, NUL-terminated.
 * Decoded text is never longer than its source, so scratch (input length
 * + 1) always holds it. */
/* One escape at ps->p (a backslash): its text written at *o, which moves
 * past it. Returns 0, or -1 after fail(). */
static int parse_escape(struct parser *ps, char **o)
{
	struct lc esc = here(ps);
	unsigned cp, lo;
	unsigned char e = ps->p + 1 < ps->end ? ps->p[1] : 0;
	static const char simple_in[] = "\"\\/bfnrt", simple_out[] = "\"\\/\b\f\n\r\t";
	const char *s = e ? strchr(simple_in, e) : NULL;

	if (s) {
		**o = simple_out[s - simple_in];
		(*o)++;
		ps->p += 2;
		return 0;
	}
	if (e != 'u') {
		char buf[64];
		ps->p++;
		fail(ps, esc, GL_EINVAL,
		     "invalid escape: '\\' followed by %s, expected one of "
		     "\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX",
		     describe(ps, ps->p, buf, sizeof(buf)));
		return -1;
	}
	if (hex4(ps->p + 2, ps->end, &cp) < 0) {
		fail(ps, esc, GL_EINVAL, "invalid \\u escape, expected four hex digits");
		return -1;
	}
	ps->p += 6;
	if (cp == 0) {
		fail(ps, esc, GL_EINVAL, "\\u0000 in string, expected a character other than NUL");
		return -1;
	}
	if (cp >= 0xDC00 && cp <= 0xDFFF) {
		fail(ps, esc, GL_EINVAL, "lone low surrogate \\u%04X, expected a high surrogate first", cp);
		return -1;
	}
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' || hex4(ps->p + 2, ps->end, &lo) < 0 ||
		    lo < 0xDC00 || lo > 0xDFFF) {
			fail(ps, esc, GL_EINVAL,
			     "lone high surrogate \\u%04X, expected a \\uDC00-\\uDFFF "
			     "low surrogate after it",
			     cp);
			return -1;
		}
		ps->p += 6;
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	}
	*o += put_utf8(*o, cp);
	return 0;
}

static int parse_string(struct parser *ps)
{
	struct lc start = here(ps);
	char *o = ps->scratch;

	ps->p++;
	for (;;) {
		unsigned char c;
		const char *why;
		int n;

		if (ps->p >= ps->end || *ps->p == '\n') {
			fail(ps, start, GL_EINVAL, "unterminated string, expected '\"'");
			return -1;
		}
		c = *ps->p;
		if (c == '"') {
			ps->p++;
			*o = '\0';
			return 0;
		}
		if (c == '\0') {
			fail(ps, here(ps), GL_EINVAL, "NUL byte in string, expected text or '\"'");
			return -1;
		}
		if (c < 0x20) {
			fail(ps, here(ps), GL_EINVAL,
			     "control character 0x%02x in string, expected an escape such as \\t", c);
			return -1;
		}
		if (c >= 0x80) {
			if ((n = utf8_len(ps->p, ps->end, &why)) == 0) {
				fail(ps, here(ps), GL_EINVAL, "%s (byte 0x%02x) in string, expected valid UTF-8", why,
				     c);
				return -1;
			}
			memcpy(o, ps->p, (size_t)n);
			o += n;
			ps->p += n;
			continue;
		}
		if (c != '\\') {
			*o++ = (char)c;
			ps->p++;
			continue;
		}

		if (parse_escape(ps, &o) != 0)
			return -1;
	}
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static cJSON *parse_number(struct parser *ps)
{
	struct lc start = here(ps);
	const unsigned char *s = ps->p;
	char small[128], *tmp = small, *endp;
	size_t len;
	double v;
	cJSON *node = NULL;

	if (*ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end || !is_digit(*ps->p)) {
		unexpected(ps, "a digit after '-'");
		return NULL;
	}
	if (*ps->p == '0') {
		ps->p++;
		if (ps->p < ps->end && is_digit(*ps->p)) {
			unexpected(ps, "'.', 'e' or the end of the number (no leading zeros)");
			return NULL;
		}
	} else {
		while (ps->p < ps->end && is_digit(*ps->p))
			ps->p++;
	}
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (ps->p >= ps->end || !is_digit(*ps->p)) {
			unexpected(ps, "a digit after '.'");
			return NULL;
		}
		while (ps->p < ps->end && is_digit(*ps->p))
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || !is_digit(*ps->p)) {
			unexpected(ps, "a digit in the exponent");
			return NULL;
		}
		while (ps->p < ps->end && is_digit(*ps->p))
			ps->p++;
	}

	/* The text need not be NUL-terminated: convert a copy. */
	len = (size_t)(ps->p - s);
	if (len >= sizeof(small) && !(tmp = malloc(len + 1))) {
		fail(ps, start, GL_ENOMEM, "out of memory, expected room for a number");
		return NULL;
	}
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	v = strtod(tmp, &endp);
	if (*endp != '\0') {
		fail(ps, start, GL_EINVAL,
		     "number '%.32s' the C library cannot read, expected "
		     "the C locale",
		     tmp);
	} else if (!isfinite(v)) {
		fail(ps, start, GL_EINVAL, "number '%.32s%s' out of range, expected a finite number", tmp,
		     len > 32 ? "..." : "");
	} else if (!(node = cJSON_CreateNumber(v))) {
		fail(ps, start, GL_ENOMEM, "out of memory, expected room for a number");
	}
	if (tmp != small)
		free(tmp);
	return node;
}

static cJSON *parse_literal(struct parser *ps)
{
	static const struct {
		const char *word;
		int type; /* 0 null, 1 false, 2 true */
	} lits[] = { { "null", 0 }, { "false", 1 }, { "true", 2 } };
	const unsigned char *s = ps->p;
	size_t n = 0;
	cJSON *node = NULL;

	while (s + n < ps->end && n < 32 &&
	       ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') || is_digit(s[n]) || s[n] == '_'))
		n++;
	for (size_t i = 0; i < GL_ARRAY_LEN(lits); i++) {
		if (strlen(lits[i].word) != n || memcmp(lits[i].word, s, n) != 0)
			continue;
		node = lits[i].type == 0 ? cJSON_CreateNull() : cJSON_CreateBool(lits[i].type == 2);
		if (!node) {
			fail(ps, here(ps), GL_ENOMEM, "out of memory, expected room for a value");
			return NULL;
		}
		ps->p += n;
		return node;
	}
	fail(ps, here(ps), GL_EINVAL,
	     "unexpected '%.*s%s', expected a value (true, false, null, "
	     "a number, a \"string\", [ or {)",
	     (int)n, (const char *)s, n == 32 ? "..." : "");
	return NULL;
}

static uint64_t key_hash(const cJSON *obj, const char *key)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)(uintptr_t)obj;

	for (; *key; key++) {
		h ^= (unsigned char)*key;
		h *= 1099511628211ULL;
	}
	h ^= h >> 29;
	return h;
}

static struct key_slot *key_find(struct parser *ps, const cJSON *obj, const char *key, uint64_t h)
{
	size_t mask = ps->cap_keys - 1, i = (size_t)h & mask;

	for (;; i = (i + 1) & mask) {
		struct key_slot *k = &ps->keys[i];
		if (!k->obj || (k->obj == obj && k->hash == h && strcmp(k->key, key) == 0))
			return k;
	}
}

static int key_add(struct parser *ps, const cJSON *obj, const char *key, struct lc at)
{
	struct key_slot *k;
	uint64_t h = key_hash(obj, key);

	if (2 * (ps->n_keys + 1) > ps->cap_keys) {
		size_t cap = ps->cap_keys ? ps->cap_keys * 2 : 64;
		struct key_slot *old = ps->keys;
		size_t old_cap = ps->cap_keys;

		if (!(ps->keys = calloc(cap, sizeof(*ps->keys)))) {
			ps->keys = old;
			fail(ps, at, GL_ENOMEM, "out of memory, expected room for a key");
			return -1;
		}
		ps->cap_keys = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i].obj)
				*key_find(ps, old[i].obj, old[i].key, old[i].hash) = old[i];
		free(old);
	}
	k = key_find(ps, obj, key, h);
	k->obj = obj;
	k->key = key;
	k->hash = h;
	k->line = at.line;
	k->col = at.col;
	ps->n_keys++;
	return 0;
}

/* Show a key in a message: quotes and control characters escaped, at most
 * about 60 bytes, cut only between characters (the key is valid UTF-8). */
static const char *show_key(const char *key, char *buf, size_t n)
{
	const unsigned char *s = (const unsigned char *)key;
	size_t k = 0;

	while (*s && k < 60 && k + 8 < n) {
		unsigned char c = *s;
		size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;

		if (c == '"' || c == '\\') {
			buf[k++] = '\\';
			buf[k++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			k += (size_t)snprintf(buf + k, n - k, "\\u%04x", c);
		} else {
			memcpy(buf + k, s, len);
			k += len;
		}
		s += len;
	}
	if (*s && k + 4 <= n) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = '\0';
	return buf;
}

static cJSON *parse_value(struct parser *ps, int depth);

static cJSON *parse_array(struct parser *ps, int depth)
{
	cJSON *arr = cJSON_CreateArray();

	if (!arr) {
		fail(ps, here(ps), GL_ENOMEM, "out of memory, expected room for an array");
		return NULL;
	}
	ps->p++;
	if (skip_ws(ps) < 0)
		goto fail_out;
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		return arr;
	}
	for (;;) {
		struct lc at;
		cJSON *item;

		if (skip_ws(ps) < 0)
			goto fail_out;
		at = here(ps);
		if (ps->p < ps->end && *ps->p == ']') {
			unexpected(ps, "a value (no trailing commas)");
			goto fail_out;
		}
		if (!(item = parse_value(ps, depth)))
			goto fail_out;
		cJSON_AddItemToArray(arr, item);
		if (record(ps, item, at) < 0 || skip_ws(ps) < 0)
			goto fail_out;
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == ']') {
			ps->p++;
			return arr;
		}
		unexpected(ps, "',' or ']'");
		goto fail_out;
	}
fail_out:
	cJSON_Delete(arr);
	return NULL;
}

static cJSON *parse_object(struct parser *ps, int depth)
{
	cJSON *obj = cJSON_CreateObject();
	char *key = NULL;

	if (!obj) {
		fail(ps, here(ps), GL_ENOMEM, "out of memory, expected room for an object");
		return NULL;
	}
	ps->p++;
	if (skip_ws(ps) < 0)
		goto fail_out;
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		return obj;
	}
	for (;;) {
		struct lc at;
		struct key_slot *dup;
		cJSON *item;

		if (skip_ws(ps) < 0)
			goto fail_out;
		at = here(ps);
		if (ps->p >= ps->end || *ps->p != '"') {
			unexpected(ps,
				   ps->p < ps->end && *ps->p == '}' ? "a \"key\" (no trailing commas)" : "a \"key\"");
			goto fail_out;
		}
		if (parse_string(ps) < 0)
			goto fail_out;
		if (ps->cap_keys) {
			uint64_t h = key_hash(obj, ps->scratch);
			dup = key_find(ps, obj, ps->scratch, h);
			if (dup->obj) {
				char buf[128];
				fail(ps, at, GL_EINVAL, "duplicate key \"%s\" (first at %d:%d)",
				     show_key(ps->scratch, buf, sizeof(buf)), dup->line, dup->col);
				goto fail_out;
			}
		}
		/* Parsing the value reuses scratch: keep the key. */
		if (!(key = strdup(ps->scratch))) {
			fail(ps, at, GL_ENOMEM, "out of memory, expected room for a key");
			goto fail_out;
		}
		if (skip_ws(ps) < 0)
			goto fail_out;
		if (ps->p >= ps->end || *ps->p != ':') {
			unexpected(ps, "':'");
			goto fail_out;
		}
		ps->p++;
		if (skip_ws(ps) < 0)
			goto fail_out;
		if (!(item = parse_value(ps, depth)))
			goto fail_out;
		if (!cJSON_AddItemToObject(obj, key, item)) {
			cJSON_Delete(item);
			fail(ps, at, GL_ENOMEM, "out of memory, expected room for a member");
			goto fail_out;
		}
		free(key);
		key = NULL;
		if (record(ps, item, at) < 0 || key_add(ps, obj, item->string, at) < 0 || skip_ws(ps) < 0)
			goto fail_out;
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == '}') {
			ps->p++;
			return obj;
		}
		unexpected(ps, "',' or '}'");
		goto fail_out;
	}
fail_out:
	free(key);
	cJSON_Delete(obj);
	return NULL;
}

/* Parses one value at p (whitespace already skipped). depth is the number
 * of containers around it. */
static cJSON *parse_value(struct parser *ps, int depth)
{
	unsigned char c;

	if (ps->p >= ps->end) {
		unexpected(ps, "a value");
		return NULL;
	}
	c = *ps->p;
	if (c == '{' || c == '[') {
		if (depth >= GL_JSONC_MAX_DEPTH) {
			fail(ps, here(ps), GL_EINVAL, "'%c' nested %d deep, expected at most %d levels of nesting", c,
			     depth + 1, GL_JSONC_MAX_DEPTH);
			return NULL;
		}
		return c == '{' ? parse_object(ps, depth + 1) : parse_array(ps, depth + 1);
	}
	if (c == '"') {
		cJSON *node;
		struct lc at = here(ps);
		if (parse_string(ps) < 0)
			return NULL;
		if (!(node = cJSON_CreateString(ps->scratch)))
			fail(ps, at, GL_ENOMEM, "out of memory, expected room for a string");
		return node;
	}
	if (c == '-' || is_digit(c))
		return parse_number(ps);
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return parse_literal(ps);
	unexpected(ps, "a value");
	return NULL;
}

static int cmp_pos(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct node_pos *)a)->node;
	uintptr_t y = (uintptr_t)((const struct node_pos *)b)->node;

	return x < y ? -1 : x > y;
}

struct gl_jsonc_doc *gl_jsonc_parse(const char *text, size_t len, const char *name, struct gl_err *err)
{
	struct parser ps;
	struct gl_jsonc_doc *doc = NULL;
	cJSON *root = NULL;
	struct lc at;

	memset(&ps, 0, sizeof(ps));
	ps.name = name ? name : "<input>";
	ps.err = err;
	ps.line = 1;
	if (!text && len) {
		gl_errf(err, GL_EINVAL, "%s: no text to parse", ps.name);
		return NULL;
	}
	if (len > JSONC_MAX_INPUT) {
		gl_errf(err, GL_ELIMIT, "%s: %zu bytes is too large to parse", ps.name, len);
		return NULL;
	}
	ps.p = ps.line_start = (const unsigned char *)(text ? text : "");
	ps.end = ps.p + len;

	if (!(ps.scratch = malloc(len + 1)) || !(doc = calloc(1, sizeof(*doc))) || !(doc->name = strdup(ps.name))) {
		gl_errf(err, GL_ENOMEM, "%s: out of memory", ps.name);
		goto fail_out;
	}
	if (skip_ws(&ps) < 0)
		goto fail_out;
	at = here(&ps);
	if (ps.p >= ps.end) {
		fail(&ps, at, GL_EINVAL, "empty file, expected a JSON value");
		goto fail_out;
	}
	if (!(root = parse_value(&ps, 0)) || record(&ps, root, at) < 0 || skip_ws(&ps) < 0)
		goto fail_out;
	if (ps.p < ps.end) {
		unexpected(&ps, "the end of the input after the top-level value");
		goto fail_out;
	}

	qsort(ps.pos, ps.n_pos, sizeof(*ps.pos), cmp_pos);
	doc->root = root;
	doc->pos = ps.pos;
	doc->n_pos = ps.n_pos;
	free(ps.scratch);
	free(ps.keys);
	return doc;

fail_out:
	/* Make sure a failure always says something, even from a path that
	 * forgot to (fail() and gl_errf keep the first message). */
	fail(&ps, here(&ps), GL_EINVAL, "parse failed, expected valid JSON");
	cJSON_Delete(root);
	free(ps.scratch);
	free(ps.keys);
	free(ps.pos);
	if (doc)
		free(doc->name);
	free(doc);
	return NULL;
}

void gl_jsonc_free(struct gl_jsonc_doc *doc)
{
	if (!doc)
		return;
	cJSON_Delete(doc->root);
	free(doc->pos);
	free(doc->name);
	free(doc);
}

cJSON *gl_jsonc_root(const struct gl_jsonc_doc *doc)
{
	return doc ? doc->root : NULL;
}

const char *gl_jsonc_name(const struct gl_jsonc_doc *doc)
{
	return doc ? doc->name : NULL;
}

int gl_jsonc_where(const struct gl_jsonc_doc *doc, const cJSON *node, int *line, int *col)
{
	struct node_pos key = { node, 0, 0 };
	const struct node_pos *hit;

	if (!doc || !node || !doc->n_pos)
		return -1;
	hit = bsearch(&key, doc->pos, doc->n_pos, sizeof(*doc->pos), cmp_pos);
	if (!hit)
		return -1;
	if (line)
		*line = hit->line;
	if (col)
		*col = hit->col;
	return 0;
}
