/*
 * training.c - the training workload: launches gauntlet-train (or an
 * nccl-tests binary) through mpirun or srun, reads what the job prints,
 * and keeps it alive under faults.
 *
 * The launcher runs in its own process group with stdout and stderr on one
 * pipe read by the event loop. gauntlet-train's "GLT1 ..." lines (rank 0's
 * steps and checkpoints, every rank's heartbeat; docs/training.md) become
 * window metrics and train_steps rows; NCCL_DEBUG=INFO lines tell the
 * transport and the node count; anything else goes to the event log
 * (capped per launch).
 *
 * Failure policy: when the job ends before its steps are done (a rank
 * killed, a node drained) it is relaunched with --restore after a backoff
 * that doubles with each launch that made no progress, up to max_restarts
 * such launches in a row. restore_s = relaunch to the first step after
 * loading; lost_steps = the highest step seen before the failure minus the
 * step restored. A watchdog ends a job that makes no step within its
 * deadline, records a hang and names the ranks whose heartbeats stopped.
 *
 * A launch that is not one MPI job across the hosts given (world size or
 * distinct host count not as asked), a backend that cannot run, or a
 * required NCCL transport that is absent ends the run as an infra failure:
 * the figures would not mean what the report says.
 *
 * This file: the job and the ops; the launch command is built in
 * training_launch.c (training_int.h).
 */
#include "training_int.h"
#include "training_bisect.h"
#include "training_sweep.h"
#include "training_schema.h"

static const char *const transport_names[] = { "NET/IB", "NET/Socket", "P2P", "SHM", "GDRDMA", "NVLS", "CollNet", NULL };

/* ---- small helpers -------------------------------------------------------- */

static int64_t now(struct trn *w)
{
	return gl_ctx_elapsed_ns(w->ctx);
}

/* Value of key in a "GLT1 kind k=v k=v" line into out; msg and reason take
 * the rest of the line. Returns 0 when found. */
static int kv(const char *line, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			const char *v = p + kl + 1, *e;
			size_t len;
			if (!strcmp(key, "msg") || !strcmp(key, "reason"))
				e = v + strlen(v);
			else
				for (e = v; *e && *e != ' '; e++)
					;
			len = (size_t)(e - v) < n - 1 ? (size_t)(e - v) : n - 1;
			memcpy(out, v, len);
			out[len] = '\0';
			return 0;
		}
		p += kl;
	}
	return -1;
}

static double kv_d(const char *line, const char *key, double def)
{
	char b[64];
	return kv(line, key, b, sizeof(b)) == 0 ? strtod(b, NULL) : def;
}

static int64_t kv_i(const char *line, const char *key, int64_t def)
{
	char b[64];
	return kv(line, key, b, sizeof(b)) == 0 ? strtoll(b, NULL, 10) : def;
}

/* ---- the job ------------------------------------------------------------------ */

static void job_clear(struct job *j)
{
	if (j->ev_read)
		event_free(j->ev_read);
	if (j->fd >= 0)
		close(j->fd);
	free(j->hb);
	gl_buf_free(&j->out);
	memset(j, 0, sizeof(*j));
	j->fd = -1;
	j->restored_step = -1;
}

static void remember_tail(struct job *j, const char *line)
{
	if (!line[strspn(line, "- \t")])
		return; /* separators of mpirun's boxes */
	if (j->n_tail == 4) {
		memmove(j->tail[0], j->tail[1], sizeof(j->tail[0]) * 3);
		j->n_tail = 3;
	}
	snprintf(j->tail[j->n_tail++], sizeof(j->tail[0]), "%s", line);
}

static void on_nccl_line(struct trn *w, const char *line)
{
	const char *p;

	for (int i = 0; transport_names[i]; i++) {
		char pat[40];
		snprintf(pat, sizeof(pat), "via %s", transport_names[i]);
		if ((strstr(line, pat) || (i == 4 && strstr(line, "GDRDMA") && strstr(line, " via "))) &&
		    !(w->transports & (1u << i))) {
			w->transports |= 1u << i;
			gl_ctx_event(w->ctx, GL_LOG_INFO, "training", "NCCL transport in use: %s", transport_names[i]);
		}
	}
	/* "comm 0x.. rank 0 nRanks 2 nNodes 2 ..." (older NCCL: "nranks 2") */
	if ((p = strstr(line, " nRanks ")) != NULL || (p = strstr(line, " nranks ")) != NULL) {
		int nr = atoi(p + 8), nn = 0;
		const char *q = strstr(line, " nNodes ");
		if (q)
			nn = atoi(q + 8);
		if (nr != w->nccl_nranks || nn != w->nccl_nnodes) {
			w->nccl_nranks = nr;
			w->nccl_nnodes = nn;
			gl_ctx_event(w->ctx, GL_LOG_INFO, "training", "NCCL communicator: nRanks %d nNodes %d", nr, nn);
		}
	}
}

