/*
 * test_ssh.c - the ssh transport against a private sshd on 127.0.0.1: a
 * command's output and exit status, quoting of arguments, a signal as
 * 128+N, the session cache (and reconnecting when the cached session died),
 * plain, [host]:port, hashed and @revoked known_hosts entries, unknown and
 * mismatching host keys refused before anything runs, wrong keys, PEM and
 * OpenSSH keys with passphrases from the environment, ssh-agent, "~/"
 * paths, deadlines in the handshake and while reading (the remote command
 * is killed too), and the output cap.
 *
 * Skips (77) when sshd or ssh-keygen is missing or sshd cannot start;
 * sshd and ssh-agent are killed by pid at exit and the temp dir removed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "transport_ssh.h"

#define SSHD "/usr/sbin/sshd"
#define PASS_ENV "GL_TEST_SSH_PASS"
#define PASS "s3cret pass'word"

static char dir[256];
static pid_t sshd_pid = -1, agent_pid = -1;
static int port;
static char user[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) == 0 ? 0 : 0;
}

static void stop_child(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGTERM);
		waitpid(*pid, NULL, 0);
		*pid = -1;
	}
}

static void cleanup(void)
{
	stop_child(&sshd_pid);
	stop_child(&agent_pid);
	if (dir[0] && !getenv("GL_KEEP_TMP"))
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Run a shell command line; returns its exit status (-1 if it died). */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int have_exe(const char *path)
{
	return access(path, X_OK) == 0;
}

/* Setup that went wrong with every prerequisite present: a failure, not a
 * skip (sshd and ssh-agent are stopped by the atexit handler). */
#define SETUP_FAIL(...)                 \
	do {                            \
		CHECKF(0, __VA_ARGS__); \
		exit(check_done());     \
	} while (0)

/* A part of the test whose prerequisite is missing: said on stdout, and a
 * failure under GL_STRICT=1 (CI). */
static void part_skip(const char *why)
{
	if (check_strict())
		CHECKF(0, "GL_STRICT=1: a skipped part is a failure: %s", why);
	else
		printf("SKIP (part): %s\n", why);
}

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), p = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		p = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return p;
}

/* A listening socket that never accepts: connect works, no banner comes. */
static int silent_listener(int *port_out)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 8) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port_out = ntohs(a.sin_port);
	return fd;
}

