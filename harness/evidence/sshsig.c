/*
 * sshsig.c - SSH signatures through ssh-keygen (sshsig.h).
 *
 * The payload and signature go through files in a private temporary
 * directory (0700, removed after): ssh-keygen -Y sign writes FILE.sig
 * beside the file it signs, and -Y verify reads the payload on stdin.
 */
#define _GNU_SOURCE
#include "sshsig.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KEYGEN "ssh-keygen"
#define KEYGEN_DEADLINE_MS 30000
#define KEYGEN_OUT_MAX (64u * 1024)
#define SIG_MAX (64u * 1024)

struct keygen_run {
	struct gl_buf out, errs;
	int status; /* exit status, 128 + signal, or -1 */
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run ssh-keygen with argv (argv[0] is KEYGEN), stdin from in_path (NULL:
 * /dev/null), stdout and stderr captured apart. 0 when it ran (whatever
 * its exit status), or an error when it could not be started or ran past
 * the deadline (then it is killed). */
static int run_keygen(const char *const *argv, const char *in_path, struct keygen_run *r, struct gl_err *err)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, in = -1, status = 0, rc = 0, open_fds = 2;
	int64_t end = mono_ms() + KEYGEN_DEADLINE_MS;
	pid_t pid, parent = getpid();

	gl_buf_init(&r->out, KEYGEN_OUT_MAX);
	gl_buf_init(&r->errs, KEYGEN_OUT_MAX);
	r->status = -1;
	in = open(in_path ? in_path : "/dev/null", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return gl_errf(err, GL_EIO, "%s: %s", in_path ? in_path : "/dev/null", strerror(errno));
	if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
		rc = gl_errf(err, GL_EIO, KEYGEN ": pipe: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		rc = gl_errf(err, GL_EIO, KEYGEN ": fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		/* no controlling terminal: a passphrase prompt fails at once */
		setsid();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		if (dup2(in, STDIN_FILENO) < 0 || dup2(po[1], STDOUT_FILENO) < 0 || dup2(pe[1], STDERR_FILENO) < 0)
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	while (open_fds > 0) {
		struct pollfd pfd[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		int64_t left = end - mono_ms();
		char buf[4096];

		if (left <= 0) {
			kill(-pid, SIGKILL); /* its session: whatever it started too */
			kill(pid, SIGKILL);
			rc = gl_errf(err, GL_ETIMEDOUT, KEYGEN " -Y %s did not finish within %d ms", argv[2],
				     KEYGEN_DEADLINE_MS);
			break;
		}
		if (poll(pfd, 2, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			kill(-pid, SIGKILL); /* its session: whatever it started too */
			kill(pid, SIGKILL);
			rc = gl_errf(err, GL_EIO, KEYGEN ": poll: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < 2; i++) {
			int *fd = i ? &pe[0] : &po[0];
			ssize_t n;

			if (*fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(*fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(*fd);
				*fd = -1;
				open_fds--;
				continue;
			}
			gl_buf_append(i ? &r->errs : &r->out, buf, (size_t)n); /* past the cap: dropped */
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!rc)
		r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	close(in);
	return rc;
}

static void keygen_free(struct keygen_run *r)
{
	gl_buf_free(&r->out);
	gl_buf_free(&r->errs);
}

/* The first non-empty line of what ssh-keygen printed, for a message. */
static void first_line(const struct keygen_run *r, char *out, size_t n)
{
	const struct gl_buf *b = r->errs.len ? &r->errs : &r->out;
	const char *p = b->data ? b->data : "";
	size_t k;

	while (*p == '\n' || *p == '\r')
		p++;
	k = strcspn(p, "\r\n");
	if (!k)
		snprintf(out, n, "exit status %d, no message", r->status);
	else
		snprintf(out, n, "%.*s", (int)(k > 300 ? 300 : k), p);
}

/* A private directory for the payload and signature files. */
static int tmp_dir(char *dir, size_t n, struct gl_err *err)
{
	const char *base = getenv("TMPDIR");

	if (!base || base[0] != '/')
		base = "/tmp";
	snprintf(dir, n, "%s/gl-sshsig.XXXXXX", base);
	if (!mkdtemp(dir))
		return gl_errf(err, GL_EIO, "%s: mkdtemp: %s", dir, strerror(errno));
	return 0;
}

/* Write exactly len bytes to a new file dir/name (0600), path into out. */
static int put_file(const char *dir, const char *name, const void *data, size_t len, char *out, size_t n,
		    struct gl_err *err)
{
	const char *p = data;
	int fd;

	snprintf(out, n, "%s/%s", dir, name);
	fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return gl_errf(err, GL_EIO, "%s: %s", out, strerror(errno));
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return gl_errf(err, GL_EIO, "%s: write: %s", out, strerror(errno));
		}
		p += w;
		len -= (size_t)w;
	}
	return close(fd) == 0 ? 0 : gl_errf(err, GL_EIO, "%s: %s", out, strerror(errno));
}

static void rm_dir(const char *dir)
{
	static const char *const names[] = { "payload", "payload.sig", "sig" };
	char path[PATH_MAX];

	for (size_t i = 0; i < GL_ARRAY_LEN(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int gl_sshsig_sign(const char *key_path, const void *data, size_t len, char **sig, struct gl_err *err)
{
	struct keygen_run r = { 0 };
	char dir[PATH_MAX], payload[PATH_MAX + 16], sig_path[PATH_MAX + 32], why[400];
	size_t sig_len;
	int rc;

	*sig = NULL;
	/* ssh-keygen would follow a link another user planted to their key */
	if (gl_path_trusted(key_path, 0, err) != 0)
		return -GL_EINVAL;
	if ((rc = tmp_dir(dir, sizeof(dir), err)))
		return rc;
	if ((rc = put_file(dir, "payload", data, len, payload, sizeof(payload), err)))
		goto out;
	{
		const char *argv[] = { KEYGEN, "-Y", "sign", "-n", "git", "-f", key_path, payload, NULL };
		if ((rc = run_keygen(argv, NULL, &r, err)))
			goto out;
	}
	if (r.status != 0) {
		first_line(&r, why, sizeof(why));
		rc = gl_errf(err, r.status == 127 ? GL_ENOTFOUND : GL_EIO, "signing with %s: " KEYGEN " failed: %s",
			     key_path, why);
		goto out;
	}
	snprintf(sig_path, sizeof(sig_path), "%s.sig", payload);
	if ((rc = gl_read_file(sig_path, SIG_MAX, sig, &sig_len, err)))
		goto out;
	if (strncmp(*sig, "-----BEGIN SSH SIGNATURE-----\n", 30) || sig_len < 2 || (*sig)[sig_len - 1] != '\n') {
		rc = gl_errf(err, GL_EIO, "signing with %s: " KEYGEN " wrote no armored SSH signature", key_path);
		free(*sig);
		*sig = NULL;
	}
out:
	keygen_free(&r);
	rm_dir(dir);
	return rc;
}

int gl_sshsig_verify(const char *allowed_signers, const void *data, size_t len, const char *sig, size_t sig_len,
		     struct gl_sshsig_check *res, struct gl_err *err)
{
	struct keygen_run r = { 0 };
	char dir[PATH_MAX], payload[PATH_MAX + 16], sig_path[PATH_MAX + 16], *principals = NULL, *save = NULL;
	int rc;

	memset(res, 0, sizeof(*res));
	if (gl_path_trusted(allowed_signers, 0, err) != 0)
		return -GL_EINVAL;
	if ((rc = tmp_dir(dir, sizeof(dir), err)))
		return rc;
	if ((rc = put_file(dir, "payload", data, len, payload, sizeof(payload), err)) ||
	    (rc = put_file(dir, "sig", sig, sig_len, sig_path, sizeof(sig_path), err)))
		goto out;
	{
		const char *argv[] = { KEYGEN, "-Y", "find-principals", "-f", allowed_signers, "-s", sig_path, NULL };
		if ((rc = run_keygen(argv, NULL, &r, err)))
			goto out;
	}
	if (r.status == 127) {
		first_line(&r, res->why, sizeof(res->why));
		rc = gl_errf(err, GL_ENOTFOUND, KEYGEN ": %s", res->why);
		goto out;
	}
	if (r.status != 0 || !r.out.len) {
		char what[400];
		first_line(&r, what, sizeof(what));
		snprintf(res->why, sizeof(res->why), "the signer is not in %s (" KEYGEN ": %s)", allowed_signers, what);
		goto out;
	}
	if (!(principals = strndup(r.out.data, r.out.len))) {
		rc = gl_errf(err, GL_ENOMEM, "out of memory");
		goto out;
	}
	/* as git does: each principal the key is listed under, until one
	 * verifies */
	for (char *p = strtok_r(principals, "\r\n", &save); p; p = strtok_r(NULL, "\r\n", &save)) {
		const char *argv[] = { KEYGEN,          "-Y", "verify", "-n", "git",    "-f",
				       allowed_signers, "-I", p,        "-s", sig_path, NULL };
		const char *with, *key;

		keygen_free(&r);
		if ((rc = run_keygen(argv, payload, &r, err)))
			goto out;
		if (r.status != 0) {
			char what[400];
			first_line(&r, what, sizeof(what));
			snprintf(res->why, sizeof(res->why), "bad signature for %s (" KEYGEN ": %s)", p, what);
			continue;
		}
		/* Good "git" signature for P with ED25519 key SHA256:... */
		snprintf(res->principal, sizeof(res->principal), "%s", p);
		with = r.out.data ? strstr(r.out.data, " with ") : NULL;
		key = with ? strstr(with, " key ") : NULL;
		if (with && key)
			snprintf(res->key, sizeof(res->key), "%.*s %.*s", (int)(key - with - 6), with + 6,
				 (int)strcspn(key + 5, "\r\n"), key + 5);
		else
			snprintf(res->key, sizeof(res->key), "(fingerprint not printed)");
		res->why[0] = '\0';
		res->good = 1;
		break;
	}
out:
	free(principals);
	keygen_free(&r);
	rm_dir(dir);
	return rc;
}
