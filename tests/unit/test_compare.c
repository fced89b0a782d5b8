/*
 * test_compare.c - reports/compare.c: the Mann-Whitney U test against
 * values computed independently (brute-force enumeration of every rank
 * split, and scipy's documented example), Student's t distribution against
 * its closed forms for whole degrees of freedom and Welch's test against
 * figures worked by hand, then `gauntlet compare` itself
 * on stores written through the real store code whose windows are designed
 * so that every verdict is known in advance:
 *
 *   30 windows of 1 s: warmup 0-4, steady 5-24, shock 25-29 (named with
 *   markup in it, which every output must escape); a fault at
 *   10 s for 2 s with a settle of 0 s puts windows 10-11 in the "faults"
 *   group (the recovery variants' fault settles 10 s: a recovery counts
 *   when it starts within the settle).
 *   null.tick_lag_ms   100 samples of 1 + 0.01 (w % 7), times lag
 *   inference.ttft_ms  50 samples of 50 + 0.1 (w % 5) + 0.01 i, times ttft
 *   inference.requests 50 per window (throughput 50/s); errors per window
 *
 *   training.data_time_s  20 samples of (160 + (w % 3) + 0.1 i) ns, times data
 *   training.productive_us (0.95 + 0.01 ((w % 5) - 2) - ettr drop) s per
 *                      window: ETTR 0.95 on average
 *   inference.good     requests - 2 + (w % 2) - good drop: goodput 0.97
 *
 * Candidates: the same values (no change), ttft x1.2 (regression), lag x0.8
 * (-20%, significant, but 0.2 ms: within the controller lag's 10 ms floor:
 * no change), ttft x0.8 (improvement), ttft x1.03 (significant but inside the 5% tolerance: no
 * change; with --tolerance 0 a regression), one error per window (error
 * rate up from 0: regression), 40 requests per window (throughput down:
 * regression), 2 s windows (refused: exit 2). And what a gate must get right:
 * data_time_s 160 -> 175 ns (+9%, significant, but 15 ns: under the 10 us
 * floor: no change), ETTR 0.950 -> 0.908 (-4.4%: inside the 5% relative
 * tolerance, but 4.2 points: a regression), ETTR 1 point lower (inside
 * the 2 points: no change), goodput 4 points lower (regression), a job
 * outage (no productive time in windows 8-15: the steady medians do not
 * move, the whole run's mean drops 25 points: a regression), the fault's
 * windows and the 4 after it unhealthy (recovery_s 0 -> 6 s: regression;
 * 10 windows: 10 s, +67% against 6 s, beyond the 25% recovery tolerance
 * and the floor of hold = 3 windows), 1 or 3 windows unhealthy (recovery_s
 * 0 -> 1 s or 3 s: within the floor: no change); and the summary on
 * stdout.
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "compare.h"
#include "hist.h"
#include "store.h"
#include "util.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

static void test_mwu(void)
{
	struct gl_mwu t;
	double a1[] = { 1, 2, 3, 4, 5 }, b1[] = { 6, 7, 8, 9, 10 };
	double a2[] = { 1, 3, 5, 7, 9 }, b2[] = { 2, 4, 6, 8, 10 };
	/* scipy.stats.mannwhitneyu docs: males vs females, U = 17,
	 * exact p = 0.1111..., asymptotic p = 0.11134688653314041 */
	double males[] = { 19, 22, 16, 29, 24 }, females[] = { 20, 11, 17, 12 };
	double a4[] = { 1.5, 2.25, 3.0, 4.75, 5.5, 6.0, 7.25, 8.5 }, b4[] = { 4.0, 5.25, 6.5, 7.75, 9.0, 10.5, 11.0 };
	double a5[] = { 1, 2, 2, 3, 3, 3, 4 }, b5[] = { 3, 3, 4, 4, 5, 5, 6, 7 };
	double same[] = { 2, 2, 2, 2, 2, 2 };
	double big_a[100], big_b[100];

	CHECK(gl_mann_whitney(a1, 5, b1, 5, &t) == 0);
	CHECKF(t.exact && t.u_a == 0 && t.u_b == 25 && NEAR(t.p, 2.0 / 252, 1e-12), "u %g/%g p %g", t.u_a, t.u_b, t.p);
	CHECK(gl_mann_whitney(b1, 5, a1, 5, &t) == 0);
	CHECK(t.u_a == 25 && NEAR(t.p, 2.0 / 252, 1e-12));
	CHECK(gl_mann_whitney(a2, 5, b2, 5, &t) == 0);
	CHECKF(t.exact && t.u_a == 10 && NEAR(t.p, 0.6904761904761905, 1e-12), "p %g", t.p);
	CHECK(gl_mann_whitney(males, 5, females, 4, &t) == 0);
	CHECKF(t.exact && t.u_a == 17 && NEAR(t.p, 0.1111111111111111, 1e-12), "p %.17g", t.p);
	CHECK(gl_mann_whitney(a4, 8, b4, 7, &t) == 0);
	CHECKF(t.exact && t.u_a == 12 && NEAR(t.p, 0.0721056721056721, 1e-12), "p %.17g", t.p);
	/* ties: normal approximation with tie and continuity correction */
	CHECK(gl_mann_whitney(a5, 7, b5, 8, &t) == 0);
	CHECKF(!t.exact && t.u_a == 6 && NEAR(t.z, 2.5479943643773777, 1e-12) && NEAR(t.p, 0.010834422131524886, 1e-12),
	       "z %.17g p %.17g", t.z, t.p);
	CHECK(gl_mann_whitney(same, 3, same + 3, 3, &t) == 0);
	CHECK(t.p == 1);
	/* past 50 values: the normal approximation */
	for (int i = 0; i < 100; i++) {
		big_a[i] = i;
		big_b[i] = i + 100;
	}
	CHECK(gl_mann_whitney(big_a, 100, big_b, 100, &t) == 0);
	CHECK(!t.exact && t.u_a == 0 && t.p < 1e-30);
	CHECK(gl_mann_whitney(big_a, 100, big_a, 100, &t) == 0);
	CHECK(t.p > 0.9);
	CHECK(gl_mann_whitney(big_a, 0, big_b, 3, &t) == -1);
	CHECK(NEAR(gl_mwu_min_p(5, 5), 2.0 / 252, 1e-12));
	CHECK(NEAR(gl_mwu_min_p(3, 3), 0.1, 1e-12));
	CHECK(gl_mwu_min_p(1, 1) == 1);
}