static int port_open(int p)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)p) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static void write_text(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void write_text(const char *name, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		exit(1);
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* "type base64" of a .pub file (comment dropped). */
static void read_pub(const char *name, char *out, size_t n)
{
	char path[512], type[64], b64[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%63s %8191s", type, b64) != 2) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	snprintf(out, n, "%s %s", type, b64);
}

static void dump_log(void)
{
	sh("tail -n 30 %s/sshd.log >&2", dir);
}

static pid_t spawn(const char *const *argv, const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		int null = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, STDERR_FILENO);
			dup2(fd, STDOUT_FILENO);
		}
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* SetEnv SHLVL=1: bash reads ~/.bashrc for a command sshd runs only at
 * shell level 1, and root's here starts a version manager (0.6 s an exec
 * idle, seconds under load): the tests must not time this machine's
 * dotfiles. */
static void write_sshd_config(const char *extra)
{
	write_text("sshd_config",
		   "Port %d\nListenAddress 127.0.0.1\nHostKey %s/host_ed25519\n"
		   "AuthorizedKeysFile %s/authorized_keys\nPasswordAuthentication no\n"
		   "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nStrictModes no\n"
		   "PidFile %s/sshd.pid\nUsePAM no\nPermitRootLogin yes\nLogLevel VERBOSE\nSetEnv SHLVL=1\n%s",
		   port, dir, dir, dir, extra);
}

static void start_sshd(void)
{
	static const char *const optional[] = { "PerSourcePenalties no", "PubkeyAcceptedAlgorithms +ssh-rsa" };
	char cfg[512], log[512], extra[256];
	const char *argv[] = { SSHD, "-D", "-e", "-f", cfg, NULL };

	snprintf(cfg, sizeof(cfg), "%s/sshd_config", dir);
	snprintf(log, sizeof(log), "%s/sshd.log", dir);
	for (int attempt = 0; attempt < 3; attempt++) {
		port = free_port();
		if (port <= 0)
			SETUP_FAIL("no free port on 127.0.0.1");
		/* options an older sshd may not know are kept only if it
		 * accepts them: newer sshd would lock 127.0.0.1 out after the
		 * failing cases, and refuses ssh-rsa signatures, the only RSA
		 * signature libssh2 < 1.11 makes */
		extra[0] = '\0';
		for (size_t i = 0; i < GL_ARRAY_LEN(optional); i++) {
			size_t had = strlen(extra);
			snprintf(extra + had, sizeof(extra) - had, "%s\n", optional[i]);
			write_sshd_config(extra);
			if (sh("%s -t -f %s 2>/dev/null", SSHD, cfg) != 0)
				extra[had] = '\0';
		}
		write_sshd_config(extra);
		if (sh("%s -t -f %s 2>>%s", SSHD, cfg, log) != 0) {
			dump_log();
			SETUP_FAIL("sshd rejects the test configuration (see the log above)");
		}
		sshd_pid = spawn(argv, log);
		if (sshd_pid < 0)
			SETUP_FAIL("fork: %s", strerror(errno));
		for (int i = 0; i < 200; i++) {
			if (waitpid(sshd_pid, NULL, WNOHANG) == sshd_pid) {
				sshd_pid = -1;
				break;
			}
			if (port_open(port))
				return;
			usleep(50000);
		}
		stop_child(&sshd_pid);
	}
	dump_log();
	/* as root every prerequisite is there: a failure; without root sshd
	 * may lack what it needs (its privilege separation directory) */
	if (getuid() == 0)
		SETUP_FAIL("sshd did not start listening on 127.0.0.1 (see the log above)");
	GL_SKIP("sshd did not start listening on 127.0.0.1 without root (see the log above)");
}

static void setup(void)
{
	struct passwd *pw = getpwuid(getuid());
	char pub[8192], other[8192], wrong_kh_line[9000];

	if (!have_exe(SSHD))
		GL_SKIP("%s not found (apt-get install -y openssh-server)", SSHD);
	if (sh("command -v ssh-keygen >/dev/null 2>&1") != 0)
		GL_SKIP("ssh-keygen not found (apt-get install -y openssh-client)");
	if (!pw)
		GL_SKIP("no passwd entry for uid %d", (int)getuid());
	snprintf(user, sizeof(user), "%s", pw->pw_name);
	snprintf(dir, sizeof(dir), "/tmp/gl_ssh_XXXXXX");
	if (!mkdtemp(dir))
		SETUP_FAIL("mkdtemp %s: %s", dir, strerror(errno));
	atexit(cleanup);
	if (getuid() == 0)
		mkdir("/run/sshd", 0755); /* privilege separation dir */

	if (sh("cd %s && ssh-keygen -q -t ed25519 -N '' -C host -f host_ed25519 && "
	       "ssh-keygen -q -t ed25519 -N '' -C other -f other_host && "
	       "ssh-keygen -q -t ed25519 -N '' -C client -f id_ed25519 && "
	       "ssh-keygen -q -t ed25519 -N '' -C wrong -f id_wrong && "
	       "ssh-keygen -q -t ed25519 -N \"$" PASS_ENV "\" -C enc -f id_ed25519_enc && "
	       "ssh-keygen -q -t rsa -b 2048 -m PEM -N \"$" PASS_ENV "\" -C pem -f id_rsa_pem && "
	       "ssh-keygen -q -t rsa -b 2048 -m PEM -N '' -C pem_plain -f id_rsa_plain && "
	       "ssh-keygen -q -t ecdsa -m PEM -N \"$" PASS_ENV "\" -C ec_pem -f id_ecdsa_pem && "
	       "ssh-keygen -q -t rsa -b 2048 -m PEM -N '' -C wrong_rsa -f id_wrong_rsa && "
	       "cat id_ed25519.pub id_ed25519_enc.pub id_rsa_pem.pub id_rsa_plain.pub id_ecdsa_pem.pub "
	       "> authorized_keys",
	       dir) != 0)
		SETUP_FAIL("ssh-keygen failed to make the test keys");
	if (sh("grep -q 'BEGIN RSA PRIVATE KEY' %s/id_rsa_pem && grep -q 'BEGIN EC PRIVATE KEY' %s/id_ecdsa_pem", dir,
	       dir) != 0)
		GL_SKIP("ssh-keygen -m PEM did not write PEM keys");
	start_sshd();

	read_pub("host_ed25519.pub", pub, sizeof(pub));
	read_pub("other_host.pub", other, sizeof(other));
	write_text("kh_plain", "# test\n[127.0.0.1]:%d %s\n", port, pub);
	write_text("kh_hashed", "[127.0.0.1]:%d %s\n", port, pub);
	if (sh("ssh-keygen -q -H -f %s/kh_hashed >/dev/null 2>&1", dir) != 0 ||
	    sh("grep -q '^|1|' %s/kh_hashed && ! grep -q 127.0.0.1 %s/kh_hashed", dir, dir) != 0)
		CHECKF(0, "ssh-keygen -H did not hash kh_hashed");
	/* entries for another port and another host name only */
	write_text("kh_unknown", "[127.0.0.1]:1 %s\nlocalhost %s\n", pub, pub);
	write_text("kh_mismatch", "[127.0.0.1]:%d %s\n", port, other);
	/* libssh2 cannot parse these lines; they must not hide the good one */
	snprintf(wrong_kh_line, sizeof(wrong_kh_line), "@cert-authority *.example %s", other);
	write_text("kh_mixed",
		   "%s\n[127.0.0.1]:%d sk-ssh-ed25519@openssh.com AAAAbogus\n"
		   "[127.0.0.1]:%d %s\n",
		   wrong_kh_line, port, port, pub);
	write_text("kh_revoked", "[127.0.0.1]:%d %s\n@revoked * %s\n", port, pub, pub);
}

static struct gl_host mk_host(const char *key, const char *kh, int p)
{
	struct gl_host h;

	memset(&h, 0, sizeof(h));
	snprintf(h.name, sizeof(h.name), "gpu-a");
	snprintf(h.ssh_user, sizeof(h.ssh_user), "%s", user);
	snprintf(h.ssh_host, sizeof(h.ssh_host), "127.0.0.1");
	h.ssh_port = p;
	if (key[0] && key[0] != '~')
		snprintf(h.key, sizeof(h.key), "%s/%s", dir, key);
	else
		snprintf(h.key, sizeof(h.key), "%s", key);
	if (kh[0] != '~')
		snprintf(h.known_hosts, sizeof(h.known_hosts), "%s/%s", dir, kh);
	else
		snprintf(h.known_hosts, sizeof(h.known_hosts), "%s", kh);
	return h;
}

static int run(const struct gl_host *h, const char *const *argv, int64_t deadline_ms, struct gl_exec_result *res,
	       struct gl_err *err)
{
	memset(err, 0, sizeof(*err));
	memset(res, 0, sizeof(*res));
	return gl_transport_ssh.exec(h, argv, deadline_ms, res, err);
}

static int out_is(const struct gl_exec_result *res, const char *want)
{
	return res->out.len == strlen(want) && res->out.data && !memcmp(res->out.data, want, res->out.len);
}

static double secs_since(int64_t t0)
{
	return (double)(gl_now_ns() - t0) / 1e9;
}

static void test_basic(void)
{
	struct gl_host h = mk_host("id_ed25519", "kh_plain", port);
	struct gl_exec_result res;
	struct gl_err err;
	const char *echo[] = { "sh", "-c", "echo hello; exit 3", NULL };
	const char *quoted[] = { "printf", "%s|", "a b", "it's", NULL };
	const char *nasty[] = { "printf", "%s|", "$HOME", "`id`", "a;b", "", "'", "x\"y", "*", NULL };
	const char *merged[] = { "sh", "-c", "echo out; echo err >&2", NULL };
	const char *killed[] = { "sh", "-c", "kill -TERM $$", NULL };
	const char *missing[] = { "/nonexistent/gauntlet-cmd", NULL };
	int rc, opened0 = gl_ssh_sessions_opened();
	int64_t t0 = gl_now_ns();
	double first, second;

	rc = run(&h, echo, 10000, &res, &err);
	first = secs_since(t0);
	CHECKF(rc == 0, "echo: rc %d: %s", rc, err.msg);
	CHECKF(res.exit_status == 3, "exit status %d", res.exit_status);
	CHECKF(out_is(&res, "hello\n"), "out '%.*s'", (int)res.out.len, res.out.data);
	CHECK(!res.timed_out);
	CHECK(gl_ssh_sessions_opened() == opened0 + 1);
	gl_buf_free(&res.out);

	t0 = gl_now_ns();
	rc = run(&h, quoted, 10000, &res, &err);
	second = secs_since(t0);
	CHECKF(rc == 0 && res.exit_status == 0, "printf: rc %d status %d: %s", rc, res.exit_status, err.msg);
	CHECKF(out_is(&res, "a b|it's|"), "out '%.*s'", (int)res.out.len, res.out.data);
	CHECKF(gl_ssh_sessions_opened() == opened0 + 1, "session not reused: %d opened",
	       gl_ssh_sessions_opened() - opened0);
	printf("first call %.3f s (connect+auth), second %.3f s (reused)\n", first, second);
	gl_buf_free(&res.out);

	rc = run(&h, nasty, 10000, &res, &err);
	CHECKF(rc == 0 && out_is(&res, "$HOME|`id`|a;b||'|x\"y|*|"), "nasty: rc %d out '%.*s' %s", rc, (int)res.out.len,
	       res.out.data, err.msg);
	gl_buf_free(&res.out);

	rc = run(&h, merged, 10000, &res, &err);
	CHECKF(rc == 0 && res.out.len == 8 && strstr(res.out.data, "out\n") && strstr(res.out.data, "err\n"),
	       "merged: rc %d out '%.*s'", rc, (int)res.out.len, res.out.data);
	gl_buf_free(&res.out);

	rc = run(&h, killed, 10000, &res, &err);
	CHECKF(rc == 0 && res.exit_status == 128 + SIGTERM, "signal: rc %d status %d %s", rc, res.exit_status, err.msg);
	gl_buf_free(&res.out);

	rc = run(&h, missing, 10000, &res, &err);
	CHECKF(rc == 0 && res.exit_status == 127, "missing command: rc %d status %d", rc, res.exit_status);
	gl_buf_free(&res.out);
	CHECK(gl_ssh_sessions_opened() == opened0 + 1);
}

static void expect_ok(const char *what, const struct gl_host *h, int new_sessions)
{
	const char *argv[] = { "echo", "ok", NULL };
	struct gl_exec_result res;
	struct gl_err err;
	int before = gl_ssh_sessions_opened();
	int rc = run(h, argv, 10000, &res, &err);

	CHECKF(rc == 0 && res.exit_status == 0 && out_is(&res, "ok\n"), "%s: rc %d status %d: %s", what, rc,
	       res.exit_status, err.msg);
	CHECKF(gl_ssh_sessions_opened() - before == new_sessions, "%s: %d sessions opened, want %d", what,
	       gl_ssh_sessions_opened() - before, new_sessions);
	gl_buf_free(&res.out);
}

/* The call fails with a message containing each of parts; nothing ran. */
static void expect_refused(const char *what, const struct gl_host *h, const char *const *parts)
{
	char marker[512];
	const char *argv[] = { "touch", marker, NULL };
	struct gl_exec_result res;
	struct gl_err err;
	int rc;

	snprintf(marker, sizeof(marker), "%s/ran_%s", dir, what);
	rc = run(h, argv, 10000, &res, &err);
	CHECKF(rc < 0 && err.code != 0, "%s: rc %d", what, rc);
	for (int i = 0; parts[i]; i++)
		CHECKF(strstr(err.msg, parts[i]) != NULL, "%s: '%s' not in: %s", what, parts[i], err.msg);
	CHECKF(!res.timed_out, "%s: timed_out set", what);
	CHECKF(access(marker, F_OK) != 0, "%s: the command ran", what);
	CHECKF(!strstr(err.msg, PASS), "%s: the passphrase leaked into the error", what);
	printf("%s: %s\n", what, err.msg);
	gl_buf_free(&res.out);
}

static void test_host_keys(void)
{
	char addr[64];
	struct gl_host h;

	snprintf(addr, sizeof(addr), "(127.0.0.1:%d)", port);
	h = mk_host("id_ed25519", "kh_hashed", port);
	expect_ok("hashed known_hosts", &h, 1);
	h = mk_host("id_ed25519", "kh_mixed", port);
	expect_ok("known_hosts with lines libssh2 cannot parse", &h, 1);

	h = mk_host("id_ed25519", "kh_unknown", port);
	expect_refused("unknown", &h,
		       (const char *const[]){ "host 'gpu-a'", addr, "host key not in known_hosts", "kh_unknown",
					      "refusing to connect", NULL });
	h = mk_host("id_ed25519", "kh_mismatch", port);
	expect_refused("mismatch", &h, (const char *const[]){ "host 'gpu-a'", addr, "HOST KEY MISMATCH", NULL });
	h = mk_host("id_ed25519", "kh_revoked", port);
	expect_refused("revoked", &h, (const char *const[]){ addr, "@revoked", "refusing", NULL });
	h = mk_host("id_ed25519", "kh_does_not_exist", port);
	expect_refused("no_known_hosts", &h, (const char *const[]){ addr, "hostkey", "known_hosts", NULL });
	h = mk_host("id_ed25519", "kh_plain", port);
	h.known_hosts[0] = '\0';
	expect_refused("empty_known_hosts", &h, (const char *const[]){ "refusing", NULL });
	/* a different host name than the entries: [localhost]:port is not listed */
	h = mk_host("id_ed25519", "kh_plain", port);
	snprintf(h.ssh_host, sizeof(h.ssh_host), "localhost");
	expect_refused("other_name", &h, (const char *const[]){ "not in known_hosts", NULL });
}

static void test_auth(void)
{
	char addr[64];
	struct gl_host h;
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "passphrase_env", PASS_ENV);
	snprintf(addr, sizeof(addr), "(127.0.0.1:%d)", port);

	h = mk_host("id_wrong", "kh_plain", port);
	expect_refused("wrong_key", &h, (const char *const[]){ "host 'gpu-a'", addr, "auth", "refused", NULL });
	h = mk_host("no_such_key", "kh_plain", port);
	expect_refused("missing_key", &h, (const char *const[]){ "auth", "cannot read key file", NULL });

	h = mk_host("id_rsa_plain", "kh_plain", port);
	expect_ok("PEM key", &h, 1);

	h = mk_host("id_rsa_pem", "kh_plain", port);
	h.json = j;
	expect_ok("PEM key with passphrase from env", &h, 1);
	h = mk_host("id_ecdsa_pem", "kh_plain", port);
	h.json = j;
	expect_ok("ECDSA PEM key with passphrase from env", &h, 1);
	h = mk_host("id_ed25519_enc", "kh_plain", port);
	h.json = j;
	expect_ok("OpenSSH key with passphrase from env", &h, 1);
	/* RSA refusals say why libssh2's RSA keys may fail on new servers */
	h = mk_host("id_wrong_rsa", "kh_plain", port);
	expect_refused("wrong_rsa_key", &h, (const char *const[]){ "auth", "refused", "ssh-rsa", NULL });

	/* the cached sessions would hide what follows */
	gl_ssh_shutdown();
	h = mk_host("id_rsa_pem", "kh_plain", port);
	expect_refused("pem_no_passphrase", &h, (const char *const[]){ "auth", "passphrase_env", NULL });
	h.json = j;
	setenv(PASS_ENV, "not the passphrase", 1);
	expect_refused("pem_wrong_passphrase", &h, (const char *const[]){ "auth", "$" PASS_ENV, NULL });
	unsetenv(PASS_ENV);
	expect_refused("pem_env_unset", &h, (const char *const[]){ "auth", PASS_ENV, "not set", NULL });
	setenv(PASS_ENV, PASS, 1);
	expect_ok("PEM key after a failure", &h, 1);
	cJSON_Delete(j);

	/* "~/" in key and known_hosts */
	{
		char *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
		setenv("HOME", dir, 1);
		h = mk_host("~/id_ed25519", "~/kh_plain", port);
		expect_ok("~/ paths", &h, 1);
		if (old)
			setenv("HOME", old, 1);
		else
			unsetenv("HOME");
		free(old);
	}
}

