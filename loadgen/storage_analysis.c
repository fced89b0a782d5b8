/*
 * storage_analysis.c - what the analysis and the live view read of the
 * storage workload (plugin.h): its incident kind, failed I/O, and its
 * live figures.
 */
#include <stdio.h>

#include "storage_int.h"

static void errors_text(const int64_t *n, char *out, size_t cap)
{
	snprintf(out, cap, "%lld failed I/O operation(s) (eio %lld, enospc %lld, verify %lld)", (long long)n[0],
		 (long long)n[1], (long long)n[2], (long long)n[3]);
}

static const char *const errors_opens[] = { "storage.errors", NULL };

const struct gl_incident_rule gl_storage_incidents[] = {
	{ .name = "storage.errors",
	  .order = 3,
	  .opens = errors_opens,
	  .counts = { "storage.errors", "storage.errors.eio", "storage.errors.enospc", "storage.errors.verify" },
	  .text = errors_text },
	{ 0 },
};

const struct gl_live_figure gl_storage_live_figures[] = {
	{ "storage.write_gbps", "write ", " GB/s" },
	{ "storage.read_gbps", "read ", " GB/s" },
	{ 0 },
};
