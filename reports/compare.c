/*
 * compare.c - `gauntlet compare`: two run stores in, a table of changes out
 * (stdout, compare.json, compare.md, compare.html), exit 1 on a regression.
 * The rules (what is compared, grouping, the test, the verdicts, what is
 * refused) are in compare.h.
 *
 * Pipeline: each store is analysed (gl_analyze gives the windows, their
 * phase and whether a fault put them in the degraded scope); one ordered
 * pass over its window_metrics turns every complete window into a row of
 * figure values (NAN where the window has no data for one); then for each
 * group and figure the two runs' values are tested. Memory: one double per
 * window per figure per run (about 30 MB per run for a week of 10 s
 * windows), never the samples.
 *
 * Each base fault paired by id with the candidate's gives its recovery
 * rows from the analyses' recovery figures.
 *
 * This file: the command (options, loading the runs, the warnings, exit
 * codes); compare_int.h says which file owns the other steps.
 */
#include "compare_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int warnf(struct cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int warnf(struct cmp *c, const char *fmt, ...)
{
	char buf[1024], **nw;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nw = realloc(c->warnings, sizeof(*nw) * (size_t)(c->n_warnings + 1));
	if (!nw)
		return -1;
	c->warnings = nw;
	if (!(nw[c->n_warnings] = strdup(buf)))
		return -1;
	c->n_warnings++;
	return 0;
}

/* ---- options ---------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: gauntlet compare BASE_DIR CAND_DIR [--all] [--out DIR] [--alpha A] [--tolerance T]\n"
		   "                        [--ettr-tolerance D] [--goodput-tolerance D] [--recovery-tolerance T]\n"
		   "                        [--min-windows N] [--stats LIST] [--quiet]\n"
		   "  --all                  after the summary, the table of every comparison\n"
		   "  --out DIR              where compare.json/.md/.html go (default CAND_DIR/compare)\n"
		   "  --alpha A              significance level of the tests (default 0.01)\n"
		   "  --tolerance T          relative change of the medians that counts (default 0.05),\n"
		   "                         and of an edge phase's SLA edge\n"
		   "  --ettr-tolerance D     drop of training.ettr's mean that counts, absolute\n"
		   "                         (default 0.02: 2 points)\n"
		   "  --goodput-tolerance D  the same for inference.goodput (default 0.02)\n"
		   "  --recovery-tolerance T relative change of a fault's recovery_s or restore_s\n"
		   "                         that counts (default 0.25)\n"
		   "  --min-windows N        windows with data needed on each side (default 5)\n"
		   "  --stats LIST           per-window histogram statistics (default p50,p95,p99;\n"
		   "                         mirrored to p50,p5,p1 where higher is better)\n"
		   "  --quiet                no summary on stdout (the files only)\n"
		   "changes within a unit's noise floor never count (docs/compare.md)\n"
		   "exit: 0 no regression, 1 regression, 2 bad input, 4 harness error\n");
}

static int parse_double(const char *flag, const char *s, double lo, double hi, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (end == s || *end || errno || !(x > lo) || !(x < hi)) {
		fprintf(stderr, "gauntlet compare: %s: expected a number above %g and below %g, got '%s'\n", flag, lo,
			hi, s);
		return -1;
	}
	*out = x;
	return 0;
}

/* A tolerance: a number >= 0 and below hi (0: any significant change
 * beyond the floor counts). */
static int parse_tolerance(const char *flag, const char *s, double hi, double *out)
{
	char *end;
	double x = strtod(s, &end);

	if (end == s || *end || !(x >= 0) || !(x < hi)) {
		fprintf(stderr, "gauntlet compare: %s: expected a number >= 0 and below %g, got '%s'\n", flag, hi, s);
		return -1;
	}
	*out = x;
	return 0;
}

/* A histogram of the catalogue: each takes the same statistics. */
static const char *any_histogram(void)
{
	size_t n;
	const struct gl_metric_def *cat = gl_catalog(&n);

	for (size_t i = 0; i < n; i++)
		if (cat[i].kind == GL_MK_HIST)
			return cat[i].name;
	return "";
}

static int parse_stats(struct opts *o, const char *list)
{
	char buf[256], *save = NULL;

	if (strlen(list) >= sizeof(buf))
		goto bad;
	strcpy(buf, list);
	o->n_stats = 0;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		struct gl_target_name tn;
		char name[96], why[256];
		if (o->n_stats == MAX_STATS || strlen(t) >= sizeof(o->stats[0]))
			goto bad;
		snprintf(name, sizeof(name), "%s.%s", any_histogram(), t);
		if (gl_catalog_parse_target(name, &tn, why, sizeof(why)) != 0 || !strcmp(tn.stat, "count"))
			goto bad;
		strcpy(o->stats[o->n_stats++], t);
	}
	if (o->n_stats > 0)
		return 0;
