/*
 * nodes.c - the per-node figures' accumulator (nodes.h): entries in an
 * array, found by an open-addressed index over (window, workload, kind,
 * name, host, figure) that is rebuilt when a window's entries are taken.
 */
#include "nodes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define SLOTS (GL_NODES_MAX * 2) /* a power of two: the index stays at most half full */

struct gl_nodes {
	struct gl_node_fig *e;
	int n;
	int *slot; /* index into e, -1 free */
	int64_t dropped;
};

static const char *const kinds[] = { GL_NODE_KINDS, NULL };

int gl_node_kind_ok(const char *kind)
{
	for (int i = 0; kind && kinds[i]; i++)
		if (!strcmp(kind, kinds[i]))
			return 1;
	return 0;
}

static int text_byte_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("._:@/+-", c));
}

int gl_node_text_ok(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n >= max)
		return 0;
	for (; *s; s++)
		if (!text_byte_ok(*s))
			return 0;
	return 1;
}

void gl_node_text_fix(char *s)
{
	for (; *s; s++)
		if (!text_byte_ok(*s))
			*s = '_';
}

struct gl_nodes *gl_nodes_new(void)
{
	struct gl_nodes *ns = calloc(1, sizeof(*ns));

	if (!ns)
		return NULL;
	ns->e = calloc(GL_NODES_MAX, sizeof(*ns->e));
	ns->slot = malloc(SLOTS * sizeof(*ns->slot));
	if (!ns->e || !ns->slot) {
		gl_nodes_free(ns);
		return NULL;
	}
	memset(ns->slot, 0xff, SLOTS * sizeof(*ns->slot));
	return ns;
}

void gl_nodes_free(struct gl_nodes *ns)
{
	if (!ns)
		return;
	free(ns->e);
	free(ns->slot);
	free(ns);
}

static uint32_t hash_str(uint32_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h * 16777619u; /* a separator between the parts */
}

uint32_t gl_node_key_hash(int64_t idx, const char *wl, const char *kind, const char *name, const char *host,
			  const char *fig)
{
	uint32_t h = 2166136261u ^ (uint32_t)idx ^ (uint32_t)((uint64_t)idx >> 32);

	h = hash_str(h, wl);
	h = hash_str(h, kind);
	h = hash_str(h, name);
	h = hash_str(h, host);
	return hash_str(h, fig);
}

static int same(const struct gl_node_fig *f, int64_t idx, const char *wl, const char *kind, const char *name,
		const char *host, const char *fig)
{
	return f->idx == idx && !strcmp(f->workload, wl) && !strcmp(f->kind, kind) && !strcmp(f->name, name) &&
	       !strcmp(f->host, host) && !strcmp(f->figure, fig);
}

static void reindex(struct gl_nodes *ns)
{
	memset(ns->slot, 0xff, SLOTS * sizeof(*ns->slot));
	for (int i = 0; i < ns->n; i++) {
		const struct gl_node_fig *f = &ns->e[i];
		uint32_t h = gl_node_key_hash(f->idx, f->workload, f->kind, f->name, f->host, f->figure) & (SLOTS - 1);
		while (ns->slot[h] >= 0)
			h = (h + 1) & (SLOTS - 1);
		ns->slot[h] = i;
	}
}

int gl_nodes_add(struct gl_nodes *ns, int64_t idx, const char *workload, const char *kind, const char *name,
		 const char *host, const char *figure, int64_t n, double sum, double max)
{
	struct gl_node_fig *f;
	uint32_t h;

	if (!ns)
		return -1;
	if (idx < 0 || n < 0 || !isfinite(sum) || !isfinite(max) || !gl_node_kind_ok(kind) ||
	    !gl_node_text_ok(workload, sizeof(f->workload)) || !gl_node_text_ok(name, GL_NODE_NAME_MAX) ||
	    !gl_node_text_ok(host, GL_NODE_NAME_MAX) || !gl_node_text_ok(figure, GL_NODE_FIGURE_MAX)) {
		ns->dropped += n > 0 ? n : 1;
		return -1;
	}
	h = gl_node_key_hash(idx, workload, kind, name, host, figure) & (SLOTS - 1);
	while (ns->slot[h] >= 0) {
		f = &ns->e[ns->slot[h]];
		if (same(f, idx, workload, kind, name, host, figure)) {
			if (f->n == 0 || max > f->max)
				f->max = max;
			f->n += n;
			f->sum += sum;
			return 0;
		}
		h = (h + 1) & (SLOTS - 1);
	}
	if (ns->n >= GL_NODES_MAX) {
		ns->dropped += n > 0 ? n : 1;
		return -1;
	}
	f = &ns->e[ns->n];
	memset(f, 0, sizeof(*f));
	f->idx = idx;
	strcpy(f->workload, workload);
	strcpy(f->kind, kind);
	strcpy(f->name, name);
	strcpy(f->host, host);
	strcpy(f->figure, figure);
	f->n = n;
	f->sum = sum;
	f->max = max;
	ns->slot[h] = ns->n++;
	return 0;
}

