/*
 * trace_int.h - private to the trace readers (loadgen/trace*.c): the reader's
 * state and what its files share. Who owns what:
 *   trace.c         the reader: format names, reading lines (the cap on a
 *                   line), bad rows (counted and logged once), a row from a
 *                   line, open / rewind / close and the statistics
 *   trace_rows.c    what a line says: counts, times and dates, the CSV
 *                   formats (Azure, BurstGPT), the JSONL ones (Mooncake,
 *                   prompts)
 *   trace_prompt.c  the deterministic prompt synthesizer (gl_prompt_synth)
 */
#ifndef GL_TRACE_INT_H
#define GL_TRACE_INT_H

#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#define READ_CHUNK (64u * 1024u)
#define CSV_MAX_FIELDS 256
/* Timestamps are kept within +-4e18 ns (about 126 years around the epoch)
 * so that the difference of any two fits in an int64. */
#define TS_LIMIT_NS 4000000000000000000LL
#define NUM_TEXT_MAX 64

struct gl_trace {
	char *name;
	enum gl_trace_format fmt;

	int fd; /* -1 for a memory source */
	char *rbuf; /* fd: read buffer; memory: the caller's data */
	size_t rlen, rpos;
	bool eof;

	struct gl_buf line; /* the current line, without its line end */
	bool overlong; /* the current line was longer than the cap */
	uint64_t line_no;
	bool hold; /* hand the current line out again (after detection) */

	int col_ts, col_in, col_out, n_cols; /* CSV column indices */

	double backstep_tol_s;
	bool have_first, have_prev;
	int64_t first_ns; /* timestamp of the first good row */
	int64_t prev_off_ns; /* offset of the previous good row of this pass */

	/* Storage behind a row's borrowed pointers. */
	cJSON *doc;
	char *messages_json;
	struct gl_buf prompt;
	int64_t *hash;

	char msg[160]; /* what was wrong with the current row, when formatted */
	bool pass_done; /* EOF of this pass already counted */
	uint64_t counted_upto; /* highest line number already counted */
	uint64_t n_logged;
	struct gl_trace_stats st;
	struct gl_err err;
};

/* trace.c */
void tr_buf_clear(struct gl_buf *b);

/* trace_rows.c */
bool tr_is_sp(char c);
int tr_csv_header(struct gl_trace *t, enum gl_trace_format fmt, struct gl_err *err);
const char *tr_csv_row(struct gl_trace *t, struct gl_trace_row *row);
cJSON *tr_json_line(struct gl_trace *t, const char **why);
const char *tr_mooncake_row(struct gl_trace *t, const cJSON *doc, struct gl_trace_row *row);
const char *tr_prompts_row(struct gl_trace *t, const cJSON *doc, struct gl_trace_row *row);

#endif
