/*
 * jschema.c - the JSON Schema validator of jschema.h. Two passes: the
 * schema is walked whole first (every keyword known, its value of the right
 * kind, every $ref resolved, every pattern compiled and kept), then the
 * document is walked against it. Errors are recorded in the order they are
 * found: the schema's keywords in a fixed order per value, an object's
 * members and an array's items in document order. if, anyOf, oneOf and not
 * evaluate their schemas silently (stopping at the first failure) and
 * report one error of their own.
 */
#include "jschema.h"

#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DRAFT_2020_12 "https://json-schema.org/draft/2020-12/schema"

/* $ref hops at one place of the document before the schema counts as a
 * loop: the published schemas chain two at most. */
#define MAX_REF_HOPS 16

struct path {
	char s[512];
	size_t len;
};

struct pattern {
	const cJSON *node; /* the "pattern" member of the schema */
	regex_t re;
};

struct ctx {
	const cJSON *root;
	struct path doc; /* where in the document */
	struct path sch; /* where in the schema (the first pass) */
	char *err;
	size_t err_n;
	int n_errors;
	int silent; /* > 0: evaluating if, anyOf, oneOf or not */
	int fatal; /* a schema error (-2) was recorded */
	const char *name_of; /* checking this property name (propertyNames) */
	struct pattern *pat;
	size_t n_pat, cap_pat;
};

/* Keywords that only annotate, anywhere in a schema. */
static const char *const annotations[] = {
	"$comment", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
};

static const char *const type_names[] = {
	"null", "boolean", "object", "array", "number", "integer", "string",
};

/* Append one JSON pointer segment (~ and / escaped, control bytes shown as
 * ?); returns the length to restore. A segment longer than SEGMENT_MAX
 * bytes, or a path too long for the buffer, is cut and ends in "...". */
#define SEGMENT_MAX 100

static size_t path_push(struct path *p, const char *seg)
{
	size_t old = p->len, cap = sizeof p->s - 4; /* room for "..." */
	size_t end;

	if (p->len >= cap)
		return old;
	p->s[p->len++] = '/';
	end = p->len + SEGMENT_MAX < cap ? p->len + SEGMENT_MAX : cap;
	for (const unsigned char *q = (const unsigned char *)seg; *q; q++) {
		char esc[2] = { (char)*q, 0 };
		size_t n = 1;

		if (*q == '~' || *q == '/') {
			esc[0] = '~';
			esc[1] = *q == '~' ? '0' : '1';
			n = 2;
		} else if (*q < 0x20 || *q == 0x7f) {
			esc[0] = '?';
		}
		if (p->len + n > end) {
			memcpy(p->s + p->len, "...", 3);
			p->len += 3;
			break;
		}
		memcpy(p->s + p->len, esc, n);
		p->len += n;
	}
	p->s[p->len] = '\0';
	return old;
}

static size_t path_index(struct path *p, int i)
{
	char num[16];

	snprintf(num, sizeof num, "%d", i);
	return path_push(p, num);
}

static void path_pop(struct path *p, size_t old)
{
	p->len = old;
	p->s[old] = '\0';
}

/* A document error at the current path. Counted unless silent; the first
 * one is written to err. */
__attribute__((format(printf, 2, 3))) static void fail(struct ctx *c, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (c->silent)
		return;
	if (++c->n_errors > 1 || !c->err_n)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (c->name_of)
		snprintf(c->err, c->err_n, "%s: property name \"%.60s\": %s", c->doc.len ? c->doc.s : "/", c->name_of,
			 msg);
	else
		snprintf(c->err, c->err_n, "%s: %s", c->doc.len ? c->doc.s : "/", msg);
}

/* A schema error at the current schema path: the whole validation is -2. */
__attribute__((format(printf, 2, 3))) static int refuse(struct ctx *c, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (c->fatal)
		return -2;
	c->fatal = 1;
	if (c->err_n) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		snprintf(c->err, c->err_n, "#%s: %s", c->sch.s, msg);
	}
	return -2;
}

static void render_number(double v, char *buf, size_t n)
{
	snprintf(buf, n, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, n, "%.17g", v);
}

