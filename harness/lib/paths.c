/*
 * paths.c - confinement of the files a scenario names (paths.h).
 */
#define _GNU_SOURCE
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

/* Where traces, key files and inventories usually live on a cluster's
 * admin node (and the lab's directory). */
static const char *const default_read_roots[] = { "/var/lib/gauntlet-lab",
						  "/etc/gauntlet",
						  "/data",
						  "/mnt",
						  "/srv",
						  "/scratch",
						  "/home",
						  "/tmp",
						  "/var/tmp",
						  "/lustre",
						  "/gpfs",
						  "/opt/gauntlet",
						  NULL };

int gl_path_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n > 1 && root[n - 1] == '/')
		n--;
	return n > 1 && !strncmp(path, root, n) && (path[n] == '/' || path[n] == '\0');
}

/* root (as written) resolved, and not "/"; 0 when usable. */
static int resolve_root(const char *root, char *out)
{
	return realpath(root, out) && strcmp(out, "/") ? 0 : -1;
}

/* Roots the operator adds (--allow-root, GL_ALLOWED_ROOTS), resolved;
 * process-wide, read once. A scenario cannot add to them: what a shared
 * scenario may make root read is the operator's call. */
#define OP_ROOTS_MAX 32
static char *op_roots[OP_ROOTS_MAX];
static int n_op_roots, env_read;

int gl_paths_allow_root(const char *dir, struct gl_err *err)
{
	char rr[PATH_MAX];

	if (dir[0] != '/')
		return gl_errf(err, GL_EINVAL, "allowed root '%s': expected an absolute directory path", dir);
	if (!realpath(dir, rr))
		return gl_errf(err, GL_EINVAL, "allowed root '%s': %s", dir, strerror(errno));
	if (!strcmp(rr, "/"))
		return gl_errf(err, GL_EINVAL, "allowed root '%s': \"/\" is never a root", dir);
	if (n_op_roots >= OP_ROOTS_MAX)
		return gl_errf(err, GL_ELIMIT, "at most %d allowed roots", OP_ROOTS_MAX);
	if (!(op_roots[n_op_roots] = strdup(rr)))
		return gl_errf(err, GL_ENOMEM, "out of memory");
	n_op_roots++;
	return 0;
}

int gl_paths_read_env(struct gl_err *err)
{
	const char *v = getenv("GL_ALLOWED_ROOTS");
	char buf[8192], *save = NULL;

	if (env_read)
		return 0;
	env_read = 1;
	if (!v || !*v)
		return 0;
	if (strlen(v) >= sizeof(buf))
		return gl_errf(err, GL_EINVAL, "GL_ALLOWED_ROOTS is too long");
	snprintf(buf, sizeof(buf), "%s", v);
	for (char *t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		struct gl_err e = { 0 };
		if (gl_paths_allow_root(t, &e) != 0)
			return gl_errf(err, GL_EINVAL, "GL_ALLOWED_ROOTS: %s", e.msg);
	}
	return 0;
}

/* Under a default root or one the operator allowed. */
static int operator_allows(const char *real)
{
	char rr[PATH_MAX];

	gl_paths_read_env(NULL);
	for (int i = 0; default_read_roots[i]; i++)
		if (resolve_root(default_read_roots[i], rr) == 0 && gl_path_under(real, rr))
			return 1;
	for (int i = 0; i < n_op_roots; i++)
		if (gl_path_under(real, op_roots[i]))
			return 1;
	return 0;
}

static void list_roots(char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; default_read_roots[i] && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? " " : "", default_read_roots[i]);
	for (int i = 0; i < n_op_roots && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, " %s", op_roots[i]);
}

int gl_path_confine(const char *scenario_path, const void *root_json, const char *p, char *out, size_t n,
		    struct gl_err *err)
{
	const cJSON *safety = root_json ? cJSON_GetObjectItemCaseSensitive(root_json, "safety") : NULL;
	const cJSON *roots = safety ? cJSON_GetObjectItemCaseSensitive(safety, "allowed_roots") : NULL, *r;
	const char *slash = scenario_path ? strrchr(scenario_path, '/') : NULL;
	char joined[PATH_MAX], dir[PATH_MAX], real[PATH_MAX], rr[PATH_MAX], list[2048];
	int ok = 0;

	if (!p[0])
		return gl_errf(err, GL_EINVAL, "an empty path");
	if (p[0] == '/')
		snprintf(joined, sizeof(joined), "%s", p);
	else if (slash)
		snprintf(joined, sizeof(joined), "%.*s/%s", (int)(slash - scenario_path), scenario_path, p);
	else
		snprintf(joined, sizeof(joined), "%s", p);
	if (!realpath(joined, real))
		return gl_errf(err, errno == ENOENT ? GL_ENOTFOUND : GL_EINVAL, "%s: %s", joined, strerror(errno));
	/* the scenario's own directory */
	if (slash)
		snprintf(joined, sizeof(joined), "%.*s", (int)(slash - scenario_path), scenario_path);
	else
		snprintf(joined, sizeof(joined), ".");
	if (slash == scenario_path)
		snprintf(joined, sizeof(joined), "/");
	if (resolve_root(joined, dir) == 0 && gl_path_under(real, dir))
		ok = 1;
	/* beyond it: the operator's roots, narrowed by the scenario's own
	 * safety.allowed_roots when it gives them (never widened) */
	if (!ok && operator_allows(real)) {
		if (!roots)
			ok = 1;
		else
			cJSON_ArrayForEach(r, roots) if (cJSON_IsString(r) && resolve_root(r->valuestring, rr) == 0 &&
							 gl_path_under(real, rr)) ok = 1;
	}
	if (!ok) {
		list_roots(list, sizeof(list));
		return gl_errf(err, GL_EINVAL,
			       "%s resolves to %s, outside the scenario's directory and the allowed roots (%s%s); "
			       "the operator allows more with --allow-root DIR or GL_ALLOWED_ROOTS (a scenario "
			       "cannot)",
			       p, real, list, roots ? ", narrowed by the scenario's safety.allowed_roots" : "");
	}
	/* a file to read: a FIFO would hang validate and run in open() */
	{
		struct stat st;
		if (stat(real, &st) != 0)
			return gl_errf(err, GL_EINVAL, "%s: %s", real, strerror(errno));
		if (!S_ISREG(st.st_mode))
			return gl_errf(err, GL_EINVAL, "%s%s%s is %s, expected a regular file", p,
				       strcmp(p, real) ? " resolves to " : "", strcmp(p, real) ? real : "",
				       gl_file_type_name(st.st_mode));
	}
	if (strlen(real) >= n)
		return gl_errf(err, GL_ELIMIT, "%s: path too long", p);
	memcpy(out, real, strlen(real) + 1);
	return 0;
}
