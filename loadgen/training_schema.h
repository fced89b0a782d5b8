/*
 * training_schema.h - the training workload's validate hook (training_schema.c), named in
 * its ops table (training.c).
 */
#ifndef GL_TRAINING_SCHEMA_H
#define GL_TRAINING_SCHEMA_H

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

void gl_training_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path);

#endif