static void test_agent(void)
{
	char sock[512], log[512], old[512] = "";
	const char *argv[] = { "/usr/bin/ssh-agent", "-D", "-a", sock, NULL };
	struct gl_host h = mk_host("", "kh_plain", port);
	int had = getenv("SSH_AUTH_SOCK") != NULL;

	if (!have_exe("/usr/bin/ssh-agent") || sh("command -v ssh-add >/dev/null 2>&1") != 0) {
		part_skip("agent: /usr/bin/ssh-agent or ssh-add not installed (apt-get install -y "
			  "openssh-client)");
		return;
	}
	if (had)
		snprintf(old, sizeof(old), "%s", getenv("SSH_AUTH_SOCK"));
	snprintf(sock, sizeof(sock), "%s/agent.sock", dir);
	snprintf(log, sizeof(log), "%s/agent.log", dir);
	agent_pid = spawn(argv, log);
	for (int i = 0; i < 100 && access(sock, F_OK) != 0; i++)
		usleep(50000);
	CHECKF(sh("SSH_AUTH_SOCK=%s ssh-add %s/id_ed25519 >/dev/null 2>&1", sock, dir) == 0, "ssh-add failed");
	setenv("SSH_AUTH_SOCK", sock, 1);
	expect_ok("ssh-agent", &h, 1);
	unsetenv("SSH_AUTH_SOCK");
	gl_ssh_shutdown();
	expect_refused("no_agent", &h, (const char *const[]){ "auth", "SSH_AUTH_SOCK", NULL });
	if (had)
		setenv("SSH_AUTH_SOCK", old, 1);
	stop_child(&agent_pid);
}

