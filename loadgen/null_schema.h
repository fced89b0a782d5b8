/*
 * null_schema.h - the null workload's validate hook (null_schema.c), named in
 * its ops table (null.c).
 */
#ifndef GL_NULL_SCHEMA_H
#define GL_NULL_SCHEMA_H

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

void gl_null_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path);

#endif
