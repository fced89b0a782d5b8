/*
 * backend_nccl.c - device buffers and ncclAllReduce. Rank 0 makes the NCCL
 * unique id and broadcasts it over MPI; each rank takes GPU (local rank %
 * device count). Compute is real work: SGEMMs through cuBLAS on 2048x2048
 * matrices, repeated until the configured time has passed. Every wait on
 * the GPU polls with a deadline and checks NCCL's asynchronous error, so a
 * broken peer or link ends the step with a message instead of a hang
 * (nccl-tests' testStreamSynchronize does the same). Without a GPU, init
 * says so plainly and the run exits with TRAIN_EXIT_NO_DEVICE.
 */
#include "train.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#define GEMM_N 2048
#define SYNC_DEADLINE_NS (300LL * 1000000000)

struct nccl_state {
	int device;
	ncclComm_t comm;
	cudaStream_t stream;
	cublasHandle_t blas;
	float *d_send, *d_recv, *d_a, *d_b, *d_c;
};

static int cuda_fail(cudaError_t e, const char *what, char *err, size_t n)
{
	snprintf(err, n, "%s: %s", what, cudaGetErrorString(e));
	return -1;
}

static int sync_stream(struct nccl_state *s, char *err, size_t n)
{
	int64_t deadline = train_now_ns() + SYNC_DEADLINE_NS;

	for (;;) {
		cudaError_t e = cudaStreamQuery(s->stream);
		ncclResult_t ar;

		if (e == cudaSuccess)
			return 0;
		if (e != cudaErrorNotReady)
			return cuda_fail(e, "cudaStreamQuery", err, n);
		if (s->comm && ncclCommGetAsyncError(s->comm, &ar) == ncclSuccess && ar != ncclSuccess &&
		    ar != ncclInProgress) {
			snprintf(err, n, "NCCL asynchronous error: %s", ncclGetErrorString(ar));
			ncclCommAbort(s->comm);
			s->comm = NULL;
			return -1;
		}
		if (train_now_ns() > deadline) {
			snprintf(err, n, "GPU stream did not finish within %llds", SYNC_DEADLINE_NS / 1000000000);
			if (s->comm)
				ncclCommAbort(s->comm);
			s->comm = NULL;
			return -1;
		}
	}
}

static int nccl_init(struct train *t, char *err, size_t n)
{
	struct nccl_state *s = calloc(1, sizeof(*s));
	ncclUniqueId id;
	ncclResult_t nr;
	cudaError_t e;
	int ndev = 0;
	size_t mat = (size_t)GEMM_N * GEMM_N * sizeof(float);

	if (!s)
		return -1;
	t->be_state = s;
	e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess || ndev < 1) {
		snprintf(err, n, "backend nccl needs a CUDA GPU and none is usable on %s (cudaGetDeviceCount: %s)",
			 t->host, e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
		/* The id broadcast below must still happen on every rank. */
		memset(&id, 0, sizeof(id));
		MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, t->comm);
		return -1;
	}
	s->device = t->local_rank % ndev;
	if ((e = cudaSetDevice(s->device)) != cudaSuccess) {
		MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, t->comm);
		return cuda_fail(e, "cudaSetDevice", err, n);
	}
	if (t->rank == 0 && (nr = ncclGetUniqueId(&id)) != ncclSuccess)
		memset(&id, 0, sizeof(id));
	MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, t->comm);
	if ((e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)) != cudaSuccess)
		return cuda_fail(e, "cudaStreamCreate", err, n);
	if ((e = cudaMalloc((void **)&s->d_send, t->count * sizeof(float))) != cudaSuccess ||
	    (e = cudaMalloc((void **)&s->d_recv, t->count * sizeof(float))) != cudaSuccess ||
	    (e = cudaMalloc((void **)&s->d_a, mat)) != cudaSuccess ||
	    (e = cudaMalloc((void **)&s->d_b, mat)) != cudaSuccess ||
	    (e = cudaMalloc((void **)&s->d_c, mat)) != cudaSuccess)
		return cuda_fail(e, "cudaMalloc", err, n);
	cudaMemsetAsync(s->d_a, 0, mat, s->stream);
	cudaMemsetAsync(s->d_b, 0, mat, s->stream);
	if (cublasCreate(&s->blas) != CUBLAS_STATUS_SUCCESS ||
	    cublasSetStream(s->blas, s->stream) != CUBLAS_STATUS_SUCCESS) {
		snprintf(err, n, "cublasCreate failed on GPU %d", s->device);
		return -1;
	}
	nr = ncclCommInitRank(&s->comm, t->world, id, t->rank);
	if (nr != ncclSuccess) {
		s->comm = NULL;
		snprintf(err, n, "ncclCommInitRank: %s", ncclGetErrorString(nr));
		return -1;
	}
	return sync_stream(s, err, n);
}

