/*
 * training_schema.c - the training workload's section of a scenario
 * ("workloads.training"): its keys, launcher and backend, checkpoint, and
 * the hosts it names ("host:slots"), which must be the scenario's hosts.
 * training.c runs what this accepts.
 */
#include "training_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "image_schema.h"
#include "opts.h"
#include "plugin.h"
#include "schema.h"
#include "units.h"

static const char *const launchers[] = { "mpirun", "srun", NULL };
static const char *const backends[] = { "mpi", "nccl", "nccl-tests", NULL };

#define AT(f) GL_OPT_AT(struct gl_training_opts, f)

/* the section's keys, in the order an unknown key's message lists them */
static const struct gl_opt section[] = {
	{ "launcher", GL_OPT_ENUM, .words = launchers, .len = 1024, .def_s = "mpirun", .help = "mpirun or srun",
	  AT(launcher) },
	{ "hosts", GL_OPT_CUSTOM, .help = "[\"host:slots\", ...], hosts of the scenario" },
	{ "np", GL_OPT_INT, .lo = 1, .hi = 1e6, .help = "ranks (default: the hosts' slots added up)" },
	{ "backend", GL_OPT_ENUM, .words = backends, .len = 1024, .def_s = "mpi", .help = "mpi, nccl or nccl-tests",
	  AT(backend) },
	{ "message", GL_OPT_SIZE, .def_s = "64MiB", .help = "allreduce message per step", AT(message) },
	{ "compute", GL_OPT_DURATION, .help = "simulated compute per step", AT(compute_ns) },
	{ "checkpoint", GL_OPT_CUSTOM, .help = "checkpoints: dir, every or every_steps, size, keep, hash" },
	{ "steps", GL_OPT_INT, .lo = 1, .hi = 1099511627776.0, .help = "steps per launch; absent: until stopped",
	  AT(steps) },
	{ "mca", GL_OPT_CUSTOM, .help = "mpirun --mca pairs" },
	{ "env", GL_OPT_CUSTOM, .help = "the ranks' environment" },
	{ "max_restarts", GL_OPT_INT, .lo = 0, .hi = 1000, .def_n = 5, .help = "relaunches after a job ends",
	  AT(max_restarts) },
	{ "restart_backoff", GL_OPT_DURATION, .def_s = "1s", .help = "wait before a relaunch", AT(backoff_ns) },
	{ "correctness_every", GL_OPT_INT, .lo = 1, .hi = 1e6, .def_n = 1, .help = "check the allreduce every N steps",
	  AT(correctness_every) },
	{ "dataset", GL_OPT_STRING, .len = 1024, .help = "file read each step" },
	{ "require_transport", GL_OPT_STRING, .len = 1024, .help = "the NCCL transport the job must use",
	  AT(require_transport) },
	{ "watchdog", GL_OPT_DURATION, .def_s = "60s", .help = "a job without progress this long is a hang",
	  AT(watchdog_ns) },
	{ "command", GL_OPT_CUSTOM, .help = "nccl-tests: the command" },
	{ "launcher_path", GL_OPT_STRING, .len = 1024, .help = "the launcher binary (default: mpirun or srun)" },
	{ "launcher_args", GL_OPT_CUSTOM, .help = "more launcher arguments" },
	{ "binary", GL_OPT_STRING, .len = 1024, .help = "gauntlet-train (default: beside gauntlet, else PATH)" },
	{ "heartbeat", GL_OPT_DURATION, .def_s = "1s", .help = "how often each rank says it is alive",
	  AT(heartbeat_ns) },
	{ "plateau", GL_OPT_CUSTOM, .help = "nccl-tests: the message sizes whose busbw is judged" },
	{ "data_per_step", GL_OPT_SIZE, .def_s = "1MiB", .help = "dataset bytes read per step", AT(data_per_step) },
	{ "train_args", GL_OPT_CUSTOM, .help = "more gauntlet-train arguments (tests)" },
	{ "bisect", GL_OPT_CUSTOM, .help = "after failed steady targets: bisect the hosts (min_busbw, budget, ...)" },
	{ "sweep", GL_OPT_CUSTOM,
	  .help = "before the load: each host alone, then every pair (min_busbw, budget, ...)" },
};

