/*
 * child.c - children that die with the controller, and the leftovers
 * resume stops (child.h).
 */
#define _GNU_SOURCE
#include "child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int gl_child_gate_open(struct gl_child_gate *g)
{
	g->parent = getpid();
	return pipe2(g->fd, O_CLOEXEC);
}

int gl_child_gate_wait(struct gl_child_gate *g)
{
	char c;
	ssize_t r;

	close(g->fd[1]); /* our copy would keep the gate from ever closing */
	/* Asked before the parent is checked: a parent that died before the
	 * request is seen by getppid() after it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != g->parent) {
		close(g->fd[0]);
		return -1;
	}
	do
		r = read(g->fd[0], &c, 1);
	while (r < 0 && errno == EINTR);
	close(g->fd[0]);
	return r == 1 && c == 'g' ? 0 : -1;
}

int gl_child_enter(struct gl_child_gate *g, int out_fd)
{
	int devnull = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	if (gl_child_gate_wait(g) != 0)
		return -1;
	if (devnull >= 0)
		dup2(devnull, 0);
	dup2(out_fd, 1);
	dup2(out_fd, 2);
	/* nothing else of the controller's (its store, its sockets) goes on
	 * into the child, CLOEXEC or not */
#ifdef SYS_close_range
	syscall(SYS_close_range, 3, ~0U, 0);
#endif
	return 0;
}

void gl_child_gate_release(struct gl_child_gate *g, int open)
{
	close(g->fd[0]);
	if (open && write(g->fd[1], "g", 1) != 1) {
		/* the child sees the gate closed and exits */
	}
	close(g->fd[1]);
}

void gl_child_gate_close(struct gl_child_gate *g)
{
	close(g->fd[0]);
	close(g->fd[1]);
}

