/*
 * compare_int.h - what the files of `gauntlet compare` share, private to
 * them (the command and its rules are in compare.h). Who owns what:
 *   compare.c          the command: options, loading the two runs, the
 *                      warnings about how they differ, exit codes
 *   compare_figures.c  what is compared: the figures (catalog metrics at
 *                      their statistics), the groups (phases, faults), and
 *                      each window's figure values from a store
 *   compare_stats.c    the statistics: the Mann-Whitney U test, Welch's t
 *                      test, and per group and figure the medians or
 *                      means, the change, the floor, the tolerance and the
 *                      verdict (the rows); the recovery rows per fault
 *   compare_write.c    the writers: the summary and the table on stdout,
 *                      compare.json, compare.md and compare.html
 *   compare_edge.c     the SLA edge of edge phases: each run's, the ratio,
 *                      the verdict, and their part of each output
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

/* How a figure is judged (compare.h):
 *   J_MEDIAN    the relative change of the medians against --tolerance, the
 *               Mann-Whitney U test, the unit's noise floor
 *   J_MEAN_ABS  first-class ratios (training.ettr, inference.goodput): the
 *               absolute change of the means against their own tolerance,
 *               Welch's t test
 *   J_FAULT     recovery_s, restore_s: one value per fault, paired by fault
 *               id, the relative change against --recovery-tolerance, a
 *               floor of `hold` windows */
enum judging { J_MEDIAN, J_MEAN_ABS, J_FAULT };

struct figure {
	char name[128]; /* "inference.ttft_ms.p99" */
	const struct gl_metric_def *def;
	char stat[16]; /* histograms: "p99", "max", ... */
	double pct; /* histograms: percentile, or -1 */
	const struct gl_metric_def *num, *den; /* ratios and rates: their counters */
	enum judging judging;
	int first_class; /* named in the summary's first lines */
	double floor; /* absolute change below which it is noise (unit) */
};

/* occ: 1 for the first phase of that name, 2 for the second...; 0: the
 * faults group; -1: the whole run (every compared window, faults
 * included), for the first-class ratios only. */
#define GROUP_WHOLE_RUN (-1)
struct group {
	char name[GL_NAME_MAX]; /* phase name; "" for the faults and whole-run groups */
	int occ;
	char label[GL_NAME_MAX + 16];
};

enum verdict { V_INSUFFICIENT, V_NONE, V_IMPROVEMENT, V_REGRESSION };
enum method { M_NONE, M_MWU, M_WELCH, M_SINGLE };

struct row {
	int fig, grp; /* grp -1: a fault's row (fault_id) */
	char fault_id[64];
	int n_base, n_cand;
	double med_base, med_cand, mean_base, mean_cand;
	double change; /* relative; +-inf from 0; NAN: none */
	double change_abs; /* cand - base of what was compared; NAN: none */
	int change_from_means;
	double tolerance; /* the one applied: relative, or absolute (J_MEAN_ABS) */
	double floor; /* the one applied (the figure's, or J_FAULT's) */
	int below_floor; /* significant, beyond the tolerance, under the floor */
	enum method method; /* M_NONE: not tested */
	int tested;
	struct gl_mwu t;
	struct gl_welch w;
	double p; /* the test's p-value (tested) */
	enum verdict v;
	char note[160];
};

struct side {
	const char *dir, *role; /* "base", "candidate" */
	struct gl_store *st;
	struct gl_analysis *an;
	int *group; /* per window: group index, -1 not compared */
	double *val; /* n_windows x n_fig, NAN: no value */
	unsigned char *has; /* per figure: some window has a value */
};

struct opts {
	const char *base, *cand, *out;
	double alpha, tolerance;
	double ettr_tolerance, goodput_tolerance, recovery_tolerance;
	int min_windows, quiet, all;
	char stats[MAX_STATS][16];
	int n_stats;
};

/* An edge phase of both runs (compare_edge.c): each side's edge (NAN:
 * none), its bracket, the search's outcome. */
struct edge_side {
	double edge, lo, hi;
	char outcome[24];
	int found, has, none_held;
};
struct edge_row {
	char name[GL_NAME_MAX];
	int occ;
	struct edge_side s[2];
	double ratio; /* candidate / base, NAN: not both */
	enum verdict v;
	char note[200];
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
	struct edge_row *edges;
	int n_edges;
};

/* compare_figures.c: the figures of every catalog metric at o.stats; each
 * window's group in one run; each window's figure values in one run
 * (s->val, s->has). -1: out of memory (side_values: a gl_err). */
int gl_cmp_build_figures(struct cmp *c);
int gl_cmp_assign_groups(struct cmp *c, struct side *s);
int gl_cmp_side_values(struct cmp *c, struct side *s, struct gl_err *err);

/* The noise floor of a unit (compare.h's table), and of a metric (its
 * own where it has one, else its unit's); 0: none. */
double gl_cmp_unit_floor(const char *unit);
double gl_cmp_metric_floor(const struct gl_metric_def *def);

/* compare_stats.c: a row per group and figure with data in both runs, and
 * per fault of both runs its recovery_s and restore_s, judged; c->count
 * and c->not_compared filled. -1: out of memory. */
int gl_cmp_compare_rows(struct cmp *c);

/* compare_write.c: where a row was measured ("steady", "whole run",
 * "fault f1"); the summary (stdout by default), the table of every
 * comparison (--all), and compare.json, .md and .html into dir. */
const char *gl_cmp_row_where(const struct cmp *c, const struct row *r, char *buf, size_t n);
void gl_cmp_print_summary(const struct cmp *c, FILE *f);
void gl_cmp_print_table(const struct cmp *c, FILE *f);
int gl_cmp_write_outputs(const struct cmp *c, const char *dir, int exit_code, struct gl_err *err);

/* compare_edge.c: the edge phases' rows, judged and counted in c->count
 * (-1 out of memory); a line each for the summary (only the regressions,
 * or all); compare.json's "edges"; the section of compare.md (html 0) or
 * compare.html (html 1). */
int gl_cmp_edges(struct cmp *c);
void gl_cmp_edges_summary(const struct cmp *c, FILE *f, int only_regressions);
cJSON *gl_cmp_edges_json(const struct cmp *c);
void gl_cmp_edges_table(const struct cmp *c, struct gl_buf *b, int html);

#endif
