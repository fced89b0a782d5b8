/*
 * prom.h - a bounded parser of the Prometheus text exposition format
 * (version 0.0.4), as served by DCGM exporter and node exporter, and the
 * DCGM blank-value test that readers of DCGM exporter text need.
 *
 * The parser takes a whole body (the telemetry probes read one scrape into
 * a capped buffer first) and calls back once per sample with its metric
 * name, its labels (escapes already undone) and its value. Every input is
 * bounded (body size, line length, labels per sample, samples per body);
 * garbage is answered with a classified error naming the line, never a
 * crash, and the same input always gives the same callbacks.
 *
 * Accepted: `# HELP name text` and `# TYPE name type` lines (checked), other
 * `#` comments (ignored), blank lines, LF or CRLF line ends, a last line
 * without a newline, `name{label="value",...} value [timestamp_ms]` with
 * spaces or tabs between tokens, a trailing comma in the label set, label
 * value escapes \\ \" \n, values as decimal floats or NaN, +Inf, -Inf.
 */
#ifndef GL_PROM_H
#define GL_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum gl_prom_type {
	GL_PROM_UNTYPED,
	GL_PROM_COUNTER,
	GL_PROM_GAUGE,
	GL_PROM_HISTOGRAM,
	GL_PROM_SUMMARY,
};

/* What was wrong with a body; GL_PROM_OK when nothing. */
enum gl_prom_class {
	GL_PROM_OK,
	GL_PROM_E_SYNTAX, /* a line that is not a sample, comment or blank */
	GL_PROM_E_NAME, /* bad metric or label name */
	GL_PROM_E_LABEL, /* bad label set: quoting, escape, duplicate, not UTF-8 */
	GL_PROM_E_VALUE, /* value or timestamp not a number */
	GL_PROM_E_META, /* bad # HELP / # TYPE line */
	GL_PROM_E_BINARY, /* NUL byte in the body */
	GL_PROM_E_BODY_SIZE, /* body larger than max_body */
	GL_PROM_E_LINE_SIZE, /* a line longer than max_line */
	GL_PROM_E_LABELS, /* more labels on a sample than max_labels */
	GL_PROM_E_SAMPLES, /* more samples than max_samples */
	GL_PROM_E_CALLBACK, /* the callback asked to stop */
};
const char *gl_prom_class_name(enum gl_prom_class c); /* "syntax", "line_size", ... */

struct gl_prom_limits {
	size_t max_body; /* bytes; 0: 16 MiB */
	size_t max_line; /* bytes without the line end; 0: 64 KiB */
	int max_labels; /* per sample; 0: 64 */
	size_t max_samples; /* per body; 0: 1000000 */
};

struct gl_prom_label {
	const char *name;
	const char *value; /* unescaped, NUL-terminated, valid UTF-8 */
};

/* Borrowed for the duration of one callback only. */
struct gl_prom_sample {
	const char *name;
	const struct gl_prom_label *labels;
	int n_labels;
	double value; /* may be NaN or +-Inf */
	int has_timestamp;
	int64_t timestamp_ms;
	enum gl_prom_type type; /* from the family's # TYPE line, else untyped */
	int line; /* 1-based */
};

/* Return 0 to go on; anything else stops the parse with GL_PROM_E_CALLBACK. */
typedef int (*gl_prom_sample_fn)(void *arg, const struct gl_prom_sample *s);

struct gl_prom_result {
	enum gl_prom_class cls;
	int line; /* where the error is; 0 for body-wide ones */
	size_t samples; /* samples delivered */
};

/* Parse text[0..len) (it need not be NUL-terminated). lim may be NULL for
 * the defaults; res may be NULL. Returns 0, or -GL_EINVAL (garbage),
 * -GL_ELIMIT (a cap), -GL_ENOMEM, -GL_ESTATE (the callback stopped it), with
 * err saying "line N: what". Samples before an error were already
 * delivered: callers that want all-or-nothing collect and commit after a 0.
 * Reentrant; allocates only scratch space bounded by max_line and
 * max_labels. */
int gl_prom_parse(const char *text, size_t len, const struct gl_prom_limits *lim, gl_prom_sample_fn fn, void *arg,
		  struct gl_prom_result *res, struct gl_err *err);

/* The value of label name in s, or NULL. */
const char *gl_prom_label(const struct gl_prom_sample *s, const char *name);

/*
 * DCGM marks "no value" with in-band sentinels that DCGM exporter prints as
 * ordinary numbers (dcgm_structs.h): the INT32 family DCGM_INT32_BLANK
 * 0x7ffffff0 .. 0x7fffffff (BLANK, NOT_FOUND, NOT_SUPPORTED,
 * NOT_PERMISSIONED, ...), the INT64 family from 0x7ffffffffffffff0, and the
 * FP64 family from 2^47 = 140737488355328.0 (DCGM_FP64_IS_BLANK is
 * "value >= 2^47", which also covers every INT64 blank as a double).
 * Returns 1 when v is such a sentinel, or NaN or infinite: not a reading.
 */
int gl_dcgm_is_blank(double v);

#endif
