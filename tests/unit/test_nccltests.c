/*
 * test_nccltests.c - the nccl-tests output parser of loadgen/nccltests.c
 * against the sample outputs in tests/nccltests/: a clean 2-node run with
 * NCCL's log interleaved, a run with #wrong > 0 (nccl-tests 2.13 layout), a
 * run with validation off, the non-MPI-binary pitfall (two single-rank runs
 * interleaved by mpirun), the JSON report, an old broadcast layout with the
 * "error" column, and a run that died mid-row with NCCL text glued into its
 * rows. Then the layouts only seen with options (timestamps, per-iteration
 * columns, in-place only, rccl-tests' extra columns), launcher prefixes, and
 * every error path with its message, caps included. Everything is in
 * memory; no temp files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "nccltests.h"
#include "util.h"

static char src_dir[2048];

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

static char *load(const char *name, size_t *len)
{
	char path[4096];
	struct gl_err err = { 0 };
	char *buf = NULL;

	snprintf(path, sizeof(path), "%s/tests/nccltests/%s", src_dir, name);
	if (gl_read_file(path, GL_NCCL_MAX_INPUT, &buf, len, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	return buf;
}

/* Parse a string; returns the code, err and r filled. */
static int parse_str(const char *s, struct gl_nccl_result *r, struct gl_err *err)
{
	gl_err_clear(err);
	return gl_nccl_parse(s, strlen(s), r, err);
}

static int parse_json_n(const char *s, size_t n, struct gl_nccl_result *r, struct gl_err *err)
{
	gl_err_clear(err);
	return gl_nccl_parse_json(s, n, r, err);
}

static int parse_text_n(const char *s, size_t n, struct gl_nccl_result *r, struct gl_err *err)
{
	gl_err_clear(err);
	return gl_nccl_parse_text(s, n, r, err);
}

