/*
 * agents.h - load agents: a workload whose section has "agents" runs in
 * `gauntlet agent` processes that the controller starts through mpirun or
 * srun, one launcher per agent, and that connect back over TCP with the
 * run's token (docs/agents.md). Each agent runs the workload's code with
 * its share of the load and sends its figures, window by window; the
 * controller merges them into the windows it writes.
 *
 * Controller side (agents*.c), all on the loop thread; the agent's side is
 * agent.c (gl_agent_main); the wire is agent_wire.h.
 */
#ifndef GL_AGENTS_H
#define GL_AGENTS_H

#include <stdint.h>
#include <stdio.h>

#include "util.h"

struct gl_ctx;
struct gl_metrics;
struct gl_agents;

/* Start the agents of every workload that has "agents" and wait until each
 * connected (its connect_timeout). Returns 0, or -1 with err naming what
 * did not come up (the run fails: exit 4). */
int ctl_agents_launch(struct gl_ctx *c, struct gl_err *err);
/* Send each agent its plan: the schedule's origin is the run's time now. */
int gl_agents_start(struct gl_agents *a, struct gl_err *err);
void gl_agents_set_load(struct gl_agents *a, double multiplier);
/* Has every agent that is up sent its last figures for window idx? */
int gl_agents_delivered(const struct gl_agents *a, int64_t idx);
/* Window idx is written now: count (agents.expected, agents.missing) into
 * m and log the agents that sent nothing final for it. */
void gl_agents_window_done(struct gl_agents *a, int64_t idx, struct gl_metrics *m);
/* The longest settle time of all agent groups, 0 without agents. */
int64_t ctl_agents_settle_ns(struct gl_ctx *c);
/* Ask every agent to stop, take their last figures (up to 5 s), end the
 * launchers. */
/* Adds this workload's agents to *planned and those connected now to
 * *connected (the live view's gauntlet_agents_*). */
void gl_agents_count(const struct gl_agents *a, int *planned, int *connected);
void gl_agents_stop(struct gl_agents *a);
void gl_agents_free(struct gl_agents *a);

/* The launch commands of every workload's agents, as this gauntlet would
 * run them (its own binary unless the section names one, with
 * --allow-run-as-root when run as root), for validate, --dry-run and the
 * reports: fn is called for each of the first shown agents of each
 * workload (shown <= 0: all) with its index, the workload's count, its
 * scenario host ("" = wherever the launcher puts it) and the command. */
#define GL_AGENTS_SHOWN 4
struct gl_scenario;
void gl_agents_each_command(const struct gl_scenario *sc, int shown,
			    void (*fn)(void *arg, const char *workload, int index, int count, const char *host,
				       const char *cmd),
			    void *arg);
/* The same as lines: "agents of W (N; ...):", one per agent, and "... and N
 * more" past GL_AGENTS_SHOWN. */
void gl_agents_print(const struct gl_scenario *sc, FILE *f);

/* `gauntlet agent` (agent.c): everything comes from the environment
 * (GAUNTLET_AGENT_CONTROLLER, GAUNTLET_AGENT_TOKEN, GAUNTLET_AGENT_INDEX)
 * and the controller's plan. Exit 0 after a STOP, 3 when the controller
 * went away, 2 on a bad plan or environment, 4 on a harness error. */
int gl_agent_main(int argc, char **argv);

#endif