static void check_transport(struct trn *w)
{
	int idx = -1;

	if (w->transport_checked || !w->o.require_transport[0] || w->backend == BK_MPI)
		return;
	w->transport_checked = 1;
	for (int i = 0; transport_names[i]; i++)
		if (!strcmp(transport_names[i], w->o.require_transport))
			idx = i;
	if (idx < 0 || !(w->transports & (1u << idx))) {
		char seen[200] = "";
		size_t off = 0;
		for (int i = 0; transport_names[i]; i++)
			if (w->transports & (1u << i))
				off += (size_t)snprintf(seen + off, sizeof(seen) - off, "%s%s", off ? ", " : "",
							transport_names[i]);
		gl_ctx_fail(w->ctx, "training: the scenario requires NCCL transport %s, NCCL reported %s",
			    w->o.require_transport, off ? seen : "none (is NCCL_DEBUG=INFO reaching the launcher?)");
	}
}

static void on_step_line(struct trn *w, struct job *j, const char *line)
{
	struct gl_train_step row;
	int64_t step = kv_i(line, "n", -1), errors = kv_i(line, "errors", 0);

	if (step < 0)
		return;
	row.step = step;
	row.launch = w->launches;
	row.step_time_s = kv_d(line, "step_s", 0);
	row.comm_time_s = kv_d(line, "comm_s", 0);
	row.data_time_s = kv_d(line, "data_s", 0);
	row.busbw_gbps = kv_d(line, "busbw", 0);
	row.correctness_errors = errors;
	gl_metrics_record(w->m, w->id_step, row.step_time_s);
	gl_metrics_record(w->m, w->id_comm, row.comm_time_s);
	gl_metrics_record(w->m, w->id_data, row.data_time_s);
	gl_metrics_record(w->m, w->id_busbw, row.busbw_gbps);
	gl_metrics_add(w->m, w->id_steps, 1);
	if (errors) {
		gl_metrics_add(w->m, w->id_err, errors);
		gl_ctx_event(w->ctx, GL_LOG_ERROR, "training",
			     "step %" PRId64 ": %" PRId64 " reduced value(s) did not match exactly", step, errors);
	}
	if (gl_ctx_store(w->ctx))
		gl_train_step_put(gl_ctx_store(w->ctx), gl_ctx_window(w->ctx), &row);
	j->last_progress_ns = now(w);
	if (!j->first_step_seen && j->restore) {
		/* the steps this launch redoes were not productive the first
		 * time: their time comes back out (ETTR) */
		int64_t from = j->restored_step < 0 ? 0 : j->restored_step, lost_us = 0, known = 0, known_us = 0;
		for (int64_t s = from + 1; s <= w->max_step_seen; s++) {
			int64_t k = s % STEP_RING;
			if (w->ring_step[k] == s) {
				lost_us += w->ring_us[k];
				known++;
				known_us += w->ring_us[k];
			}
		}
		/* steps older than the ring: at the mean of those it held */
		if (w->max_step_seen > from && known < w->max_step_seen - from && known > 0)
			lost_us += (w->max_step_seen - from - known) * (known_us / known);
		gl_metrics_add(w->m, w->id_productive, -lost_us);
	}
	{
		int64_t us = (int64_t)(row.step_time_s * 1e6 + 0.5);
		gl_metrics_add(w->m, w->id_productive, us);
		w->ring_step[step % STEP_RING] = step;
		w->ring_us[step % STEP_RING] = us;
	}
	if (!j->first_step_seen) {
		j->first_step_seen = 1;
		w->failures_in_row = 0;
		if (j->restore) {
			double restore_s = (double)(now(w) - j->spawn_ns) / 1e9;
			int64_t from = j->restored_step < 0 ? 0 : j->restored_step;
			int64_t lost = w->max_step_seen > from ? w->max_step_seen - from : 0;
			gl_metrics_add(w->m, w->id_restores, 1);
			gl_metrics_record(w->m, w->id_restore_s, restore_s);
			gl_metrics_add(w->m, w->id_lost, lost);
			gl_ctx_event(w->ctx, GL_LOG_INFO, "training",
				     "launch %d restored from step %" PRId64
				     ": restore_s %.3f (relaunch to first step), lost_steps %" PRId64,
				     w->launches, from, restore_s, lost);
			if (from > w->max_step_seen)
				gl_ctx_event(w->ctx, GL_LOG_WARN, "training",
					     "launch %d restored from step %" PRId64
					     ", beyond the last step the run recorded (%" PRId64 "): steps and that "
					     "checkpoint were made unseen (a job that outlived its controller, or lost "
					     "report lines)",
					     w->launches, from, w->max_step_seen);
		}
		check_transport(w);
	}
	if (step > w->max_step_seen)
		w->max_step_seen = step;
}

/* A rank's own line (docs/nodes.md): its compute and wait, or the values
 * its own contribution got wrong. */
