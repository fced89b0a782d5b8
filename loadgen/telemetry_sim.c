/*
 * telemetry_sim.c - the telemetry workload's model for `gauntlet
 * simulate` (plugin.h: struct gl_workload_sim; docs/simulation.md): one
 * scrape per 10 s, 8 GPUs at 60 C.
 */
#include "sim_model.h"
#include "telemetry_schema.h"

static int setup_telemetry(struct sim_world *w, const struct gl_scenario *sc, const cJSON *cfg)
{
	(void)sc;
	(void)cfg;
	w->tel = 1;
	return 0;
}

static int metrics(const struct sim_world *w, const char *const **names)
{
	static const char *const tel[] = { "c:telemetry.scrapes", "h:dcgm.gpu_temp" };

	(void)w;
	*names = tel;
	return 2;
}

static void start(struct sim_world *w)
{
	w->tel_last = w->now;
}

static void emit(struct sim_wl *s, struct sim_world *w, int64_t t1)
{
	sim_emit_ticks(s, &w->tel_last, &w->tel_acc, t1, 0.1, 60, 8);
}

const struct gl_workload_sim gl_telemetry_sim = {
	.setup = setup_telemetry,
	.metrics = metrics,
	.start = start,
	.emit = emit,
};
