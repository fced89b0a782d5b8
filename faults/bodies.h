/*
 * bodies.h - what the fault kinds read out of the answers of the systems
 * they drive: Kubernetes API objects (node, pod list, Status), slurmrestd
 * node replies, `scontrol show node` text, `dcgmi dmon` tables, Redfish ComputerSystem and the
 * etcd JSON gateway. These are outside input: each function is pure (no
 * I/O, no globals), bounded by its output buffer, and answers any input,
 * garbage included, with a classified result, so drain_worker.c and
 * control_plane_loss's cplane_redfish.c and cplane_probe.c call exactly
 * what tests/fuzz/fuzz_http_bodies.c fuzzes. Any thread may call them.
 * cJSON arguments may be NULL or of the wrong type; strings written to out
 * are always NUL-terminated (n > 0).
 */
#ifndef GL_BODIES_H
#define GL_BODIES_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util.h"

/* ---- Kubernetes ---- */

/* 1 for a DNS-subdomain object name ([a-z0-9.-], 1..253, not starting with
 * '-' or '.'), safe to put in a URL path unescaped. */
int gl_k8s_name_ok(const char *s);
/* "reason: message" of a Status object into out ("" when it has neither). */
void gl_k8s_status_why(const cJSON *status, char *out, size_t n);
/* 1 when a Node object's spec.unschedulable is true, else 0. */
int gl_k8s_node_unschedulable(const cJSON *node);
/* The "items" of a pod list (GET /api/v1/pods) in *items (borrowed).
 * Returns 0, or -GL_EIO (no "items" list) / -GL_ELIMIT (more than max_pods)
 * with err filled ("what" names the request in the message). */
int gl_k8s_pod_items(const cJSON *list, int max_pods, const char *what, const cJSON **items, struct gl_err *err);
/* What a drain does with one pod of the list: 0: evict it, *ns and *name
 * set (borrowed, both pass gl_k8s_name_ok); 1: leave it alone, *skip says
 * why (DaemonSet-owned, mirror pod, finished; a static string);
 * -GL_EINVAL: it must be evicted but its name or namespace is unusable. */
int gl_k8s_pod_verdict(const cJSON *pod, const char **ns, const char **name, const char **skip);

/* ---- Slurm ---- */

/* The first entry of a slurmrestd reply's "errors" list as "error:
 * description" into out ("" when the list is absent or empty). */
void gl_slurmrest_error(const cJSON *reply, char *out, size_t n);
/* nodes[0].state of a slurmrestd node reply (a string or a list of flags,
 * joined with '+') into st. Returns 0, or -GL_EINVAL when there is none. */
int gl_slurmrest_node_state(const cJSON *reply, char *st, size_t n);
/* The State= value of `scontrol show node` output (text, len bytes, NUL
 * bytes allowed) into st. Returns 0, or -GL_EINVAL when there is none. */
int gl_scontrol_state(const char *text, size_t len, char *st, size_t n);
/* 1 when one of the '+'-separated flags of st is DRAIN, DRAINING or DRAINED. */
int gl_slurm_state_drained(const char *st);

/* The port's logical state in `ibstat CA PORT` output (text, len bytes,
 * NUL bytes allowed): the value of the first line whose text, after
 * leading blanks, starts "State:" ("Down", "Initializing", "Armed",
 * "Active"; not the "Physical state:" line) into st, one word. Returns 0,
 * or -GL_EINVAL when there is none. */
int gl_ibstat_state(const char *text, size_t len, char *st, size_t n);
/* ---- DCGM (dcgmi) ---- */

/* The value in GPU gpu's row of `dcgmi dmon -e FIELD -c 1` output (text,
 * len bytes, NUL bytes allowed): header lines start with '#', a row is
 * "GPU N" then the field's value ("GPU-I", "GPU-CI" and other entities
 * are not GPU rows). Returns 0 with *value, 1 when the row shows N/A (a
 * blank reading), -GL_EINVAL when there is no such row or its value is
 * not a finite number. */
int gl_dcgmi_dmon_value(const char *text, size_t len, int gpu, double *value);
/* 1 when `dcgmi test --inject` output says the value went in
 * ("Successfully injected field info."), else 0. */
int gl_dcgmi_inject_ok(const char *text, size_t len);

/* ---- Redfish, etcd ---- */

/* PowerState of a ComputerSystem body (len bytes) into state. Returns 0, or
 * -GL_EINVAL when the body is not JSON or has no string PowerState. */
int gl_redfish_power_state(const char *body, size_t len, char *state, size_t n);
/* 1 when an etcd /health body says healthy ({"health":"true",...}). */
int gl_etcd_health_ok(const char *body, size_t len);
/* 1 when an etcd /v3/kv/put body is an accepted write (a "header", no "error"). */
int gl_etcd_put_ok(const char *body, size_t len);

/* A Deployment's rollout as `kubectl rollout status` reads it: 1 complete
 * (new generation observed, every replica updated and available, no old
 * one left), 0 still going (why says what it waits for), -1 failed for
 * good (Progressing condition ProgressDeadlineExceeded; why says so). why
 * is always a NUL-terminated string. */
int gl_k8s_rollout_done(const cJSON *dep, char *why, size_t n);
/* Index in a Deployment's spec.template.spec.containers of the container
 * named name, or (name NULL) of the only one; -1 when there is none. */
int gl_k8s_container_index(const cJSON *dep, const char *name);
/* An OpenAI /v1/models list: 1 when it holds id (with *root_ok 1 when its
 * "root" is root, or root is NULL, or the entry shows none), else 0. */
int gl_oai_models_has(const cJSON *list, const char *id, const char *root, int *root_ok);

#endif
