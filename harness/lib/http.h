/*
 * http.h - the http transport: one blocking HTTP request with libcurl, a
 * deadline, a capped response body, bearer token or client certificate,
 * and a CA bundle. For fault kinds and probes that talk to APIs
 * (Kubernetes, slurmrestd, Redfish, the etcd v3 JSON gateway). Call it from
 * the fault executor thread or at preflight, never on the event loop.
 *
 * Secrets: the bearer token is read from an environment variable or a file
 * at call time and goes only into the request header; error messages name
 * the URL and status, never the token.
 */
#ifndef GL_HTTP_H
#define GL_HTTP_H

#include <stdint.h>

#include "util.h"

struct gl_http_opts {
	const char *token_env; /* bearer token from this variable, or */
	const char *token_file; /* from this file (trailing newline dropped) */
	const char *basic_user_env, *basic_pass_env; /* HTTP basic (Redfish), from env */
	const char *ca_bundle; /* CA file; NULL: the system's */
	const char *client_cert, *client_key; /* mTLS (Kubernetes) */
	int64_t deadline_ms; /* whole request; 0: 30 s */
	size_t max_body; /* response cap; 0: 4 MiB */
};

struct gl_http_resp {
	long status; /* 0 when no response */
	struct gl_buf body; /* free with gl_buf_free */
};

/* method "GET", "POST", "PATCH", "DELETE", "PUT"; body may be NULL.
 * Returns 0 when a response came (any status), negative with err naming
 * method, URL and cause otherwise (-GL_ESTOPPED: a stop request ended it,
 * gl_http_stoppable). resp->body must be freed either way. */
int gl_http_do(const char *method, const char *url, const char *content_type, const char *body,
	       const struct gl_http_opts *o, struct gl_http_resp *resp, struct gl_err *err);

/* Make the libcurl easy handle curl end its transfer
 * (CURLE_ABORTED_BY_CALLBACK) once a stop request interrupts the calling
 * thread (stop.h): libcurl asks at least about once a second, even while
 * nothing arrives. gl_http_do does it for its own requests. */
void gl_http_stoppable(void *curl);

#endif
