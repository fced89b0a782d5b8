/*
 * gate_dcgm.c - DCGM diag JSON to per-entity, per-test rows (gate_dcgm.h).
 *
 * Whatever the host printed is untrusted: every string is cut to its field,
 * control characters become '?' (they reach terminals and reports), counts
 * are capped, and any shape that is not DCGM's is an error naming what was
 * expected, never a crash or a silent pass.
 */
#include "gate_dcgm.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#define DCGM_TEXT_MAX (64u << 20)
#define DCGM_ITERATIONS_MAX 64

const char *gl_gate_status_name(int s)
{
	switch (s) {
	case GL_GATE_PASS: return "pass";
	case GL_GATE_SKIP: return "skip";
	case GL_GATE_WARN: return "warn";
	case GL_GATE_FAIL: return "fail";
	default: return "?";
	}
}

int gl_gate_status_parse(const char *s)
{
	for (int i = GL_GATE_PASS; i <= GL_GATE_FAIL; i++)
		if (s && !strcmp(s, gl_gate_status_name(i)))
			return i;
	return -1;
}

/* DCGM's words: Pass, Fail, Warn, Skip, Not Run (any case); -1 otherwise */
static int dcgm_status(const cJSON *v)
{
	static const struct {
		const char *w;
		int s;
	} words[] = {
		{ "pass", GL_GATE_PASS },   { "passed", GL_GATE_PASS },  { "fail", GL_GATE_FAIL },
		{ "failed", GL_GATE_FAIL }, { "warn", GL_GATE_WARN },    { "warning", GL_GATE_WARN },
		{ "skip", GL_GATE_SKIP },   { "skipped", GL_GATE_SKIP }, { "not run", GL_GATE_SKIP },
	};
	if (!cJSON_IsString(v))
		return -1;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcasecmp(v->valuestring, words[i].w))
			return words[i].s;
	return -1;
}

/* copy without control characters, cut to n */
static void put(char *out, size_t n, const char *s)
{
	size_t i = 0;
	for (; s && s[i] && i + 1 < n; i++)
		out[i] = s[i] == '\t' ? ' ' : (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	out[i] = '\0';
}

static void append(char *out, size_t n, const char *s)
{
	size_t l = strlen(out);
	if (!s || !*s || l + 3 >= n)
		return;
	if (l) {
		memcpy(out + l, "; ", 2);
		l += 2;
		out[l] = '\0';
	}
	put(out + l, n - l, s);
}

/* "warnings": [{"warning": "..."} | {"warnings": "..."} | "..."] and
 * "info": "..." | ["...", ...] into detail */
static void details(const cJSON *r, char *out, size_t n)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(r, "warnings"), *e;
	const cJSON *info = cJSON_GetObjectItemCaseSensitive(r, "info");
	int k = 0;

	out[0] = '\0';
	if (cJSON_IsArray(w))
		cJSON_ArrayForEach(e, w)
		{
			const cJSON *m = cJSON_IsString(e) ? e : cJSON_GetObjectItemCaseSensitive(e, "warning");
			if (!cJSON_IsString(m))
				m = cJSON_GetObjectItemCaseSensitive(e, "warnings");
			if (cJSON_IsString(m))
				append(out, n, m->valuestring);
			if (++k >= 16)
				break;
		}
	else if (cJSON_IsString(w))
		append(out, n, w->valuestring);
	k = 0;
	if (cJSON_IsString(info))
		append(out, n, info->valuestring);
	else if (cJSON_IsArray(info))
		cJSON_ArrayForEach(e, info)
		{
			if (cJSON_IsString(e))
				append(out, n, e->valuestring);
			if (++k >= 16)
				break;
		}
}

struct acc {
	struct gl_dcgm_result *r;
	int cap;
};

