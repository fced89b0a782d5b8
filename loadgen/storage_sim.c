/*
 * storage_sim.c - the storage workload's model for `gauntlet simulate`
 * (plugin.h: struct gl_workload_sim; docs/simulation.md): writes at
 * 5 GB/s (the device), in "bs" blocks.
 */
#include "storage_int.h"

#include "sim_model.h"

static int setup_storage(struct sim_world *w, const struct gl_scenario *sc, const cJSON *cfg)
{
	(void)sc;
	w->sto = 1;
	w->bw = 5e9;
	w->bs = sim_size(cfg, "bs", 1 << 20);
	w->t_write_bytes = sim_truth_counter(w, "storage.write_bytes");
	return w->t_write_bytes < 0 ? -1 : 0;
}

static void emit_storage(struct sim_wl *s, struct sim_world *w, int64_t t1)
{
	struct gl_metrics *m = gl_ctx_metrics(s->c);
	int64_t idx = sim_window(s), bytes;
	int k = sim_any_active(w, FX_THROTTLE_IO, 0);
	double bw = k >= 0 && w->faults[k].cap_bps < w->bw ? w->faults[k].cap_bps : w->bw;

	if (w->sto_last < 0 || t1 <= w->sto_last)
		return;
	bytes = (int64_t)(bw * (double)(t1 - w->sto_last) / 1e9);
	gl_metrics_add(m, s->id[0], bytes);
	gl_metrics_add(m, s->id[1], 0);
	sim_truth_add(w, w->t_write_bytes, idx, bytes);
	w->sto_last = t1;
}

static int metrics(const struct sim_world *w, const char *const **names)
{
	static const char *const sto[] = { "c:storage.write_bytes", "c:storage.errors" };

	(void)w;
	*names = sto;
	return 2;
}

static void start(struct sim_world *w)
{
	w->sto_last = w->now;
}

const struct gl_workload_sim gl_storage_sim = {
	.setup = setup_storage,
	.metrics = metrics,
	.start = start,
	.emit = emit_storage,
};
