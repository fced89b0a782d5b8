/*
 * nodes.h - per-node figures: each workload's figures split by what made
 * them (an endpoint, a rank, a load agent, a GPU, a host, a link), window
 * by window, so that the analysis can score every one of them against its
 * peers and name the one that fails the cluster (docs/nodes.md).
 *
 * A figure of a node in a window is a count n of samples, their sum and
 * their largest value: the analysis reads the mean (sum / n) and the max.
 * Workloads record them through gl_ctx_node (plugin.h); agents send theirs
 * to the controller, which also rolls the figures a workload marks
 * per_agent up under the agent that measured them. The accumulator holds
 * a bounded number of (window, node, figure) entries: past it, samples are
 * left out and counted.
 */
#ifndef GL_NODES_H
#define GL_NODES_H

#include <stddef.h>
#include <stdint.h>

/* The kinds of node a figure can belong to. */
#define GL_NODE_KINDS "endpoint", "rank", "agent", "gpu", "host", "link"
int gl_node_kind_ok(const char *kind);

#define GL_NODE_NAME_MAX 96
#define GL_NODE_FIGURE_MAX 32
#define GL_NODES_MAX 16384 /* (window, node, figure) entries held at once */

struct gl_node_fig {
	int64_t idx; /* the window */
	char workload[24], kind[12];
	char name[GL_NODE_NAME_MAX], host[GL_NODE_NAME_MAX], figure[GL_NODE_FIGURE_MAX];
	int64_t n;
	double sum, max;
};

/* A name, host or figure as the store keeps it: 1..max-1 bytes of
 * [A-Za-z0-9._:@/+-] (what host names, addresses and indices use). */
int gl_node_text_ok(const char *s, size_t max);
/* FNV-1a over a (window, workload, kind, name, host, figure) key, for the
 * tables that index them. */
uint32_t gl_node_key_hash(int64_t idx, const char *workload, const char *kind, const char *name, const char *host,
			  const char *figure);
/* s with every byte gl_node_text_ok refuses made '_' (in place). */
void gl_node_text_fix(char *s);

struct gl_nodes;
struct gl_nodes *gl_nodes_new(void);
void gl_nodes_free(struct gl_nodes *ns);
/* n samples of sum (largest max) for one node's figure in window idx.
 * 0, or -1 when the entry was left out (bad text, the table full: counted
 * in gl_nodes_dropped). */
int gl_nodes_add(struct gl_nodes *ns, int64_t idx, const char *workload, const char *kind, const char *name,
		 const char *host, const char *figure, int64_t n, double sum, double max);
/* Each entry of window idx, in no set order: fn(arg, f). With take, the
 * entries are removed after the visit (the window is written whole). */
void gl_nodes_visit(struct gl_nodes *ns, int64_t idx, int take, void (*fn)(void *arg, const struct gl_node_fig *f),
		    void *arg);
/* Every window's entries, taken (an agent sends them all). */
void gl_nodes_take_all(struct gl_nodes *ns, void (*fn)(void *arg, const struct gl_node_fig *f), void *arg);
/* Samples left out so far (bad text or the table full). */
int64_t gl_nodes_dropped(const struct gl_nodes *ns);

/* An agent's NODES frame (agent_wire.h), {"figs": [[window, kind, name,
 * host, figure, n, sum, max], ...]}, decoded whole: 0 with *out (malloc'd,
 * workload left empty) and *n, or -1 with why when the text is not that,
 * an entry has a bad kind or text, a window below 0, n outside 0..2^40 or
 * sum or max outside +-1e15. At most GL_NODES_MAX entries. */
int gl_nodes_decode(const unsigned char *p, size_t len, struct gl_node_fig **out, int *n, char *why, size_t wn);

#endif
