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

struct gl_ctx;

#define GL_BISECT_HOSTS 64
#define GL_BISECT_JOBS 64

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
	int link[2]; /* the two hosts a bad link joins, -1: none named */
	/* "culprit", "link" (only jobs with both of link[] fail), "clean"
	 * (every host together passed), "not isolated" (the bad jobs point at
	 * no single host or link), "budget" (out of time) */
	char outcome[16];
	char detail[512];
};

/* Bisect the training workload of sc. 0 with r filled (any outcome), or
 * -1 with err (bad input: no training workload, fewer than 2 hosts, a
 * backend other than mpi or nccl). ctx: the run whose end started it (its
 * jobs are the run's children, marked and recorded in its store, as the
 * workload's are), or NULL (`gauntlet bisect`). */
int gl_training_bisect(struct gl_ctx *ctx, const struct gl_scenario *sc, const struct gl_bisect_opts *o,
		       struct gl_bisect_result *r, struct gl_err *err);

/* r as JSON: hosts, the threshold, each job (hosts, busbw_gbps or null,
 * steps, exit, timed_out, seconds, bad, why, command), outcome, culprit
 * (or null) and detail. The caller frees it; NULL out of memory. */
cJSON *gl_bisect_json(const struct gl_bisect_result *r, const struct gl_bisect_opts *o);

/* The training workload's diagnose hook (plugin.h): after a run whose
 * steady training targets failed (failed: which, as text), the bisection
 * its section's "bisect" asks for, the set known bad, within its budget;
 * each job an event, the whole a store document "bisect" (the JSON above
 * with "trigger"), read by the analysis (the culprit a suspect) and the
 * reports. Nothing when the section has no "bisect" or the store has the
 * document already (a resumed run's end). 1 when the document was put in
 * the store, else 0. */
int gl_training_diagnose(struct gl_ctx *c, const cJSON *cfg, const char *failed);

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
