/*
 * training_jobs.c - short all-reduce jobs over chosen hosts, side by side
 * (training_jobs.h): each launched in a process group of its own, its
 * output read through one poll over every job, each stopped at its own
 * deadline or all at once on a stop request.
 */
#define _GNU_SOURCE
#include "training_jobs.h"
#include "training_int.h"

#include <poll.h>
#include <time.h>

#include "diag.h"
#include "stop.h"

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double trn_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* What a job printed: rank 0's step lines and the last other lines. */
struct job_out {
	double busbw[TRN_JOB_STEPS];
	int n;
	char line[LINE_MAX_BYTES];
	size_t len;
	char other[2][200];
	char error[200]; /* gauntlet-train's first error line's msg */
};

/* One job while it runs. */
struct running {
	struct trn_job *j;
	struct job_out jo;
	pid_t pid; /* -1: not started (j->why says why) or reaped */
	int fd, eof;
	int64_t child_id, t0, deadline;
};

static void take_line(struct job_out *jo)
{
	const char *b;

	jo->line[jo->len] = '\0';
	if (!strncmp(jo->line, "GLT1 step ", 10)) {
		b = strstr(jo->line, " busbw=");
		/* the first step sets the ring up: not judged */
		if (b && !strstr(jo->line, " n=1 ") && jo->n < TRN_JOB_STEPS)
			jo->busbw[jo->n++] = strtod(b + 7, NULL);
	} else if (!strncmp(jo->line, "GLT1 error ", 11) && !jo->error[0]) {
		b = strstr(jo->line, " msg=");
		snprintf(jo->error, sizeof(jo->error), "%.*s", b ? (int)strcspn(b + 5, "\n") : 0, b ? b + 5 : "");
		b = strstr(jo->error, " ck=");
		if (b)
			jo->error[b - jo->error] = '\0';
	} else if (strncmp(jo->line, "GLT1 ", 5) && jo->len && strspn(jo->line, "-") < jo->len) {
		snprintf(jo->other[0], sizeof(jo->other[0]), "%s", jo->other[1]);
		snprintf(jo->other[1], sizeof(jo->other[1]), "%s", jo->line);
	}
	jo->len = 0;
}

static void feed(struct job_out *jo, const char *buf, ssize_t k)
{
	for (ssize_t i = 0; i < k; i++) {
		if (buf[i] == '\n')
			take_line(jo);
		else if (jo->len < sizeof(jo->line) - 1)
			jo->line[jo->len++] = buf[i];
	}
}

static void not_started(struct trn_job *j, const char *why)
{
	j->exit_code = -1;
	snprintf(j->why, sizeof(j->why), "cannot start the job: %s", why);
}

struct gl_scenario *trn_cli_scenario(const char *path, const char **sets)
{
	struct gl_scenario_opts so = { .time_scale = 1, .sets = sets };
	struct gl_scenario *sc;
	struct gl_diag d;

	gl_diag_init(&d, NULL);
	sc = gl_scenario_load_file(path, &so, &d);
	if (d.text.data)
		fputs(d.text.data, stderr);
	if (sc && d.n_errors) {
		gl_scenario_free(sc);
		sc = NULL;
	}
	gl_diag_free(&d);
	return sc;
}

void trn_job_hosts_text(const struct trn_job *j, char *out, size_t n)
{
	size_t at = 0;

	out[0] = '\0';
	for (int i = 0; i < j->n && at < n; i++)
		at += (size_t)snprintf(out + at, n - at, "%s%s", i ? "," : "", j->host[i]);
}

/* The job's command as the workload would launch it over its hosts:
 * no compute, no checkpoint, no data, o->steps steps. */
static int build(const struct gl_scenario *sc, const cJSON *cfg, const struct trn_job_opts *o, struct trn_job *j,
		 struct trn *w, struct gl_err *err)
{
	cJSON *c2 = cJSON_Duplicate(cfg, 1), *hosts = cJSON_CreateArray(), *env;
	int rc = -1;

