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

static const char *mpi_host_name(const struct gl_host *h)
{
	return h->local ? "localhost" : h->ssh_host;
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

int trn_build_command(struct trn *w, const cJSON *cfg, struct gl_err *err)
{
	const struct gl_scenario *sc = gl_ctx_scenario(w->ctx);
	const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(cfg, "hosts"), *h;
	const cJSON *mca = cJSON_GetObjectItemCaseSensitive(cfg, "mca");
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(cfg, "env");
	const cJSON *extra = cJSON_GetObjectItemCaseSensitive(cfg, "launcher_args"), *e;
	char hostlist[4096] = "", names[64][256];
	size_t off = 0;
	int slots_total = 0, n_names = 0, rc = 0;

	cJSON_ArrayForEach(h, hosts) {
		char name[GL_NAME_MAX + 16], *colon;
		const struct gl_host *gh;
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
		slots_total += (int)slots;
		for (int i = 0; i < n_names && !seen; i++)
			seen = !strcmp(names[i], mpi_host_name(gh));
		if (!seen && n_names < 64)
			snprintf(names[n_names++], sizeof(names[0]), "%s", mpi_host_name(gh));
		if (off < sizeof(hostlist))
			off += (size_t)snprintf(hostlist + off, sizeof(hostlist) - off, "%s%s:%ld", off ? "," : "",
						mpi_host_name(gh), slots);
	}
	w->np = (int)gl_cfg_int(cfg, "np", slots_total ? slots_total : 1);
	w->n_hosts_distinct = n_names ? n_names : 1;

	rc |= add_arg(w->argv_launch, &w->n_launch, "%s",
		      gl_cfg_str(cfg, "launcher_path", w->is_srun ? "srun" : "mpirun"));
	if (!w->is_srun) {
		rc |= add_arg(w->argv_launch, &w->n_launch, "-np");
		rc |= add_arg(w->argv_launch, &w->n_launch, "%d", w->np);
		if (hosts) {
			rc |= add_arg(w->argv_launch, &w->n_launch, "-H");
			rc |= add_arg(w->argv_launch, &w->n_launch, "%s", hostlist);
		}
		if (geteuid() == 0)
			rc |= add_arg(w->argv_launch, &w->n_launch, "--allow-run-as-root");
		cJSON_ArrayForEach(e, mca) {
			rc |= add_arg(w->argv_launch, &w->n_launch, "--mca");
			rc |= add_arg(w->argv_launch, &w->n_launch, "%s", e->string);
			rc |= add_arg(w->argv_launch, &w->n_launch, "%s",
				      cJSON_IsString(e) ? e->valuestring : "");
		}
		cJSON_ArrayForEach(e, env) {
			rc |= add_arg(w->argv_launch, &w->n_launch, "-x");
			rc |= add_arg(w->argv_launch, &w->n_launch, "%s", e->string);
		}
		if (w->backend == BK_NCCL && !cJSON_GetObjectItemCaseSensitive(env, "NCCL_DEBUG")) {
			rc |= add_arg(w->argv_launch, &w->n_launch, "-x");
			rc |= add_arg(w->argv_launch, &w->n_launch, "NCCL_DEBUG");
		}
	} else {
		char nodes[4096] = "";
		size_t no = 0;
		for (int i = 0; i < n_names; i++)
			no += (size_t)snprintf(nodes + no, sizeof(nodes) - no, "%s%s", i ? "," : "", names[i]);
		rc |= add_arg(w->argv_launch, &w->n_launch, "-n");
		rc |= add_arg(w->argv_launch, &w->n_launch, "%d", w->np);
		if (n_names) {
			rc |= add_arg(w->argv_launch, &w->n_launch, "-N");
			rc |= add_arg(w->argv_launch, &w->n_launch, "%d", n_names);
			rc |= add_arg(w->argv_launch, &w->n_launch, "--nodelist=%s", nodes);
		}
		rc |= add_arg(w->argv_launch, &w->n_launch, "--export=ALL");
		rc |= add_arg(w->argv_launch, &w->n_launch, "--kill-on-bad-exit=1");
	}
	cJSON_ArrayForEach(e, extra)
		if (cJSON_IsString(e))
			rc |= add_arg(w->argv_launch, &w->n_launch, "%s", e->valuestring);
	cJSON_ArrayForEach(e, env)
		if (w->n_env < 62)
			rc |= add_arg(w->env, &w->n_env, "%s=%s", e->string, cJSON_IsString(e) ? e->valuestring : "");
	if (w->backend == BK_NCCL && !cJSON_GetObjectItemCaseSensitive(env, "NCCL_DEBUG") && w->n_env < 62)
		rc |= add_arg(w->env, &w->n_env, "NCCL_DEBUG=INFO");

	if (w->backend == BK_NCCL_TESTS) {
		const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(cfg, "command");
		int i = 0;
		cJSON_ArrayForEach(e, cmd) {
			if (!cJSON_IsString(e))
				continue;
			rc |= add_arg(w->argv_prog, &w->n_prog, "%s", e->valuestring);
			if ((!strcmp(e->valuestring, "-J") || !strcmp(e->valuestring, "--output_file")) && e->next &&
			    cJSON_IsString(e->next))
				snprintf(w->json_out, sizeof(w->json_out), "%s", e->next->valuestring);
			i++;
		}
		if (!i)
			return gl_errf(err, GL_EINVAL, "training: backend nccl-tests needs \"command\" "
				       "([\"all_reduce_perf\", \"-b\", \"8\", ...])");
	} else {
		char bin[1024], b[64];
		const cJSON *ck = cJSON_GetObjectItemCaseSensitive(cfg, "checkpoint");
		trn_train_binary(cfg, bin, sizeof(bin));
		rc |= add_arg(w->argv_prog, &w->n_prog, "%s", bin);
		rc |= add_arg(w->argv_prog, &w->n_prog, "--backend");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%s", w->backend == BK_NCCL ? "nccl" : "mpi");
		rc |= add_arg(w->argv_prog, &w->n_prog, "--message");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%" PRIu64, gl_cfg_size(cfg, "message", 64u << 20));
		gl_format_duration(gl_cfg_dur(cfg, "compute", 0), b, sizeof(b));
		rc |= add_arg(w->argv_prog, &w->n_prog, "--compute");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%s", b);
		gl_format_duration(w->heartbeat_ns, b, sizeof(b));
		rc |= add_arg(w->argv_prog, &w->n_prog, "--heartbeat");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%s", b);
		rc |= add_arg(w->argv_prog, &w->n_prog, "--check-every");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%ld", gl_cfg_int(cfg, "correctness_every", 1));
		rc |= add_arg(w->argv_prog, &w->n_prog, "--expect-world");
		rc |= add_arg(w->argv_prog, &w->n_prog, "%d", w->np);
		if (hosts) {
			rc |= add_arg(w->argv_prog, &w->n_prog, "--expect-hosts");
			rc |= add_arg(w->argv_prog, &w->n_prog, "%d", w->n_hosts_distinct);
		}
		if (w->steps) {
			rc |= add_arg(w->argv_prog, &w->n_prog, "--steps");
			rc |= add_arg(w->argv_prog, &w->n_prog, "%" PRId64, w->steps);
		}
		if (gl_cfg_str(cfg, "dataset", NULL)) {
			rc |= add_arg(w->argv_prog, &w->n_prog, "--dataset");
			rc |= add_arg(w->argv_prog, &w->n_prog, "%s", gl_cfg_str(cfg, "dataset", ""));
			rc |= add_arg(w->argv_prog, &w->n_prog, "--data-per-step");
			rc |= add_arg(w->argv_prog, &w->n_prog, "%" PRIu64, gl_cfg_size(cfg, "data_per_step", 1u << 20));
		}
		if (ck) {
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
		}
		{
			/* test hooks passed through (tests/scripts/test_training.sh) */
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(cfg, "train_args");
			cJSON_ArrayForEach(e, x)
				if (cJSON_IsString(e))
					rc |= add_arg(w->argv_prog, &w->n_prog, "%s", e->valuestring);
		}
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