static void on_node_line(struct trn *w, const char *kind, const char *line)
{
	if (!strcmp(kind, "rank")) {
		/* a rank's own work and its wait in the all-reduce (docs/nodes.md) */
		char r[16], host[96] = "";
		int64_t steps = kv_i(line, "steps", 0);
		snprintf(r, sizeof(r), "%d", (int)kv_i(line, "rank", -1));
		kv(line, "host", host, sizeof(host));
		if (steps > 0 && r[0] != '-') {
			gl_ctx_node(w->ctx, "training", "rank", r, host, "compute_ms", steps,
				    kv_d(line, "compute_s", 0) * 1e3, kv_d(line, "max_compute_s", 0) * 1e3);
			/* its largest wait is not known: the line's mean stands for it */
			gl_ctx_node(w->ctx, "training", "rank", r, host, "wait_ms", steps,
				    kv_d(line, "wait_s", 0) * 1e3, kv_d(line, "wait_s", 0) * 1e3 / (double)steps);
		}
	} else if (!strcmp(kind, "sdc")) {
		/* a failed exact check, attributed: the rank whose own
		 * contribution was wrong, or (rank -1) the reduction */
		char r[16], host[96] = "", what[16] = "";
		int64_t rank = kv_i(line, "rank", -1), bad = kv_i(line, "mismatches", 0);
		kv(line, "host", host, sizeof(host));
		kv(line, "what", what, sizeof(what));
		if (rank >= 0 && !strcmp(what, "compute")) { /* the compute canary */
			snprintf(r, sizeof(r), "%d", (int)rank);
			gl_ctx_node(w->ctx, "training", "rank", r, host, "canary", 1, 1, 1);
			gl_ctx_event(w->ctx, GL_LOG_ERROR, "training",
				     "step %" PRId64 ": rank %d on %s computed a wrong answer in the compute canary "
				     "(%.1f, the known answer %" PRId64 ")",
				     kv_i(line, "step", 0), (int)rank, host, kv_d(line, "got", 0),
				     kv_i(line, "want", 0));
		} else if (rank >= 0) {
			snprintf(r, sizeof(r), "%d", (int)rank);
			gl_ctx_node(w->ctx, "training", "rank", r, host, "corrupt", 1, (double)bad, (double)bad);
			gl_ctx_event(w->ctx, GL_LOG_ERROR, "training",
				     "step %" PRId64 ": rank %d on %s contributed %" PRId64
				     " wrong value(s) (its own part, checked against the known answer)",
				     kv_i(line, "step", 0), (int)rank, host, bad);
		} else {
			gl_ctx_event(w->ctx, GL_LOG_ERROR, "training",
				     "step %" PRId64 ": every rank's own part was right: the reduction itself "
				     "(the transport or a device's reduce) made the wrong values",
				     kv_i(line, "step", 0));
		}
	}
}

static void on_ours(struct trn *w, struct job *j, const char *line)
{
	char kind[24] = "", buf[700];
	const char *sp = strchr(line + 5, ' ');
	size_t kl = sp ? (size_t)(sp - (line + 5)) : strlen(line + 5);

	if (kl >= sizeof(kind))
		return;
	memcpy(kind, line + 5, kl);
	kind[kl] = '\0';
	if (!strcmp(kind, "step")) {
		on_step_line(w, j, line);
	} else if (!strcmp(kind, "rank") || !strcmp(kind, "sdc")) {
		on_node_line(w, kind, line);
	} else if (!strcmp(kind, "hb")) {
		int r = (int)kv_i(line, "rank", -1);
		if (j->hb && r >= 0 && r < j->world) {
			j->hb[r].last_ns = now(w);
			j->hb[r].step = kv_i(line, "step", 0);
			j->hb[r].pid = (int)kv_i(line, "pid", 0);
			kv(line, "host", j->hb[r].host, sizeof(j->hb[r].host));
		}
	} else if (!strcmp(kind, "start")) {
		int world = (int)kv_i(line, "world", 0), hosts = (int)kv_i(line, "hosts", 0);
		j->start_lines++;
		if (j->start_lines == 1) {
			j->world = world;
			j->hosts = hosts;
			if (world > 0 && world <= 1 << 20) {
				j->hb = calloc((size_t)world, sizeof(*j->hb));
				for (int i = 0; j->hb && i < world; i++)
					j->hb[i].last_ns = -1;
			}
			kv(line, "names", buf, sizeof(buf));
			gl_ctx_event(w->ctx, GL_LOG_INFO, "training", "launch %d: world %d on %d host(s) (%s)",
				     w->launches, world, hosts, buf);
		}
		/* A second "start" is a second rank 0: separate jobs. */
		if (!j->fatal && (j->start_lines > 1 || world != w->np ||
				  (w->n_hosts_distinct > 1 && hosts != w->n_hosts_distinct))) {
			j->fatal = 1;
			snprintf(j->fatal_msg, sizeof(j->fatal_msg),
				 "multi-node check failed: asked for one job of %d rank(s) on %d host(s), got %s "
				 "world %d on %d host(s)%s",
				 w->np, w->n_hosts_distinct,
				 j->start_lines > 1 ? "more than one rank 0, each with" : "", world, hosts,
				 j->start_lines > 1 || world == 1 ? " (separate single-rank jobs: a launcher "
								    "that does not start one MPI job)"
								  : "");
		}
	} else if (!strcmp(kind, "ready")) {
		j->restored_step = kv_i(line, "step", 0);
		j->last_progress_ns = now(w);
	} else if (!strcmp(kind, "ckpt")) {
		gl_metrics_add(w->m, w->id_saves, 1);
		gl_metrics_record(w->m, w->id_save_s, kv_d(line, "save_s", 0));
		gl_metrics_record(w->m, w->id_save_gbps, kv_d(line, "save_gbps", 0));
		j->last_progress_ns = now(w);
		gl_ctx_event(w->ctx, GL_LOG_INFO, "training",
			     "checkpoint at step %" PRId64 ": save_s %.3f "
			     "(max over ranks), save_gbps %.3f (min over ranks)",
			     kv_i(line, "step", 0), kv_d(line, "save_s", 0), kv_d(line, "save_gbps", 0));
		/* Committed now, with the steps before it, not at the next commit:
		 * a controller killed in between would leave a checkpoint on disk
		 * that the store never heard of, and the resumed job would restore
		 * from it. */
		if (gl_ctx_store(w->ctx))
			gl_store_flush(gl_ctx_store(w->ctx), NULL);
	} else if (!strcmp(kind, "error")) {
		char what[32] = "";
		kv(line, "what", what, sizeof(what));
		kv(line, "msg", buf, sizeof(buf));
		gl_ctx_event(w->ctx, GL_LOG_ERROR, "training", "gauntlet-train: %s: %s", what, buf);
		if (!strcmp(what, "world") || !strcmp(what, "hosts") || !strcmp(what, "backend")) {
			j->fatal = 1;
			snprintf(j->fatal_msg, sizeof(j->fatal_msg), "%s%s",
				 strcmp(what, "backend") ? "multi-node check failed: " : "", buf);
		}
	} else if (!strcmp(kind, "end")) {
		j->end_seen = 1;
	} else {
		/* restore, ckpt_skip, ckpt_corrupt, ckpt_rejected, ckpt_failed, ... */
		gl_ctx_event(w->ctx,
			     !strcmp(kind, "ckpt_corrupt") || !strcmp(kind, "ckpt_rejected") ||
					     !strcmp(kind, "ckpt_failed")
				     ? GL_LOG_WARN
				     : GL_LOG_INFO,
			     "training", "%s", line + 5);
	}
}

