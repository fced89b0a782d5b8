/*
 * null_schema.c - the null workload's section of a scenario
 * ("workloads.null"): "rate", "spin_us" and "debug_every". null.c runs what this accepts.
 */
#include "null_schema.h"

#include "plugin.h"
#include "schema.h"

void gl_null_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path)
{
	static const char *const keys[] = { "rate", "spin_us", "debug_every", NULL };
	double x;
	long l;

	gl_check_keys(d, w, path, keys);
	gl_get_number(d, w, "rate", path, 0, 0.001, 100000, &x);
	gl_get_number(d, w, "spin_us", path, 0, 0, 100000, &x);
	gl_get_int(d, w, "debug_every", path, 0, 1, 1000000000, &l);
}

/* Judged by any null figure (tick_lag_ms.p99 is the one named). */
void gl_null_targets(const cJSON *w, struct gl_target_need *n)
{
	gl_need_require(n, GL_SCOPE_STEADY, "null.", 0, "null.tick_lag_ms.p99", NULL);
}
