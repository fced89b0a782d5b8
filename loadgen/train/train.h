/*
 * train.h - gauntlet-train, the training worker the controller launches with
 * mpirun or srun. One process per rank. A step is: optional data load (reads
 * from a dataset), compute (a set duration; on the NCCL backend real GEMMs on
 * the GPU), and an all-reduce of the message. Every N steps the reduced
 * buffer is checked exactly; every N steps or seconds all ranks write a
 * checkpoint (ckpt.c). Rank 0 reports each step, and every rank a
 * heartbeat, as "GLT1 ..." lines on stdout, which the launcher forwards to
 * the controller's pipe (docs/training.md has the protocol).
 *
 * Backends are an ops table (backend_mpi.c always, backend_nccl.c when CUDA
 * and NCCL were found at build time).
 */
#ifndef GL_TRAIN_H
#define GL_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

/* Exit codes of gauntlet-train (the controller maps them). */
enum {
	TRAIN_EXIT_OK = 0,
	TRAIN_EXIT_USAGE = 2, /* bad arguments */
	TRAIN_EXIT_NO_DEVICE = 3, /* backend cannot run here (no GPU, not built) */
	TRAIN_EXIT_RUNTIME = 4, /* I/O, collective or device error */
	TRAIN_EXIT_WORLD = 5, /* world size or host count not as expected */
};

struct train;

struct train_backend {
	const char *name;
	/* Allocate device state for t->count floats. */
	int (*init)(struct train *t, char *err, size_t n);
	/* Make the send buffer equal t->send (host) before the all-reduce. */
	int (*load)(struct train *t, char *err, size_t n);
	/* Busy the device for about ns nanoseconds. */
	int (*compute)(struct train *t, int64_t ns, char *err, size_t n);
	/* All-reduce (sum) the send buffer into the receive buffer. */
	int (*allreduce)(struct train *t, char *err, size_t n);
	/* Make t->recv (host) hold the reduced buffer. */
	int (*fetch)(struct train *t, char *err, size_t n);
	void (*fini)(struct train *t);
};

extern const struct train_backend train_backend_mpi;
#ifdef GL_HAVE_NCCL
extern const struct train_backend train_backend_nccl;
#endif

struct train {
	/* options */
	const char *backend_name;
	uint64_t message_bytes;
	int64_t compute_ns, heartbeat_ns;
	int64_t last_step; /* stop after this step; 0: until SIGTERM */
	int64_t check_every; /* 0: never check */
	const char *ckpt_dir;
	uint64_t ckpt_bytes; /* whole checkpoint, split over ranks */
	int64_t ckpt_every_steps, ckpt_every_ns;
	int ckpt_keep;
	int ckpt_hash; /* CKPT_HASH_* (manifest.h), default XXH3 */
	int restore;
	const char *dataset;
	uint64_t data_per_step;
	int expect_world, expect_hosts;
	int64_t corrupt_step; /* test hooks, -1 when off */
	int corrupt_rank;
	int64_t canary_bad_step; /* --inject-compute-error */
	int canary_bad_rank;
	int64_t kill_save_step;
	int kill_save_rank;

	/* MPI */
	MPI_Comm comm;
	int rank, world, local_rank;
	char host[MPI_MAX_PROCESSOR_NAME + 1];

	/* buffers */
	size_t count; /* floats in the message */
	float *send, *recv; /* host side */
	const struct train_backend *be;
	void *be_state;

	/* progress */
	volatile int64_t step; /* last completed step */
	int64_t t0_ns; /* process start */

	/* this rank's own times since its last "rank" line: data + compute
	 * (its own work) and the all-reduce (mostly waiting for the slowest) */
	int64_t acc_steps, acc_since_ns;
	double acc_compute_s, acc_wait_s, acc_max_compute_s;
};

int64_t train_now_ns(void);
/* The check value that ends every report line (" ck=%04x"): FNV-1a over
 * the bytes before it, folded to 16 bits. The controller has the same. */
static inline unsigned train_line_check(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return (h ^ (h >> 16)) & 0xffff;
}
/* One "GLT1 kind k=v ..." line on stdout, written whole (thread-safe). */
void train_emit(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ckpt.c. Collective: every rank calls them together. */
int train_ckpt_save(struct train *t, int64_t step, char *err, size_t n);
/* Finds the newest complete checkpoint whose every shard verifies, sets
 * *step (0 when none). Reports what it skipped and why. */
int train_ckpt_restore(struct train *t, int64_t *step, char *err, size_t n);

#endif
