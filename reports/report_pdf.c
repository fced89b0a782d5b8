/*
 * report_pdf.c - report.pdf: report.html printed to PDF by headless
 * Chromium, for the sign-off. The HTML's print style (report_html.c) sets
 * A4, a page per section and charts never cut; this file only finds a
 * browser it may trust, drives it with a deadline, and puts the file in
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
 * used. It gets 120 s in all; then its process group is killed. A stop
 * request (SIGINT, SIGTERM) to a run rendering its reports kills it at
 * once, and none starts after one (stop.h): `gauntlet report DIR` renders
 * it later.
 *
 * The page cannot read a local file, nor anything else. The browser is
 * given no file:// URL: gauntlet reads report.html itself and hands its
 * text over the DevTools protocol (--remote-debugging-pipe, a socket on
 * the browser's descriptors 3 and 4) to an about:blank page
 * (Page.setDocumentContent). A page whose origin is not a file may not
 * load file:// URLs, so an <iframe>, <object> or <img> naming
 * file:///etc/... or another file of the run directory loads nothing, even
 * in a report.html someone edited (report_html.c's Content-Security-Policy
 * forbids them too, but a browser must not depend on the page it prints).
 * The page is also taken offline (Network.emulateNetworkConditions: no
 * request to any address, loopback included), runs no script
 * (Emulation.setScriptExecutionDisabled), and the browser resolves no name.
 * Once the page's load event has fired, Page.printToPDF (A4 from the
 * page's CSS, backgrounds kept) streams the PDF back (IO.read).
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
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "stop.h"

#define PDF_DEADLINE_S 120
/* report.html as gauntlet writes it is capped at 64 MiB (report.c) */
#define PDF_HTML_MAX (64u << 20)
/* the largest DevTools message taken from the browser (an IO.read chunk is
 * 1 MiB, 1.4 MB in base64) */
#define CDP_MSG_MAX (16u << 20)
#define CDP_CHUNK (1 << 20)

static const char *const browsers[] = {
	"/usr/bin/chromium",      "/usr/bin/chromium-browser", "/usr/bin/google-chrome-stable",
	"/usr/bin/google-chrome", "/opt/google/chrome/chrome", NULL
};

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
									 : "writable by group or others"),
		       -1;
	snprintf(dir, sizeof(dir), "%s", real);
	for (char *s = strrchr(dir, '/'); s; s = strrchr(dir, '/')) {
		*s = '\0';
		if (stat(dir[0] ? dir : "/", &st) != 0 || !owner_ok(&st))
			return snprintf(why, n, "%s: directory %s is not root's or is writable by others: not trusted",
					real, dir[0] ? dir : "/"),
			       -1;
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
		snprintf(why, n, "%s", w); /* one that is there but not trusted: say so */
		return NULL;
	}
	snprintf(why, n,
		 "no Chromium found (tried /usr/bin/chromium and the usual places; install Debian's "
		 "chromium or set GAUNTLET_CHROMIUM)");
	return NULL;
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	remove(p);
	return 0;
}

/* ---- the browser, driven over the DevTools pipe ----------------------------- */

struct cdp {
	int fd; /* our end of the socket on the browser's fds 3 and 4 */
	pid_t pid; /* the browser, leader of its process group */
	struct timespec t0; /* PDF_DEADLINE_S counts from here */
	char *in; /* bytes read, not yet a whole message */
	size_t in_len, in_cap;
	int next_id;
	char session[128]; /* the page's session (Target.attachToTarget) */
	int loaded; /* Page.loadEventFired seen since it was last cleared */
	char why[600];
};

/* Milliseconds left before the deadline (0 when it has passed, or when a
 * stop request came: SIGINT or SIGTERM to a run rendering its reports ends
 * the browser at once, stop.h). */
static int cdp_left_ms(const struct cdp *c)
{
	struct timespec now;
	long long ms;

	if (gl_stop_interrupts())
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = PDF_DEADLINE_S * 1000LL - ((now.tv_sec - c->t0.tv_sec) * 1000LL + (now.tv_nsec - c->t0.tv_nsec) / 1000000);
	return ms > 0 ? (int)ms : 0;
}

/* poll the socket for events, within the deadline: 1 ready, 0 timed out
 * (why set), -1 error (why set). */