/* A short rendering of a value for a message: scalars as JSON (a long
 * string cut, control bytes as ?), objects and arrays by kind. */
static void render(const cJSON *v, char *buf, size_t n)
{
	if (cJSON_IsString(v)) {
		const unsigned char *s = (const unsigned char *)v->valuestring;
		size_t o = 0, max = n > 64 ? 60 : n - 4;

		buf[o++] = '"';
		for (; *s && o < max; s++)
			buf[o++] = *s < 0x20 || *s == 0x7f || *s == '"' ? '?' : (char)*s;
		if (*s) {
			while (o > 1 && ((unsigned char)buf[o - 1] & 0xc0) == 0x80)
				o--; /* a cut code point */
			if (o > 1 && ((unsigned char)buf[o - 1] & 0xc0) == 0xc0)
				o--;
			memcpy(buf + o, "...", 3);
			o += 3;
		} else {
			buf[o++] = '"';
		}
		buf[o] = '\0';
	} else if (cJSON_IsNumber(v)) {
		render_number(v->valuedouble, buf, n);
	} else if (cJSON_IsTrue(v)) {
		snprintf(buf, n, "true");
	} else if (cJSON_IsFalse(v)) {
		snprintf(buf, n, "false");
	} else if (cJSON_IsNull(v)) {
		snprintf(buf, n, "null");
	} else if (cJSON_IsArray(v)) {
		snprintf(buf, n, "an array");
	} else {
		snprintf(buf, n, "an object");
	}
}

static int is_integer(const cJSON *v)
{
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) && floor(v->valuedouble) == v->valuedouble;
}

static const char *kind_of(const cJSON *v)
{
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsBool(v))
		return "boolean";
	if (cJSON_IsObject(v))
		return "object";
	if (cJSON_IsArray(v))
		return "array";
	if (cJSON_IsString(v))
		return "string";
	return is_integer(v) ? "integer" : "number";
}

static int has_type(const cJSON *v, const char *t)
{
	if (!strcmp(t, "number"))
		return cJSON_IsNumber(v);
	if (!strcmp(t, "integer"))
		return is_integer(v);
	return !strcmp(t, kind_of(v));
}

/* JSON equality: numbers by value, objects by members in any order.
 * depth bounds the recursion (enum and const values come from the schema,
 * whose depth the first pass bounds). */
static int equal(const cJSON *a, const cJSON *b, int depth)
{
	if (depth > GL_JSCHEMA_MAX_DEPTH)
		return 0;
	if (cJSON_IsNumber(a) || cJSON_IsNumber(b))
		return cJSON_IsNumber(a) && cJSON_IsNumber(b) && a->valuedouble == b->valuedouble;
	if ((a->type & 0xff) != (b->type & 0xff))
		return 0;
	if (cJSON_IsString(a))
		return !strcmp(a->valuestring, b->valuestring);
	if (cJSON_IsArray(a)) {
		const cJSON *x = a->child, *y = b->child;

		for (; x && y; x = x->next, y = y->next)
			if (!equal(x, y, depth + 1))
				return 0;
		return !x && !y;
	}
	if (cJSON_IsObject(a)) {
		if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
			return 0;
		for (const cJSON *x = a->child; x; x = x->next) {
			const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);

			if (!y || !equal(x, y, depth + 1))
				return 0;
		}
		return 1;
	}
	return 1; /* true, false, null: same type */
}

/* "#", "#/$defs/NAME", "#/definitions/NAME" (NAME with ~0 and ~1) in the
 * root schema; NULL for anything else. */
static const cJSON *resolve(const cJSON *root, const char *ref)
{
	const char *name;
	const cJSON *defs;
	char key[256];
	size_t n = 0;

	if (!strcmp(ref, "#"))
		return root;
	if (!strncmp(ref, "#/$defs/", 8)) {
		defs = cJSON_GetObjectItemCaseSensitive(root, "$defs");
		name = ref + 8;
	} else if (!strncmp(ref, "#/definitions/", 14)) {
		defs = cJSON_GetObjectItemCaseSensitive(root, "definitions");
		name = ref + 14;
	} else {
		return NULL;
	}
	for (; *name; name++) {
		char ch = *name;

		if (ch == '/' || n + 1 >= sizeof key)
			return NULL;
		if (ch == '~') {
			if (name[1] != '0' && name[1] != '1')
				return NULL;
			ch = *++name == '0' ? '~' : '/';
		}
		key[n++] = ch;
	}
	key[n] = '\0';
	return n && cJSON_IsObject(defs) ? cJSON_GetObjectItemCaseSensitive(defs, key) : NULL;
}

