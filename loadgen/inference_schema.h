/*
 * inference_schema.h - the inference workload's validate and targets hooks
 * (inference_schema.c), named in its ops table (inference.c).
 */
#ifndef GL_INFERENCE_SCHEMA_H
#define GL_INFERENCE_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "scenario.h"

struct gl_target_need;

/* arrival.mode's words, in order */
enum gl_inference_mode { GL_INF_POISSON, GL_INF_CONSTANT, GL_INF_GAMMA, GL_INF_TRACE, GL_INF_CLOSED };
/* "client"'s words, in order */
enum { GL_INF_CLIENT_AUTO, GL_INF_CLIENT_CURL };

/* The section's scalar keys, defaults filled in (gl_inference_opts_read);
 * endpoints, adapters, slo, agents and arrival.rate are read by hand. */
struct gl_inference_opts {
	int api; /* 0 chat, 1 completions */
	char model[256];
	char trace[1024];
	int trace_format; /* enum gl_trace_format; -1 unknown */
	int max_in_flight;
	int64_t timeout_ns, ttft_timeout_ns, idle_timeout_ns;
	int stream, http2, ignore_eos, drop_failed, preflight;
	int client; /* GL_INF_CLIENT_AUTO or GL_INF_CLIENT_CURL */
	int64_t input_tokens, output_tokens;
	uint64_t seed;
	int balance; /* 0 round_robin, 1 least_in_flight */
	char ca_bundle[1024];
	/* "arrival" */
	int mode; /* enum gl_inference_mode; -1 unknown */
	double cv, speed;
	int users;
	int64_t think_ns, start_ns, end_ns;
	int loop;
};

void gl_inference_opts_read(const cJSON *w, struct gl_inference_opts *o);

void gl_inference_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path);
/* its ops table's targets hook (plugin.h) */
void gl_inference_targets(const cJSON *w, struct gl_target_need *n);

/* the section's option tables (opts.h), which tests/unit/test_opts.c
 * holds against docs/scenario.md */
struct gl_opt;
const struct gl_opt *gl_inference_options(size_t *n);
const struct gl_opt *gl_inference_arrival_options(size_t *n);

#endif
