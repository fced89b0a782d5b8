/*
 * paths.h - files a scenario names (traces, API key files, inventories)
 * are confined: a relative path resolves against the scenario's directory,
 * and the real path (symbolic links and ".." resolved) must lie under the
 * scenario's directory or an allowed root: the default roots (paths.c)
 * and those the operator adds (--allow-root, GL_ALLOWED_ROOTS), narrowed,
 * never widened, by the scenario's safety.allowed_roots. "/" is never a
 * root. A scenario from a shared repository thus cannot make the harness
 * read /etc/shadow or /root into its store, reports or error messages.
 */
#ifndef GL_PATHS_H
#define GL_PATHS_H

#include <stddef.h>

#include "util.h"

struct gl_scenario;

/* 1 when path is root or below it (both already resolved). */
int gl_path_under(const char *path, const char *root);

/* Add a root for this process (--allow-root): absolute, resolved, not "/". */
int gl_paths_allow_root(const char *dir, struct gl_err *err);
/* Take GL_ALLOWED_ROOTS (colon-separated) once; later calls do nothing. */
int gl_paths_read_env(struct gl_err *err);

/* Resolve p (named by the scenario at scenario_path, with root the
 * scenario's JSON for safety.allowed_roots, may be NULL) into out. Errors
 * (GL_EINVAL) name p, what it resolved to and the roots. */
int gl_path_confine(const char *scenario_path, const void *root_json, const char *p, char *out, size_t n,
		    struct gl_err *err);

#endif
