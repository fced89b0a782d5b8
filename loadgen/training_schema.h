/*
 * training_schema.h - the training workload's validate and targets hooks
 * (training_schema.c), named in its ops table (training.c).
 */
#ifndef GL_TRAINING_SCHEMA_H
#define GL_TRAINING_SCHEMA_H

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

struct gl_target_need;

void gl_training_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path);
/* its ops table's targets and fault_targets hooks (plugin.h) */
void gl_training_targets(const cJSON *w, struct gl_target_need *n);
void gl_training_fault_targets(const cJSON *w, struct gl_target_need *n);

#endif
