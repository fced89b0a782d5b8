/*
 * controller.h - the soak itself: one libevent loop that owns time, walks
 * the timeline (phases, fault injects and reverts, the end), closes analysis
 * windows, commits to the store at least every 500 ms, and stops in order on
 * SIGINT/SIGTERM or abort_if (revert every fault, flush, report).
 *
 * Each returns a process exit code: 0 pass, 1 fail, 2 bad input, 3
 * aborted, 4 harness or infrastructure error.
 *
 * The engine renders no report itself: the command line hands it the
 * function that writes them (gl_report_write), called once the verdict is
 * in the store and before the run's last line, so the engine depends on
 * nothing above it.
 */
#ifndef GL_CONTROLLER_H
#define GL_CONTROLLER_H

#include <stdint.h>

struct gl_run_opts {
	const char *scenario_path;
	const char *out_dir; /* NULL: runs/<name>-<time> */
	double time_scale; /* 1 unless --time-scale */
	const char *const *sets; /* --set overrides, NULL-terminated */
	int dry_run;
};

/* The live view (docs/live.md) for run and resume: listen NULL serves no
 * endpoint; linger_ns keeps serving the final figures after the end. */
struct gl_live_opts {
	const char *listen;
	int64_t linger_ns;
};
void gl_controller_live_opts(const struct gl_live_opts *o);

struct gl_store;
struct gl_err;
/* Writes the reports of the store into dir; NULL: a run writes none. */
typedef int (*gl_report_writer)(const char *dir, struct gl_store *st, struct gl_err *err);
void gl_controller_reporter(gl_report_writer w);
/* A writer that takes the analysis the verdict was judged from (its run
 * row read again after the verdict was stored), instead of analysing the
 * store a second time: `gauntlet simulate`, where the analysis of a
 * week of windows is most of the time. Set, it is used instead. */
struct gl_analysis;
typedef int (*gl_report_writer_an)(const char *dir, struct gl_store *st, struct gl_analysis *an, struct gl_err *err);
void gl_controller_reporter_an(gl_report_writer_an w);

int gl_controller_run(const struct gl_run_opts *o);
/* Both refuse a store another user could have written (exit 2), show the
 * stored plans they will execute when another gauntlet version or host
 * wrote it, and with dry_run only show them (exit 0). */
int gl_controller_resume(const char *dir, int dry_run);
/* `gauntlet simulate` (docs/simulation.md): the scenario's whole timeline
 * through this controller on a virtual clock, against models of its
 * workloads and faults, for n_seeds seeds from seed; crash_rate simulated
 * controller kills (and resumes) per simulated day. One line per seed on
 * stdout; 0 when every invariant held for every seed, 1 otherwise.
 * out_dir keeps the run directory (one seed). */
struct gl_sim_opts {
	const char *scenario_path;
	const char *const *sets;
	const char *out_dir;
	uint64_t seed;
	int n_seeds;
	double crash_rate;
	int jobs; /* seeds side by side (0: one per CPU) */
};
int gl_controller_simulate(const struct gl_sim_opts *o);
/* Revert every fault the store still holds as injected; 0 when all are. */
int gl_controller_revert(const char *dir, int dry_run);

#endif