static const regex_t *pattern_of(const struct ctx *c, const cJSON *node)
{
	for (size_t i = 0; i < c->n_pat; i++)
		if (c->pat[i].node == node)
			return &c->pat[i].re;
	return NULL;
}

static void patterns_free(struct ctx *c)
{
	for (size_t i = 0; i < c->n_pat; i++)
		regfree(&c->pat[i].re);
	free(c->pat);
	c->pat = NULL;
	c->n_pat = c->cap_pat = 0;
}

/* ---- the first pass: the schema itself ---- */

static int check_schema(struct ctx *c, const cJSON *s, int depth);

static int check_sub(struct ctx *c, const char *seg, const cJSON *v, int depth)
{
	size_t old = path_push(&c->sch, seg);
	int rc = check_schema(c, v, depth + 1);

	path_pop(&c->sch, old);
	return rc;
}

/* An object whose every member is a schema (properties, $defs). */
static int check_schema_map(struct ctx *c, const cJSON *v, int depth)
{
	if (!cJSON_IsObject(v))
		return refuse(c, "must be an object of schemas");
	for (const cJSON *m = v->child; m; m = m->next)
		if (check_sub(c, m->string, m, depth) < 0)
			return -2;
	return 0;
}

static int check_schema_list(struct ctx *c, const cJSON *v, int depth)
{
	int i = 0;

	if (!cJSON_IsArray(v) || !v->child)
		return refuse(c, "must be a non-empty array of schemas");
	for (const cJSON *m = v->child; m; m = m->next, i++) {
		size_t old = path_index(&c->sch, i);
		int rc = check_schema(c, m, depth + 1);

		path_pop(&c->sch, old);
		if (rc < 0)
			return -2;
	}
	return 0;
}

static int is_string_list(const cJSON *v)
{
	if (!cJSON_IsArray(v))
		return 0;
	for (const cJSON *m = v->child; m; m = m->next)
		if (!cJSON_IsString(m))
			return 0;
	return 1;
}

static int is_type_name(const cJSON *v)
{
	if (!cJSON_IsString(v))
		return 0;
	for (size_t i = 0; i < sizeof type_names / sizeof *type_names; i++)
		if (!strcmp(v->valuestring, type_names[i]))
			return 1;
	return 0;
}

static int check_pattern(struct ctx *c, const cJSON *v)
{
	struct pattern *p;
	int rc;

	if (!cJSON_IsString(v))
		return refuse(c, "must be a string");
	for (const char *q = v->valuestring; *q; q++) {
		if (*q != '\\')
			continue;
		if ((q[1] >= 'a' && q[1] <= 'z') || (q[1] >= 'A' && q[1] <= 'Z') || (q[1] >= '0' && q[1] <= '9'))
			return refuse(c, "\\%c in \"%.200s\" is not POSIX extended regular expression syntax", q[1],
				      v->valuestring);
		if (q[1])
			q++;
	}
	if (c->n_pat == c->cap_pat) {
		size_t cap = c->cap_pat ? c->cap_pat * 2 : 4;
		struct pattern *np = realloc(c->pat, cap * sizeof *np);

		if (!np)
			return refuse(c, "out of memory");
		c->pat = np;
		c->cap_pat = cap;
	}
	p = &c->pat[c->n_pat];
	rc = regcomp(&p->re, v->valuestring, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char why[128];

		regerror(rc, &p->re, why, sizeof why);
		return refuse(c, "\"%.200s\" is not a POSIX extended regular expression: %s", v->valuestring, why);
	}
	p->node = v;
	c->n_pat++;
	return 0;
}

/* One keyword of a schema object; -2 (refuse) when it is unknown or its
 * value is not of the kind the keyword takes. */
