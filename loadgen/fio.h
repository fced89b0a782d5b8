/*
 * fio.h - a bounded parser for fio's JSON reports, so that the storage
 * workload can run fio as an external workload: `fio --output-format=json`
 * (or json+) prints one report at the end of the run, and with
 * `--status-interval=N` one more every N seconds, back to back on stdout.
 * What fio measured is data: a job that failed (error != 0, total_err > 0)
 * parses fine and says so; only text that is not a fio report is an error.
 *
 * The layout (fio >= 3.0, stat.c show_thread_status_json; checked against
 * fio 3.33). fio's JSON writer prints integers with %lld and doubles with %f:
 *
 *   { "fio version" : "fio-3.33", "timestamp" : s, "timestamp_ms" : ms,
 *     "time" : "...", ["global options" : {..},]
 *     "jobs" : [ { "jobname", "groupid", "error" (errno, 0 none), "eta",
 *                  "elapsed" (s), "job options" : {..},
 *                  "read" | "write" | "trim" : { "io_bytes", "io_kbytes",
 *                      "bw_bytes" (B/s), "bw" (KiB/s), "iops", "runtime" (ms),
 *                      "total_ios", "short_ios", "drop_ios",
 *                      "slat_ns" | "clat_ns" | "lat_ns" : { "min", "max", "mean",
 *                          "stddev", "N", ["percentile" : { "99.000000" : ns, .. }],
 *                          ["bins" : { ns : count, .. }]   (json+ only) }, ... },
 *                  ["mixed" : {..}]   (unified_rw_reporting=mixed|both),
 *                  "sync" : {..}, "job_runtime" (ms), "usr_cpu", ...,
 *                  ["total_err", "first_error"]   (only with continue_on_error) } ],
 *     ["disk_util" : [..]] }
 *
 * "percentile" is absent when a direction did no I/O or clat_percentiles=0.
 * With group_reporting a group is one entry named after its first job. A job
 * that failed before doing I/O has the sections but lacks some trailing
 * fields. fio 2.x (io_bytes in KiB, clat in usec) is refused by version.
 *
 * What else is on stdout: fio prints its own lines there before the report
 * ("note: both iodepth >= 1 and synchronous I/O engine are selected ...",
 * "fio: pid=N, err=22/file:..., func=..., error=...", and the whole normal
 * output with --output-format=json,normal); warnings such as "fio: time_based
 * requires a runtime/timeout setting" and verify failures go to stderr. So a
 * report starts at a '{' that is the first non-blank byte of a line (or that
 * directly follows the previous report); every other non-blank line is
 * skipped and counted. Strings are followed, so braces and escaped quotes
 * inside job names and option values do not end a report early.
 *
 * Limits: input GL_FIO_MAX_INPUT bytes, GL_FIO_MAX_JOBS jobs, nesting depth
 * GL_FIO_MAX_DEPTH (fio needs 5), GL_FIO_MAX_PCT percentiles per direction
 * (fio allows 20). Past a limit: -GL_ELIMIT. Malformed input: -GL_EINVAL.
 * Messages name the place: "jobs[1].write.io_bytes: expected a number",
 * "line 12 col 20: invalid JSON near \"-nan,...\"".
 *
 * Threads: no shared state; any thread may parse into its own report or use
 * its own stream (cJSON writes its last error position to a global that is
 * never read back here).
 */
#ifndef GL_FIO_H
#define GL_FIO_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define GL_FIO_MAX_INPUT (64u * 1024u * 1024u) /* bytes of one report */
#define GL_FIO_MAX_JOBS 4096
#define GL_FIO_MAX_DEPTH 64
#define GL_FIO_MAX_PCT 32

/* One direction of one job: read, write, trim or mixed. All zero (and
 * have_clat 0) when the section is absent. */
struct gl_fio_dir {
	uint64_t io_bytes; /* "io_bytes" */
	uint64_t bw_bytes; /* "bw_bytes" (bytes/s) */
	double iops; /* "iops" */
	uint64_t total_ios; /* "total_ios" (issued, failed ones included) */
	double runtime_ms; /* "runtime" */
	int have_clat; /* clat_ns present with N > 0 */
	double clat_mean_ns;
	uint64_t clat_n; /* "N": completions measured */
	/* clat_ns percentiles fio reports, as (percent, ns) pairs, ascending */
	int n_pct;
	double pct[GL_FIO_MAX_PCT], pct_ns[GL_FIO_MAX_PCT];
};

