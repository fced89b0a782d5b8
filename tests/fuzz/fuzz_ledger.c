/*
 * fuzz_ledger.c - fuzz target for reports/ledger.c: a report.json as
 * `gauntlet nodes` reads it (gl_ledger_add_report), added twice (the second
 * time it must be the same run, left out) and sorted. The input is copied
 * into a buffer of exactly its size (an over-read trips the sanitizer).
 * The ledger must keep its promises or the target aborts: a refused report
 * changes nothing; no node is a suspect in more runs than it was seen in,
 * or in more runs than were read; names are text the table prints as it is.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "nodes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = malloc(size ? size : 1);
	struct gl_ledger l;
	struct gl_err err = { 0 };
	int rc;

	if (!p)
		return 0;
	memcpy(p, data, size);
	gl_ledger_init(&l);
	rc = gl_ledger_add_report(&l, p, size, "fuzz", &err);
	if (rc < 0 && (l.n_runs || l.n_nodes || !err.msg[0]))
		abort();
	if (rc == 0) {
		struct gl_err e2 = { 0 };
		if (gl_ledger_add_report(&l, p, size, "fuzz", &e2) != 1 || l.n_runs != 1 || l.runs_repeated != 1)
			abort();
	}
	gl_ledger_sort(&l);
	for (int i = 0; i < l.n_nodes; i++) {
		const struct gl_ledger_node *n = &l.nodes[i];
		if (n->suspect_runs > n->runs || n->runs > l.n_runs || n->n_as > GL_LEDGER_MAX_AS ||
		    !memchr(n->node, '\0', sizeof(n->node)) || !memchr(n->evidence, '\0', sizeof(n->evidence)))
			abort();
		for (const char *c = n->evidence; *c; c++)
			if ((unsigned char)*c < 0x20)
				abort();
	}
	gl_ledger_free(&l);
	free(p);
	return 0;
}
