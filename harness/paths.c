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

#include <cjson/cJSON.h>

/* Where traces, key files and inventories usually live on a cluster's
 * admin node (and the lab's directory). */
static const char *const default_read_roots[] = { "/var/lib/gauntlet-lab", "/etc/gauntlet", "/data", "/mnt",
						  "/srv", "/scratch", "/home", "/tmp", "/var/tmp", "/lustre",
						  "/gpfs", "/opt/gauntlet", NULL };

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

int gl_path_confine(const char *scenario_path, const void *root_json, const char *p, char *out, size_t n,
		    struct gl_err *err)
{
	const cJSON *safety = root_json ? cJSON_GetObjectItemCaseSensitive(root_json, "safety") : NULL;
	const cJSON *roots = safety ? cJSON_GetObjectItemCaseSensitive(safety, "allowed_roots") : NULL, *r;
	const char *slash = scenario_path ? strrchr(scenario_path, '/') : NULL;
	char joined[PATH_MAX], dir[PATH_MAX], real[PATH_MAX], rr[PATH_MAX];
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
		return gl_errf(err, GL_EINVAL, "%s: %s", joined, strerror(errno));
	/* the scenario's own directory */
	if (slash)
		snprintf(joined, sizeof(joined), "%.*s", (int)(slash - scenario_path), scenario_path);
	else
		snprintf(joined, sizeof(joined), ".");
	if (slash == scenario_path)
		snprintf(joined, sizeof(joined), "/");
	if (resolve_root(joined, dir) == 0 && gl_path_under(real, dir))
		ok = 1;
	if (roots) {
		cJSON_ArrayForEach(r, roots) {
			if (cJSON_IsString(r) && resolve_root(r->valuestring, rr) == 0 && gl_path_under(real, rr))
				ok = 1;
		}
	} else {
		for (int i = 0; default_read_roots[i]; i++)
			if (resolve_root(default_read_roots[i], rr) == 0 && gl_path_under(real, rr))
				ok = 1;
	}
	if (!ok)
		return gl_errf(err, GL_EINVAL,
			       "%s resolves to %s, outside the scenario's directory and the allowed roots (%s); "
			       "name its directory in safety.allowed_roots if it is meant",
			       p, real, roots ? "safety.allowed_roots" : "/var/lib/gauntlet-lab /etc/gauntlet /data /mnt "
			       "/srv /scratch /home /tmp /var/tmp /lustre /gpfs /opt/gauntlet");
	if (strlen(real) >= n)
		return gl_errf(err, GL_ELIMIT, "%s: path too long", p);
	memcpy(out, real, strlen(real) + 1);
	return 0;
}
