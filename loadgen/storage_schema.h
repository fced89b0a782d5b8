/*
 * storage_schema.h - the storage workload's validate and targets hooks
 * (storage_schema.c), named in its ops table (storage.c).
 */
#ifndef GL_STORAGE_SCHEMA_H
#define GL_STORAGE_SCHEMA_H

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

struct gl_target_need;

void gl_storage_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path);
/* its ops table's targets hook (plugin.h) */
void gl_storage_targets(const cJSON *w, struct gl_target_need *n);

#endif