/* Student's t two-sided p-value for whole df in closed form (Abramowitz and
 * Stegun 26.7.3 and 26.7.4), independent of the incomplete beta function
 * the code uses: with theta = atan(|t| / sqrt(df)),
 *   df even: P(|T| < t) = sin(theta) sum_{k=0}^{df/2-1} a_k cos^2k(theta),
 *            a_0 = 1, a_k = a_{k-1} (2k - 1) / (2k)
 *   df odd:  P(|T| < t) = 2/pi (theta + sin(theta) cos(theta)
 *            sum_{k=1}^{(df-1)/2} b_k cos^(2k-2)(theta)),
 *            b_1 = 1, b_k = b_{k-1} (2k - 2) / (2k - 1) */
static double t_p_closed(double t, int df)
{
	double th = atan(fabs(t) / sqrt(df)), s = sin(th), c2 = cos(th) * cos(th), sum = 0, term = 1;

	if (df % 2 == 0) {
		for (int k = 0; k < df / 2; k++) {
			if (k > 0)
				term *= c2 * (2.0 * k - 1) / (2.0 * k);
			sum += term;
		}
		return 1 - s * sum;
	}
	for (int k = 1; k <= (df - 1) / 2; k++) {
		if (k > 1)
			term *= c2 * (2.0 * k - 2) / (2.0 * k - 1);
		sum += term;
	}
	return 1 - 2 / M_PI * (th + s * cos(th) * sum);
}

static void test_welch(void)
{
	static const double ts[] = { 0, 0.5, 1, 2, 2.228138851986274, 3.169272672616951, 5, 12 };
	static const int dfs[] = { 1, 2, 3, 4, 7, 8, 10, 29, 30 };
	double a[] = { 1, 2, 3, 4, 5 }, b[] = { 3, 4, 5, 6, 7 }, b2[] = { 2, 4, 6, 8, 10 };
	double c1[] = { 0.95, 0.95, 0.95 }, c2[] = { 0.90, 0.90, 0.90 };
	struct gl_welch w;

	/* the distribution against the closed forms, from the body to the tail */
	for (size_t i = 0; i < GL_ARRAY_LEN(ts); i++)
		for (size_t k = 0; k < GL_ARRAY_LEN(dfs); k++) {
			double got = gl_student_t_p(ts[i], dfs[k]), want = t_p_closed(ts[i], dfs[k]);
			CHECKF(fabs(got - want) <= 1e-9 * want + 1e-13, "t %g df %d: p %.15g, closed form %.15g", ts[i],
			       dfs[k], got, want);
			CHECK(gl_student_t_p(-ts[i], dfs[k]) == got);
		}
	/* the tables' critical values at df 10: 0.05 and 0.01 two-sided */
	CHECKF(fabs(gl_student_t_p(2.228138851986274, 10) - 0.05) < 1e-9, "%.12g",
	       gl_student_t_p(2.228138851986274, 10));
	CHECKF(fabs(gl_student_t_p(3.169272672616951, 10) - 0.01) < 1e-9, "%.12g",
	       gl_student_t_p(3.169272672616951, 10));
	/* very many degrees of freedom: the normal distribution */
	CHECKF(fabs(gl_student_t_p(3, 1e7) - erfc(3 / sqrt(2))) < 1e-7, "%.12g", gl_student_t_p(3, 1e7));
	CHECK(gl_student_t_p(INFINITY, 5) == 0 && gl_student_t_p(0, 5) == 1);

	/* Welch by hand: means 3 and 5, variances 2.5 and 2.5, n 5 and 5:
	 * t = 2 / sqrt(0.5 + 0.5) = 2, df = 1 / (2 x 0.25 / 4) = 8 */
	CHECK(gl_welch_t(a, 5, b, 5, &w) == 0);
	CHECKF(fabs(w.t - 2) < 1e-12 && fabs(w.df - 8) < 1e-12 && fabs(w.p - t_p_closed(2, 8)) < 1e-12,
	       "t %.15g df %.15g p %.15g", w.t, w.df, w.p);
	CHECK(gl_welch_t(b, 5, a, 5, &w) == 0 && fabs(w.t + 2) < 1e-12);
	/* unequal variances 2.5 and 10: t = 3 / sqrt(2.5), df = 6.25 / 1.0625;
	 * p between those of 5 and 6 degrees of freedom */
	CHECK(gl_welch_t(a, 5, b2, 5, &w) == 0);
	CHECKF(fabs(w.t - 3 / sqrt(2.5)) < 1e-12 && fabs(w.df - 6.25 / 1.0625) < 1e-12, "t %.15g df %.15g", w.t, w.df);
	CHECKF(w.p > t_p_closed(w.t, 6) && w.p < t_p_closed(w.t, 5), "p %.15g", w.p);
	/* no spread (but for rounding): equal means p 1, different means p 0 */
	CHECK(gl_welch_t(c1, 3, c1, 3, &w) == 0 && w.p == 1 && w.t == 0);
	CHECKF(gl_welch_t(c1, 3, c2, 3, &w) == 0 && w.p < 1e-12 && w.t < 0, "p %g t %g", w.p, w.t);
	{
		double z1[] = { 1, 1, 1 }, z2[] = { 2, 2, 2 };
		CHECK(gl_welch_t(z1, 3, z2, 3, &w) == 0 && w.p == 0 && isinf(w.t) && w.t > 0);
	}
	CHECK(gl_welch_t(a, 1, b, 5, &w) == -1);
}