static int has(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

static const struct gl_nccl_row *row_of(const struct gl_nccl_result *r, uint64_t size)
{
	for (int i = 0; i < r->nrows; i++)
		if (r->rows[i].size == size)
			return &r->rows[i];
	return NULL;
}

static void test_clean_2node(void)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };
	const struct gl_nccl_row *w;
	char why[256] = "x";
	size_t len;
	char *buf = load("allreduce_2node.txt", &len);

	CHECKF(gl_nccl_parse_text(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(strcmp(r.collective, "all_reduce_perf") == 0);
	CHECK(strcmp(r.tests_version, "2.17.1") == 0);
	CHECK(r.nccl_version == 22703);
	CHECK(!r.from_json);
	CHECK(r.headers == 1 && r.ranks_listed == 2 && r.max_rank == 1);
	CHECK(r.nthread == 1 && r.ngpus == 1 && r.validation == 1);
	CHECKF(r.nrows == 25, "%d", r.nrows);
	w = &r.rows[0];
	CHECK(w->size == 8 && w->count == 2 && w->root == -1 && w->line == 22);
	CHECK(strcmp(w->type, "float") == 0 && strcmp(w->redop, "sum") == 0);
	CHECK(NEAR(w->time_us[0], 23.16) && NEAR(w->time_us[1], 22.97));
	CHECK(w->busbw[0] == 0 && w->wrong[0] == 0 && w->wrong[1] == 0);
	CHECK(w->err_delta[0] == -1);
	w = row_of(&r, 134217728);
	CHECK(w && w->count == 33554432 && NEAR(w->time_us[0], 2886.87));
	CHECK(w && NEAR(w->algbw[0], 46.49) && NEAR(w->busbw[0], 46.49) && NEAR(w->busbw[1], 44.91));
	/* the lower of the two halves */
	CHECK(NEAR(gl_nccl_busbw_at(&r, 134217728), 44.91));
	CHECK(NEAR(gl_nccl_busbw_at(&r, 67108864), 44.87));
	CHECK(NEAR(gl_nccl_busbw_at(&r, 1048576), 22.35));
	CHECK(gl_nccl_busbw_at(&r, 8) == 0);
	CHECK(gl_nccl_busbw_at(&r, 12345) == -1);
	CHECK(r.wrong_total == 0 && r.max_err_delta == -1);
	CHECK(r.have_oob && r.oob_values == 0);
	CHECK(r.have_avg && NEAR(r.avg_busbw, 13.8422));
	CHECK(r.failures == 0 && r.failure[0] == '\0' && r.rows_incomplete == 0);
	CHECKF(r.nccl_lines == 10, "%d", r.nccl_lines); /* incl. "NCCL version ..." */
	CHECKF(r.lines_skipped == 11, "%d", r.lines_skipped); /* + the ssh warning */
	CHECK(gl_nccl_pitfall(&r, 2, why, sizeof(why)) == 0 && why[0] == '\0');
	CHECK(gl_nccl_pitfall(&r, 1, why, sizeof(why)) == 0);
	CHECK(gl_nccl_pitfall(&r, 0, why, sizeof(why)) == 0);
	/* 4 processes launched, 2 ranks listed: each listed process ran alone */
	CHECK(gl_nccl_pitfall(&r, 4, why, sizeof(why)) == 1);
	CHECKF(has(why, "lists 2 ranks but 4 processes"), "%s", why);
	gl_nccl_result_free(&r);
	CHECK(r.rows == NULL && r.nrows == 0);
	gl_nccl_result_free(&r); /* twice is fine */
	gl_nccl_result_free(NULL);

	/* The same output with CRLF line ends and srun --label prefixes. */
	{
		struct gl_buf b;
		struct gl_nccl_result r2;
		const char *p = buf, *e = buf + len;
		gl_buf_init(&b, 1 << 20);
		while (p < e) {
			const char *nl = memchr(p, '\n', (size_t)(e - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
			gl_buf_append(&b, "0: ", 3);
			gl_buf_append(&b, p, n);
			gl_buf_append(&b, "\r\n", 2);
			p += n + 1;
		}
		CHECKF(gl_nccl_parse_text(b.data, b.len, &r2, &err) == 0, "%s", err.msg);
		CHECK(r2.nrows == 25 && r2.headers == 1 && r2.ranks_listed == 2);
		CHECK(NEAR(gl_nccl_busbw_at(&r2, 134217728), 44.91));
		gl_nccl_result_free(&r2);
		gl_buf_free(&b);
	}
	free(buf);
}

static void test_wrong(void)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };
	const struct gl_nccl_row *w;
	char why[256];
	size_t len;
	char *buf = load("allreduce_wrong.txt", &len);

	CHECKF(gl_nccl_parse_text(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.collective[0] == '\0' && r.tests_version[0] == '\0' && r.nccl_version == 0);
	CHECK(r.headers == 1 && r.ranks_listed == 8 && r.max_rank == 7);
	CHECK(r.nthread == 1 && r.ngpus == 4 && r.validation == 1);
	CHECK(r.nrows == 7);
	w = row_of(&r, 4194304);
	CHECK(w && w->wrong[0] == 0 && w->wrong[1] == 1024);
	w = row_of(&r, 16777216);
	CHECK(w && w->wrong[0] == 131072 && w->wrong[1] == 131072);
	w = row_of(&r, 67108864); /* "%5g" printed 1048576 as 1.04858e+06 */
	CHECK(w && w->wrong[0] == 1048580 && w->wrong[1] == 0);
	CHECK(w && NEAR(w->time_us[1], 3164.0) && NEAR(w->busbw[1], 37.12));
	CHECKF(r.wrong_total == 1024 + 131072 + 131072 + 1048580, "%ld", r.wrong_total);
	CHECK(r.have_oob && r.oob_values == 6);
	CHECK(r.have_avg && NEAR(r.avg_busbw, 32.6889));
	CHECK(NEAR(gl_nccl_busbw_at(&r, 2097152), 26.87));
	/* 2 processes x 4 GPUs, ranks 0-7: fine with world 2 */
	CHECK(gl_nccl_pitfall(&r, 2, why, sizeof(why)) == 0);
	/* with world 3 rank 8 would have to be listed */
	CHECK(gl_nccl_pitfall(&r, 3, why, sizeof(why)) == 1);
	CHECKF(has(why, "highest rank listed is 7") && has(why, "rank 8 expected"), "%s", why);
	gl_nccl_result_free(&r);
	free(buf);
}

static void test_nocheck(void)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };
	char why[256];
	size_t len;
	char *buf = load("allgather_nocheck.txt", &len);

	CHECKF(gl_nccl_parse_text(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(strcmp(r.collective, "all_gather_perf") == 0);
	CHECK(r.validation == 0 && r.ngpus == 8 && r.ranks_listed == 16 && r.max_rank == 15);
	CHECK(r.nrows == 6);
	for (int i = 0; i < r.nrows; i++) {
		CHECK(r.rows[i].wrong[0] == -1 && r.rows[i].wrong[1] == -1);
		CHECK(strcmp(r.rows[i].redop, "none") == 0 && r.rows[i].root == -1);
	}
	CHECK(r.wrong_total == 0);
	CHECK(r.rows[0].size == 1048576 && r.rows[0].count == 16384);
	CHECK(NEAR(gl_nccl_busbw_at(&r, 1073741824), 339.23));
	CHECK(NEAR(r.rows[5].algbw[0], 362.97));
	CHECK(gl_nccl_pitfall(&r, 2, why, sizeof(why)) == 0);
	gl_nccl_result_free(&r);
	free(buf);
}

static void test_pitfall(void)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };
	char why[256], tiny[8];
	size_t len;
	char *buf = load("allreduce_nompi_pitfall.txt", &len);

	CHECKF(gl_nccl_parse_text(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.headers == 2 && r.ranks_listed == 2 && r.max_rank == 0);
	CHECK(r.nrows == 18 && r.wrong_total == 0 && r.oob_values == 0);
	/* one rank each: all-reduce moves nothing between ranks */
	CHECK(gl_nccl_busbw_at(&r, 134217728) == 0);
	CHECK(NEAR(r.rows[0].time_us[0], 4.10));
	CHECK(gl_nccl_pitfall(&r, 2, why, sizeof(why)) == 1);
	CHECKF(has(why, "2 nccl-tests header blocks") && has(why, "MPI=1"), "%s", why);
	CHECK(gl_nccl_pitfall(&r, 0, NULL, 0) == 1);
	CHECK(gl_nccl_pitfall(&r, 2, tiny, sizeof(tiny)) == 1 && strlen(tiny) == 7);
	CHECK(gl_nccl_pitfall(NULL, 2, why, sizeof(why)) == 0 && why[0] == '\0');
	gl_nccl_result_free(&r);
	free(buf);
}

static void test_json(void)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };
	const struct gl_nccl_row *w;
	char why[256];
	size_t len;
	char *buf = load("allreduce_2node.json", &len);

	CHECKF(gl_nccl_parse_json(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.from_json && r.headers == 1);
	CHECK(strcmp(r.collective, "all_reduce_perf") == 0); /* from args[0] */
	CHECK(r.nccl_version == 22703);
	CHECK(r.ranks_listed == 2 && r.max_rank == 1);
	CHECK(r.nthread == 1 && r.ngpus == 1 && r.validation == 1);
	CHECK(r.nrows == 13);
	w = &r.rows[0];
	CHECK(w->size == 8 && w->count == 2 && w->root == -1 && w->line == 0 && w->block == 0);
	CHECK(strcmp(w->type, "float") == 0 && strcmp(w->redop, "sum") == 0);
	CHECK(NEAR(w->time_us[0], 23.196053) && NEAR(w->time_us[1], 24.324172));
	CHECK(NEAR(w->busbw[0], 0.000345) && w->wrong[0] == 0 && w->wrong[1] == 0);
	w = row_of(&r, 134217728);
	CHECK(w && w->count == 33554432);
	CHECK(NEAR(gl_nccl_busbw_at(&r, 134217728), 46.196009));
	CHECK(NEAR(gl_nccl_busbw_at(&r, 33554432), 44.291013));
	CHECK(gl_nccl_busbw_at(&r, 16) == -1);
	CHECK(r.wrong_total == 0 && r.have_oob && r.oob_values == 0);
	CHECK(r.have_avg && NEAR(r.avg_busbw, 14.169036));
	CHECK(r.failures == 0);
	CHECK(gl_nccl_pitfall(&r, 2, why, sizeof(why)) == 0);
	CHECK(gl_nccl_pitfall(&r, 3, why, sizeof(why)) == 1);
	gl_nccl_result_free(&r);

	/* auto-detection sends it the same way */
	CHECK(gl_nccl_parse(buf, len, &r, &err) == 0 && r.from_json && r.nrows == 13);
	gl_nccl_result_free(&r);
	/* two reports of one launch concatenated: two runs (and the pitfall) */
	{
		char *two = malloc(2 * len + 2);
		memcpy(two, buf, len);
		two[len] = '\n';
		memcpy(two + len + 1, buf, len);
		CHECKF(gl_nccl_parse_json(two, 2 * len + 1, &r, &err) == 0, "%s", err.msg);
		CHECK(r.headers == 2 && r.nrows == 26 && r.rows[13].block == 1);
		CHECK(r.ranks_listed == 4 && r.oob_values == 0);
		CHECK(gl_nccl_pitfall(&r, 2, why, sizeof(why)) == 1 && has(why, "2 nccl-tests runs"));
		gl_nccl_result_free(&r);
		/* cut short: the writer never closed the object */
		CHECK(parse_json_n(buf, len - 40, &r, &err) == -GL_EINVAL);
		CHECKF(has(err.msg, "line 1: JSON syntax error") && has(err.msg, "ends early"), "%s", err.msg);
		gl_nccl_result_free(&r);
		free(two);
	}
	free(buf);
}

