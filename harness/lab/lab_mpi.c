/*
 * lab_mpi.c - the lab's mpi part: the mpirun arguments the training
 * workload needs here.
 */
#define _GNU_SOURCE
#include "lab_int.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- part: mpi ------------------------------------------------------------------------------ */

void lab_up_mpi(struct lab *L)
{
	char out[2048], train[PATH_MAX], *slash;
	cJSON *t;

	snprintf(train, sizeof(train), "%s", L->self);
	slash = strrchr(train, '/');
	snprintf(slash ? slash + 1 : train, sizeof(train) - (size_t)(slash ? slash + 1 - train : 0), "gauntlet-train");
	if (!lab_have("mpirun")) {
		lab_part(L, "mpi", 0, "mpirun is not installed (Debian: apt-get install openmpi-bin libopenmpi-dev)");
		return;
	}
	if (access(train, X_OK) != 0) {
		lab_part(L, "mpi", 0, "%s was not built (OpenMPI development files missing at build time)", train);
		return;
	}
	LAB_RUN(out, sizeof(out), 10000, "mpirun", "--version");
	t = lab_inv_obj(L, "training");
	cJSON_AddStringToObject(t, "binary", train);
	/* the training workload adds --allow-run-as-root itself when root */
	cJSON_AddItemToObject(t, "launcher_args", lab_str_array((const char *const[]){ "--oversubscribe", NULL }));
	{
		char ck[1100];
		snprintf(ck, sizeof(ck), "%s/ckpt", L->dir);
		gl_mkdir_p(ck, 0700, NULL);
		cJSON_AddStringToObject(t, "checkpoint_dir", ck);
	}
	lab_part(L, "mpi", 1, "%.*s, ranks of %s on this machine (MPI backend)", (int)strcspn(out, "\n"), out, train);
}
