/*
 * hostrun.c - see hostrun.h.
 */
#include "hostrun.h"

#include <stdio.h>
#include <string.h>

int gl_run_trim(const struct gl_host *h, const char *const *argv, int64_t timeout_ms, int flags, const char *kind,
		int *status, char *out, size_t n_out, struct gl_err *err)
{
	struct gl_exec_result res;
	struct gl_err e = { 0 };
	int rc = gl_host_exec(h, argv, timeout_ms, &res, &e);

	*status = res.timed_out ? -1 : res.exit_status;
	if (out && n_out) {
		size_t len;
		snprintf(out, n_out, "%s", res.out.data ? res.out.data : "");
		len = strlen(out);
		while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
			out[--len] = '\0';
	}
	gl_buf_free(&res.out);
	if (rc != 0 && !(res.timed_out && (flags & GL_RUN_TIMEOUT_OK)))
		return gl_errf(err, e.code ? e.code : GL_EIO, "%s on host '%s': %s", kind, h->name, e.msg);
	return 0;
}

const char *gl_first_line(char *s)
{
	s[strcspn(s, "\n")] = '\0';
	return s;
}

int gl_run_preflight(struct gl_ctx *c, const struct gl_host *h, int64_t timeout_ms, int flags, const char *kind,
		     const char *subject, const char *check, const char *const *argv, const char *fail_detail)
{
	struct gl_err err = { 0 };
	char out[512] = "", detail[700];
	int status = -1, rc = gl_run_trim(h, argv, timeout_ms, flags, kind, &status, out, sizeof(out), &err);

	snprintf(detail, sizeof(detail), "%s%s%s",
		 rc       ? err.msg
		 : status ? fail_detail
			  : "",
		 !rc && status && out[0] ? ": " : "", !rc && status ? gl_first_line(out) : "");
	return gl_ctx_preflight(c, subject, check, rc == 0 && status == 0, detail);
}