static int check_keyword(struct ctx *c, const cJSON *k, int depth)
{
	const char *n = k->string;

	for (size_t i = 0; i < sizeof annotations / sizeof *annotations; i++)
		if (!strcmp(n, annotations[i]))
			return 0;
	if (!strcmp(n, "$schema")) {
		if (depth)
			return refuse(c, "$schema below the top of the schema is not supported");
		if (!cJSON_IsString(k) || strcmp(k->valuestring, DRAFT_2020_12))
			return refuse(c, "only draft 2020-12 (%s) is supported", DRAFT_2020_12);
		return 0;
	}
	if (!strcmp(n, "$id"))
		return depth ? refuse(c, "$id below the top of the schema is not supported") : 0;
	if (!strcmp(n, "type")) {
		if (is_type_name(k))
			return 0;
		if (!cJSON_IsArray(k) || !k->child)
			return refuse(c, "must be a type name or a non-empty array of them");
		for (const cJSON *m = k->child; m; m = m->next)
			if (!is_type_name(m))
				return refuse(c, "must be a type name or a non-empty array of them");
		return 0;
	}
	if (!strcmp(n, "enum"))
		return cJSON_IsArray(k) ? 0 : refuse(c, "must be an array");
	if (!strcmp(n, "const"))
		return 0;
	if (!strcmp(n, "properties") || !strcmp(n, "$defs") || !strcmp(n, "definitions"))
		return check_schema_map(c, k, depth);
	if (!strcmp(n, "required"))
		return is_string_list(k) ? 0 : refuse(c, "must be an array of strings");
	if (!strcmp(n, "dependentRequired")) {
		if (!cJSON_IsObject(k))
			return refuse(c, "must be an object of arrays of strings");
		for (const cJSON *m = k->child; m; m = m->next)
			if (!is_string_list(m))
				return refuse(c, "must be an object of arrays of strings");
		return 0;
	}
	if (!strcmp(n, "items") && cJSON_IsArray(k))
		return refuse(c, "an array of schemas is the tuple form of drafts before 2020-12 "
				 "(prefixItems), not supported");
	if (!strcmp(n, "additionalProperties") || !strcmp(n, "propertyNames") || !strcmp(n, "items") ||
	    !strcmp(n, "if") || !strcmp(n, "then") || !strcmp(n, "else") || !strcmp(n, "not"))
		return check_schema(c, k, depth + 1);
	if (!strcmp(n, "allOf") || !strcmp(n, "anyOf") || !strcmp(n, "oneOf"))
		return check_schema_list(c, k, depth);
	if (!strcmp(n, "minimum") || !strcmp(n, "maximum") || !strcmp(n, "exclusiveMinimum") ||
	    !strcmp(n, "exclusiveMaximum"))
		return cJSON_IsNumber(k) && isfinite(k->valuedouble) ? 0 : refuse(c, "must be a number");
	if (!strcmp(n, "minLength") || !strcmp(n, "maxLength"))
		return is_integer(k) && k->valuedouble >= 0 ? 0 : refuse(c, "must be a non-negative integer");
	if (!strcmp(n, "pattern"))
		return check_pattern(c, k);
	if (!strcmp(n, "$ref")) {
		if (!cJSON_IsString(k))
			return refuse(c, "must be a string");
		if (!resolve(c->root, k->valuestring))
			return refuse(c,
				      "\"%.200s\" is not \"#\" or a schema under the top's "
				      "$defs or definitions",
				      k->valuestring);
		return 0;
	}
	return refuse(c, "unsupported keyword \"%.100s\"", n);
}

static int check_schema(struct ctx *c, const cJSON *s, int depth)
{
	if (depth > GL_JSCHEMA_MAX_DEPTH)
		return refuse(c, "schema nested deeper than %d levels", GL_JSCHEMA_MAX_DEPTH);
	if (cJSON_IsBool(s))
		return 0;
	if (!cJSON_IsObject(s))
		return refuse(c, "a schema must be an object or a boolean");
	for (const cJSON *k = s->child; k; k = k->next) {
		size_t old = path_push(&c->sch, k->string);
		int rc = check_keyword(c, k, depth);

		if (rc < 0)
			return rc;
		path_pop(&c->sch, old);
	}
	return 0;
}

