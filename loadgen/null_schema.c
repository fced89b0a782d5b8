/*
 * null_schema.c - the null workload's section of a scenario
 * ("workloads.null"): "rate", "spin_us" and "debug_every". null.c runs what this accepts.
 */
#include "null_schema.h"

#include "opts.h"
#include "plugin.h"

#define AT(f) GL_OPT_AT(struct gl_null_opts, f)

static const struct gl_opt section[] = {
	{ "rate", GL_OPT_NUMBER, .lo = 0.001, .hi = 100000, .def_n = 100,
	  .help = "ticks per second (real time), times the phase load", AT(rate) },
	{ "spin_us", GL_OPT_NUMBER, .lo = 0, .hi = 100000, .help = "busy work per tick, in microseconds", AT(spin_us) },
	{ "debug_every", GL_OPT_INT, .lo = 1, .hi = 1e9, .help = "a debug event (source null) every N ticks",
	  AT(debug_every) },
};

const struct gl_opt *gl_null_options(size_t *n)
{
	*n = GL_ARRAY_LEN(section);
	return section;
}

void gl_null_opts_read(const cJSON *w, struct gl_null_opts *o)
{
	gl_opts_fill(w, section, GL_ARRAY_LEN(section), o);
}

void gl_null_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path)
{
	gl_opts_check_keys(d, w, path, section, GL_ARRAY_LEN(section), NULL);
	gl_opts_validate(d, w, path, section, GL_ARRAY_LEN(section));
}

/* Judged by any null figure (tick_lag_ms.p99 is the one named). */
void gl_null_targets(const cJSON *w, struct gl_target_need *n)
{
	gl_need_require(n, GL_SCOPE_STEADY, "null.", 0, "null.tick_lag_ms.p99", NULL);
}
