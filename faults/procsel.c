/*
 * procsel.c - see procsel.h.
 */
#include "procsel.h"

#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "scenario.h"
#include "util.h"

/*
 * A pattern that matches the empty string matches every command line; one
 * that matches all of a few unrelated probes ("." and friends) nearly so.
 * Narrower but still broad patterns are stopped at run time by max_matches.
 */
const char *gl_pattern_problem(const char *pat, char *buf, size_t n)
{
	static const char *const probes[] = { "a", "Z", "0", "/", "-", " ", "zq8#W~" };
	regex_t re;
	int rc, all = 1;

	if (!pat[0])
		return "an empty pattern matches every process";
	if (strlen(pat) > GL_PATTERN_MAX) {
		snprintf(buf, n, "pattern too long (at most %d bytes)", GL_PATTERN_MAX);
		return buf;
	}
	for (const char *p = pat; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "control characters are not allowed in a pattern";
	rc = regcomp(&re, pat, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		char why[128];
		regerror(rc, &re, why, sizeof(why));
		snprintf(buf, n, "not a valid extended regular expression (pgrep -f syntax): %s", why);
		return buf;
	}
	if (regexec(&re, "", 0, NULL, 0) == 0) {
		regfree(&re);
		return "the pattern matches the empty string, so it would match every process";
	}
	for (size_t i = 0; i < GL_ARRAY_LEN(probes) && all; i++)
		all = regexec(&re, probes[i], 0, NULL, 0) == 0;
	regfree(&re);
	return all ? "the pattern matches any command line; name the process (e.g. \"vllm serve\" or \"etcd --name "
		     "m1\")"
		   : NULL;
}

int gl_safe_abs_path(const char *s)
{
	if (!s || s[0] != '/' || strlen(s) > 200 || strstr(s, "/../") || strstr(s, "/./"))
		return 0;
	if (strlen(s) >= 3 && !strcmp(s + strlen(s) - 3, "/.."))
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      strchr("/._-", *p)))
			return 0;
	return 1;
}

void gl_procsel_state_file(char *out, size_t n, const char *dir, const char *prefix, const char *id)
{
	char safe[GL_NAME_MAX];
	unsigned int token = 0;

	snprintf(safe, sizeof(safe), "%s", id);
	for (char *c = safe; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
		      *c == '_' || *c == '.'))
			*c = '_';
	if (getrandom(&token, sizeof(token), GRND_NONBLOCK) != (ssize_t)sizeof(token))
		token = (unsigned int)(gl_wall_ns() ^ ((int64_t)getpid() << 16));
	snprintf(out, n, "%s/%s-%s-%08x.pids", dir, prefix, safe, token);
}

void gl_argv_add_env(cJSON *argv, const char *key, const char *val)
{
	char kv[1024]; /* GL_STATE=<dir, <= 200>/<prefix>-<id, <= 63>-<8 hex>.pids fits */
	snprintf(kv, sizeof(kv), "%s=%s", key, val);
	cJSON_AddItemToArray(argv, cJSON_CreateString(kv));
}