static int cdp_wait(struct cdp *c, short events)
{
	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = events };
		int left = cdp_left_ms(c), r;
		if (left <= 0 && gl_stop_interrupts()) {
			snprintf(c->why, sizeof(c->why), "the browser stopped: %s came (the run is stopping)",
				 gl_stop_name(gl_stop_interrupts()));
			return 0;
		}
		if (left <= 0) {
			snprintf(c->why, sizeof(c->why), "the browser did not finish within %d s: stopped",
				 PDF_DEADLINE_S);
			return 0;
		}
		/* a stop request wakes poll (EINTR) or is seen within 0.2 s */
		r = poll(&p, 1, left < 200 ? left : 200);
		if (r == 0)
			continue;
		if (r > 0)
			return 1;
		if (r < 0 && errno != EINTR) {
			snprintf(c->why, sizeof(c->why), "poll: %s", strerror(errno));
			return -1;
		}
	}
}

/* Send one message (text and its NUL). 0 or -1 (why). */
static int cdp_send(struct cdp *c, const char *text)
{
	size_t len = strlen(text) + 1, off = 0;

	while (off < len) {
		ssize_t w = send(c->fd, text + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (cdp_wait(c, POLLOUT) != 1)
				return -1;
			continue;
		}
		snprintf(c->why, sizeof(c->why), "the browser closed its DevTools pipe (%s)",
			 w < 0 ? strerror(errno) : "write returned 0");
		return -1;
	}
	return 0;
}

/* The next whole message from the browser, parsed; NULL (why) on error,
 * end of stream or the deadline. */
static cJSON *cdp_recv(struct cdp *c)
{
	for (;;) {
		char *nul = c->in_len ? memchr(c->in, '\0', c->in_len) : NULL;
		ssize_t r;
		if (nul) {
			size_t k = (size_t)(nul - c->in) + 1;
			cJSON *m = cJSON_ParseWithLength(c->in, k - 1);
			memmove(c->in, c->in + k, c->in_len - k);
			c->in_len -= k;
			if (!m)
				snprintf(c->why, sizeof(c->why),
					 "the browser sent a DevTools message that is not JSON");
			return m;
		}
		if (c->in_len + CDP_CHUNK > c->in_cap) {
			size_t ncap = c->in_cap ? c->in_cap * 2 : 2 * CDP_CHUNK;
			char *nb;
			if (c->in_len > CDP_MSG_MAX) {
				snprintf(c->why, sizeof(c->why), "a DevTools message over %u bytes: refused",
					 CDP_MSG_MAX);
				return NULL;
			}
			if (!(nb = realloc(c->in, ncap))) {
				snprintf(c->why, sizeof(c->why), "out of memory");
				return NULL;
			}
			c->in = nb;
			c->in_cap = ncap;
		}
		r = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
		if (r > 0) {
			c->in_len += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (cdp_wait(c, POLLIN) != 1)
				return NULL;
			continue;
		}
		snprintf(c->why, sizeof(c->why), "the browser closed its DevTools pipe%s%s", r < 0 ? ": " : "",
			 r < 0 ? strerror(errno) : "");
		return NULL;
	}
}

/* Call method (on the page's session when page is set) with params (taken
 * over; NULL for none). Events read meanwhile are dropped but for
 * Page.loadEventFired, which sets c->loaded. Returns the result (the
 * caller frees it), or NULL (why: the error the browser gave, or why no
 * answer came). */
static cJSON *cdp_call(struct cdp *c, int page, const char *method, cJSON *params)
{
	cJSON *msg = cJSON_CreateObject(), *res = NULL;
	char *text = NULL;
	int id = ++c->next_id;

	if (!msg || !cJSON_AddNumberToObject(msg, "id", id) || !cJSON_AddStringToObject(msg, "method", method) ||
	    (page && !cJSON_AddStringToObject(msg, "sessionId", c->session))) {
		cJSON_Delete(params);
		goto oom;
	}
	if (params && !cJSON_AddItemToObject(msg, "params", params)) {
		cJSON_Delete(params);
		goto oom;
	}
	if (!(text = cJSON_PrintUnformatted(msg)))
		goto oom;
	cJSON_Delete(msg);
	msg = NULL;
	if (cdp_send(c, text) != 0) {
		cJSON_free(text);
		return NULL;
	}
	cJSON_free(text);
	for (;;) {
		cJSON *m = cdp_recv(c), *mid, *err;
		const char *ev;
		if (!m)
			return NULL;
		mid = cJSON_GetObjectItemCaseSensitive(m, "id");
		if (!cJSON_IsNumber(mid)) {
			ev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "method"));
			if (ev && !strcmp(ev, "Page.loadEventFired"))
				c->loaded = 1;
			cJSON_Delete(m);
			continue;
		}
		if ((int)mid->valuedouble != id) {
			cJSON_Delete(m);
			continue;
		}
		if ((err = cJSON_GetObjectItemCaseSensitive(m, "error"))) {
			const char *em = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(err, "message"));
			snprintf(c->why, sizeof(c->why), "DevTools %s: %s", method, em ? em : "an error");
			cJSON_Delete(m);
			return NULL;
		}
		res = cJSON_DetachItemFromObjectCaseSensitive(m, "result");
		cJSON_Delete(m);
		if (!res)
			snprintf(c->why, sizeof(c->why), "DevTools %s: an answer without a result", method);
		return res;
	}
