/*
 * nccltests.h - a bounded parser for what NVIDIA nccl-tests (all_reduce_perf
 * and every other *_perf binary) reports: its text output on stdout, and the
 * JSON report newer versions write with -J/--output_file FILE.json. The
 * nccl-tests backend of gauntlet-train runs the binary under a launcher and
 * hands the captured output here; the result is data to judge, so a failed
 * or corrupted run parses fine and says so (#wrong, failure lines, rows cut
 * short), and only input that is not nccl-tests output is an error.
 *
 * Text (src/common.cu, and src/util.cu in newer versions, of nccl-tests):
 *
 *   # nccl-tests version 2.17.1 nccl-headers=22703 nccl-library=22703
 *   # Collective test starting: all_reduce_perf
 *   # nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) ...
 *   # Using devices
 *   #  Rank  0 Group  0 Pid  41233 on      node1 device  0 [0000:18:00] NVIDIA H100 ...
 *   #       size         count      type   redop    root     time   algbw   busbw  #wrong ...
 *            8             2     float     sum      -1    24.03    0.00    0.00       0 ...
 *   # Out of bounds values : 0 OK
 *   # Avg bus bandwidth    : 41.2133
 *
 * The column set is read from the "# size count ..." header line, so every
 * version parses: old nccl-tests had each collective print its own leading
 * columns (all_gather: size count type; broadcast: size count type root;
 * all_reduce: size count type redop) and an "error" column holding the
 * largest difference from the expected result (%5.0le) instead of "#wrong";
 * since the header was unified it is always size count type redop root, with
 * "none" and -1 where a collective has no operation or root. "#wrong" is "N/A" when
 * validation is off (-c 0). Optional columns: "cputime" for "time" (-C 1),
 * a two-word timestamp at the end (-S 1), i_min i_max i_p99 i_cv% per side
 * (per-iteration report), and unknown trailing columns (rccl-tests' algo
 * proto nchannels), which are skipped. A row holding only the in-place half
 * (out-of-place left blank, trace replay) fills index 1 only.
 *
 * Lines that are not nccl-tests' own are skipped and counted: NCCL's log
 * ("host:pid:tid [dev] NCCL INFO ..."), launcher noise, unknown "#" lines.
 * NCCL writes its log to the same stdout buffer, so its text can also land in
 * the middle of a table row (the row's first fields, then the log line, then
 * the rest of the row on a later line); such a row is put back together, or
 * counted in rows_incomplete when the run died before finishing it. Open MPI
 * --tag-output ("[1,0]<stdout>:") and srun --label ("0: ") prefixes are
 * removed first. Failure lines ("host: Test NCCL failure common.cu:...",
 * "Test CUDA failure", " .. host pid N: Test failure", "Test timeout") are
 * counted in failures, and so is "# error: ..." (NCCL's last error, printed
 * by newer nccl-tests at the end).
 *
 * JSON (version 1 and 2 of nccl-tests' writer): one object per process that
 * wrote it, with "version", "start_time", "args" (argv; the collective name
 * comes from args[0]), "env", "nccl_version", "config" { nthreads, ngpus,
 * minimum_bytes, maximum_bytes, step_factor|step_bytes, warmup_iters,
 * iterations, aggregated_iterations, validation, graph, blocking_collectives,
 * [per_iter_timing,] parallel_init, devices: [{ rank, group, pid, hostname,
 * device, device_hex, device_info }] }, "results": [{ size, count, type,
 * redop, root (a string, "%6i"), out_of_place|null, in_place: { time|cpu_time,
 * alg_bw, bus_bw, nwrong (null without validation) }, actual_iterations,
 * experiment_name }], "out_of_bounds" { count, okay }, "average_bus_bandwidth"
 * { bandwidth, okay }, "errors" [...], "end_time". Booleans are the strings
 * "true"/"false", NaN is the string "nan", and an infinite double is written
 * as a bare inf, which is read here as absent. Under MPI only rank 0 writes
 * and "devices" holds one entry per process (its first rank), not one per
 * rank. Several objects one after another, or an array of them, are several
 * runs.
 *
 * Limits: input GL_NCCL_MAX_INPUT bytes, a line GL_NCCL_MAX_LINE bytes,
 * GL_NCCL_MAX_ROWS rows (enough for -N run cycles), GL_NCCL_MAX_COLS columns.
 * Past a limit the parse fails with -GL_ELIMIT and a message naming the line.
 *
 * Threads: no state of its own; any thread may parse into its own result
 * (cJSON records its last error position in a global it never reads back).
 */
#ifndef GL_NCCLTESTS_H
#define GL_NCCLTESTS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define GL_NCCL_MAX_INPUT (16u * 1024u * 1024u) /* bytes of one output or report */
#define GL_NCCL_MAX_LINE (64u * 1024u) /* bytes of a text line, without its end */
#define GL_NCCL_MAX_ROWS 65536 /* table rows over all blocks or runs */
#define GL_NCCL_MAX_COLS 64 /* columns in a table header */

