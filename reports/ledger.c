/*
 * ledger.c - `gauntlet nodes` (ledger.h): report.json files in, per node
 * the runs it was seen in and the runs it was a suspect in, out.
 *
 * A report is checked whole before anything of it is counted, so a
 * refused report leaves the ledger as it was. Nodes are found through an
 * open-addressing index on their names; memory is one entry per node
 * (GL_LEDGER_MAX_NODES at most) and one run id per run.
 */
#define _GNU_SOURCE
#include "ledger.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <git2.h>

#include "nodes.h"
#include "states.h"

/* ---- the ledger --------------------------------------------------------------------------- */

/* the index: slot i holds a node's position + 1, 0 when empty */
struct ledger_index {
	int *slot;
	size_t cap;
};

static struct ledger_index *index_of(struct gl_ledger *l)
{
	return (struct ledger_index *)l->index;
}

void gl_ledger_init(struct gl_ledger *l)
{
	memset(l, 0, sizeof(*l));
}

void gl_ledger_free(struct gl_ledger *l)
{
	struct ledger_index *ix = index_of(l);

	for (int i = 0; i < l->n_runs; i++)
		free(l->run_ids[i]);
	free(l->run_ids);
	free(l->nodes);
	if (ix) {
		free(ix->slot);
		free(ix);
	}
	memset(l, 0, sizeof(*l));
}

static uint64_t hash_text(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The index rebuilt with cap slots (a power of two). */
static int index_build(struct gl_ledger *l, size_t cap)
{
	struct ledger_index *ix = index_of(l);
	int *slot = calloc(cap, sizeof(int));

	if (!slot)
		return -1;
	if (!ix) {
		if (!(ix = calloc(1, sizeof(*ix)))) {
			free(slot);
			return -1;
		}
		l->index = ix;
	}
	for (int i = 0; i < l->n_nodes; i++) {
		size_t k = hash_text(l->nodes[i].node) & (cap - 1);
		while (slot[k])
			k = (k + 1) & (cap - 1);
		slot[k] = i + 1;
	}
	free(ix->slot);
	ix->slot = slot;
	ix->cap = cap;
	return 0;
}

/* Room for want nodes in all (the array, and the index at most half
 * full), so that adding them cannot fail. 0 or -1. */
static int reserve(struct gl_ledger *l, int want)
{
	struct ledger_index *ix = index_of(l);
	size_t cap = ix ? ix->cap : 0;

	if (want > l->cap_nodes) {
		int c = l->cap_nodes ? l->cap_nodes : 64;
		struct gl_ledger_node *nv;
		while (c < want)
			c *= 2;
		if (!(nv = realloc(l->nodes, sizeof(*nv) * (size_t)c)))
			return -1;
		l->nodes = nv;
		l->cap_nodes = c;
	}
	if (!cap)
		cap = 256;
	while ((size_t)want * 2 > cap)
		cap *= 2;
	return ix && cap == ix->cap ? 0 : index_build(l, cap);
}

/* The node named name, or NULL. */
static struct gl_ledger_node *node_find(struct gl_ledger *l, const char *name)
{
	struct ledger_index *ix = index_of(l);

	if (ix)
		for (size_t k = hash_text(name) & (ix->cap - 1); ix->slot[k]; k = (k + 1) & (ix->cap - 1))
			if (!strcmp(l->nodes[ix->slot[k] - 1].node, name))
				return &l->nodes[ix->slot[k] - 1];
	return NULL;
}

/* The node named name, made when new (room reserved beforehand). */
static struct gl_ledger_node *node_get(struct gl_ledger *l, const char *name)
{
	struct gl_ledger_node *n = node_find(l, name);
	struct ledger_index *ix = index_of(l);
	size_t k;

	if (n)
		return n;
	n = &l->nodes[l->n_nodes];
	memset(n, 0, sizeof(*n));
	snprintf(n->node, sizeof(n->node), "%s", name);
	for (k = hash_text(name) & (ix->cap - 1); ix->slot[k]; k = (k + 1) & (ix->cap - 1))
		;
	ix->slot[k] = ++l->n_nodes;
	return n;
}

/* ---- one report -------------------------------------------------------------------------- */

/* The node a figure or suspect belongs to: its host, else "KIND NAME". */
static void node_name(const char *kind, const char *name, const char *host, char *out, size_t n)
{
	if (strcmp(host, "-") != 0)
		snprintf(out, n, "%s", host);
	else
		snprintf(out, n, "%s %s", kind, name);
}

/* item's string key, checked: text the ledger prints as it is */
static const char *text_of(const cJSON *item, const char *key, size_t max, const char *source, const char *where, int i,
			   struct gl_err *err)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, key));

	if (!s) {
		gl_errf(err, GL_EINVAL, "%s: %s[%d].%s: expected a string", source, where, i, key);
		return NULL;
	}
	if (!gl_node_text_ok(s, max)) {
		gl_errf(err, GL_EINVAL, "%s: %s[%d].%s: expected at most %zu printable characters, got '%.40s'", source,
			where, i, key, max, s);
		return NULL;
	}
	return s;
}

