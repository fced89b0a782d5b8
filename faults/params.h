/*
 * params.h - reading a fault's params (and the plans made from them), the
 * same way in every fault kind: typed getters that answer NULL or a default
 * for anything absent or of the wrong type, and the unknown-key check of
 * validation with its one message:
 *   PATH.KEY: unknown key 'KEY' for WHAT, expected one of: K1, K2, ...
 * WHAT names the kind ("kind exec", "link_flap method loss", ...). Pure
 * functions of their arguments; any thread may call them. bodies.c uses the
 * getters on outside input too (tests/fuzz/fuzz_http_bodies.c).
 */
#ifndef GL_FAULT_PARAMS_H
#define GL_FAULT_PARAMS_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "diag.h"

/* o[key], or NULL when o is not an object (NULL included) or has no key. */
const cJSON *gl_param(const cJSON *o, const char *key);
/* o[key] when it is a string, else NULL. */
const char *gl_param_str(const cJSON *o, const char *key);
/* A duration string o[key] ("30s") in ns when it parses and is positive,
 * else def (validation reports the bad ones). */
int64_t gl_param_dur_ns(const cJSON *o, const char *key, int64_t def);
/* 0 and *out when v is a whole number in [lo, hi], else -1. */
int gl_json_int(const cJSON *v, long long lo, long long hi, long long *out);

/* 1 when key is one of keys (NULL-terminated). */
int gl_key_known(const char *const *keys, const char *key);
/* The unknown-key check for one member it of an object at path: when its
 * name is not in keys, report it at "PATH.NAME" (d may be NULL: count only)
 * and return 1; else 0. */
int gl_params_check_key(const cJSON *it, const char *const *keys, const char *what, struct gl_diag *d,
			const char *path);
/* The same for every member of o, in order; returns how many were unknown. */
int gl_params_check_keys(const cJSON *o, const char *const *keys, const char *what, struct gl_diag *d,
			 const char *path);

/* What follows "http://" or "https://" in s, or NULL for another scheme. */
const char *gl_url_after_scheme(const char *s);
/* params[key], when present (or required), is a non-empty array of at most
 * max strings (an argv, never run through a shell); errors at
 * "PATH.params.KEY", the missing one naming what: "method exec". */
void gl_params_check_argv(const cJSON *params, struct gl_diag *d, const char *path, const char *key, int required,
			  int max, const char *what);
/* The Kubernetes credentials of params: at most one of token_env and
 * token_file, client_cert and client_key together. */
void gl_params_check_k8s_creds(const cJSON *params, struct gl_diag *d, const char *path);

struct gl_http_opts;
/* HTTP options from a plan's Kubernetes credentials (token_env,
 * token_file, ca_bundle, client_cert, client_key). */
void gl_k8s_http_opts(const cJSON *plan, struct gl_http_opts *o, int64_t deadline_ms, size_t max_body);

#endif
