/*
 * nodestate.h - reading whether the scheduler has taken a node out of
 * service, shared by drain_worker (which drains it and checks that it is)
 * and gpu_xid (which waits for the cluster's own automation to do so):
 * Kubernetes spec.unschedulable over the API server, Slurm's State= flags
 * through `scontrol show node` on a host. Also the checks of the values
 * these reach (API URL, Slurm node name) and the one Kubernetes request
 * helper both kinds use. Any thread may call them.
 */
#ifndef GL_FAULT_NODESTATE_H
#define GL_FAULT_NODESTATE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "plugin.h"

/* http(s)://host[:port] without path, query or credentials. */
int gl_api_url_ok(const char *s);
/* Slurm node names: letters, digits and _ . -, 1..63, not starting with '-'. */
int gl_slurm_node_ok(const char *s);

/* One request to the API server o["api"] (else o["url"]) with o's
 * credentials (gl_k8s_http_opts); *status the HTTP status, *json (if
 * given) the parsed JSON reply (caller deletes). kind names the fault kind
 * in errors. */
int gl_k8s_req(const cJSON *o, const char *kind, const char *method, const char *path, const char *ctype,
	       const char *body, long *status, cJSON **json, struct gl_err *err);
/* spec.unschedulable of node o["node"] into *unsched (1 cordoned). */
int gl_k8s_get_unschedulable(const cJSON *o, const char *kind, int *unsched, struct gl_err *err);
/* The State= value of `scontrol show node NODE` run on h into st. */
int gl_scontrol_node_state(const struct gl_host *h, const char *node, const char *kind, char *st, size_t n,
			   struct gl_err *err);

#endif