/* Every entry of report r's list where ("nodes.list" or "suspects")
 * checked; 0 or a negative code. */
static int check_list(const cJSON *list, const char *source, const char *where, int suspects, struct gl_err *err)
{
	const cJSON *e;
	int i = 0;

	if (!cJSON_IsArray(list))
		return gl_errf(err, GL_EINVAL, "%s: %s: expected an array", source, where);
	cJSON_ArrayForEach(e, list)
	{
		const char *kind = text_of(e, "kind", 15, source, where, i, err);
		if (!kind || !text_of(e, "name", 95, source, where, i, err) ||
		    !text_of(e, "host", 95, source, where, i, err) ||
		    !text_of(e, "workload", 95, source, where, i, err))
			return -GL_EINVAL;
		if (!gl_node_kind_ok(kind))
			return gl_errf(err, GL_EINVAL, "%s: %s[%d].kind: unknown kind '%s'", source, where, i, kind);
		if (suspects) {
			const cJSON *sc = cJSON_GetObjectItemCaseSensitive(e, "score");
			const char *ev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "evidence"));
			if (!cJSON_IsNumber(sc) || !(sc->valuedouble >= -1e12 && sc->valuedouble <= 1e12))
				return gl_errf(err, GL_EINVAL, "%s: %s[%d].score: expected a number", source, where, i);
			if (!ev)
				return gl_errf(err, GL_EINVAL, "%s: %s[%d].evidence: expected a string", source, where,
					       i);
		}
		i++;
	}
	return 0;
}

static void add_as(struct gl_ledger_node *n, const char *workload, const char *kind, const char *name)
{
	for (int i = 0; i < n->n_as; i++)
		if (!strcmp(n->as[i].workload, workload) && !strcmp(n->as[i].kind, kind) &&
		    !strcmp(n->as[i].name, name)) {
			n->as[i].times++;
			return;
		}
	if (n->n_as == GL_LEDGER_MAX_AS) {
		n->more_as++;
		return;
	}
	snprintf(n->as[n->n_as].workload, sizeof(n->as[0].workload), "%s", workload);
	snprintf(n->as[n->n_as].kind, sizeof(n->as[0].kind), "%s", kind);
	snprintf(n->as[n->n_as].name, sizeof(n->as[0].name), "%s", name);
	n->as[n->n_as++].times = 1;
}

/* evidence made printable on one line */
static void copy_evidence(char *out, size_t n, const char *ev)
{
	size_t k = 0;

	for (; *ev && k + 1 < n; ev++)
		out[k++] = ((unsigned char)*ev < 0x20 || *ev == 0x7f) ? ' ' : *ev;
	out[k] = '\0';
}

/* The node entry e (of nodes.list or suspects) belongs to, its name into
 * out. */
static void entry_node(const cJSON *e, char *out, size_t n)
{
	node_name(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "kind")),
		  cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name")),
		  cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "host")), out, n);
}

/* The parts of a report the ledger reads, checked; 0 or a negative code. */
struct report_parts {
	const char *id, *verdict;
	const cJSON *list, *sus;
};