static int add_row(struct acc *a, const char *cat, const char *test, const char *entity, int id, int status,
		   const char *detail)
{
	struct gl_dcgm_result *r = a->r;
	struct gl_dcgm_row *row;

	switch (status) {
	case GL_GATE_PASS: r->n_pass++; break;
	case GL_GATE_SKIP: r->n_skip++; break;
	case GL_GATE_WARN: r->n_warn++; break;
	default: r->n_fail++; break;
	}
	if (status > r->status && status != GL_GATE_SKIP)
		r->status = status;
	if (r->n_rows >= GL_DCGM_ROWS_MAX) {
		r->rows_dropped++;
		return 0;
	}
	if (r->n_rows == a->cap) {
		int nc = a->cap ? a->cap * 2 : 64;
		struct gl_dcgm_row *nr = realloc(r->rows, sizeof(*nr) * (size_t)nc);
		if (!nr)
			return -1;
		r->rows = nr;
		a->cap = nc;
	}
	row = &r->rows[r->n_rows++];
	memset(row, 0, sizeof(*row)); /* whole rows compare and copy alike */
	put(row->category, sizeof(row->category), cat);
	put(row->test, sizeof(row->test), test);
	put(row->entity, sizeof(row->entity), entity);
	row->id = id;
	row->status = status;
	put(row->detail, sizeof(row->detail), detail);
	return 0;
}

/* a GPU index as DCGM prints it: a number, or a string of digits */
static int entity_id(const cJSON *v)
{
	if (cJSON_IsNumber(v))
		return v->valuedouble >= 0 && v->valuedouble <= 1e6 ? (int)v->valuedouble : -2;
	if (cJSON_IsString(v)) {
		char *end;
		long l = strtol(v->valuestring, &end, 10);
		if (end != v->valuestring && !*end && l >= 0 && l <= 1000000)
			return (int)l;
	}
	return -2;
}

/* One result object: rows for each entity it names (gpu_ids "0,1" names
 * several). */
static int one_result(struct acc *a, const char *cat, const char *test, const cJSON *res, struct gl_err *err)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(res, "status");
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(res, "gpu_ids");
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(res, "gpu_id");
	const cJSON *grp = cJSON_GetObjectItemCaseSensitive(res, "entity_group");
	const cJSON *eid = cJSON_GetObjectItemCaseSensitive(res, "entity_id");
	char detail[512], entity[16] = "GPU";
	int s = dcgm_status(st);

	if (!cJSON_IsObject(res))
		return gl_errf(err, GL_EINVAL, "test '%s': a result is %s, expected an object", test,
			       cJSON_IsNull(res) ? "null" : "not an object");
	if (s < 0)
		return gl_errf(err, GL_EINVAL, "test '%s': result status %s%s%s, expected Pass, Fail, Warn or Skip",
			       test, cJSON_IsString(st) ? "'" : "", cJSON_IsString(st) ? st->valuestring : "missing",
			       cJSON_IsString(st) ? "'" : "");
	details(res, detail, sizeof(detail));
	if (cJSON_IsString(grp))
		put(entity, sizeof(entity), grp->valuestring);
	if (eid) {
		int e = entity_id(eid);
		if (e < 0)
			return gl_errf(err, GL_EINVAL, "test '%s': entity_id is not an index", test);
		return add_row(a, cat, test, entity, e, s, detail) ? gl_errf(err, GL_ENOMEM, "out of memory") : 0;
	}
	if (id) {
		int e = entity_id(id);
		if (e < 0)
			return gl_errf(err, GL_EINVAL, "test '%s': gpu_id is not an index", test);
		return add_row(a, cat, test, "GPU", e, s, detail) ? gl_errf(err, GL_ENOMEM, "out of memory") : 0;
	}
	if (cJSON_IsString(ids)) {
		/* "0,1,2,3" */
		const char *p = ids->valuestring;
		int k = 0;
		while (*p) {
			char *end;
			long l = strtol(p, &end, 10);
			if (end == p || l < 0 || l > 1000000 || (*end && *end != ','))
				return gl_errf(err, GL_EINVAL, "test '%s': gpu_ids '%.40s' is not a list of indices",
					       test, ids->valuestring);
			if (add_row(a, cat, test, "GPU", (int)l, s, detail))
				return gl_errf(err, GL_ENOMEM, "out of memory");
			p = *end ? end + 1 : end;
			if (++k > 1024)
				break;
		}
		if (k)
			return 0;
	} else if (cJSON_IsArray(ids)) {
		const cJSON *e;
		int k = 0;
		cJSON_ArrayForEach(e, ids)
		{
			int v = entity_id(e);
			if (v < 0)
				return gl_errf(err, GL_EINVAL, "test '%s': gpu_ids holds a value that is not an index",
					       test);
			if (add_row(a, cat, test, "GPU", v, s, detail))
				return gl_errf(err, GL_ENOMEM, "out of memory");
			if (++k > 1024)
				break;
		}
		if (k)
			return 0;
	}
	/* no entity named: the test as a whole (DCGM 3's level-one tests) */
	return add_row(a, cat, test, "", -1, s, detail) ? gl_errf(err, GL_ENOMEM, "out of memory") : 0;
}

