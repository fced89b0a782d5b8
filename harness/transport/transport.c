/*
 * transport.c - the local and null transports.
 *
 * local: fork/exec (no shell) with a deadline; stdout and stderr are
 * captured together into a capped buffer; past the deadline the child's
 * process group gets SIGKILL and the result says timed_out. On a thread
 * that a stop request interrupts (stop.h), the group gets SIGKILL as soon
 * as one comes and the call fails with GL_ESTOPPED. With a netns on the
 * host, the command runs under `ip netns exec NS`.
 * null: records nothing, runs nothing, succeeds; for controller tests.
 * ssh is transport_ssh.c's; faults that act through an HTTP API call it
 * with harness/lib/http.h, not through a transport.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin.h"
#include "stop.h"

#define EXEC_OUT_MAX (256 * 1024)

static int local_exec(const struct gl_host *h, const char *const *argv, int64_t deadline_ms, struct gl_exec_result *res,
		      struct gl_err *err)
{
	const char *full[72];
	int pipefd[2], n = 0, status = 0, rc = 0, stopped = 0;
	/* a stop request wakes the wait at once on a thread it interrupts */
	int stop_fd = gl_stop_is_interruptible() ? gl_stop_fd() : -1;
	pid_t pid, parent = getpid();
	int64_t end = gl_now_ns() + deadline_ms * 1000000LL;

	res->exit_status = -1;
	res->timed_out = 0;
	gl_buf_init(&res->out, EXEC_OUT_MAX);
	if (h && h->netns[0]) {
		full[n++] = "ip";
		full[n++] = "netns";
		full[n++] = "exec";
		full[n++] = h->netns;
	}
	for (int i = 0; argv[i]; i++) {
		if (n >= 70)
			return gl_errf(err, GL_EINVAL, "local exec: too many arguments");
		full[n++] = argv[i];
	}
	full[n] = NULL;
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return gl_errf(err, GL_EIO, "local exec: pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return gl_errf(err, GL_EIO, "local exec: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		setpgid(0, 0);
		/* The command dies with a SIGKILLed controller: resume reverts
		 * from the journal, and a step still running then (a slow
		 * inject) would act after that revert and leave its effect.
		 * Processes the command starts itself (a dead-man's switch
		 * under setsid) are not affected. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		execvp(full[0], (char *const *)full);
		_exit(127);
	}
	setpgid(pid, pid);
	close(pipefd[1]);
	for (;;) {
		struct pollfd pfd[2] = { { pipefd[0], POLLIN, 0 }, { stop_fd, POLLIN, 0 } };
		int64_t left = (end - gl_now_ns()) / 1000000LL;
		char buf[4096];
		ssize_t r;

		if ((stopped = gl_stop_interrupts()) != 0) {
			kill(-pid, SIGKILL);
			break;
		}
		if (left <= 0) {
			kill(-pid, SIGKILL);
			res->timed_out = 1;
			break;
		}
		if (poll(pfd, stop_fd >= 0 ? 2 : 1, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
			break;
		if (!(pfd[0].revents & (POLLIN | POLLHUP)))
			continue;
		r = read(pipefd[0], buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		gl_buf_append(&res->out, buf, (size_t)r); /* output past the cap is dropped */
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (stopped)
		rc = gl_errf(err, GL_ESTOPPED, "local exec: '%s' stopped: %s came (the run is stopping)", full[0],
			     gl_stop_name(stopped));
	else if (res->timed_out)
		rc = gl_errf(err, GL_ETIMEDOUT, "local exec: '%s' did not finish within %lld ms", full[0],
			     (long long)deadline_ms);
	res->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return rc;
}

static int null_exec(const struct gl_host *h, const char *const *argv, int64_t deadline_ms, struct gl_exec_result *res,
		     struct gl_err *err)
{
	gl_buf_init(&res->out, EXEC_OUT_MAX);
	res->exit_status = 0;
	res->timed_out = 0;
	return 0;
}

const struct gl_transport_ops gl_transport_local = { .name = "local", .exec = local_exec };
const struct gl_transport_ops gl_transport_null = { .name = "null", .exec = null_exec };

int gl_host_exec(const struct gl_host *h, const char *const *argv, int64_t deadline_ms, struct gl_exec_result *res,
		 struct gl_err *err)
{
	const char *name = !h || h->local ? "local" : "ssh";
	const struct gl_transport_ops *t = gl_transport_find(name);

	gl_buf_init(&res->out, EXEC_OUT_MAX);
	res->exit_status = -1;
	res->timed_out = 0;
	if (!t)
		return gl_errf(err, GL_EINVAL, "host '%s': the %s transport is not built in this version",
			       h ? h->name : "?", name);
	if (gl_stop_interrupts())
		return gl_errf(err, GL_ESTOPPED, "host '%s': '%s' not run: %s came (the run is stopping)",
			       h ? h->name : "?", argv && argv[0] ? argv[0] : "?", gl_stop_name(gl_stop_interrupts()));
	return t->exec(h, argv, deadline_ms, res, err);
}
