/*
 * cplane.h - what the files of the control_plane_loss fault kind share,
 * private to them (the kind itself is described in control_plane_loss.c).
 * Who owns what:
 *   control_plane_loss.c  the kind: its ops table, the checks every method
 *                         shares, validate and plan dispatch, the steps,
 *                         preflight and the --dry-run description, the
 *                         exec method (argv lists through gl_host_exec)
 *   cplane_signal.c       the signal method: its sh script (procsel.h),
 *                         its params' checks, its steps' argv in the plan
 *   cplane_redfish.c      the redfish method: its params' checks, and the
 *                         BMC requests (power state, reset, waiting)
 *   cplane_probe.c        the control-plane probe: its params' checks, and
 *                         the etcd and Kubernetes requests that prove the
 *                         member was lost and the cluster recovered
 */
#ifndef GL_CPLANE_H
#define GL_CPLANE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "plugin.h"

#define CP_STEP_TIMEOUT_MS 30000
#define CP_PROBE_TIMEOUT_NS (30LL * 1000000000LL)
#define CP_REDFISH_TIMEOUT_NS (60LL * 1000000000LL)
#define CP_PROBE_TRY_MS 1000 /* one probe request */
#define CP_PROBE_PERIOD_NS 100000000LL
#define CP_GONE_WAIT_NS (10LL * 1000000000LL)
#define CP_MAX_ARGS 64
#define CP_MAX_ENDPOINTS 16
#define CP_MAX_MATCHES_DEFAULT 8
#define CP_MAX_MATCHES_CAP 1024
#define CP_PID_MAX 4194304
#define CP_DEFAULT_STATE_DIR "/run/gauntlet"

/* control_plane_loss.c: checks of params shared by the methods and the
 * probe (an error each in d, at path). */
int gl_cp_url_ok(const char *u, int https_only);
void gl_cp_check_argv(const cJSON *o, struct gl_diag *d, const char *path, const char *key, int required,
		      const char *why);
void gl_cp_check_dur(const cJSON *o, struct gl_diag *d, const char *path, const char *key);
void gl_cp_check_env_name(const cJSON *o, struct gl_diag *d, const char *path, const char *key);

/* cplane_signal.c: the signal method's params; its plan (signal, matches,
 * state file and the four steps' argv added to p). */
void gl_cp_validate_signal(const struct gl_fault_spec *f, struct gl_diag *d, const char *path);
int gl_cp_plan_signal(const struct gl_fault_spec *f, cJSON *p, struct gl_err *err);
/* Its sh script, the text its steps' argv run (deadman scripts take it
 * as it is, gauntlet's own text). */
const char *gl_cp_signal_script(void);

/* cplane_redfish.c: the redfish method's params; the BMC requests. */
void gl_cp_validate_redfish(const struct gl_fault_spec *f, struct gl_diag *d, const char *path);
void gl_cp_rf_mark_refused(const char *id, int on);
int gl_cp_rf_was_refused(const char *id);
int gl_cp_rf_power_state(const cJSON *plan, char *state, size_t n, struct gl_err *err);
int gl_cp_rf_reset(const cJSON *plan, const char *type, int *refused, struct gl_err *err);
int gl_cp_rf_wait_state(const cJSON *plan, const char *want, struct gl_err *err);
const char *gl_cp_rf_type(const cJSON *plan, const char *key, const char *def);

/* cplane_probe.c: the probe's params; the probe after inject (1) or
 * revert (0); single checks for preflight. */
void gl_cp_validate_probe(const cJSON *probe, struct gl_diag *d, const char *path);
int gl_cp_probe_run(const cJSON *plan, int after_inject, int64_t t0, struct gl_err *err);
int gl_cp_k8s_ready(const cJSON *probe);
int gl_cp_etcd_answers(const cJSON *probe, const char *ep, int need_healthy);

#endif
