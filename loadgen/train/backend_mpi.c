/*
 * backend_mpi.c - the always-built backend: host buffers and
 * MPI_Allreduce. Compute is a sleep of the configured length (the ranks are
 * often oversubscribed on CPU-only machines, where spinning would starve
 * the collective); the all-reduce and the checks are real.
 */
#include "train.h"

#include <stdio.h>
#include <time.h>

static int mpi_init(struct train *t, char *err, size_t n)
{
	return 0;
}

static int mpi_load(struct train *t, char *err, size_t n)
{
	return 0; /* the send buffer is t->send itself */
}

static int mpi_compute(struct train *t, int64_t ns, char *err, size_t n)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	while (nanosleep(&ts, &ts) != 0)
		;
	return 0;
}

static int mpi_allreduce(struct train *t, char *err, size_t n)
{
	int rc = MPI_Allreduce(t->send, t->recv, (int)t->count, MPI_FLOAT, MPI_SUM, t->comm);

	if (rc != MPI_SUCCESS) {
		char msg[MPI_MAX_ERROR_STRING];
		int len = 0;
		MPI_Error_string(rc, msg, &len);
		snprintf(err, n, "MPI_Allreduce: %s", msg);
		return -1;
	}
	return 0;
}

static int mpi_fetch(struct train *t, char *err, size_t n)
{
	return 0;
}

static void mpi_fini(struct train *t)
{
}

const struct train_backend train_backend_mpi = {
	.name = "mpi",
	.init = mpi_init,
	.load = mpi_load,
	.compute = mpi_compute,
	.allreduce = mpi_allreduce,
	.fetch = mpi_fetch,
	.fini = mpi_fini,
};
