/*
 * report_pdf.c - report.pdf: report.html printed to PDF by headless
 * Chromium, for the sign-off. The HTML's print style (report_html.c) sets
 * A4, a page per section and charts never cut; this file only finds a
 * browser it may trust, runs it with a deadline, and puts the file in
 * place atomically.
 *
 * GAUNTLET_PDF=off (or 0, no) renders nothing; anything else, or unset,
 * renders when a browser is found. GAUNTLET_CHROMIUM names the browser (an
 * absolute path); without it the usual Debian and Google paths are tried,
 * never PATH. gauntlet runs as root on shared nodes, so a browser is used
 * only when it and every directory above it belong to root (or to the
 * user running gauntlet) and nobody else may write to them.
 *
 * The browser runs with an empty environment but for a private HOME,
 * TMPDIR and profile inside the run directory (0700, removed afterwards),
 * so no API key or webhook secret from gauntlet's environment reaches it,
 * no file of another user's profile is read, and the machine's /tmp is not
 * used. It gets 120 s; then its process group is killed. A stop request
 * (SIGINT, SIGTERM) to a run rendering its reports kills it at once, and
 * none starts after one (stop.h): `gauntlet report DIR` renders it later.
 * The report has no
 * script and no URL (report_html.c), and the browser is told to resolve no
 * name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "stop.h"

#define PDF_DEADLINE_S 120

static const char *const browsers[] = { "/usr/bin/chromium", "/usr/bin/chromium-browser",
					"/usr/bin/google-chrome-stable", "/usr/bin/google-chrome",
					"/opt/google/chrome/chrome", NULL };

/* Owned by root or by us, and writable by nobody else. */
static int owner_ok(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* path (absolute) resolved, an executable regular file, and it and every
 * directory above it trusted (owner_ok). 0, or -1 with why. */
static int trusted_exe(const char *path, char *why, size_t n)
{
	char real[PATH_MAX], dir[PATH_MAX];
	struct stat st;

	if (path[0] != '/')
		return snprintf(why, n, "%s: not an absolute path", path), -1;
	if (!realpath(path, real))
		return snprintf(why, n, "%s: %s", path, strerror(errno)), -1;
	if (stat(real, &st) != 0 || !S_ISREG(st.st_mode) || access(real, X_OK) != 0)
		return snprintf(why, n, "%s: not an executable file", path), -1;
	if (!owner_ok(&st))
		return snprintf(why, n, "%s: %s: not trusted", real,
				st.st_uid != 0 && st.st_uid != geteuid() ? "owned by another user"
									: "writable by group or others"), -1;
	snprintf(dir, sizeof(dir), "%s", real);
	for (char *s = strrchr(dir, '/'); s; s = strrchr(dir, '/')) {
		*s = '\0';
		if (stat(dir[0] ? dir : "/", &st) != 0 || !owner_ok(&st))
			return snprintf(why, n, "%s: directory %s is not root's or is writable by others: not trusted",
					real, dir[0] ? dir : "/"), -1;
		if (!dir[0])
			break;
	}
	return 0;
}

/* The browser to use, or NULL with why (a skip). */
static const char *find_browser(char *why, size_t n)
{
	const char *env = getenv("GAUNTLET_CHROMIUM");
	static char chosen[PATH_MAX];

	if (env && env[0]) {
		if (trusted_exe(env, why, n) != 0)
			return NULL;
		snprintf(chosen, sizeof(chosen), "%s", env);
		return chosen;
	}
	for (int i = 0; browsers[i]; i++) {
		char w[400];
		if (access(browsers[i], F_OK) != 0)
			continue;
		if (trusted_exe(browsers[i], w, sizeof(w)) == 0)
			return browsers[i];
		snprintf(why, n, "%s", w);   /* one that is there but not trusted: say so */
		return NULL;
	}
	snprintf(why, n, "no Chromium found (tried /usr/bin/chromium and the usual places; install Debian's "
		 "chromium or set GAUNTLET_CHROMIUM)");
	return NULL;
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	remove(p);
	return 0;
}

/* file://URL of an absolute path, every byte but [A-Za-z0-9/._-] escaped. */
static void file_url(const char *path, char *out, size_t n)
{
	size_t k = (size_t)snprintf(out, n, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p && k + 4 < n; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("/._-", *p))
			out[k++] = (char)*p;
		else
			k += (size_t)snprintf(out + k, n - k, "%%%02X", *p);
	}
	out[k] = '\0';
}