oom:
	cJSON_Delete(msg);
	snprintf(c->why, sizeof(c->why), "DevTools %s: out of memory", method);
	return NULL;
}

/* A result's string member, or NULL. */
static const char *res_str(const cJSON *r, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, key));
}

/* Decode base64 text in place; its length, or -1 when it is not base64. */
static long unbase64(char *s)
{
	static signed char val[256];
	static int ready;
	unsigned acc = 0;
	int bits = 0;
	long k = 0;

	if (!ready) {
		const char *tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		memset(val, -1, sizeof(val));
		for (int i = 0; tab[i]; i++)
			val[(unsigned char)tab[i]] = (signed char)i;
		ready = 1;
	}
	for (const char *p = s; *p && *p != '='; p++) {
		if (val[(unsigned char)*p] < 0)
			return -1;
		acc = acc << 6 | (unsigned)val[(unsigned char)*p];
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			s[k++] = (char)(acc >> bits & 0xff);
		}
	}
	return k;
}

/* Call method and drop its result: 0, or -1 with c->why. */
static int cdp_do(struct cdp *c, int page, const char *method, cJSON *params)
{
	cJSON *r = cdp_call(c, page, method, params);

	if (!r)
		return -1;
	cJSON_Delete(r);
	return 0;
}

/* The page: about:blank, attached in flat mode (c->session), taken
 * offline and without script before the document exists; its main
 * frame's id into frame. 0, or -1 with c->why. */
static int cdp_open_page(struct cdp *c, char *frame, size_t frame_n)
{
	char target[128];
	cJSON *r, *p;

	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "url", "about:blank");
	if (!(r = cdp_call(c, 0, "Target.createTarget", p)))
		return -1;
	snprintf(target, sizeof(target), "%s", res_str(r, "targetId") ? res_str(r, "targetId") : "");
	cJSON_Delete(r);
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "targetId", target);
	cJSON_AddBoolToObject(p, "flatten", 1);
	if (!(r = cdp_call(c, 0, "Target.attachToTarget", p)))
		return -1;
	snprintf(c->session, sizeof(c->session), "%s", res_str(r, "sessionId") ? res_str(r, "sessionId") : "");
	cJSON_Delete(r);
	if (cdp_do(c, 1, "Network.enable", NULL) != 0)
		return -1;
	p = cJSON_CreateObject();
	cJSON_AddBoolToObject(p, "offline", 1);
	cJSON_AddNumberToObject(p, "latency", 0);
	cJSON_AddNumberToObject(p, "downloadThroughput", -1);
	cJSON_AddNumberToObject(p, "uploadThroughput", -1);
	if (cdp_do(c, 1, "Network.emulateNetworkConditions", p) != 0)
		return -1;
	p = cJSON_CreateObject();
	cJSON_AddBoolToObject(p, "value", 1);
	if (cdp_do(c, 1, "Emulation.setScriptExecutionDisabled", p) != 0 || cdp_do(c, 1, "Page.enable", NULL) != 0)
		return -1;
	if (!(r = cdp_call(c, 1, "Page.getFrameTree", NULL)))
		return -1;
	{
		const cJSON *f =
			cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "frameTree"), "frame");
		snprintf(frame, frame_n, "%s", res_str(f, "id") ? res_str(f, "id") : "");
	}
	cJSON_Delete(r);
	return 0;
}

/* The document into frame, then its load event (whatever it holds has
 * had its chance to load, or been refused). 0, or -1 with c->why. */