static const char *const image_keys[] = { GL_IMAGE_KEYS, NULL };

const struct gl_opt *gl_training_options(size_t *n)
{
	*n = GL_ARRAY_LEN(section);
	return section;
}

void gl_training_opts_read(const cJSON *w, struct gl_training_opts *o)
{
	gl_opts_fill(w, section, GL_ARRAY_LEN(section), o);
}

/* "plateau" and "require_transport", and what backend nccl-tests needs */
static void check_backend(const cJSON *w, struct gl_diag *d, const char *path)
{
	char p[512];
	uint64_t sz;

	const cJSON *pl = cJSON_GetObjectItemCaseSensitive(w, "plateau"), *e;
	char pp[600];
	int i = 0;
	gl_join(p, sizeof(p), path, "plateau");
	if (pl && (!cJSON_IsArray(pl) || !cJSON_GetArraySize(pl)))
		gl_diag_error(d, pl, p, "expected a non-empty array of message sizes like [\"128MiB\"]");
	else if (pl)
		cJSON_ArrayForEach(e, pl)
		{
			struct gl_err ge = { 0 };
			snprintf(pp, sizeof(pp), "%s[%d]", p, i++);
			if (!cJSON_IsString(e) || gl_parse_size_bytes(e->valuestring, &sz, &ge) != 0)
				gl_diag_error(d, e, pp, "%s", cJSON_IsString(e) ? ge.msg : "expected a size string");
		}
	if (!strcmp(gl_cfg_str(w, "backend", "mpi"), "nccl-tests")) {
		if (!cJSON_GetObjectItemCaseSensitive(w, "command"))
			gl_diag_error(d, w, path,
				      "backend nccl-tests needs \"command\" "
				      "([\"all_reduce_perf\", \"-b\", \"8\", \"-e\", \"256M\", ...])");
		if (!pl)
			gl_diag_error(d, w, path,
				      "backend nccl-tests needs \"plateau\": the message sizes "
				      "whose busbw is judged (the \"Avg bus bandwidth\" line never is)");
	}
	{
		const char *rt = gl_cfg_str(w, "require_transport", NULL);
		static const char *const tr[] = { "NET/IB", "NET/Socket", "P2P",     "SHM",
						  "GDRDMA", "NVLS",       "CollNet", NULL };
		int known = 0;
		for (int k = 0; rt && tr[k]; k++)
			known |= !strcmp(rt, tr[k]);
		gl_join(p, sizeof(p), path, "require_transport");
		if (rt && !known)
			gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(w, "require_transport"), p,
				      "unknown transport '%s' (NET/IB, NET/Socket, P2P, SHM, GDRDMA, NVLS, CollNet)",
				      rt);
		if (rt && !strcmp(gl_cfg_str(w, "backend", "mpi"), "mpi"))
			gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(w, "require_transport"), p,
				      "require_transport needs backend nccl or nccl-tests (NCCL reports it)");
	}
}

static void check_checkpoint(const cJSON *w, struct gl_diag *d, const char *path)
{
	static const char *const ckeys[] = { "dir", "every", "every_steps", "size", "keep", "hash", NULL };
	static const char *const hashes[] = { "xxh3", "sha256", NULL };
	const cJSON *ck;
	char buf[1024], p[512];
	uint64_t sz;
	int64_t ns;
	long l;

	ck = cJSON_GetObjectItemCaseSensitive(w, "checkpoint");
	gl_join(p, sizeof(p), path, "checkpoint");
	if (ck && gl_want_object(d, ck, p)) {
		gl_check_keys(d, ck, p, ckeys);
		gl_get_string(d, ck, "dir", p, 1, buf, sizeof(buf));
		gl_get_duration(d, ck, "every", p, 0, &ns);
		gl_get_int(d, ck, "every_steps", p, 0, 1, 1L << 40, &l);
		gl_get_size(d, ck, "size", p, 1, &sz);
		gl_get_int(d, ck, "keep", p, 0, 1, 1000, &l);
		gl_get_enum(d, ck, "hash", p, 0, hashes, buf, sizeof(buf));
		if (!cJSON_GetObjectItemCaseSensitive(ck, "every") &&
		    !cJSON_GetObjectItemCaseSensitive(ck, "every_steps"))
			gl_diag_error(d, ck, p, "a checkpoint needs \"every\" (a duration) or \"every_steps\"");
	}
}