int gl_proc_info(pid_t pid, struct gl_proc_info *out)
{
	char path[64], buf[1024], *p;
	ssize_t r;
	int fd;
	unsigned long long v[20];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return -1;
	buf[r] = '\0';
	/* "pid (comm) S ppid pgrp ..." : comm may hold spaces and ')' */
	if (!(p = strrchr(buf, ')')) || p[1] != ' ' || !p[2])
		return -1;
	out->state = p[2];
	p += 3;
	/* fields 4.. 22 */
	for (int i = 0; i < 19; i++) {
		char *end;
		v[i] = strtoull(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
	}
	out->ppid = (pid_t)v[0];
	out->pgid = (pid_t)v[1];
	out->start_ticks = v[18];
	return 0;
}

void gl_proc_boot_id(char *out, size_t n)
{
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t r = fd >= 0 ? read(fd, out, n - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (r < 0)
		r = 0;
	out[r] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

/* Up to cap bytes of /proc/PID/FILE into a buffer the caller frees;
 * *len the bytes read. */
static char *proc_read(pid_t pid, const char *file, size_t cap, size_t *len)
{
	char path[64], *buf;
	size_t n = 0;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	if (!(buf = malloc(cap + 1))) {
		close(fd);
		return NULL;
	}
	while (n < cap && (r = read(fd, buf + n, cap - n)) > 0)
		n += (size_t)r;
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

int gl_proc_has_env(pid_t pid, const char *entry)
{
	size_t n = 0;
	char *buf = proc_read(pid, "environ", 1 << 20, &n);
	int hit = 0;

	/* NUL-separated entries; buf[n] ends the last one */
	for (size_t i = 0; buf && i < n && !hit; i += strlen(buf + i) + 1)
		hit = !strcmp(buf + i, entry);
	free(buf);
	return hit;
}

void gl_proc_cmdline(pid_t pid, char *out, size_t n)
{
	size_t len = 0;
	char *buf = proc_read(pid, "cmdline", n > 1 ? n - 1 : 0, &len);

	out[0] = '\0';
	if (!buf)
		return;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	while (len && buf[len - 1] == ' ')
		len--;
	buf[len] = '\0';
	snprintf(out, n, "%s", buf);
	free(buf);
}

/* Alive and still the process we mean (same start time), not a zombie. */
static int same_alive(pid_t pid, uint64_t ticks)
{
	struct gl_proc_info pi;
	return gl_proc_info(pid, &pi) == 0 && pi.start_ticks == ticks && pi.state != 'Z' && pi.state != 'X';
}

static int is_ancestor(pid_t pid)
{
	struct gl_proc_info pi;
	pid_t p = getpid();

	for (int depth = 0; p > 1 && depth < 256; depth++) {
		if (p == pid)
			return 1;
		if (gl_proc_info(p, &pi) != 0)
			break;
		p = pi.ppid;
	}
	return 0;
}

static int add(struct gl_leftover *out, int n, int max, pid_t pid, int group, uint64_t ticks)
{
	for (int i = 0; i < n; i++)
		if (out[i].pid == pid) {
			out[i].group |= group;
			return n;
		}
	if (n >= max)
		return n;
	out[n].pid = pid;
	out[n].group = group;
	out[n].start_ticks = ticks;
	gl_proc_cmdline(pid, out[n].cmd, sizeof(out[n].cmd));
	return n + 1;
}

int gl_leftovers_find(const char *run_id, const pid_t *pids, const uint64_t *ticks, int n_rec, struct gl_leftover *out,
		      int max, int *scanned)
{
	char mark[128];
	const char *mine = getenv(GL_CHILD_MARK);
	DIR *d;
	struct dirent *e;
	int n = 0;

	for (int i = 0; i < n_rec; i++)
		if (pids[i] > 1 && pids[i] != getpid() && !is_ancestor(pids[i]) && same_alive(pids[i], ticks[i]))
			n = add(out, n, max, pids[i], 1, ticks[i]);
	*scanned = 0;
	/* This process carrying the mark itself (started from within the
	 * run's own job): everything it starts carries it too, and the mark
	 * tells nothing. */
	if (!run_id[0] || (mine && !strcmp(mine, run_id)))
		return n;
	*scanned = 1;
	snprintf(mark, sizeof(mark), "%s=%s", GL_CHILD_MARK, run_id);
	if (!(d = opendir("/proc")))
		return n;
	while ((e = readdir(d))) {
		struct gl_proc_info pi;
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 1 || pid == getpid())
			continue;
		if (gl_proc_info((pid_t)pid, &pi) != 0 || pi.state == 'Z' || pi.state == 'X')
			continue;
		if (gl_proc_has_env((pid_t)pid, mark) && !is_ancestor((pid_t)pid))
			n = add(out, n, max, (pid_t)pid, 0, pi.start_ticks);
	}
	closedir(d);
	return n;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void signal_one(const struct gl_leftover *l, int sig)
{
	/* the group only while its leader is still the recorded process */
	if (l->group && same_alive(l->pid, l->start_ticks))
		kill(-l->pid, sig);
	kill(l->pid, sig);
}

static int wait_gone(struct gl_leftover *l, int n, int ms)
{
	int left = 0;

	for (int waited = 0;; waited += 50) {
		left = 0;
		for (int i = 0; i < n; i++)
			left += same_alive(l[i].pid, l[i].start_ticks);
		if (!left || waited >= ms)
			return left;
		sleep_ms(50);
	}
}

int gl_leftovers_stop(struct gl_leftover *l, int n, int grace_ms, int *killed)
{
	for (int i = 0; i < n; i++) {
		killed[i] = 0;
		if (!same_alive(l[i].pid, l[i].start_ticks))
			continue;
		signal_one(&l[i], SIGTERM);
		signal_one(&l[i], SIGCONT); /* a stopped process acts on SIGTERM only once continued */
	}
	if (!wait_gone(l, n, grace_ms))
		return 0;
	for (int i = 0; i < n; i++)
		if (same_alive(l[i].pid, l[i].start_ticks)) {
			killed[i] = 1;
			signal_one(&l[i], SIGKILL);
		}
	return wait_gone(l, n, 2000);
}