bad:
	fprintf(stderr,
		"gauntlet compare: --stats: expected up to %d of p<N>, min, max, mean separated by "
		"commas (e.g. p50,p95,p99), got '%s'\n",
		MAX_STATS, list);
	return -1;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = 0.01;
	o->tolerance = 0.05;
	o->ettr_tolerance = 0.02;
	o->goodput_tolerance = 0.02;
	o->recovery_tolerance = 0.25;
	o->min_windows = 5;
	strcpy(o->stats[0], "p50");
	strcpy(o->stats[1], "p95");
	strcpy(o->stats[2], "p99");
	o->n_stats = 3;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(a, "--out") && val) {
			o->out = val;
			i++;
		} else if (!strcmp(a, "--alpha") && val) {
			if (parse_double(a, val, 0, 1, &o->alpha))
				return -1;
			i++;
		} else if (!strcmp(a, "--tolerance") && val) {
			/* 0 is allowed: any significant change counts */
			char *end;
			o->tolerance = strtod(val, &end);
			if (end == val || *end || !(o->tolerance >= 0) || !(o->tolerance < 100)) {
				fprintf(stderr,
					"gauntlet compare: --tolerance: expected a fraction >= 0 (0.05 is 5%%), "
					"got '%s'\n",
					val);
				return -1;
			}
			i++;
		} else if ((!strcmp(a, "--ettr-tolerance") || !strcmp(a, "--goodput-tolerance")) && val) {
			if (parse_tolerance(a, val, 1,
					    !strcmp(a, "--ettr-tolerance") ? &o->ettr_tolerance
									   : &o->goodput_tolerance))
				return -1;
			i++;
		} else if (!strcmp(a, "--recovery-tolerance") && val) {
			if (parse_tolerance(a, val, 100, &o->recovery_tolerance))
				return -1;
			i++;
		} else if (!strcmp(a, "--min-windows") && val) {
			double n;
			if (parse_double(a, val, 0, 1e9, &n))
				return -1;
			if (n != floor(n) || n < 2) {
				fprintf(stderr,
					"gauntlet compare: --min-windows: expected a whole number >= 2, got '%s'\n",
					val);
				return -1;
			}
			o->min_windows = (int)n;
			i++;
		} else if (!strcmp(a, "--stats") && val) {
			if (parse_stats(o, val))
				return -1;
			i++;
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = 1;
		} else if (!strcmp(a, "--all")) {
			o->all = 1;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "gauntlet compare: unknown or incomplete option '%s'\n", a);
			return -1;
		} else if (!o->base) {
			o->base = a;
		} else if (!o->cand) {
			o->cand = a;
		} else {
			fprintf(stderr, "gauntlet compare: unexpected argument '%s'\n", a);
			return -1;
		}
	}
	if (!o->base || !o->cand) {
		fprintf(stderr, "gauntlet compare: needs BASE_DIR and CAND_DIR\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* ---- loading a run ------------------------------------------------------------------- */

static int load_side(struct side *s, struct gl_err *err)
{
	struct stat sb;
	char db[1200];

	if (stat(s->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		return gl_errf(err, GL_EINVAL, "%s: no such directory", s->dir);
	snprintf(db, sizeof(db), "%s/run.db", s->dir);
	if (!(s->st = gl_store_open(db, 0, err)))
		return err->code ? -err->code : -GL_EIO;
	return gl_analyze(s->st, &s->an, err);
}

static void check_runs(struct cmp *c)
{
	const struct gl_analysis *a = c->s[0].an, *b = c->s[1].an;

	if (strcmp(a->run.name, b->run.name))
		warnf(c, "different scenarios: '%s' (base) and '%s' (candidate); phases are paired by name",
		      a->run.name, b->run.name);
	else if (strcmp(a->run.scenario_sha256, b->run.scenario_sha256))
		warnf(c, "the scenario text differs (sha256 %.12s in base, %.12s in candidate)", a->run.scenario_sha256,
		      b->run.scenario_sha256);
	if (a->run.sets_json && b->run.sets_json && strcmp(a->run.sets_json, b->run.sets_json))
		warnf(c, "the --set overrides differ: %s (base) and %s (candidate)", a->run.sets_json,
		      b->run.sets_json);
	if (a->run.time_scale != b->run.time_scale)
		warnf(c, "time scales differ: %g (base) and %g (candidate)", a->run.time_scale, b->run.time_scale);
	if (!strcmp(a->run.id, b->run.id))
		warnf(c, "both directories hold the same run (id %s)", a->run.id);
	for (int k = 0; k < 2; k++)
		if (c->s[k].an->generator_saturated)
			warnf(c,
			      "the %s run's load generator was saturated (send lag p99 above 5 ms): its latencies "
			      "include client delay",
			      c->s[k].role);
	for (int k = 0; k < 2; k++)
		if (strcmp(c->s[k].an->run.state, "finished"))
			warnf(c, "the %s run is %s, not finished: only its stored windows are compared", c->s[k].role,
			      c->s[k].an->run.state);
	{
		int same = a->sc->n_phases == b->sc->n_phases;
		for (int i = 0; same && i < a->sc->n_phases; i++)
			same = !strcmp(a->sc->phases[i].name, b->sc->phases[i].name);
		if (!same)
			warnf(c, "the phase lists differ; phases present in one run only have no data in the other");
	}
}

/* ---- the command ---------------------------------------------------------------------- */

static void cmp_free(struct cmp *c)
{
	for (int k = 0; k < 2; k++) {
		gl_analysis_free(c->s[k].an);
		gl_store_close(c->s[k].st);
		free(c->s[k].group);
		free(c->s[k].val);
		free(c->s[k].has);
	}
	free(c->figs);
	free(c->groups);
	free(c->rows);
	free(c->edges);
	for (int i = 0; i < c->n_warnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	cJSON_Delete(c->not_compared);
}

/* Bad input (2) unless the failure was the harness's own (4). */
static int exit_for(const struct gl_err *err)
{
	return err->code == GL_ENOMEM || err->code == GL_ELIMIT ? GL_EXIT_HARNESS_ERROR : GL_EXIT_BAD_INPUT;
}

int gl_compare_main(int argc, char **argv)
{
	struct cmp c;
	struct gl_err err = { 0 };
	char out_dir[1100];
	int code = GL_EXIT_OK, rc;

	memset(&c, 0, sizeof(c));
	rc = parse_opts(argc, argv, &c.o);
	if (rc)
		return rc > 0 ? GL_EXIT_OK : GL_EXIT_BAD_INPUT;
	c.s[0].dir = c.o.base;
	c.s[0].role = "base";
	c.s[1].dir = c.o.cand;
	c.s[1].role = "candidate";
	for (int k = 0; k < 2; k++) {
		if (load_side(&c.s[k], &err)) {
			fprintf(stderr, "gauntlet compare: %s: %s\n", c.s[k].role, err.msg);
			code = exit_for(&err);
			goto out;
		}
	}
	if (c.s[0].an->run.window_ns != c.s[1].an->run.window_ns) {
		fprintf(stderr,
			"gauntlet compare: window lengths differ (%g s in base, %g s in candidate): per-window "
			"figures of different windows are not comparable; rerun one with the other's \"window\"\n",
			(double)c.s[0].an->run.window_ns / 1e9, (double)c.s[1].an->run.window_ns / 1e9);
		code = GL_EXIT_BAD_INPUT;
		goto out;
	}
	check_runs(&c);
	if (gl_cmp_build_figures(&c) || gl_cmp_assign_groups(&c, &c.s[0]) || gl_cmp_assign_groups(&c, &c.s[1])) {
		gl_errf(&err, GL_ENOMEM, "out of memory");
		fprintf(stderr, "gauntlet compare: out of memory\n");
		code = GL_EXIT_HARNESS_ERROR;
		goto out;
	}
	for (int k = 0; k < 2; k++) {
		if (gl_cmp_side_values(&c, &c.s[k], &err)) {
			fprintf(stderr, "gauntlet compare: %s\n", err.msg);
			code = exit_for(&err);
			goto out;
		}
	}
	if (gl_cmp_compare_rows(&c) || gl_cmp_edges(&c)) {
		fprintf(stderr, "gauntlet compare: out of memory\n");
		code = GL_EXIT_HARNESS_ERROR;
		goto out;
	}
	if (c.n_rows == 0 && c.n_edges == 0) {
		fprintf(stderr, "gauntlet compare: the runs have no metric with data in common: nothing to compare\n");
		code = GL_EXIT_BAD_INPUT;
		goto out;
	}
	code = c.count[V_REGRESSION] ? GL_EXIT_FAIL : GL_EXIT_OK;
	if (c.o.out)
		snprintf(out_dir, sizeof(out_dir), "%s", c.o.out);
	else
		snprintf(out_dir, sizeof(out_dir), "%s/compare", c.o.cand);
	if (gl_cmp_write_outputs(&c, out_dir, code, &err)) {
		fprintf(stderr, "gauntlet compare: %s\n", err.msg);
		code = GL_EXIT_HARNESS_ERROR;
		goto out;
	}
	if (!c.o.quiet) {
		gl_cmp_print_summary(&c, stdout);
		if (c.o.all)
			gl_cmp_print_table(&c, stdout);
	} else
		for (int i = 0; i < c.n_warnings; i++)
			fprintf(stderr, "gauntlet compare: warning: %s\n", c.warnings[i]);
	printf("%s/compare.json\n%s/compare.md\n%s/compare.html\n", out_dir, out_dir, out_dir);
out:
	cmp_free(&c);
	return code;
}