static int cdp_load(struct cdp *c, const char *frame, const char *html)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "frameId", frame);
	if (!cJSON_AddStringToObject(p, "html", html)) {
		cJSON_Delete(p);
		snprintf(c->why, sizeof(c->why), "out of memory");
		return -1;
	}
	c->loaded = 0;
	if (cdp_do(c, 1, "Page.setDocumentContent", p) != 0)
		return -1;
	while (!c->loaded) {
		cJSON *m = cdp_recv(c);
		const char *ev;
		if (!m)
			return -1;
		ev = res_str(m, "method");
		c->loaded = ev && !strcmp(ev, "Page.loadEventFired");
		cJSON_Delete(m);
	}
	return 0;
}

/* The PDF stream (IO.read chunks, base64 or not) written to out_fd up to
 * its end. 0, or -1 with c->why. */
static int cdp_read_stream(struct cdp *c, const char *stream, int out_fd)
{
	for (;;) {
		cJSON *r, *p = cJSON_CreateObject();
		char *d;
		long len;
		int done;

		cJSON_AddStringToObject(p, "handle", stream);
		cJSON_AddNumberToObject(p, "size", CDP_CHUNK);
		if (!(r = cdp_call(c, 1, "IO.read", p)))
			return -1;
		d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "data"));
		len = !d                                                                   ? -1
		      : cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "base64Encoded")) ? unbase64(d)
											   : (long)strlen(d);
		if (len < 0) {
			snprintf(c->why, sizeof(c->why), "DevTools IO.read: no data");
			cJSON_Delete(r);
			return -1;
		}
		for (long off = 0; off < len;) {
			ssize_t w = write(out_fd, d + off, (size_t)(len - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				snprintf(c->why, sizeof(c->why), "writing the PDF: %s",
					 w < 0 ? strerror(errno) : "short write");
				cJSON_Delete(r);
				return -1;
			}
			off += w;
		}
		done = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "eof"));
		cJSON_Delete(r);
		if (done)
			return 0;
	}
}

/* Print html (NUL-terminated) to out_fd as PDF through the browser at the
 * other end of c. 0, or -1 with c->why. */
static int cdp_print(struct cdp *c, const char *html, int out_fd)
{
	cJSON *r, *p;
	char frame[128], stream[128];

	if (cdp_open_page(c, frame, sizeof(frame)) != 0 || cdp_load(c, frame, html) != 0)
		return -1;
	/* A4 and margins come from the page's @page rule */
	p = cJSON_CreateObject();
	cJSON_AddBoolToObject(p, "printBackground", 1);
	cJSON_AddBoolToObject(p, "preferCSSPageSize", 1);
	cJSON_AddBoolToObject(p, "displayHeaderFooter", 0);
	cJSON_AddStringToObject(p, "transferMode", "ReturnAsStream");
	if (!(r = cdp_call(c, 1, "Page.printToPDF", p)))
		return -1;
	snprintf(stream, sizeof(stream), "%s", res_str(r, "stream") ? res_str(r, "stream") : "");
	cJSON_Delete(r);
	if (!stream[0]) {
		snprintf(c->why, sizeof(c->why), "DevTools Page.printToPDF: no stream");
		return -1;
	}
	if (cdp_read_stream(c, stream, out_fd) != 0)
		return -1;
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "handle", stream);
	if ((r = cdp_call(c, 1, "IO.close", p)))
		cJSON_Delete(r);
	return 0;
}

/* Start argv with env, its output to log_path, the DevTools socket on its
 * fds 3 and 4. 0, or -1 (why). */
static int cdp_start(struct cdp *c, char *const argv[], char *const envp[], const char *log_path)
{
	int sv[2], log_fd;

	log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (log_fd < 0)
		return snprintf(c->why, sizeof(c->why), "%s: %s", log_path, strerror(errno)), -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		close(log_fd);
		return snprintf(c->why, sizeof(c->why), "socketpair: %s", strerror(errno)), -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		close(log_fd);
		close(sv[0]);
		close(sv[1]);
		return snprintf(c->why, sizeof(c->why), "fork: %s", strerror(errno)), -1;
	}
	if (c->pid == 0) {
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		/* above 4 first, so that no dup2 below lands on a descriptor
		 * still needed (dup2 onto itself would keep FD_CLOEXEC) */
		int s = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (s < 0 || nul < 0)
			_exit(127);
		nul = fcntl(nul, F_DUPFD_CLOEXEC, 10);
		log_fd = fcntl(log_fd, F_DUPFD_CLOEXEC, 10);
		if (nul < 0 || log_fd < 0 || dup2(nul, 0) < 0 || dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0 ||
		    dup2(s, 3) < 0 || dup2(s, 4) < 0)
			_exit(127);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(log_fd);
	close(sv[1]);
	setpgid(c->pid, c->pid);
	c->fd = sv[0];
	return 0;
}