static int report_parts(const cJSON *r, const char *source, struct report_parts *p, struct gl_err *err)
{
	const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(r, "nodes");
	int rc;

	p->id = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "run"), "id"));
	p->verdict = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "verdict"));
	p->list = cJSON_GetObjectItemCaseSensitive(nodes, "list");
	p->sus = cJSON_GetObjectItemCaseSensitive(r, "suspects");
	if (!p->id || !gl_node_text_ok(p->id, 95))
		return gl_errf(err, GL_EINVAL, "%s: run.id: expected the run's id (a string), not found", source);
	if (!p->verdict)
		return gl_errf(err, GL_EINVAL, "%s: verdict: expected a string", source);
	if (!nodes || !p->sus)
		return gl_errf(err, GL_EINVAL,
			       "%s: no \"nodes\" or \"suspects\": a report written before per-node figures "
			       "(gauntlet report DIR writes it again from the store)",
			       source);
	if ((rc = check_list(p->list, source, "nodes.list", 0, err)) != 0)
		return rc;
	return check_list(p->sus, source, "suspects", 1, err);
}

/* Room for one more run and every node p names, so that counting it
 * cannot fail halfway; 0 or a negative code. */
static int reserve_report(struct gl_ledger *l, const struct report_parts *p, const char *source, struct gl_err *err)
{
	const cJSON *lists[2] = { p->list, p->sus }, *e;
	char name[256];
	int fresh = 0; /* new names; a name twice counted twice: an upper bound */

	if (l->n_runs == l->cap_runs) {
		int cap = l->cap_runs ? l->cap_runs * 2 : 16;
		char **nv = realloc(l->run_ids, sizeof(*nv) * (size_t)cap);
		if (!nv)
			return gl_errf(err, GL_ENOMEM, "%s: out of memory", source);
		l->run_ids = nv;
		l->cap_runs = cap;
	}
	for (int k = 0; k < 2; k++)
		cJSON_ArrayForEach(e, lists[k])
		{
			entry_node(e, name, sizeof(name));
			fresh += !node_find(l, name);
		}
	if (l->n_nodes + fresh > GL_LEDGER_MAX_NODES)
		return gl_errf(err, GL_EINVAL, "%s: more nodes than the ledger keeps (%d)", source,
			       GL_LEDGER_MAX_NODES);
	if (reserve(l, l->n_nodes + fresh) != 0)
		return gl_errf(err, GL_ENOMEM, "%s: out of memory", source);
	return 0;
}

/* node n seen in run seq (once per run) */
static void seen_in(struct gl_ledger_node *n, long seq)
{
	if (n->last_run != seq) {
		n->last_run = seq;
		n->runs++;
	}
}

/* A checked report with room reserved, counted. */
static void count_report(struct gl_ledger *l, const struct report_parts *p, long seq)
{
	const cJSON *e;
	char name[256];

	cJSON_ArrayForEach(e, p->list)
	{
		entry_node(e, name, sizeof(name));
		seen_in(node_get(l, name), seq);
	}
	cJSON_ArrayForEach(e, p->sus)
	{
		const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "kind"));
		const char *nm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
		double score = cJSON_GetObjectItemCaseSensitive(e, "score")->valuedouble;
		struct gl_ledger_node *n;

		entry_node(e, name, sizeof(name));
		n = node_get(l, name);
		seen_in(n, seq);
		if (n->last_suspect != seq) {
			n->last_suspect = seq;
			n->suspect_runs++;
		}
		add_as(n, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "workload")), kind, nm);
		if (!n->worst_run[0] || score > n->worst_score) {
			n->worst_score = score;
			snprintf(n->worst_run, sizeof(n->worst_run), "%s", p->id);
			copy_evidence(n->evidence, sizeof(n->evidence),
				      cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "evidence")));
		}
	}
}