static void test_deadlines(void)
{
	struct gl_host h = mk_host("id_ed25519", "kh_plain", port);
	char late[512], cmd[600];
	const char *slow[] = { "sh", "-c", cmd, NULL };
	const char *sleep5[] = { "sleep", "5", NULL };
	struct gl_exec_result res;
	struct gl_err err;
	int64_t t0;
	double took;
	int rc, lfd, lport = 0;

	t0 = gl_now_ns();
	rc = run(&h, sleep5, 1000, &res, &err);
	took = secs_since(t0);
	CHECKF(rc == -GL_ETIMEDOUT && res.timed_out == 1, "sleep 5: rc %d timed_out %d: %s", rc, res.timed_out,
	       err.msg);
	CHECKF(took >= 0.9 && took < 2.0, "sleep 5 with 1000 ms: took %.3f s", took);
	CHECKF(strstr(err.msg, "gpu-a") && strstr(err.msg, "read") && strstr(err.msg, "1000 ms"), "msg: %s", err.msg);
	printf("deadline: %.3f s: %s\n", took, err.msg);
	gl_buf_free(&res.out);

	/* the remote command dies with the call, not 3 s later */
	snprintf(late, sizeof(late), "%s/late", dir);
	snprintf(cmd, sizeof(cmd), "sleep 3; touch %s", late);
	rc = run(&h, slow, 1000, &res, &err);
	CHECKF(rc == -GL_ETIMEDOUT && res.timed_out, "slow: rc %d", rc);
	gl_buf_free(&res.out);
	expect_ok("after a timeout", &h, 1);
	usleep(3500 * 1000);
	CHECKF(access(late, F_OK) != 0, "the timed-out remote command kept running");

	/* a server that accepts and never speaks: the handshake times out */
	lfd = silent_listener(&lport);
	CHECKF(lfd >= 0, "no listening socket on 127.0.0.1 for the handshake deadline");
	if (lfd >= 0) {
		struct gl_host s = mk_host("id_ed25519", "kh_plain", lport);
		const char *argv[] = { "true", NULL };
		t0 = gl_now_ns();
		rc = run(&s, argv, 500, &res, &err);
		took = secs_since(t0);
		CHECKF(rc == -GL_ETIMEDOUT && res.timed_out && strstr(err.msg, "handshake"), "handshake: rc %d: %s", rc,
		       err.msg);
		CHECKF(took < 1.5, "handshake deadline took %.3f s", took);
		printf("handshake deadline: %s\n", err.msg);
		gl_buf_free(&res.out);
		close(lfd);
	}

	/* nothing listening */
	{
		int p = free_port();
		struct gl_host s = mk_host("id_ed25519", "kh_plain", p);
		expect_refused("connect", &s, (const char *const[]){ "gpu-a", "connect", "refused", NULL });
	}
}