/* A report line is whole when it ends with the check value of the bytes
 * before it (train.h); the suffix is cut off here. */
static int line_whole(char *line)
{
	size_t n = strlen(line);
	uint32_t h = 2166136261u;
	unsigned want;
	char *end;

	if (n < 9 || strncmp(line + n - 8, " ck=", 4))
		return 0;
	want = (unsigned)strtoul(line + n - 4, &end, 16);
	if (*end)
		return 0;
	for (size_t i = 0; i < n - 8; i++) {
		h ^= (unsigned char)line[i];
		h *= 16777619u;
	}
	if (((h ^ (h >> 16)) & 0xffff) != want)
		return 0;
	line[n - 8] = '\0';
	return 1;
}

static void on_line(struct trn *w, struct job *j, char *line)
{
	char *glt = strstr(line, "GLT1 ");

	if (glt) {
		if (line_whole(glt) && glt == line)
			on_ours(w, j, line);
		else
			j->garbled++;
		return;
	}
	if (strstr(line, " NCCL INFO "))
		on_nccl_line(w, line);
	if (w->backend == BK_NCCL_TESTS && gl_buf_append(&j->out, line, strlen(line)) == 0)
		gl_buf_append(&j->out, "\n", 1);
	if (w->backend == BK_NCCL_TESTS || strstr(line, " NCCL INFO "))
		return;
	remember_tail(j, line);
	if (j->other_lines++ < OTHER_LINES_LOGGED)
		gl_ctx_event(w->ctx, GL_LOG_INFO, "training", "launcher: %s", line);
	else
		j->other_suppressed++;
}

/* One read from the job's pipe, split into lines. Returns what read()
 * returned; at end of file (or an error) the pipe is closed. */
static ssize_t read_once(struct trn *w)
{
	struct job *j = &w->job;
	char buf[16384];
	ssize_t r = read(j->fd, buf, sizeof(buf));

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return r;
	if (r <= 0) {
		event_del(j->ev_read);
		close(j->fd);
		j->fd = -1;
		return r;
	}
	for (ssize_t i = 0; i < r; i++) {
		if (buf[i] == '\n') {
			j->line[j->line_len] = '\0';
			if (!j->line_overflow)
				on_line(w, j, j->line);
			j->line_len = 0;
			j->line_overflow = 0;
		} else if (j->line_len < sizeof(j->line) - 1) {
			j->line[j->line_len++] = buf[i];
		} else {
			j->line_overflow = 1;
		}
	}
	return r;
}

static void on_read(evutil_socket_t fd, short what, void *arg)
{
	read_once(arg);
}