int gl_ledger_add_report(struct gl_ledger *l, const char *text, size_t len, const char *source, struct gl_err *err)
{
	cJSON *r = cJSON_ParseWithLength(text, len);
	struct report_parts p;
	char *id = NULL;
	int rc;

	if (!r || !cJSON_IsObject(r)) {
		cJSON_Delete(r);
		return gl_errf(err, GL_EINVAL, "%s: not a report.json (not a JSON object)", source);
	}
	if ((rc = report_parts(r, source, &p, err)) != 0)
		goto out;
	for (int i = 0; i < l->n_runs; i++)
		if (!strcmp(l->run_ids[i], p.id)) {
			l->runs_repeated++;
			rc = 1;
			goto out;
		}
	if ((rc = reserve_report(l, &p, source, err)) != 0)
		goto out;
	if (!(id = strdup(p.id))) {
		rc = gl_errf(err, GL_ENOMEM, "%s: out of memory", source);
		goto out;
	}
	l->run_ids[l->n_runs++] = id;
	l->runs_failed += strcasecmp(p.verdict, "pass") != 0;
	count_report(l, &p, ++l->seq);
out:
	cJSON_Delete(r);
	return rc;
}

static int cmp_node(const void *a, const void *b)
{
	const struct gl_ledger_node *x = a, *y = b;
	double sx = x->runs ? (double)x->suspect_runs / x->runs : 0,
	       sy = y->runs ? (double)y->suspect_runs / y->runs : 0;

	if (x->suspect_runs != y->suspect_runs)
		return x->suspect_runs > y->suspect_runs ? -1 : 1;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	if (x->worst_score != y->worst_score)
		return x->worst_score > y->worst_score ? -1 : 1;
	return strcmp(x->node, y->node);
}

void gl_ledger_sort(struct gl_ledger *l)
{
	if (l->n_nodes > 1)
		qsort(l->nodes, (size_t)l->n_nodes, sizeof(*l->nodes), cmp_node);
	/* positions moved: the index is made again (or dropped) */
	if (index_of(l) && index_build(l, index_of(l)->cap) != 0) {
		free(index_of(l)->slot);
		free(index_of(l));
		l->index = NULL;
	}
}

/* ---- the command ------------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: gauntlet nodes RUN_DIR|REPORT_JSON|EVIDENCE_REPO... [--all] [--json]\n"
		   "  per node, over the runs given: the runs it was seen in and the runs it was a\n"
		   "  suspect in (docs/nodes.md), worst first\n"
		   "  RUN_DIR        a run directory (its report.json)\n"
		   "  REPORT_JSON    a report.json file\n"
		   "  EVIDENCE_REPO  a repository `gauntlet seal` wrote: every RUN_ID/report.json in the\n"
		   "                 tip of every evidence/<scenario> branch\n"
		   "  --all          every node, not only those that were ever a suspect\n"
		   "  --json         the ledger as JSON on stdout instead of the table\n"
		   "  a run given twice (a run directory and its sealed copy) is counted once\n"
		   "exit: 0 the ledger was made; 2 an input is not a run, a report or a repository,\n"
		   "      or a report in it is not valid (nothing is printed then)\n");
}

/* Every RUN_ID/report.json in the tips of repo's evidence/ branches.
 * 0, or a negative code with err. */
