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

/* DIR/bin/mpi-agent, mpirun's launcher agent (mca plm_rsh_agent): mpirun
 * runs `mpi-agent HOST COMMAND...` for each host's daemon. A worker's
 * address (10.77.N.2, its inventory "address" and so mpirun's name for
 * it) starts COMMAND in namespace gl-lab-wN under hostname lab-wN (a UTS
 * namespace of its own: the ranks name their node as a cluster's do).
 * Anything else is refused. 0, or -1 when it cannot be written. */
static int write_agent(struct lab *L, const char *path)
{
	char text[1600];

	snprintf(text, sizeof(text),
		 "#!/bin/sh\n"
		 "# mpi-agent HOST COMMAND...: mpirun's launcher agent for the lab (mca plm_rsh_agent):\n"
		 "# starts COMMAND in the lab worker whose address HOST is (10.77.N.2: namespace\n"
		 "# gl-lab-wN, hostname lab-wN). Written by gauntlet lab up; removed by gauntlet lab down.\n"
		 "h=${1:-}\n"
		 "[ $# -ge 2 ] && shift || { echo \"usage: $0 HOST COMMAND...\" >&2; exit 2; }\n"
		 "n=${h#10.77.}; n=${n%%.2}\n"
		 "case \"$h:$n\" in\n"
		 "10.77.[1-%d].2:[1-%d]) ;;\n"
		 "*) echo \"mpi-agent: $h is not a lab worker's address\" >&2; exit 1 ;;\n"
		 "esac\n"
		 "exec ip netns exec \"gl-lab-w$n\" unshare --uts /bin/sh -c \"hostname lab-w$n && $*\"\n",
		 L->workers, L->workers);
	return lab_write_text(path, text, 0700);
}

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
	if (L->net && L->workers > 0) { /* ranks on the workers: through the agent */
		char agent[1100];
		cJSON *mca;
		snprintf(agent, sizeof(agent), "%s/bin/mpi-agent", L->dir);
		if (write_agent(L, agent) != 0) {
			lab_part(L, "mpi", 0, "cannot write %s", agent);
			return;
		}
		mca = cJSON_AddObjectToObject(t, "mca");
		cJSON_AddStringToObject(mca, "plm_rsh_agent", agent);
		/* one slot per worker on a machine of few cores: a rank waiting
		 * in the all-reduce yields the CPU instead of spinning on it
		 * (mpirun does so by itself only when it sees a host
		 * oversubscribed) */
		cJSON_AddStringToObject(mca, "mpi_yield_when_idle", "1");
	}
	{
		char ck[1100];
		snprintf(ck, sizeof(ck), "%s/ckpt", L->dir);
		gl_mkdir_p(ck, 0700, NULL);
		cJSON_AddStringToObject(t, "checkpoint_dir", ck);
	}
	lab_part(L, "mpi", 1, "%.*s, ranks of %s on this machine%s (MPI backend)", (int)strcspn(out, "\n"), out, train,
		 L->net && L->workers > 0 ? " and on the workers (DIR/bin/mpi-agent)" : "");
}