static void test_json_shapes(void)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };
	char why[256];

	/* A non-MPI process's own report: one device, in-place only row with
	 * cpu_time, validation off (nwrong null), a bare inf from "%lf", nan
	 * strings, and an error string from NCCL. */
	CHECKF(parse_str("{\"version\":1,\"args\":[\"./build/sendrecv_perf\"],\"nccl_version\":22105,"
			 "\"config\":{\"nthreads\":1,\"ngpus\":1,\"validation\":0,\"devices\":"
			 "[{\"rank\":0,\"hostname\":\"n1\"}]},\"results\":[{\"size\":1024,\"count\":256,"
			 "\"type\":\"float\",\"redop\":\"none\",\"root\":\"     3\",\"out_of_place\":null,"
			 "\"in_place\":{\"cpu_time\":12.5,\"alg_bw\":inf,\"bus_bw\":\"nan\",\"nwrong\":null}}],"
			 "\"errors\":[\"NET/IB : Got completion with error\"]}",
			 &r, &err) == 0,
	       "%s", err.msg);
	CHECK(strcmp(r.collective, "sendrecv_perf") == 0 && r.nccl_version == 22105);
	CHECK(r.nrows == 1 && r.rows[0].root == 3 && r.rows[0].size == 1024);
	CHECK(r.rows[0].time_us[0] == -1 && NEAR(r.rows[0].time_us[1], 12.5));
	CHECK(r.rows[0].algbw[1] == -1 && r.rows[0].busbw[1] == -1 && r.rows[0].wrong[1] == -1);
	CHECK(r.validation == 0 && r.failures == 1 && has(r.failure, "Got completion"));
	CHECK(gl_nccl_pitfall(&r, 2, why, sizeof(why)) == 1 && has(why, "lists 1 rank but 2"));
	CHECK(gl_nccl_busbw_at(&r, 1024) == -1);
	gl_nccl_result_free(&r);

	/* an array of runs, nwrong counts summed */
	CHECKF(parse_str("[{\"results\":[{\"size\":8,\"in_place\":{\"time\":1,\"alg_bw\":2,"
			 "\"bus_bw\":3,\"nwrong\":5.000000}}]},{\"results\":[{\"size\":8,\"out_of_place\":"
			 "{\"time\":1,\"alg_bw\":2,\"bus_bw\":1.5,\"nwrong\":7}}]}]",
			 &r, &err) == 0,
	       "%s", err.msg);
	CHECK(r.headers == 2 && r.nrows == 2 && r.wrong_total == 12);
	CHECK(NEAR(gl_nccl_busbw_at(&r, 8), 1.5));
	gl_nccl_result_free(&r);

	/* errors name the field */
	CHECK(parse_str("{\"results\":[{\"size\":8,\"in_place\":{}},{\"size\":\"big\"}]}", &r, &err) == -GL_EINVAL);
	CHECKF(has(err.msg, "run 1: results[1].size: expected a byte count"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str("{\"results\":[{\"size\":8}]}", &r, &err) == -GL_EINVAL);
	CHECKF(has(err.msg, "results[0]: neither out_of_place nor in_place"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str("{\"results\":[{\"size\":8,\"in_place\":{\"bus_bw\":-3}}]}", &r, &err) < 0);
	CHECKF(has(err.msg, "results[0].in_place.bus_bw"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str("{\"results\":[{\"size\":8,\"in_place\":{\"nwrong\":1.5}}]}", &r, &err) < 0);
	CHECKF(has(err.msg, "nwrong: expected a whole number"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str("{\"config\":{\"devices\":[1]}}", &r, &err) < 0);
	CHECKF(has(err.msg, "config.devices[0]"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str("{\"results\":{}}", &r, &err) < 0 && has(err.msg, "results: expected an array"));
	gl_nccl_result_free(&r);
	CHECK(parse_str("{\"model\":\"llama\"}", &r, &err) < 0);
	CHECKF(has(err.msg, "not an nccl-tests JSON report"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str("{\n\"results\": [\n  {\"size\": 8,,}\n]}", &r, &err) < 0);
	CHECKF(has(err.msg, "line 3: JSON syntax error"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_json_n("  \n ", 4, &r, &err) < 0 && has(err.msg, "empty"));
	gl_nccl_result_free(&r);
	CHECK(parse_str("[]", &r, &err) < 0 && has(err.msg, "no run"));
	gl_nccl_result_free(&r);
	CHECK(parse_str("{\"results\":[]} xyz", &r, &err) < 0);
	CHECKF(has(err.msg, "JSON syntax error near 'xyz'"), "%s", err.msg);
	gl_nccl_result_free(&r);
}

static void test_old_broadcast(void)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };
	const struct gl_nccl_row *w;
	size_t len;
	char *buf = load("broadcast_old.txt", &len);

	CHECKF(gl_nccl_parse_text(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.ranks_listed == 8 && r.max_rank == 7 && r.ngpus == 8 && r.validation == 1);
	CHECK(r.nrows == 9);
	w = row_of(&r, 2097152);
	CHECK(w && w->root == 0 && w->redop[0] == '\0' && strcmp(w->type, "float") == 0);
	CHECK(w && w->wrong[0] == -1 && w->err_delta[0] == 0 && NEAR(w->err_delta[1], 2e-7));
	CHECK(w && NEAR(w->busbw[1], 31.64));
	CHECK(NEAR(r.max_err_delta, 2e-7) && r.wrong_total == 0);
	CHECK(NEAR(gl_nccl_busbw_at(&r, 134217728), 40.47));
	gl_nccl_result_free(&r);
	free(buf);
}

static void test_glued_failure(void)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };
	const struct gl_nccl_row *w;
	size_t len;
	char *buf = load("allreduce_glued_fail.txt", &len);

	CHECKF(gl_nccl_parse_text(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.headers == 1 && r.ranks_listed == 2);
	CHECKF(r.nrows == 7, "%d", r.nrows);
	/* the preamble, three log lines, then the rest of the row */
	w = row_of(&r, 2097152);
	CHECK(w && w->root == -1 && w->line == 15);
	CHECK(w && NEAR(w->busbw[0], 30.13) && NEAR(w->busbw[1], 29.94) && w->wrong[1] == 0);
	/* log text after the out-of-place half's "0" */
	w = row_of(&r, 16777216);
	CHECK(w && w->wrong[0] == 0 && NEAR(w->time_us[1], 376.80) && NEAR(w->busbw[1], 44.53));
	/* the last row never finished: the network failed */
	CHECK(row_of(&r, 134217728) == NULL && r.rows_incomplete == 1);
	CHECKF(r.failures == 3, "%d", r.failures);
	CHECKF(strncmp(r.failure, "gpu-a12: Test NCCL failure common.cu:401 'remote process", 56) == 0, "%s",
	       r.failure);
	CHECKF(r.nccl_lines == 8, "%d", r.nccl_lines);
	CHECK(!r.have_oob && !r.have_avg);
	gl_nccl_result_free(&r);
	free(buf);
}

#define HDR                                                                                     \
	"# nThread 1 nGpus 1 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 " \
	"agg iters: 1 validation: 1 graph: 0\n#  Rank  0 Group  0 Pid 1 on n1 device  0 [0x18] GPU\n"
#define COLS                                                                                    \
	"#       size         count      type   redop    root     time   algbw   busbw  #wrong" \
	"     time   algbw   busbw  #wrong \n"
#define ROW8                                                                                    \
	"           8             2     float     sum      -1    24.03    0.00    0.00       0" \
	"    23.88    0.00    0.00       0\n"

static void test_layouts(void)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };

	/* -S 1: a two-word timestamp after the in-place half */
	CHECKF(parse_str(HDR "#       size         count      type   redop    root     time   algbw   busbw  #wrong"
			     "     time   algbw   busbw  #wrong           timestamp\n"
			     "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)          "
			     "   (us)  (GB/s)  (GB/s)         %Y-%m-%d %H:%M:%S\n"
			     "          64            16     float     sum      -1    24.03    0.00    0.01       2"
			     "    23.88    0.00    0.02       0  2026-03-02 14:07:31\n",
			 &r, &err) == 0,
	       "%s", err.msg);
	CHECK(r.nrows == 1 && r.rows[0].wrong[0] == 2 && NEAR(r.rows[0].busbw[1], 0.02));
	CHECK(r.wrong_total == 2 && NEAR(gl_nccl_busbw_at(&r, 64), 0.01));
	gl_nccl_result_free(&r);

	/* per-iteration report columns, "cputime" */
	CHECKF(parse_str(HDR "# size count type redop root cputime algbw busbw #wrong i_min i_max i_p99"
			     " i_cv% cputime algbw busbw #wrong i_min i_max i_p99 i_cv%\n"
			     "  32  8  float  sum  -1  5.1  0.01  0.01  0  4.90  6.20  6.10  3.20"
			     "  5.2  0.02  0.03  0  4.80  6.00  5.90  2.80\n",
			 &r, &err) == 0,
	       "%s", err.msg);
	CHECK(r.nrows == 1 && NEAR(r.rows[0].time_us[1], 5.2) && NEAR(r.rows[0].busbw[1], 0.03));
	gl_nccl_result_free(&r);

	/* rccl-tests: unknown trailing columns are skipped */
	CHECKF(parse_str(HDR "#       size         count      type   redop    root     time   algbw   busbw #wrong"
			     "     time   algbw   busbw #wrong     algo     proto   nchannels\n"
			     "     1048576        262144     float     sum      -1    76.26   13.75   25.78      0"
			     "    76.43   13.72   25.72      0  Direct    SIMPLE          32\n",
			 &r, &err) == 0,
	       "%s", err.msg);
	CHECK(r.nrows == 1 && NEAR(gl_nccl_busbw_at(&r, 1048576), 25.72));
	gl_nccl_result_free(&r);

	/* trace replay: the out-of-place half left blank (32 spaces) */
	CHECKF(parse_str(HDR COLS "        1024           256     float     sum      -1                                "
				  "    23.88    0.04    0.04       3\n",
			 &r, &err) == 0,
	       "%s", err.msg);
	CHECK(r.nrows == 1 && r.rows[0].time_us[0] == -1 && r.rows[0].busbw[0] == -1);
	CHECK(NEAR(r.rows[0].time_us[1], 23.88) && r.rows[0].wrong[1] == 3 && r.wrong_total == 3);
	gl_nccl_result_free(&r);

	/* Open MPI --tag-output, and a last row cut short by the end of the output */
	CHECKF(parse_str("[1,0]<stdout>:" HDR "[1,0]<stdout>:" COLS "[1,0]<stdout>:" ROW8
			 "[1,0]<stdout>:          16             4     float     sum      -1    24.03",
			 &r, &err) == 0,
	       "%s", err.msg);
	CHECK(r.nrows == 1 && r.rows_incomplete == 1 && r.headers == 1);
	gl_nccl_result_free(&r);

	/* a row glued to a log line whose hostname begins with digits: the
	 * header's label ends say where "-1" stops */
	CHECKF(parse_str(HDR COLS "          16             4     float     sum      -1"
				  "10-0-3-7:77:78 [0] NCCL INFO Channel 01/1 : 0[0] -> 1[0] via P2P/IPC\n"
				  "    24.03    0.00    0.00       0    23.88    0.00    0.00       0\n",
			 &r, &err) == 0,
	       "%s", err.msg);
	CHECK(r.nrows == 1 && r.rows[0].size == 16 && r.rows[0].root == -1 && r.nccl_lines == 1);
	gl_nccl_result_free(&r);

	/* a byte order mark, and NCCL's last error printed by newer nccl-tests */
	CHECKF(parse_str("\xef\xbb\xbf" HDR COLS ROW8 "# Out of bounds values : 0 OK\n"
			 "# error: NET/IB : Got async event : port error\n",
			 &r, &err) == 0,
	       "%s", err.msg);
	CHECK(r.headers == 1 && r.nrows == 1 && r.lines_skipped == 0);
	CHECK(r.failures == 1 && strcmp(r.failure, "NET/IB : Got async event : port error") == 0);
	gl_nccl_result_free(&r);

	/* NUL bytes (a file hole after a crash) are blanks, not the end */
	{
		static const char with_nul[] = HDR COLS ROW8 "\0\0\0\0\n" ROW8;
		CHECKF(gl_nccl_parse_text(with_nul, sizeof(with_nul) - 1, &r, &err) == 0, "%s", err.msg);
		CHECK(r.nrows == 2);
		gl_nccl_result_free(&r);
	}
}

static void test_errors(void)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };

	CHECK(parse_str("hello\nworld\n", &r, &err) == -GL_EINVAL);
	CHECKF(has(err.msg, "no nccl-tests header or table in 2 lines"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_text_n(NULL, 0, &r, &err) == -GL_EINVAL);
	gl_nccl_result_free(&r);
	CHECK(parse_str("node1: Test CUDA failure common.cu:893 'out of memory'\n", &r, &err) < 0);
	CHECKF(has(err.msg, "first failure: node1: Test CUDA failure"), "%s", err.msg);
	CHECK(r.failures == 1);
	gl_nccl_result_free(&r);

	/* short row, and the table goes on */
	CHECK(parse_str(HDR COLS ROW8 "          16             4     float     sum\n" ROW8, &r, &err) == -GL_EINVAL);
	CHECKF(strcmp(err.msg, "line 5: expected 13 columns in a table row, got 4") == 0, "%s", err.msg);
	CHECK(r.nrows == 1); /* what came before is kept */
	gl_nccl_result_free(&r);
	CHECK(parse_str(HDR COLS "           8             2     float     sum      -1    24.03    0.00"
				 "    0.00       0    23.88    0.00    0.00       0     7\n",
			&r, &err) < 0);
	CHECKF(strcmp(err.msg, "line 4: expected 13 columns in a table row, got 14") == 0, "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str(ROW8, &r, &err) < 0);
	CHECKF(strcmp(err.msg, "line 1: table row before the table header") == 0, "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str(HDR COLS "           8             2     float     sum      -1    24.03    fast"
				 "    0.00       0    23.88    0.00    0.00       0\n",
			&r, &err) < 0);
	CHECKF(has(err.msg, "line 4: column 7: 'fast' is not a valid number"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str(HDR COLS "           8             2     float     sum      -1    24.03    0.00"
				 "    0.00      -4    23.88    0.00    0.00       0\n",
			&r, &err) < 0);
	CHECKF(has(err.msg, "'-4' is not a valid #wrong count"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str(HDR "#  size  count  type  algbw  busbw\n", &r, &err) < 0);
	CHECKF(has(err.msg, "line 3: column 'algbw' before any time column"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str(HDR "#  size  count  type  time  algbw\n", &r, &err) < 0);
	CHECKF(has(err.msg, "line 3: table header without size, count and busbw"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str(HDR "#  size count time busbw time busbw time busbw\n", &r, &err) < 0);
	CHECKF(has(err.msg, "more than two time columns"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str(HDR COLS "           8  123456789012345678901234567890123456789012  float  sum"
				 "  -1  1  1  1  0  1  1  1  0\n",
			&r, &err) < 0);
	CHECKF(has(err.msg, "line 4: a cell of the table row is longer than 39 bytes"), "%s", err.msg);
	gl_nccl_result_free(&r);
	CHECK(parse_str(HDR COLS "  99999999999999999999999  2  float  sum  -1  1  1  1  0  1  1  1  0\n", &r, &err) <
	      0);
	CHECKF(has(err.msg, "column 1: '99999999999999999999999' is not a valid byte count"), "%s", err.msg);
	gl_nccl_result_free(&r);
}

static void test_caps(void)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };
	struct gl_buf b;
	char *big;

	/* a line over GL_NCCL_MAX_LINE */
	gl_buf_init(&b, 2 * GL_NCCL_MAX_LINE);
	gl_buf_append(&b, HDR, strlen(HDR));
	for (unsigned i = 0; i <= GL_NCCL_MAX_LINE; i++)
		gl_buf_append(&b, "x", 1);
	gl_buf_append(&b, "\n", 1);
	CHECK(parse_text_n(b.data, b.len, &r, &err) == -GL_ELIMIT);
	CHECKF(strcmp(err.msg, "line 3: longer than 65536 bytes") == 0, "%s", err.msg);
	gl_nccl_result_free(&r);
	gl_buf_free(&b);

	/* more rows than GL_NCCL_MAX_ROWS (-N run cycles) */
	gl_buf_init(&b, GL_NCCL_MAX_INPUT);
	gl_buf_append(&b, HDR COLS, strlen(HDR COLS));
	for (int i = 0; i <= GL_NCCL_MAX_ROWS; i++)
		gl_buf_append(&b, ROW8, strlen(ROW8));
	CHECK(parse_text_n(b.data, b.len, &r, &err) == -GL_ELIMIT);
	CHECKF(strcmp(err.msg, "line 65540: more than 65536 table rows") == 0, "%s", err.msg);
	CHECK(r.nrows == GL_NCCL_MAX_ROWS && NEAR(gl_nccl_busbw_at(&r, 8), 0));
	gl_nccl_result_free(&r);
	gl_buf_free(&b);

	/* a header of more than GL_NCCL_MAX_COLS columns */
	gl_buf_init(&b, 1 << 16);
	gl_buf_append(&b, "# size count type time busbw", 28);
	for (int i = 0; i < GL_NCCL_MAX_COLS; i++)
		gl_buf_append(&b, " algo", 5);
	gl_buf_append(&b, "\n", 1);
	CHECK(parse_text_n(b.data, b.len, &r, &err) == -GL_ELIMIT);
	CHECKF(has(err.msg, "line 1: more than 64 columns"), "%s", err.msg);
	gl_nccl_result_free(&r);
	gl_buf_free(&b);

	/* the whole input */
	big = calloc(1, (size_t)GL_NCCL_MAX_INPUT + 1);
	CHECK(big != NULL);
	if (big) {
		CHECK(parse_text_n(big, (size_t)GL_NCCL_MAX_INPUT + 1, &r, &err) == -GL_ELIMIT);
		CHECKF(has(err.msg, "more than the 16777216-byte limit"), "%s", err.msg);
		gl_nccl_result_free(&r);
		CHECK(parse_json_n(big, (size_t)GL_NCCL_MAX_INPUT + 1, &r, &err) == -GL_ELIMIT);
		gl_nccl_result_free(&r);
		free(big);
	}
	CHECK(gl_nccl_busbw_at(NULL, 8) == -1);
}

int main(void)
{
	const char *s = getenv("GL_SOURCE_DIR");

#ifdef GL_NCCL_TEST_SRC
	if (!s || !*s)
		s = GL_NCCL_TEST_SRC; /* run by hand, outside ctest */
#endif
	snprintf(src_dir, sizeof(src_dir), "%s", s && *s ? s : ".");
	test_clean_2node();
	test_wrong();
	test_nocheck();
	test_pitfall();
	test_json();
	test_json_shapes();
	test_old_broadcast();
	test_glued_failure();
	test_layouts();
	test_errors();
	test_caps();
	return check_done();
}
