/*
 * training_jobs.h - short all-reduce jobs of gauntlet-train over chosen
 * hosts, run side by side: what a bisection and a node sweep run
 * (docs/nodes.md).
 *
 * Each job is gauntlet-train launched as the training workload launches
 * (its launcher, mca, env and launcher_args), with no compute, no
 * checkpoint and no data: only the all-reduce runs, o->steps times. It is
 * bad when it fails, runs past its timeout (its whole process group is
 * stopped), or the median busbw of its steps (the first, which sets the
 * ring up, not judged) is below the threshold.
 */
#ifndef GL_TRAINING_JOBS_H
#define GL_TRAINING_JOBS_H
#include <stdint.h>
#include "scenario.h"

struct gl_ctx;

#define TRN_JOB_HOSTS 64
#define TRN_JOB_STEPS 4096

struct trn_job_opts {
	int steps; /* all-reduce steps (the first is not judged) */
	uint64_t message; /* bytes; 0: the workload's "message" */
	int64_t timeout_ns; /* a job past it is stopped, and bad */
	double min_busbw; /* GB/s: a median busbw below it is bad; 0: none */
	const char *tag; /* what the run's children table calls the jobs */
};

struct trn_job {
	/* in: the hosts (scenario host names) and the ranks on each */
	int n;
	const char *host[TRN_JOB_HOSTS];
	int ranks[TRN_JOB_HOSTS];
	/* shared memory and peer-to-peer off (NCCL_SHM_DISABLE=1,
	 * NCCL_P2P_DISABLE=1, Open MPI's btl tcp,self): ranks on one host
	 * talk through the network stack, as ranks on two hosts do */
	int force_net;
	/* out */
	double busbw; /* median of the judged steps, GB/s; -1: none */
	int steps, exit_code, timed_out, bad;
	int64_t wall_ns;
	char why[256]; /* when bad: what made it so */
	char command[1024]; /* as run (cut to fit) */
};

/* Run jobs[0..n) side by side and judge each. 0 when every job was run
 * (or could not start: bad, with why), -1 with err out of memory or on a
 * stop request (GL_ESTOPPED: the jobs running were stopped at once).
 * ctx: the run they belong to (each a child of it, marked and recorded in
 * its store, killed by resume or the orphan sweep if the controller dies
 * meanwhile), or NULL (a command of its own). */
int trn_jobs_run(struct gl_ctx *ctx, const struct gl_scenario *sc, const cJSON *cfg, const struct trn_job_opts *o,
		 struct trn_job *jobs, int n, struct gl_err *err);

/* The scenario a command names (`gauntlet bisect`, `gauntlet sweep`),
 * with its --set overrides (sets NULL-terminated): its diagnostics on
 * stderr; NULL when it does not load or has errors. */
struct gl_scenario *trn_cli_scenario(const char *path, const char **sets);

/* The median of v[0..n-1] (n >= 1), which it sorts. */
double trn_median(double *v, int n);

/* A job's hosts as "a,b,c" into out (cut to fit). */
void trn_job_hosts_text(const struct trn_job *j, char *out, size_t n);

#endif