/* Run argv with env, output to log_path, for at most PDF_DEADLINE_S.
 * Returns its exit status, or -1 (why) when it could not run or ran out
 * of time. */
static int run_browser(char *const argv[], char *const envp[], const char *log_path, char *why, size_t n)
{
	int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	pid_t pid;
	int status = 0;
	struct timespec t0, now;

	if (log_fd < 0)
		return snprintf(why, n, "%s: %s", log_path, strerror(errno)), -1;
	pid = fork();
	if (pid < 0) {
		close(log_fd);
		return snprintf(why, n, "fork: %s", strerror(errno)), -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(log_fd, 1);
		dup2(log_fd, 2);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(log_fd);
	setpgid(pid, pid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		int sig;
		if (r == pid)
			break;
		if ((sig = gl_stop_interrupts()) != 0) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			return snprintf(why, n, "%s stopped: %s came (the run is stopping)", argv[0], gl_stop_name(sig)), -1;
		}
		if (r < 0 && errno != EINTR) {
			kill(-pid, SIGKILL);
			return snprintf(why, n, "waitpid: %s", strerror(errno)), -1;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= PDF_DEADLINE_S) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			return snprintf(why, n, "%s did not finish within %d s: stopped", argv[0], PDF_DEADLINE_S), -1;
		}
		usleep(50000);
	}
	kill(-pid, SIGKILL);   /* helpers it left in its group */
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The tail of the browser's log, for an error message. */
static void log_tail(const char *path, char *out, size_t n)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t len;

	out[0] = '\0';
	if (!f)
		return;
	if (fseek(f, -(long)(sizeof(buf) - 1), SEEK_END) != 0)
		rewind(f);
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	{
		const char *last = strrchr(buf, '\n');
		snprintf(out, n, "%s", last ? last + 1 : buf);
	}
}