static int add_repo(struct gl_ledger *l, git_repository *repo, const char *path, int *found, struct gl_err *err)
{
	git_branch_iterator *it = NULL;
	git_reference *ref;
	git_branch_t type;
	int rc = 0;

	if (git_branch_iterator_new(&it, repo, GIT_BRANCH_LOCAL) != 0)
		return gl_errf(err, GL_EIO, "%s: cannot list branches: %s", path,
			       git_error_last() ? git_error_last()->message : "?");
	while (rc == 0 && git_branch_next(&ref, &type, it) == 0) {
		const char *name = git_reference_name(ref);
		git_tree *tree = NULL;
		if (strncmp(name, "refs/heads/evidence/", 20) != 0 ||
		    git_reference_peel((git_object **)&tree, ref, GIT_OBJECT_TREE) != 0) {
			git_reference_free(ref);
			continue;
		}
		for (size_t i = 0; rc == 0 && i < git_tree_entrycount(tree); i++) {
			const git_tree_entry *te = git_tree_entry_byindex(tree, i);
			git_tree *run = NULL;
			git_tree_entry *rj = NULL;
			git_blob *blob = NULL;
			char source[1200];
			if (git_tree_entry_type(te) != GIT_OBJECT_TREE ||
			    git_tree_lookup(&run, repo, git_tree_entry_id(te)) != 0)
				continue;
			snprintf(source, sizeof(source), "%s:%s:%s/report.json", path, name + 11,
				 git_tree_entry_name(te));
			if (git_tree_entry_bypath(&rj, run, "report.json") == 0 &&
			    git_tree_entry_type(rj) == GIT_OBJECT_BLOB &&
			    git_blob_lookup(&blob, repo, git_tree_entry_id(rj)) == 0) {
				git_object_size_t size = git_blob_rawsize(blob);
				if (size > GL_LEDGER_REPORT_MAX)
					rc = gl_errf(err, GL_EINVAL, "%s: larger than %u MiB", source,
						     GL_LEDGER_REPORT_MAX >> 20);
				else if ((rc = gl_ledger_add_report(l, git_blob_rawcontent(blob), (size_t)size, source,
								    err)) >= 0) {
					rc = 0;
					(*found)++;
				}
			}
			git_blob_free(blob);
			git_tree_entry_free(rj);
			git_tree_free(run);
		}
		git_tree_free(tree);
		git_reference_free(ref);
	}
	git_branch_iterator_free(it);
	return rc;
}

/* One argument: a run directory, a report.json or an evidence repository. */
static int add_arg(struct gl_ledger *l, const char *arg, struct gl_err *err)
{
	char path[4200];
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (stat(arg, &st) != 0)
		return gl_errf(err, GL_EINVAL, "%s: %s", arg, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		git_repository *repo = NULL;
		snprintf(path, sizeof(path), "%s/report.json", arg);
		if (access(path, F_OK) != 0 &&
		    git_repository_open_ext(&repo, arg, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0) {
			int found = 0;
			rc = add_repo(l, repo, arg, &found, err);
			git_repository_free(repo);
			if (rc == 0 && !found)
				rc = gl_errf(err, GL_EINVAL,
					     "%s: a repository with no sealed run (no RUN_ID/report.json in an "
					     "evidence/* branch)",
					     arg);
			return rc;
		}
	} else {
		snprintf(path, sizeof(path), "%s", arg);
	}
	if ((rc = gl_read_file(path, GL_LEDGER_REPORT_MAX, &text, &len, err)) != 0) {
		if (S_ISDIR(st.st_mode)) {
			gl_err_clear(err);
			gl_errf(err, GL_EINVAL,
				"%s: neither a run directory (no report.json) nor an evidence repository", arg);
		}
		return -GL_EINVAL;
	}
	rc = gl_ledger_add_report(l, text, len, path, err);
	free(text);
	return rc < 0 ? rc : 0;
}

static void print_as(FILE *f, const struct gl_ledger_node *n)
{
	for (int i = 0; i < n->n_as; i++)
		fprintf(f, "%s%s %s %s (%d)", i ? ", " : "", n->as[i].workload, n->as[i].kind, n->as[i].name,
			n->as[i].times);
	if (n->more_as)
		fprintf(f, ", %d more", n->more_as);
}

static int print_json(const struct gl_ledger *l, int all)
{
	cJSON *o = cJSON_CreateObject(), *arr, *runs;
	char *text;

	if (!o)
		return -1;
	cJSON_AddNumberToObject(o, "runs", l->n_runs);
	cJSON_AddNumberToObject(o, "runs_failed", l->runs_failed);
	cJSON_AddNumberToObject(o, "runs_given_twice", l->runs_repeated);
	runs = cJSON_AddArrayToObject(o, "run_ids");
	for (int i = 0; runs && i < l->n_runs; i++)
		cJSON_AddItemToArray(runs, cJSON_CreateString(l->run_ids[i]));
	arr = cJSON_AddArrayToObject(o, "nodes");
	for (int i = 0; arr && i < l->n_nodes; i++) {
		const struct gl_ledger_node *n = &l->nodes[i];
		cJSON *e, *as;
		if (!all && !n->suspect_runs)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, e);
		cJSON_AddStringToObject(e, "node", n->node);
		cJSON_AddNumberToObject(e, "runs", n->runs);
		cJSON_AddNumberToObject(e, "suspect_runs", n->suspect_runs);
		if (n->suspect_runs) {
			cJSON_AddNumberToObject(e, "worst_score", n->worst_score);
			cJSON_AddStringToObject(e, "worst_run", n->worst_run);
			cJSON_AddStringToObject(e, "evidence", n->evidence);
		}
		as = cJSON_AddArrayToObject(e, "suspect_as");
		for (int k = 0; as && k < n->n_as; k++) {
			cJSON *a = cJSON_CreateObject();
			cJSON_AddItemToArray(as, a);
			cJSON_AddStringToObject(a, "workload", n->as[k].workload);
			cJSON_AddStringToObject(a, "kind", n->as[k].kind);
			cJSON_AddStringToObject(a, "name", n->as[k].name);
			cJSON_AddNumberToObject(a, "runs", n->as[k].times);
		}
		cJSON_AddNumberToObject(e, "suspect_as_more", n->more_as);
	}
	text = cJSON_Print(o);
	cJSON_Delete(o);
	if (!text)
		return -1;
	printf("%s\n", text);
	cJSON_free(text);
	return 0;
}

