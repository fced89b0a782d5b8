/*
 * telemetry_analysis.c - what the analysis reads of the telemetry
 * workload (plugin.h): its incident kinds, an XID and memory errors.
 */
#include <stdio.h>

#include "plugin.h"
#include "telemetry_schema.h"

static void xid_text(const int64_t *n, char *out, size_t cap)
{
	snprintf(out, cap, "%lld XID change(s)", (long long)n[0]);
}

static void ecc_text(const int64_t *n, char *out, size_t cap)
{
	snprintf(out, cap, "%lld double-bit, %lld single-bit ECC error(s), %lld uncorrectable memory error(s)",
		 (long long)n[0], (long long)n[1], (long long)n[2]);
}

static const char *const xid_opens[] = { "dcgm.xid_errors.delta", NULL };
static const char *const ecc_opens[] = { "dcgm.ecc_dbe.delta", "dcgm.ecc_sbe.delta", "node.edac_ue.delta", NULL };

const struct gl_incident_rule gl_telemetry_incidents[] = {
	{ .name = "telemetry.xid",
	  .order = 4,
	  .opens = xid_opens,
	  .counts = { "dcgm.xid_errors.delta" },
	  .text = xid_text },
	{ .name = "telemetry.ecc",
	  .order = 5,
	  .opens = ecc_opens,
	  .counts = { "dcgm.ecc_dbe.delta", "dcgm.ecc_sbe.delta", "node.edac_ue.delta" },
	  .text = ecc_text },
	{ 0 },
};