/* What a bisection and a sweep share (min_busbw, budget, job_timeout,
 * steps, message) in section b at p; they run gauntlet-train, so not
 * with nccl-tests. */
static void check_jobs(const cJSON *w, const cJSON *b, struct gl_diag *d, const char *p, int min_required,
		       const char *what)
{
	double x;
	int64_t ns;
	uint64_t sz;
	long l;

	gl_get_number(d, b, "min_busbw", p, min_required, 1e-9, 1e6, &x);
	if (gl_get_duration(d, b, "budget", p, 0, &ns) == 1 && (ns < 1000000000LL || ns > 86400LL * 1000000000))
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(b, "budget"), p, "budget: 1s to 24h");
	if (gl_get_duration(d, b, "job_timeout", p, 0, &ns) == 1 && (ns < 1000000000LL || ns > 3600LL * 1000000000))
		gl_diag_error(d, cJSON_GetObjectItemCaseSensitive(b, "job_timeout"), p, "job_timeout: 1s to 1h");
	gl_get_int(d, b, "steps", p, 0, 3, 4096, &l);
	gl_get_size(d, b, "message", p, 0, &sz);
	if (!strcmp(gl_cfg_str(w, "backend", "mpi"), "nccl-tests"))
		gl_diag_error(d, b, p, "%s runs gauntlet-train: backend mpi or nccl, not nccl-tests", what);
}

/* "bisect": what a failed run's bisection judges by and may take
 * (training_bisect.h). */
static void check_bisect(const cJSON *w, struct gl_diag *d, const char *path)
{
	static const char *const bkeys[] = { "min_busbw", "budget", "job_timeout", "steps", "message", NULL };
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(w, "bisect");
	char p[512];

	gl_join(p, sizeof(p), path, "bisect");
	if (!b || !gl_want_object(d, b, p))
		return;
	gl_check_keys(d, b, p, bkeys);
	check_jobs(w, b, d, p, 1, "bisect");
}

/* "sweep": the node sweep before the load (training_sweep.h), over 2 to
 * 256 hosts. */
static void check_sweep(const cJSON *w, struct gl_diag *d, const char *path)
{
	static const char *const skeys[] = { "min_busbw", "budget",   "job_timeout", "steps", "message",
					     "pairs",     "parallel", "tolerance",   NULL };
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(w, "sweep");
	char p[512];
	double x;
	long l;
	int on;

	gl_join(p, sizeof(p), path, "sweep");
	if (!b || !gl_want_object(d, b, p))
		return;
	gl_check_keys(d, b, p, skeys);
	check_jobs(w, b, d, p, 0, "a sweep");
	gl_get_int(d, b, "parallel", p, 0, 1, 128, &l);
	gl_get_number(d, b, "tolerance", p, 0, 0.01, 2, &x);
	gl_get_bool(d, b, "pairs", p, &on);
	if (!cJSON_GetObjectItemCaseSensitive(w, "hosts"))
		gl_diag_error(d, b, p, "a sweep needs training.hosts ([\"host:slots\", ...], 2 hosts or more)");
}

void gl_training_validate(const struct gl_scenario *s, const cJSON *w, struct gl_diag *d, const char *path)
{
	const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(w, "hosts");

	gl_opts_check_keys(d, w, path, section, GL_ARRAY_LEN(section), image_keys);
	gl_image_keys_validate(s, w, d, path);
	gl_opts_validate(d, w, path, section, GL_ARRAY_LEN(section));
	gl_check_string_array(d, w, "launcher_args", path, 0);
	gl_check_string_array(d, w, "train_args", path, 0);
	gl_check_string_array(d, w, "command", path, 0);
	check_backend(w, d, path);
	if (hosts)
		gl_check_host_slots(s, d, hosts, path, 65536, ">= 1", "[\"gpu-a:8\"]");
	check_checkpoint(w, d, path);
	check_bisect(w, d, path);
	check_sweep(w, d, path);
	if (!cJSON_GetObjectItemCaseSensitive(w, "hosts") && !cJSON_GetObjectItemCaseSensitive(w, "np"))
		gl_diag_error(d, w, path, "training needs \"hosts\" ([\"host:slots\", ...]) or \"np\"");
}

