/*
 * schema.h - the typed getters every scenario section is validated with:
 * the scenario's own sections (scenario.c) and each workload's section
 * (its ops table's validate hook, loadgen/<name>_schema.c). Each getter
 * reports its own errors through the struct gl_diag, naming the JSON path
 * path.key and the value's place in the file; none ever stops at the first.
 *
 * Getters of a key return 1 when the value was present and good (*out set),
 * 0 when absent (an error when required), -1 when present and bad.
 */
#ifndef GL_SCHEMA_H
#define GL_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "diag.h"

/* "an object", "a string", ... for "expected X, got Y" messages. */
const char *gl_json_type_name(const cJSON *v);
/* out = "path.key", or "key" when path is empty. */
void gl_join(char *out, size_t n, const char *path, const char *key);
/* Every key of obj must be in allowed (NULL-terminated): an unknown one is
 * an error with a did-you-mean, or the list of the allowed keys. */
void gl_check_keys(struct gl_diag *d, const cJSON *obj, const char *path, const char *const *allowed);
/* A string shorter than n bytes; required ones must not be empty. */
int gl_get_string(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, char *out,
		  size_t n);
/* The first control character (byte < 0x20 or DEL) in s, or NULL. */
const char *gl_control_char(const char *s);
/* A name that reaches logs, the timeline, status and reports (scenario
 * name, phase names, fault ids): a string without control characters. */
int gl_get_name(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, char *out,
		size_t n);
/* "90s", "10m", "1h30m" (units.h grammar). */
int gl_get_duration(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, int64_t *out);
/* "4KiB", "8GiB" or a whole number of bytes. */
int gl_get_size(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, uint64_t *out);
/* A finite number in [lo, hi]. */
int gl_get_number(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, double lo,
		  double hi, double *out);
/* A whole number in [lo, hi]. */
int gl_get_int(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required, long lo, long hi,
	       long *out);
/* true or false (never required). */
int gl_get_bool(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int *out);
/* A string that is one of choices (NULL-terminated). */
int gl_get_enum(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required,
		const char *const *choices, char *out, size_t n);
/* v is an object; otherwise an error at path, and 0. */
int gl_want_object(struct gl_diag *d, const cJSON *v, const char *path);
/* An array of strings (argv pieces) under key; absent is an error only
 * when required. */
void gl_check_string_array(struct gl_diag *d, const cJSON *obj, const char *key, const char *path, int required);

/* path.hosts: a non-empty array of "host:slots" (":slots" may be left
 * out), each naming a host of the scenario, slots 1 to max_slots; range
 * is how the slot message states it, example the array the type message
 * shows. Returns 1 when one of them is not a local host. */
struct gl_scenario;
int gl_check_host_slots(const struct gl_scenario *s, struct gl_diag *d, const cJSON *hosts, const char *path,
			long max_slots, const char *range, const char *example);

/* A workload's "agents" section (docs/agents.md): launcher, count, hosts
 * ("host:slots", the scenario's hosts), launcher_args, launcher_path,
 * binary, listen, connect_timeout, settle, backoff, max_restarts. s is
 * parsed up to its hosts. */
void gl_check_agents(const struct gl_scenario *s, struct gl_diag *d, const cJSON *w, const char *path);

#endif