static int one_doc(struct acc *a, const cJSON *doc, struct gl_err *err)
{
	const cJSON *top = cJSON_GetObjectItemCaseSensitive(doc, "DCGM Diagnostic"), *cats, *c, *meta, *v;

	if (!top)
		top = cJSON_GetObjectItemCaseSensitive(doc, "DCGM GPU Diagnostic");
	if (!cJSON_IsObject(top))
		return gl_errf(err, GL_EINVAL,
			       "not DCGM diag output: no \"DCGM Diagnostic\" (DCGM 4) or \"DCGM GPU "
			       "Diagnostic\" (DCGM 3) object at the top");
	if ((meta = cJSON_GetObjectItemCaseSensitive(doc, "metadata")) &&
	    cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(meta, "version")))
		put(a->r->version, sizeof(a->r->version), v->valuestring);
	else if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(top, "version")) ||
		 cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(doc, "version")))
		put(a->r->version, sizeof(a->r->version), v->valuestring);
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(top, "runtime_error")) && v->valuestring[0]) {
		put(a->r->runtime_error, sizeof(a->r->runtime_error), v->valuestring);
		a->r->status = GL_GATE_FAIL;
		return 0;
	}
	cats = cJSON_GetObjectItemCaseSensitive(top, "test_categories");
	if (!cJSON_IsArray(cats))
		return gl_errf(err, GL_EINVAL, "DCGM diag output without a \"test_categories\" array");
	cJSON_ArrayForEach(c, cats)
	{
		const cJSON *cat = cJSON_GetObjectItemCaseSensitive(c, "category");
		const cJSON *tests = cJSON_GetObjectItemCaseSensitive(c, "tests"), *t;
		const char *cn = cJSON_IsString(cat) ? cat->valuestring : "";
		if (!cJSON_IsObject(c) || !cJSON_IsArray(tests))
			return gl_errf(err, GL_EINVAL,
				       "test category '%.60s': expected an object with a \"tests\" array", cn);
		cJSON_ArrayForEach(t, tests)
		{
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(t, "name");
			const cJSON *res = cJSON_GetObjectItemCaseSensitive(t, "results"), *r;
			const cJSON *sum = cJSON_GetObjectItemCaseSensitive(t, "test_summary");
			const char *tn;
			int worst = -1, sum_s;
			if (!cJSON_IsObject(t))
				return gl_errf(err, GL_EINVAL, "category '%.60s': a test is not an object", cn);
			if (!cJSON_IsString(name) && !sum && !res)
				continue; /* DCGM 4 leaves {} for a test it did not run */
			tn = cJSON_IsString(name) ? name->valuestring : "(unnamed)";
			if (res && !cJSON_IsArray(res))
				return gl_errf(err, GL_EINVAL, "test '%.60s': \"results\" is not an array", tn);
			cJSON_ArrayForEach(r, res)
			{
				int rs = dcgm_status(cJSON_GetObjectItemCaseSensitive(r, "status"));
				int rc = one_result(a, cn, tn, r, err);
				if (rc)
					return rc;
				if (rs > worst)
					worst = rs;
			}
			sum_s = dcgm_status(cJSON_GetObjectItemCaseSensitive(sum, "status"));
			/* the summary failed or warned with no entity's result
			 * showing it: one row for the host, so it is not lost */
			if (sum_s > GL_GATE_SKIP && sum_s > worst) {
				char detail[512];
				details(sum, detail, sizeof(detail));
				if (add_row(a, cn, tn, "", -1, sum_s, detail))
					return gl_errf(err, GL_ENOMEM, "out of memory");
			} else if (worst < 0 && sum_s >= 0) {
				if (add_row(a, cn, tn, "", -1, sum_s, ""))
					return gl_errf(err, GL_ENOMEM, "out of memory");
			}
		}
	}
	return 0;
}

