/*
 * model_swap_int.h - what the model_swap fault kind's files share.
 *
 *   model_swap.c           the kind: its plan, method exec, the steps and
 *                          preflight by method, the dead-man's switch, the
 *                          ops table
 *   model_swap_validate.c  params checked, per method
 *   model_swap_lora.c      method lora (vLLM's adapter API)
 *   model_swap_k8s.c       method kubernetes (a Deployment, by JSON Patch)
 */
#ifndef GL_MODEL_SWAP_INT_H
#define GL_MODEL_SWAP_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "plugin.h"

#define MS_MAX_ENDPOINTS 64
#define MS_MAX_ARGS 64
#define MS_POLL_NS (200LL * 1000000LL)
#define MS_VERIFY_WAIT_NS (30LL * 1000000000LL)
#define MS_DEF_TIMEOUT_NS (60LL * 1000000000LL)
#define MS_DEF_ROLLOUT_NS (600LL * 1000000000LL)
#define MS_ANN_TEMPLATE "gauntlet.dev/previous-template"
#define MS_ANN_FAULT "gauntlet.dev/fault"
/* the same keys as JSON Pointer tokens ('/' is "~1") */
#define MS_PTR_TEMPLATE "/metadata/annotations/gauntlet.dev~1previous-template"
#define MS_PTR_FAULT "/metadata/annotations/gauntlet.dev~1fault"

enum ms_method { MS_LORA, MS_K8S, MS_EXEC };

/* model_swap.c */
extern const char *const ms_methods[]; /* by enum ms_method */
enum ms_method ms_method_of(const char *m); /* lora when m is NULL */
void ms_snippet(const struct gl_buf *b, char *out, size_t n);

/* model_swap_validate.c */
void ms_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path);
const char *ms_action_of(const cJSON *params); /* "unload" when not given */

/* model_swap_lora.c: inject 1 for inject, 0 for revert; after_inject 1
 * for verify, 0 for verify_revert; preflight returns 1 when a check failed */
int ms_lora_step(const cJSON *plan, int inject, struct gl_err *err);
int ms_lora_check(const cJSON *plan, int after_inject, struct gl_err *err);
int ms_lora_preflight(struct gl_ctx *c, const cJSON *plan, const char *subject);
void ms_lora_describe(const cJSON *plan, struct gl_buf *out);

/* model_swap_k8s.c: follow waits for the rollout, the annotation present
 * (want_annotation 1, after inject) or gone, then the probe */
int ms_k8s_inject(const cJSON *plan, struct gl_err *err);
int ms_k8s_revert(const cJSON *plan, struct gl_err *err);
int ms_k8s_follow(const cJSON *plan, int want_annotation, struct gl_err *err);
int ms_k8s_preflight(struct gl_ctx *c, const cJSON *plan, const char *subject);
void ms_k8s_describe(const cJSON *plan, struct gl_buf *out);

#endif
