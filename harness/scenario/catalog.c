/*
 * catalog.c - the metric table: each workload's metrics (its figures,
 * figures.h) and the harness's own. A metric in it is valid in targets,
 * computed by analysis and listed in reports; the workload that produces
 * it records it under the same name through metrics.h.
 */
#include "catalog.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "plugin.h"

static const struct gl_metric_def agents[] = {
	/* load agents (docs/agents.md): counted by the controller, never taken
	 * from an agent; judged over the windows of each scope like the rest */
	GL_METRIC_COUNTER("agents.expected", "agents", 0, "agent-windows", "agents x windows written"),
	GL_METRIC_COUNTER("agents.delivered", "agents", 0, "agent-windows",
			  "agent-windows whose figures arrived whole"),
	GL_METRIC_RATIO("agents.delivered_ratio", "agents", "agents.delivered", "agents.expected", 0, "ratio",
			"agent-windows delivered / expected"),
	{ 0 },
};

/* recovery (per fault: docs/metrics.md, "Window health and recovery") */
static const struct gl_metric_def recovery[] = {
	{ .name = "recovery_s",
	  .workload = "",
	  .kind = GL_MK_RECOVERY,
	  .lower_is_better = 1,
	  .unit = "s",
	  .help = "inject until hold windows meet the degraded targets" },
	{ .name = "restore_s",
	  .workload = "",
	  .kind = GL_MK_RECOVERY,
	  .lower_is_better = 1,
	  .unit = "s",
	  .help = "revert until hold windows meet the steady targets" },
	{ 0 },
};

/* The whole table, put together once: the workloads' in the registry's
 * order, the agents' at their place among them, recovery last. */
#define CATALOG_MAX 256
static struct gl_metric_def catalog[CATALOG_MAX];
static size_t n_catalog;
static pthread_once_t built = PTHREAD_ONCE_INIT;

static void append(const struct gl_metric_def *defs)
{
	for (; defs && defs->name; defs++) {
		if (n_catalog == CATALOG_MAX) {
			fprintf(stderr, "gauntlet: more than %d metrics: raise CATALOG_MAX (catalog.c)\n", CATALOG_MAX);
			abort();
		}
		catalog[n_catalog++] = *defs;
	}
}

static void build(void)
{
	const struct gl_workload_ops *w;
	int agents_in = 0;

	for (size_t i = 0; (w = gl_workload_at(i)); i++) {
		if (!agents_in && gl_workload_rank_at(i) > GL_RANK_CATALOG_AGENTS) {
			append(agents);
			agents_in = 1;
		}
		if (w->figures)
			append(w->figures->metrics);
	}
	if (!agents_in)
		append(agents);
	append(recovery);
}

const struct gl_metric_def *gl_catalog(size_t *n)
{
	pthread_once(&built, build);
	*n = n_catalog;
	return catalog;
}

const struct gl_metric_def *gl_catalog_find(const char *name)
{
	size_t n;
	const struct gl_metric_def *cat = gl_catalog(&n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(cat[i].name, name) == 0)
			return &cat[i];
	return NULL;
}

const char *gl_catalog_recovery_names(char *buf, size_t n)
{
	size_t len, used = 0;
	const struct gl_metric_def *cat = gl_catalog(&len);

	buf[0] = '\0';
	/* the per-fault figures first, then the others it takes */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < len && used < n; i++)
			if (pass == 0 ? cat[i].kind == GL_MK_RECOVERY : cat[i].recovery_target) {
				int w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", cat[i].name);
				used += w > 0 ? (size_t)w : 0;
			}
	return buf;
}

int gl_edit_distance(const char *a, const char *b, int max)
{
	size_t la = strlen(a), lb = strlen(b);
	int prev[128], cur[128];

	if (la >= 127 || lb >= 127)
		return max + 1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int best;
		cur[0] = (int)i;
		best = cur[0];
		for (size_t j = 1; j <= lb; j++) {
			int c = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < c)
				c = prev[j] + 1;
			if (cur[j - 1] + 1 < c)
				c = cur[j - 1] + 1;
			cur[j] = c;
			if (c < best)
				best = c;
		}
		if (best > max)
			return max + 1;
		memcpy(prev, cur, sizeof(int) * (lb + 1));
	}
	return prev[lb];
}

