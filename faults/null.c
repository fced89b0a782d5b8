/*
 * null.c - the null fault kind, for testing the controller's fault path
 * (journal, states, revert after a crash) without touching a cluster.
 *
 * params: {"marker": PATH} - inject creates PATH (containing the fault id
 * and a random nonce the plan holds), verify checks it exists, revert
 * removes it, verify_revert checks it is gone. So a test can see from
 * outside whether a fault is still "injected", also after the controller
 * was SIGKILLed.
 *
 * The marker is never someone else's file: inject creates it with O_CREAT |
 * O_EXCL | O_NOFOLLOW and refuses a path that exists (never truncating,
 * or at revert deleting, whatever file the path names). Revert and the checks
 * take the file at PATH as the marker only when it is a regular file, not a
 * link, owned by the effective user and holding exactly what inject wrote
 * (the nonce comes from the journaled plan, in the 0600 store); anything
 * else there is left alone and reported. {"fail": "inject"|"verify"|
 * "revert"} makes that step fail, to test error paths.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "params.h"
#include "plan.h"
#include "plugin.h"

static void nf_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path)
{
	static const char *const keys[] = { "marker", "fail", NULL };
	const cJSON *it;
	char pp[256];

	snprintf(pp, sizeof(pp), "%s.params", path);
	cJSON_ArrayForEach(it, f->params)
	{
		char p[256];
		snprintf(p, sizeof(p), "%s.params.%s", path, it->string);
		if (!gl_params_check_key(it, keys, "kind null", d, pp) && !cJSON_IsString(it))
			gl_diag_error(d, it, p, "expected a string");
	}
}

static int nf_plan(const struct gl_scenario *s, const struct gl_fault_spec *f, cJSON **plan, struct gl_err *err)
{
	cJSON *p = cJSON_CreateObject();
	const char *marker = gl_param_str(f->params, "marker"), *fail = gl_param_str(f->params, "fail");

	if (!p)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	cJSON_AddStringToObject(p, "id", f->id);
	if (marker) {
		unsigned char r[16];
		char nonce[33];
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
			cJSON_Delete(p);
			return gl_errf(err, GL_EIO, "null fault: no random bytes for the marker's nonce: %s",
				       strerror(errno));
		}
		for (size_t i = 0; i < sizeof(r); i++)
			snprintf(nonce + 2 * i, 3, "%02x", r[i]);
		cJSON_AddStringToObject(p, "marker", marker);
		cJSON_AddStringToObject(p, "nonce", nonce);
	}
	if (fail)
		cJSON_AddStringToObject(p, "fail", fail);
	*plan = p;
	return 0;
}

static int failing(const cJSON *plan, const char *step)
{
	const char *f = gl_param_str(plan, "fail");
	return f && !strcmp(f, step);
}

/* What inject writes into the marker: the id and the plan's nonce (a plan
 * from before the nonce: the id alone, as inject wrote then). */
static void marker_text(const cJSON *plan, char *buf, size_t n)
{
	const char *id = gl_param_str(plan, "id"), *nonce = gl_param_str(plan, "nonce");
	if (nonce)
		snprintf(buf, n, "gauntlet null fault %s %s\n", id ? id : "", nonce);
	else
		snprintf(buf, n, "%s", id ? id : "");
}

/* 1: PATH holds the marker inject made; 0: nothing there; -1: something
 * else is there (why says what), which is not ours to touch. */
