/*
 * null_schema.h - the null workload's validate and targets hooks
 * (null_schema.c), named in its ops table (null.c).
 */
#ifndef GL_NULL_SCHEMA_H
#define GL_NULL_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

struct gl_target_need;

void gl_null_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path);
/* its ops table's targets hook (plugin.h) */
void gl_null_targets(const cJSON *w, struct gl_target_need *n);

/* the section's keys, defaults filled in */
struct gl_null_opts {
	double rate, spin_us;
	int64_t debug_every; /* 0: never */
};
void gl_null_opts_read(const cJSON *w, struct gl_null_opts *o);

/* the section's option table (opts.h), which tests/unit/test_opts.c holds
 * against docs/scenario.md */
struct gl_opt;
const struct gl_opt *gl_null_options(size_t *n);

/* null_sim.c: its model for `gauntlet simulate` (plugin.h) */
extern const struct gl_workload_sim gl_null_sim;

#endif
