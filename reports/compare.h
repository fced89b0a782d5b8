/*
 * compare.h - `gauntlet compare BASE_DIR CAND_DIR`: the regression verdict
 * between two runs of one scenario (a baseline and a candidate, e.g. before
 * and after a firmware change), from their stores alone.
 *
 * What is compared. For every metric of the catalog that both runs
 * measured, window-level figures: each histogram metric at the statistics
 * of --stats (default p50,p95,p99; where higher is better each tail
 * percentile pN is mirrored to p(100-N), so the tail looked at is always the
 * bad one: busbw p50,p5,p1), and every ratio and rate (error_rate,
 * throughput_rps, read_gbps, ...). Plain counters are not compared: their
 * per-window totals follow the window length, and the rates built on them
 * are compared instead. inference.send_lag_ms is left out: it measures the
 * load generator, not the system (a saturated generator is a warning).
 * And per fault (paired by fault id) its recovery_s and restore_s.
 *
 * Where. Per phase: the n-th phase named X of one run pairs with the n-th
 * phase named X of the other (table label "X", then "X#2", ...). A window
 * a fault put in the degraded scope (analysis.h) leaves its phase's group
 * for the group "faults", so a fault's disturbance neither hides nor fakes
 * a change of the steady state. Only complete windows count. The
 * first-class ratios (below) are also compared over the "whole run": every
 * compared window, faults included, as the run's report figure counts them.
 *
 * How, for most figures. The per-window values of a group in each run are
 * two samples, compared with the two-sided Mann-Whitney U test (exact
 * distribution when there are no ties and n1 + n2 <= 50; else the normal
 * approximation with tie and continuity correction), by the relative
 * change of their medians (of their means when both medians are 0, as an
 * error rate that is mostly 0 per window) against --tolerance, and by the
 * absolute change of the same against the unit's noise floor:
 *   s 10 us, ms 0.01 (10 us), ratio 0.001, GB/s 0.01, req/s 0.01,
 *   tokens/s 1, tokens 1, C 1, W 5, % 1, load 0.1; other units none;
 *   but null.tick_lag_ms (the controller host's own scheduling) 10 ms.
 * A change under the floor is noise whatever its p-value and its relative
 * size (a data-load time of 160 ns becoming 175 ns).
 *
 * The first-class figures. training.ettr and inference.goodput are judged
 * on the absolute change of their per-window means (points: 0.02 is 2
 * points) against --ettr-tolerance and --goodput-tolerance (0.02 each),
 * the significance by Welch's two-sided t test on the per-window values
 * (a drop that a few fault-emptied windows make moves the mean, not the
 * median). recovery_s and restore_s: one value per fault and run, so no
 * test; a regression when the candidate's is longer by more than
 * --recovery-tolerance (0.25, relative) and by more than the scenario's
 * `hold` windows (they count whole windows until `hold` healthy ones in a
 * row, so one unhealthy window, a busy host's hiccup, moves them that
 * much), or when the candidate never recovered and the base did.
 *
 * Verdicts:
 *   regression         p < alpha (figures with a test), the change beyond
 *                      the tolerance and the floor in the metric's bad
 *                      direction (the ranks, or the means, agreeing on the
 *                      direction)
 *   improvement        the same in the good direction
 *   no change          otherwise
 *   insufficient data  fewer than --min-windows windows with a value on a
 *                      side, or so few that no outcome could reach alpha
 *                      (Mann-Whitney)
 * Windows of one run are not independent samples (drift, autocorrelation),
 * which makes the tests too eager on long runs; the tolerance is what keeps
 * small real drifts from being called regressions, and the floor what
 * keeps changes too small to matter at any size from it.
 *
 * Input rules: a missing directory or store, a store that cannot be
 * analysed, or window lengths that differ (per-window statistics of 1 s
 * and 10 s windows do not have the same distribution) are bad input (exit
 * 2). Different scenario names or contents (sha256), time scales, phase
 * lists, an unfinished run or the same run id on both sides are compared
 * anyway, with a warning in every output.
 *
 * Output: a summary to stdout (the verdict, the first-class figures, the
 * regressions that gate, counts of the rest; --all adds the table of every
 * comparison), and compare.json, compare.md and compare.html
 * (self-contained, every comparison) into --out DIR (default
 * CAND_DIR/compare).
 */
#ifndef GL_COMPARE_H
#define GL_COMPARE_H

/* The command. argv[0] is "compare"; flags:
 *   --out DIR  --alpha A (0.01)  --tolerance T (0.05)  --min-windows N (5)
 *   --stats LIST (p50,p95,p99)  --ettr-tolerance D (0.02)
 *   --goodput-tolerance D (0.02)  --recovery-tolerance T (0.25)
 *   --all (every comparison after the summary)  --quiet (no summary)
 * Returns the exit code: 0 no regression, 1 regression, 2 bad input,
 * 4 harness error (out of memory, outputs not writable). Main thread. */
int gl_compare_main(int argc, char **argv);

/* Two-sided Mann-Whitney U test of sample a against sample b. */
struct gl_mwu {
	double u_a; /* pairs (x in a, y in b) with x > y, ties counting 1/2 */
	double u_b; /* the same for b over a: u_a + u_b = na * nb */
	double z; /* normal approximation's z (0 when exact) */
	double p; /* two-sided p-value in [0, 1] */
	int exact; /* 1: exact distribution; 0: normal approximation */
};
/* Returns 0, or -1 when a sample is empty or memory runs out. NaNs are not
 * allowed in the samples. */
int gl_mann_whitney(const double *a, int na, const double *b, int nb, struct gl_mwu *out);
/* The smallest two-sided p-value samples of these sizes can give (complete
 * separation, no ties): 2 / C(na + nb, na), at most 1. */
double gl_mwu_min_p(int na, int nb);

/* Welch's two-sided t test of the means of samples a and b (unequal
 * variances): t = (mean b - mean a) / sqrt(var a / na + var b / nb) with
 * the sample variances, df by Welch-Satterthwaite. Two samples without
 * spread: p 1 when their means are equal, else 0 (t +-inf). */
struct gl_welch {
	double t, df, p;
};
/* Returns 0, or -1 when a sample has fewer than 2 values. */
int gl_welch_t(const double *a, int na, const double *b, int nb, struct gl_welch *out);
/* Two-sided p-value of Student's t distribution with df degrees of
 * freedom (df > 0, not necessarily whole): P(|T| >= |t|). */
double gl_student_t_p(double t, double df);

#endif
