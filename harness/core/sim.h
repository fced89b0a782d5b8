/*
 * sim.h - `gauntlet simulate` (docs/simulation.md): the real controller,
 * store, analysis and reports run against a virtual clock and models of
 * the workloads and faults, so that a 168-hour plan runs in seconds and a
 * seed reproduces a run exactly.
 *
 * The controller's files call these hooks where a real run would touch
 * time, threads or the cluster; each is a no-op decision point that
 * returns "not simulated" when c->sim is NULL (every real run).
 *
 * What stays real: the controller's loop and its callbacks (windows,
 * commits, the timeline, fault steps and their journal, resume's
 * reconciliation), the store, the analysis and the reports. What is
 * replaced: the clock (virtual, moved by the loop from one due timer to
 * the next), the workloads and fault kinds (models, sim_models.c), and
 * every outside effect (no host command, no child process, no network, no
 * webhook, no thread). sim_models.c says what each model does.
 */
#ifndef GL_SIM_H
#define GL_SIM_H

#include <stdint.h>

struct event;
struct gl_ctx;
struct gl_metrics;
struct gl_scenario;

struct gl_sim;

/* The simulation this process runs (NULL: a real run). */
struct gl_sim *ctl_sim_active(void);

/* The scenario's workloads and fault kinds replaced by their models
 * (after the scenario is parsed and validated with the real ones). */
int ctl_sim_bind(struct gl_sim *s, struct gl_scenario *sc, char *why, size_t why_n);
/* A one-shot timer at run elapsed time at_ns, on the virtual clock. */
void ctl_sim_arm(struct gl_ctx *c, struct event *ev, int64_t at_ns);
/* The loop: fire due timers in time order until the loop is broken (0)
 * or the simulated controller is killed (1: the caller drops everything
 * it has not committed, as SIGKILL would). */
int ctl_sim_dispatch(struct gl_ctx *c);
/* Whether the simulated controller was killed (its store is abandoned). */
int ctl_sim_killed(const struct gl_ctx *c);
/* A window close may leave its transaction open (simulated: the commit
 * before each kill makes it durable, as a real controller's every 0.5 s
 * would; one in 360 window closes commits anyway). 0 in a real run. */
int ctl_sim_defer_flush(struct gl_ctx *c);
/* Whether the loop runs (a commit between windows is possible). */
int ctl_sim_running(const struct gl_ctx *c);
/* The workload models' figures from their last emission up to now, into
 * the controller's open window (before each commit and window close). */
void ctl_sim_emit(struct gl_ctx *c);
/* What ctl_drive returns when the simulated controller was killed. */
#define GL_SIM_KILLED 137
/* The run id: from the seed, so two runs of a seed are the same. */
void ctl_sim_run_id(struct gl_sim *s, char *out, size_t n);

/* The simulation's seeded generator (splitmix64): the next 64 bits of
 * state s, and a uniform draw in (0, 1). */
uint64_t sim_rand(uint64_t *s);
double sim_unit(uint64_t *s);

/* sim_models.c: what sim.c asks of the models */
struct sim_world;
struct gl_workload_ops;
struct gl_fault_ops;
const struct gl_workload_ops *sim_workload_ops(const char *name);
extern const struct gl_fault_ops sim_fault_ops;
struct sim_world *sim_world_new(const struct gl_scenario *sc, uint64_t seed);
void sim_world_free(struct sim_world *w);
/* The world's clock (virtual CLOCK_MONOTONIC); the controller process is
 * up or down (its load generators run only while it is up). */
void sim_world_time(struct sim_world *w, int64_t now);
void sim_world_controller(struct sim_world *w, int up);
/* the world sim_models.c acts on: set while a simulation runs */
void sim_world_set(struct sim_world *w);
/* What the world holds for the invariants (sim.c), as the models declared
 * it (sim_model.h), in the order checked: counters per window, and
 * distributions (a workload's figure in report.json). */
#define SIM_TRUTH_MAX 8
#define SIM_TRUTH_Q 4
struct sim_truth {
	int64_t n_windows; /* slots in each per[] */
	int n, n_q;
	const char *metric[SIM_TRUTH_MAX];
	int64_t *per[SIM_TRUTH_MAX], tot[SIM_TRUTH_MAX];
	const char *q_workload[SIM_TRUTH_Q], *q_figure[SIM_TRUTH_Q];
};
const struct sim_truth *sim_world_truth(const struct sim_world *w);
/* the exact quantile q of distribution which as the models drew it: -1
 * when none */
double sim_world_quantile(const struct sim_world *w, int which, double q);
/* A fault's record in the world: injects and reverts the models saw. */
int sim_world_fault(const struct sim_world *w, const char *id, int *injects, int *reverts, int *active);

#endif