/* ---- the second pass: the document ---- */

static int validate(struct ctx *c, const cJSON *s, const cJSON *d, int depth, int hops);

/* After a failure: return now (a schema error, silent evaluation that only
 * needs to know, or enough errors counted). */
static int stop(const struct ctx *c)
{
	return c->fatal || c->silent || c->n_errors >= GL_JSCHEMA_MAX_ERRORS;
}

/* Whether d is valid against s, nothing recorded. */
static int quietly(struct ctx *c, const cJSON *s, const cJSON *d, int depth, int hops)
{
	int bad;

	c->silent++;
	bad = validate(c, s, d, depth + 1, hops + 1);
	c->silent--;
	return !bad;
}

static int validate_child(struct ctx *c, const cJSON *s, const cJSON *d, const char *key, int index, int depth)
{
	size_t old = key ? path_push(&c->doc, key) : path_index(&c->doc, index);
	int bad = validate(c, s, d, depth + 1, 0);

	path_pop(&c->doc, old);
	return bad;
}

static int check_type(struct ctx *c, const cJSON *t, const cJSON *d)
{
	char want[128] = "", got[96];
	size_t o = 0;

	if (cJSON_IsString(t)) {
		if (has_type(d, t->valuestring))
			return 0;
		snprintf(want, sizeof want, "%s", t->valuestring);
	} else {
		for (const cJSON *m = t->child; m; m = m->next)
			if (has_type(d, m->valuestring))
				return 0;
		for (const cJSON *m = t->child; m && o < sizeof want; m = m->next)
			o += (size_t)snprintf(want + o, sizeof want - o, "%s%s",
					      m == t->child ? ""
					      : m->next     ? ", "
							    : " or ",
					      m->valuestring);
	}
	render(d, got, sizeof got);
	fail(c, "expected %s, found %s %s", want, kind_of(d), got);
	return 1;
}

static int check_enum(struct ctx *c, const cJSON *e, const cJSON *d)
{
	char list[256] = "", got[96], one[96];
	size_t o = 0;

	for (const cJSON *m = e->child; m; m = m->next)
		if (equal(m, d, 0))
			return 0;
	for (const cJSON *m = e->child; m && o < sizeof list; m = m->next) {
		render(m, one, sizeof one);
		o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", o ? ", " : "", one);
	}
	render(d, got, sizeof got);
	fail(c, "%s is not one of %s", got, list);
	return 1;
}

static int check_number(struct ctx *c, const cJSON *s, const cJSON *d)
{
	const cJSON *k;
	double v = d->valuedouble;
	char got[48], lim[48];
	int bad = 0;

	render_number(v, got, sizeof got);
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "minimum")) && !(v >= k->valuedouble)) {
		render_number(k->valuedouble, lim, sizeof lim);
		fail(c, "%s is below the minimum %s", got, lim);
		if (stop(c))
			return 1;
		bad = 1;
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "exclusiveMinimum")) && !(v > k->valuedouble)) {
		render_number(k->valuedouble, lim, sizeof lim);
		fail(c, "%s is not above the exclusive minimum %s", got, lim);
		if (stop(c))
			return 1;
		bad = 1;
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "maximum")) && !(v <= k->valuedouble)) {
		render_number(k->valuedouble, lim, sizeof lim);
		fail(c, "%s is above the maximum %s", got, lim);
		if (stop(c))
			return 1;
		bad = 1;
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "exclusiveMaximum")) && !(v < k->valuedouble)) {
		render_number(k->valuedouble, lim, sizeof lim);
		fail(c, "%s is not below the exclusive maximum %s", got, lim);
		bad = 1;
	}
	return bad;
}