/* Close the browser: Browser.close, then wait for it within the deadline
 * (killed past it), and kill what it left in its group. Its exit status,
 * or -1 when it had to be killed. */
static int cdp_stop(struct cdp *c, int ask)
{
	int status = 0;

	if (ask) {
		cJSON *r = cdp_call(c, 0, "Browser.close", NULL);
		cJSON_Delete(r);
	}
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	for (;;) {
		pid_t w = waitpid(c->pid, &status, WNOHANG);
		if (w == c->pid)
			break;
		if ((w < 0 && errno != EINTR) || cdp_left_ms(c) <= 0 || !ask) {
			kill(-c->pid, SIGKILL);
			waitpid(c->pid, &status, 0);
			kill(-c->pid, SIGKILL);
			return -1;
		}
		usleep(20000);
	}
	kill(-c->pid, SIGKILL); /* helpers it left in its group */
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

/* The browser to print with, unless GAUNTLET_PDF=off or a stop request
 * came: 0, or GL_PDF_SKIPPED or -1 (a browser named by
 * GAUNTLET_CHROMIUM that cannot be used) with msg. */
static int pdf_browser(const char **browser, char *msg, size_t n)
{
	const char *mode = getenv("GAUNTLET_PDF");
	char why[600];

	if (mode && (!strcmp(mode, "off") || !strcmp(mode, "0") || !strcmp(mode, "no"))) {
		snprintf(msg, n, "report.pdf: not rendered (GAUNTLET_PDF=%s)", mode);
		return GL_PDF_SKIPPED;
	}
	if (gl_stop_interrupts()) {
		snprintf(msg, n, "report.pdf: not rendered: %s came (the run is stopping); gauntlet report renders it",
			 gl_stop_name(gl_stop_interrupts()));
		return GL_PDF_SKIPPED;
	}
	if (!(*browser = find_browser(why, sizeof(why)))) {
		const char *env = getenv("GAUNTLET_CHROMIUM");
		/* the browser asked for by name and not usable is worth a warning */
		snprintf(msg, n, "report.pdf: %s: %s", env && env[0] ? "not written" : "skipped", why);
		return env && env[0] ? -1 : GL_PDF_SKIPPED;
	}
	return 0;
}

/* One rendering's files: report.html's text, the browser's private
 * profile, report.pdf.tmp (open for writing) that becomes report.pdf. */
struct pdf_files {
	char absdir[PATH_MAX], html[PATH_MAX + 32], tmp[PATH_MAX + 32], out[PATH_MAX + 32], prof[PATH_MAX + 32];
	char *page;
	size_t page_len;
	int fd;
};

/* Read report.html, make the profile, open report.pdf.tmp: 0, or -1 with
 * msg and nothing left behind. */
static int pdf_prepare(const char *dir, struct pdf_files *f, char *msg, size_t n)
{
	struct gl_err err = { 0 };

	if (!realpath(dir, f->absdir)) {
		snprintf(msg, n, "report.pdf: %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(f->html, sizeof(f->html), "%s/report.html", f->absdir);
	snprintf(f->tmp, sizeof(f->tmp), "%s/report.pdf.tmp", f->absdir);
	snprintf(f->out, sizeof(f->out), "%s/report.pdf", f->absdir);
	/* the page's text, handed to the browser (it is given no file:// URL) */
	if (gl_read_file(f->html, PDF_HTML_MAX, &f->page, &f->page_len, &err) != 0) {
		snprintf(msg, n, "report.pdf: not written: %s", err.msg);
		return -1;
	}
	if (!gl_utf8_valid(f->page, f->page_len)) {
		snprintf(msg, n, "report.pdf: not written: %s is not UTF-8 text", f->html);
		goto fail;
	}
	snprintf(f->prof, sizeof(f->prof), "%s/.pdf-XXXXXX", f->absdir);
	if (!mkdtemp(f->prof)) {
		snprintf(msg, n, "report.pdf: a private profile in %s: %s", f->absdir, strerror(errno));
		goto fail;
	}
	unlink(f->tmp);
	f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (f->fd < 0) {
		nftw(f->prof, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
		snprintf(msg, n, "report.pdf: not written: %s: %s", f->tmp, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	free(f->page);
	f->page = NULL;
	return -1;
}

/* The browser started with the profile and an environment of its own
 * only, the page printed into f->fd, the browser closed. 0, or -1 with
 * c->why (and the browser's last words when it died under us). */
static int pdf_render(struct cdp *c, const char *browser, const struct pdf_files *f)
{
	char logp[PATH_MAX + 64], a_prof[PATH_MAX + 48], e_home[PATH_MAX + 16], e_tmp[PATH_MAX + 16],
		e_xdg[PATH_MAX + 32], e_cache[PATH_MAX + 32];
	char *argv[] = { (char *)browser,
			 "--headless",
			 "--disable-gpu",
			 "--no-first-run",
			 "--no-default-browser-check",
			 "--disable-background-networking",
			 "--disable-sync",
			 "--disable-extensions",
			 "--disable-default-apps",
			 "--disable-component-update",
			 "--disable-dev-shm-usage",
			 "--mute-audio",
			 "--hide-scrollbars",
			 "--host-resolver-rules=MAP * ~NOTFOUND",
			 "--remote-debugging-pipe",
			 geteuid() == 0 ? "--no-sandbox" : "--disable-breakpad",
			 a_prof,
			 "about:blank",
			 NULL };
	char *envp[] = { e_home, e_tmp, e_xdg, e_cache, "PATH=/usr/bin:/bin", "LANG=C.UTF-8", NULL };
	int rc, status;

	snprintf(a_prof, sizeof(a_prof), "--user-data-dir=%s", f->prof);
	snprintf(e_home, sizeof(e_home), "HOME=%s", f->prof);
	snprintf(e_tmp, sizeof(e_tmp), "TMPDIR=%s", f->prof);
	snprintf(e_xdg, sizeof(e_xdg), "XDG_CONFIG_HOME=%s/.config", f->prof);
	snprintf(e_cache, sizeof(e_cache), "XDG_CACHE_HOME=%s/.cache", f->prof);
	snprintf(logp, sizeof(logp), "%s/browser.log", f->prof);
	clock_gettime(CLOCK_MONOTONIC, &c->t0);
	if ((rc = cdp_start(c, argv, envp, logp)) != 0)
		return rc;
	rc = cdp_print(c, f->page, f->fd);
	status = cdp_stop(c, 1);
	if (rc != 0 && status > 0) {
		char tail[300];
		size_t k = strlen(c->why);
		log_tail(logp, tail, sizeof(tail));
		snprintf(c->why + k, sizeof(c->why) - k, " (%s exited with %d%s%s)", browser, status,
			 tail[0] ? ": " : "", tail);
	}
	return rc;
}

/* What the browser gave at tmp must be a PDF; dated at the run's end it
 * goes in place at out, its size in *size. 0, or -1 with msg (tmp gone). */
static int pdf_place(const char *tmp, const char *out, const char *browser, int64_t date_wall_ns, off_t *size,
		     char *msg, size_t n)
{
	char why[600], head[5];
	struct stat st;
	int fd = open(tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 5 || read(fd, head, 5) != 5 ||
	    memcmp(head, "%PDF-", 5) != 0) {
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		snprintf(msg, n, "report.pdf: not written: %s gave no PDF", browser);
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
	*size = st.st_size;
	return 0;
}

int gl_report_pdf(const char *dir, int64_t date_wall_ns, char *msg, size_t n)
{
	struct pdf_files f = { .fd = -1 };
	struct cdp c = { .fd = -1 };
	struct timespec t1;
	const char *browser = NULL;
	off_t size = 0;
	int rc;

	if ((rc = pdf_browser(&browser, msg, n)) != 0)
		return rc;
	if (pdf_prepare(dir, &f, msg, n) != 0)
		return -1;
	rc = pdf_render(&c, browser, &f);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	free(f.page);
	free(c.in);
	nftw(f.prof, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	if (rc != 0 || fsync(f.fd) != 0) {
		if (rc == 0)
			snprintf(c.why, sizeof(c.why), "fsync: %s", strerror(errno));
		close(f.fd);
		unlink(f.tmp);
		snprintf(msg, n, "report.pdf: not written: %s", c.why);
		return -1;
	}
	close(f.fd);
	if (pdf_place(f.tmp, f.out, browser, date_wall_ns, &size, msg, n) != 0)
		return -1;
	snprintf(msg, n, "report.pdf: %lld bytes, rendered by %s in %.1f s", (long long)size, browser,
		 (double)(t1.tv_sec - c.t0.tv_sec) + (double)(t1.tv_nsec - c.t0.tv_nsec) / 1e9);
	return GL_PDF_WRITTEN;
}
