/*
 * training_launch.c - the training workload's launch command (training.c
 * has the whole story): mpirun or srun over the hosts given and their
 * slots, gauntlet-train's flags or the nccl-tests binary's, the environment
 * (NCCL_DEBUG and the rest), and the command's text for the event log.
 */
#include "training_int.h"

static int add_arg(char **v, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int add_arg(char **v, int *n, const char *fmt, ...)
{
	va_list ap;
	char buf[2048];

	if (*n >= MAX_ARGS - 1)
		return -1;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	v[*n] = strdup(buf);
	if (!v[*n])
		return -1;
	(*n)++;
	v[*n] = NULL;
	return 0;
}

/* ---- the launch command ------------------------------------------------------ */

/* mpirun's name for a host: ssh's, or for this machine "localhost",
 * unless it has an address (a lab worker's namespace): then that, which a
 * launcher agent (mca plm_rsh_agent) reaches it by */
static const char *mpi_host_name(const struct gl_host *h)
{
	if (h->local)
		return h->address[0] ? h->address : "localhost";
	return h->ssh_host;
}

/* The gauntlet-train binary: "binary" from the scenario, else the one next
 * to this gauntlet, else whatever PATH finds on the ranks' hosts. */
void trn_train_binary(const cJSON *cfg, char *out, size_t n)
{
	char self[1024];
	ssize_t k;
	const char *b = gl_cfg_str(cfg, "binary", NULL);

	if (b) {
		snprintf(out, n, "%s", b);
		return;
	}
	k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (k > 0) {
		char *slash;
		self[k] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			struct stat st;
			snprintf(slash + 1, sizeof(self) - (size_t)(slash + 1 - self), "gauntlet-train");
			if (stat(self, &st) == 0) {
				snprintf(out, n, "%s", self);
				return;
			}
		}
	}
	snprintf(out, n, "gauntlet-train");
}

/* "hosts" as the launchers name them: mpirun's -H list ("name:slots,..."),
 * the distinct names (srun's --nodelist) and the slots added up */
struct launch_hosts {
	char list[4096];
	char names[64][256];
	int n_names, slots_total;
};

static int read_hosts(const struct trn *w, const cJSON *hosts, struct launch_hosts *lh, struct gl_err *err)
{
	const struct gl_scenario *sc = w->sc ? w->sc : gl_ctx_scenario(w->ctx);
	const cJSON *h;
	size_t off = 0;

	cJSON_ArrayForEach(h, hosts)
	{
		char name[GL_NAME_MAX + 16], *colon;
		const struct gl_host *gh;
		const char *node;
		long slots = 1;
		int seen = 0;

		snprintf(name, sizeof(name), "%s", h->valuestring);
		colon = strchr(name, ':');
		if (colon) {
			*colon = '\0';
			slots = strtol(colon + 1, NULL, 10);
		}
		gh = gl_scenario_host(sc, name);
		if (!gh)
			return gl_errf(err, GL_EINVAL, "training: unknown host '%s'", name);
		lh->slots_total += (int)slots;
		/* srun names nodes as Slurm does, mpirun as ssh reaches them */
		node = w->is_srun ? gl_host_slurm_node(gh) : mpi_host_name(gh);
		for (int i = 0; i < lh->n_names && !seen; i++)
			seen = !strcmp(lh->names[i], node);
		if (!seen && lh->n_names < 64)
			snprintf(lh->names[lh->n_names++], sizeof(lh->names[0]), "%s", node);
		if (off < sizeof(lh->list))
			off += (size_t)snprintf(lh->list + off, sizeof(lh->list) - off, "%s%s:%ld", off ? "," : "",
						mpi_host_name(gh), slots);
	}
	return 0;
}

static int launch_mpirun(struct trn *w, const cJSON *cfg, const struct launch_hosts *lh)
{
	const cJSON *mca = cJSON_GetObjectItemCaseSensitive(cfg, "mca");
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(cfg, "env"), *e;
	int rc = 0;

	rc |= add_arg(w->argv_launch, &w->n_launch, "-np");
	rc |= add_arg(w->argv_launch, &w->n_launch, "%d", w->np);
	if (cJSON_GetObjectItemCaseSensitive(cfg, "hosts")) {
		rc |= add_arg(w->argv_launch, &w->n_launch, "-H");
		rc |= add_arg(w->argv_launch, &w->n_launch, "%s", lh->list);
	}
	if (geteuid() == 0)
		rc |= add_arg(w->argv_launch, &w->n_launch, "--allow-run-as-root");
	cJSON_ArrayForEach(e, mca)
	{
		rc |= add_arg(w->argv_launch, &w->n_launch, "--mca");
		rc |= add_arg(w->argv_launch, &w->n_launch, "%s", e->string);
		rc |= add_arg(w->argv_launch, &w->n_launch, "%s", cJSON_IsString(e) ? e->valuestring : "");
	}
	cJSON_ArrayForEach(e, env)
	{
		rc |= add_arg(w->argv_launch, &w->n_launch, "-x");
		rc |= add_arg(w->argv_launch, &w->n_launch, "%s", e->string);
	}
	if (w->backend == BK_NCCL && !cJSON_GetObjectItemCaseSensitive(env, "NCCL_DEBUG")) {
		rc |= add_arg(w->argv_launch, &w->n_launch, "-x");
		rc |= add_arg(w->argv_launch, &w->n_launch, "NCCL_DEBUG");
	}
	return rc;
}