/* Judged by its step time; nccl-tests has no steps: its figure is busbw at
 * the plateau sizes. */
void gl_training_targets(const cJSON *w, struct gl_target_need *n)
{
	if (!strcmp(gl_cfg_str(w, "backend", "mpi"), "nccl-tests"))
		gl_need_require(n, GL_SCOPE_STEADY, "training.busbw_gbps", 0, "training.busbw_gbps.p50", NULL);
	else
		gl_need_require(n, GL_SCOPE_STEADY, "training.step_time_s", 0, "training.step_time_s.p95", NULL);
}

/* With faults scheduled, checkpoints are judged by how they restore; a
 * restore follows only a job's end (a relaunch), so the threshold is
 * required when a scheduled fault is sure to end the job (a rank killed,
 * ranks stopped past the watchdog), and optional otherwise: a network cut
 * the job may ride through, or faults that leave it running, would leave
 * a required figure without data, a failed gate for nothing. */
void gl_training_fault_targets(const cJSON *w, struct gl_target_need *n)
{
	const char *names[3], *hosts[64];
	char buf[64][GL_NAME_MAX], bin[1024], sure[512], maybe[512], why[768];
	const cJSON *hs = cJSON_GetObjectItemCaseSensitive(w, "hosts"), *h, *cmd;
	struct gl_proc_view p = { hosts, 0, names, 0, gl_cfg_dur(w, "watchdog", 60LL * 1000000000) };
	const char *slash;

	if (!cJSON_GetObjectItemCaseSensitive(w, "checkpoint"))
		return;
	cJSON_ArrayForEach(h, hs)
	{
		if (!cJSON_IsString(h) || p.n_hosts == 64)
			continue;
		snprintf(buf[p.n_hosts], sizeof(buf[0]), "%s", h->valuestring);
		buf[p.n_hosts][strcspn(buf[p.n_hosts], ":")] = '\0';
		hosts[p.n_hosts] = buf[p.n_hosts];
		p.n_hosts++;
	}
	/* the ranks' binary by its base name: gauntlet-train (or "binary"),
	 * nccl-tests' *_perf command */
	snprintf(bin, sizeof(bin), "%s", gl_cfg_str(w, "binary", "gauntlet-train"));
	cmd = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(w, "command"), 0);
	if (!strcmp(gl_cfg_str(w, "backend", "mpi"), "nccl-tests") && cJSON_IsString(cmd))
		snprintf(bin, sizeof(bin), "%s", cmd->valuestring);
	slash = strrchr(bin, '/');
	names[p.n_names++] = slash ? slash + 1 : bin;
	switch (gl_need_faults_end(n, &p, sure, sizeof(sure), maybe, sizeof(maybe))) {
	case GL_ENDS_SURE:
		snprintf(why, sizeof(why), "training checkpoints are present and a fault ends the job: %s", sure);
		gl_need_require(n, GL_SCOPE_RECOVERY, "training.checkpoint.restore_s", 1,
				"training.checkpoint.restore_s", why);
		break;
	case GL_ENDS_MAYBE:
		snprintf(why, sizeof(why),
			 "no scheduled fault is sure to end the training job; %s may (then the "
			 "restore is measured, and judged when this target is written)",
			 maybe);
		gl_need_optional(n, GL_SCOPE_RECOVERY, "training.checkpoint.restore_s", why, 0);
		break;
	default:
		gl_need_optional(n, GL_SCOPE_RECOVERY, "training.checkpoint.restore_s",
				 "no scheduled fault ends the training job (a restore follows a relaunch only)", 1);
		break;
	}
}
