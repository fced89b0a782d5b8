/*
 * fuzz_nodes.c - fuzz target for harness/core/nodes.c: the NODES frame a
 * load agent sends (gl_nodes_decode) and the accumulator the controller
 * merges it into. The input is copied into a buffer of exactly its size
 * (an over-read trips the sanitizer). Every entry decoded must keep
 * nodes.h's promises (a known kind, text the store keeps, numbers in
 * range), and adding them all must hold no more than GL_NODES_MAX entries
 * and visit each window's entries once, or the target aborts.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodes.h"

static void count(void *arg, const struct gl_node_fig *f)
{
	if (!gl_node_kind_ok(f->kind) || !gl_node_text_ok(f->name, GL_NODE_NAME_MAX) || f->n < 0)
		abort();
	(*(int *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *p = malloc(size ? size : 1);
	struct gl_node_fig *v;
	struct gl_nodes *ns;
	char why[256] = "";
	int n, seen = 0;

	if (!p)
		return 0;
	memcpy(p, data, size);
	if (gl_nodes_decode(p, size, &v, &n, why, sizeof(why)) == 0) {
		if (n < 0 || n > GL_NODES_MAX)
			abort();
		ns = gl_nodes_new();
		for (int i = 0; i < n; i++) {
			const struct gl_node_fig *f = &v[i];
			if (!gl_node_kind_ok(f->kind) || !gl_node_text_ok(f->name, GL_NODE_NAME_MAX) ||
			    !gl_node_text_ok(f->host, GL_NODE_NAME_MAX) ||
			    !gl_node_text_ok(f->figure, GL_NODE_FIGURE_MAX) || f->idx < 0 || f->n < 0 ||
			    f->n > (INT64_C(1) << 40) || !isfinite(f->sum) || !isfinite(f->max))
				abort();
			if (ns)
				gl_nodes_add(ns, f->idx, "inference", f->kind, f->name, f->host, f->figure, f->n,
					     f->sum, f->max);
		}
		for (int i = 0; ns && i < n; i++)
			gl_nodes_visit(ns, v[i].idx, 1, count, &seen);
		if (seen > n)
			abort();
		gl_nodes_free(ns);
		free(v);
	} else if (!why[0]) {
		abort(); /* a refusal says why */
	}
	free(p);
	return 0;
}