static int launch_srun(struct trn *w, const struct launch_hosts *lh)
{
	char nodes[4096] = "";
	size_t no = 0;
	int rc = 0;

	for (int i = 0; i < lh->n_names; i++)
		no += (size_t)snprintf(nodes + no, sizeof(nodes) - no, "%s%s", i ? "," : "", lh->names[i]);
	rc |= add_arg(w->argv_launch, &w->n_launch, "-n");
	rc |= add_arg(w->argv_launch, &w->n_launch, "%d", w->np);
	if (lh->n_names) {
		rc |= add_arg(w->argv_launch, &w->n_launch, "-N");
		rc |= add_arg(w->argv_launch, &w->n_launch, "%d", lh->n_names);
		rc |= add_arg(w->argv_launch, &w->n_launch, "--nodelist=%s", nodes);
	}
	rc |= add_arg(w->argv_launch, &w->n_launch, "--export=ALL");
	rc |= add_arg(w->argv_launch, &w->n_launch, "--kill-on-bad-exit=1");
	return rc;
}

/* The ranks' environment: "env", and NCCL_DEBUG=INFO for the nccl backend */
static int set_env(struct trn *w, const cJSON *env)
{
	const cJSON *e;
	int rc = 0;

	cJSON_ArrayForEach(e, env) if (w->n_env < 62)
		rc |= add_arg(w->env, &w->n_env, "%s=%s", e->string, cJSON_IsString(e) ? e->valuestring : "");
	if (w->backend == BK_NCCL && !cJSON_GetObjectItemCaseSensitive(env, "NCCL_DEBUG") && w->n_env < 62)
		rc |= add_arg(w->env, &w->n_env, "NCCL_DEBUG=INFO");
	return rc;
}

/* backend nccl-tests: "command" as given; -J (--output_file) names the
 * JSON it writes. 1 when the command is empty. */
static int prog_nccl_tests(struct trn *w, const cJSON *cfg, int *rc)
{
	const cJSON *e;
	int i = 0;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(cfg, "command"))
	{
		if (!cJSON_IsString(e))
			continue;
		*rc |= add_arg(w->argv_prog, &w->n_prog, "%s", e->valuestring);
		if ((!strcmp(e->valuestring, "-J") || !strcmp(e->valuestring, "--output_file")) && e->next &&
		    cJSON_IsString(e->next))
			snprintf(w->json_out, sizeof(w->json_out), "%s", e->next->valuestring);
		i++;
	}
	return !i;
}

/* gauntlet-train's checkpoint flags; the directory is the run's own */
static int prog_ckpt(struct trn *w, const cJSON *ck)
{
	char b[64];
	int rc = 0;

	w->ckpt = 1;
	snprintf(w->ckpt_dir, sizeof(w->ckpt_dir), "%s/%s", gl_cfg_str(ck, "dir", "."),
		 gl_ctx_run_id(w->ctx)[0] ? gl_ctx_run_id(w->ctx) : "run");
	rc |= add_arg(w->argv_prog, &w->n_prog, "--ckpt-dir");
	rc |= add_arg(w->argv_prog, &w->n_prog, "%s", w->ckpt_dir);
	rc |= add_arg(w->argv_prog, &w->n_prog, "--ckpt-size");
	rc |= add_arg(w->argv_prog, &w->n_prog, "%" PRIu64, gl_cfg_size(ck, "size", 1u << 30));
	rc |= add_arg(w->argv_prog, &w->n_prog, "--ckpt-keep");
	rc |= add_arg(w->argv_prog, &w->n_prog, "%ld", gl_cfg_int(ck, "keep", 2));
	rc |= add_arg(w->argv_prog, &w->n_prog, "--ckpt-hash");
	rc |= add_arg(w->argv_prog, &w->n_prog, "%s", gl_cfg_str(ck, "hash", "xxh3"));
	if (cJSON_GetObjectItemCaseSensitive(ck, "every_steps")) {
		rc |= add_arg(w->argv_prog, &w->n_prog, "--ckpt-every-steps");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%ld", gl_cfg_int(ck, "every_steps", 100));
	} else {
		gl_format_duration(gl_cfg_dur(ck, "every", 1800LL * 1000000000), b, sizeof(b));
		rc |= add_arg(w->argv_prog, &w->n_prog, "--ckpt-every");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%s", b);
	}
	return rc;
}

