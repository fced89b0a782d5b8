/*
 * telemetry_schema.c - what the telemetry workload must be judged by when
 * present (its section's keys are checked by tl_validate in telemetry.c).
 */
#include "telemetry_schema.h"

#include <string.h>

#include "plugin.h"

/* GPU probes judge XID errors unless the scenario keeps other series only;
 * node probes alone need some node target. */
void gl_telemetry_targets(const cJSON *cfg, struct gl_target_need *n)
{
	const cJSON *ser = cJSON_GetObjectItemCaseSensitive(cfg, "series"), *it;
	int xid = !ser;

	cJSON_ArrayForEach(it, ser) xid |= cJSON_IsString(it) && !strcmp(it->valuestring, "xid_errors");
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cfg, "dcgm")) > 0)
		gl_need_require(n, GL_SCOPE_STEADY, xid ? "dcgm.xid_errors.delta" : "dcgm.", xid,
				xid ? "dcgm.xid_errors.delta" : "dcgm.ecc_dbe.delta", NULL);
	else if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cfg, "node")) > 0)
		gl_need_require(n, GL_SCOPE_STEADY, "node.", 0, "node.edac_ue.delta", NULL);
}
