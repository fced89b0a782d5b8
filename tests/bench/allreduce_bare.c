/*
 * allreduce_bare.c - the baseline for tests/bench/training.sh: a bare loop
 * of MPI_Allreduce (float sum, the same call gauntlet-train's mpi backend
 * makes) over a message of the given size. Each call is timed on rank 0
 * with CLOCK_MONOTONIC, as gauntlet-train times comm_s, and turned into
 * algbw = bytes / 1e9 / s and busbw = algbw * 2(n-1)/n (nccl-tests'
 * all-reduce definitions, the ones gauntlet-train prints). Rank 0 prints
 * the medians over the timed iterations as one line:
 *
 *   BARE np=2 message=16777216 iters=40 comm_s=... algbw=... busbw=...
 *
 * Usage: mpirun -np N allreduce_bare MESSAGE_BYTES ITERS [WARMUP]
 * Build: mpicc -O2 -o allreduce_bare allreduce_bare.c
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int rank, world, iters, warmup;
	long long bytes;
	size_t count;
	float *send, *recv;
	double *secs, *alg, *bus;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &world);
	if (argc < 3 || (bytes = atoll(argv[1])) < 4 || bytes % 4 || (iters = atoi(argv[2])) < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: allreduce_bare MESSAGE_BYTES ITERS [WARMUP]\n");
		MPI_Finalize();
		return 2;
	}
	warmup = argc > 3 ? atoi(argv[3]) : 3;
	count = (size_t)bytes / 4;
	send = malloc(count * sizeof(float));
	recv = malloc(count * sizeof(float));
	secs = calloc((size_t)iters, sizeof(double));
	alg = calloc((size_t)iters, sizeof(double));
	bus = calloc((size_t)iters, sizeof(double));
	if (!send || !recv || !secs || !alg || !bus) {
		fprintf(stderr, "allreduce_bare: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 4);
	}
	for (size_t i = 0; i < count; i++)
		send[i] = (float)(rank % 64 + 1) * (float)(i % 64 + 1);

	for (int k = 0; k < warmup + iters; k++) {
		int64_t t0 = now_ns(), t1;
		MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		t1 = now_ns();
		if (k >= warmup) {
			double s = (t1 - t0) / 1e9;
			int j = k - warmup;
			secs[j] = s;
			alg[j] = s > 0 ? (double)bytes / 1e9 / s : 0;
			bus[j] = world > 1 ? alg[j] * 2.0 * (world - 1) / world : 0;
		}
	}
	if (rank == 0)
		printf("BARE np=%d message=%lld iters=%d comm_s=%.9f algbw=%.6f busbw=%.6f\n", world, bytes, iters,
		       median(secs, iters), median(alg, iters), median(bus, iters));
	free(send);
	free(recv);
	free(secs);
	free(alg);
	free(bus);
	MPI_Finalize();
	return 0;
}