int gl_report_pdf(const char *dir, int64_t date_wall_ns, char *msg, size_t n)
{
	const char *mode = getenv("GAUNTLET_PDF"), *browser;
	char why[600], absdir[PATH_MAX], prof[PATH_MAX + 32], html[PATH_MAX + 32], tmp[PATH_MAX + 32],
		out[PATH_MAX + 32], url[3 * PATH_MAX + 16], logp[PATH_MAX + 64], a_prof[PATH_MAX + 48],
		a_pdf[PATH_MAX + 48], e_home[PATH_MAX + 16], e_tmp[PATH_MAX + 16], e_xdg[PATH_MAX + 32],
		e_cache[PATH_MAX + 32];
	struct timespec t0, t1;
	struct stat st;
	int rc, fd;
	char head[5];

	if (mode && (!strcmp(mode, "off") || !strcmp(mode, "0") || !strcmp(mode, "no"))) {
		snprintf(msg, n, "report.pdf: not rendered (GAUNTLET_PDF=%s)", mode);
		return GL_PDF_SKIPPED;
	}
	if (gl_stop_interrupts()) {
		snprintf(msg, n, "report.pdf: not rendered: %s came (the run is stopping); gauntlet report renders it",
			 gl_stop_name(gl_stop_interrupts()));
		return GL_PDF_SKIPPED;
	}
	if (!(browser = find_browser(why, sizeof(why)))) {
		const char *env = getenv("GAUNTLET_CHROMIUM");
		/* the browser asked for by name and not usable is worth a warning */
		snprintf(msg, n, "report.pdf: %s: %s", env && env[0] ? "not written" : "skipped", why);
		return env && env[0] ? -1 : GL_PDF_SKIPPED;
	}
	if (!realpath(dir, absdir)) {
		snprintf(msg, n, "report.pdf: %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(html, sizeof(html), "%s/report.html", absdir);
	snprintf(tmp, sizeof(tmp), "%s/report.pdf.tmp", absdir);
	snprintf(out, sizeof(out), "%s/report.pdf", absdir);
	snprintf(prof, sizeof(prof), "%s/.pdf-XXXXXX", absdir);
	if (!mkdtemp(prof)) {
		snprintf(msg, n, "report.pdf: a private profile in %s: %s", absdir, strerror(errno));
		return -1;
	}
	unlink(tmp);
	file_url(html, url, sizeof(url));
	snprintf(a_prof, sizeof(a_prof), "--user-data-dir=%s", prof);
	snprintf(a_pdf, sizeof(a_pdf), "--print-to-pdf=%s", tmp);
	snprintf(e_home, sizeof(e_home), "HOME=%s", prof);
	snprintf(e_tmp, sizeof(e_tmp), "TMPDIR=%s", prof);
	snprintf(e_xdg, sizeof(e_xdg), "XDG_CONFIG_HOME=%s/.config", prof);
	snprintf(e_cache, sizeof(e_cache), "XDG_CACHE_HOME=%s/.cache", prof);
	snprintf(logp, sizeof(logp), "%s/browser.log", prof);
	{
		char *argv[] = { (char *)browser, "--headless", "--disable-gpu", "--no-first-run",
				 "--no-default-browser-check", "--disable-background-networking", "--disable-sync",
				 "--disable-extensions", "--disable-default-apps", "--disable-component-update",
				 "--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars",
				 "--host-resolver-rules=MAP * ~NOTFOUND", "--no-pdf-header-footer",
				 geteuid() == 0 ? "--no-sandbox" : "--disable-breakpad", a_prof, a_pdf, url, NULL };
		char *envp[] = { e_home, e_tmp, e_xdg, e_cache, "PATH=/usr/bin:/bin", "LANG=C.UTF-8", NULL };
		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = run_browser(argv, envp, logp, why, sizeof(why));
		clock_gettime(CLOCK_MONOTONIC, &t1);
	}
	if (rc != 0) {
		char tail[300];
		log_tail(logp, tail, sizeof(tail));
		if (rc > 0)
			snprintf(why, sizeof(why), "%s exited with %d%s%s", browser, rc, tail[0] ? ": " : "", tail);
	}
	nftw(prof, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	if (rc != 0) {
		unlink(tmp);
		snprintf(msg, n, "report.pdf: not written: %s", why);
		return -1;
	}
	/* what the browser left must be a PDF of ours, then it goes in place */
	fd = open(tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 5 || read(fd, head, 5) != 5 ||
	    memcmp(head, "%PDF-", 5) != 0 || fchmod(fd, 0600) != 0 || fsync(fd) != 0) {
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		snprintf(msg, n, "report.pdf: not written: %s left no PDF", browser);
		return -1;
	}
	close(fd);
	/* the browser's print time out, the run's date in: same report, same bytes */
	if (gl_pdf_fix_dates(tmp, date_wall_ns, why, sizeof(why)) != 0) {
		unlink(tmp);
		snprintf(msg, n, "report.pdf: not written: %s", why);
		return -1;
	}
	if (rename(tmp, out) != 0) {
		snprintf(msg, n, "report.pdf: not written: rename: %s", strerror(errno));
		unlink(tmp);
		return -1;
	}
	snprintf(msg, n, "report.pdf: %lld bytes, rendered by %s in %.1f s", (long long)st.st_size, browser,
		 (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return GL_PDF_WRITTEN;
}
