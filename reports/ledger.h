/*
 * ledger.h - `gauntlet nodes`: the ledger of nodes across runs (the list of
 * "lemons" an operator takes to the vendor).
 *
 * It reads report.json files, from run directories, from report.json paths
 * or from evidence repositories (every branch evidence/<scenario>, every
 * RUN_ID/report.json in its tip: what `gauntlet seal` writes), and counts,
 * per node, the runs whose per-node figures it appeared in and the runs it
 * was a suspect in (docs/nodes.md), with the workload, kind and name it was
 * a suspect as and its worst score and evidence.
 *
 * A node is the host a figure names; a figure whose host is not known
 * ("-") is its own node, named "KIND NAME" (an endpoint's host:port). A
 * run is counted once, by its run id, however many times it is given.
 */
#ifndef GL_LEDGER_H
#define GL_LEDGER_H

#include <stddef.h>

#include "util.h"

#define GL_LEDGER_MAX_NODES 65536 /* nodes kept; a report beyond is refused */
#define GL_LEDGER_MAX_AS 4 /* the (workload, kind, name) a node was a suspect as, kept per node */
#define GL_LEDGER_REPORT_MAX (256u << 20) /* a report.json larger is refused */

struct gl_ledger_as {
	char workload[96], kind[16], name[96];
	int times;
};

struct gl_ledger_node {
	char node[128];
	int runs, suspect_runs;
	double worst_score; /* of its suspect appearances; 0 when never */
	char worst_run[96], evidence[256];
	struct gl_ledger_as as[GL_LEDGER_MAX_AS];
	int n_as, more_as; /* more_as: appearances beyond the kept ones */
	long last_run, last_suspect; /* internal: the runs that last counted it */
};

struct gl_ledger {
	struct gl_ledger_node *nodes;
	int n_nodes, cap_nodes;
	char **run_ids;
	int n_runs, cap_runs, runs_failed, runs_repeated;
	long seq;
	void *index; /* internal: the nodes by name */
};

void gl_ledger_init(struct gl_ledger *l);
void gl_ledger_free(struct gl_ledger *l);

/* One report.json's text (len bytes; need not end in NUL), source naming
 * where it came from for messages. 0 counted; 1 a run already counted
 * (left out); a negative code with err saying what is wrong and where (the
 * ledger is unchanged by a refused report). */
int gl_ledger_add_report(struct gl_ledger *l, const char *text, size_t len, const char *source, struct gl_err *err);

/* The nodes sorted: most suspect runs first, then the higher share of
 * suspect runs, the worse score, the name. */
void gl_ledger_sort(struct gl_ledger *l);

/* `gauntlet nodes RUN_DIR|REPORT_JSON|EVIDENCE_REPO... [--all] [--json]` */
int gl_ledger_main(int argc, char **argv);

#endif
