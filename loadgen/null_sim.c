/*
 * null_sim.c - the null workload's model for `gauntlet simulate`
 * (plugin.h: struct gl_workload_sim; docs/simulation.md): ticks at
 * "rate" (default 100/s), 0.05 ms late.
 */
#include "null_schema.h"
#include "sim_model.h"

static int setup_null(struct sim_world *w, const struct gl_scenario *sc, const cJSON *cfg)
{
	(void)sc;
	w->nul = 1;
	w->null_rate = sim_num(cfg, "rate", 100);
	return 0;
}

static int metrics(const struct sim_world *w, const char *const **names)
{
	static const char *const nul[] = { "c:null.ticks", "h:null.tick_lag_ms" };

	(void)w;
	*names = nul;
	return 2;
}

static void start(struct sim_world *w)
{
	w->nul_last = w->now;
}

static void emit(struct sim_wl *s, struct sim_world *w, int64_t t1)
{
	sim_emit_ticks(s, &w->nul_last, &w->nul_acc, t1, w->null_rate, 0.05, 1);
}

const struct gl_workload_sim gl_null_sim = {
	.setup = setup_null,
	.metrics = metrics,
	.start = start,
	.emit = emit,
};
