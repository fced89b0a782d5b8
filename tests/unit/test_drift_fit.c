/*
 * test_drift_fit.c - the Theil-Sen fit of the drift targets (gl_drift_fit,
 * harness/core/analysis_drift.c; docs/metrics.md "Drift") against series
 * whose answers are known by hand:
 *   - exactly linear (y = 105 + i at x = 10 + 2i): slope 0.5, interval
 *     [0.5, 0.5], level 105 at the first point;
 *   - the same with 4 points 1000 off: still exactly 0.5 and 105 (the
 *     slopes through an outlier are 150 of 780, too few to reach the
 *     median or Sen's ranks 305 and 476), where least squares is not;
 *   - flat, alternating 49 and 51: slope 0, level 50, interval [0, 0];
 *   - y = i^2 at x = i (n = 10): the 45 slopes are the sums i + j, so the
 *     median is 9, Sen's ranks 11 and 35 are 6 and 12, and the level (the
 *     median of i^2 - 9i) is -14;
 *   - docs/metrics.md's worked example (12 hourly values, one spike);
 *   - flat noise from a fixed draw: an interval that holds 0;
 *   - 9 windows: no fit; 10: a fit;
 *   - 1000 and 100000 windows: 256 buckets, the slope still exactly 0.5;
 *   - the same input twice: the same bytes out.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "check.h"

static double xs[100000], ys[100000];

static void linear(int n)
{
	for (int i = 0; i < n; i++) {
		xs[i] = 10 + 2.0 * i;
		ys[i] = 105 + (double)i;
	}
}

/* least squares' slope, to show what the outliers do to it */
static double ols(int n)
{
	double mx = 0, my = 0, sxy = 0, sxx = 0;

	for (int i = 0; i < n; i++) {
		mx += xs[i] / n;
		my += ys[i] / n;
	}
	for (int i = 0; i < n; i++) {
		sxy += (xs[i] - mx) * (ys[i] - my);
		sxx += (xs[i] - mx) * (xs[i] - mx);
	}
	return sxy / sxx;
}

int main(void)
{
	struct gl_drift_fit f, g;
	unsigned r = 7;

	linear(40);
	CHECK(gl_drift_fit(xs, ys, 40, &f) == 0);
	CHECKF(f.slope == 0.5 && f.lo == 0.5 && f.hi == 0.5 && f.level == 105 && f.points == 40,
	       "exact line: slope %g [%g, %g], level %g, %d points", f.slope, f.lo, f.hi, f.level, f.points);

	ys[3] += 1000;
	ys[17] += 1000;
	ys[25] -= 1000;
	ys[38] += 1000;
	CHECK(gl_drift_fit(xs, ys, 40, &f) == 0);
	CHECKF(f.slope == 0.5 && f.lo == 0.5 && f.hi == 0.5 && f.level == 105,
	       "4 outliers of 40 ignored: slope %g [%g, %g], level %g (least squares: %g)", f.slope, f.lo, f.hi,
	       f.level, ols(40));
	CHECKF(fabs(ols(40) - 0.5) > 0.1, "least squares is moved by them (%g)", ols(40));

	for (int i = 0; i < 20; i++) {
		xs[i] = i + 0.5;
		ys[i] = i % 2 ? 49 : 51;
	}
	CHECK(gl_drift_fit(xs, ys, 20, &f) == 0);
	CHECKF(f.slope == 0 && f.lo == 0 && f.hi == 0 && f.level == 50,
	       "flat, alternating 49/51: slope %g [%g, %g], level %g", f.slope, f.lo, f.hi, f.level);

	for (int i = 0; i < 10; i++) {
		xs[i] = i;
		ys[i] = (double)i * i;
	}
	CHECK(gl_drift_fit(xs, ys, 10, &f) == 0);
	CHECKF(f.slope == 9 && f.lo == 6 && f.hi == 12 && f.level == -14,
	       "y = i^2: slope %g (want 9), interval [%g, %g] (want [6, 12]), level %g (want -14)", f.slope, f.lo, f.hi,
	       f.level);

	/* docs/metrics.md's worked example: 12 hourly p99s, one a spike */
	{
		static const double p99[12] = { 400, 401, 400, 402, 403, 402, 480, 404, 405, 404, 406, 407 };
		for (int i = 0; i < 12; i++) {
			xs[i] = 0.5 + i;
			ys[i] = p99[i];
		}
		CHECK(gl_drift_fit(xs, ys, 12, &f) == 0);
		CHECKF(f.slope == 0.6 && fabs(f.lo - 4.0 / 9) < 1e-12 && fabs(f.hi - 5.0 / 6) < 1e-12 &&
			       fabs(f.level - 400.1) < 1e-9,
		       "the worked example: %.12g ms/h (want 0.6), interval [%.12g, %.12g] (want 4/9, 5/6), level "
		       "%.12g (want 400.1); least squares %.4g",
		       f.slope, f.lo, f.hi, f.level, ols(12));
	}

	for (int i = 0; i < 200; i++) {
		r = r * 1103515245u + 12345u;
		xs[i] = i;
		ys[i] = 50 + ((r >> 16) & 0x7fff) / 16383.5 - 1;
	}
	CHECK(gl_drift_fit(xs, ys, 200, &f) == 0);
	CHECKF(f.lo < 0 && f.hi > 0 && fabs(f.slope) < 0.002 && fabs(f.level - 50) < 0.3,
	       "flat noise of +-1 over 200 points: slope %g, interval [%g, %g] holds 0, level %g", f.slope, f.lo, f.hi,
	       f.level);

	linear(9);
	CHECKF(gl_drift_fit(xs, ys, 9, &f) == -1 && f.points == 0, "9 windows: no fit (%d points)", f.points);
	CHECKF(gl_drift_fit(xs, ys, GL_DRIFT_MIN_WINDOWS, &f) == 0 && f.slope == 0.5, "10 windows: a fit");
	CHECKF(gl_drift_fit(xs, ys, 0, &f) == -1, "no window: no fit");

	linear(1000);
	CHECK(gl_drift_fit(xs, ys, 1000, &f) == 0);
	CHECKF(f.points == GL_DRIFT_MAX_POINTS && f.slope == 0.5 && f.lo == 0.5 && f.hi == 0.5 && f.level == 106,
	       "1000 windows in 256 buckets: %d points, slope %g [%g, %g], level %g (want 106: the first bucket, "
	       "windows 0 to 2, its median)",
	       f.points, f.slope, f.lo, f.hi, f.level);
	linear(100000);
	CHECK(gl_drift_fit(xs, ys, 100000, &f) == 0);
	CHECKF(f.points == GL_DRIFT_MAX_POINTS && f.slope == 0.5, "100000 windows: %d points, slope %g", f.points,
	       f.slope);
	CHECK(gl_drift_fit(xs, ys, 100000, &g) == 0);
	CHECKF(!memcmp(&f, &g, sizeof(f)), "the same windows: the same fit, byte for byte");
	return check_done();
}