/* One size line of the table. [0] is out-of-place, [1] in-place. */
struct gl_nccl_row {
	uint64_t size; /* bytes */
	uint64_t count; /* elements */
	char type[16], redop[16]; /* "" when the table has no such column */
	int root; /* -1 when none */
	double time_us[2], algbw[2], busbw[2]; /* -1 when absent (or inf/nan) */
	long wrong[2]; /* -1 when "N/A" or absent */
	double err_delta[2]; /* old "error" column (largest difference), else -1 */
	int block; /* header block (text) or run (JSON), from 0 */
	int line; /* text: line the row began on; JSON: 0 */
};

struct gl_nccl_result {
	char collective[64]; /* "all_reduce_perf" when the output says so, else "" */
	char tests_version[32]; /* "2.17.1" from "# nccl-tests version", else "" */
	int nccl_version; /* NCCL_VERSION_CODE of the library (22703), 0 unknown */
	int from_json; /* 1 when parsed from the JSON report */
	int headers; /* "# nThread ..." lines (text) or runs (JSON) */
	int ranks_listed; /* "#  Rank N ..." lines (text) or devices[] (JSON) */
	int max_rank; /* highest rank index listed, -1 if none */
	int nthread, ngpus; /* from the first header, 0 unknown */
	int validation; /* -c value from the first header, -1 unknown */
	struct gl_nccl_row *rows; /* malloc'd, nrows of them */
	int nrows;
	long wrong_total; /* numeric #wrong over rows and both halves (saturates) */
	double max_err_delta; /* largest old-style "error" value, -1 when none */
	int have_avg; /* "# Avg bus bandwidth : X" (first block's), */
	double avg_busbw; /*   for reports only, never for judging */
	long oob_values; /* "# Out of bounds values : N OK|FAILED", summed */
	int have_oob;
	int failures; /* Test NCCL/CUDA failure, Test failure, Test timeout
				     * lines; JSON: non-empty strings in errors[] */
	char failure[256]; /* the first of them, printable ASCII */
	int rows_incomplete; /* rows begun but never finished (the run died mid-row) */
	int nccl_lines; /* NCCL log lines (also in lines_skipped) and log text
				     * found glued inside table rows */
	int lines_skipped; /* lines that were neither header, row, known trailer
				     * nor failure line */
};

/*
 * Parse len bytes of captured stdout (need not be NUL-terminated) into r,
 * which is overwritten (free an earlier result first). Returns 0, or a
 * negative code with err filled ("line 12: expected 13 columns in a table
 * row, got 4"): -GL_EINVAL (-1) for input that is not nccl-tests output or a
 * malformed row/header, -GL_ELIMIT past a limit, -GL_ENOMEM. After either
 * outcome r holds what was read so far and must be released with
 * gl_nccl_result_free; judge nothing by it after an error.
 */
int gl_nccl_parse_text(const char *buf, size_t len, struct gl_nccl_result *r, struct gl_err *err);

/* The same for the JSON report. Syntax errors name the line; errors in
 * content name the run and field ("run 1: results[3].size: ..."). */
int gl_nccl_parse_json(const char *buf, size_t len, struct gl_nccl_result *r, struct gl_err *err);

/* JSON when the first non-blank byte is '{' (or '[' then '{'), else text. */
int gl_nccl_parse(const char *buf, size_t len, struct gl_nccl_result *r, struct gl_err *err);

/* Free the rows and reset r to empty. NULL and an already freed r are fine. */
void gl_nccl_result_free(struct gl_nccl_result *r);

/*
 * The non-MPI-binary pitfall: nccl-tests built without MPI=1 and started by
 * mpirun -np N runs N independent single-process tests instead of one test
 * over N processes. It shows as more than one header block (or JSON run), or
 * as fewer ranks listed than `world` (the process count the launcher was
 * asked for), or as a highest rank below (world - 1) * nthread * ngpus when
 * only one process' output was captured. world <= 0 checks the header count
 * only; output listing no device at all is not judged. Returns 1 and writes
 * one sentence into why (n bytes, may be 0), else 0 and writes "".
 */
int gl_nccl_pitfall(const struct gl_nccl_result *r, int world, char *why, size_t n);

/* busbw in GB/s at a size: the lower of the in-place and out-of-place values
 * present, and the lowest over all rows of that size (several data types,
 * operations or -N cycles), so that a bad column or cycle cannot hide.
 * Returns -1 when the size is not in the table or has no busbw. */
double gl_nccl_busbw_at(const struct gl_nccl_result *r, uint64_t size);

#endif