static void test_cap(void)
{
	struct gl_host h = mk_host("id_ed25519", "kh_plain", port);
	const char *big[] = { "sh", "-c", "head -c 400000 /dev/zero | tr '\\0' x; echo done >&2", NULL };
	struct gl_exec_result res;
	struct gl_err err;
	int rc = run(&h, big, 20000, &res, &err);
	size_t xs = 0;

	CHECKF(rc == 0 && res.exit_status == 0, "big: rc %d status %d %s", rc, res.exit_status, err.msg);
	CHECKF(res.out.len == GL_SSH_OUT_MAX, "big: %zu bytes kept, cap %d", res.out.len, GL_SSH_OUT_MAX);
	for (size_t i = 0; i < res.out.len; i++)
		xs += res.out.data[i] == 'x';
	CHECK(xs == res.out.len);
	gl_buf_free(&res.out);
}

/* The processes under our sshd (the ones serving connections). */
static int sshd_descendants(pid_t *out, int max)
{
	static pid_t pids[4096], ppids[4096];
	int n = 0, n_out = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && (e = readdir(d)) && n < (int)GL_ARRAY_LEN(pids)) {
		char path[300], buf[512], *p;
		int ppid = 0;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && sscanf(p + 2, "%*c %d", &ppid) == 1) {
			pids[n] = atoi(e->d_name);
			ppids[n++] = ppid;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	for (int grew = 1; grew;) {
		grew = 0;
		for (int i = 0; i < n; i++) {
			int in = 0, parent_in = ppids[i] == sshd_pid;
			for (int j = 0; j < n_out; j++) {
				in |= out[j] == pids[i];
				parent_in |= out[j] == ppids[i];
			}
			if (!in && parent_in && n_out < max) {
				out[n_out++] = pids[i];
				grew = 1;
			}
		}
	}
	return n_out;
}

