/*
 * storage_int.h - private to the storage workload (loadgen/storage*.c): its
 * state and what its files share. Who owns what:
 *   storage_engine.c  the I/O engine: block content and verification, the
 *                     rate cap, the sync and aio op loops, the worker
 *                     threads (cgroup joining, file layout, patterns)
 *   storage_fio.c     fio as the engine: starting it, reading its JSON
 *                     stream and stderr, its argument check
 *   storage.c         the workload: safety checks (allowed roots, free
 *                     space), cgroup setup, the ops (init, start, tick,
 *                     windows, stop, free, preflight)
 *   storage_analysis.c what the analysis and the live view read
 *   storage_sim.c     its model for `gauntlet simulate`
 */
#ifndef GL_STORAGE_INT_H
#define GL_STORAGE_INT_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/aio_abi.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "fio.h"
#include "cfg.h"
#include "child.h"
#include "metrics.h"
#include "paths.h"
#include "plugin.h"
#include "store.h"
#include "units.h"

#define ALIGN 4096
#define HDR_MAGIC 0x474c5354u /* "GLST" */
#define MAX_DEPTH 256
#define ERR_KEEP 64 /* error details kept per window */

enum pattern { P_CKPT_WRITE, P_MODEL_LOAD, P_DATASET_READ, P_MIXED };
enum engine { E_SYNC, E_AIO, E_FIO };
enum err_class { EC_ENOSPC, EC_EDQUOT, EC_EIO, EC_VANISHED, EC_ROFS, EC_PERM, EC_RESERVE, EC_VERIFY, EC_OTHER, EC_N };
struct blk_hdr {
	uint32_t magic, file;
	uint32_t gen, bs;
	uint64_t offset;
};

struct err_rec {
	int64_t window;
	char op[8];
	uint64_t bytes;
	int64_t latency_ns;
	enum err_class cls;
	char detail[160];
};

struct sto;

/* A worker's own running totals of measured I/O, for the per-host figures
 * (docs/nodes.md): written by its thread alone (relaxed atomics, no lock),
 * read by the loop thread at each window's end, which keeps what it saw
 * last (seen) to take the window's share. lat_max is the window's
 * largest op, taken (set to 0) by the reader. */
struct tally {
	uint64_t rbytes, wbytes, ops, lat_ns, lat_max_ns;
};

struct worker {
	struct tally t; /* this thread's; first, away from the next worker's */
	struct tally seen; /* the loop thread's: t as of the last window */
	struct sto *w;
	int idx;
	int measure; /* 0 while laying out files */
	int unbudgeted; /* read-back of a checkpoint: not taken from "limit" */
	unsigned char *scratch; /* max_bs bytes: the expected filler */
	int fk_file; /* what scratch holds */
	uint32_t fk_gen;
	uint64_t fk_bs;
	pthread_t th;
	int started;
	uint64_t rng;
	unsigned char *buf; /* iodepth blocks of max_bs, aligned */
	int cur_file; /* sequential patterns: the file in hand */
	int fd;
	uint64_t off;
	uint32_t gen;
	int64_t backoff_ns;
	aio_context_t aio;
};

struct sto {
	struct gl_ctx *ctx;
	struct gl_metrics *m;
	enum pattern pattern;
	enum engine engine;
	char root[PATH_MAX]; /* the configured path, resolved */
	char dir[PATH_MAX]; /* our directory inside it */
	int made_dir;
	int threads, max_threads, iodepth, files, direct, verify, read_pct;
	uint64_t bs, max_bs, file_size, rate_cap, reserve;
	int direct_ok; /* direct I/O works on this filesystem */

	/* spikes, in scenario time */
	struct spike {
		int64_t every, dur, start;
		int threads;
		uint64_t bs;
	} * spikes;
	int n_spikes;
	double load;

	/* shared state of the workers */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	volatile int running;
	volatile int active; /* workers allowed to run */
	volatile uint64_t cur_bs;
	uint32_t *file_gen; /* generation each file holds; 0 = not written */
	uint64_t *file_bs; /* block size of that generation's writes */
	int *file_busy; /* a writer holds it */
	int64_t budget; /* "limit": bytes of I/O left, -1 none */
	double tokens; /* rate cap bucket, bytes */
	int64_t tokens_ns;
	struct err_rec errs[ERR_KEEP];
	int n_errs, errs_dropped;
	int64_t err_count[EC_N];
	int64_t window; /* copy for workers */
	int prepared, prepare_failed;
	char notice[256]; /* one-time notice from a worker for the loop */
	int notice_said;

	struct worker *wk;
	struct event *ev_tick;

	/* cgroup placement */
	char cg_tasks[PATH_MAX];
	char cg_dir[PATH_MAX];
	int cg_made, cg_v2;

	/* fio */
	char **fio_argv;
	int fio_argc;
	pid_t fio_pid;
	int64_t fio_child_id; /* its row in the store's children table */
	int fio_out, fio_err;
	struct event *ev_fio_out, *ev_fio_err;
	struct gl_fio_stream *fio_stream;
	uint64_t fio_last_read, fio_last_write, fio_last_err;
	struct gl_buf fio_stderr;

	int id_rbytes, id_wbytes, id_lat, id_fsync, id_errors, id_verified, id_class[EC_N];

	/* per-host figures: the elapsed time the workers' tallies were last
	 * taken at; on once the workers start, done once the last window's
	 * were taken (stop) */
	int64_t tally_ns;
	int tally_on, tally_done;
};

/* storage_figures.c: its metrics and report rows (figures.h) */
extern const struct gl_workload_figures gl_storage_figures;
/* storage_analysis.c: what the analysis and the live view read */
extern const struct gl_incident_rule gl_storage_incidents[];
extern const struct gl_live_figure gl_storage_live_figures[];
/* storage_sim.c: its model for `gauntlet simulate` */
extern const struct gl_workload_sim gl_storage_sim;

/* storage_engine.c */
void st_tally(struct worker *k, int writing, uint64_t bytes, int64_t lat_ns);
/* storage_nodes.c: the window's per-host figures from the workers' tallies */
void st_node_window(struct sto *w);
long st_sys_io_setup(unsigned n, aio_context_t *c);
long st_sys_io_destroy(aio_context_t c);
void *st_worker_main(void *arg);

/* storage_fio.c */
void st_on_fio_report(void *arg, const struct gl_fio_report *r);
void st_on_fio_out(evutil_socket_t fd, short what, void *arg);
int st_fio_start(struct sto *w, struct gl_err *err);
int st_fio_args_ok(const cJSON *args, char *why, size_t n);

#endif