#define SCENARIO_FMT                                                                                                   \
	"{ \"name\": \"compare-unit\", \"duration\": \"30s\", \"window\": \"%s\",\n"                                   \
	"  \"hosts\": { \"me\": { \"local\": true } },\n"                                                              \
	"  \"workloads\": { \"null\": {}, \"inference\": { \"endpoints\": [\"http://127.0.0.1:9/v1\"],\n"              \
	"       \"model\": \"m\", \"arrival\": { \"mode\": \"constant\", \"rate\": 50 } } },\n"                        \
	"  \"phases\": [ { \"name\": \"warmup\", \"for\": \"5s\" }, { \"name\": \"steady\", \"for\": \"20s\" },\n"     \
	"                { \"name\": \"shock <b>&|'x\", \"for\": \"5s\", \"load\": 2 } ],\n"                           \
	"  \"faults\": [ { \"id\": \"f1\", \"at\": \"10s\", \"for\": \"2s\", \"settle\": \"%s\", \"kind\": "           \
	"\"null\",\n"                                                                                                  \
	"                \"target\": \"me\" } ],\n"                                                                    \
	"  \"targets\": { \"steady\": { \"null.tick_lag_ms.p99\": \"<= 50\", \"inference.error_rate\": \"<= 0.05\",\n" \
	"                              \"inference.ttft_ms.p99\": \"<= 1000\" },\n"                                    \
	"               \"degraded\": { \"null.tick_lag_ms.p99\": \"<= 100\", \"inference.error_rate\": \"<= 0.5\" "   \
	"},\n"                                                                                                         \
	"               \"recovery\": { \"recovery_s\": \"<= 10\", \"restore_s\": \"<= 10\" } } }\n"

struct variant {
	const char *name;
	double lag, ttft;
	int errors, requests;
	int window_s;
	double data; /* data_time_s factor; 0: 1 */
	double ettr_drop; /* subtracted from each window's ETTR */
	int outage; /* windows 8-15 without productive time */
	int good_drop; /* fewer good requests per window */
	int sick_windows; /* windows from 10 on with the tick lag at 200 ms */
	const char *settle; /* the fault's settle; NULL: 0s (its windows only are degraded) */
};

static void put_hist(struct gl_store *st, int64_t w, const char *name, struct gl_hist *h)
{
	unsigned char *b;
	size_t l;
	CHECK(gl_hist_serialize(h, &b, &l) == 0);
	CHECK(gl_store_window_metric_put(st, w, name, b, l, 0) == 0);
	free(b);
	gl_hist_free(h);
}

static void make_run(const char *root, const struct variant *v)
{
	char dir[512], path[600], text[4096];
	struct gl_err err = { 0 };
	struct gl_store *st;
	struct gl_run_row r = { 0 };
	struct gl_fault_row f = { 0 };
	int64_t win = (int64_t)v->window_s * 1000000000LL;
	int n = 30 / v->window_s;

	snprintf(dir, sizeof(dir), "%s/%s", root, v->name);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/run.db", dir);
	snprintf(text, sizeof(text), SCENARIO_FMT, v->window_s == 1 ? "1s" : "2s", v->settle ? v->settle : "0s");
	st = gl_store_open(path, 1, &err);
	if (!st) {
		fprintf(stderr, "store: %s\n", err.msg);
		exit(1);
	}
	snprintf(r.id, sizeof(r.id), "run-%s", v->name);
	strcpy(r.name, "compare-unit");
	strcpy(r.scenario_path, "inline.json");
	r.scenario_text = text;
	gl_sha256_hex(text, strlen(text), r.scenario_sha256);
	r.time_scale = 1;
	r.window_ns = win;
	r.duration_ns = 30000000000LL;
	r.started_wall_ns = gl_wall_ns();
	CHECK(gl_store_run_create(st, &r, &err) == 0);
	for (int w = 0; w < n; w++) {
		int64_t t0 = w * win, t1 = (w + 1) * win;
		int phase = t0 < 5000000000LL ? 0 : t0 < 25000000000LL ? 1 : 2;
		struct gl_hist *lag = gl_hist_new(), *ttft = gl_hist_new(), *data = gl_hist_new();
		int sick = w >= 10 && w < 10 + v->sick_windows;
		double ettr = v->outage && w >= 8 && w <= 15 ? 0 : 0.95 + 0.01 * ((w % 5) - 2) - v->ettr_drop;
		for (int i = 0; i < 100; i++)
			gl_hist_record(lag, sick ? 200 : (1 + 0.01 * (w % 7)) * v->lag);
		for (int i = 0; i < 50; i++)
			gl_hist_record(ttft, (50 + 0.1 * (w % 5) + 0.01 * i) * v->ttft);
		for (int i = 0; i < 20; i++)
			gl_hist_record(data, (160 + (w % 3) + 0.1 * i) * 1e-9 * (v->data ? v->data : 1));
		CHECK(gl_store_window_put(st, w, t0, t1, t0, t1, phase, 1) == 0);
		put_hist(st, w, "null.tick_lag_ms", lag);
		put_hist(st, w, "inference.ttft_ms", ttft);
		put_hist(st, w, "training.data_time_s", data);
		CHECK(gl_store_window_metric_put(st, w, "null.ticks", NULL, 0, 100) == 0);
		CHECK(gl_store_window_metric_put(st, w, "inference.requests", NULL, 0, v->requests * v->window_s) == 0);
		CHECK(gl_store_window_metric_put(st, w, "inference.errors", NULL, 0, v->errors) == 0);
		CHECK(gl_store_window_metric_put(st, w, "inference.good", NULL, 0,
						 v->requests * v->window_s - 2 + (w % 2) - v->good_drop) == 0);
		CHECK(gl_store_window_metric_put(st, w, "training.productive_us", NULL, 0,
						 (int64_t)llround(ettr * 1e6 * v->window_s)) == 0);
	}
	strcpy(f.id, "f1");
	strcpy(f.kind, "null");
	strcpy(f.target, "me");
	f.at_ns = 10000000000LL;
	f.dur_ns = 2000000000LL;
	f.state = GL_FAULT_REVERTED;
	f.verified = f.verified_revert = 1;
	f.injected_elapsed_ns = f.injected_scn_ns = 10000000000LL;
	f.reverted_elapsed_ns = f.reverted_scn_ns = 12000000000LL;
	CHECK(gl_store_fault_put(st, &f, &err) == 0);
	CHECK(gl_store_run_finish(st, "finished", "pass", 0, gl_wall_ns()) == 0);
	gl_store_close(st);
}

