/*
 * opts.c - validating a section against its option table and filling the
 * plug-in's config struct from it (opts.h).
 */
#include "opts.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cfg.h"
#include "schema.h"
#include "units.h"

#define KEYS_MAX 96

void gl_opts_check_keys(struct gl_diag *d, const cJSON *obj, const char *path, const struct gl_opt *t, size_t n,
			const char *const *extra)
{
	const char *keys[KEYS_MAX + 1];
	size_t k = 0;

	for (size_t i = 0; i < n && k < KEYS_MAX; i++)
		keys[k++] = t[i].key;
	for (size_t i = 0; extra && extra[i] && k < KEYS_MAX; i++)
		keys[k++] = extra[i];
	keys[k] = NULL;
	gl_check_keys(d, obj, path, keys);
}

static void validate_one(struct gl_diag *d, const cJSON *obj, const char *path, const struct gl_opt *o)
{
	char buf[4096];
	long l;
	double x;
	int64_t ns;
	uint64_t u;
	int b;
	size_t len = o->len && o->len <= sizeof(buf) ? o->len : sizeof(buf);

	switch (o->type) {
	case GL_OPT_CUSTOM: break;
	case GL_OPT_STRING: gl_get_string(d, obj, o->key, path, o->required, buf, len); break;
	case GL_OPT_NAME: gl_get_name(d, obj, o->key, path, o->required, buf, len); break;
	case GL_OPT_ENUM: gl_get_enum(d, obj, o->key, path, o->required, o->words, buf, len); break;
	case GL_OPT_INT: gl_get_int(d, obj, o->key, path, o->required, (long)o->lo, (long)o->hi, &l); break;
	case GL_OPT_NUMBER: gl_get_number(d, obj, o->key, path, o->required, o->lo, o->hi, &x); break;
	case GL_OPT_BOOL: gl_get_bool(d, obj, o->key, path, &b); break;
	case GL_OPT_DURATION: gl_get_duration(d, obj, o->key, path, o->required, &ns); break;
	case GL_OPT_SIZE: gl_get_size(d, obj, o->key, path, o->required, &u); break;
	}
}

void gl_opts_validate(struct gl_diag *d, const cJSON *obj, const char *path, const struct gl_opt *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		validate_one(d, obj, path, &t[i]);
}

static int word_index(const char *const *words, const char *s)
{
	for (int i = 0; s && words[i]; i++)
		if (!strcmp(words[i], s))
			return i;
	return -1;
}

/* A whole number into an int or an int64_t field. */
static void put_int(void *dst, size_t size, double v)
{
	if (size == sizeof(int64_t)) {
		int64_t x = (int64_t)v;
		memcpy(dst, &x, sizeof(x));
	} else if (size == sizeof(int)) {
		int x = (int)v;
		memcpy(dst, &x, sizeof(x));
	}
}

static void fill_one(const cJSON *obj, const struct gl_opt *o, char *dst)
{
	int64_t ns = 0;
	uint64_t u = 0;
	double x;
	int i;

	switch (o->type) {
	case GL_OPT_CUSTOM: break;
	case GL_OPT_STRING:
	case GL_OPT_NAME: snprintf(dst, o->size, "%s", gl_cfg_str(obj, o->key, o->def_s ? o->def_s : "")); break;
	case GL_OPT_ENUM:
		i = word_index(o->words, gl_cfg_str(obj, o->key, o->def_s));
		memcpy(dst, &i, sizeof(i));
		break;
	case GL_OPT_INT: put_int(dst, o->size, (double)gl_cfg_int(obj, o->key, (long)o->def_n)); break;
	case GL_OPT_NUMBER:
		x = gl_cfg_num(obj, o->key, o->def_n);
		memcpy(dst, &x, sizeof(x));
		break;
	case GL_OPT_BOOL:
		i = gl_cfg_bool(obj, o->key, o->def_n != 0);
		memcpy(dst, &i, sizeof(i));
		break;
	case GL_OPT_DURATION:
		if (o->def_s)
			gl_parse_duration_ns(o->def_s, &ns, NULL);
		ns = gl_cfg_dur(obj, o->key, ns);
		memcpy(dst, &ns, sizeof(ns));
		break;
	case GL_OPT_SIZE:
		if (o->def_s)
			gl_parse_size_bytes(o->def_s, &u, NULL);
		u = gl_cfg_size(obj, o->key, u);
		memcpy(dst, &u, sizeof(u));
		break;
	}
}

void gl_opts_fill(const cJSON *obj, const struct gl_opt *t, size_t n, void *out)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].size)
			fill_one(obj, &t[i], (char *)out + t[i].off);
}

const struct gl_opt *gl_opts_find(const struct gl_opt *t, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].key, key))
			return &t[i];
	return NULL;
}
