/*
 * nccltests_int.h - private to the nccl-tests parser (loadgen/nccltests*.c):
 * the helpers and result building its text and JSON readers share.
 *   nccltests.c       small helpers (words, numbers, counts), building the
 *                     result (rows, failures), gl_nccl_parse (which format),
 *                     the judging helpers (pitfalls, bus bandwidth at a size)
 *   nccltests_text.c  the text reader: table layout from the header, NCCL
 *                     log and failure text glued to rows, '#' lines
 *   nccltests_json.c  the JSON reader (nccl-tests' -J reports)
 */
#ifndef GL_NCCLTESTS_INT_H
#define GL_NCCLTESTS_INT_H

#include "nccltests.h"

#include <stddef.h>
#include <stdint.h>

#define CELL_MAX 40 /* bytes of one table cell, NUL included */
#define ROW_CELLS_MAX (2 * GL_NCCL_MAX_COLS) /* a timestamp column takes two words */
#define U64_LIMIT 18446744073709551616.0 /* 2^64 */

/* nccltests.c */
int nt_is_space(char c);
int nt_is_digit(char c);
int nt_is_host_char(char c);
int nt_next_word(const char **p, const char *e, const char **ws, const char **we);
int nt_word_is(const char *ws, const char *we, const char *lit);
int nt_all_digits(const char *s, size_t n);
void nt_copy_printable(char *out, size_t n, const char *s, size_t len);
int nt_parse_u64(const char *s, uint64_t *out);
int nt_parse_int(const char *s, int *out);
int nt_parse_num(const char *s, double *out);
double nt_metric(double v);
void nt_sat_add(long *acc, long v);
int nt_count_from_double(double d, long *out);
void nt_result_init(struct gl_nccl_result *r, int from_json);
void nt_row_init(struct gl_nccl_row *row);
int nt_push_row(struct gl_nccl_result *r, int *cap, const struct gl_nccl_row *row, const char *where,
		struct gl_err *err);
void nt_note_failure(struct gl_nccl_result *r, const char *s, size_t len);

#endif