static int nccl_load(struct train *t, char *err, size_t n)
{
	struct nccl_state *s = t->be_state;
	cudaError_t e =
		cudaMemcpyAsync(s->d_send, t->send, t->count * sizeof(float), cudaMemcpyHostToDevice, s->stream);

	if (e != cudaSuccess)
		return cuda_fail(e, "cudaMemcpy to device", err, n);
	return sync_stream(s, err, n);
}

static int nccl_compute(struct train *t, int64_t ns, char *err, size_t n)
{
	struct nccl_state *s = t->be_state;
	const float one = 1.0f, zero = 0.0f;
	int64_t end = train_now_ns() + ns;

	do {
		if (cublasSgemm(s->blas, CUBLAS_OP_N, CUBLAS_OP_N, GEMM_N, GEMM_N, GEMM_N, &one, s->d_a, GEMM_N, s->d_b,
				GEMM_N, &zero, s->d_c, GEMM_N) != CUBLAS_STATUS_SUCCESS) {
			snprintf(err, n, "cublasSgemm failed");
			return -1;
		}
		if (sync_stream(s, err, n) < 0)
			return -1;
	} while (train_now_ns() < end);
	return 0;
}

static int nccl_allreduce(struct train *t, char *err, size_t n)
{
	struct nccl_state *s = t->be_state;
	ncclResult_t nr = ncclAllReduce(s->d_send, s->d_recv, t->count, ncclFloat, ncclSum, s->comm, s->stream);

	if (nr != ncclSuccess) {
		snprintf(err, n, "ncclAllReduce: %s", ncclGetErrorString(nr));
		return -1;
	}
	return sync_stream(s, err, n);
}

static int nccl_fetch(struct train *t, char *err, size_t n)
{
	struct nccl_state *s = t->be_state;
	cudaError_t e =
		cudaMemcpyAsync(t->recv, s->d_recv, t->count * sizeof(float), cudaMemcpyDeviceToHost, s->stream);

	if (e != cudaSuccess)
		return cuda_fail(e, "cudaMemcpy to host", err, n);
	return sync_stream(s, err, n);
}

static void nccl_fini(struct train *t)
{
	struct nccl_state *s = t->be_state;

	if (!s)
		return;
	if (s->comm)
		ncclCommDestroy(s->comm);
	if (s->blas)
		cublasDestroy(s->blas);
	cudaFree(s->d_send);
	cudaFree(s->d_recv);
	cudaFree(s->d_a);
	cudaFree(s->d_b);
	cudaFree(s->d_c);
	if (s->stream)
		cudaStreamDestroy(s->stream);
	free(s);
	t->be_state = NULL;
}

const struct train_backend train_backend_nccl = {
	.name = "nccl",
	.init = nccl_init,
	.load = nccl_load,
	.compute = nccl_compute,
	.allreduce = nccl_allreduce,
	.fetch = nccl_fetch,
	.fini = nccl_fini,
};