static int spawn(struct trn *w, int restore)
{
	struct job *j = &w->job;
	char *argv[2 * MAX_ARGS + 2];
	int p[2], n = 0;
	char text[2048], mark[128];
	struct gl_child_gate gate;
	pid_t pid;

	snprintf(mark, sizeof(mark), "%s", gl_ctx_child_mark(w->ctx));
	for (int i = 0; i < w->n_launch; i++)
		argv[n++] = w->argv_launch[i];
	for (int i = 0; i < w->n_prog; i++)
		argv[n++] = w->argv_prog[i];
	if (restore && w->backend != BK_NCCL_TESTS)
		argv[n++] = "--restore";
	argv[n] = NULL;

	job_clear(j);
	gl_buf_init(&j->out, 16u << 20);
	/* nccl-tests does not overwrite its -J file (it picks FILE.0, ...):
	 * each launch must start without one to be read alone. */
	if (w->json_out[0])
		unlink(w->json_out);
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	if (gl_child_gate_open(&gate) != 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	/* On the loop thread (plugin.h): the launcher dies with the controller
	 * (child.h), and waits at the gate until the store holds its pid. */
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		gl_child_gate_close(&gate);
		return -1;
	}
	if (pid == 0) {
		if (gl_child_enter(&gate, p[1]) != 0)
			_exit(127);
		for (int i = 0; i < w->n_env; i++)
			putenv(w->env[i]);
		putenv(mark);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		dprintf(1, "gauntlet: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(p[1]);
	trn_command_text(w, restore, text, sizeof(text));
	j->child_id = gl_ctx_child_started(w->ctx, "training", pid, text);
	gl_child_gate_release(&gate, j->child_id > 0);
	if (j->child_id <= 0) {
		close(p[0]);
		waitpid(pid, NULL, 0);
		errno = EIO;
		return -1;
	}
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	j->pid = pid;
	j->fd = p[0];
	j->restore = restore;
	j->launch = ++w->launches;
	j->spawn_ns = j->last_progress_ns = now(w);
	j->ev_read = event_new(gl_ctx_base(w->ctx), p[0], EV_READ | EV_PERSIST, on_read, w);
	event_add(j->ev_read, NULL);
	w->have_job = 1;
	gl_ctx_event(w->ctx, GL_LOG_INFO, "training", "launch %d%s: %s", j->launch, restore ? " (restore)" : "", text);
	return 0;
}

static void kill_job(struct trn *w, int sig)
{
	if (w->have_job && !w->job.exited && w->job.pid > 0)
		kill(-w->job.pid, sig);
}

/* Ranks whose heartbeats stopped: none for longer than 3 periods (2 s at
 * least), or never seen. */
static void name_stale_ranks(struct trn *w, char *out, size_t n)
{
	struct job *j = &w->job;
	int64_t t = now(w), stale = 3 * w->o.heartbeat_ns > 2000000000 ? 3 * w->o.heartbeat_ns : 2000000000;
	size_t off = 0;
	int count = 0;

	out[0] = '\0';
	for (int r = 0; j->hb && r < j->world; r++) {
		if (j->hb[r].last_ns >= 0 && t - j->hb[r].last_ns <= stale)
			continue;
		count++;
		if (off < n - 1) {
			if (j->hb[r].last_ns < 0)
				off += (size_t)snprintf(out + off, n - off, "%srank %d (no heartbeat seen)",
							off ? "; " : "", r);
			else
				off += (size_t)snprintf(out + off, n - off,
							"%srank %d on %s pid %d (last heartbeat "
							"%.1f s ago, at step %" PRId64 ")",
							off ? "; " : "", r, j->hb[r].host, j->hb[r].pid,
							(double)(t - j->hb[r].last_ns) / 1e9, j->hb[r].step);
		}
	}
	if (!j->hb)
		snprintf(out, n, "unknown (the job never reported its world)");
	else if (!count)
		snprintf(out, n, "none: every rank's heartbeat is current (a collective or the step itself hangs)");
}

static void schedule_relaunch(struct trn *w, const char *why);
static void nccltests_done(struct trn *w, struct job *j, int code);

static void on_job_exit(struct trn *w)
{
	struct job *j = &w->job;
	int code = WIFEXITED(j->status) ? WEXITSTATUS(j->status) : 128 + WTERMSIG(j->status);
	char how[64];

	if (WIFEXITED(j->status))
		snprintf(how, sizeof(how), "exit code %d", code);
	else
		snprintf(how, sizeof(how), "signal %d", WTERMSIG(j->status));
	if (j->garbled)
		gl_ctx_event(w->ctx, GL_LOG_WARN, "training",
			     "launch %d: %d report line(s) arrived cut or mixed "
			     "by the launcher's forwarding and were dropped",
			     j->launch, j->garbled);
	if (j->other_suppressed)
		gl_ctx_event(w->ctx, GL_LOG_INFO, "training", "launch %d: %d more launcher line(s) not logged",
			     j->launch, j->other_suppressed);
	if (w->backend == BK_NCCL_TESTS)
		nccltests_done(w, j, code);
	if (!w->running || w->done)
		return;
	if (j->fatal || (w->backend != BK_NCCL_TESTS && (code == 2 || code == 3 || code == 5) && !j->hung)) {
		w->done = 1;
		gl_ctx_fail(w->ctx, "training: %s",
			    j->fatal_msg[0] ? j->fatal_msg : "gauntlet-train refused to start (see the event log)");
		return;
	}
	if (w->backend == BK_NCCL_TESTS) {
		/* a good run starts the next at once; a failed one backs off
		 * and counts against max_restarts */
		schedule_relaunch(w, w->failures_in_row ? how : NULL);
		return;
	}
	if (code == 0 && j->end_seen && w->o.steps && w->max_step_seen >= w->o.steps) {
		gl_ctx_event(w->ctx, GL_LOG_INFO, "training", "job finished its %" PRId64 " steps", w->o.steps);
		w->done = 1;
		return;
	}
	/* counted here, when the end is seen (the relaunch comes after a
	 * backoff): the window it lands in is the one an incident is in */
	gl_metrics_add(w->m, w->id_failures, 1);
	gl_ctx_event(w->ctx, GL_LOG_WARN, "training", "launch %d ended (%s) at step %" PRId64 "%s%s%s", j->launch, how,
		     w->max_step_seen, j->hung ? " after a hang" : "", j->n_tail ? "; last launcher line: " : "",
		     j->n_tail ? j->tail[j->n_tail - 1] : "");
	if (!j->first_step_seen)
		w->failures_in_row++;
	schedule_relaunch(w, how);
}

static void on_relaunch(evutil_socket_t fd, short what, void *arg)
{
	struct trn *w = arg;

	if (!w->running || w->done)
		return;
	gl_metrics_add(w->m, w->id_relaunches, w->launches > 0);
	if (spawn(w, w->ckpt) != 0) {
		gl_ctx_event(w->ctx, GL_LOG_ERROR, "training", "cannot start the launcher: %s", strerror(errno));
		w->failures_in_row++;
		schedule_relaunch(w, "spawn failed");
	}
}

static void schedule_relaunch(struct trn *w, const char *why)
{
	int64_t delay = 0;

	if (why) {
		if (w->failures_in_row > w->o.max_restarts) {
			gl_ctx_event(w->ctx, GL_LOG_ERROR, "training",
				     "giving up: %d launches in a row made no "
				     "progress (max_restarts %d); training stays down for the rest of the run",
				     w->failures_in_row, w->o.max_restarts);
			w->done = 1;
			return;
		}
		delay = w->o.backoff_ns;
		for (int i = 1; i < w->failures_in_row && delay < 60LL * 1000000000; i++)
			delay *= 2;
		if (delay > 60LL * 1000000000)
			delay = 60LL * 1000000000;
		gl_ctx_event(w->ctx, GL_LOG_INFO, "training", "relaunching%s in %.1f s", w->ckpt ? " with restore" : "",
			     (double)delay / 1e9);
	}
	gl_ctx_arm_at(w->ctx, w->ev_relaunch, now(w) + delay);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct trn *w = arg;
	struct job *j = &w->job;
	int64_t t = now(w);

	if (!w->have_job || j->exited)
		return;
	if (waitpid(j->pid, &j->status, WNOHANG) == j->pid) {
		gl_ctx_child_ended(w->ctx, j->child_id);
		/* Drain what the pipe still holds before judging the exit. */
		while (j->fd >= 0 && read_once(w) > 0)
			;
		if (j->fd >= 0) { /* a straggler still holds the pipe */
			event_del(j->ev_read);
			close(j->fd);
			j->fd = -1;
		}
		j->exited = 1;
		on_job_exit(w);
		return;
	}
	if (j->kill_stage == 1 && t >= j->kill_at_ns) {
		kill_job(w, SIGKILL);
		j->kill_stage = 2;
	}
	if (w->running && !j->hung && w->o.watchdog_ns > 0 && t - j->last_progress_ns > w->o.watchdog_ns) {
		char ranks[1500];
		name_stale_ranks(w, ranks, sizeof(ranks));
		j->hung = 1;
		gl_metrics_add(w->m, w->id_hangs, 1);
		gl_ctx_event(w->ctx, GL_LOG_ERROR, "training",
			     "hang: no progress for %.1f s (watchdog %.1f s) "
			     "at step %" PRId64 "; ranks whose heartbeats stopped: %s",
			     (double)(t - j->last_progress_ns) / 1e9, (double)w->o.watchdog_ns / 1e9, w->max_step_seen,
			     ranks);
		kill_job(w, SIGTERM);
		j->kill_stage = 1;
		j->kill_at_ns = t + KILL_GRACE_NS;
	}
}

/* ---- nccl-tests as the workload ------------------------------------------------ */

static void nccltests_done(struct trn *w, struct job *j, int code)
{
	struct gl_nccl_result r;
	struct gl_err err = { 0 };
	char why[512];
	int rc;

	memset(&r, 0, sizeof(r));
	if (w->json_out[0]) {
		char *text = NULL;
		size_t len = 0;
		rc = gl_read_file(w->json_out, 16u << 20, &text, &len, &err);
		if (rc == 0)
			rc = gl_nccl_parse_json(text, len, &r, &err);
		free(text);
	} else {
		rc = gl_nccl_parse_text(j->out.data ? j->out.data : "", j->out.len, &r, &err);
	}
	if (rc != 0) {
		gl_ctx_event(w->ctx, GL_LOG_ERROR, "training",
			     "nccl-tests output (launch %d, exit %d) not "
			     "understood: %s",
			     j->launch, code, err.msg);
		w->failures_in_row++;
		gl_metrics_add(w->m, w->id_failures, 1);
		goto out;
	}
	if (gl_nccl_pitfall(&r, w->np, why, sizeof(why))) {
		w->done = 1;
		gl_ctx_fail(w->ctx, "training: nccl-tests: %s", why);
		goto out;
	}
	if (r.failures)
		gl_ctx_event(w->ctx, GL_LOG_ERROR, "training", "nccl-tests launch %d reported %d failure(s): %s",
			     j->launch, r.failures, r.failure);
	if (code != 0 || r.nrows == 0) {
		gl_ctx_event(w->ctx, GL_LOG_ERROR, "training", "nccl-tests launch %d: exit %d, %d size row(s)",
			     j->launch, code, r.nrows);
		w->failures_in_row++;
		gl_metrics_add(w->m, w->id_failures, 1);
		goto out;
	}
	w->failures_in_row = 0;
	gl_metrics_add(w->m, w->id_steps, 1);
	if (r.wrong_total > 0) {
		gl_metrics_add(w->m, w->id_err, r.wrong_total);
		gl_ctx_event(w->ctx, GL_LOG_ERROR, "training", "nccl-tests launch %d: #wrong = %ld", j->launch,
			     r.wrong_total);
	}
	for (int i = 0; i < w->n_plateau; i++) {
		double bw = gl_nccl_busbw_at(&r, w->plateau[i]);
		if (bw < 0) {
			gl_ctx_event(w->ctx, GL_LOG_ERROR, "training",
				     "nccl-tests: plateau size %" PRIu64 " B is not in the output's table",
				     w->plateau[i]);
			continue;
		}
		gl_metrics_record(w->m, w->id_busbw, bw);
		for (int k = 0; k < r.nrows; k++)
			if (r.rows[k].size == w->plateau[i] && r.rows[k].time_us[0] >= 0)
				gl_metrics_record(w->m, w->id_comm, r.rows[k].time_us[0] / 1e6);
	}
	j->last_progress_ns = now(w);
out:
	gl_nccl_result_free(&r);
}

/* ---- ops ------------------------------------------------------------------------ */

static void trn_free(void *state);

static int trn_init(struct gl_ctx *c, const cJSON *cfg, void **state, struct gl_err *err)
{
	struct trn *w = calloc(1, sizeof(*w));

	if (!w)
		return gl_errf(err, GL_ENOMEM, "training: out of memory");
	*state = w;
	w->ctx = c;
	w->m = gl_ctx_metrics(c);
	w->job.fd = -1;
	gl_training_opts_read(cfg, &w->o);
	/* the enum's order is the backend option's words' */
	w->backend = w->o.backend == 1 ? BK_NCCL : w->o.backend == 2 ? BK_NCCL_TESTS : BK_MPI;
	w->backend_name = gl_cfg_str(cfg, "backend", "mpi");
	w->is_srun = w->o.launcher == 1;
	if (w->backend == BK_NCCL_TESTS) {
		const cJSON *pl = cJSON_GetObjectItemCaseSensitive(cfg, "plateau"), *e;
		int n = cJSON_GetArraySize(pl);
		w->plateau = calloc((size_t)n + 1, sizeof(uint64_t));
		cJSON_ArrayForEach(e, pl) if (cJSON_IsString(e) &&
					      gl_parse_size_bytes(e->valuestring, &w->plateau[w->n_plateau], NULL) == 0)
			w->n_plateau++;
		if (!w->n_plateau)
			return gl_errf(err, GL_EINVAL,
				       "training: backend nccl-tests needs \"plateau\": the message "
				       "sizes whose busbw is judged (the Avg bus bandwidth line never is)");
	}
	w->id_step = gl_metrics_hist(w->m, "training.step_time_s");
	w->id_comm = gl_metrics_hist(w->m, "training.comm_time_s");
	w->id_data = gl_metrics_hist(w->m, "training.data_time_s");
	w->id_busbw = gl_metrics_hist(w->m, "training.busbw_gbps");
	w->id_steps = gl_metrics_counter(w->m, "training.steps");
	w->id_err = gl_metrics_counter(w->m, "training.correctness_errors");
	w->id_lost = gl_metrics_counter(w->m, "training.lost_steps");
	w->id_productive = -1;
	if (w->backend != BK_NCCL_TESTS)
		w->id_productive = gl_metrics_counter(w->m, "training.productive_us");
	w->id_saves = gl_metrics_counter(w->m, "training.checkpoint.saves");
	w->id_restores = gl_metrics_counter(w->m, "training.checkpoint.restores");
	w->id_save_s = gl_metrics_hist(w->m, "training.checkpoint.save_s");
	w->id_save_gbps = gl_metrics_hist(w->m, "training.checkpoint.save_gbps");
	w->id_restore_s = gl_metrics_hist(w->m, "training.checkpoint.restore_s");
	w->id_hangs = gl_metrics_counter(w->m, "training.hangs");
	w->id_relaunches = gl_metrics_counter(w->m, "training.relaunches");
	w->id_failures = gl_metrics_counter(w->m, "training.job_failures");
	w->ev_tick = event_new(gl_ctx_base(c), -1, EV_PERSIST, on_tick, w);
	w->ev_relaunch = evtimer_new(gl_ctx_base(c), on_relaunch, w);
	if (!w->ev_tick || !w->ev_relaunch)
		return gl_errf(err, GL_ENOMEM, "training: out of memory");
	return 0;
}

/* Highest step the store holds: a resumed controller continues counting
 * lost steps from it. */
static int64_t stored_max_step(struct trn *w)
{
	struct gl_store *st = gl_ctx_store(w->ctx);
	int64_t v = 0;

	if (st)
		gl_store_record_max(st, &gl_train_steps, "step", &v, NULL);
	return v;
}

static int trn_start(void *state, struct gl_err *err)
{
	struct trn *w = state;
	const struct gl_workload_spec *ws = gl_scenario_workload(gl_ctx_scenario(w->ctx), "training");
	struct timeval tick = { 0, TICK_US };
	int resumed = gl_ctx_resumes(w->ctx) > 0;

	if (trn_build_command(w, ws->cfg, err) != 0)
		return -GL_EINVAL;
	w->running = 1;
	if (resumed)
		w->max_step_seen = stored_max_step(w);
	event_add(w->ev_tick, &tick);
	if (spawn(w, resumed && w->ckpt) != 0)
		return gl_errf(err, GL_EIO, "training: cannot start %s: %s", w->argv_launch[0], strerror(errno));
	return 0;
}

static void trn_stop(void *state)
{
	struct trn *w = state;
	struct job *j = &w->job;
	int64_t deadline;

	w->running = 0;
	evtimer_del(w->ev_relaunch);
	event_del(w->ev_tick);
	if (!w->have_job || j->exited)
		return;
	/* The timeline is over: ask the job to stop, then insist. */
	kill_job(w, SIGTERM);
	deadline = gl_now_ns() + KILL_GRACE_NS;
	for (;;) {
		pid_t r = waitpid(j->pid, &j->status, WNOHANG);
		if (r == j->pid || (r < 0 && errno == ECHILD))
			break;
		if (gl_now_ns() > deadline) {
			kill_job(w, SIGKILL);
			waitpid(j->pid, &j->status, 0);
			break;
		}
		usleep(20000);
	}
	j->exited = 1;
	gl_ctx_child_ended(w->ctx, j->child_id);
	/* The process group may hold processes the launcher left behind (a
	 * wrapper script's children; OpenMPI puts each local rank in a group
	 * of its own, and they go with mpirun: PR_SET_PDEATHSIG in
	 * gauntlet-train). */
	kill(-j->pid, SIGKILL);
	gl_ctx_event(w->ctx, GL_LOG_INFO, "training", "job stopped at step %" PRId64 " after %d launch(es)",
		     w->max_step_seen, w->launches);
}

static void trn_free(void *state)
{
	struct trn *w = state;

	if (!w)
		return;
	job_clear(&w->job);
	for (int i = 0; i < w->n_launch; i++)
		free(w->argv_launch[i]);
	for (int i = 0; i < w->n_prog; i++)
		free(w->argv_prog[i]);
	for (int i = 0; i < w->n_env; i++)
		free(w->env[i]);
	if (w->ev_tick)
		event_free(w->ev_tick);
	if (w->ev_relaunch)
		event_free(w->ev_relaunch);
	free(w->plateau);
	free(w);
}

/* The launcher exists here; for hosts run locally, so does the binary. */
static int trn_preflight(struct gl_ctx *c, const cJSON *cfg)
{
	const char *launcher = gl_cfg_str(cfg, "launcher_path",
					  !strcmp(gl_cfg_str(cfg, "launcher", "mpirun"), "srun") ? "srun" : "mpirun");
	char cmd[1200], bin[1024];
	int bad = 0, ok;

	snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1", launcher);
	ok = strchr(launcher, '\'') == NULL && system(cmd) == 0;
	bad |= gl_ctx_preflight(c, "training", "launcher found", ok, launcher);
	if (strcmp(gl_cfg_str(cfg, "backend", "mpi"), "nccl-tests")) {
		trn_train_binary(cfg, bin, sizeof(bin));
		ok = strchr(bin, '/') ? access(bin, X_OK) == 0 : 1;
		bad |= gl_ctx_preflight(c, "training", "gauntlet-train executable", ok, bin);
	}
	return bad ? -1 : 0;
}

static const struct gl_record_type *const trn_records[] = { &gl_train_steps, NULL };

static const struct gl_workload_ops gl_workload_training = {
	.name = "training",
	.validate = gl_training_validate,
	.targets = gl_training_targets,
	.fault_targets = gl_training_fault_targets,
	.degraded_default = "training.step_time_s.p95",
	.incidents = gl_training_incidents,
	.live_figures = gl_training_live_figures,
	.imaged = 1,
	.sim = &gl_training_sim,
	.init = trn_init,
	.start = trn_start,
	.stop = trn_stop,
	.free = trn_free,
	.preflight = trn_preflight,
	.diagnose = gl_training_diagnose,
	.survey = gl_training_survey,
	.records = trn_records,
	.figures = &gl_training_figures,
};
GL_REGISTER_WORKLOAD(gl_workload_training, 20)
