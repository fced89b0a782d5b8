/*
 * training_bisect.h - find the host that slows a multi-host all-reduce:
 * short gauntlet-train jobs over halves of the training workload's hosts,
 * through its own launcher (mpirun or srun), down to one host in about
 * log2(N) + 2 jobs, never naming a host for a fault between two others
 * (docs/nodes.md, "Bisection").
 */
#ifndef GL_TRAINING_BISECT_H
#define GL_TRAINING_BISECT_H
#include <stdint.h>
#include "scenario.h"

#define GL_BISECT_HOSTS 64
#define GL_BISECT_JOBS 24

struct gl_bisect_opts {
	double min_busbw; /* GB/s: a job whose median busbw is below it is bad */
	int steps; /* all-reduce steps per job (the first is not judged) */
	uint64_t message; /* bytes; 0: the workload's "message" */
	int64_t job_timeout_ns; /* a job past it is killed, and bad */
	int64_t budget_ns; /* every job together; none starts past it */
	int test_all; /* first a job over every host (else known bad) */
};

struct gl_bisect_job {
	int n, host[GL_BISECT_HOSTS]; /* indices into the result's hosts */
	double busbw; /* median of its judged steps, GB/s; -1: none */
	int steps, exit_code, timed_out, bad;
	int64_t wall_ns;
	char why[256]; /* when bad: what made it so */
	char command[1024]; /* as run (cut to fit) */
};

struct gl_bisect_result {
	int n_hosts;
	char hosts[GL_BISECT_HOSTS][GL_NAME_MAX];
	struct gl_bisect_job jobs[GL_BISECT_JOBS];
	int n_jobs;
	int culprit; /* index into hosts, -1: none named */
	/* "culprit", "clean" (every host together passed), "not isolated"
	 * (the sets that fail share no single host), "budget" (out of time) */
	char outcome[16];
	char detail[512];
};

/* Bisect the training workload of sc. 0 with r filled (any outcome), or
 * -1 with err (bad input: no training workload, fewer than 2 hosts, a
 * backend other than mpi or nccl). */
int gl_training_bisect(const struct gl_scenario *sc, const struct gl_bisect_opts *o, struct gl_bisect_result *r,
		       struct gl_err *err);

/* The search alone, over r->n_hosts hosts (r->hosts named): run(arg, r,
 * j, err) runs job j (its hosts set) and fills in its figures and bad;
 * non-zero stops the search with err. 0 with r's jobs and outcome. */
typedef int (*gl_bisect_run_fn)(void *arg, const struct gl_bisect_result *r, struct gl_bisect_job *j,
				struct gl_err *err);
int gl_bisect_search(const struct gl_bisect_opts *o, gl_bisect_run_fn run, void *arg, struct gl_bisect_result *r,
		     struct gl_err *err);

/* `gauntlet bisect SCENARIO ...`: argv[0] is "bisect". Exit 0 clean, 1 a
 * culprit or a failure not isolated, 2 bad input, 4 harness error. */
int gl_training_bisect_main(int argc, char **argv);

#endif
