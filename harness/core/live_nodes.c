/*
 * live_nodes.c - the live view's per-node series (live.h, docs/live.md):
 * each closed window's per-node figures, scored against their peers as the
 * analysis scores them (gl_node_zscores, the workloads' definitions), kept
 * until the next window closes. At most GL_LIVE_NODES rows a window, so
 * the scrape's label sets are bounded whatever the fleet; rows past that
 * are counted (gauntlet_node_series_dropped_total).
 *
 * Unlike the report, which inside a fault's span judges only the nodes on
 * hosts the fault does not touch (docs/nodes.md), every node is scored
 * against all its peers in every window: live, the node a fault hits is
 * the one that stands out, which is what an operator watching the soak
 * wants to see. Nor is a node scored against its own history here.
 */
#include "live_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "nodes.h"

void gl_live_node_row(struct gl_live *l, const struct gl_node_fig *f)
{
	struct live_node *x;

	if (!l)
		return;
	if (!l->nodes_next && !(l->nodes_next = calloc(GL_LIVE_NODES, sizeof(*l->nodes_next)))) {
		l->nodes_dropped++;
		return;
	}
	if (l->n_next >= GL_LIVE_NODES) {
		l->nodes_dropped++;
		return;
	}
	x = &l->nodes_next[l->n_next++];
	snprintf(x->workload, sizeof(x->workload), "%s", f->workload);
	snprintf(x->kind, sizeof(x->kind), "%s", f->kind);
	snprintf(x->name, sizeof(x->name), "%s", f->name);
	snprintf(x->host, sizeof(x->host), "%s", f->host);
	snprintf(x->figure, sizeof(x->figure), "%s", f->figure);
	x->n = f->n;
	x->mean = f->n > 0 ? f->sum / (double)f->n : 0;
	x->z = NAN;
}

static int cmp_node(const void *a, const void *b)
{
	const struct live_node *x = a, *y = b;
	int c;

	if ((c = strcmp(x->workload, y->workload)) || (c = strcmp(x->kind, y->kind)) ||
	    (c = strcmp(x->figure, y->figure)))
		return c;
	return strcmp(x->name, y->name);
}

/* Rows [i, j) of one workload, kind and figure: z against each other. */
static void score(struct live_node *v, int n)
{
	const struct gl_node_figure_def *d = gl_node_def_find(v[0].workload, v[0].kind, v[0].figure);
	double mean[GL_LIVE_NODES], z[GL_LIVE_NODES];
	int64_t cnt[GL_LIVE_NODES];

	if (!d || d->shown_only)
		return;
	if (d->zero_expected) {
		for (int i = 0; i < n; i++)
			v[i].z = v[i].mean > 0 ? GL_NODE_ZMAX : 0;
		return;
	}
	for (int i = 0; i < n; i++) {
		mean[i] = v[i].mean;
		cnt[i] = v[i].n;
	}
	if (gl_node_zscores(d, mean, cnt, n, z) <= 0)
		return;
	for (int i = 0; i < n; i++)
		v[i].z = z[i];
}

void gl_live_nodes_close(struct gl_live *l, int64_t idx)
{
	struct live_node *t;

	if (!l || !l->nodes_next)
		return;
	qsort(l->nodes_next, (size_t)l->n_next, sizeof(*l->nodes_next), cmp_node);
	for (int i = 0, j; i < l->n_next; i = j) {
		for (j = i + 1; j < l->n_next && !strcmp(l->nodes_next[i].workload, l->nodes_next[j].workload) &&
				!strcmp(l->nodes_next[i].kind, l->nodes_next[j].kind) &&
				!strcmp(l->nodes_next[i].figure, l->nodes_next[j].figure);
		     j++)
			;
		score(&l->nodes_next[i], j - i);
	}
	t = l->nodes_shown;
	l->nodes_shown = l->nodes_next;
	l->n_shown = l->n_next;
	l->nodes_next = t;
	l->n_next = 0;
	l->nodes_idx = idx;
}
