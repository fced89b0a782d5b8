/*
 * lab_util.c - what the lab's parts share: running commands, ports and
 * TCP checks, /proc (start times, the lab's mark), the journal, starting
 * daemons, recording a part's state and the inventory's objects.
 */
#define _GNU_SOURCE
#include "lab_int.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* s single-quoted for sh, as the shell takes it: ' becomes '\'' */
void lab_shq(char *out, size_t n, const char *s)
{
	size_t k = 0;
	if (n < 3) {
		if (n)
			out[0] = '\0';
		return;
	}
	out[k++] = '\'';
	for (; *s && k + 6 < n; s++) {
		if (*s == '\'') {
			memcpy(out + k, "'\\''", 4);
			k += 4;
		} else {
			out[k++] = *s;
		}
	}
	out[k++] = '\'';
	out[k] = '\0';
}

/* ---- small helpers ----------------------------------------------------------- */

void lab_say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("lab: ", stdout);
	vfprintf(stdout, fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
}

/* Run argv here, at most timeout_ms; output (stdout+stderr, capped) into
 * out when given. Returns the exit status, -1 when it could not run. */
int lab_run(char *out, size_t outn, int timeout_ms, const char *const *argv)
{
	struct gl_host h = { 0 };
	struct gl_exec_result r = { 0 };
	struct gl_err e = { 0 };
	int rc;

	h.local = 1;
	snprintf(h.name, sizeof(h.name), "lab");
	if (out && outn)
		out[0] = '\0';
	if (gl_host_exec(&h, argv, timeout_ms, &r, &e) != 0) {
		if (out)
			snprintf(out, outn, "%s", e.msg);
		gl_buf_free(&r.out);
		return -1;
	}
	if (out && outn) {
		size_t n = r.out.len < outn - 1 ? r.out.len : outn - 1;
		if (n)
			memcpy(out, r.out.data, n);
		out[n] = '\0';
		while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
			out[--n] = '\0';
	}
	rc = r.timed_out ? -1 : r.exit_status;
	gl_buf_free(&r.out);
	return rc;
}

int lab_have(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	if (!path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	while (*path) {
		const char *c = strchr(path, ':');
		size_t n = c ? (size_t)(c - path) : strlen(path);
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (n && access(buf, X_OK) == 0)
			return 1;
		path += n + (c ? 1 : 0);
	}
	return 0;
}

void lab_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* A free TCP port on 127.0.0.1 (the kernel's pick; not reserved). */
int lab_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t n = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &n) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Does ip:port accept a TCP connection within timeout_ms? */
int lab_tcp_ok(const char *ip, int port, int timeout_ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct pollfd p;
	int fd, ok = 0, e = 0;
	socklen_t el = sizeof(e);

	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1)
		return 0;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
		ok = 1;
	} else if (errno == EINPROGRESS) {
		p.fd = fd;
		p.events = POLLOUT;
		if (poll(&p, 1, timeout_ms) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && !e)
			ok = 1;
	}
	close(fd);
	return ok;
}

int lab_wait_tcp(const char *ip, int port, int seconds)
{
	for (int i = 0; i < seconds * 10; i++) {
		if (lab_tcp_ok(ip, port, 200))
			return 1;
		lab_sleep_ms(100);
	}
	return 0;
}

/* Field 22 of /proc/PID/stat: the start time, so a reused pid is never
 * mistaken for ours. 0 when the process is gone. */
unsigned long long lab_proc_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!p || !(p = strrchr(buf, ')')))
		return 0;
	/* after ") " come fields 3.. : state is 3, starttime is 22 */
	for (int field = 3; p && field <= 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		v = strtoull(p + 1, NULL, 10);
	return v;
}

static int proc_zombie(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	int z = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 1;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] == ' ')
		z = p[2] == 'Z' || p[2] == 'X';
	fclose(f);
	return z;
}

/* Does process pid carry GL_LAB_ID=id in its environment? */
int lab_proc_marked(pid_t pid, const char *id)
{
	char path[64], want[96], *buf;
	size_t n = 0, cap = 1 << 16;
	int fd, hit = 0;
	ssize_t r;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	snprintf(want, sizeof(want), LAB_MARK "=%s", id);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (!(buf = malloc(cap))) {
		close(fd);
		return 0;
	}
	while (n < cap - 1 && (r = read(fd, buf + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = '\0';
	/* NUL-separated entries, and buf[n] ends the last one */
	for (size_t i = 0; i < n && !hit; i += strlen(buf + i) + 1)
		hit = !strcmp(buf + i, want);
	free(buf);
	return hit;
}

/* pids (not ours, not zombies) that carry the lab's mark; returns the count */
int lab_marked_pids(const char *id, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 1 || pid == getpid())
			continue;
		if (lab_proc_marked((pid_t)pid, id) && !proc_zombie((pid_t)pid))
			out[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

/* ---- journal ------------------------------------------------------------------ */

int lab_journal_add(struct lab *L, const char *fmt, ...)
{
	char line[1200];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		return -1;
	line[n++] = '\n';
	if (write(L->jfd, line, (size_t)n) != n || fdatasync(L->jfd) != 0) {
		lab_say("cannot write the journal %s: %s", L->journal, strerror(errno));
		return -1;
	}
	return 0;
}

/* Start a daemon: own session, stdin /dev/null, output appended to log,
 * the lab's mark in its environment; journaled with its start time. */
pid_t lab_spawn(struct lab *L, const char *name, const char *log, const char *const *argv)
{
	pid_t pid;
	int ready[2];
	char c;

	if (pipe2(ready, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);
		int lf = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		setsid();
		setenv(LAB_MARK, L->id, 1);
		if (fd >= 0)
			dup2(fd, 0);
		if (lf >= 0) {
			dup2(lf, 1);
			dup2(lf, 2);
		}
		for (int i = 3; i < 1024; i++)
			if (i != ready[1])
				close(i);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "lab: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(ready[1]);
	(void)!read(ready[0], &c, 1); /* EOF at exec */
	close(ready[0]);
	lab_journal_add(L, "proc\t%s\t%d\t%llu", name, (int)pid, lab_proc_start(pid));
	return pid;
}

int lab_alive(pid_t pid)
{
	return pid > 0 && kill(pid, 0) == 0 && !proc_zombie(pid);
}

void lab_reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

void lab_part(struct lab *L, const char *name, int up, const char *fmt, ...)
{
	char why[1024];
	va_list ap;
	cJSON *p = cJSON_CreateObject();

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(p, "state", up ? "up" : "not built");
	cJSON_AddStringToObject(p, up ? "detail" : "reason", why);
	cJSON_DeleteItemFromObjectCaseSensitive(L->parts, name);
	cJSON_AddItemToObject(L->parts, name, p);
	if (!up)
		L->failed++;
	lab_say("%-8s %s: %s", name, up ? "up" : "NOT BUILT", why);
}

cJSON *lab_str_array(const char *const *v)
{
	cJSON *a = cJSON_CreateArray();
	for (; *v; v++)
		cJSON_AddItemToArray(a, cJSON_CreateString(*v));
	return a;
}

cJSON *lab_inv_obj(struct lab *L, const char *name)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(L->inv, name);
	return o ? o : cJSON_AddObjectToObject(L->inv, name);
}

int lab_write_text(const char *path, const char *text, int mode)
{
	struct gl_err e = { 0 };
	if (gl_write_file_atomic(path, text, strlen(text), mode, &e) != 0) {
		lab_say("cannot write %s: %s", path, e.msg);
		return -1;
	}
	return 0;
}
