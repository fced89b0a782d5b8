/*
 * drain_worker_int.h - what the drain_worker fault kind's files share:
 * drain_worker.c (plan, steps, preflight, dead-man) and
 * drain_worker_validate.c (its params).
 */
#ifndef GL_DRAIN_WORKER_INT_H
#define GL_DRAIN_WORKER_INT_H

#include <string.h>

#include "plugin.h"

#define DW_CMD_TIMEOUT_MS 30000
#define DW_EVICT_DEADLINE_NS (120LL * 1000000000LL)
#define DW_POLL_NS (200LL * 1000000LL)
#define DW_VERIFY_WAIT_NS (10LL * 1000000000LL)
#define DW_MAX_ARGS 64
#define DW_MAX_PODS 10000
#define DW_REASON_MAX 200
#define DW_SLURMRESTD_VERSION "v0.0.40"

enum dw_method { DW_SLURM, DW_K8S, DW_EXEC };

static inline enum dw_method method_of(const char *m)
{
	return m && !strcmp(m, "kubernetes") ? DW_K8S : m && !strcmp(m, "exec") ? DW_EXEC : DW_SLURM;
}

/* the methods' names, in enum dw_method's order, NULL-terminated */
extern const char *const dw_methods[];

/* drain_worker_validate.c: the ops table's validate */
void dw_validate(const struct gl_fault_spec *f, struct gl_diag *d, const char *path);

#endif
