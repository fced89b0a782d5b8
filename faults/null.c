/*
 * null.c - the null fault kind, for testing the controller's fault path
 * (journal, states, revert after a crash) without touching a cluster.
 *
 * params: {"marker": PATH} - inject creates PATH (containing the fault id),
 * verify checks it exists, revert removes it, verify_revert checks it is
 * gone. So a test can see from outside whether a fault is still "injected",
 * also after the controller was SIGKILLed. {"fail": "inject"|"verify"|
 * "revert"} makes that step fail, to test error paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"
#include "plugin.h"

static const char *param(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void nf_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, f->params) {
		char p[256];
		snprintf(p, sizeof(p), "%s.params.%s", path, it->string);
		if (strcmp(it->string, "marker") && strcmp(it->string, "fail"))
			gl_diag_error(d, it, p, "unknown key '%s' for kind null, expected one of: marker, fail",
				      it->string);
		else if (!cJSON_IsString(it))
			gl_diag_error(d, it, p, "expected a string");
	}
}

static int nf_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan,
		   struct gl_err *err)
{
	cJSON *p = cJSON_CreateObject();
	const char *marker = param(f->params, "marker"), *fail = param(f->params, "fail");

	if (!p)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	cJSON_AddStringToObject(p, "id", f->id);
	if (marker)
		cJSON_AddStringToObject(p, "marker", marker);
	if (fail)
		cJSON_AddStringToObject(p, "fail", fail);
	*plan = p;
	return 0;
}

static int failing(const cJSON *plan, const char *step)
{
	const char *f = param(plan, "fail");
	return f && !strcmp(f, step);
}

static int nf_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	const char *marker = param(plan, "marker"), *id = param(plan, "id");
	int fd;

	if (failing(plan, "inject"))
		return gl_errf(err, GL_EIO, "null fault: inject fails as configured");
	if (!marker)
		return 0;
	fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return gl_errf(err, GL_EIO, "null fault: %s: %s", marker, strerror(errno));
	if (id && write(fd, id, strlen(id)) < 0) {
		close(fd);
		return gl_errf(err, GL_EIO, "null fault: %s: %s", marker, strerror(errno));
	}
	close(fd);
	return 0;
}

static int nf_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	const char *marker = param(plan, "marker");
	if (failing(plan, "verify"))
		return gl_errf(err, GL_EIO, "null fault: verify fails as configured");
	if (marker && access(marker, F_OK) != 0)
		return gl_errf(err, GL_EIO, "null fault: marker %s is missing", marker);
	return 0;
}

static int nf_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	const char *marker = param(plan, "marker");
	if (failing(plan, "revert"))
		return gl_errf(err, GL_EIO, "null fault: revert fails as configured");
	if (marker && unlink(marker) != 0 && errno != ENOENT)
		return gl_errf(err, GL_EIO, "null fault: %s: %s", marker, strerror(errno));
	return 0;
}

static int nf_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	const char *marker = param(plan, "marker");
	if (marker && access(marker, F_OK) == 0)
		return gl_errf(err, GL_EIO, "null fault: marker %s still exists", marker);
	return 0;
}

static void nf_describe(const cJSON *plan, struct gl_buf *out)
{
	const char *marker = param(plan, "marker");
	if (marker) {
		gl_buf_printf(out, "inject: create ");
		gl_buf_append_word(out, marker);
		gl_buf_printf(out, "\nrevert: remove ");
		gl_buf_append_word(out, marker);
		gl_buf_printf(out, "\n");
	}
	else
		gl_buf_printf(out, "inject: nothing (null fault)\nrevert: nothing\n");
}

const struct gl_fault_ops gl_fault_null = {
	.kind = "null",
	.validate = nf_validate,
	.plan = nf_plan,
	.inject = nf_inject,
	.verify = nf_verify,
	.revert = nf_revert,
	.verify_revert = nf_verify_revert,
	.describe = nf_describe,
};
