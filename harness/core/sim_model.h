/*
 * sim_model.h - the simulated world the models of `gauntlet simulate` act
 * on (sim_models.c), shared with each workload's model (its ops' sim,
 * loadgen/<workload>_sim.c) and each fault kind's effect (faults/sim_*).
 * One world per simulation, on the virtual monotonic clock.
 */
#ifndef GL_SIM_MODEL_H
#define GL_SIM_MODEL_H

#include <stdint.h>

#include "metrics.h"
#include "plugin.h"
#include "sim.h"

#define SIM_NS 1000000000LL
#define SIM_NODES 64
#define SIM_FAULTS 256
#define SIM_SUBSTEP_NS SIM_NS /* availability is evaluated once a second */
#define SIM_BATCH 256 /* samples handed to the metrics at once */

/* What a fault does to the world (its kind's sim hook says). */
enum sim_effect { FX_NONE, FX_NODE_DOWN, FX_JOB_KILL, FX_FLAP, FX_PARTITION, FX_THROTTLE_IO, FX_GPU_SLOW, FX_ADAPTER };

struct sim_fault {
	char id[GL_NAME_MAX], kind[GL_NAME_MAX], target[GL_NAME_MAX];
	int injects, reverts, active;
	int64_t inj_t, rev_t; /* world time; rev_t -1 while in */
	enum sim_effect fx;
	int drain; /* FX_NODE_DOWN by eviction: graceful, back 60 s after the revert */
	int node; /* serving node index, or -1 */
	int training; /* it acts on the training job's hosts */
	int64_t down_ns, up_ns; /* flap */
	int count;
	double cap_bps; /* storage throttle */
};

/* The truth of a distribution: log buckets of its own. */
struct sim_truth_q {
	uint64_t *b;
	uint64_t n;
	double lo; /* value of bucket 0 */
};

struct sim_world {
	uint64_t rng;
	int64_t now;
	int up; /* the controller process runs */
	struct sim_fault faults[SIM_FAULTS];
	int n_faults;
	/* inference */
	int inf;
	double rate, inf_load, adapter_share, inf_acc;
	int out_tokens;
	int n_nodes;
	char nodes[SIM_NODES][GL_NAME_MAX];
	int64_t node_back[SIM_NODES]; /* down until (a kill, a drain's reload) */
	int64_t node_failing[SIM_NODES]; /* sent requests until (a kill, until its endpoint goes) */
	int64_t inf_last; /* last emission, -1 none yet (this process) */
	int64_t pend_inf_err; /* a killed node's in-flight requests, failed */
	int t_requests, t_errors, q_ttft; /* its truth slots */
	/* training */
	int tr;
	int ranks, n_tr_hosts;
	char tr_hosts[SIM_NODES][GL_NAME_MAX];
	double compute_s, comm_s, busbw, save_s, restore_load_s;
	int64_t ckpt_every_ns, backoff_ns, watchdog_ns;
	int job_up;
	int64_t job_t; /* running: end of the last step; down: relaunch time */
	int64_t next_ckpt;
	int64_t step_idx, ckpt_step;
	int64_t tr_last;
	int64_t pend_fail, pend_lost; /* counted at the next emission */
	int t_steps, q_step;
	/* storage */
	int sto;
	double bw, bs;
	int64_t sto_last;
	int t_write_bytes;
	/* telemetry, null */
	int tel, nul;
	double null_rate;
	int64_t tel_last, nul_last;
	double tel_acc, nul_acc;
	/* truth */
	struct sim_truth truth;
	struct sim_truth_q q[SIM_TRUTH_Q];
};

/* A workload's model as the controller runs it: its metric ids in the
 * order its sim's metrics names them. */
struct sim_wl {
	struct gl_ctx *c;
	char name[GL_NAME_MAX];
	const struct gl_workload_sim *model;
	int id[24];
};

/* The section's number, duration or size k, else dflt. */
double sim_num(const cJSON *o, const char *k, double dflt);
int64_t sim_dur(const cJSON *o, const char *k, int64_t dflt);
double sim_size(const cJSON *o, const char *k, double dflt);
/* A standard normal draw from the world's generator. */
double sim_normal(uint64_t *s);

/* Truth: a counter the store must hold per window exactly as the models
 * emitted it (its slot), n more of it in window idx (-1: none); a
 * distribution report.json's p50 and p99 of the workload's figure must
 * show (its slot; lo: the smallest value kept), one value drawn. */
int sim_truth_counter(struct sim_world *w, const char *metric);
void sim_truth_add(struct sim_world *w, int slot, int64_t idx, int64_t n);
int sim_truth_quantile(struct sim_world *w, const char *workload, const char *figure, double lo);
void sim_truth_draw(struct sim_world *w, int slot, double v);
/* The window the model's controller is in, with room for its truth; -1. */
int64_t sim_window(struct sim_wl *s);

/* The world's serving node named host (index, -1), and whether host runs
 * the training job. */
int sim_serving_node(const struct sim_world *w, const char *host);
int sim_training_host(const struct sim_world *w, const char *host);
/* A serving node at t: up, out of the endpoints (the load balancer sends
 * it nothing: capacity lost, no error), or failing what it is sent (a
 * kill before its endpoint is removed, a link that flaps too fast for
 * the probes). */
enum sim_node_state { NODE_UP, NODE_OUT, NODE_FAILING };
enum sim_node_state sim_node_state(const struct sim_world *w, int i, int64_t t);
/* The first fault in with effect fx (on the training hosts only), -1. */
int sim_any_active(const struct sim_world *w, enum sim_effect fx, int training_only);
/* When a training step running from t0 to t1 would be stalled by a link
 * that is down: the end of the stall (INT64_MAX: until a revert), else t0. */
int64_t sim_stall_until(const struct sim_world *w, int64_t t0, int64_t t1);
/* The training job ends at t (counted at the next emission). */
void sim_job_end(struct sim_world *w, int64_t t);
/* Ticks at rate per second since *last (fractions carried in *acc): a
 * counter of them (id[0]) and per tick per_tick values v (id[1]). */
void sim_emit_ticks(struct sim_wl *s, int64_t *last, double *acc, int64_t t1, double rate, double v, uint64_t per_tick);

#endif
