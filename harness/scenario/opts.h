/*
 * opts.h - a plug-in's options as data: one table per section gives each
 * key's type, range, default, help and where its value lands in the
 * plug-in's config struct. The table validates the section (through the
 * schema.h getters, so with their messages) and fills the struct with the
 * defaults and the given values; keys with structure (arrays, objects,
 * checks across keys) stay GL_OPT_CUSTOM: listed for the key check and the
 * docs, checked and read by the plug-in's own code.
 */
#ifndef GL_OPTS_H
#define GL_OPTS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "diag.h"

enum gl_opt_type {
	GL_OPT_CUSTOM, /* checked and read by hand */
	GL_OPT_STRING, /* char[size]; len bounds the value (schema.h) */
	GL_OPT_NAME, /* a string without control characters */
	GL_OPT_ENUM, /* one of words; stored as its index (int), -1
			  * for a word not in the list */
	GL_OPT_INT, /* a whole number in [lo, hi]; int or int64_t */
	GL_OPT_NUMBER, /* a finite number in [lo, hi]; double */
	GL_OPT_BOOL, /* int 0/1 */
	GL_OPT_DURATION, /* units.h grammar; int64_t ns */
	GL_OPT_SIZE, /* units.h grammar or bytes; uint64_t */
};

struct gl_opt {
	const char *key;
	enum gl_opt_type type;
	int required;
	double lo, hi; /* GL_OPT_INT, GL_OPT_NUMBER */
	const char *const *words; /* GL_OPT_ENUM, NULL-terminated */
	size_t len; /* GL_OPT_STRING/NAME/ENUM: bytes + 1 */
	const char *def_s; /* default of a string, enum, duration or size */
	double def_n; /* default of an int, number or bool */
	const char *help;
	size_t off, size; /* the field; size 0: not stored */
};

/* .off and .size of field f of type */
#define GL_OPT_AT(type, f) .off = offsetof(type, f), .size = sizeof(((type *)0)->f)

/* The table's keys then extra (NULL-terminated, may be NULL) are the keys
 * obj may have (gl_check_keys). */
void gl_opts_check_keys(struct gl_diag *d, const cJSON *obj, const char *path, const struct gl_opt *t, size_t n,
			const char *const *extra);
/* Every key of the table that is not GL_OPT_CUSTOM, in table order. */
void gl_opts_validate(struct gl_diag *d, const cJSON *obj, const char *path, const struct gl_opt *t, size_t n);
/* The defaults, then each value obj gives (a value of the wrong type
 * keeps the default: validation has named it already). */
void gl_opts_fill(const cJSON *obj, const struct gl_opt *t, size_t n, void *out);
/* The entry for key, or NULL. */
const struct gl_opt *gl_opts_find(const struct gl_opt *t, size_t n, const char *key);

#endif