	if (!c2 || !hosts) {
		gl_errf(err, GL_ENOMEM, "%s: out of memory", o->tag);
		goto out;
	}
	for (int i = 0; i < j->n; i++) {
		char h[GL_NAME_MAX + 16];
		snprintf(h, sizeof(h), "%s:%d", j->host[i], j->ranks[i] > 0 ? j->ranks[i] : 1);
		cJSON_AddItemToArray(hosts, cJSON_CreateString(h));
	}
	cJSON_ReplaceItemInObjectCaseSensitive(c2, "hosts", hosts);
	hosts = NULL;
	cJSON_DeleteItemFromObjectCaseSensitive(c2, "np");
	cJSON_DeleteItemFromObjectCaseSensitive(c2, "checkpoint");
	cJSON_DeleteItemFromObjectCaseSensitive(c2, "dataset");
	cJSON_DeleteItemFromObjectCaseSensitive(c2, "train_args");
	if (j->force_net) {
		cJSON *mca = cJSON_GetObjectItemCaseSensitive(c2, "mca");
		if (!(env = cJSON_GetObjectItemCaseSensitive(c2, "env")) || !cJSON_IsObject(env)) {
			cJSON_DeleteItemFromObjectCaseSensitive(c2, "env");
			env = cJSON_AddObjectToObject(c2, "env");
		}
		for (const char *const *k = (const char *const[]){ "NCCL_SHM_DISABLE", "NCCL_P2P_DISABLE", NULL }; *k;
		     k++) {
			cJSON_DeleteItemFromObjectCaseSensitive(env, *k);
			cJSON_AddStringToObject(env, *k, "1");
		}
		cJSON_DeleteItemFromObjectCaseSensitive(env, "OMPI_MCA_btl");
		cJSON_AddStringToObject(env, "OMPI_MCA_btl", "tcp,self");
		if (cJSON_IsObject(mca)) { /* an mca "btl" would win over the environment's */
			cJSON_DeleteItemFromObjectCaseSensitive(mca, "btl");
			cJSON_AddStringToObject(mca, "btl", "tcp,self");
		}
	}
	w->sc = sc;
	gl_training_opts_read(c2, &w->o);
	w->backend = w->o.backend == 1 ? BK_NCCL : BK_MPI;
	w->is_srun = w->o.launcher == 1;
	w->o.compute_ns = 0;
	w->o.steps = o->steps;
	w->o.correctness_every = 0;
	w->o.heartbeat_ns = 1000000000LL;
	if (o->message)
		w->o.message = o->message;
	if (trn_build_command(w, c2, err) != 0)
		goto out;
	trn_command_text(w, 0, j->command, sizeof(j->command));
	rc = 0;
out:
	cJSON_Delete(hosts);
	cJSON_Delete(c2);
	return rc;
}

static void free_args(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
}

/* Start x's job (built in w): its own process group, its output on a
 * pipe, a child of the run when there is one. Not started: x->pid -1 and
 * j->why says why. */
