/*
 * training_sweep.h - a node sweep of the training workload's hosts
 * (docs/nodes.md, "Node sweeps"): on every host alone an all-reduce with
 * shared memory and peer-to-peer off, so that its ranks talk through the
 * network stack; then every pair of hosts, in rounds in which no host is
 * in two jobs (N - 1 rounds for N hosts, each round's pairs side by
 * side); a host x host busbw matrix; each host and each pair scored
 * against its peers (median and Qn), the outliers suspects.
 */
#ifndef GL_TRAINING_SWEEP_H
#define GL_TRAINING_SWEEP_H
#include <stdint.h>
#include "scenario.h"

struct gl_ctx;

#define GL_SWEEP_HOSTS 256
#define GL_SWEEP_BAD 64 /* bad jobs whose why is kept */
#define GL_SWEEP_SUSPECTS 64
#define GL_SWEEP_Z 4.0 /* an outlier: this many spreads below its peers */
#define GL_SWEEP_REL 0.1 /* the least spread of log busbw: out from e^-0.4, 33 % below */
#define GL_SWEEP_ZMAX 56.0 /* a failed job's score: the top of the scale */
#define GL_SWEEP_SCALE_MIN 6 /* peers a spread is taken over; fewer: the tolerance alone */

struct gl_sweep_opts {
	double min_busbw; /* GB/s: a job below it is bad; 0: none */
	int steps; /* all-reduce steps per job (the first is not judged) */
	uint64_t message; /* bytes; 0: the workload's "message" */
	int64_t job_timeout_ns; /* a job past it is stopped, and bad */
	int64_t budget_ns; /* no round starts past it */
	int pairs; /* 1: the pairwise rounds after the single-host jobs */
	int parallel; /* jobs side by side, at most */
	/* the least spread of log busbw (GL_SWEEP_REL): a host or pair is
	 * out from e^(-4 x tolerance) of its peers' median on */
	double tolerance;
};

/* One job's figure: state 0 not run, 1 good, 2 bad. */
struct gl_sweep_cell {
	float busbw; /* GB/s, -1: no step */
	float seconds;
	signed char state;
};

struct gl_sweep_bad {
	int a, b; /* the hosts (b -1: a alone) */
	char why[160];
};

struct gl_sweep_suspect {
	char kind[8]; /* "host" or "link" */
	int a, b; /* the host (b -1), or a link's two ends */
	double score;
	char evidence[320];
};

struct gl_sweep_result {
	int n_hosts;
	char hosts[GL_SWEEP_HOSTS][GL_NAME_MAX];
	int ranks[GL_SWEEP_HOSTS]; /* its slots: the ranks of its jobs */
	struct gl_sweep_cell single[GL_SWEEP_HOSTS];
	struct gl_sweep_cell *pair; /* [a * n_hosts + b], both halves */
	struct gl_sweep_bad bad[GL_SWEEP_BAD];
	int n_bad, more_bad;
	int rounds, rounds_run, jobs;
	double seconds;
	char outcome[16]; /* "done", "budget" (rounds left out) */
	/* the judgment (gl_sweep_judge) */
	double single_median, pair_median;
	double single_z[GL_SWEEP_HOSTS], row_median[GL_SWEEP_HOSTS], row_z[GL_SWEEP_HOSTS];
	struct gl_sweep_suspect sus[GL_SWEEP_SUSPECTS];
	int n_sus;
};

/* Round r (0 .. n - 2, or n - 1 when n is odd) of the pairs of n hosts,
 * the circle method: every pair once over the rounds, no host twice in a
 * round. Its pairs into p; how many. */
int gl_sweep_round(int n, int r, int (*p)[2]);
/* The rounds n hosts take. */
int gl_sweep_rounds(int n);

/* Score r's figures (docs/nodes.md), on the log of busbw: each host's
 * single-host busbw and the median of its pairs' busbw (but the lowest)
 * against the other hosts' (median and Qn, the spread at least
 * o->tolerance), a host a suspect
 * at GL_SWEEP_Z or when its single job was bad; then each pair of hosts
 * that are no suspects against the lower level of its two ends (in the
 * spread of all such pairs), a link a suspect
 * at GL_SWEEP_Z or when its job was bad. Needs 3 hosts (3 pairs) to
 * score; fewer: only bad jobs. */
void gl_sweep_judge(struct gl_sweep_result *r, const struct gl_sweep_opts *o);

/* Sweep the training workload of sc. 0 with r filled (r->pair malloc'd:
 * gl_sweep_result_free), or -1 with err (bad input: no training
 * workload, fewer than 2 hosts, a backend other than mpi or nccl; a stop
 * request, GL_ESTOPPED). ctx as for gl_training_bisect. */
int gl_training_sweep(struct gl_ctx *ctx, const struct gl_scenario *sc, const struct gl_sweep_opts *o,
		      struct gl_sweep_result *r, struct gl_err *err);
void gl_sweep_result_free(struct gl_sweep_result *r);

/* r as JSON (docs/report.schema.json $defs.sweep). NULL out of memory. */
cJSON *gl_sweep_json(const struct gl_sweep_result *r, const struct gl_sweep_opts *o);

/* The training workload's survey hook (plugin.h): a run whose section
 * has "sweep" sweeps its hosts before the load; the result is the store
 * document "sweep". Nothing when it has none, or the store has the
 * document already (a resumed run). 0, or -1 on a stop request. */
int gl_training_survey(struct gl_ctx *c, const cJSON *cfg);

/* `gauntlet sweep SCENARIO ...`: exit 0 no suspect, 1 a suspect or
 * rounds left out, 2 bad input, 3 a harness error. */
int gl_training_sweep_main(int argc, char **argv);

#endif