struct gl_fio_job {
	char name[64]; /* "jobname", cut to fit */
	int groupid;
	int error; /* "error" (errno of the first error, 0 none) */
	uint64_t total_err; /* "total_err" (0 without continue_on_error) */
	int first_error; /* "first_error" (0 without continue_on_error) */
	struct gl_fio_dir read, write, trim;
	int have_mixed; /* unified_rw_reporting: "mixed" present */
	struct gl_fio_dir mixed;
	double runtime_ms_read, runtime_ms_write; /* per-direction "runtime" */
	uint64_t job_runtime_ms; /* "job_runtime" */
};

struct gl_fio_report {
	char fio_version[32]; /* "fio version", e.g. "fio-3.33" */
	int64_t timestamp_ms; /* "timestamp_ms", or "timestamp" * 1000 */
	struct gl_fio_job *jobs; /* malloc'd, n_jobs entries */
	int n_jobs;
	int skipped_lines; /* non-JSON lines around the report (gl_fio_parse) */
	/* sums over jobs ("mixed" is summed apart, never into read or write) */
	uint64_t read_bytes, write_bytes, trim_bytes, mixed_bytes, total_err;
	double read_bw_bytes, write_bw_bytes, trim_bw_bytes, mixed_bw_bytes;
	double read_iops, write_iops, trim_iops, mixed_iops;
	int any_error; /* some job has error != 0 or total_err > 0 */
};

/* Parse one report out of buf (len bytes, need not be NUL-terminated): the
 * stdout of one fio run without --status-interval. Non-JSON lines before and
 * after it are skipped and counted in r->skipped_lines; a second report is an
 * error (--status-interval output goes through gl_fio_stream). Returns 0 and
 * fills *r, which the caller frees with gl_fio_report_free; or -GL_EINVAL
 * (malformed), -GL_ELIMIT (a cap), -GL_ENOMEM, with err filled and *r empty
 * (freeing it is still fine). */
int gl_fio_parse(const char *buf, size_t len, struct gl_fio_report *r, struct gl_err *err);
/* Free what gl_fio_parse allocated and zero *r; NULL and repeats are fine. */
void gl_fio_report_free(struct gl_fio_report *r);

/* A stream of reports as --status-interval prints them on stdout. Feed the
 * bytes in pieces of any size as they arrive; the splitter keeps one report
 * of at most max_object_bytes in memory (0: 16 MiB; capped at
 * GL_FIO_MAX_INPUT). Skipping follows the rules above. */
struct gl_fio_stream;
/* NULL when out of memory. Free with gl_fio_stream_free. */
struct gl_fio_stream *gl_fio_stream_new(size_t max_object_bytes);
/* Consume len bytes. on_report is called once per complete report, in order,
 * from inside this call; r is borrowed and freed when the callback returns.
 * A report that does not parse, or grows past the cap, or nests too deeply,
 * is dropped and counted in gl_fio_stream_bad (an oversized one is skipped
 * to its end, not stored), and the stream goes on with the next one: all of
 * data is consumed either way. Returns 0, or the first error of this call
 * (-GL_EINVAL, -GL_ELIMIT, -GL_ENOMEM) with err filled; reports before and
 * after it in the same call are still delivered. on_report may be NULL. */
int gl_fio_stream_feed(struct gl_fio_stream *s, const char *data, size_t len,
		       void (*on_report)(void *arg, const struct gl_fio_report *r), void *arg, struct gl_err *err);
/* Non-JSON lines skipped so far (blank lines are not counted). */
int gl_fio_stream_skipped(const struct gl_fio_stream *s);
/* Reports delivered, and reports dropped as bad, so far. */
int gl_fio_stream_reports(const struct gl_fio_stream *s);
int gl_fio_stream_bad(const struct gl_fio_stream *s);
/* Bytes of a report begun but not yet complete: at the end of fio's output,
 * non-zero means fio stopped in the middle of a report. */
size_t gl_fio_stream_pending(const struct gl_fio_stream *s);
void gl_fio_stream_free(struct gl_fio_stream *s);

/* Percentile p (e.g. 99.0) of a direction's clat in ms, or -1 when fio did
 * not report that percentile (no I/O, clat_percentiles=0, or p not in
 * percentile_list). */
double gl_fio_clat_ms(const struct gl_fio_dir *d, double p);

#endif
