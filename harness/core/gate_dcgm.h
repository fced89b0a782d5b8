/*
 * gate_dcgm.h - what `dcgmi diag -r LEVEL -j` printed, per entity (GPU)
 * and per test: pure parsing, no I/O (the gates, gates.c, and the fuzz
 * target use it).
 *
 * Shapes read (docs/gates.md):
 *   DCGM 3.x  {"DCGM GPU Diagnostic": {"test_categories": [{"category",
 *             "tests": [{"name", "results": [{"gpu_id" | "gpu_ids",
 *             "status", "warnings": [{"warning", "error_id"}], "info"}]}]}]}}
 *             (level-one tests name the GPU only with a warning; gpu_ids
 *             may be "0,1,2"; some builds print "warnings" inside a warning)
 *   DCGM 4.x  {"DCGM Diagnostic": {"test_categories": [... "results": [
 *             {"entity_group": "GPU", "entity_id": 1, "status", "warnings",
 *             "info": [...]}], "test_summary": {"status", "warnings"}]}},
 *             "metadata": {"version"}}
 *   either    {"iterations": [DOC, ...]} (dcgmi diag --iterations N), and
 *             {"<name>": {"runtime_error": "..."}} when the diag could not run
 * Status words are read without regard to case ("PASS", "Pass"); "Not Run"
 * counts as skipped. A test whose summary failed without any entity's
 * result failing gets one row for the whole host (id -1).
 */
#ifndef GL_GATE_DCGM_H
#define GL_GATE_DCGM_H

#include <stddef.h>

#include "util.h"

enum gl_gate_status { GL_GATE_PASS, GL_GATE_SKIP, GL_GATE_WARN, GL_GATE_FAIL };
/* "pass", "skip", "warn", "fail" */
const char *gl_gate_status_name(int s);
/* the inverse; -1 for anything else */
int gl_gate_status_parse(const char *s);

#define GL_DCGM_ROWS_MAX 4096 /* 8 GPUs x ~30 tests x a few iterations */

struct gl_dcgm_row {
	char category[64];
	char test[96];
	char entity[16]; /* "GPU", "CPU", ...; "" for the whole host */
	int id; /* entity id; -1: the whole host */
	int status; /* enum gl_gate_status */
	char detail[512]; /* warnings, then info, "; "-joined */
};

struct gl_dcgm_result {
	struct gl_dcgm_row *rows;
	int n_rows;
	int n_pass, n_skip, n_warn, n_fail;
	int rows_dropped; /* past GL_DCGM_ROWS_MAX: counted, not kept */
	char version[64]; /* DCGM's, when printed */
	char runtime_error[512]; /* the diag could not run: the gate fails */
	int status; /* the worst row (fail, warn, pass; skip alone is pass) */
};

/* Parse text (len bytes; anything before the first '{' or after the last
 * '}' is ignored, as dcgmi may print a line before its JSON). 0 with *out
 * filled, or a negative code with err saying why (not JSON, not DCGM's
 * shape, no test result at all); *out is then empty but freeable. */
int gl_dcgm_parse(const char *text, size_t len, struct gl_dcgm_result *out, struct gl_err *err);
void gl_dcgm_free(struct gl_dcgm_result *r);
/* "GPU 1: memory failed: <detail>" for the first failed row (or warned,
 * when none failed), or the runtime error; "" when neither. */
void gl_dcgm_first_problem(const struct gl_dcgm_result *r, char *out, size_t n);

#endif
