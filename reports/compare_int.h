/*
 * compare_int.h - what the files of `gauntlet compare` share, private to
 * them (the command and its rules are in compare.h). Who owns what:
 *   compare.c          the command: options, loading the two runs, the
 *                      warnings about how they differ, exit codes
 *   compare_figures.c  what is compared: the figures (catalog metrics at
 *                      their statistics), the groups (phases, faults), and
 *                      each window's figure values from a store
 *   compare_stats.c    the statistics: the Mann-Whitney U test, and per
 *                      group and figure the medians, the change, the
 *                      tolerance and the verdict (the rows)
 *   compare_write.c    the writers: the table on stdout, compare.json,
 *                      compare.md and compare.html
 */
#ifndef GL_COMPARE_INT_H
#define GL_COMPARE_INT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "analysis.h"
#include "catalog.h"
#include "compare.h"
#include "store.h"
#include "util.h"

#define MAX_STATS 8

/* ---- what is compared ------------------------------------------------------ */

struct figure {
	char name[128];                   /* "inference.ttft_ms.p99" */
	const struct gl_metric_def *def;
	char stat[16];                    /* histograms: "p99", "max", ... */
	double pct;                       /* histograms: percentile, or -1 */
	const struct gl_metric_def *num, *den;   /* ratios and rates: their counters */
};

struct group {
	char name[GL_NAME_MAX];           /* phase name; "" for the faults group */
	int occ;                          /* 1 for the first phase of that name; 0: faults */
	char label[GL_NAME_MAX + 16];
};

enum verdict { V_INSUFFICIENT, V_NONE, V_IMPROVEMENT, V_REGRESSION };

struct row {
	int fig, grp;
	int n_base, n_cand;
	double med_base, med_cand, mean_base, mean_cand;
	double change;                    /* relative; +-inf from 0; NAN: none */
	int change_from_means;
	int tested;
	struct gl_mwu t;
	enum verdict v;
	char note[160];
};

struct side {
	const char *dir, *role;           /* "base", "candidate" */
	struct gl_store *st;
	struct gl_analysis *an;
	int *group;                       /* per window: group index, -1 not compared */
	double *val;                      /* n_windows x n_fig, NAN: no value */
	unsigned char *has;               /* per figure: some window has a value */
};

struct opts {
	const char *base, *cand, *out;
	double alpha, tolerance;
	int min_windows, quiet;
	char stats[MAX_STATS][16];
	int n_stats;
};

struct cmp {
	struct opts o;
	struct side s[2];
	struct figure *figs;
	int n_figs;
	struct group *groups;
	int n_groups;
	struct row *rows;
	int n_rows;
	char **warnings;
	int n_warnings;
	int count[4];
	cJSON *not_compared;
};

/* compare_figures.c: the figures of every catalog metric at o.stats; each
 * window's group in one run; each window's figure values in one run
 * (s->val, s->has). -1: out of memory (side_values: a gl_err). */
int gl_cmp_build_figures(struct cmp *c);
int gl_cmp_assign_groups(struct cmp *c, struct side *s);
int gl_cmp_side_values(struct cmp *c, struct side *s, struct gl_err *err);

/* compare_stats.c: a row per group and figure with data in both runs,
 * judged; c->count and c->not_compared filled. -1: out of memory. */
int gl_cmp_compare_rows(struct cmp *c);

/* compare_write.c: the table (stdout), and compare.json, .md and .html
 * into dir. */
void gl_cmp_print_table(const struct cmp *c, FILE *f);
int gl_cmp_write_outputs(const struct cmp *c, const char *dir, int exit_code, struct gl_err *err);

#endif