static void print_table(const struct gl_ledger *l, int all)
{
	int ever = 0, shown = 0;

	for (int i = 0; i < l->n_nodes; i++)
		ever += l->nodes[i].suspect_runs > 0;
	printf("gauntlet nodes: %d run(s) (%d not passed), %d node(s), %d ever a suspect\n", l->n_runs, l->runs_failed,
	       l->n_nodes, ever);
	if (l->runs_repeated)
		printf("  (%d run(s) given more than once, counted once)\n", l->runs_repeated);
	for (int i = 0; i < l->n_nodes; i++) {
		const struct gl_ledger_node *n = &l->nodes[i];
		if (!all && !n->suspect_runs)
			continue;
		if (!shown++)
			printf("%-32s %5s %8s %6s %7s  %s\n", "node", "runs", "suspect", "share", "worst",
			       "suspect as (workload kind name (runs)); worst evidence [run]");
		printf("%-32s %5d %8d %5.0f%% ", n->node, n->runs, n->suspect_runs,
		       n->runs ? 100.0 * n->suspect_runs / n->runs : 0.0);
		if (n->suspect_runs) {
			printf("%7.1f  ", n->worst_score);
			print_as(stdout, n);
			printf("; %s [%s]\n", n->evidence, n->worst_run);
		} else {
			printf("%7s  -\n", "-");
		}
	}
	if (!all && l->n_nodes > ever)
		printf("%d node(s) never a suspect (--all lists them)\n", l->n_nodes - ever);
}

int gl_ledger_main(int argc, char **argv)
{
	struct gl_ledger l;
	struct gl_err err = { 0 };
	int all = 0, json = 0, n_in = 0, rc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return GL_EXIT_OK;
		} else if (!strcmp(argv[i], "--all")) {
			all = 1;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "gauntlet nodes: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return GL_EXIT_BAD_INPUT;
		} else {
			n_in++;
		}
	}
	if (!n_in) {
		usage(stderr);
		return GL_EXIT_BAD_INPUT;
	}
	gl_ledger_init(&l);
	git_libgit2_init();
	for (int i = 1; i < argc && rc == 0; i++)
		if (argv[i][0] != '-')
			rc = add_arg(&l, argv[i], &err);
	git_libgit2_shutdown();
	if (rc != 0) {
		fprintf(stderr, "gauntlet nodes: %s\n", err.msg);
		gl_ledger_free(&l);
		return rc == -GL_ENOMEM ? GL_EXIT_HARNESS_ERROR : GL_EXIT_BAD_INPUT;
	}
	gl_ledger_sort(&l);
	if (json) {
		if (print_json(&l, all) != 0) {
			fprintf(stderr, "gauntlet nodes: out of memory\n");
			rc = -1;
		}
	} else {
		print_table(&l, all);
	}
	gl_ledger_free(&l);
	return rc ? GL_EXIT_HARNESS_ERROR : GL_EXIT_OK;
}
