/*
 * diag.h - validation diagnostics. Validation does not stop at the first
 * problem: it collects every error (up to a cap) so that one `validate` run
 * lists them all, each as "FILE:LINE:COL: JSON.PATH: what, expected what".
 */
#ifndef GL_DIAG_H
#define GL_DIAG_H

#include <cjson/cJSON.h>

#include "jsonc.h"
#include "util.h"

#define GL_DIAG_MAX 200

struct gl_diag {
	const struct gl_jsonc_doc *doc; /* for positions; may be NULL */
	int n_errors, n_warnings, n_dropped;
	/* validate sets it: a file a scenario names that is not on this
	 * machine is a warning (run checks it again and refuses) */
	int missing_files_warn;
	struct gl_buf text; /* one line per diagnostic */
};

void gl_diag_init(struct gl_diag *d, const struct gl_jsonc_doc *doc);
/* missing_files_warn for every diag initialised from now on (a process
 * that reads no file a scenario names: `gauntlet simulate`) */
void gl_diag_files_warn_default(int on);
void gl_diag_free(struct gl_diag *d);
/* node may be NULL (then the position is the file only). */
void gl_diag_error(struct gl_diag *d, const cJSON *node, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void gl_diag_warn(struct gl_diag *d, const cJSON *node, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A file check that failed with e: an error, or a warning when the file is
 * only missing here and d->missing_files_warn is set. */
void gl_diag_file(struct gl_diag *d, const cJSON *node, const char *path, const struct gl_err *e);

#endif