/* gauntlet-train and its flags */
static int prog_train(struct trn *w, const cJSON *cfg)
{
	const cJSON *ck = cJSON_GetObjectItemCaseSensitive(cfg, "checkpoint"), *e;
	char bin[1024], b[64];
	int rc = 0;

	trn_train_binary(cfg, bin, sizeof(bin));
	rc |= add_arg(w->argv_prog, &w->n_prog, "%s", bin);
	rc |= add_arg(w->argv_prog, &w->n_prog, "--backend");
	rc |= add_arg(w->argv_prog, &w->n_prog, "%s", w->backend == BK_NCCL ? "nccl" : "mpi");
	rc |= add_arg(w->argv_prog, &w->n_prog, "--message");
	rc |= add_arg(w->argv_prog, &w->n_prog, "%" PRIu64, w->o.message);
	gl_format_duration(w->o.compute_ns, b, sizeof(b));
	rc |= add_arg(w->argv_prog, &w->n_prog, "--compute");
	rc |= add_arg(w->argv_prog, &w->n_prog, "%s", b);
	gl_format_duration(w->o.heartbeat_ns, b, sizeof(b));
	rc |= add_arg(w->argv_prog, &w->n_prog, "--heartbeat");
	rc |= add_arg(w->argv_prog, &w->n_prog, "%s", b);
	rc |= add_arg(w->argv_prog, &w->n_prog, "--check-every");
	rc |= add_arg(w->argv_prog, &w->n_prog, "%ld", (long)w->o.correctness_every);
	rc |= add_arg(w->argv_prog, &w->n_prog, "--expect-world");
	rc |= add_arg(w->argv_prog, &w->n_prog, "%d", w->np);
	if (cJSON_GetObjectItemCaseSensitive(cfg, "hosts")) {
		rc |= add_arg(w->argv_prog, &w->n_prog, "--expect-hosts");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%d", w->n_hosts_distinct);
	}
	if (w->o.steps) {
		rc |= add_arg(w->argv_prog, &w->n_prog, "--steps");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%" PRId64, w->o.steps);
	}
	if (gl_cfg_str(cfg, "dataset", NULL)) {
		rc |= add_arg(w->argv_prog, &w->n_prog, "--dataset");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%s", gl_cfg_str(cfg, "dataset", ""));
		rc |= add_arg(w->argv_prog, &w->n_prog, "--data-per-step");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%" PRIu64, w->o.data_per_step);
	}
	if (ck)
		rc |= prog_ckpt(w, ck);
	/* test hooks passed through (tests/scripts/test_training.sh) */
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(cfg, "train_args")) if (cJSON_IsString(e))
		rc |= add_arg(w->argv_prog, &w->n_prog, "%s", e->valuestring);
	return rc;
}

int trn_build_command(struct trn *w, const cJSON *cfg, struct gl_err *err)
{
	const cJSON *e;
	struct launch_hosts lh = { 0 };
	int rc = 0;

	if ((rc = read_hosts(w, cJSON_GetObjectItemCaseSensitive(cfg, "hosts"), &lh, err)) != 0)
		return rc;
	w->np = (int)gl_cfg_int(cfg, "np", lh.slots_total ? lh.slots_total : 1);
	w->n_hosts_distinct = lh.n_names ? lh.n_names : 1;
	rc |= add_arg(w->argv_launch, &w->n_launch, "%s",
		      gl_cfg_str(cfg, "launcher_path", w->is_srun ? "srun" : "mpirun"));
	rc |= w->is_srun ? launch_srun(w, &lh) : launch_mpirun(w, cfg, &lh);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(cfg, "launcher_args")) if (cJSON_IsString(e))
		rc |= add_arg(w->argv_launch, &w->n_launch, "%s", e->valuestring);
	rc |= set_env(w, cJSON_GetObjectItemCaseSensitive(cfg, "env"));
	if (w->backend == BK_NCCL_TESTS) {
		if (prog_nccl_tests(w, cfg, &rc))
			return gl_errf(err, GL_EINVAL,
				       "training: backend nccl-tests needs \"command\" "
				       "([\"all_reduce_perf\", \"-b\", \"8\", ...])");
	} else {
		rc |= prog_train(w, cfg);
	}
	return rc ? gl_errf(err, GL_ENOMEM, "training: command too long or out of memory") : 0;
}

void trn_command_text(struct trn *w, int restore, char *out, size_t n)
{
	size_t off = 0;

	out[0] = '\0';
	for (int i = 0; i < w->n_launch && off < n; i++)
		off += (size_t)snprintf(out + off, n - off, "%s%s", off ? " " : "", w->argv_launch[i]);
	for (int i = 0; i < w->n_prog && off < n; i++)
		off += (size_t)snprintf(out + off, n - off, " %s", w->argv_prog[i]);
	if (restore && off < n)
		snprintf(out + off, n - off, " --restore");
}