void gl_nodes_visit(struct gl_nodes *ns, int64_t idx, int take, void (*fn)(void *arg, const struct gl_node_fig *f),
		    void *arg)
{
	int k = 0;

	if (!ns)
		return;
	for (int i = 0; i < ns->n; i++) {
		if (ns->e[i].idx == idx) {
			fn(arg, &ns->e[i]);
			if (take)
				continue;
		}
		if (k != i)
			ns->e[k] = ns->e[i];
		k++;
	}
	if (k != ns->n) {
		ns->n = k;
		reindex(ns);
	}
}

void gl_nodes_take_all(struct gl_nodes *ns, void (*fn)(void *arg, const struct gl_node_fig *f), void *arg)
{
	if (!ns)
		return;
	for (int i = 0; i < ns->n; i++)
		fn(arg, &ns->e[i]);
	if (ns->n) {
		ns->n = 0;
		reindex(ns);
	}
}

int64_t gl_nodes_dropped(const struct gl_nodes *ns)
{
	return ns ? ns->dropped : 0;
}

static int text_at(const cJSON *e, int i, char *out, size_t max)
{
	const char *s = cJSON_GetStringValue(cJSON_GetArrayItem(e, i));

	if (!gl_node_text_ok(s, max))
		return -1;
	snprintf(out, max, "%s", s);
	return 0;
}

int gl_nodes_decode(const unsigned char *p, size_t len, struct gl_node_fig **out, int *n, char *why, size_t wn)
{
	cJSON *j = cJSON_ParseWithLength((const char *)p, len), *figs = cJSON_GetObjectItemCaseSensitive(j, "figs"), *e;
	struct gl_node_fig *v = NULL;
	int k = 0;

	*out = NULL;
	*n = 0;
	if (!cJSON_IsArray(figs) || cJSON_GetArraySize(figs) > GL_NODES_MAX) {
		snprintf(why, wn, "nodes: no \"figs\" array of at most %d entries", GL_NODES_MAX);
		goto bad;
	}
	v = calloc((size_t)cJSON_GetArraySize(figs) + 1, sizeof(*v));
	if (!v) {
		snprintf(why, wn, "nodes: out of memory");
		goto bad;
	}
	cJSON_ArrayForEach(e, figs)
	{
		struct gl_node_fig *f = &v[k];
		double x[4];
		int ok = cJSON_IsArray(e) && cJSON_GetArraySize(e) == 8;
		for (int i = 0; i < 4 && ok; i++) {
			const cJSON *num = cJSON_GetArrayItem(e, i ? 4 + i : 0);
			ok = cJSON_IsNumber(num);
			x[i] = ok ? num->valuedouble : 0;
		}
		ok = ok && x[0] >= 0 && x[0] <= 4e18 && x[1] >= 0 && x[1] <= 1099511627776.0 && x[2] >= -1e15 &&
		     x[2] <= 1e15 && x[3] >= -1e15 && x[3] <= 1e15 && text_at(e, 1, f->kind, sizeof(f->kind)) == 0 &&
		     gl_node_kind_ok(f->kind) && text_at(e, 2, f->name, sizeof(f->name)) == 0 &&
		     text_at(e, 3, f->host, sizeof(f->host)) == 0 && text_at(e, 4, f->figure, sizeof(f->figure)) == 0;
		if (!ok) {
			snprintf(why, wn,
				 "nodes: entry %d is not [window, kind, name, host, figure, n, sum, max] in range", k);
			goto bad;
		}
		f->idx = (int64_t)x[0];
		f->n = (int64_t)x[1];
		f->sum = x[2];
		f->max = x[3];
		k++;
	}
	cJSON_Delete(j);
	*out = v;
	*n = k;
	return 0;
bad:
	free(v);
	cJSON_Delete(j);
	return -1;
}
