/*
 * inference_schema.h - the inference workload's validate and targets hooks
 * (inference_schema.c), named in its ops table (inference.c).
 */
#ifndef GL_INFERENCE_SCHEMA_H
#define GL_INFERENCE_SCHEMA_H

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

struct gl_target_need;

void gl_inference_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path);
/* its ops table's targets hook (plugin.h) */
void gl_inference_targets(const cJSON *w, struct gl_target_need *n);

#endif
