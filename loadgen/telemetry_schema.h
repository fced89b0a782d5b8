/*
 * telemetry_schema.h - the telemetry workload's targets hook
 * (telemetry_schema.c), incident kinds (telemetry_analysis.c) and model
 * (telemetry_sim.c), named in its ops table (telemetry.c).
 */
#ifndef GL_TELEMETRY_SCHEMA_H
#define GL_TELEMETRY_SCHEMA_H

#include <cjson/cJSON.h>

#include "plugin.h"

struct gl_target_need;

void gl_telemetry_targets(const cJSON *cfg, struct gl_target_need *n);

/* telemetry_analysis.c: its incident kinds (plugin.h) */
extern const struct gl_incident_rule gl_telemetry_incidents[];
/* telemetry_sim.c: its model for `gauntlet simulate` */
extern const struct gl_workload_sim gl_telemetry_sim;

#endif