int gl_dcgm_parse(const char *text, size_t len, struct gl_dcgm_result *out, struct gl_err *err)
{
	struct acc a = { out, 0 };
	const char *b = text ? memchr(text, '{', len) : NULL, *e = NULL;
	const cJSON *its;
	cJSON *doc;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (len > DCGM_TEXT_MAX)
		return gl_errf(err, GL_ELIMIT, "DCGM diag output of %zu bytes, above %u MiB", len, DCGM_TEXT_MAX >> 20);
	for (size_t i = len; b && i > 0; i--)
		if (text[i - 1] == '}') {
			e = text + i;
			break;
		}
	if (!b || !e || e <= b)
		return gl_errf(err, GL_EINVAL, "no JSON object in the output (is it `dcgmi diag -j`?)");
	doc = cJSON_ParseWithLength(b, (size_t)(e - b));
	if (!doc)
		return gl_errf(err, GL_EINVAL, "the output is not valid JSON (near byte %ld)",
			       cJSON_GetErrorPtr() ? (long)(cJSON_GetErrorPtr() - b) : -1L);
	its = cJSON_GetObjectItemCaseSensitive(doc, "iterations");
	if (cJSON_IsArray(its)) {
		const cJSON *it;
		int k = 0;
		cJSON_ArrayForEach(it, its)
		{
			if (++k > DCGM_ITERATIONS_MAX) {
				rc = gl_errf(err, GL_ELIMIT, "more than %d iterations", DCGM_ITERATIONS_MAX);
				break;
			}
			if ((rc = one_doc(&a, it, err)))
				break;
		}
		if (!rc && k == 0)
			rc = gl_errf(err, GL_EINVAL, "DCGM diag output with an empty \"iterations\" array");
	} else {
		rc = one_doc(&a, doc, err);
	}
	cJSON_Delete(doc);
	if (!rc && !out->runtime_error[0] && out->n_pass + out->n_skip + out->n_warn + out->n_fail == 0)
		rc = gl_errf(err, GL_EINVAL, "DCGM diag output without any test result");
	if (rc) {
		gl_dcgm_free(out);
		return rc < 0 ? rc : -GL_EINVAL;
	}
	return 0;
}

void gl_dcgm_free(struct gl_dcgm_result *r)
{
	if (!r)
		return;
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

void gl_dcgm_first_problem(const struct gl_dcgm_result *r, char *out, size_t n)
{
	const struct gl_dcgm_row *pick = NULL;

	if (n == 0)
		return;
	out[0] = '\0';
	if (r->runtime_error[0]) {
		snprintf(out, n, "DCGM could not run the diagnostic: %s", r->runtime_error);
		return;
	}
	for (int want = GL_GATE_FAIL; want >= GL_GATE_WARN && !pick; want--)
		for (int i = 0; i < r->n_rows && !pick; i++)
			if (r->rows[i].status == want)
				pick = &r->rows[i];
	if (!pick)
		return;
	if (pick->id >= 0)
		snprintf(out, n, "%s %d: %s %s%s%s", pick->entity[0] ? pick->entity : "GPU", pick->id, pick->test,
			 pick->status == GL_GATE_FAIL ? "failed" : "warned", pick->detail[0] ? ": " : "", pick->detail);
	else
		snprintf(out, n, "all GPUs: %s %s%s%s", pick->test, pick->status == GL_GATE_FAIL ? "failed" : "warned",
			 pick->detail[0] ? ": " : "", pick->detail);
}
