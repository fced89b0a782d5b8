/*
 * sim_effects.c - the fault kinds' effects in `gauntlet simulate`
 * (sim_effects.h; docs/simulation.md), on the host each fault targets:
 *   drain      a serving node: down until 60 s after the revert (the pod
 *              is rescheduled and loads the model); a training host:
 *              none (a Slurm drain lets the job run).
 *   kill, xid  a training host (a kill's pattern names the training
 *              binary; any XID): the job ends; a serving node: down for
 *              120 s (restart, model load), its in-flight requests fail.
 *   flap       "count" times "down" then "up": a training job's steps
 *              stall while the link is down; a serving node fails its
 *              requests meanwhile.
 *   partition  a serving node leaves the endpoints after 40 s (NotReady)
 *              until the revert; a training job's all-reduce stalls until
 *              it (its watchdog ends it).
 *   throttle   the storage bandwidth capped at "write_bps".
 *   gpu slow   a training host's compute 1.5 x slower.
 *   adapter    the adapter's requests fail until the revert.
 * A kind without a sim hook has no effect on the models (the control
 * plane's loss: the data path does not go through it; exec: its
 * command's effect is unknown).
 */
#include <string.h>

#include "sim_effects.h"
#include "sim_model.h"

/* The fault's "node" when it names one (a drain run through another
 * host): the node it takes out. */
void gl_sim_drain(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s)
{
	const char *node = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s->params, "node"));

	if (node) {
		f->node = sim_serving_node(w, node);
		f->training = sim_training_host(w, node);
	}
	f->drain = 1;
	f->fx = f->node >= 0 ? FX_NODE_DOWN : FX_NONE;
}

void gl_sim_kill(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s)
{
	const char *pat = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s->params, "pattern"));

	(void)w;
	f->fx = f->training && pat && strstr(pat, "train") ? FX_JOB_KILL : f->node >= 0 ? FX_NODE_DOWN : FX_NONE;
}

void gl_sim_xid(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s)
{
	(void)w;
	(void)s;
	f->fx = f->training ? FX_JOB_KILL : f->node >= 0 ? FX_NODE_DOWN : FX_NONE;
}

void gl_sim_flap(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s)
{
	(void)w;
	f->fx = FX_FLAP;
	f->down_ns = sim_dur(s->params, "down", 5 * SIM_NS);
	f->up_ns = sim_dur(s->params, "up", 5 * SIM_NS);
	f->count = (int)sim_num(s->params, "count", 1);
}

void gl_sim_partition(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s)
{
	(void)w;
	(void)s;
	f->fx = FX_PARTITION;
}

void gl_sim_throttle_io(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s)
{
	(void)w;
	f->fx = FX_THROTTLE_IO;
	f->cap_bps = sim_size(s->params, "write_bps", 1e9);
}

void gl_sim_gpu_slow(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s)
{
	(void)w;
	(void)s;
	f->fx = f->training ? FX_GPU_SLOW : FX_NONE;
}

void gl_sim_adapter(struct sim_fault *f, const struct sim_world *w, const struct gl_fault_spec *s)
{
	(void)w;
	(void)s;
	f->fx = FX_ADAPTER;
}