static int parse_stat(const char *s, struct gl_target_name *out)
{
	char *end;
	double p;

	if (strlen(s) >= sizeof(out->stat))
		return -1;
	if (!strcmp(s, "min") || !strcmp(s, "max") || !strcmp(s, "mean") || !strcmp(s, "count")) {
		strcpy(out->stat, s);
		out->pct = -1;
		return 0;
	}
	if (s[0] != 'p' || !(s[1] >= '0' && s[1] <= '9'))
		return -1;
	p = strtod(s + 1, &end);
	if (*end || !isfinite(p) || p < 0 || p > 100)
		return -1;
	strcpy(out->stat, s);
	out->pct = p;
	return 0;
}

int gl_catalog_parse_target(const char *name, struct gl_target_name *out, char *why, size_t why_len)
{
	const struct gl_metric_def *d = gl_catalog_find(name);
	const char *best = NULL;
	int best_d = 4;

	memset(out, 0, sizeof(*out));
	out->pct = -1;
	if (d) {
		/* A bare distribution name means its worst value: the max when
		 * lower is better, the min otherwise ("training.checkpoint.restore_s"). */
		if (d->kind == GL_MK_HIST)
			strcpy(out->stat, d->lower_is_better ? "max" : "min");
		out->def = d;
		return 0;
	}
	/* metric.stat: split at the last dot, but p99.9 contains a dot itself. */
	for (const char *dot = strrchr(name, '.'); dot;) {
		char metric[128];
		size_t ml = (size_t)(dot - name);
		if (ml < sizeof(metric)) {
			memcpy(metric, name, ml);
			metric[ml] = '\0';
			d = gl_catalog_find(metric);
			if (d && d->kind == GL_MK_HIST && parse_stat(dot + 1, out) == 0) {
				out->def = d;
				return 0;
			}
			if (d) {
				snprintf(why, why_len, "'%s': '%s' %s", name, dot + 1,
					 d->kind == GL_MK_HIST
						 ? "is not a statistic (use p<N>, min, max, mean or count)"
						 : "takes no statistic");
				return -1;
			}
		}
		/* step back to the previous dot */
		{
			const char *p = dot - 1;
			while (p > name && *p != '.')
				p--;
			dot = (p > name) ? p : NULL;
		}
	}
	/* Suggest with the statistic the user wrote, when it is one. */
	{
		const char *dot = strrchr(name, '.');
		struct gl_target_name tmp;
		char stat[16] = "p99", full[160], best_full[160] = "";
		size_t n;
		const struct gl_metric_def *cat = gl_catalog(&n);
		if (dot && strlen(dot + 1) < sizeof(stat) && parse_stat(dot + 1, &tmp) == 0)
			snprintf(stat, sizeof(stat), "%s", dot + 1);
		if (dot && !strncmp(dot + 1, "p99", 3) && strchr(name, '.') != dot) {
			/* "x.p99.9": the statistic starts at the dot before */
			const char *p = dot - 1;
			while (p > name && *p != '.')
				p--;
			if (*p == '.' && parse_stat(p + 1, &tmp) == 0 && strlen(p + 1) < sizeof(stat))
				snprintf(stat, sizeof(stat), "%s", p + 1);
		}
		for (size_t i = 0; i < n; i++) {
			int dd;
			if (cat[i].kind == GL_MK_HIST)
				snprintf(full, sizeof(full), "%s.%s", cat[i].name, stat);
			else
				snprintf(full, sizeof(full), "%s", cat[i].name);
			dd = gl_edit_distance(name, full, 3);
			if (dd < best_d) {
				best_d = dd;
				best = cat[i].name;
				snprintf(best_full, sizeof(best_full), "%s", full);
			}
		}
		if (best) {
			snprintf(why, why_len, "unknown metric '%s' (did you mean '%s'?)", name, best_full);
			return -1;
		}
	}
	if (best)
		snprintf(why, why_len, "unknown metric '%s' (did you mean '%s'?)", name, best);
	else
		snprintf(why, why_len, "unknown metric '%s' (see docs/metrics.md)", name);
	return -1;
}
