/*
 * report_schema.h - docs/report.schema.json, carried in the binary (the
 * build embeds it: cmake/embed.cmake, CMakeLists.txt), and a check of a
 * report.json against it that needs no Python (lib/jschema.h).
 */
#ifndef GL_REPORT_SCHEMA_H
#define GL_REPORT_SCHEMA_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The schema's text as built, NUL-terminated; _len without the NUL. */
extern const char gl_report_schema_json[];
extern const size_t gl_report_schema_json_len;

/* gl_jschema_validate of report against the embedded schema: 0 valid; -1
 * invalid, err "PATH: MESSAGE" (the first error), *n_errors (may be NULL)
 * how many (at most GL_JSCHEMA_MAX_ERRORS); -2 the embedded schema does
 * not parse or the validator cannot handle it, err says why. */
int gl_report_schema_check(const cJSON *report, char *err, size_t err_n, int *n_errors);

#endif
