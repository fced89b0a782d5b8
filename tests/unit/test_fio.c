/*
 * test_fio.c - the fio JSON report parser of loadgen/fio.c. First the
 * captured outputs in tests/fio/ (fio 3.33, trimmed; see the README there)
 * and every error path with its message, caps included, all in memory. Then
 * real fio, found on PATH, run on small files in its own mkdtemp directory
 * under /tmp with stdout captured through popen and stderr sent to a file:
 * a sequential write, a random read, several jobs with and without
 * group_reporting, randrw, trim (falloc engine), json+ with a percentile
 * list, json,normal, a --status-interval=1 run of 3 s read through the
 * stream API in odd-sized pieces, warnings on stderr and a note on stdout,
 * and a verify-only run over a file of zeros with continue_on_error=all,
 * which makes fio report real errors (EILSEQ, total_err = one per block).
 * Without fio the in-memory part still runs and the test then skips.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fio.h"
#include "util.h"

#define MIB (1024u * 1024u)

static char src_dir[2048];
static char tmp_dir[] = "/tmp/gl_fio.XXXXXX";
static char fio_path[4096];

static int has(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

/* A part of the test that the machine cannot run (a named, missing
 * prerequisite): said on stdout, and a failure under GL_STRICT=1 (CI). */
static void part_skip(const char *why)
{
	if (check_strict())
		CHECKF(0, "GL_STRICT=1: a skipped part is a failure: %s", why);
	else
		printf("SKIP (part): %s\n", why);
}