static void start(struct gl_ctx *ctx, const struct trn_job_opts *o, struct trn *w, struct running *x)
{
	char *argv[2 * MAX_ARGS];
	int fd[2], n = 0, status;
	struct gl_child_gate gate = { { -1, -1 }, 0 };
	char mark[128] = "";
	pid_t pid;

	x->pid = -1;
	x->fd = -1;
	for (int i = 0; i < w->n_launch; i++)
		argv[n++] = w->argv_launch[i];
	for (int i = 0; i < w->n_prog; i++)
		argv[n++] = w->argv_prog[i];
	argv[n] = NULL;
	if (ctx) /* a run's child: marked, and recorded in its store */
		snprintf(mark, sizeof(mark), "%s", gl_ctx_child_mark(ctx));
	if (pipe2(fd, O_CLOEXEC) != 0) {
		not_started(x->j, strerror(errno));
		return;
	}
	if (gl_child_gate_open(&gate) != 0 || (pid = fork()) < 0) {
		not_started(x->j, strerror(errno));
		if (gate.fd[0] >= 0)
			gl_child_gate_close(&gate);
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pid == 0) { /* child.h: its own group, dies with us, /dev/null in */
		if (gl_child_enter(&gate, fd[1]) != 0)
			_exit(127);
		for (int i = 0; i < w->n_env; i++)
			putenv(w->env[i]);
		if (mark[0])
			putenv(mark);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	setpgid(pid, pid);
	x->child_id = ctx ? gl_ctx_child_started(ctx, o->tag, (int)pid, x->j->command) : 1;
	gl_child_gate_release(&gate, x->child_id > 0);
	if (x->child_id <= 0) { /* the gate closed: the child exits at once */
		close(fd[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		not_started(x->j, "not recorded in the run's store");
		return;
	}
	x->pid = pid;
	x->fd = fd[0];
	x->t0 = mono_ns();
	x->deadline = x->t0 + o->timeout_ns;
}

/* x's launcher has exited or closed its output: what is left in the pipe,
 * without waiting for it, then what it left in its group killed and the
 * launcher reaped. */
static void reap(struct gl_ctx *ctx, struct running *x)
{
	int status = 0;

	fcntl(x->fd, F_SETFL, O_NONBLOCK);
	for (;;) {
		char buf[4096];
		ssize_t k = read(x->fd, buf, sizeof(buf));
		if (k <= 0)
			break;
		feed(&x->jo, buf, k);
	}
	close(x->fd);
	x->fd = -1;
	if (x->jo.len)
		take_line(&x->jo);
	kill(-x->pid, SIGKILL); /* while the group is still its */
	while (waitpid(x->pid, &status, 0) < 0 && errno == EINTR)
		;
	x->j->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	x->j->wall_ns = mono_ns() - x->t0;
	if (ctx)
		gl_ctx_child_ended(ctx, x->child_id);
	x->pid = -1;
}

/* One pass over the jobs still running: each exited one reaped, each past
 * its deadline stopped (TERM, then KILL after a grace), the rest polled
 * for output for at most 200 ms. 0 when none was left running. */
static int step(struct gl_ctx *ctx, struct running *xs, int n, struct pollfd *p, int *map)
{
	int np = 0, stop = gl_stop_interrupts() != 0;
	int64_t now = mono_ns(), wait_ns = 200000000;

	for (int i = 0; i < n; i++) {
		struct running *x = &xs[i];
		siginfo_t si = { 0 };
		if (x->pid < 0)
			continue;
		/* the launcher's exit (not reaped yet: its group stays its
		 * own), or the pipe's end, whichever comes first: a rank
		 * still holding the pipe does not keep the job going */
		if (x->eof ||
		    (waitid(P_PID, (id_t)x->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == x->pid)) {
			reap(ctx, x);
			continue;
		}
		if (stop && !x->j->timed_out) /* a stop request: end it now */
			x->deadline = now;
		if (now >= x->deadline && !x->j->timed_out) {
			x->j->timed_out = 1;
			kill(-x->pid, SIGTERM);
			kill(-x->pid, SIGCONT);
			x->deadline = now + KILL_GRACE_NS;
		} else if (now >= x->deadline) {
			kill(-x->pid, SIGKILL);
			x->deadline = INT64_MAX;
		}
		if (x->deadline - now < wait_ns)
			wait_ns = x->deadline - now > 0 ? x->deadline - now : 0;
		p[np] = (struct pollfd){ x->fd, POLLIN, 0 };
		map[np++] = i;
	}
	if (!np)
		return 0;
	if (poll(p, (nfds_t)np, (int)(wait_ns / 1000000 + 1)) <= 0)
		return 1;
	for (int k = 0; k < np; k++) {
		struct running *x = &xs[map[k]];
		char buf[4096];
		ssize_t got;
		if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		got = read(x->fd, buf, sizeof(buf));
		x->eof = got <= 0;
		if (got > 0)
			feed(&x->jo, buf, got);
	}
	return 1;
}

/* j judged from what it printed */
static void judge(const struct trn_job_opts *o, struct trn_job *j, struct job_out *jo)
{
	j->steps = jo->n;
	j->busbw = -1;
	if (jo->n) {
		j->busbw = trn_median(jo->busbw, jo->n);
	}
	if (j->why[0]) { /* it never started */
		j->bad = 1;
		return;
	}
	if (j->timed_out)
		snprintf(j->why, sizeof(j->why), "ran past its %.0f s timeout", (double)o->timeout_ns / 1e9);
	else if (j->exit_code != 0)
		snprintf(j->why, sizeof(j->why), "exit %d%s%s", j->exit_code,
			 jo->error[0] || jo->other[1][0] ? ": " : "", jo->error[0] ? jo->error : jo->other[1]);
	else if (!jo->n)
		snprintf(j->why, sizeof(j->why), "no step judged");
	else if (j->busbw < o->min_busbw)
		snprintf(j->why, sizeof(j->why), "busbw %.4g GB/s below %.4g", j->busbw, o->min_busbw);
	j->bad = j->why[0] != '\0';
}

int trn_jobs_run(struct gl_ctx *ctx, const struct gl_scenario *sc, const cJSON *cfg, const struct trn_job_opts *o,
		 struct trn_job *jobs, int n, struct gl_err *err)
{
	struct running *xs = calloc((size_t)(n > 0 ? n : 1), sizeof(*xs));
	struct pollfd *p = calloc((size_t)(n > 0 ? n : 1), sizeof(*p));
	int *map = calloc((size_t)(n > 0 ? n : 1), sizeof(*map)), rc = -1;

	if (!xs || !p || !map) {
		gl_errf(err, GL_ENOMEM, "%s: out of memory", o->tag);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct trn *w = calloc(1, sizeof(*w));
		struct trn_job *j = &jobs[i];
		j->busbw = -1;
		j->steps = j->exit_code = j->timed_out = j->bad = 0;
		j->wall_ns = 0;
		j->why[0] = j->command[0] = '\0';
		xs[i].j = j;
		xs[i].pid = -1;
		if (!w || build(sc, cfg, o, j, w, err) != 0) {
			if (w) {
				free_args(w->argv_launch, w->n_launch);
				free_args(w->argv_prog, w->n_prog);
				free_args(w->env, w->n_env);
			}
			free(w);
			for (int k = 0; k < i; k++) /* those started: stopped at once */
				if (xs[k].pid > 0) {
					kill(-xs[k].pid, SIGKILL);
					reap(ctx, &xs[k]);
				}
			if (!w)
				gl_errf(err, GL_ENOMEM, "%s: out of memory", o->tag);
			goto out;
		}
		if (!gl_stop_interrupts())
			start(ctx, o, w, &xs[i]);
		else
			not_started(j, "stopped");
		free_args(w->argv_launch, w->n_launch);
		free_args(w->argv_prog, w->n_prog);
		free_args(w->env, w->n_env);
		free(w);
	}
	while (step(ctx, xs, n, p, map))
		;
	if (gl_stop_interrupts()) {
		gl_errf(err, GL_ESTOPPED, "%s: stopped by %s", o->tag, gl_stop_name(gl_stop_interrupts()));
		goto out;
	}
	for (int i = 0; i < n; i++)
		judge(o, &jobs[i], &xs[i].jo);
	rc = 0;
out:
	free(xs);
	free(p);
	free(map);
	return rc;
}
