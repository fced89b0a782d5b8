/*
 * telemetry_schema.h - the telemetry workload's targets hook
 * (telemetry_schema.c) and incident kinds (telemetry_analysis.c), named
 * in its ops table (telemetry.c).
 */
#ifndef GL_TELEMETRY_SCHEMA_H
#define GL_TELEMETRY_SCHEMA_H

#include <cjson/cJSON.h>

#include "plugin.h"

struct gl_target_need;

void gl_telemetry_targets(const cJSON *cfg, struct gl_target_need *n);

/* telemetry_analysis.c: its incident kinds (plugin.h) */
extern const struct gl_incident_rule gl_telemetry_incidents[];

#endif
