/*
 * secrets.c - secrets moved out of the environment (secrets.h).
 */
#include "secrets.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define SECRETS_MAX 64

static struct {
	char *name, *value;
} kept[SECRETS_MAX];
static int n_kept;

static int ends_with_env(const char *key)
{
	size_t n = key ? strlen(key) : 0;
	return n > 4 && !strcmp(key + n - 4, "_env");
}

static void take(const char *name)
{
	const char *v;

	for (int i = 0; i < n_kept; i++)
		if (!strcmp(kept[i].name, name))
			return;
	v = getenv(name);
	if (!v || n_kept == SECRETS_MAX)
		return;
	kept[n_kept].name = strdup(name);
	kept[n_kept].value = strdup(v);
	if (!kept[n_kept].name || !kept[n_kept].value) {
		free(kept[n_kept].name);
		free(kept[n_kept].value);
		return;
	}
	n_kept++;
	/* Wipe the value where it lies too: for a variable from exec it is
	 * the block /proc/PID/environ shows, which unsetenv leaves alone. */
	memset((char *)v, 0, strlen(v));
	unsetenv(name);
}

static void walk(const cJSON *j)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, j)
	{
		if (cJSON_IsString(c) && ends_with_env(c->string) && c->valuestring[0])
			take(c->valuestring);
		else if (cJSON_IsObject(c) || cJSON_IsArray(c))
			walk(c);
	}
}

int gl_secrets_take(const void *root)
{
	int before = n_kept;

	if (root)
		walk(root);
	return n_kept - before;
}

const char *gl_secret_getenv(const char *name)
{
	for (int i = 0; i < n_kept; i++)
		if (!strcmp(kept[i].name, name))
			return kept[i].value;
	return getenv(name);
}

int gl_secret_read(const char *env, const char *path, char *out, size_t n, struct gl_err *err)
{
	char *text = NULL;
	size_t len = 0;

	out[0] = '\0';
	if (env) {
		const char *v = gl_secret_getenv(env);
		if (!v || !*v)
			return gl_errf(err, GL_EINVAL, "the variable %s is not set", env);
		if (strlen(v) >= n)
			return gl_errf(err, GL_ELIMIT, "the variable %s holds more than %zu bytes", env, n - 1);
		for (const char *q = v; *q; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				return gl_errf(err, GL_EINVAL,
					       "the variable %s holds a control character (byte %zu): refused, it "
					       "would reach a request header",
					       env, (size_t)(q - v) + 1);
		memcpy(out, v, strlen(v) + 1);
		return 0;
	}
	if (!path)
		return 0;
	if (gl_read_file(path, 16384, &text, &len, err) != 0)
		return -GL_EINVAL;
	while (len > 0 && strchr("\r\n \t", text[len - 1]))
		text[--len] = '\0';
	if (len >= n) {
		memset(text, 0, len);
		free(text);
		return gl_errf(err, GL_ELIMIT, "%s: more than %zu bytes", path, n - 1);
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f) {
			memset(text, 0, len);
			free(text);
			/* a CR LF inside would add a header to every request */
			return gl_errf(err, GL_EINVAL,
				       "%s: the secret holds a control character (byte %zu): refused, it would "
				       "reach a request header",
				       path, i + 1);
		}
	memcpy(out, text, len + 1);
	memset(text, 0, len);
	free(text);
	return 0;
}

void gl_secrets_clear(void)
{
	for (int i = 0; i < n_kept; i++) {
		/* volatile: the wipe must not be optimised away */
		volatile char *p = kept[i].value;
		while (*p)
			*p++ = 0;
		free(kept[i].value);
		free(kept[i].name);
	}
	n_kept = 0;
}
