/*
 * jsonc.h - JSON with line (//) and block comments, parsed into a cJSON tree with
 * the source position of every value kept, so that errors found later (in
 * validation) can still name file:line:col.
 *
 * The parser is strict and bounded: valid UTF-8 only, nesting depth at most
 * GL_JSONC_MAX_DEPTH, duplicate object keys rejected, numbers must be finite,
 * trailing garbage rejected. Syntax errors read
 *   "NAME:LINE:COL: <what was found>, expected <what was expected>".
 */
#ifndef GL_JSONC_H
#define GL_JSONC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util.h"

#define GL_JSONC_MAX_DEPTH 64

struct gl_jsonc_doc; /* opaque: the tree plus a node -> position map */

/* Parse text (len bytes, need not be NUL-terminated). name is used in error
 * messages (usually the file path). Returns NULL and fills err on failure.
 * Free with gl_jsonc_free. */
struct gl_jsonc_doc *gl_jsonc_parse(const char *text, size_t len, const char *name, struct gl_err *err);
void gl_jsonc_free(struct gl_jsonc_doc *doc);

/* The root value; borrowed, valid until gl_jsonc_free. */
cJSON *gl_jsonc_root(const struct gl_jsonc_doc *doc);
const char *gl_jsonc_name(const struct gl_jsonc_doc *doc);

/* Where a node of this document's tree starts (1-based line and column, in
 * bytes). For an object member, the position of its key. Returns 0, or -1
 * when node does not belong to this document. */
int gl_jsonc_where(const struct gl_jsonc_doc *doc, const cJSON *node, int *line, int *col);

#endif
