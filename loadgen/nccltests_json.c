/*
 * nccltests_json.c - the JSON reader of nccl-tests reports (-J): a pass that
 * turns the bare inf nccl-tests' writer can print into null, then cJSON,
 * then each run's results into the same rows the text reader makes.
 */
#include "nccltests_int.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* ---- JSON ---------------------------------------------------------------- */

struct jp {
	struct gl_nccl_result *r;
	struct gl_err *err;
	int rows_cap;
	int run; /* 1-based, for messages */
};

/*
 * nccl-tests prints doubles with "%lf", so an infinite bandwidth comes out as
 * a bare inf, which is not JSON. Outside strings, a bare [+-]inf, infinity or
 * nan word becomes null. *out is malloc'd. *open_at_end says whether a string,
 * object or array was still open at the end: the writer never finished.
 */
static int json_fix_nonfinite(const char *in, size_t len, char **out, size_t *out_len, int *open_at_end)
{
	char *o = malloc(len + len / 3 + 16);
	size_t k = 0;
	long depth = 0;
	int in_str = 0, esc = 0;
	char prev = 0; /* last significant byte outside strings */

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
				    (j + wl == len || nt_is_space(in[j + wl]) || in[j + wl] == '\n' ||
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
		if (!nt_is_space(c) && c != '\n')
			prev = c;
	}
	*out = o;
	*out_len = k;
	*open_at_end = in_str || depth > 0;
	return 0;
}

/* A measured value of a JSON half: number, null, or "nan"/"inf" strings. */
static int j_metric(const struct jp *j, const cJSON *o, const char *key, const char *where, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = -1;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsString(v) && v->valuestring) {
		double d;
		if (nt_parse_num(v->valuestring, &d) == 0 && !isfinite(d))
			return 0;
	} else if (cJSON_IsNumber(v) && !(v->valuedouble < 0)) {
		*out = nt_metric(v->valuedouble);
		return 0;
	}
	return gl_errf(j->err, GL_EINVAL, "run %d: %s.%s: expected a non-negative number", j->run, where, key);
}

static int j_half(const struct jp *j, const cJSON *h, const char *where, struct gl_nccl_row *row, int side)
{
	const cJSON *v;
	int rc;

	if (!cJSON_IsObject(h))
		return gl_errf(j->err, GL_EINVAL, "run %d: %s: expected an object or null", j->run, where);
	rc = j_metric(j, h, cJSON_GetObjectItemCaseSensitive(h, "cpu_time") ? "cpu_time" : "time", where,
		      &row->time_us[side]);
	if (!rc)
		rc = j_metric(j, h, "alg_bw", where, &row->algbw[side]);
	if (!rc)
		rc = j_metric(j, h, "bus_bw", where, &row->busbw[side]);
	if (rc)
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(h, "nwrong");
	if (!v || cJSON_IsNull(v) || (cJSON_IsString(v) && v->valuestring && strcasecmp(v->valuestring, "nan") == 0))
		return 0;
	if (!cJSON_IsNumber(v) || nt_count_from_double(v->valuedouble, &row->wrong[side]) < 0)
		return gl_errf(j->err, GL_EINVAL, "run %d: %s.nwrong: expected a whole number or null", j->run, where);
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
		while (nt_is_space(*s))
			s++;
		while (*s && !nt_is_space(*s) && k + 1 < sizeof(num))
			num[k++] = *s++;
		num[k] = '\0';
		while (nt_is_space(*s))
			s++;
		return *s ? -1 : nt_parse_int(num, out);
	}
	if (!cJSON_IsNumber(v))
		return -1;
	d = v->valuedouble;
	if (!isfinite(d) || d != floor(d) || d < INT_MIN || d > INT_MAX)
		return -1;
	*out = (int)d;
	return 0;
}

