/*
 * procsel.h - checks shared by the fault kinds that pick processes by
 * pattern (process_kill, control_plane_loss/signal): a pattern must be a
 * valid extended regex that names something, a state directory must be a
 * plain absolute path, integers must be whole and in range.
 */
#ifndef GL_PROCSEL_H
#define GL_PROCSEL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define GL_PATTERN_MAX 256

/* NULL when pat is usable, else why not (in buf or a static string). */
const char *gl_pattern_problem(const char *pat, char *buf, size_t n);
/* 1 for an absolute path of plain characters, without "..". */
int gl_safe_abs_path(const char *s);
/* 1 and *out when v is a whole number in [lo, hi]. */
int gl_json_int(const cJSON *v, long long lo, long long hi, long long *out);

#endif