static char *load(const char *name, size_t *len)
{
	char path[4096];
	struct gl_err err = { 0 };
	char *buf = NULL;

	snprintf(path, sizeof(path), "%s/tests/fio/%s", src_dir, name);
	if (gl_read_file(path, GL_FIO_MAX_INPUT, &buf, len, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	return buf;
}

static int parse_n(const char *s, size_t n, struct gl_fio_report *r, struct gl_err *err)
{
	gl_err_clear(err);
	return gl_fio_parse(s, n, r, err);
}

static int parse_str(const char *s, struct gl_fio_report *r, struct gl_err *err)
{
	return parse_n(s, strlen(s), r, err);
}

/* Parse must fail with code and a message holding needle. */
static void expect_fail(const char *what, const char *s, size_t n, int code, const char *needle)
{
	struct gl_fio_report r;
	struct gl_err err = { 0 };
	int rc = parse_n(s, n, &r, &err);

	CHECKF(rc == -code && has(err.msg, needle), "%s: rc %d, message \"%s\", wanted %d and \"%s\"", what, rc,
	       err.msg, -code, needle);
	CHECKF(r.jobs == NULL && r.n_jobs == 0, "%s: report not left empty", what);
	gl_fio_report_free(&r);
}

static void expect_fail_str(const char *what, const char *s, int code, const char *needle)
{
	expect_fail(what, s, strlen(s), code, needle);
}

/* Percentiles ascending, their ns non-decreasing, clat_ms consistent. */
static void check_pcts(const char *what, const struct gl_fio_dir *d, int min_n)
{
	CHECKF(d->have_clat && d->n_pct >= min_n, "%s: have_clat %d n_pct %d", what, d->have_clat, d->n_pct);
	for (int i = 0; i < d->n_pct; i++) {
		CHECKF(d->pct[i] > 0 && d->pct[i] <= 100 && d->pct_ns[i] > 0, "%s: pct[%d] %g = %g ns", what, i,
		       d->pct[i], d->pct_ns[i]);
		if (i > 0)
			CHECKF(d->pct[i] > d->pct[i - 1] && d->pct_ns[i] >= d->pct_ns[i - 1],
			       "%s: pct[%d] %g (%g ns) after %g (%g ns)", what, i, d->pct[i], d->pct_ns[i],
			       d->pct[i - 1], d->pct_ns[i - 1]);
		CHECK(gl_fio_clat_ms(d, d->pct[i]) == d->pct_ns[i] / 1e6);
	}
	CHECK(d->clat_mean_ns > 0);
}

/* ---- the stream, collected ---------------------------------------------- */

#define MAX_SEEN 64

struct seen {
	int n;
	struct {
		int n_jobs;
		char name[64];
		uint64_t read_bytes, write_bytes, total_err;
		int64_t timestamp_ms;
		int any_error;
	} r[MAX_SEEN];
};

static void on_report(void *arg, const struct gl_fio_report *r)
{
	struct seen *s = arg;

	if (s->n == MAX_SEEN)
		return;
	s->r[s->n].n_jobs = r->n_jobs;
	snprintf(s->r[s->n].name, sizeof(s->r[s->n].name), "%s", r->n_jobs ? r->jobs[0].name : "");
	s->r[s->n].read_bytes = r->read_bytes;
	s->r[s->n].write_bytes = r->write_bytes;
	s->r[s->n].total_err = r->total_err;
	s->r[s->n].timestamp_ms = r->timestamp_ms;
	s->r[s->n].any_error = r->any_error;
	s->n++;
}

/* Feed buf in pieces of `step` bytes (0: whole); returns the first error. */
static int feed(struct gl_fio_stream *st, const char *buf, size_t n, size_t step, struct seen *s, struct gl_err *err)
{
	int first = 0;

	if (step == 0)
		return gl_fio_stream_feed(st, buf, n, on_report, s, err);
	for (size_t at = 0; at < n; at += step) {
		int rc = gl_fio_stream_feed(st, buf + at, n - at < step ? n - at : step, on_report, s, err);
		if (rc < 0 && !first)
			first = rc;
	}
	return first;
}

static int same_seen(const struct seen *a, const struct seen *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->r[i].n_jobs != b->r[i].n_jobs || strcmp(a->r[i].name, b->r[i].name) ||
		    a->r[i].read_bytes != b->r[i].read_bytes || a->r[i].write_bytes != b->r[i].write_bytes ||
		    a->r[i].timestamp_ms != b->r[i].timestamp_ms)
			return 0;
	return 1;
}

/* ---- captured outputs --------------------------------------------------- */

static void test_seqwrite_fixture(void)
{
	struct gl_fio_report r;
	struct gl_err err = { 0 };
	size_t len;
	char *buf = load("seqwrite.json", &len);
	const struct gl_fio_job *j;

	CHECKF(parse_n(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(!strcmp(r.fio_version, "fio-3.33"));
	CHECK(r.timestamp_ms == 1795981889148LL);
	CHECK(r.n_jobs == 1 && r.skipped_lines == 0);
	j = &r.jobs[0];
	CHECK(!strcmp(j->name, "seqw"));
	CHECK(j->error == 0 && j->total_err == 0 && !r.any_error);
	CHECK(j->write.io_bytes == 8 * MIB && j->write.total_ios == 8);
	CHECK(j->write.bw_bytes > 0 && j->write.iops > 0);
	CHECK(j->read.io_bytes == 0 && !j->read.have_clat && j->read.n_pct == 0);
	CHECK(r.write_bytes == 8 * MIB && r.read_bytes == 0);
	CHECK(r.write_bw_bytes == (double)j->write.bw_bytes && r.write_iops == j->write.iops);
	CHECK(j->runtime_ms_write == j->write.runtime_ms);
	check_pcts("seqwrite fixture", &j->write, 17);
	CHECK(gl_fio_clat_ms(&j->write, 99.0) > 0);
	CHECK(gl_fio_clat_ms(&j->write, 99.99) >= gl_fio_clat_ms(&j->write, 50.0));
	CHECK(gl_fio_clat_ms(&j->write, 42.0) == -1);
	CHECK(gl_fio_clat_ms(&j->read, 99.0) == -1);
	CHECK(gl_fio_clat_ms(NULL, 99.0) == -1);
	CHECK(gl_fio_clat_ms(&j->write, 0) == -1 && gl_fio_clat_ms(&j->write, NAN) == -1);
	gl_fio_report_free(&r);
	gl_fio_report_free(&r); /* twice is fine */
	gl_fio_report_free(NULL);
	free(buf);
}

static void test_fixtures(void)
{
	struct gl_fio_report r;
	struct gl_err err = { 0 };
	size_t len;
	char *buf;

	/* fio could not set the io scheduler: "fio: pid=..., err=22/..." on
	 * stdout before the report, and a job with error 22 and no I/O. */
	buf = load("ioscheduler_error.txt", &len);
	CHECKF(parse_n(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.n_jobs == 1 && r.skipped_lines == 1);
	CHECK(r.jobs[0].error == EINVAL && r.any_error && r.jobs[0].total_err == 0);
	CHECK(r.write_bytes == 0 && !r.jobs[0].write.have_clat);
	gl_fio_report_free(&r);
	free(buf);

	/* verify_only over zeros, continue_on_error=all: one error per block. */
	buf = load("verify_errors.json", &len);
	CHECKF(parse_n(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.jobs[0].error == EILSEQ && r.jobs[0].first_error == EILSEQ);
	CHECK(r.jobs[0].total_err == 256 && r.total_err == 256 && r.any_error);
	CHECK(r.jobs[0].read.io_bytes == MIB && r.jobs[0].read.total_ios == 256);
	gl_fio_report_free(&r);
	free(buf);

	/* unified_rw_reporting=both: mixed is read plus write, summed apart. */
	buf = load("unified_both.json", &len);
	CHECKF(parse_n(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.jobs[0].have_mixed);
	CHECK(r.jobs[0].mixed.io_bytes == MIB && r.mixed_bytes == MIB);
	CHECK(r.read_bytes + r.write_bytes == MIB && r.read_bytes > 0 && r.write_bytes > 0);
	CHECK(r.jobs[0].mixed.have_clat && r.jobs[0].mixed.n_pct == 17);
	gl_fio_report_free(&r);
	free(buf);

	/* json+: "bins" beside the percentiles of percentile_list=50:99:99.99. */
	buf = load("jsonplus.json", &len);
	CHECKF(parse_n(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.jobs[0].read.n_pct == 3 && r.jobs[0].read.pct[0] == 50.0 && r.jobs[0].read.pct[1] == 99.0 &&
	      r.jobs[0].read.pct[2] == 99.99);
	CHECK(gl_fio_clat_ms(&r.jobs[0].read, 99.99) > 0);
	CHECK(r.read_bytes == 256 * 1024);
	gl_fio_report_free(&r);
	free(buf);

	/* Three jobs (m1 writes 2M, m2 x2 reads 3M each): sums. */
	buf = load("multijob.json", &len);
	CHECKF(parse_n(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.n_jobs == 3 && !strcmp(r.jobs[0].name, "m1") && !strcmp(r.jobs[2].name, "m2"));
	CHECK(r.write_bytes == 2 * MIB && r.read_bytes == 6 * MIB);
	CHECK(r.read_iops == r.jobs[1].read.iops + r.jobs[2].read.iops);
	gl_fio_report_free(&r);
	free(buf);

	/* A trim job and a job named we}ir{d"n\\ame (braces, an escaped quote
	 * and escaped backslashes inside strings). */
	buf = load("trim_oddname.json", &len);
	CHECKF(parse_n(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.n_jobs == 2 && r.trim_bytes == MIB && r.jobs[0].trim.have_clat);
	CHECKF(!strcmp(r.jobs[1].name, "we}ir{d\"n\\\\ame"), "name %s", r.jobs[1].name);
	CHECK(r.write_bytes == 64 * 1024);
	gl_fio_report_free(&r);
	{
		struct seen whole = { 0 }, bytes = { 0 };
		struct gl_fio_stream *a = gl_fio_stream_new(0), *b = gl_fio_stream_new(0);
		CHECK(feed(a, buf, len, 0, &whole, &err) == 0 && feed(b, buf, len, 1, &bytes, &err) == 0);
		CHECK(whole.n == 1 && same_seen(&whole, &bytes));
		gl_fio_stream_free(a);
		gl_fio_stream_free(b);
	}
	free(buf);

	/* json,normal: the normal output around the report is skipped. */
	buf = load("json_normal.txt", &len);
	CHECKF(parse_n(buf, len, &r, &err) == 0, "%s", err.msg);
	CHECKF(r.skipped_lines == 25, "skipped %d", r.skipped_lines);
	CHECK(r.write_bytes == MIB);
	gl_fio_report_free(&r);
	free(buf);
}

static void test_status_fixture(void)
{
	struct gl_fio_report r;
	struct gl_err err = { 0 };
	size_t len;
	char *buf = load("status_interval.txt", &len);
	static const size_t steps[] = { 0, 1, 2, 3, 7, 64, 1000, 4096 };
	struct seen ref = { 0 };

	/* Several reports are not one report. */
	CHECK(parse_n(buf, len, &r, &err) == -GL_EINVAL && has(err.msg, "second report") && has(err.msg, "line 96"));
	for (size_t k = 0; k < GL_ARRAY_LEN(steps); k++) {
		struct gl_fio_stream *st = gl_fio_stream_new(0);
		struct seen s = { 0 };
		gl_err_clear(&err);
		CHECKF(feed(st, buf, len, steps[k], &s, &err) == 0, "%s", err.msg);
		CHECK(gl_fio_stream_reports(st) == 4 && gl_fio_stream_bad(st) == 0);
		CHECK(gl_fio_stream_skipped(st) == 1 && gl_fio_stream_pending(st) == 0);
		if (k == 0) {
			ref = s;
			CHECK(s.n == 4);
			for (int i = 1; i < s.n; i++)
				CHECK(s.r[i].read_bytes >= s.r[i - 1].read_bytes &&
				      s.r[i].timestamp_ms >= s.r[i - 1].timestamp_ms);
			CHECK(s.r[0].read_bytes > 0 && !strcmp(s.r[0].name, "stat"));
		} else {
			CHECKF(same_seen(&ref, &s), "pieces of %zu bytes", steps[k]);
		}
		gl_fio_stream_free(st);
	}
	free(buf);
}

/* ---- malformed input ---------------------------------------------------- */

#define JOB(dir) "{\"jobs\":[{\"jobname\":\"a\",\"error\":0,\"" #dir "\":"

static void test_malformed(void)
{
	struct gl_fio_report r;
	struct gl_err err = { 0 };
	size_t len, first, cuts = 0;
	char *buf = load("seqwrite.json", &len), *p, *big;
	struct gl_buf b;

	expect_fail("empty", "", 0, GL_EINVAL, "no JSON report in 0 bytes");
	expect_fail_str("text", "hello\n\nworld\n", GL_EINVAL, "(2 non-JSON lines)");
	expect_fail_str("array", "[1,2]\n", GL_EINVAL, "no JSON report");
	expect_fail_str("not closed", "{\"jobs\":[\n", GL_EINVAL, "line 1: the report is cut short");
	expect_fail_str("in string", "x\n{\"jobs\":[\"ab", GL_EINVAL, "inside a string");
	expect_fail_str("bad syntax", "{\"jobs\":\n  [1,]\n}", GL_EINVAL, "line 2 col 6: invalid JSON");
	expect_fail_str("mismatched", "{\"jobs\":[}]", GL_EINVAL, "invalid JSON");
	expect_fail_str("nan", "{\n  \"x\" : 1,\n  \"iops\" : -nan,\n}", GL_EINVAL,
			"line 3 col 12: invalid JSON near \"-nan,");
	expect_fail_str("two", "{\"jobs\":[]}\n{\"jobs\":[]}\n", GL_EINVAL, "line 2: a second report starts here");
	expect_fail_str("back to back", "{\"jobs\":[]}{\"jobs\":[]}", GL_EINVAL, "second report");
	expect_fail_str("no jobs", "{\"fio version\":\"fio-3.33\"}", GL_EINVAL, "jobs: missing");
	expect_fail_str("jobs type", "{\"jobs\":{}}", GL_EINVAL, "jobs: expected an array");
	expect_fail_str("job type",
			"{\"jobs\":[{\"jobname\":\"a\",\"error\":0,\"read\":{\"io_bytes\":0}},"
			"7]}",
			GL_EINVAL, "jobs[1]: expected an object");
	expect_fail_str("jobname", "{\"jobs\":[{\"error\":0,\"read\":{\"io_bytes\":1}}]}", GL_EINVAL,
			"jobs[0].jobname: missing");
	expect_fail_str("jobname type", "{\"jobs\":[{\"jobname\":5,\"error\":0}]}", GL_EINVAL,
			"jobs[0].jobname: expected a string");
	expect_fail_str("error type", "{\"jobs\":[{\"jobname\":\"a\",\"error\":\"no\"}]}", GL_EINVAL,
			"jobs[0].error: expected a number");
	expect_fail_str("error range", "{\"jobs\":[{\"jobname\":\"a\",\"error\":1e10}]}", GL_EINVAL,
			"jobs[0].error: number out of range");
	expect_fail_str("no dirs", "{\"jobs\":[{\"jobname\":\"a\",\"error\":0}]}", GL_EINVAL,
			"jobs[0]: no read, write, trim or mixed section");
	expect_fail_str("dir type", JOB(write) "[]}]}", GL_EINVAL, "jobs[0].write: expected an object");
	expect_fail_str("io_bytes missing", JOB(trim) "{}}]}", GL_EINVAL, "jobs[0].trim.io_bytes: missing");
	expect_fail_str("io_bytes string", JOB(write) "{\"io_bytes\":\"8\"}}]}", GL_EINVAL,
			"jobs[0].write.io_bytes: expected a number");
	expect_fail_str("io_bytes negative", JOB(read) "{\"io_bytes\":-1}}]}", GL_EINVAL,
			"jobs[0].read.io_bytes: expected a non-negative number");
	expect_fail_str("io_bytes fraction", JOB(read) "{\"io_bytes\":1.5}}]}", GL_EINVAL,
			"jobs[0].read.io_bytes: expected an integer");
	expect_fail_str("io_bytes huge", JOB(read) "{\"io_bytes\":99999999999999999999999}}]}", GL_EINVAL,
			"jobs[0].read.io_bytes: number out of range");
	expect_fail_str("io_bytes inf", JOB(read) "{\"io_bytes\":1e400}}]}", GL_EINVAL,
			"jobs[0].read.io_bytes: number out of range");
	expect_fail_str("iops", JOB(read) "{\"io_bytes\":1,\"iops\":\"fast\"}}]}", GL_EINVAL,
			"jobs[0].read.iops: expected a number");
	expect_fail_str("clat", JOB(read) "{\"io_bytes\":1,\"clat_ns\":3}}]}", GL_EINVAL,
			"jobs[0].read.clat_ns: expected an object");
	expect_fail_str("pct type", JOB(read) "{\"io_bytes\":1,\"clat_ns\":{\"percentile\":[]}}}]}", GL_EINVAL,
			"jobs[0].read.clat_ns.percentile: expected an object");
	expect_fail_str("pct key",
			JOB(read) "{\"io_bytes\":1,\"clat_ns\":{\"percentile\":"
				  "{\"abc\":1}}}}]}",
			GL_EINVAL, "percentile: key \"abc\" is not a percentage");
	expect_fail_str("pct zero",
			JOB(read) "{\"io_bytes\":1,\"clat_ns\":{\"percentile\":"
				  "{\"0.000000\":1}}}}]}",
			GL_EINVAL, "is not a percentage");
	expect_fail_str("pct over",
			JOB(read) "{\"io_bytes\":1,\"clat_ns\":{\"percentile\":"
				  "{\"100.5\":1}}}}]}",
			GL_EINVAL, "is not a percentage");
	expect_fail_str("pct twice",
			JOB(read) "{\"io_bytes\":1,\"clat_ns\":{\"percentile\":"
				  "{\"99.000000\":1,\"99\":2}}}}]}",
			GL_EINVAL, "99 appears twice");
	expect_fail_str("pct value",
			JOB(read) "{\"io_bytes\":1,\"clat_ns\":{\"percentile\":"
				  "{\"99.000000\":-4}}}}]}",
			GL_EINVAL, "jobs[0].read.clat_ns.percentile.99.000000: expected a non-negative integer");
	expect_fail_str("fio 2", "{\"fio version\":\"fio-2.2.10\",\"jobs\":[]}", GL_EINVAL,
			"fio-2.2.10 output is not supported");
	expect_fail_str("client", "{\"client_stats\":[]}", GL_EINVAL, "client/server output");
	expect_fail_str("timestamp", "{\"timestamp_ms\":\"now\",\"jobs\":[]}", GL_EINVAL,
			"timestamp_ms: expected a number");

	/* Out-of-order percentiles come back sorted; N absent falls back. */
	CHECK(parse_str(JOB(read) "{\"io_bytes\":1,\"clat_ns\":{\"mean\":5.5,\"percentile\":"
				  "{\"99.900000\":30,\"1.0\":2,\"50\":9}}}}]}",
			&r, &err) == 0);
	CHECK(r.jobs[0].read.n_pct == 3 && r.jobs[0].read.pct[0] == 1.0 && r.jobs[0].read.pct[2] == 99.9 &&
	      r.jobs[0].read.pct_ns[2] == 30);
	CHECK(r.jobs[0].read.have_clat && gl_fio_clat_ms(&r.jobs[0].read, 99.9) == 30e-6);
	CHECK(r.timestamp_ms == 0 && r.fio_version[0] == '\0');
	gl_fio_report_free(&r);
	/* 32 percentiles fit, 33 do not. */
	gl_buf_init(&b, 1 << 20);
	for (int n = 32; n <= 33; n++) {
		b.len = 0;
		gl_buf_printf(&b, JOB(read) "{\"io_bytes\":1,\"clat_ns\":{\"N\":1,\"percentile\":{");
		for (int i = 1; i <= n; i++)
			gl_buf_printf(&b, "%s\"%d.500000\":%d", i > 1 ? "," : "", i, i);
		gl_buf_printf(&b, "}}}}]}");
		if (n == 32) {
			CHECK(parse_n(b.data, b.len, &r, &err) == 0 && r.jobs[0].read.n_pct == 32);
			gl_fio_report_free(&r);
		} else {
			expect_fail("33 pcts", b.data, b.len, GL_ELIMIT, "more than 32 percentiles");
		}
	}
	/* Nesting: 64 levels pass the splitter, 65 do not. */
	for (int depth = 64; depth <= 65; depth++) {
		b.len = 0;
		gl_buf_printf(&b, "{\"deep\":");
		for (int i = 1; i < depth; i++)
			gl_buf_append(&b, "[", 1);
		for (int i = 1; i < depth; i++)
			gl_buf_append(&b, "]", 1);
		gl_buf_printf(&b, ",\"jobs\":[]}");
		if (depth == 64) {
			CHECKF(parse_n(b.data, b.len, &r, &err) == 0 && r.n_jobs == 0, "%s", err.msg);
			gl_fio_report_free(&r);
		} else {
			expect_fail("65 deep", b.data, b.len, GL_EINVAL, "nesting deeper than 64 levels");
		}
	}
	/* 4096 jobs fit, 4097 do not. */
	for (int n = GL_FIO_MAX_JOBS; n <= GL_FIO_MAX_JOBS + 1; n++) {
		b.len = 0;
		gl_buf_printf(&b, "{\"jobs\":[");
		for (int i = 0; i < n; i++)
			gl_buf_printf(&b, "%s{\"jobname\":\"j%d\",\"error\":0,\"write\":{\"io_bytes\":2}}",
				      i ? "," : "", i);
		gl_buf_printf(&b, "]}");
		if (n == GL_FIO_MAX_JOBS) {
			CHECK(parse_n(b.data, b.len, &r, &err) == 0 && r.n_jobs == n &&
			      r.write_bytes == 2u * (unsigned)n && !strcmp(r.jobs[n - 1].name, "j4095"));
			gl_fio_report_free(&r);
		} else {
			expect_fail("4097 jobs", b.data, b.len, GL_ELIMIT, "more than 4096 jobs");
		}
	}
	gl_buf_free(&b);
	/* A long job name is cut, not overflowed, and not mid-character. */
	{
		char doc[512], name[200];
		memset(name, 'n', sizeof(name));
		memcpy(name + 62, "\xc3\xa9", 2); /* a 2-byte character across the cut */
		name[sizeof(name) - 1] = '\0';
		snprintf(doc, sizeof(doc),
			 "{\"jobs\":[{\"jobname\":\"%s\",\"error\":0,\"read\":"
			 "{\"io_bytes\":0}}]}",
			 name);
		CHECK(parse_str(doc, &r, &err) == 0 && strlen(r.jobs[0].name) == 62);
		gl_fio_report_free(&r);
	}
	/* Empty jobs, trailing text, an error buffer that is NULL. */
	CHECK(parse_str("note: x\n{\"jobs\":[]}  tail\nmore\n", &r, NULL) == 0 && r.n_jobs == 0 && r.jobs == NULL &&
	      r.skipped_lines == 3);
	gl_fio_report_free(&r);

	/* Every cut of a real report fails cleanly (past the last byte of the
	 * object only whitespace is left). */
	first = (size_t)(strchr(buf, '{') - buf);
	for (size_t n = 0; n < len; n++) {
		int rc = parse_n(buf, n, &r, &err);
		if (n > 0 && buf[n - 1] == '}' && n >= len - 2) {
			CHECK(rc == 0); /* the whole object, without its newline */
			gl_fio_report_free(&r);
			continue;
		}
		cuts++;
		if (!(rc == -GL_EINVAL && has(err.msg, n <= first ? "no JSON report" : "cut short"))) {
			CHECKF(0, "cut at %zu: rc %d %s", n, rc, err.msg);
			break;
		}
		gl_fio_report_free(&r);
	}
	CHECK(cuts >= len - 2);
	printf("truncated: %zu cuts of a %zu-byte report all failed cleanly\n", cuts, len);

	/* A wrong type inside the real report names the field. */
	p = strstr(buf, "\"io_bytes\" : 8388608");
	CHECK(p != NULL);
	if (p) {
		char *copy = malloc(len + 3);
		size_t at = (size_t)(p - buf) + strlen("\"io_bytes\" : ");
		memcpy(copy, buf, at);
		copy[at] = '"';
		memcpy(copy + at + 1, buf + at, 7);
		copy[at + 8] = '"';
		memcpy(copy + at + 9, buf + at + 7, len - at - 7);
		expect_fail("quoted io_bytes", copy, len + 2, GL_EINVAL, "jobs[0].write.io_bytes: expected a number");
		free(copy);
	}
	/* The input cap: 64 MiB + 1 of spaces. */
	big = malloc(GL_FIO_MAX_INPUT + 1u);
	CHECKF(big != NULL, "no memory for the 64 MiB cap case");
	if (big) {
		memset(big, ' ', GL_FIO_MAX_INPUT + 1u);
		expect_fail("64 MiB", big, GL_FIO_MAX_INPUT + 1u, GL_ELIMIT, "over the 67108864-byte cap");
		memcpy(big + GL_FIO_MAX_INPUT - 11, "{\"jobs\":[]}", 11);
		CHECK(parse_n(big, GL_FIO_MAX_INPUT, &r, &err) == 0 && r.n_jobs == 0);
		gl_fio_report_free(&r);
		free(big);
	}
	free(buf);
}

static void test_stream_edges(void)
{
	struct gl_err err = { 0 };
	struct gl_fio_stream *st;
	struct seen s = { 0 };
	size_t len;
	char *buf = load("seqwrite.json", &len);
	const char *small = "{\"jobs\":[{\"jobname\":\"s}{\\\"\",\"error\":0,\"read\":{\"io_bytes\":5}}]}";
	struct gl_buf b;

	/* Back to back, lines of text, blank lines. */
	gl_buf_init(&b, 1 << 20);
	gl_buf_printf(&b, "fio: warning one\n\n   \nnote: two {\n%s%s\n}junk\n%s", small, small, small);
	st = gl_fio_stream_new(0);
	CHECKF(feed(st, b.data, b.len, 0, &s, &err) == 0, "%s", err.msg);
	CHECK(s.n == 3 && gl_fio_stream_skipped(st) == 3 && !strcmp(s.r[0].name, "s}{\""));
	CHECK(s.r[2].read_bytes == 5 && gl_fio_stream_pending(st) == 0);
	gl_fio_stream_free(st);

	/* Oversized: dropped with -GL_ELIMIT, the next report still comes. */
	b.len = 0;
	gl_buf_append(&b, buf, len);
	gl_buf_printf(&b, "\n%s\n", small);
	for (size_t step = 0; step <= 5; step += 5) {
		st = gl_fio_stream_new(1024);
		memset(&s, 0, sizeof(s));
		gl_err_clear(&err);
		CHECK(feed(st, b.data, b.len, step, &s, &err) == -GL_ELIMIT &&
		      has(err.msg, "fio report at line 1: larger than the 1024-byte cap"));
		CHECK(s.n == 1 && s.r[0].read_bytes == 5 && gl_fio_stream_bad(st) == 1 &&
		      gl_fio_stream_reports(st) == 1);
		gl_fio_stream_free(st);
	}

	/* A report that does not parse, too deep, then a good one. */
	b.len = 0;
	gl_buf_printf(&b, "{\"jobs\":7}\n{\"a\":");
	for (int i = 0; i < 100; i++)
		gl_buf_append(&b, "[", 1);
	for (int i = 0; i < 100; i++)
		gl_buf_append(&b, "]", 1);
	gl_buf_printf(&b, "}\n%s", small);
	st = gl_fio_stream_new(0);
	memset(&s, 0, sizeof(s));
	gl_err_clear(&err);
	CHECK(feed(st, b.data, b.len, 0, &s, &err) == -GL_EINVAL &&
	      has(err.msg, "fio report at line 1: jobs: expected an array"));
	CHECK(s.n == 1 && gl_fio_stream_bad(st) == 2);
	gl_err_clear(&err);
	CHECK(feed(st, "{\"a\":", 5, 0, &s, &err) == 0 && gl_fio_stream_pending(st) == 5);
	CHECK(feed(st, "1}", 2, 0, &s, &err) == -GL_EINVAL && has(err.msg, "line 3: jobs: missing"));
	CHECK(gl_fio_stream_pending(st) == 0 && gl_fio_stream_bad(st) == 3);
	CHECK(gl_fio_stream_feed(st, NULL, 0, NULL, NULL, NULL) == 0);
	CHECK(gl_fio_stream_feed(NULL, "x", 1, NULL, NULL, NULL) == -GL_EINVAL);
	gl_fio_stream_free(st);
	gl_fio_stream_free(NULL);
	gl_buf_free(&b);
	free(buf);
}

/* ---- real fio ----------------------------------------------------------- */

static int find_fio(void)
{
	const char *path = getenv("PATH");
	char dir[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");
		snprintf(dir, sizeof(dir), "%.*s", (int)n, path);
		snprintf(fio_path, sizeof(fio_path), "%s/fio", n ? dir : ".");
		if (access(fio_path, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

/* Non-blank lines before the first line that starts with '{'. */
static int lines_before_report(const char *s, size_t n)
{
	int lines = 0;

	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && (s[e] == ' ' || s[e] == '\t'))
			e++;
		if (e < n && s[e] == '{')
			break;
		if (e < n && s[e] != '\n')
			lines++;
		while (e < n && s[e] != '\n')
			e++;
		i = e + 1;
	}
	return lines;
}

/* Run fio with args in tmp_dir: stdout into out, stderr into err_text (a
 * file in tmp_dir, read back). When st is set, stdout also goes through the
 * stream in pieces of odd sizes as it arrives. Returns fio's exit status. */
static int run_fio(const char *args, struct gl_buf *out, char *err_text, size_t err_n, struct gl_fio_stream *st,
		   struct seen *seen, int *stream_rc)
{
	static const size_t pieces[] = { 1, 7, 100, 333, 4096 };
	char cmd[8192], path[4200], chunk[4096];
	struct gl_err err = { 0 };
	FILE *p, *f;
	size_t n, k = 0;
	int status;

	out->len = 0;
	snprintf(path, sizeof(path), "%s/stderr.txt", tmp_dir);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' %s 2>'%s'", tmp_dir, fio_path, args, path);
	p = popen(cmd, "r");
	if (!p) {
		fprintf(stderr, "popen: %s\n", strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, pieces[k++ % GL_ARRAY_LEN(pieces)], p)) > 0) {
		if (gl_buf_append(out, chunk, n) < 0)
			break;
		if (st) {
			int rc = gl_fio_stream_feed(st, chunk, n, on_report, seen, &err);
			if (rc < 0 && !*stream_rc) {
				*stream_rc = rc;
				fprintf(stderr, "stream: %s\n", err.msg);
			}
		}
	}
	status = pclose(p);
	err_text[0] = '\0';
	if ((f = fopen(path, "r"))) {
		n = fread(err_text, 1, err_n - 1, f);
		err_text[n] = '\0';
		fclose(f);
	}
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Run fio and parse its stdout as one report; 0 or -1 (and a CHECK fails). */
static int run_parse(const char *what, const char *args, struct gl_fio_report *r, char *err_text, size_t err_n)
{
	struct gl_buf out;
	struct gl_err err = { 0 };
	int rc, st;

	gl_buf_init(&out, GL_FIO_MAX_INPUT);
	st = run_fio(args, &out, err_text, err_n, NULL, NULL, NULL);
	rc = parse_n(out.data, out.len, r, &err);
	CHECKF(rc == 0, "%s: fio exit %d, %zu bytes on stdout, parse: %s; stderr: %.300s", what, st, out.len, err.msg,
	       err_text);
	gl_buf_free(&out);
	return rc == 0 ? 0 : -1;
}

static void make_file(const char *name, size_t bytes)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp_dir, name);
	f = fopen(path, "w");
	if (!f || (bytes && ftruncate(fileno(f), (off_t)bytes) != 0))
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
	if (f)
		fclose(f);
}

static void test_fio_seq_rand(void)
{
	struct gl_fio_report r;
	char e[4096], args[1024];
	const struct gl_fio_job *j;
	int64_t now_ms = gl_wall_ns() / 1000000;

	/* 8 MiB written with bs=1M; the rate cap keeps the runtime measurable. */
	if (run_parse("seqwrite",
		      "--name=seqw --directory=. --rw=write --bs=1M --size=8M "
		      "--ioengine=sync --rate_iops=100 --output-format=json",
		      &r, e, sizeof(e)) == 0) {
		j = &r.jobs[0];
		CHECK(r.n_jobs == 1 && !strcmp(j->name, "seqw") && !strncmp(r.fio_version, "fio-", 4));
		CHECKF(llabs(r.timestamp_ms - now_ms) < 3600 * 1000, "timestamp_ms %lld now %lld",
		       (long long)r.timestamp_ms, (long long)now_ms);
		CHECKF(j->write.io_bytes == 8 * MIB, "write io_bytes %llu", (unsigned long long)j->write.io_bytes);
		CHECK(j->write.total_ios == 8 && r.write_bytes == 8 * MIB);
		CHECK(j->write.bw_bytes > 0 && j->write.iops > 0 && j->runtime_ms_write > 0);
		CHECK(j->read.io_bytes == 0 && r.read_bytes == 0 && !j->read.have_clat);
		CHECK(j->error == 0 && j->total_err == 0 && r.total_err == 0 && !r.any_error);
		CHECK(r.skipped_lines == 0 && e[0] == '\0');
		check_pcts("seqwrite", &j->write, 10);
		CHECK(gl_fio_clat_ms(&j->write, 99.0) > 0 && gl_fio_clat_ms(&j->read, 99.0) == -1);
		printf("seqwrite: %llu bytes, %.0f iops, %llu B/s, p99 clat %.3f ms, %d percentiles\n",
		       (unsigned long long)j->write.io_bytes, j->write.iops, (unsigned long long)j->write.bw_bytes,
		       gl_fio_clat_ms(&j->write, 99.0), j->write.n_pct);
		gl_fio_report_free(&r);
	}
	/* The same file read back at random, 4 KiB at a time. */
	snprintf(args, sizeof(args),
		 "--name=randr --filename=seqw.0.0 --rw=randread --bs=4k "
		 "--size=8M --ioengine=sync --rate_iops=20000 --output-format=json");
	if (run_parse("randread", args, &r, e, sizeof(e)) == 0) {
		j = &r.jobs[0];
		CHECK(r.n_jobs == 1 && !strcmp(j->name, "randr"));
		CHECKF(j->read.io_bytes == 8 * MIB && j->read.total_ios == 2048, "read %llu in %llu",
		       (unsigned long long)j->read.io_bytes, (unsigned long long)j->read.total_ios);
		CHECK(r.read_bytes == 8 * MIB && r.write_bytes == 0 && j->write.io_bytes == 0);
		CHECK(j->read.bw_bytes > 0 && j->read.iops > 0 && j->runtime_ms_read > 0);
		CHECK(j->error == 0 && j->total_err == 0 && !r.any_error);
		check_pcts("randread", &j->read, 10);
		printf("randread: %llu bytes, %.0f iops, p50 %.3f ms p99 %.3f ms\n",
		       (unsigned long long)j->read.io_bytes, j->read.iops, gl_fio_clat_ms(&j->read, 50.0),
		       gl_fio_clat_ms(&j->read, 99.0));
		gl_fio_report_free(&r);
	}
}

static void test_fio_multi(void)
{
	struct gl_fio_report r;
	char e[4096];
	double bw = 0, iops = 0;
	uint64_t rb = 0;

	if (run_parse("multi",
		      "--directory=. --ioengine=sync --output-format=json --name=m1 "
		      "--rw=write --bs=64k --size=2M --name=m2 --rw=read --bs=64k --size=3M "
		      "--numjobs=2",
		      &r, e, sizeof(e)) == 0) {
		CHECK(r.n_jobs == 3);
		CHECK(r.n_jobs == 3 && !strcmp(r.jobs[0].name, "m1") && !strcmp(r.jobs[1].name, "m2") &&
		      !strcmp(r.jobs[2].name, "m2"));
		for (int i = 0; i < r.n_jobs; i++) {
			rb += r.jobs[i].read.io_bytes;
			bw += (double)r.jobs[i].read.bw_bytes;
			iops += r.jobs[i].read.iops;
		}
		CHECK(r.write_bytes == 2 * MIB && r.read_bytes == 6 * MIB && rb == r.read_bytes);
		CHECK(r.read_bw_bytes == bw && r.read_iops == iops && !r.any_error);
		printf("multi: %d jobs, read %llu write %llu bytes\n", r.n_jobs, (unsigned long long)r.read_bytes,
		       (unsigned long long)r.write_bytes);
		gl_fio_report_free(&r);
	}
	if (run_parse("group_reporting",
		      "--name=grp --directory=. --rw=write --bs=64k --size=1M "
		      "--numjobs=3 --ioengine=sync --group_reporting --output-format=json",
		      &r, e, sizeof(e)) == 0) {
		CHECK(r.n_jobs == 1 && !strcmp(r.jobs[0].name, "grp"));
		CHECK(r.jobs[0].write.io_bytes == 3 * MIB && r.write_bytes == 3 * MIB);
		CHECK(r.jobs[0].write.total_ios == 48);
		gl_fio_report_free(&r);
	}
	if (run_parse("randrw",
		      "--name=rw --filename=seqw.0.0 --rw=randrw --bs=4k --size=2M "
		      "--ioengine=sync --output-format=json",
		      &r, e, sizeof(e)) == 0) {
		CHECK(r.read_bytes + r.write_bytes == 2 * MIB && r.read_bytes > 0 && r.write_bytes > 0);
		CHECK(r.jobs[0].read.total_ios + r.jobs[0].write.total_ios == 512);
		check_pcts("randrw read", &r.jobs[0].read, 10);
		check_pcts("randrw write", &r.jobs[0].write, 10);
		gl_fio_report_free(&r);
	}
	make_file("trimme", MIB);
	if (run_parse("trim",
		      "--name=tr --filename=trimme --rw=randtrim --bs=64k --size=1M "
		      "--ioengine=falloc --output-format=json",
		      &r, e, sizeof(e)) == 0) {
		if (r.n_jobs == 1 && r.jobs[0].error == EOPNOTSUPP) {
			part_skip("trim: the file system of /tmp cannot punch holes (fio's falloc trim got "
				  "EOPNOTSUPP); trim not checked");
		} else {
			CHECKF(r.jobs[0].error == 0, "trim error %d", r.jobs[0].error);
			CHECK(r.jobs[0].trim.io_bytes == MIB && r.trim_bytes == MIB && r.jobs[0].trim.total_ios == 16 &&
			      r.trim_iops > 0);
			CHECK(r.read_bytes == 0 && r.write_bytes == 0);
		}
		gl_fio_report_free(&r);
	}
	if (run_parse("json+",
		      "--name=plus --filename=seqw.0.0 --rw=randread --bs=4k --size=1M "
		      "--ioengine=sync --percentile_list=50:99:99.99 --output-format=json+",
		      &r, e, sizeof(e)) == 0) {
		const struct gl_fio_dir *d = &r.jobs[0].read;
		CHECK(d->n_pct == 3 && d->pct[0] == 50.0 && d->pct[1] == 99.0 && d->pct[2] == 99.99);
		CHECK(gl_fio_clat_ms(d, 99.99) >= gl_fio_clat_ms(d, 50.0) && gl_fio_clat_ms(d, 50.0) > 0 &&
		      gl_fio_clat_ms(d, 90.0) == -1);
		CHECK(d->io_bytes == MIB);
		gl_fio_report_free(&r);
	}
}

static void test_fio_stream(void)
{
	struct gl_fio_stream *st = gl_fio_stream_new(0);
	struct gl_fio_report r;
	struct gl_err err = { 0 };
	struct gl_buf out;
	struct seen s = { 0 };
	char e[4096];
	int rc = 0, status;

	gl_buf_init(&out, GL_FIO_MAX_INPUT);
	status = run_fio("--name=stat --filename=seqw.0.0 --rw=randread --bs=4k --size=8M "
			 "--ioengine=sync --time_based --runtime=3 --rate_iops=500 "
			 "--status-interval=1 --output-format=json",
			 &out, e, sizeof(e), st, &s, &rc);
	CHECKF(status == 0 && rc == 0, "fio exit %d, stream %d, stderr %.300s", status, rc, e);
	CHECKF(s.n >= 2 && s.n == gl_fio_stream_reports(st), "%d reports", s.n);
	CHECK(gl_fio_stream_bad(st) == 0 && gl_fio_stream_pending(st) == 0);
	CHECK(gl_fio_stream_skipped(st) == 0);
	for (int i = 0; i < s.n; i++) {
		CHECK(s.r[i].n_jobs == 1 && !strcmp(s.r[i].name, "stat") && !s.r[i].any_error);
		if (i > 0)
			CHECKF(s.r[i].read_bytes >= s.r[i - 1].read_bytes &&
				       s.r[i].timestamp_ms >= s.r[i - 1].timestamp_ms,
			       "report %d: %llu bytes at %lld after %llu at %lld", i,
			       (unsigned long long)s.r[i].read_bytes, (long long)s.r[i].timestamp_ms,
			       (unsigned long long)s.r[i - 1].read_bytes, (long long)s.r[i - 1].timestamp_ms);
	}
	CHECK(s.n > 0 && s.r[s.n - 1].read_bytes > s.r[0].read_bytes);
	printf("status-interval: %d reports, read bytes", s.n);
	for (int i = 0; i < s.n; i++)
		printf(" %llu", (unsigned long long)s.r[i].read_bytes);
	printf("\n");
	/* The whole stdout is several reports, which gl_fio_parse refuses. */
	CHECK(parse_n(out.data, out.len, &r, &err) == -GL_EINVAL && has(err.msg, "second report"));
	gl_fio_stream_free(st);
	gl_buf_free(&out);
}

static void test_fio_noise(void)
{
	struct gl_fio_stream *st = gl_fio_stream_new(0);
	struct gl_fio_report r;
	struct gl_err err = { 0 };
	struct gl_buf out;
	struct seen s = { 0 };
	char e[65536];
	int rc = 0, lines, status;

	/* time_based without a runtime: a warning on stderr; iodepth with a
	 * sync engine: a note on stdout before the report. */
	gl_buf_init(&out, GL_FIO_MAX_INPUT);
	status = run_fio("--name=warn --directory=. --rw=write --bs=64k --size=1M --ioengine=sync "
			 "--time_based --iodepth=4 --output-format=json",
			 &out, e, sizeof(e), st, &s, &rc);
	CHECKF(status == 0 && rc == 0, "fio exit %d, stream %d", status, rc);
	CHECKF(has(e, "time_based"), "fio printed no warning on stderr: \"%s\"", e);
	lines = lines_before_report(out.data, out.len);
	CHECKF(parse_n(out.data, out.len, &r, &err) == 0, "%s", err.msg);
	CHECKF(r.skipped_lines == lines && s.n == 1 && gl_fio_stream_skipped(st) == lines,
	       "skipped %d / %d, %d lines before the report", r.skipped_lines, gl_fio_stream_skipped(st), lines);
	CHECK(r.write_bytes == MIB && r.n_jobs == 1 && !r.any_error);
	printf("noise: stderr \"%.60s...\", %d line(s) of stdout before the report\n", e, lines);
	gl_fio_report_free(&r);
	gl_fio_stream_free(st);

	/* json,normal: the normal output shares stdout. */
	st = gl_fio_stream_new(0);
	memset(&s, 0, sizeof(s));
	rc = 0;
	status = run_fio("--name=both --directory=. --rw=write --bs=64k --size=1M --ioengine=sync "
			 "--output-format=json,normal",
			 &out, e, sizeof(e), st, &s, &rc);
	CHECK(status == 0 && rc == 0);
	CHECKF(parse_n(out.data, out.len, &r, &err) == 0, "%s", err.msg);
	CHECK(r.skipped_lines > 5 && r.skipped_lines == gl_fio_stream_skipped(st) && s.n == 1);
	CHECK(r.write_bytes == MIB);
	printf("json,normal: %d non-JSON lines skipped\n", r.skipped_lines);
	gl_fio_report_free(&r);
	gl_fio_stream_free(st);
	gl_buf_free(&out);
}

static void test_fio_errors(void)
{
	struct gl_fio_report r;
	char e[65536];

	/* Verify a file of zeros that fio never wrote: every block fails its
	 * header check; continue_on_error=all counts them all. */
	make_file("zeros", MIB);
	if (run_parse("verify errors",
		      "--name=verify --filename=zeros --rw=read --bs=4k --size=1M "
		      "--ioengine=sync --verify=md5 --verify_only=1 --continue_on_error=all "
		      "--output-format=json",
		      &r, e, sizeof(e)) == 0) {
		const struct gl_fio_job *j = &r.jobs[0];
		CHECKF(j->error == EILSEQ && j->first_error == EILSEQ, "error %d first %d", j->error, j->first_error);
		CHECKF(j->total_err == 256 && r.total_err == 256, "total_err %llu", (unsigned long long)j->total_err);
		CHECK(r.any_error && j->read.io_bytes == MIB);
		CHECK(has(e, "verify"));
		printf("verify errors: error %d, first_error %d, total_err %llu\n", j->error, j->first_error,
		       (unsigned long long)j->total_err);
		gl_fio_report_free(&r);
	}
}

int main(void)
{
	const char *s = getenv("GL_SOURCE_DIR");
	char cmd[4200];

#ifdef GL_FIO_TEST_SRC
	if (!s || !*s)
		s = GL_FIO_TEST_SRC; /* run by hand, outside ctest */
#endif
	snprintf(src_dir, sizeof(src_dir), "%s", s && *s ? s : ".");

	test_seqwrite_fixture();
	test_fixtures();
	test_status_fixture();
	test_malformed();
	test_stream_edges();

	if (find_fio() < 0) {
		if (check_fail)
			return check_done();
		printf("in-memory part: %d passed\n", check_pass);
		GL_SKIP("fio not found on PATH (apt-get install -y fio); the runs of real fio were "
			"not done");
	}
	if (!mkdtemp(tmp_dir)) {
		/* not a missing prerequisite: a failure */
		CHECKF(0, "mkdtemp %s: %s", tmp_dir, strerror(errno));
		return check_done();
	}
	printf("fio: %s, in %s\n", fio_path, tmp_dir);
	test_fio_seq_rand();
	test_fio_multi();
	test_fio_stream();
	test_fio_noise();
	test_fio_errors();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp_dir);
	return check_done();
}