/* gauntlet compare ROOT/BASE ROOT/CAND --out ROOT/out-CAND --quiet
 * [extra1 [extra2]]: its exit code. */
static int run_compare_pair(const char *root, const char *base, const char *cand, const char *extra1,
			    const char *extra2)
{
	char base_dir[512], cand_dir[512], out[600];
	char *argv[12];
	int argc = 0;

	snprintf(base_dir, sizeof(base_dir), "%s/%s", root, base);
	snprintf(cand_dir, sizeof(cand_dir), "%s/%s", root, cand);
	snprintf(out, sizeof(out), "%s/out-%s", root, cand);
	argv[argc++] = "compare";
	argv[argc++] = base_dir;
	argv[argc++] = cand_dir;
	argv[argc++] = "--out";
	argv[argc++] = out;
	argv[argc++] = "--quiet";
	if (extra1)
		argv[argc++] = (char *)extra1;
	if (extra2)
		argv[argc++] = (char *)extra2;
	argv[argc] = NULL;
	return gl_compare_main(argc, argv);
}

static int run_compare(const char *root, const char *cand, const char *extra1, const char *extra2)
{
	return run_compare_pair(root, "base", cand, extra1, extra2);
}

/* The same, without --quiet: the summary on stdout goes to
 * root/stdout-CAND-N.txt, and *text gets it (the caller frees). */
static int run_compare_stdout(const char *root, const char *cand, const char *extra1, const char *extra2, char **text)
{
	static int seq;
	char base_dir[512], cand_dir[512], out[600], path[700];
	char *argv[12];
	int argc = 0, saved, fd, rc;
	size_t len;
	struct gl_err err = { 0 };

	*text = NULL;
	snprintf(base_dir, sizeof(base_dir), "%s/base", root);
	snprintf(cand_dir, sizeof(cand_dir), "%s/%s", root, cand);
	snprintf(out, sizeof(out), "%s/out-%s", root, cand);
	snprintf(path, sizeof(path), "%s/stdout-%s-%d.txt", root, cand, ++seq);
	argv[argc++] = "compare";
	argv[argc++] = base_dir;
	argv[argc++] = cand_dir;
	argv[argc++] = "--out";
	argv[argc++] = out;
	if (extra1)
		argv[argc++] = (char *)extra1;
	if (extra2)
		argv[argc++] = (char *)extra2;
	argv[argc] = NULL;
	fflush(stdout);
	saved = dup(1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (saved < 0 || fd < 0) {
		CHECKF(0, "%s: cannot redirect stdout", path);
		return -1;
	}
	dup2(fd, 1);
	close(fd);
	rc = gl_compare_main(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	CHECKF(gl_read_file(path, 16u << 20, text, &len, &err) == 0, "%s: %s", path, err.msg);
	return rc;
}

static int count_lines(const char *t)
{
	int n = 0;
	for (; t && *t; t++)
		n += *t == '\n';
	return n;
}

/* The first n lines of t hold a line containing every one of a, b (b may
 * be NULL). */
static int in_first_lines(const char *t, int n, const char *a, const char *b)
{
	for (int i = 0; t && *t && i < n; i++) {
		const char *e = strchr(t, '\n');
		size_t l = e ? (size_t)(e - t) : strlen(t);
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)(l < sizeof(line) ? l : sizeof(line) - 1), t);
		if (strstr(line, a) && (!b || strstr(line, b)))
			return 1;
		t = e ? e + 1 : t + l;
	}
	return 0;
}

/* compare.json of candidate cand, parsed. A missing or unparsable report
 * is a failed check here (the verdict checks that follow it are then not
 * run, and the test has already failed), never a silent skip. */
static cJSON *load_json(const char *root, const char *cand)
{
	char path[700], *text = NULL;
	size_t len;
	struct gl_err err = { 0 };
	cJSON *j;

	snprintf(path, sizeof(path), "%s/out-%s/compare.json", root, cand);
	if (gl_read_file(path, 16u << 20, &text, &len, &err) != 0) {
		CHECKF(0, "%s: no compare.json: %s", cand, err.msg);
		return NULL;
	}
	j = cJSON_Parse(text);
	free(text);
	CHECKF(j != NULL, "%s: compare.json does not parse", cand);
	return j;
}

/* A string field, or "(missing)": a report without it fails the
 * comparison it is used in instead of crashing the test. */
static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);
	return cJSON_IsString(v) && v->valuestring ? v->valuestring : "(missing)";
}

/* A number field, or NaN (which fails every comparison). */
static double num_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The row of metric in phase, or NULL. */
static const cJSON *row(const cJSON *j, const char *metric, const char *phase)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(j, "comparisons"))
	{
		if (!strcmp(str_of(it, "metric"), metric) && !strcmp(str_of(it, "phase"), phase))
			return it;
	}
	return NULL;
}

