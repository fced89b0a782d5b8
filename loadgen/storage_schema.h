/*
 * storage_schema.h - the storage workload's validate and targets hooks
 * (storage_schema.c), named in its ops table (storage.c).
 */
#ifndef GL_STORAGE_SCHEMA_H
#define GL_STORAGE_SCHEMA_H

#include <stddef.h>
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

/* The section's scalar keys with their fixed defaults
 * (gl_storage_opts_read). Defaults that depend on other keys or on the
 * filesystem (threads: readers; bs: the pattern's; files; reserve; limit)
 * are storage.c's, for keys the section leaves out. */
struct gl_storage_opts {
	char path[1024];
	int pattern; /* checkpoint_write, model_load, dataset_read, mixed */
	int engine; /* sync, aio, fio; -1 unknown */
	char cgroup[1024], fio_path[1024];
	uint64_t reserve, limit, bs, file_size, rate_cap;
	int verify, read_pct, threads, readers, iodepth, files, direct;
};

void gl_storage_opts_read(const cJSON *w, struct gl_storage_opts *o);

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

/* the section's option table (opts.h), which tests/unit/test_opts.c holds
 * against docs/scenario.md */
struct gl_opt;
const struct gl_opt *gl_storage_options(size_t *n);

#endif