static size_t code_points(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static int check_string(struct ctx *c, const cJSON *s, const cJSON *d)
{
	const cJSON *k;
	size_t len = code_points(d->valuestring);
	char got[96];
	int bad = 0;

	render(d, got, sizeof got);
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "minLength")) && len < k->valuedouble) {
		fail(c, "%s is shorter than %.0f characters", got, k->valuedouble);
		if (stop(c))
			return 1;
		bad = 1;
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "maxLength")) && len > k->valuedouble) {
		fail(c, "%s is longer than %.0f characters", got, k->valuedouble);
		if (stop(c))
			return 1;
		bad = 1;
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "pattern"))) {
		const regex_t *re = pattern_of(c, k);

		if (re && regexec(re, d->valuestring, 0, NULL, 0) != 0) {
			fail(c, "%s does not match the pattern %.200s", got, k->valuestring);
			bad = 1;
		}
	}
	return bad;
}

static int check_object(struct ctx *c, const cJSON *s, const cJSON *d, int depth)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
	const cJSON *extra = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
	const cJSON *names = cJSON_GetObjectItemCaseSensitive(s, "propertyNames");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
	const cJSON *dep = cJSON_GetObjectItemCaseSensitive(s, "dependentRequired");
	int bad = 0;

	for (const cJSON *r = req ? req->child : NULL; r; r = r->next) {
		if (cJSON_GetObjectItemCaseSensitive(d, r->valuestring))
			continue;
		fail(c, "missing required property \"%.100s\"", r->valuestring);
		if (stop(c))
			return 1;
		bad = 1;
	}
	for (const cJSON *m = d->child; m; m = m->next) {
		const cJSON *sub = props ? cJSON_GetObjectItemCaseSensitive(props, m->string) : NULL;

		if (names) {
			cJSON key;
			const char *outer = c->name_of;
			int b;

			memset(&key, 0, sizeof key);
			key.type = cJSON_String;
			key.valuestring = m->string;
			c->name_of = m->string;
			b = validate(c, names, &key, depth + 1, 0);
			c->name_of = outer;
			if (b) {
				if (stop(c))
					return 1;
				bad = 1;
			}
		}
		if (!sub && cJSON_IsFalse(extra)) {
			fail(c, "property \"%.100s\" is not allowed", m->string);
			if (stop(c))
				return 1;
			bad = 1;
			continue;
		}
		if (!sub)
			sub = extra;
		if (sub && validate_child(c, sub, m, m->string, 0, depth)) {
			if (stop(c))
				return 1;
			bad = 1;
		}
	}
	for (const cJSON *k = dep ? dep->child : NULL; k; k = k->next) {
		if (!cJSON_GetObjectItemCaseSensitive(d, k->string))
			continue;
		for (const cJSON *r = k->child; r; r = r->next) {
			if (cJSON_GetObjectItemCaseSensitive(d, r->valuestring))
				continue;
			fail(c, "property \"%.100s\" requires property \"%.100s\"", k->string, r->valuestring);
			if (stop(c))
				return 1;
			bad = 1;
		}
	}
	return bad;
}

static int check_array(struct ctx *c, const cJSON *s, const cJSON *d, int depth)
{
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
	int bad = 0, i = 0;

	if (!items)
		return 0;
	for (const cJSON *m = d->child; m; m = m->next, i++) {
		if (validate_child(c, items, m, NULL, i, depth)) {
			if (stop(c))
				return 1;
			bad = 1;
		}
	}
	return bad;
}

/* The applicators that evaluate other schemas at the same place: $ref,
 * allOf, anyOf, oneOf, not, if/then/else. */
