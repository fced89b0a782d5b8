/*
 * storage_fio.c - fio as the storage workload's engine: the child started
 * with its JSON output and its stderr on pipes, each cumulative report
 * turned into the window's bytes and errors, stderr lines into event log
 * warnings, and the check of the user's fio arguments.
 */
#include "storage_int.h"

/* ---- fio as the engine ----------------------------------------------------------------- */

void st_on_fio_report(void *arg, const struct gl_fio_report *r)
{
	struct sto *w = arg;

	/* fio's reports are cumulative: the window gets the difference */
	if (r->read_bytes >= w->fio_last_read)
		gl_metrics_add(w->m, w->id_rbytes, (int64_t)(r->read_bytes - w->fio_last_read));
	if (r->write_bytes >= w->fio_last_write)
		gl_metrics_add(w->m, w->id_wbytes, (int64_t)(r->write_bytes - w->fio_last_write));
	if (r->total_err > w->fio_last_err) {
		gl_metrics_add(w->m, w->id_errors, (int64_t)(r->total_err - w->fio_last_err));
		gl_metrics_add(w->m, w->id_class[EC_OTHER], (int64_t)(r->total_err - w->fio_last_err));
	}
	w->fio_last_read = r->read_bytes;
	w->fio_last_write = r->write_bytes;
	w->fio_last_err = r->total_err;
	for (int i = 0; i < r->n_jobs; i++) {
		const struct gl_fio_job *j = &r->jobs[i];
		double rp = gl_fio_clat_ms(&j->read, 99.0), wp = gl_fio_clat_ms(&j->write, 99.0);
		if (rp >= 0 || wp >= 0)
			gl_ctx_event(w->ctx, GL_LOG_DEBUG, "storage",
				     "fio job %s: clat p99 read %.3f ms, write %.3f ms "
				     "(since fio started)",
				     j->name, rp, wp);
	}
}

void st_on_fio_out(evutil_socket_t fd, short what, void *arg)
{
	struct sto *w = arg;
	char buf[65536];
	ssize_t r = read(fd, buf, sizeof(buf));
	struct gl_err err = { 0 };

	if (r > 0) {
		if (gl_fio_stream_feed(w->fio_stream, buf, (size_t)r, st_on_fio_report, w, &err) != 0)
			gl_ctx_event(w->ctx, GL_LOG_ERROR, "storage", "fio output: %s", err.msg);
		return;
	}
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	event_del(w->ev_fio_out);
}

static void on_fio_err(evutil_socket_t fd, short what, void *arg)
{
	struct sto *w = arg;
	char buf[4096];
	ssize_t r = read(fd, buf, sizeof(buf) - 1);

	if (r > 0) {
		buf[r] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		/* fio's stderr never mixes with its JSON: it only goes to the log */
		gl_ctx_event(w->ctx, GL_LOG_WARN, "storage", "fio: %s", buf);
		return;
	}
	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	event_del(w->ev_fio_err);
}

int st_fio_start(struct sto *w, struct gl_err *err)
{
	int o[2], e[2];
	pid_t pid;
	char procs[PATH_MAX + 32], mark[128];
	struct gl_child_gate gate;

	if (pipe2(o, O_CLOEXEC) != 0 || pipe2(e, O_CLOEXEC) != 0)
		return gl_errf(err, GL_EIO, "storage: pipe: %s", strerror(errno));
	if (gl_child_gate_open(&gate) != 0) {
		close(o[0]);
		close(o[1]);
		close(e[0]);
		close(e[1]);
		return gl_errf(err, GL_EIO, "storage: pipe: %s", strerror(errno));
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", w->cg_dir);
	snprintf(mark, sizeof(mark), "%s", gl_ctx_child_mark(w->ctx));
	/* On the loop thread (plugin.h): fio dies with the controller and
	 * waits at the gate until the store holds its pid (child.h). */
	pid = fork();
	if (pid < 0) {
		gl_child_gate_close(&gate);
		return gl_errf(err, GL_EIO, "storage: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		if (gl_child_gate_wait(&gate) != 0)
			_exit(127);
		putenv(mark);
		if (w->cg_dir[0]) {
			int fd = open(procs, O_WRONLY);
			if (fd >= 0) {
				dprintf(fd, "%d\n", (int)getpid());
				close(fd);
			}
		}
		dup2(null, 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		if (chdir(w->dir) != 0)
			_exit(126);
		execvp(w->fio_argv[0], w->fio_argv);
		dprintf(2, "cannot run %s: %s\n", w->fio_argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(o[1]);
	close(e[1]);
	w->fio_child_id = gl_ctx_child_started(w->ctx, "storage", pid, "fio");
	gl_child_gate_release(&gate, w->fio_child_id > 0);
	if (w->fio_child_id <= 0) {
		close(o[0]);
		close(e[0]);
		waitpid(pid, NULL, 0);
		return gl_errf(err, GL_EIO, "storage: fio could not be recorded in the run store, so not started");
	}
	fcntl(o[0], F_SETFL, O_NONBLOCK);
	fcntl(e[0], F_SETFL, O_NONBLOCK);
	w->fio_pid = pid;
	w->fio_out = o[0];
	w->fio_err = e[0];
	w->ev_fio_out = event_new(gl_ctx_base(w->ctx), o[0], EV_READ | EV_PERSIST, st_on_fio_out, w);
	w->ev_fio_err = event_new(gl_ctx_base(w->ctx), e[0], EV_READ | EV_PERSIST, on_fio_err, w);
	event_add(w->ev_fio_out, NULL);
	event_add(w->ev_fio_err, NULL);
	gl_ctx_event(w->ctx, GL_LOG_INFO, "storage", "fio started (pid %d) in %s", (int)pid, w->dir);
	return 0;
}

/* Options only, and none that points fio outside our directory. */
int st_fio_args_ok(const cJSON *args, char *why, size_t n)
{
	static const char *const banned[] = {
		"--filename",     "--directory",     "--opendir",         "--filename_format",
		"--output",       "--output-format", "--status-interval", "--ioengine=sg",
		"--ioengine=rbd", "--ioengine=rdma", "--exec_prerun",     "--exec_postrun",
		"--trigger",      "--client",        "--server",          NULL
	};
	const cJSON *a;

	cJSON_ArrayForEach(a, args)
	{
		if (!cJSON_IsString(a) || strncmp(a->valuestring, "--", 2)) {
			snprintf(why, n,
				 "fio_args holds only --options (no job files, whose filename= could point "
				 "anywhere): '%s'",
				 cJSON_IsString(a) ? a->valuestring : "?");
			return -1;
		}
		for (int i = 0; banned[i]; i++)
			if (!strncmp(a->valuestring, banned[i], strlen(banned[i]))) {
				snprintf(why, n,
					 "fio_args: %s is not allowed: gauntlet sets where fio writes (its own "
					 "directory) and how it reports",
					 banned[i]);
				return -1;
			}
	}
	return 0;
}