static int j_string(const struct jp *j, const cJSON *o, const char *key, const char *where, char *out, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || !v->valuestring)
		return gl_errf(j->err, GL_EINVAL, "run %d: %s.%s: expected a string", j->run, where, key);
	nt_copy_printable(out, n, v->valuestring, strlen(v->valuestring));
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
	nt_row_init(&row);
	row.block = j->run - 1;
	if (j_u64(cJSON_GetObjectItemCaseSensitive(res, "size"), &row.size) < 0)
		return gl_errf(j->err, GL_EINVAL, "run %d: %s.size: expected a byte count", j->run, where);
	v = cJSON_GetObjectItemCaseSensitive(res, "count");
	if (v && !cJSON_IsNull(v) && j_u64(v, &row.count) < 0)
		return gl_errf(j->err, GL_EINVAL, "run %d: %s.count: expected an element count", j->run, where);
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
		return gl_errf(j->err, GL_EINVAL, "run %d: %s: neither out_of_place nor in_place", j->run, where);
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
		return nt_push_row(j->r, &j->rows_cap, &row, w3, j->err);
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
			       "run %d: no config, results or nccl_version: not an nccl-tests JSON report", j->run);
	r->headers++;

	v = cJSON_GetObjectItemCaseSensitive(run, "nccl_version");
	if (cJSON_IsNumber(v) && !r->nccl_version && v->valuedouble > 0 && v->valuedouble < INT_MAX)
		r->nccl_version = (int)v->valuedouble;
	v = cJSON_GetObjectItemCaseSensitive(run, "args");
	if (cJSON_IsArray(v) && cJSON_IsString(v->child) && v->child->valuestring && !r->collective[0]) {
		const char *a0 = v->child->valuestring, *slash = strrchr(a0, '/');
		const char *base = slash ? slash + 1 : a0;
		nt_copy_printable(r->collective, sizeof(r->collective), base, strlen(base));
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
			return gl_errf(j->err, GL_EINVAL, "run %d: config.devices: expected an array", j->run);
		i = 0;
		cJSON_ArrayForEach(it, dev)
		{
			int rank;
			const cJSON *rk = cJSON_GetObjectItemCaseSensitive(it, "rank");
			if (!cJSON_IsObject(it) || j_int(rk, &rank) < 0 || rank < 0)
				return gl_errf(j->err, GL_EINVAL,
					       "run %d: config.devices[%d]: expected an object with a rank", j->run, i);
			r->ranks_listed++;
			if (rank > r->max_rank)
				r->max_rank = rank;
			i++;
		}
	}

	if (res && !cJSON_IsNull(res) && !cJSON_IsArray(res))
		return gl_errf(j->err, GL_EINVAL, "run %d: results: expected an array", j->run);
	i = 0;
	cJSON_ArrayForEach(it, res)
	{
		if ((rc = j_result(j, it, i++)))
			return rc;
	}

	v = cJSON_GetObjectItemCaseSensitive(run, "out_of_bounds");
	if (cJSON_IsObject(v)) {
		long n;
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, "count");
		if (cJSON_IsNumber(c) && nt_count_from_double(c->valuedouble, &n) == 0) {
			r->have_oob = 1;
			nt_sat_add(&r->oob_values, n);
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
	cJSON_ArrayForEach(it, v)
	{
		if (cJSON_IsString(it) && it->valuestring && it->valuestring[0])
			nt_note_failure(r, it->valuestring, strlen(it->valuestring));
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

	nt_result_init(r, 1);
	if (!buf && len)
		return gl_errf(err, GL_EINVAL, "nccl-tests JSON: NULL buffer");
	if (len > GL_NCCL_MAX_INPUT)
		return gl_errf(err, GL_ELIMIT, "nccl-tests JSON: %zu bytes, more than the %u-byte limit", len,
			       GL_NCCL_MAX_INPUT);
	if (json_fix_nonfinite(buf ? buf : "", len, &fixed, &flen, &open_at_end) < 0)
		return gl_errf(err, GL_ENOMEM, "nccl-tests JSON: out of memory");
	for (;;) {
		const char *end = NULL;

		while (pos < flen && (nt_is_space(fixed[pos]) || fixed[pos] == '\n'))
			pos++;
		if (pos >= flen)
			break;
		doc = cJSON_ParseWithLengthOpts(fixed + pos, flen - pos, &end, 0);
		if (!doc) {
			size_t at = end && end >= fixed + pos && end <= fixed + flen ? (size_t)(end - fixed) : pos;
			char near[24];
			nt_copy_printable(near, sizeof(near), fixed + at,
					  flen - at < sizeof(near) - 1 ? flen - at : sizeof(near) - 1);
			rc = gl_errf(err, GL_EINVAL, "line %d: JSON syntax error near '%s'%s", line_of(fixed, at), near,
				     open_at_end ? " (the report ends early: was the run cut short?)" : "");
			goto out;
		}
		docs++;
		if (cJSON_IsArray(doc)) {
			const cJSON *it;
			cJSON_ArrayForEach(it, doc)
			{
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
		rc = gl_errf(err, GL_EINVAL,
			     docs ? "nccl-tests JSON: no run in the report" : "nccl-tests JSON: empty input");
out:
	cJSON_Delete(doc);
	free(fixed);
	return rc;
}
