/*
 * catalog.h - every metric gauntlet knows, in one table: its name, which
 * workload produces it, how it is kept (histogram per window, counter per
 * window, or derived from counters) and which direction is better.
 *
 * Validation uses it to reject unknown target names (with a did-you-mean),
 * analysis uses it to compute a target's measured value, reports use it to
 * list metrics. Names and definitions are docs/metrics.md's ("The metric
 * catalogue").
 */
#ifndef GL_CATALOG_H
#define GL_CATALOG_H

#include <stddef.h>

enum gl_metric_kind {
	GL_MK_HIST, /* per-window histogram; target suffix .p50/.p99/.max/... */
	GL_MK_COUNTER, /* per-window counter, summed; target on the total */
	GL_MK_RATIO, /* counter num / counter den over the windows judged */
	GL_MK_RATE, /* counter num (scaled) / real seconds of the windows judged */
	GL_MK_RECOVERY, /* per fault, from the windows (recovery_s, restore_s) */
};

struct gl_metric_def {
	const char *name; /* "inference.ttft_ms" */
	const char *workload; /* the workload that records it, "agents", "" for recovery */
	enum gl_metric_kind kind;
	const char *num; /* RATIO/RATE: numerator counter */
	const char *den; /* RATIO: denominator counter */
	double scale; /* RATE: multiply num by this (bytes -> GB: 1e-9) */
	int lower_is_better;
	const char *unit;
	const char *help;
	/* targets.recovery takes it though it is no per-fault figure */
	int recovery_target;
	/* gauntlet compare (reports/compare*.c): a change below noise_floor
	 * is noise (0: the unit's floor); mean_tolerance names the option
	 * --<it>-tolerance whose absolute change of the means it is judged
	 * by (NULL: judged by its medians' relative change); not_compared:
	 * left out (the load generator's own health, not the system's) */
	double noise_floor;
	const char *mean_tolerance;
	int not_compared;
};

/* Every metric: each registered workload's (figures.h), in the registry's
 * order, the harness's own among them (agents), recovery last. */
/* Entries of a metric table: after help, more fields as designators
 * (".noise_floor = 10"). */
#define GL_METRIC_HIST(n, w, lower, u, h, ...)                                                                \
	{                                                                                                     \
		.name = n, .workload = w, .kind = GL_MK_HIST, .lower_is_better = lower, .unit = u, .help = h, \
		__VA_ARGS__                                                                                   \
	}
#define GL_METRIC_COUNTER(n, w, lower, u, h, ...)                                                                \
	{                                                                                                        \
		.name = n, .workload = w, .kind = GL_MK_COUNTER, .lower_is_better = lower, .unit = u, .help = h, \
		__VA_ARGS__                                                                                      \
	}
#define GL_METRIC_RATIO(n, w, nu, de, lower, u, h, ...)                                                        \
	{                                                                                                      \
		.name = n, .workload = w, .kind = GL_MK_RATIO, .num = nu, .den = de, .lower_is_better = lower, \
		.unit = u, .help = h, __VA_ARGS__                                                              \
	}
#define GL_METRIC_RATE(n, w, nu, sc, lower, u, h, ...)                                                          \
	{                                                                                                       \
		.name = n, .workload = w, .kind = GL_MK_RATE, .num = nu, .scale = sc, .lower_is_better = lower, \
		.unit = u, .help = h, __VA_ARGS__                                                               \
	}

const struct gl_metric_def *gl_catalog(size_t *n);
const struct gl_metric_def *gl_catalog_find(const char *name);
/* The names targets.recovery takes, "recovery_s, restore_s, ...", into
 * buf (n bytes); returns buf. */
const char *gl_catalog_recovery_names(char *buf, size_t n);

/* A target name split into metric and statistic: "inference.ttft_ms.p99" ->
 * def(inference.ttft_ms), stat "p99" (percentile 99). Histogram metrics take
 * a statistic (p<N>, min, max, mean, count); a bare histogram name means its
 * worst value (max when lower is better, else min). Other kinds take none.
 * Returns 0, or -1 with a message in why (naming the closest known name). */
struct gl_target_name {
	const struct gl_metric_def *def;
	char stat[16]; /* "" for non-histogram kinds */
	double pct; /* for "pNN": NN; -1 otherwise */
};
int gl_catalog_parse_target(const char *name, struct gl_target_name *out, char *why, size_t why_len);

/* Levenshtein distance capped at max+1 (for did-you-mean suggestions). */
int gl_edit_distance(const char *a, const char *b, int max);

#endif