static int check_applicators(struct ctx *c, const cJSON *s, const cJSON *d, int depth, int hops)
{
	const cJSON *k;
	int bad = 0;

	if ((k = cJSON_GetObjectItemCaseSensitive(s, "$ref"))) {
		if (hops >= MAX_REF_HOPS) {
			path_pop(&c->sch, 0);
			refuse(c,
			       "$ref \"%.200s\" loops without descending into the document "
			       "(at %s in it)",
			       k->valuestring, c->doc.len ? c->doc.s : "/");
			return 1;
		}
		if (validate(c, resolve(c->root, k->valuestring), d, depth + 1, hops + 1)) {
			if (stop(c))
				return 1;
			bad = 1;
		}
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "allOf"))) {
		for (const cJSON *m = k->child; m; m = m->next) {
			if (validate(c, m, d, depth + 1, hops + 1)) {
				if (stop(c))
					return 1;
				bad = 1;
			}
		}
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "anyOf"))) {
		int any = 0;

		for (const cJSON *m = k->child; m && !any && !c->fatal; m = m->next)
			any = quietly(c, m, d, depth, hops);
		if (c->fatal)
			return 1;
		if (!any) {
			fail(c, "valid against none of anyOf's %d schemas", cJSON_GetArraySize(k));
			if (stop(c))
				return 1;
			bad = 1;
		}
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "oneOf"))) {
		int valid = 0;

		for (const cJSON *m = k->child; m && valid < 2 && !c->fatal; m = m->next)
			valid += quietly(c, m, d, depth, hops);
		if (c->fatal)
			return 1;
		if (valid != 1) {
			fail(c, "valid against %s of oneOf's %d schemas, not exactly one",
			     valid ? "more than one" : "none", cJSON_GetArraySize(k));
			if (stop(c))
				return 1;
			bad = 1;
		}
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "not"))) {
		int valid = quietly(c, k, d, depth, hops);

		if (c->fatal)
			return 1;
		if (valid) {
			fail(c, "valid against the schema under not");
			if (stop(c))
				return 1;
			bad = 1;
		}
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "if"))) {
		int yes = quietly(c, k, d, depth, hops);
		const cJSON *next = cJSON_GetObjectItemCaseSensitive(s, yes ? "then" : "else");

		if (c->fatal)
			return 1;
		if (next && validate(c, next, d, depth + 1, hops + 1))
			bad = 1;
	}
	return bad;
}

/* 0: d is valid against s; 1: it is not (errors recorded unless silent),
 * or a schema error stopped everything (c->fatal). */
static int validate(struct ctx *c, const cJSON *s, const cJSON *d, int depth, int hops)
{
	const cJSON *k;
	int bad = 0;

	if (depth > GL_JSCHEMA_MAX_DEPTH) {
		fail(c, "nested deeper than %d levels", GL_JSCHEMA_MAX_DEPTH);
		return 1;
	}
	if (cJSON_IsTrue(s))
		return 0;
	if (cJSON_IsFalse(s)) {
		fail(c, "no value is allowed here");
		return 1;
	}
	if (check_applicators(c, s, d, depth, hops)) {
		if (stop(c))
			return 1;
		bad = 1;
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "type")) && check_type(c, k, d)) {
		if (stop(c))
			return 1;
		bad = 1;
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "enum")) && check_enum(c, k, d)) {
		if (stop(c))
			return 1;
		bad = 1;
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "const")) && !equal(k, d, 0)) {
		char want[96], got[96];

		render(k, want, sizeof want);
		render(d, got, sizeof got);
		fail(c, "expected %s, found %s", want, got);
		if (stop(c))
			return 1;
		bad = 1;
	}
	if (cJSON_IsNumber(d) && check_number(c, s, d))
		bad = 1;
	else if (cJSON_IsString(d) && check_string(c, s, d))
		bad = 1;
	else if (cJSON_IsObject(d) && check_object(c, s, d, depth))
		bad = 1;
	else if (cJSON_IsArray(d) && check_array(c, s, d, depth))
		bad = 1;
	return bad;
}

int gl_jschema_validate(const cJSON *schema, const cJSON *doc, char *err, size_t err_n, int *n_errors)
{
	struct ctx c;

	memset(&c, 0, sizeof c);
	c.root = schema;
	c.err = err;
	c.err_n = err ? err_n : 0;
	if (c.err_n)
		err[0] = '\0';
	if (n_errors)
		*n_errors = 0;
	if (!schema || !doc) {
		if (c.err_n)
			snprintf(err, err_n, "#: no schema or no document");
		return -2;
	}
	if (check_schema(&c, schema, 0) < 0) {
		patterns_free(&c);
		return -2;
	}
	validate(&c, schema, doc, 0, 0);
	patterns_free(&c);
	if (c.fatal) {
		if (n_errors)
			*n_errors = 0;
		return -2;
	}
	if (n_errors)
		*n_errors = c.n_errors;
	return c.n_errors ? -1 : 0;
}
