/*
 * inference_schema.h - the inference workload's validate hook (inference_schema.c), named in
 * its ops table (inference.c).
 */
#ifndef GL_INFERENCE_SCHEMA_H
#define GL_INFERENCE_SCHEMA_H

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

void gl_inference_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path);

#endif
