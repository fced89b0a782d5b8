/*
 * training_int.h - private to the training workload (loadgen/training*.c):
 * its state and what its files share. Who owns what:
 *   training_launch.c  the launch command: mpirun or srun, the hosts and their
 *                      slots, gauntlet-train's or nccl-tests' arguments, the
 *                      environment, the command as the event log shows it
 *   training.c         the job (its output lines, exits, relaunches, the
 *                      watchdog), nccl-tests as the workload, the ops
 *   training_analysis.c what the analysis and the live view read
 *   training_sim.c      its model for `gauntlet simulate`
 */
#ifndef GL_TRAINING_INT_H
#define GL_TRAINING_INT_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>
#include <event2/event.h>

#include "cfg.h"
#include "child.h"
#include "metrics.h"
#include "nccltests.h"
#include "plugin.h"
#include "store.h"
#include "training_schema.h"
#include "training_steps.h"
#include "units.h"

#define MAX_ARGS 512
#define LINE_MAX_BYTES 4096
#define OTHER_LINES_LOGGED 60
#define KILL_GRACE_NS (5LL * 1000000000)
#define TICK_US 100000

enum backend { BK_MPI, BK_NCCL, BK_NCCL_TESTS };

struct rank_hb {
	int64_t last_ns; /* run elapsed of the last heartbeat, -1 never */
	int64_t step;
	int pid;
	char host[64];
};

struct job {
	pid_t pid; /* the launcher; leader of its process group */
	int64_t child_id; /* its row in the store's children table */
	int fd;
	struct event *ev_read;
	char line[LINE_MAX_BYTES];
	size_t line_len;
	int line_overflow;
	int launch; /* 1.. within this process */
	int restore;
	int64_t spawn_ns;
	int64_t last_progress_ns;
	int64_t restored_step; /* -1 until the ready line */
	int first_step_seen;
	int start_lines;
	int world, hosts;
	struct rank_hb *hb; /* [world] once known */
	int end_seen;
	int exited, status;
	int hung;
	int kill_stage; /* 0 none, 1 TERM sent, 2 KILL sent */
	int64_t kill_at_ns;
	int fatal; /* world/backend/usage: relaunching cannot help */
	char fatal_msg[600];
	int other_lines, other_suppressed;
	int garbled; /* report lines that arrived cut or mixed */
	char tail[4][300]; /* last lines that were not ours, for messages */
	int n_tail;
	struct gl_buf out; /* nccl-tests: the whole output for the parser */
};

#define STEP_RING 8192

struct trn {
	struct gl_ctx *ctx;
	const struct gl_scenario *sc; /* set without a ctx (training_bisect.c) */
	struct gl_metrics *m;
	enum backend backend;
	const char *backend_name;
	int is_srun, np, n_hosts_distinct;
	char *argv_launch[MAX_ARGS]; /* launcher part, owned strings */
	int n_launch;
	char *argv_prog[MAX_ARGS]; /* program part, before per-launch flags */
	int n_prog;
	char *env[64]; /* "K=V", set in the launcher's environment */
	int n_env;
	struct gl_training_opts o; /* the section's scalar keys */
	int ckpt; /* checkpoints configured */
	char ckpt_dir[1024]; /* this run's directory under checkpoint.dir */
	uint64_t *plateau; /* nccl-tests: sizes judged */
	int n_plateau;
	char json_out[1024]; /* nccl-tests -J file, "" when none */

	struct job job;
	int have_job;
	int running;
	int done; /* no more launches */
	int launches;
	int failures_in_row;
	int64_t max_step_seen;
	unsigned transports; /* bit per name in transport_names */
	int nccl_nranks, nccl_nnodes;
	int transport_checked;
	struct event *ev_tick, *ev_relaunch;

	int id_step, id_comm, id_data, id_busbw, id_steps, id_err, id_lost, id_saves, id_restores, id_save_s,
		id_save_gbps, id_restore_s, id_hangs, id_relaunches, id_failures, id_productive;
	/* ETTR: the time of the last STEP_RING steps by step number, so the
	 * steps a restore redoes can be taken back out of the productive time
	 * at their own cost (a bounded 128 KiB, whatever the run's length) */
	int64_t ring_step[STEP_RING], ring_us[STEP_RING];
};

/* training_figures.c: its metrics and report rows (figures.h) */
extern const struct gl_workload_figures gl_training_figures;
/* training_analysis.c: what the analysis and the live view read */
extern const struct gl_incident_rule gl_training_incidents[];
extern const struct gl_live_figure gl_training_live_figures[];
/* training_sim.c: its model for `gauntlet simulate` */
extern const struct gl_workload_sim gl_training_sim;

/* training_launch.c */
void trn_train_binary(const cJSON *cfg, char *out, size_t n);
int trn_build_command(struct trn *w, const cJSON *cfg, struct gl_err *err);
void trn_command_text(struct trn *w, int restore, char *out, size_t n);

#endif
