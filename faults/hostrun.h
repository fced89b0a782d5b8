/*
 * hostrun.h - running one command on a fault's target host and keeping its
 * output for messages: the run-and-trim that link_flap and partition share,
 * with its preflight form.
 */
#ifndef GL_FAULT_HOSTRUN_H
#define GL_FAULT_HOSTRUN_H

#include <stddef.h>
#include <stdint.h>

#include "plugin.h"

/* A timeout is not an error: gl_run_trim returns 0 with *status -1. */
#define GL_RUN_TIMEOUT_OK 1

/* Run argv on h (gl_host_exec), killed after timeout_ms. *status: its exit
 * status, -1 when it timed out; out (n_out bytes; may be NULL): its output,
 * cut to fit, trailing newlines and spaces removed. Returns 0 when it ran,
 * else a negative code with err "KIND on host 'H': why" (a timeout is such
 * an error unless flags has GL_RUN_TIMEOUT_OK). */
int gl_run_trim(const struct gl_host *h, const char *const *argv, int64_t timeout_ms, int flags, const char *kind,
		int *status, char *out, size_t n_out, struct gl_err *err);

/* s cut at its first newline (for messages); returns s. */
const char *gl_first_line(char *s);

/* One preflight check (gl_ctx_preflight): argv must exit 0 on h. Its detail
 * when it does not: why it did not run, or fail_detail and the first line
 * of its output. Returns 0 when it passed, else -1. */
int gl_run_preflight(struct gl_ctx *c, const struct gl_host *h, int64_t timeout_ms, int flags, const char *kind,
		     const char *subject, const char *check, const char *const *argv, const char *fail_detail);

#endif