static int marker_state(const cJSON *plan, const char *marker, char *why, size_t n)
{
	char want[512], got[512];
	struct stat st;
	ssize_t r;
	size_t len;
	int fd;

	marker_text(plan, want, sizeof(want));
	len = strlen(want);
	fd = open(marker, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, n, "%s", errno == ELOOP ? "a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(why, n, "not readable: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, n, "%s", gl_file_type_name(st.st_mode));
		close(fd);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(why, n, "owned by uid %u, not by us (uid %u)", (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		return -1;
	}
	r = (size_t)st.st_size == len ? read(fd, got, sizeof(got)) : -1;
	close(fd);
	if (r != (ssize_t)len || memcmp(got, want, len)) {
		snprintf(why, n,
			 "a file that is not the marker this fault's inject wrote (dev %llu, inode %llu, "
			 "%lld bytes)",
			 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (long long)st.st_size);
		return -1;
	}
	return 1;
}

static int nf_inject(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	const char *marker = gl_param_str(plan, "marker");
	char text[512];
	size_t len;
	int fd;

	if (failing(plan, "inject"))
		return gl_errf(err, GL_EIO, "null fault: inject fails as configured");
	if (!marker)
		return 0;
	/* a new file or nothing: never truncate (nor later delete) a file
	 * that was there, never follow a link planted at the path */
	fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return gl_errf(err, GL_EIO, "null fault: marker %s: %s%s", marker, strerror(errno),
			       errno == EEXIST
				       ? " (the marker must be a new file: an existing file is never taken over)"
				       : "");
	marker_text(plan, text, sizeof(text));
	len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len) {
		int e = errno;
		close(fd);
		unlink(marker); /* ours: just created with O_EXCL */
		return gl_errf(err, GL_EIO, "null fault: %s: %s", marker, strerror(e));
	}
	close(fd);
	return 0;
}

static int nf_verify(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	const char *marker = gl_param_str(plan, "marker");
	char why[256];
	int st;

	if (failing(plan, "verify"))
		return gl_errf(err, GL_EIO, "null fault: verify fails as configured");
	if (!marker)
		return 0;
	st = marker_state(plan, marker, why, sizeof(why));
	if (st == 0)
		return gl_errf(err, GL_EIO, "null fault: marker %s is missing", marker);
	if (st < 0)
		return gl_errf(err, GL_EIO, "null fault: %s is %s", marker, why);
	return 0;
}

static int nf_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	const char *marker = gl_param_str(plan, "marker");
	char why[256];
	int st;

	if (failing(plan, "revert"))
		return gl_errf(err, GL_EIO, "null fault: revert fails as configured");
	if (!marker)
		return 0;
	st = marker_state(plan, marker, why, sizeof(why));
	if (st < 0) {
		/* not ours: left alone, said once (an inject refused for an
		 * existing file ends here too) */
		gl_warn("null fault '%s': %s is %s: left alone",
			gl_param_str(plan, "id") ? gl_param_str(plan, "id") : "", marker, why);
		return 0;
	}
	if (st > 0 && unlink(marker) != 0 && errno != ENOENT)
		return gl_errf(err, GL_EIO, "null fault: %s: %s", marker, strerror(errno));
	return 0;
}

static int nf_verify_revert(struct gl_ctx *c, const cJSON *plan, struct gl_err *err)
{
	const char *marker = gl_param_str(plan, "marker");
	char why[256];

	/* our marker is gone; a file that is not ours was reported by revert */
	if (marker && marker_state(plan, marker, why, sizeof(why)) > 0)
		return gl_errf(err, GL_EIO, "null fault: marker %s still exists", marker);
	return 0;
}

static void nf_describe(const cJSON *plan, struct gl_buf *out)
{
	const char *marker = gl_param_str(plan, "marker");
	if (marker) {
		gl_buf_printf(out, "inject: create ");
		gl_buf_append_word(out, marker);
		gl_buf_printf(out, "\nrevert: remove ");
		gl_buf_append_word(out, marker);
		gl_buf_printf(out, "\n");
	} else
		gl_buf_printf(out, "inject: nothing (null fault)\nrevert: nothing\n");
}

static const struct gl_fault_ops gl_fault_null = {
	.kind = "null",
	.validate = nf_validate,
	.plan = nf_plan,
	.inject = nf_inject,
	.verify = nf_verify,
	.revert = nf_revert,
	.verify_revert = nf_verify_revert,
	.describe = nf_describe,
	.touches = gl_fault_touches_target,
};
GL_REGISTER_FAULT(gl_fault_null, 90)
