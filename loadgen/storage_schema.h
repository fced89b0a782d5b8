/*
 * storage_schema.h - the storage workload's validate and targets hooks
 * (storage_schema.c), named in its ops table (storage.c).
 */
#ifndef GL_STORAGE_SCHEMA_H
#define GL_STORAGE_SCHEMA_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

struct gl_target_need;

void gl_storage_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path);
/* its ops table's targets hook (plugin.h) */
void gl_storage_targets(const cJSON *w, struct gl_target_need *n);
/* its ops table's spikes hook (plugin.h): each spike of "spikes" */
struct gl_load_spike;
int gl_storage_spikes(const cJSON *w, struct gl_load_spike *out, int max);

/* storage "cold_start": {"readers": N, "size": X, "within": Y}: N readers
 * each load X within Y, i.e. an aggregate read rate of N*X/1e9/Y GB/s
 * (the read target it implies; the reports show it). 0, or -1 when o is
 * not such an object. */
struct gl_cold_start {
	int readers;
	uint64_t bytes_each;
	int64_t within_ns;
	double required_gbps;
};
int gl_cold_start_parse(const cJSON *o, struct gl_cold_start *out);

#endif