static const char *verdict(const cJSON *j, const char *metric, const char *phase)
{
	const cJSON *r = row(j, metric, phase);
	return r ? str_of(r, "verdict") : "(no row)";
}

/* Every regression row's metric starts with prefix; returns their number. */
static int regressions(const cJSON *j, const char *prefix, int *others)
{
	const cJSON *it;
	int n = 0;
	*others = 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(j, "comparisons"))
	{
		if (strcmp(str_of(it, "verdict"), "regression"))
			continue;
		if (!strncmp(str_of(it, "metric"), prefix, strlen(prefix)))
			n++;
		else
			(*others)++;
	}
	return n;
}

static void test_command(const char *root)
{
#define V(n, l, t, e, r, w) .name = n, .lag = l, .ttft = t, .errors = e, .requests = r, .window_s = w
	static const struct variant vs[] = {
		{ V("base", 1, 1, 0, 50, 1) },
		{ V("same", 1, 1, 0, 50, 1) },
		{ V("worse", 1, 1.2, 0, 50, 1) },
		{ V("better", 0.8, 1, 0, 50, 1) },
		{ V("small", 1, 1.03, 0, 50, 1) },
		{ V("errors", 1, 1, 1, 50, 1) },
		{ V("slow", 1, 1, 0, 40, 1) },
		{ V("win2", 1, 1, 0, 50, 2) },
		{ V("faster", 1, 0.8, 0, 50, 1) },
		{ V("data", 1, 1, 0, 50, 1), .data = 175.0 / 160.0 },
		{ V("ettr", 1, 1, 0, 50, 1), .ettr_drop = 0.042 },
		{ V("ettr1", 1, 1, 0, 50, 1), .ettr_drop = 0.01 },
		{ V("outage", 1, 1, 0, 50, 1), .outage = 1 },
		{ V("goodput", 1, 1, 0, 50, 1), .good_drop = 2 },
		/* a recovery counts when it starts within the fault's settle:
		 * these faults settle 10 s (their degraded windows 10-21) */
		{ V("late", 1, 1, 0, 50, 1), .sick_windows = 6, .settle = "10s" },
		{ V("late1", 1, 1, 0, 50, 1), .sick_windows = 1, .settle = "10s" },
		{ V("late3", 1, 1, 0, 50, 1), .sick_windows = 3, .settle = "10s" },
		{ V("late10", 1, 1, 0, 50, 1), .sick_windows = 10, .settle = "10s" },
	};
#undef V
	cJSON *j;
	int others = 0;
	char path[700];

	for (size_t i = 0; i < GL_ARRAY_LEN(vs); i++)
		make_run(root, &vs[i]);

	CHECK(run_compare(root, "same", NULL, NULL) == 0);
	if ((j = load_json(root, "same"))) {
		CHECK(!strcmp(str_of(j, "verdict"), "no regression"));
		CHECK(num_of(j, "exit_code") == 0);
		CHECK(!strcmp(verdict(j, "inference.ttft_ms.p50", "steady"), "no change"));
		CHECK(!strcmp(verdict(j, "null.tick_lag_ms.p99", "steady"), "no change"));
		/* windows 10 and 11 are under the fault: their own group, too small */
		CHECKF(num_of(row(j, "null.tick_lag_ms.p50", "faults"), "n_base") == 2, "faults group");
		CHECK(!strcmp(verdict(j, "null.tick_lag_ms.p50", "faults"), "insufficient data"));
		/* steady is windows 5..24 less the fault's 10 and 11 */
		CHECK(num_of(row(j, "null.tick_lag_ms.p50", "steady"), "n_base") == 18);
		CHECK(num_of(row(j, "null.tick_lag_ms.p50", "steady"), "n_cand") == 18);
		CHECK(row(j, "inference.send_lag_ms.p99", "steady") == NULL); /* generator health: not compared */
		CHECK(row(j, "null.ticks", "steady") == NULL); /* counters: not compared */
		CHECK(row(j, "inference.throughput_rps", "steady") != NULL);
		CHECK(row(j, "inference.output_tokens.p1", "steady") == NULL); /* no data in either run */
		CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(j, "warnings")) == 0);
	}
	cJSON_Delete(j);
	snprintf(path, sizeof(path), "%s/out-same/compare.md", root);
	CHECK(access(path, R_OK) == 0);
	snprintf(path, sizeof(path), "%s/out-same/compare.html", root);
	CHECK(access(path, R_OK) == 0);
	/* a phase name with markup in it is escaped, in each format its own way */
	{
		char *text = NULL;
		size_t len;
		struct gl_err err = { 0 };
		snprintf(path, sizeof(path), "%s/out-same/compare.md", root);
		CHECK(gl_read_file(path, 16u << 20, &text, &len, &err) == 0);
		CHECK(text && strstr(text, "| shock &lt;b&gt;&amp;\\|'x |") && !strstr(text, "<b>"));
		free(text);
		text = NULL;
		snprintf(path, sizeof(path), "%s/out-same/compare.html", root);
		CHECK(gl_read_file(path, 16u << 20, &text, &len, &err) == 0);
		CHECK(text && strstr(text, "<td>shock &lt;b&gt;&amp;|&#39;x</td>") && !strstr(text, "<b>"));
		free(text);
		if ((j = load_json(root, "same")))
			CHECK(row(j, "null.tick_lag_ms.p50", "shock <b>&|'x") != NULL);
		cJSON_Delete(j);
	}

	CHECK(run_compare(root, "worse", NULL, NULL) == 1);
	if ((j = load_json(root, "worse"))) {
		CHECK(!strcmp(str_of(j, "verdict"), "regression"));
		CHECK(num_of(j, "exit_code") == 1);
		CHECK(!strcmp(verdict(j, "inference.ttft_ms.p50", "steady"), "regression"));
		CHECK(!strcmp(verdict(j, "inference.ttft_ms.p95", "steady"), "regression"));
		CHECK(!strcmp(verdict(j, "inference.ttft_ms.p99", "steady"), "regression"));
		/* every ttft value x1.2: +20% (within the histogram's 0.1%) */
		CHECKF(NEAR(num_of(row(j, "inference.ttft_ms.p50", "steady"), "change_pct"), 20, 0.2), "change %g",
		       num_of(row(j, "inference.ttft_ms.p50", "steady"), "change_pct"));
		CHECK(!strcmp(verdict(j, "null.tick_lag_ms.p99", "steady"), "no change"));
		CHECK(regressions(j, "inference.ttft_ms.", &others) >= 3 && others == 0);
	}
	cJSON_Delete(j);

	CHECK(run_compare(root, "better", NULL, NULL) == 0);
	if ((j = load_json(root, "better"))) {
		/* the controller's own lag -20%, significant, but 0.2 ms: within
		 * null.tick_lag_ms's floor of 10 ms (a shared host's scheduling) */
		const cJSON *r = row(j, "null.tick_lag_ms.p50", "steady");
		CHECK(!strcmp(str_of(j, "verdict"), "no regression"));
		CHECK(!strcmp(verdict(j, "null.tick_lag_ms.p50", "steady"), "no change"));
		CHECKF(NEAR(num_of(r, "change_pct"), -20, 0.2) && num_of(r, "p_value") < 0.01 &&
			       num_of(r, "floor") == 10 && cJSON_IsTrue(cJSON_GetObjectItem(r, "within_floor")),
		       "change %g p %g floor %g", num_of(r, "change_pct"), num_of(r, "p_value"), num_of(r, "floor"));
		CHECK(!strcmp(verdict(j, "inference.ttft_ms.p50", "steady"), "no change"));
		CHECK(num_of(cJSON_GetObjectItem(j, "counts"), "regression") == 0);
		CHECK(num_of(cJSON_GetObjectItem(j, "counts"), "improvement") == 0);
	}
	cJSON_Delete(j);
	CHECK(run_compare(root, "faster", NULL, NULL) == 0);
	if ((j = load_json(root, "faster"))) {
		CHECK(!strcmp(str_of(j, "verdict"), "no regression"));
		CHECK(!strcmp(verdict(j, "inference.ttft_ms.p50", "steady"), "improvement"));
		CHECKF(NEAR(num_of(row(j, "inference.ttft_ms.p50", "steady"), "change_pct"), -20, 0.2), "change %g",
		       num_of(row(j, "inference.ttft_ms.p50", "steady"), "change_pct"));
		CHECK(num_of(cJSON_GetObjectItem(j, "counts"), "regression") == 0);
	}
	cJSON_Delete(j);

	CHECK(run_compare(root, "small", NULL, NULL) == 0);
	if ((j = load_json(root, "small"))) {
		const cJSON *r = row(j, "inference.ttft_ms.p50", "steady");
		CHECK(!strcmp(verdict(j, "inference.ttft_ms.p50", "steady"), "no change"));
		CHECK(num_of(r, "p_value") < 0.01); /* significant, but within 5% */
	}
	cJSON_Delete(j);
	CHECK(run_compare(root, "small", "--tolerance", "0") == 1);
	if ((j = load_json(root, "small"))) {
		CHECK(!strcmp(verdict(j, "inference.ttft_ms.p50", "steady"), "regression"));
		CHECK(!strcmp(str_of(j, "verdict"), "regression"));
	}
	cJSON_Delete(j);

	CHECK(run_compare(root, "errors", NULL, NULL) == 1);
	if ((j = load_json(root, "errors"))) {
		const cJSON *r = row(j, "inference.error_rate", "steady");
		CHECK(!strcmp(verdict(j, "inference.error_rate", "steady"), "regression"));
		CHECK(r && cJSON_IsNull(cJSON_GetObjectItem(r, "change_pct")) &&
		      !strcmp(str_of(r, "change_note"), "from 0 up"));
	}
	cJSON_Delete(j);

	CHECK(run_compare(root, "slow", NULL, NULL) == 1);
	if ((j = load_json(root, "slow"))) {
		/* 40 requests per 1 s window instead of 50: -20% exactly */
		CHECK(!strcmp(verdict(j, "inference.throughput_rps", "steady"), "regression"));
		CHECKF(NEAR(num_of(row(j, "inference.throughput_rps", "steady"), "change_pct"), -20, 1e-9), "change %g",
		       num_of(row(j, "inference.throughput_rps", "steady"), "change_pct"));
	}
	cJSON_Delete(j);

	/* data_time_s 160 -> 175 ns: +9%, significant, but 15 ns is under the
	 * 10 us floor of times: no change (it gated before the floors) */
	CHECK(run_compare(root, "data", NULL, NULL) == 0);
	if ((j = load_json(root, "data"))) {
		const cJSON *r = row(j, "training.data_time_s.p50", "steady");
		CHECK(!strcmp(str_of(j, "verdict"), "no regression"));
		CHECKF(!strcmp(verdict(j, "training.data_time_s.p50", "steady"), "no change"), "verdict %s",
		       verdict(j, "training.data_time_s.p50", "steady"));
		CHECKF(num_of(r, "p_value") < 0.01 && num_of(r, "change_pct") > 5, "p %g change %g%%",
		       num_of(r, "p_value"), num_of(r, "change_pct"));
		CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r, "within_floor")) && num_of(r, "floor") == 1e-5);
		CHECKF(NEAR(num_of(r, "change_abs"), 15e-9, 1e-9), "change_abs %g", num_of(r, "change_abs"));
		CHECK(num_of(cJSON_GetObjectItem(j, "counts"), "regression") == 0);
	}
	cJSON_Delete(j);

	/* ETTR 0.950 -> 0.908: -4.4% of the medians, inside the 5% tolerance
	 * (no change before), but 4.2 points: a significant drop beyond the 2
	 * points, in every group and over the whole run */
	CHECK(run_compare(root, "ettr", NULL, NULL) == 1);
	if ((j = load_json(root, "ettr"))) {
		const cJSON *r = row(j, "training.ettr", "whole run");
		CHECK(!strcmp(verdict(j, "training.ettr", "whole run"), "regression"));
		CHECK(!strcmp(verdict(j, "training.ettr", "steady"), "regression"));
		CHECKF(NEAR(num_of(r, "change_abs"), -0.042, 1e-6) && NEAR(num_of(r, "base_mean"), 0.95, 1e-3),
		       "change_abs %g base_mean %g", num_of(r, "change_abs"), num_of(r, "base_mean"));
		CHECK(!strcmp(str_of(r, "test"), "welch") && num_of(r, "p_value") < 1e-6);
		CHECK(!strcmp(str_of(r, "tolerance_kind"), "absolute") && num_of(r, "tolerance") == 0.02);
		CHECK(cJSON_IsTrue(cJSON_GetObjectItem(r, "first_class")) &&
		      cJSON_IsTrue(cJSON_GetObjectItem(r, "gates")));
		CHECK(regressions(j, "training.ettr", &others) >= 2 && others == 0);
	}
	cJSON_Delete(j);
	/* its own tolerance: 5 points lets 4.2 pass */
	CHECK(run_compare(root, "ettr", "--ettr-tolerance", "0.05") == 0);
	/* one point lower, significant: inside the 2 points */
	CHECK(run_compare(root, "ettr1", NULL, NULL) == 0);
	if ((j = load_json(root, "ettr1"))) {
		const cJSON *r = row(j, "training.ettr", "whole run");
		CHECK(!strcmp(verdict(j, "training.ettr", "whole run"), "no change"));
		CHECKF(num_of(r, "p_value") < 0.01, "p %g", num_of(r, "p_value"));
	}
	cJSON_Delete(j);
	/* a job down for windows 8-15: the steady medians do not move, the
	 * whole run's ETTR drops by 25 points (8 of 30 windows), significantly */
	CHECK(run_compare(root, "outage", NULL, NULL) == 1);
	if ((j = load_json(root, "outage"))) {
		const cJSON *r = row(j, "training.ettr", "whole run"), *st = row(j, "training.ettr", "steady");
		CHECKF(!strcmp(verdict(j, "training.ettr", "whole run"), "regression"), "verdict %s p %g",
		       verdict(j, "training.ettr", "whole run"), num_of(r, "p_value"));
		CHECKF(NEAR(num_of(r, "change_abs"), -0.95 * 8 / 30, 0.01), "change_abs %g", num_of(r, "change_abs"));
		CHECK(NEAR(num_of(st, "base_median"), num_of(st, "cand_median"), 0.011));
	}
	cJSON_Delete(j);
	/* goodput 0.97 -> 0.93: -4.1% (inside 5%), 4 points: a regression */
	CHECK(run_compare(root, "goodput", NULL, NULL) == 1);
	if ((j = load_json(root, "goodput"))) {
		const cJSON *r = row(j, "inference.goodput", "whole run");
		CHECK(!strcmp(verdict(j, "inference.goodput", "whole run"), "regression"));
		CHECKF(NEAR(num_of(r, "change_abs"), -0.04, 1e-9), "change_abs %g", num_of(r, "change_abs"));
		CHECK(regressions(j, "inference.goodput", &others) >= 1 && others == 0);
	}
	cJSON_Delete(j);
	CHECK(run_compare(root, "goodput", "--goodput-tolerance", "0.05") == 0);

	/* recovery: the fault's window and the 5 after it unhealthy: recovery_s
	 * 0 -> 6 s and restore_s 0 -> 4 s, regressions */
	CHECK(run_compare(root, "late", NULL, NULL) == 1);
	if ((j = load_json(root, "late"))) {
		const cJSON *r = row(j, "recovery_s", "fault f1"), *rs = row(j, "restore_s", "fault f1");
		CHECKF(!strcmp(verdict(j, "recovery_s", "fault f1"), "regression") && num_of(r, "base_median") == 0 &&
			       num_of(r, "cand_median") == 6,
		       "verdict %s %g -> %g", verdict(j, "recovery_s", "fault f1"), num_of(r, "base_median"),
		       num_of(r, "cand_median"));
		CHECKF(!strcmp(verdict(j, "restore_s", "fault f1"), "regression") && num_of(rs, "cand_median") == 4,
		       "verdict %s -> %g", verdict(j, "restore_s", "fault f1"), num_of(rs, "cand_median"));
		CHECK(!strcmp(str_of(r, "fault"), "f1") && cJSON_IsNull(cJSON_GetObjectItem(r, "p_value")));
	}
	cJSON_Delete(j);
	/* from 0 any change beyond the floor is infinitely worse; from 6 s to
	 * 10 s is +67% (restore_s 4 -> 8 s: +100%): beyond the 25%, inside 150% */
	CHECK(run_compare(root, "late", "--recovery-tolerance", "99") == 1);
	CHECK(run_compare_pair(root, "late", "late10", NULL, NULL) == 1);
	if ((j = load_json(root, "late10"))) {
		const cJSON *r = row(j, "recovery_s", "fault f1");
		CHECKF(!strcmp(verdict(j, "recovery_s", "fault f1"), "regression") && num_of(r, "base_median") == 6 &&
			       num_of(r, "cand_median") == 10,
		       "verdict %s %g -> %g", verdict(j, "recovery_s", "fault f1"), num_of(r, "base_median"),
		       num_of(r, "cand_median"));
	}
	cJSON_Delete(j);
	CHECK(run_compare_pair(root, "late", "late10", "--recovery-tolerance", "1.5") == 0);
	CHECK(run_compare_pair(root, "late10", "late1", NULL, NULL) == 0); /* 10 -> 1 s: an improvement */
	if ((j = load_json(root, "late1")))
		CHECK(!strcmp(verdict(j, "recovery_s", "fault f1"), "improvement"));
	cJSON_Delete(j);
	/* within hold (3) windows: 0 -> 1 s and 0 -> 3 s are noise (one
	 * unhealthy window in the streak moves the figure that much) */
	CHECK(run_compare(root, "late1", NULL, NULL) == 0);
	if ((j = load_json(root, "late1"))) {
		const cJSON *r = row(j, "recovery_s", "fault f1");
		CHECKF(!strcmp(verdict(j, "recovery_s", "fault f1"), "no change") && num_of(r, "cand_median") == 1 &&
			       cJSON_IsTrue(cJSON_GetObjectItem(r, "within_floor")) && num_of(r, "floor") == 3,
		       "verdict %s -> %g", verdict(j, "recovery_s", "fault f1"), num_of(r, "cand_median"));
	}
	cJSON_Delete(j);
	CHECK(run_compare(root, "late3", NULL, NULL) == 0);
	if ((j = load_json(root, "late3"))) {
		const cJSON *r = row(j, "recovery_s", "fault f1");
		CHECKF(!strcmp(verdict(j, "recovery_s", "fault f1"), "no change") && num_of(r, "cand_median") == 3,
		       "verdict %s -> %g", verdict(j, "recovery_s", "fault f1"), num_of(r, "cand_median"));
	}
	cJSON_Delete(j);

	/* the summary on stdout: identical runs in at most 30 lines; --all
	 * adds every comparison; a gating ETTR drop named in the first lines */
	{
		char *text = NULL;
		int n_rows = 0;
		CHECK(run_compare_stdout(root, "same", NULL, NULL, &text) == 0);
		CHECKF(count_lines(text) <= 30, "%d lines:\n%s", count_lines(text), text ? text : "");
		CHECK(in_first_lines(text, 2, "verdict: no regression", NULL));
		CHECK(text && !strstr(text, "training.data_time_s.p50"));
		free(text);
		if ((j = load_json(root, "same")))
			n_rows = cJSON_GetArraySize(cJSON_GetObjectItem(j, "comparisons"));
		cJSON_Delete(j);
		CHECK(run_compare_stdout(root, "same", "--all", NULL, &text) == 0);
		CHECKF(n_rows > 30 && count_lines(text) > n_rows, "%d rows, %d lines", n_rows, count_lines(text));
		CHECK(text && strstr(text, "training.data_time_s.p50"));
		free(text);

		CHECK(run_compare_stdout(root, "ettr", NULL, NULL, &text) == 1);
		CHECKF(in_first_lines(text, 2, "verdict: REGRESSION", NULL) &&
			       in_first_lines(text, 5, "training.ettr, whole run", "REGRESSION"),
		       "%s", text ? text : "");
		CHECK(count_lines(text) <= 30);
		free(text);

		/* sub-us noise: listed under --all, not gating */
		CHECK(run_compare_stdout(root, "data", NULL, NULL, &text) == 0);
		CHECK(text && !strstr(text, "training.data_time_s") && strstr(text, "within the noise floor"));
		free(text);
		CHECK(run_compare_stdout(root, "data", "--all", NULL, &text) == 0);
		CHECKF(in_first_lines(text, 1000, "training.data_time_s.p50", "no change (within the noise floor)"),
		       "%s", text ? text : "");
		free(text);

		/* many regressions: the summary lists 10 and counts the rest */
		CHECK(run_compare_stdout(root, "worse", "--stats", "p10,p20,p30,p40,p50,p60,p70,p80", &text) == 1);
		CHECKF(count_lines(text) <= 30 && text && strstr(text, "... and ") &&
			       strstr(text, "more (--all lists them"),
		       "%d lines:\n%s", count_lines(text), text ? text : "");
		free(text);

		CHECK(run_compare_stdout(root, "late", NULL, NULL, &text) == 1);
		CHECKF(in_first_lines(text, 10, "recovery_s, fault f1", "0 -> 6 s"), "%s", text ? text : "");
		free(text);
	}

	/* bad input */
	CHECK(run_compare(root, "win2", NULL, NULL) == 2);
	CHECK(run_compare(root, "no-such-run", NULL, NULL) == 2);
	CHECK(run_compare(root, "same", "--alpha", "2") == 2);
	CHECK(run_compare(root, "same", "--stats", "p50,bogus") == 2);
	CHECK(run_compare(root, "same", "--bogus", NULL) == 2);
	CHECK(run_compare(root, "same", "--ettr-tolerance", "-0.1") == 2);
	CHECK(run_compare(root, "same", "--goodput-tolerance", "1") == 2);
	CHECK(run_compare(root, "same", "--recovery-tolerance", "x") == 2);
	/* --stats and --min-windows are honoured */
	CHECK(run_compare(root, "worse", "--stats", "p50") == 1);
	if ((j = load_json(root, "worse")))
		CHECK(row(j, "inference.ttft_ms.p99", "steady") == NULL && row(j, "inference.ttft_ms.p50", "steady"));
	cJSON_Delete(j);
	CHECK(run_compare(root, "worse", "--min-windows", "19") == 0); /* steady has 18 */
	if ((j = load_json(root, "worse")))
		CHECK(!strcmp(verdict(j, "inference.ttft_ms.p50", "steady"), "insufficient data"));
	cJSON_Delete(j);
}

int main(void)
{
	char root[] = "/tmp/gl-test-compare.XXXXXX";

	test_mwu();
	test_welch();
	if (!mkdtemp(root)) {
		CHECKF(0, "mkdtemp %s failed", root); /* not a missing prerequisite */
		return check_done();
	}
	test_command(root);
	if (!getenv("GL_KEEP_TMP")) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", root);
	} else {
		printf("kept %s\n", root);
	}
	return check_done();
}