/* The server drops our cached session (its processes killed), then stalls
 * one (stopped: TCP still answers, ssh does not): each time the next call
 * opens a new session by itself, and in time. */
static void test_reconnect(void)
{
	struct gl_host h = mk_host("id_ed25519", "kh_plain", port);
	const char *argv[] = { "echo", "ok", NULL };
	struct gl_exec_result res;
	struct gl_err err;
	pid_t pids[64];
	int n, rc, before;
	int64_t t0;
	double took;

	expect_ok("before the server drops us", &h, 0);
	n = sshd_descendants(pids, 64);
	CHECKF(n > 0, "no sshd session process found");
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	usleep(300 * 1000);
	expect_ok("after the server dropped the session", &h, 1);

	n = sshd_descendants(pids, 64);
	CHECKF(n > 0, "no sshd session process found");
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGSTOP);
	before = gl_ssh_sessions_opened();
	t0 = gl_now_ns();
	rc = run(&h, argv, 4000, &res, &err);
	took = secs_since(t0);
	CHECKF(rc == 0 && out_is(&res, "ok\n"), "stalled session: rc %d: %s", rc, err.msg);
	CHECKF(gl_ssh_sessions_opened() == before + 1, "stalled session: %d opened", gl_ssh_sessions_opened() - before);
	CHECKF(took >= 1.8 && took < 3.9, "stalled session: took %.3f s", took);
	printf("stalled session replaced after %.3f s\n", took);
	gl_buf_free(&res.out);
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
}

int main(void)
{
	setenv(PASS_ENV, PASS, 1);
	signal(SIGPIPE, SIG_IGN);
	setup();
	test_basic();
	test_host_keys();
	test_auth();
	test_agent();
	test_cap();
	test_reconnect();
	test_deadlines();
	gl_ssh_shutdown();
	gl_ssh_shutdown();
	return check_done();
}
