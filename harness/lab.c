/*
 * lab.c - the local lab: a small real cluster on one Linux machine.
 *
 * `gauntlet lab up` builds it part by part, `down` takes it apart, `status`
 * checks each part. Parts (docs/lab.md maps each to a real cluster's part):
 *
 *   net      a veth pair gl-lab0/gl-lab0p (10.77.0.1, the controller's address),
 *            an unreachable route for 10.77.0.0/16 (nothing leaks out)
 *            and per worker a network namespace gl-lab-wN joined to the host
 *            by a veth pair gl-lab-wNh <-> gl-lab-wNn (10.77.N.1 / 10.77.N.2)
 *   workers  per worker a supervisor (`gauntlet lab agent`) keeping a
 *            `gauntlet target` replica serving inside the namespace; it stops
 *            the replica while Slurm has the node drained
 *   etcd     three members on 127.0.0.1, started by DIR/bin/etcd-member
 *   slurm    munged (private key and socket), slurmctld on 10.77.0.1, one
 *            slurmd per worker namespace (nodes lab-w1, lab-w2, ...)
 *   sshd     a private sshd on 127.0.0.1 with generated host and client keys
 *            and a known_hosts file
 *   storage  DIR/storage and a blkio (v1) or io (v2) cgroup gauntlet-lab
 *   mpi      the mpirun arguments the training workload needs here
 *
 * Crash safety: before each thing is made, a line naming it is appended to
 * DIR/lab.journal and synced; every process the lab starts carries
 * GL_LAB_ID=<id> in its environment. `down` reads the journal and scans
 * /proc for that variable, so it cleans up after a `lab up` that was
 * SIGKILLed halfway, and it never touches anything it did not make.
 */
#define _GNU_SOURCE
#include "lab.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "plugin.h"
#include "scenario.h"
#include "util.h"
#include "plan.h"

/* The lab directory reaches generated shell scripts (bin/etcd-member, the
 * munge check), slurm.conf and sshd_config: only plain path characters,
 * so no quote, space, '$' or newline can turn into code or a config line
 * there. 1 when dir is fine, else 0 with why. */
static int lab_dir_ok(const char *dir, char *why, size_t n)
{
	for (const char *c = dir; *c; c++) {
		unsigned char u = (unsigned char)*c;
		if (!((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || strchr("/._+-", u))) {
			if (u < 0x20 || u >= 0x7f)
				snprintf(why, n, "byte 0x%02x at %zu is not allowed", u, (size_t)(c - dir));
			else
				snprintf(why, n, "character %c (0x%02x) at %zu is not allowed", u, u, (size_t)(c - dir));
			return 0;
		}
		if (c[0] == '/' && (c[1] == '-' || (c[1] == '.' && (c[2] == '/' || !c[2] ||
							      (c[2] == '.' && (c[3] == '/' || !c[3])))))) {
			snprintf(why, n, c[1] == '-' ? "a component at %zu starts with '-'" : "a component at %zu is '.' or '..'",
				 (size_t)(c - dir + 1));
			return 0;
		}
	}
	return 1;
}

/* s single-quoted for sh, as the shell takes it: ' becomes '\'' */
static void shq(char *out, size_t n, const char *s)
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

#define LAB_DIR_DEFAULT "/var/lib/gauntlet-lab"
#define LAB_MAX_WORKERS 8
#define LAB_CGROUP "gauntlet-lab"
#define LAB_MARK "GL_LAB_ID"
#define LAB_TARGET_PORT 8000
#define LAB_SLURMD_PORT 6818

struct lab {
	char dir[512];
	char journal[600];
	char id[40];
	char self[PATH_MAX];          /* this gauntlet binary */
	int root;
	int workers;
	int jfd;                      /* journal, also the lock */
	int failed;                   /* parts that could not be built */
	int net;                      /* the net part is up */
	cJSON *inv;                   /* the inventory being built */
	cJSON *parts;                 /* inv.parts: name -> {state, reason} */
};

/* ---- small helpers ----------------------------------------------------------- */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
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
static int run(char *out, size_t outn, int timeout_ms, const char *const *argv)
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
#define RUN(out, n, ms, ...) run(out, n, ms, (const char *const[]){ __VA_ARGS__, NULL })

static int have(const char *prog)
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

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* A free TCP port on 127.0.0.1 (the kernel's pick; not reserved). */
static int free_port(void)
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
static int tcp_ok(const char *ip, int port, int timeout_ms)
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

static int wait_tcp(const char *ip, int port, int seconds)
{
	for (int i = 0; i < seconds * 10; i++) {
		if (tcp_ok(ip, port, 200))
			return 1;
		sleep_ms(100);
	}
	return 0;
}

/* Field 22 of /proc/PID/stat: the start time, so a reused pid is never
 * mistaken for ours. 0 when the process is gone. */
static unsigned long long proc_start(pid_t pid)
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
static int proc_marked(pid_t pid, const char *id)
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
static int marked_pids(const char *id, pid_t *out, int max)
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
		if (proc_marked((pid_t)pid, id) && !proc_zombie((pid_t)pid))
			out[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

/* ---- journal ------------------------------------------------------------------ */

static int journal_add(struct lab *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int journal_add(struct lab *L, const char *fmt, ...)
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
		say("cannot write the journal %s: %s", L->journal, strerror(errno));
		return -1;
	}
	return 0;
}

/* Start a daemon: own session, stdin /dev/null, output appended to log,
 * the lab's mark in its environment; journaled with its start time. */
static pid_t spawn(struct lab *L, const char *name, const char *log, const char *const *argv)
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
	(void)!read(ready[0], &c, 1);          /* EOF at exec */
	close(ready[0]);
	journal_add(L, "proc\t%s\t%d\t%llu", name, (int)pid, proc_start(pid));
	return pid;
}

static int alive(pid_t pid)
{
	return pid > 0 && kill(pid, 0) == 0 && !proc_zombie(pid);
}

static void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static void part(struct lab *L, const char *name, int up, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void part(struct lab *L, const char *name, int up, const char *fmt, ...)
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
	say("%-8s %s: %s", name, up ? "up" : "NOT BUILT", why);
}

static cJSON *str_array(const char *const *v)
{
	cJSON *a = cJSON_CreateArray();
	for (; *v; v++)
		cJSON_AddItemToArray(a, cJSON_CreateString(*v));
	return a;
}

static cJSON *inv_obj(struct lab *L, const char *name)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(L->inv, name);
	return o ? o : cJSON_AddObjectToObject(L->inv, name);
}

static int write_text(const char *path, const char *text, int mode)
{
	struct gl_err e = { 0 };
	if (gl_write_file_atomic(path, text, strlen(text), mode, &e) != 0) {
		say("cannot write %s: %s", path, e.msg);
		return -1;
	}
	return 0;
}

/* ---- part: net -------------------------------------------------------------------- */

static void worker_ip(int w, int host_side, char *out, size_t n)
{
	snprintf(out, n, "10.77.%d.%d", w, host_side ? 1 : 2);
}

static void up_net(struct lab *L)
{
	char out[2048], ns[32], h[32], c[32], a[64], ip[32];

	if (!L->root) {
		part(L, "net", 0, "needs root (network namespaces, veth links); workers serve on 127.0.0.1 instead");
		return;
	}
	if (!have("ip")) {
		part(L, "net", 0, "the ip command (iproute2) is not installed");
		return;
	}
	/* 10.77.0.0/16 must be free here: nothing of ours, nothing of the host */
	if ((RUN(out, sizeof(out), 5000, "ip", "-o", "-4", "addr", "show", "to", "10.77.0.0/16") == 0 && out[0]) ||
	    (RUN(out, sizeof(out), 5000, "ip", "-4", "route", "show", "root", "10.77.0.0/16") == 0 && out[0])) {
		part(L, "net", 0, "10.77.0.0/16 is already in use on this machine: %.200s", out);
		return;
	}
	/* Nothing for the lab's addresses may leave this machine: while a
	 * worker's link is down (link_flap) its /24 route is gone, and without
	 * this route its packets would follow the default route out. */
	journal_add(L, "route\t10.77.0.0/16");
	if (RUN(out, sizeof(out), 5000, "ip", "route", "add", "unreachable", "10.77.0.0/16") != 0) {
		part(L, "net", 0, "ip route add unreachable 10.77.0.0/16: %.300s", out);
		return;
	}
	journal_add(L, "link\tgl-lab0");
	/* a veth pair rather than a dummy: kernels without the dummy module have it */
	if (RUN(out, sizeof(out), 5000, "ip", "link", "add", "gl-lab0", "type", "veth", "peer", "name", "gl-lab0p") != 0 ||
	    RUN(out, sizeof(out), 5000, "ip", "addr", "add", "10.77.0.1/32", "dev", "gl-lab0") != 0 ||
	    RUN(out, sizeof(out), 5000, "ip", "link", "set", "gl-lab0p", "up") != 0 ||
	    RUN(out, sizeof(out), 5000, "ip", "link", "set", "gl-lab0", "up") != 0) {
		part(L, "net", 0, "cannot make the controller's interface gl-lab0: %.300s", out);
		return;
	}
	for (int w = 1; w <= L->workers; w++) {
		snprintf(ns, sizeof(ns), "gl-lab-w%d", w);
		snprintf(h, sizeof(h), "gl-lab-w%dh", w);
		snprintf(c, sizeof(c), "gl-lab-w%dn", w);
		journal_add(L, "netns\t%s", ns);
		if (RUN(out, sizeof(out), 5000, "ip", "netns", "add", ns) != 0) {
			part(L, "net", 0, "ip netns add %s: %.300s", ns, out);
			return;
		}
		journal_add(L, "link\t%s", h);
		worker_ip(w, 1, ip, sizeof(ip));
		snprintf(a, sizeof(a), "%s/24", ip);
		if (RUN(out, sizeof(out), 5000, "ip", "link", "add", h, "type", "veth", "peer", "name", c) != 0 ||
		    RUN(out, sizeof(out), 5000, "ip", "link", "set", c, "netns", ns) != 0 ||
		    RUN(out, sizeof(out), 5000, "ip", "addr", "add", a, "dev", h) != 0 ||
		    RUN(out, sizeof(out), 5000, "ip", "link", "set", h, "up") != 0) {
			part(L, "net", 0, "veth %s <-> %s: %.300s", h, c, out);
			return;
		}
		worker_ip(w, 0, ip, sizeof(ip));
		snprintf(a, sizeof(a), "%s/24", ip);
		worker_ip(w, 1, ip, sizeof(ip));
		if (RUN(out, sizeof(out), 5000, "ip", "-n", ns, "link", "set", "lo", "up") != 0 ||
		    RUN(out, sizeof(out), 5000, "ip", "-n", ns, "addr", "add", a, "dev", c) != 0 ||
		    RUN(out, sizeof(out), 5000, "ip", "-n", ns, "link", "set", c, "up") != 0 ||
		    RUN(out, sizeof(out), 5000, "ip", "-n", ns, "route", "add", "default", "via", ip) != 0) {
			part(L, "net", 0, "addresses in %s: %.300s", ns, out);
			return;
		}
	}
	L->net = 1;
	part(L, "net", 1, "%d worker namespaces gl-lab-w1..w%d on 10.77.N.2/24, host side 10.77.N.1 (gl-lab-wNh), "
	     "controller 10.77.0.1 (gl-lab0, a veth pair)", L->workers, L->workers);
}

/* ---- part: munge + slurm -------------------------------------------------------------- */

static void up_slurm(struct lab *L)
{
	char out[2048], p[1100], conf[1100], sock[1100], key[1100], host[256] = "", log[1100];
	struct gl_buf b;
	int ctld_port;
	cJSON *s, *nodes;
	const char *need[] = { "munged", "munge", "unmunge", "slurmctld", "slurmd", "scontrol", "nsenter", NULL };

	if (!L->root) {
		part(L, "slurm", 0, "needs root (slurmctld and slurmd run as SlurmUser root; munged as root)");
		return;
	}
	for (int i = 0; need[i]; i++)
		if (!have(need[i])) {
			part(L, "slurm", 0, "%s is not installed (Debian: apt-get install slurm-wlm munge)", need[i]);
			return;
		}
	if (!L->net) {
		part(L, "slurm", 0, "needs the net part (one slurmd per worker namespace)");
		return;
	}
	if (gethostname(host, sizeof(host) - 1) != 0 || !host[0]) {
		part(L, "slurm", 0, "gethostname: %s", strerror(errno));
		return;
	}
	host[strcspn(host, ".")] = '\0';
	snprintf(p, sizeof(p), "%s/slurm/spool", L->dir);
	gl_mkdir_p(p, 0700, NULL);
	snprintf(p, sizeof(p), "%s/slurm/state", L->dir);
	gl_mkdir_p(p, 0700, NULL);
	snprintf(p, sizeof(p), "%s/slurm/munge", L->dir);
	gl_mkdir_p(p, 0700, NULL);
	/* munge: a private key, socket, pid and seed file */
	snprintf(key, sizeof(key), "%s/slurm/munge/key", L->dir);
	snprintf(sock, sizeof(sock), "%s/slurm/munge/sock", L->dir);
	{
		unsigned char k[1024];
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), kf;
		if (fd < 0 || read(fd, k, sizeof(k)) != (ssize_t)sizeof(k)) {
			part(L, "slurm", 0, "cannot read /dev/urandom for the munge key");
			if (fd >= 0)
				close(fd);
			return;
		}
		close(fd);
		kf = open(key, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0400);
		if (kf < 0 || write(kf, k, sizeof(k)) != (ssize_t)sizeof(k)) {
			part(L, "slurm", 0, "cannot write %s: %s", key, strerror(errno));
			if (kf >= 0)
				close(kf);
			return;
		}
		close(kf);
	}
	{
		char kf[1200], sf[1200], pf[1200], sd[1200], lf[1200];
		snprintf(kf, sizeof(kf), "--key-file=%s", key);
		snprintf(sf, sizeof(sf), "--socket=%s", sock);
		snprintf(pf, sizeof(pf), "--pid-file=%s/slurm/munge/pid", L->dir);
		snprintf(sd, sizeof(sd), "--seed-file=%s/slurm/munge/seed", L->dir);
		snprintf(lf, sizeof(lf), "--log-file=%s/slurm/munge/log", L->dir);
		snprintf(log, sizeof(log), "%s/logs/munged.log", L->dir);
		if (spawn(L, "munged", log, (const char *const[]){ "munged", "-F", "-f", kf, sf, pf, sd, lf, NULL }) < 0) {
			part(L, "slurm", 0, "cannot start munged");
			return;
		}
	}
	{
		int ok = 0;
		char cmd[2400];
		char qs[1300];
		shq(qs, sizeof(qs), sock);
		snprintf(cmd, sizeof(cmd), "munge -S %s -n | unmunge -S %s >/dev/null", qs, qs);
		for (int i = 0; i < 50 && !ok; i++) {
			ok = RUN(out, sizeof(out), 3000, "sh", "-c", cmd) == 0;
			if (!ok)
				sleep_ms(100);
		}
		if (!ok) {
			part(L, "slurm", 0, "munged did not answer on %s: %.300s (log %s)", sock, out, log);
			return;
		}
	}
	ctld_port = free_port();
	snprintf(conf, sizeof(conf), "%s/slurm/slurm.conf", L->dir);
	gl_buf_init(&b, 1 << 16);
	gl_buf_printf(&b,
		      "# written by gauntlet lab up; removed by gauntlet lab down\n"
		      "ClusterName=gauntletlab\n"
		      "SlurmctldHost=%s(10.77.0.1)\n"
		      "SlurmctldPort=%d\nSlurmdPort=%d\n"
		      "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=%s\n"
		      "SlurmUser=root\nSlurmdUser=root\n"
		      "StateSaveLocation=%s/slurm/state\n"
		      "SlurmdSpoolDir=%s/slurm/spool/%%n\n"
		      "SlurmctldPidFile=%s/slurm/slurmctld.pid\n"
		      "SlurmdPidFile=%s/slurm/slurmd-%%n.pid\n"
		      "SlurmctldLogFile=%s/logs/slurmctld.log\n"
		      "SlurmdLogFile=%s/logs/slurmd-%%n.log\n"
		      "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
		      "MpiDefault=none\nReturnToService=2\nSchedulerType=sched/builtin\nSelectType=select/linear\n"
		      "SlurmdTimeout=30\n",
		      host, ctld_port, LAB_SLURMD_PORT, sock, L->dir, L->dir, L->dir, L->dir, L->dir, L->dir);
	for (int w = 1; w <= L->workers; w++)
		gl_buf_printf(&b, "NodeName=lab-w%d NodeAddr=10.77.%d.2 CPUs=%ld State=UNKNOWN\n", w, w, sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1L);
	gl_buf_printf(&b, "PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n");
	if (write_text(conf, b.data, 0644) != 0) {
		gl_buf_free(&b);
		part(L, "slurm", 0, "cannot write %s", conf);
		return;
	}
	gl_buf_free(&b);
	setenv("SLURM_CONF", conf, 1);
	snprintf(log, sizeof(log), "%s/logs/slurmctld.out", L->dir);
	if (spawn(L, "slurmctld", log, (const char *const[]){ "slurmctld", "-D", "-f", conf, NULL }) < 0) {
		part(L, "slurm", 0, "cannot start slurmctld");
		return;
	}
	if (!wait_tcp("10.77.0.1", ctld_port, 15)) {
		part(L, "slurm", 0, "slurmctld does not listen on 10.77.0.1:%d (see %s and %s/logs/slurmctld.log)",
		     ctld_port, log, L->dir);
		return;
	}
	nodes = cJSON_CreateArray();
	for (int w = 1; w <= L->workers; w++) {
		char ns[32], node[32], sp[1200];
		snprintf(ns, sizeof(ns), "gl-lab-w%d", w);
		snprintf(node, sizeof(node), "lab-w%d", w);
		snprintf(sp, sizeof(sp), "%s/slurm/spool/%s", L->dir, node);
		gl_mkdir_p(sp, 0700, NULL);
		snprintf(log, sizeof(log), "%s/logs/slurmd-%s.out", L->dir, node);
		/* nsenter, not `ip netns exec`: that remounts /sys, and slurmd
		 * needs /sys/fs/cgroup */
		snprintf(sp, sizeof(sp), "--net=/run/netns/%s", ns);
		if (spawn(L, node, log,
			  (const char *const[]){ "nsenter", sp, "slurmd", "-D", "-N", node, "-f", conf, NULL }) < 0) {
			part(L, "slurm", 0, "cannot start slurmd for %s", node);
			cJSON_Delete(nodes);
			return;
		}
		cJSON_AddItemToArray(nodes, cJSON_CreateString(node));
	}
	/* every node registered and not down */
	{
		int ok = 0;
		for (int i = 0; i < 150 && !ok; i++) {
			ok = 1;
			for (int w = 1; w <= L->workers && ok; w++) {
				char node[32], arg[64];
				snprintf(node, sizeof(node), "lab-w%d", w);
				snprintf(arg, sizeof(arg), "NodeName=%s", node);
				ok = RUN(out, sizeof(out), 5000, "scontrol", "-o", "show", "node", node) == 0 &&
				     strstr(out, "State=IDLE") && !strstr(out, "DOWN") && !strstr(out, "NOT_RESPONDING");
				if (!ok && strstr(out, "DOWN") && i % 10 == 9)
					RUN(NULL, 0, 5000, "scontrol", "update", arg, "State=RESUME");
			}
			if (!ok)
				sleep_ms(200);
		}
		if (!ok) {
			part(L, "slurm", 0, "the nodes did not come up idle within 30 s: %.300s (logs in %s/logs)", out,
			     L->dir);
			cJSON_Delete(nodes);
			return;
		}
	}
	s = inv_obj(L, "slurm");
	cJSON_AddStringToObject(s, "conf", conf);
	cJSON_AddStringToObject(s, "controller", "10.77.0.1");
	cJSON_AddNumberToObject(s, "port", ctld_port);
	cJSON_AddItemToObject(s, "nodes", nodes);
	part(L, "slurm", 1, "munged, slurmctld on 10.77.0.1:%d, slurmd for %d nodes in their namespaces; SLURM_CONF=%s",
	     ctld_port, L->workers, conf);
}

/* ---- part: workers (inference replicas) -------------------------------------------- */

static void up_workers(struct lab *L)
{
	cJSON *eps = cJSON_CreateArray(), *ws = cJSON_CreateArray();
	int slurm = cJSON_GetObjectItemCaseSensitive(L->inv, "slurm") != NULL;

	for (int w = 1; w <= L->workers; w++) {
		char ip[32], listen[64], name[32], log[1100], node[32], url[128], ns[32];
		int port = L->net ? LAB_TARGET_PORT : free_port();
		const char *argv[24];
		int n = 0;
		cJSON *o;

		if (L->net)
			worker_ip(w, 0, ip, sizeof(ip));
		else
			snprintf(ip, sizeof(ip), "127.0.0.1");
		snprintf(listen, sizeof(listen), "%s:%d", ip, port);
		snprintf(name, sizeof(name), "agent-w%d", w);
		snprintf(node, sizeof(node), "lab-w%d", w);
		snprintf(ns, sizeof(ns), "gl-lab-w%d", w);
		snprintf(log, sizeof(log), "%s/logs/agent-w%d.log", L->dir, w);
		argv[n++] = L->self;
		argv[n++] = "lab";
		argv[n++] = "agent";
		argv[n++] = "--listen";
		argv[n++] = listen;
		if (L->net) {
			argv[n++] = "--netns";
			argv[n++] = ns;
		}
		if (slurm) {
			argv[n++] = "--slurm-node";
			argv[n++] = node;
		}
		argv[n] = NULL;
		if (spawn(L, name, log, argv) < 0 || !wait_tcp(ip, port, 15)) {
			part(L, "workers", 0, "the replica of worker %d does not listen on %s (see %s)", w, listen, log);
			cJSON_Delete(eps);
			cJSON_Delete(ws);
			return;
		}
		snprintf(url, sizeof(url), "http://%s/v1", listen);
		cJSON_AddItemToArray(eps, cJSON_CreateString(url));
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", node);
		cJSON_AddStringToObject(o, "address", ip);
		cJSON_AddStringToObject(o, "endpoint", url);
		if (L->net) {
			char h[32];
			snprintf(h, sizeof(h), "gl-lab-w%dh", w);
			cJSON_AddStringToObject(o, "netns", ns);
			cJSON_AddStringToObject(o, "link", h);
			worker_ip(w, 1, ip, sizeof(ip));
			cJSON_AddStringToObject(o, "host_address", ip);
		}
		cJSON_AddItemToArray(ws, o);
	}
	cJSON_AddItemToObject(inv_obj(L, "inference"), "endpoints", eps);
	cJSON_AddItemToObject(L->inv, "workers", ws);
	part(L, "workers", 1, "%d replicas of gauntlet target, each kept serving by `gauntlet lab agent`%s",
	     L->workers, slurm ? " (stopped while Slurm has its node drained)" : "");
}

/* ---- part: etcd ------------------------------------------------------------------------ */

static void up_etcd(struct lab *L)
{
	char script[1100], out[2048], cluster[512] = "", eps[512] = "", qd[2300], qid[200], qcl[1100];
	int cport[3], pport[3];
	struct gl_buf b;
	cJSON *e, *members, *epa;

	if (!have("etcd") || !have("etcdctl")) {
		part(L, "etcd", 0, "etcd or etcdctl is not installed (Debian: apt-get install etcd-server etcd-client)");
		return;
	}
	for (int i = 0; i < 3; i++) {
		cport[i] = free_port();
		pport[i] = free_port();
		if (cport[i] < 0 || pport[i] < 0 || cport[i] == pport[i]) {
			part(L, "etcd", 0, "no free ports on 127.0.0.1");
			return;
		}
		snprintf(cluster + strlen(cluster), sizeof(cluster) - strlen(cluster), "%sm%d=http://127.0.0.1:%d",
			 i ? "," : "", i + 1, pport[i]);
		snprintf(eps + strlen(eps), sizeof(eps) - strlen(eps), "%shttp://127.0.0.1:%d", i ? "," : "",
			 cport[i]);
	}
	snprintf(script, sizeof(script), "%s/bin/etcd-member", L->dir);
	{
		char dd[1100];
		snprintf(dd, sizeof(dd), "%s/etcd", L->dir);
		shq(qd, sizeof(qd), dd);
		shq(qid, sizeof(qid), L->id);
		shq(qcl, sizeof(qcl), cluster);
	}
	gl_buf_init(&b, 1 << 16);
	gl_buf_printf(&b,
		      "#!/bin/sh\n"
		      "# etcd-member N: start lab etcd member N (1-3) detached, its pid in %s/etcd/mN.pid.\n"
		      "# Used by `gauntlet lab up` and by the lab soak's control_plane_loss revert.\n"
		      "# Written by gauntlet lab up; removed by gauntlet lab down.\n"
		      "set -eu\n"
		      "D=%s\n"
		      "export %s=%s\n"
		      "case \"${1:-}\" in\n",
		      L->dir, qd, LAB_MARK, qid);
	for (int i = 0; i < 3; i++)
		gl_buf_printf(&b, "%d) C=%d; P=%d ;;\n", i + 1, cport[i], pport[i]);
	gl_buf_printf(&b,
		      "*) echo \"usage: $0 1|2|3\" >&2; exit 2 ;;\n"
		      "esac\n"
		      "N=$1\n"
		      "if [ -f \"$D/m$N.pid\" ] && kill -0 \"$(cat \"$D/m$N.pid\")\" 2>/dev/null; then\n"
		      "\techo \"member m$N already runs (pid $(cat \"$D/m$N.pid\"))\" >&2; exit 0\n"
		      "fi\n"
		      "STATE=new\n"
		      "[ -d \"$D/m$N/member\" ] && STATE=existing\n"
		      "setsid -f sh -c 'echo $$ > \"$0\"; exec \"$@\"' \"$D/m$N.pid\" \\\n"
		      "\tetcd --name \"m$N\" --data-dir \"$D/m$N\" \\\n"
		      "\t--listen-client-urls \"http://127.0.0.1:$C\" --advertise-client-urls \"http://127.0.0.1:$C\" \\\n"
		      "\t--listen-peer-urls \"http://127.0.0.1:$P\" --initial-advertise-peer-urls \"http://127.0.0.1:$P\" \\\n"
		      "\t--initial-cluster %s --initial-cluster-state \"$STATE\" \\\n"
		      "\t--initial-cluster-token %s --heartbeat-interval 100 --election-timeout 1000 \\\n"
		      "\t</dev/null >>\"$D/m$N.log\" 2>&1\n"
		      "i=0\n"
		      "while [ ! -s \"$D/m$N.pid\" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done\n",
		      qcl, qid);
	if (write_text(script, b.data, 0700) != 0) {
		gl_buf_free(&b);
		part(L, "etcd", 0, "cannot write %s", script);
		return;
	}
	gl_buf_free(&b);
	for (int i = 0; i < 3; i++) {
		char n[4], pf[1200];
		snprintf(n, sizeof(n), "%d", i + 1);
		snprintf(pf, sizeof(pf), "%s/etcd/m%d.pid", L->dir, i + 1);
		journal_add(L, "pidfile\tetcd-m%d\t%s", i + 1, pf);
		if (RUN(out, sizeof(out), 10000, script, n) != 0) {
			part(L, "etcd", 0, "%s %s: %.300s", script, n, out);
			return;
		}
	}
	{
		int ok = 0;
		char epflag[600];
		snprintf(epflag, sizeof(epflag), "--endpoints=%s", eps);
		for (int i = 0; i < 150 && !ok; i++) {
			ok = RUN(out, sizeof(out), 5000, "env", "ETCDCTL_API=3", "etcdctl", epflag, "--dial-timeout=1s",
				 "--command-timeout=2s", "endpoint", "health") == 0;
			if (!ok)
				sleep_ms(200);
		}
		if (!ok) {
			part(L, "etcd", 0, "the 3 members are not healthy after 30 s: %.300s (logs %s/etcd/m*.log)", out,
			     L->dir);
			return;
		}
	}
	e = inv_obj(L, "etcd");
	epa = cJSON_AddArrayToObject(e, "endpoints");
	members = cJSON_AddArrayToObject(e, "members");
	for (int i = 0; i < 3; i++) {
		char url[64], pf[1200], n[4];
		cJSON *m = cJSON_CreateObject();
		snprintf(url, sizeof(url), "http://127.0.0.1:%d", cport[i]);
		snprintf(pf, sizeof(pf), "%s/etcd/m%d.pid", L->dir, i + 1);
		snprintf(n, sizeof(n), "%d", i + 1);
		cJSON_AddItemToArray(epa, cJSON_CreateString(url));
		cJSON_AddStringToObject(m, "name", n);
		cJSON_AddStringToObject(m, "endpoint", url);
		cJSON_AddStringToObject(m, "pidfile", pf);
		cJSON_AddItemToObject(m, "start", str_array((const char *const[]){ script, n, NULL }));
		cJSON_AddItemToArray(members, m);
	}
	part(L, "etcd", 1, "3 members on %s", eps);
}

/* ---- part: sshd -------------------------------------------------------------------------- */

static void up_sshd(struct lab *L)
{
	char out[2048], d[1100], hk[1200], ck[1200], ak[1200], kh[1300], cfg[1200], log[1200], user[64] = "root";
	char line[2048], *text = NULL;
	size_t len = 0;
	struct gl_buf b;
	int port;
	cJSON *hosts, *h;
	struct gl_err e = { 0 };

	if (access("/usr/sbin/sshd", X_OK) != 0 || !have("ssh-keygen")) {
		part(L, "sshd", 0, "/usr/sbin/sshd or ssh-keygen is not installed (Debian: apt-get install openssh-server)");
		return;
	}
	if (!L->root) {
		const char *u = getenv("USER");
		if (!u || !*u) {
			part(L, "sshd", 0, "not root and $USER is unset: cannot name the login user");
			return;
		}
		snprintf(user, sizeof(user), "%s", u);
	}
	snprintf(d, sizeof(d), "%s/ssh", L->dir);
	snprintf(hk, sizeof(hk), "%s/host_key", d);
	snprintf(ck, sizeof(ck), "%s/client_key", d);
	snprintf(ak, sizeof(ak), "%s/authorized_keys", d);
	snprintf(kh, sizeof(kh), "%s/known_hosts", d);
	snprintf(cfg, sizeof(cfg), "%s/sshd_config", d);
	if (RUN(out, sizeof(out), 20000, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gauntlet-lab-host", "-f",
		hk) != 0 ||
	    RUN(out, sizeof(out), 20000, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gauntlet-lab-client",
		"-f", ck) != 0) {
		part(L, "sshd", 0, "ssh-keygen: %.300s", out);
		return;
	}
	snprintf(line, sizeof(line), "%s.pub", ck);
	if (gl_read_file(line, 8192, &text, &len, &e) != 0 || write_text(ak, text, 0600) != 0) {
		free(text);
		part(L, "sshd", 0, "cannot copy the client key into %s", ak);
		return;
	}
	free(text);
	text = NULL;
	port = free_port();
	gl_buf_init(&b, 1 << 14);
	gl_buf_printf(&b,
		      "# written by gauntlet lab up; removed by gauntlet lab down\n"
		      "Port %d\nListenAddress 127.0.0.1\nHostKey %s\nAuthorizedKeysFile %s\n"
		      "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
		      "PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\nPidFile %s/sshd.pid\n"
		      "AllowUsers %s\n",
		      port, hk, ak, d, user);
	{
		cJSON *s = cJSON_GetObjectItemCaseSensitive(L->inv, "slurm");
		const cJSON *conf = s ? cJSON_GetObjectItemCaseSensitive(s, "conf") : NULL;
		/* sessions find the lab's Slurm (scontrol for drain_worker) */
		if (cJSON_IsString(conf))
			gl_buf_printf(&b, "SetEnv SLURM_CONF=%s\n", conf->valuestring);
	}
	if (write_text(cfg, b.data, 0600) != 0) {
		gl_buf_free(&b);
		part(L, "sshd", 0, "cannot write %s", cfg);
		return;
	}
	gl_buf_free(&b);
	if (L->root)
		mkdir("/run/sshd", 0755);      /* privilege separation directory */
	snprintf(log, sizeof(log), "%s/logs/sshd.log", L->dir);
	if (spawn(L, "sshd", log, (const char *const[]){ "/usr/sbin/sshd", "-D", "-e", "-f", cfg, NULL }) < 0 ||
	    !wait_tcp("127.0.0.1", port, 10)) {
		part(L, "sshd", 0, "sshd does not listen on 127.0.0.1:%d (see %s)", port, log);
		return;
	}
	snprintf(line, sizeof(line), "%s.pub", hk);
	if (gl_read_file(line, 8192, &text, &len, &e) != 0) {
		part(L, "sshd", 0, "cannot read %s: %s", line, e.msg);
		return;
	}
	{
		char *sp = strchr(text, ' ');
		sp = sp ? strchr(sp + 1, ' ') : NULL;
		if (sp)
			*sp = '\0';
		text[strcspn(text, "\n")] = '\0';
		snprintf(line, sizeof(line), "[127.0.0.1]:%d %s\n", port, text);
		free(text);
	}
	if (write_text(kh, line, 0600) != 0) {
		part(L, "sshd", 0, "cannot write %s", kh);
		return;
	}
	hosts = inv_obj(L, "hosts");
	h = cJSON_AddObjectToObject(hosts, "lab-ssh");
	snprintf(line, sizeof(line), "%s@127.0.0.1:%d", user, port);
	cJSON_AddStringToObject(h, "ssh", line);
	cJSON_AddStringToObject(h, "key", ck);
	cJSON_AddStringToObject(h, "known_hosts", kh);
	part(L, "sshd", 1, "127.0.0.1:%d, login %s with %s, host key in %s", port, user, ck, kh);
}

/* ---- part: storage ------------------------------------------------------------------------ */

static void up_storage(struct lab *L)
{
	char d[1100], cg[256] = "", dev[32] = "", why[512] = "";
	struct stat st;
	cJSON *s;

	snprintf(d, sizeof(d), "%s/storage", L->dir);
	if (gl_mkdir_p(d, 0700, NULL) != 0 || stat(d, &st) != 0) {
		part(L, "storage", 0, "cannot make %s: %s", d, strerror(errno));
		return;
	}
	if (major(st.st_dev) == 0) {
		snprintf(why, sizeof(why), "%s is on a filesystem without a block device (%u:%u): no throttle", d,
			 major(st.st_dev), minor(st.st_dev));
	} else {
		snprintf(dev, sizeof(dev), "%u:%u", major(st.st_dev), minor(st.st_dev));
	}
	if (!L->root) {
		snprintf(why, sizeof(why), "no cgroup: needs root");
	} else if (dev[0]) {
		char path[512];
		struct stat cs;
		if (stat("/sys/fs/cgroup/blkio", &cs) == 0) {
			snprintf(path, sizeof(path), "/sys/fs/cgroup/blkio/%s", LAB_CGROUP);
		} else if (stat("/sys/fs/cgroup/cgroup.controllers", &cs) == 0) {
			/* v2: the io controller must be enabled for children of the root */
			int fd = open("/sys/fs/cgroup/cgroup.subtree_control", O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, "+io", 3) != 3)
				snprintf(why, sizeof(why), "cgroup v2 without the io controller: %s", strerror(errno));
			if (fd >= 0)
				close(fd);
			snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", LAB_CGROUP);
		} else {
			snprintf(why, sizeof(why), "no blkio (v1) or io (v2) cgroup interface under /sys/fs/cgroup");
			path[0] = '\0';
		}
		if (path[0] && !why[0]) {
			journal_add(L, "cgroup\t%s", path);
			if (mkdir(path, 0755) != 0 && errno != EEXIST)
				snprintf(why, sizeof(why), "mkdir %s: %s", path, strerror(errno));
			else
				snprintf(cg, sizeof(cg), "%s", LAB_CGROUP);
		}
	}
	s = inv_obj(L, "storage");
	cJSON_AddStringToObject(s, "path", d);
	cJSON_AddStringToObject(s, "root", L->dir);
	if (dev[0])
		cJSON_AddStringToObject(s, "device", dev);
	if (cg[0])
		cJSON_AddStringToObject(s, "cgroup", cg);
	if (why[0] && (!cg[0] || !dev[0])) {
		part(L, "storage", 0, "%s ready, but throttling is not: %s", d, why);
		return;
	}
	part(L, "storage", 1, "%s on device %s, cgroup %s", d, dev, cg);
}

/* ---- part: mpi ------------------------------------------------------------------------------ */

static void up_mpi(struct lab *L)
{
	char out[2048], train[PATH_MAX], *slash;
	cJSON *t;

	snprintf(train, sizeof(train), "%s", L->self);
	slash = strrchr(train, '/');
	snprintf(slash ? slash + 1 : train, sizeof(train) - (size_t)(slash ? slash + 1 - train : 0), "gauntlet-train");
	if (!have("mpirun")) {
		part(L, "mpi", 0, "mpirun is not installed (Debian: apt-get install openmpi-bin libopenmpi-dev)");
		return;
	}
	if (access(train, X_OK) != 0) {
		part(L, "mpi", 0, "%s was not built (OpenMPI development files missing at build time)", train);
		return;
	}
	RUN(out, sizeof(out), 10000, "mpirun", "--version");
	t = inv_obj(L, "training");
	cJSON_AddStringToObject(t, "binary", train);
	/* the training workload adds --allow-run-as-root itself when root */
	cJSON_AddItemToObject(t, "launcher_args", str_array((const char *const[]){ "--oversubscribe", NULL }));
	{
		char ck[1100];
		snprintf(ck, sizeof(ck), "%s/ckpt", L->dir);
		gl_mkdir_p(ck, 0700, NULL);
		cJSON_AddStringToObject(t, "checkpoint_dir", ck);
	}
	part(L, "mpi", 1, "%.*s, ranks of %s on this machine (MPI backend)", (int)strcspn(out, "\n"), out, train);
}

/* ---- inventory --------------------------------------------------------------------------------- */

static int write_inventory(struct lab *L)
{
	char path[1100], *text;
	cJSON *hosts = inv_obj(L, "hosts"), *h;
	int rc;

	/* the controller itself, and each worker as a local host in its namespace */
	h = cJSON_AddObjectToObject(hosts, "lab-ctl");
	cJSON_AddBoolToObject(h, "local", 1);
	if (L->net)
		for (int w = 1; w <= L->workers; w++) {
			char name[32], ns[32];
			snprintf(name, sizeof(name), "lab-w%d", w);
			snprintf(ns, sizeof(ns), "gl-lab-w%d", w);
			h = cJSON_AddObjectToObject(hosts, name);
			cJSON_AddBoolToObject(h, "local", 1);
			cJSON_AddStringToObject(h, "netns", ns);
			cJSON_AddStringToObject(h, "slurm_node", name);
		}
	snprintf(path, sizeof(path), "%s/inventory.json", L->dir);
	if (!(text = cJSON_Print(L->inv)))
		return -1;
	rc = write_text(path, text, 0600);
	cJSON_free(text);
	return rc;
}

/* ---- down ----------------------------------------------------------------------------------------- */

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p) != 0 && errno != ENOENT ? -1 : 0;
}

static void add_pid(pid_t *pids, int *np, pid_t pid)
{
	for (int i = 0; i < *np; i++)
		if (pids[i] == pid)
			return;
	if (*np < 512)
		pids[(*np)++] = pid;
}

/* the pid in a pidfile, when that process carries the lab's mark */
static void add_pid_file(pid_t *pids, int *np, const char *pf, const char *id)
{
	char *t = NULL;
	size_t tl;
	struct gl_err e = { 0 };
	int pid;

	if (gl_read_file(pf, 64, &t, &tl, &e) == 0 && (pid = atoi(t)) > 1 && proc_marked(pid, id))
		add_pid(pids, np, (pid_t)pid);
	free(t);
}

/* Take the lab apart from its journal and its mark. Returns the count of
 * things that could not be removed. */
static int lab_down(struct lab *L, int quiet)
{
	char *text = NULL, *line, *save = NULL, out[1024];
	size_t len = 0;
	struct gl_err e = { 0 };
	int left = 0, n_procs = 0, n_links = 0, n_ns = 0, n_cg = 0;
	pid_t pids[512];
	int np;

	if (gl_read_file(L->journal, 1 << 20, &text, &len, &e) != 0)
		text = NULL;
	/* the id first: it names the mark */
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');
		if (!strncmp(p, "id\t", 3)) {
			int n = (int)((nl ? nl : p + strlen(p)) - p - 3);
			snprintf(L->id, sizeof(L->id), "%.*s", n, p + 3);
		}
		p = nl ? nl + 1 : NULL;
	}
	/* 1. processes: every marked one, TERM then KILL; journaled pids too */
	for (int round = 0; round < 2; round++) {
		np = L->id[0] ? marked_pids(L->id, pids, (int)GL_ARRAY_LEN(pids)) : 0;
		for (char *p = text; p && *p;) {
			char *nl = strchr(p, '\n'), name[64], pf[1100];
			int pid;
			unsigned long long st;
			if (nl)
				*nl = '\0';
			if (sscanf(p, "proc\t%63[^\t]\t%d\t%llu", name, &pid, &st) == 3 && pid > 1 && st &&
			    proc_start(pid) == st)
				add_pid(pids, &np, (pid_t)pid);
			else if (sscanf(p, "pidfile\t%63[^\t]\t%1099s", name, pf) == 2 && L->id[0])
				add_pid_file(pids, &np, pf, L->id);
			if (nl)
				*nl = '\n';
			p = nl ? nl + 1 : NULL;
		}
		if (!np)
			break;
		for (int i = 0; i < np; i++) {
			kill(pids[i], SIGCONT);      /* a SIGSTOPped member cannot act on TERM */
			kill(pids[i], round ? SIGKILL : SIGTERM);
		}
		for (int t = 0; t < 50; t++) {
			int any = 0;
			reap();
			for (int i = 0; i < np; i++)
				any |= alive(pids[i]);
			if (!any)
				break;
			sleep_ms(100);
		}
		n_procs += round ? 0 : np;
	}
	np = L->id[0] ? marked_pids(L->id, pids, (int)GL_ARRAY_LEN(pids)) : 0;
	if (np) {
		left += np;
		say("down: %d process(es) of the lab survived SIGKILL (first pid %d)", np, (int)pids[0]);
	}
	/* 2. cgroups, links, namespaces: newest first */
	if (text) {
		char *lines[1024];
		int nl = 0;
		for (line = strtok_r(text, "\n", &save); line && nl < 1024; line = strtok_r(NULL, "\n", &save))
			lines[nl++] = line;
		for (int i = nl - 1; i >= 0; i--) {
			char *v = strchr(lines[i], '\t');
			if (!v)
				continue;
			*v++ = '\0';
			if (!strcmp(lines[i], "cgroup")) {
				if (rmdir(v) == 0)
					n_cg++;
				else if (errno != ENOENT) {
					left++;
					say("down: cannot remove cgroup %s: %s (a process still in it?)", v, strerror(errno));
				}
			} else if (!strcmp(lines[i], "route")) {
				if (RUN(out, sizeof(out), 5000, "ip", "route", "show", "type", "unreachable", v) != 0 ||
				    !out[0])
					continue;
				if (RUN(out, sizeof(out), 5000, "ip", "route", "del", "unreachable", v) != 0) {
					left++;
					say("down: ip route del unreachable %s: %s", v, out);
				}
			} else if (!strcmp(lines[i], "link")) {
				if (RUN(out, sizeof(out), 5000, "ip", "link", "show", "dev", v) != 0)
					continue;
				if (RUN(out, sizeof(out), 5000, "ip", "link", "del", "dev", v) == 0)
					n_links++;
				else {
					left++;
					say("down: ip link del %s: %s", v, out);
				}
			} else if (!strcmp(lines[i], "netns")) {
				char p[300];
				snprintf(p, sizeof(p), "/run/netns/%s", v);
				if (access(p, F_OK) != 0)
					continue;
				if (RUN(out, sizeof(out), 5000, "ip", "netns", "del", v) == 0)
					n_ns++;
				else {
					left++;
					say("down: ip netns del %s: %s", v, out);
				}
			}
		}
	}
	free(text);
	/* 3. the lab's directory, only when it is ours */
	{
		char mark[1100];
		snprintf(mark, sizeof(mark), "%s/.gauntlet-lab", L->dir);
		if (access(mark, F_OK) == 0 && nftw(L->dir, rm_cb, 32, FTW_DEPTH | FTW_PHYS) != 0) {
			left++;
			say("down: cannot remove %s: %s", L->dir, strerror(errno));
		}
	}
	if (!quiet)
		say("down: stopped %d process(es), removed %d link(s), %d namespace(s), %d cgroup(s) and %s%s",
		    n_procs, n_links, n_ns, n_cg, L->dir, left ? "; SOME THINGS WERE LEFT (above)" : "");
	return left;
}

/* ---- status ------------------------------------------------------------------------------------------ */

/* Check each built part; prints one line per part. Returns unhealthy parts. */
static int lab_check(struct lab *L, const cJSON *inv, int print)
{
	char out[2048];
	int bad = 0;
	const cJSON *x, *parts = cJSON_GetObjectItemCaseSensitive(inv, "parts"), *p;

#define STATUS(name, ok, ...)                                                          \
	do {                                                                           \
		char _m[1024];                                                         \
		snprintf(_m, sizeof(_m), __VA_ARGS__);                                \
		if (!(ok))                                                             \
			bad++;                                                         \
		if (print)                                                             \
			printf("lab: %-8s %s: %s\n", name, (ok) ? "healthy" : "UNHEALTHY", _m); \
	} while (0)

	cJSON_ArrayForEach(p, parts) {
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "state"));
		const char *nm = p->string;
		if (!st || strcmp(st, "up") != 0) {
			if (print)
				printf("lab: %-8s not built: %s\n", nm,
				       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "reason")));
			continue;
		}
		if (!strcmp(nm, "net")) {
			int ok = 1;
			char why[256] = "namespaces and links present";
			for (int w = 1; w <= L->workers && ok; w++) {
				char path[64], h[32];
				snprintf(path, sizeof(path), "/run/netns/gl-lab-w%d", w);
				snprintf(h, sizeof(h), "gl-lab-w%dh", w);
				if (access(path, F_OK) != 0) {
					ok = 0;
					snprintf(why, sizeof(why), "namespace gl-lab-w%d is gone", w);
				} else if (RUN(out, sizeof(out), 5000, "ip", "-o", "link", "show", "dev", h) != 0) {
					ok = 0;
					snprintf(why, sizeof(why), "link %s is gone", h);
				} else if (!strstr(out, "state UP") && !strstr(out, ",UP")) {
					ok = 0;
					snprintf(why, sizeof(why), "link %s is down", h);
				}
			}
			STATUS(nm, ok, "%s", why);
		} else if (!strcmp(nm, "workers")) {
			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(inv, "workers")) {
				const char *a = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "address"));
				const char *ep = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "endpoint"));
				const char *c = ep ? strrchr(ep, ':') : NULL;
				int ok = a && c && tcp_ok(a, atoi(c + 1), 1000);
				STATUS(nm, ok, "%s %s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "name")),
				       ok ? "serving" : "not accepting connections");
			}
		} else if (!strcmp(nm, "etcd")) {
			const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(inv, "etcd"),
									 "endpoints");
			char flag[600] = "--endpoints=";
			int i = 0, ok;
			cJSON_ArrayForEach(x, e)
				snprintf(flag + strlen(flag), sizeof(flag) - strlen(flag), "%s%s", i++ ? "," : "",
					 x->valuestring);
			ok = RUN(out, sizeof(out), 8000, "env", "ETCDCTL_API=3", "etcdctl", flag, "--dial-timeout=1s",
				 "--command-timeout=2s", "endpoint", "health") == 0;
			STATUS(nm, ok, "%s", ok ? "3 members healthy" : out);
		} else if (!strcmp(nm, "slurm")) {
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(inv, "slurm");
			const char *conf = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "conf"));
			char env[1200];
			snprintf(env, sizeof(env), "SLURM_CONF=%s", conf ? conf : "");
			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(s, "nodes")) {
				int ok = RUN(out, sizeof(out), 5000, "env", env, "scontrol", "-o", "show", "node",
					     x->valuestring) == 0 &&
					 !strstr(out, "DOWN") && !strstr(out, "NOT_RESPONDING");
				char *sf = strstr(out, "State=");
				STATUS(nm, ok, "%s %.*s", x->valuestring, sf ? (int)strcspn(sf, " ") : 60, sf ? sf : out);
			}
		} else if (!strcmp(nm, "sshd")) {
			const char *ssh = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(inv, "hosts"), "lab-ssh"),
				"ssh"));
			const char *c = ssh ? strrchr(ssh, ':') : NULL;
			int ok = c && tcp_ok("127.0.0.1", atoi(c + 1), 1000);
			STATUS(nm, ok, "%s %s", ssh ? ssh : "?", ok ? "accepting" : "not accepting connections");
		} else if (!strcmp(nm, "storage")) {
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(inv, "storage");
			const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "path"));
			int ok = path && access(path, W_OK) == 0;
			STATUS(nm, ok, "%s %s", path ? path : "?", ok ? "writable" : "missing");
		} else {
			STATUS(nm, 1, "%s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "detail")));
		}
	}
#undef STATUS
	return bad;
}

static cJSON *load_inventory(struct lab *L)
{
	char path[1100], *text = NULL;
	size_t len;
	struct gl_err e = { 0 };
	cJSON *inv;

	snprintf(path, sizeof(path), "%s/inventory.json", L->dir);
	if (gl_read_file(path, 1 << 20, &text, &len, &e) != 0)
		return NULL;
	inv = cJSON_ParseWithLength(text, len);
	free(text);
	if (inv) {
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(inv, "workers");
		L->workers = cJSON_IsArray(w) ? cJSON_GetArraySize(w) : L->workers;
	}
	return inv;
}

/* ---- agent: keeps one replica serving, stops it while its node is drained ----------------- */

static volatile sig_atomic_t agent_stop;
static void agent_sig(int s)
{
	(void)s;
	agent_stop = 1;
}

static int lab_agent(int argc, char **argv)
{
	const char *listen = NULL, *netns = NULL, *node = NULL;
	char self[PATH_MAX];
	pid_t child = -1;
	int drained = 0, restarts = 0;
	int64_t next_start = 0;
	ssize_t n;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--listen") && i + 1 < argc)
			listen = argv[++i];
		else if (!strcmp(argv[i], "--netns") && i + 1 < argc)
			netns = argv[++i];
		else if (!strcmp(argv[i], "--slurm-node") && i + 1 < argc)
			node = argv[++i];
		else {
			fprintf(stderr, "gauntlet lab agent: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!listen) {
		fprintf(stderr, "gauntlet lab agent: --listen ADDR is required\n");
		return 2;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return 4;
	self[n] = '\0';
	signal(SIGTERM, agent_sig);
	signal(SIGINT, agent_sig);
	while (!agent_stop) {
		int st;
		if (child > 0 && waitpid(child, &st, WNOHANG) == child) {
			printf("agent %s: replica pid %d ended (%s %d)%s\n", listen, (int)child,
			       WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
			       drained ? "" : "; restarting in 1 s");
			fflush(stdout);
			child = -1;
			next_start = gl_now_ns() + 1000000000LL;
		}
		if (node) {
			char out[4096];
			/* the node's state flags; an unreadable state changes nothing */
			if (RUN(out, sizeof(out), 3000, "scontrol", "-o", "show", "node", node) == 0) {
				char *s = strstr(out, "State=");
				int d = s && strstr(s, "DRAIN") && (size_t)(strstr(s, "DRAIN") - s) < strcspn(s, " ");
				if (d != drained) {
					printf("agent %s: node %s %s\n", listen, node,
					       d ? "drained: stopping the replica" : "resumed: starting the replica");
					fflush(stdout);
					drained = d;
					if (d && child > 0) {
						kill(child, SIGTERM);
						for (int i = 0; i < 50 && waitpid(child, NULL, WNOHANG) == 0; i++)
							sleep_ms(100);
						kill(child, SIGKILL);
						waitpid(child, NULL, 0);
						child = -1;
					}
					next_start = 0;
				}
			}
		}
		if (!drained && child < 0 && gl_now_ns() >= next_start) {
			const char *av[20];
			int k = 0;
			if (netns) {
				av[k++] = "ip";
				av[k++] = "netns";
				av[k++] = "exec";
				av[k++] = netns;
			}
			av[k++] = self;
			av[k++] = "target";
			av[k++] = "--listen";
			av[k++] = listen;
			av[k++] = "--ttft-ms";
			av[k++] = "30";
			av[k++] = "--itl-ms";
			av[k++] = "5";
			av[k++] = "--max-seqs";
			av[k++] = "512";
			av[k] = NULL;
			child = fork();
			if (child == 0) {
				signal(SIGTERM, SIG_DFL);
				signal(SIGINT, SIG_DFL);
				execvp(av[0], (char *const *)av);
				_exit(127);
			}
			printf("agent %s: replica started, pid %d%s\n", listen, (int)child, restarts++ ? " (restart)" : "");
			fflush(stdout);
		}
		sleep_ms(node ? 300 : 200);
	}
	if (child > 0) {
		kill(child, SIGTERM);
		for (int i = 0; i < 50 && waitpid(child, NULL, WNOHANG) == 0; i++)
			sleep_ms(100);
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return 0;
}

/* ---- entry ------------------------------------------------------------------------------------------- */

static int open_journal(struct lab *L, int create)
{
	L->jfd = open(L->journal, O_RDWR | O_APPEND | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
	if (L->jfd < 0)
		return -1;
	if (flock(L->jfd, LOCK_EX | LOCK_NB) != 0) {
		fprintf(stderr, "gauntlet lab: another `gauntlet lab` command holds %s; waiting\n", L->journal);
		if (flock(L->jfd, LOCK_EX) != 0)
			return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gauntlet lab up [--dir DIR] [--workers N]\n"
		"       gauntlet lab down [--dir DIR]\n"
		"       gauntlet lab status [--dir DIR]\n"
		"DIR defaults to $GL_LAB_DIR or " LAB_DIR_DEFAULT "; N (worker namespaces) to 2.\n"
		"up writes DIR/inventory.json, which scenarios name with \"inventory\".\n");
}

static int lab_up(struct lab *L)
{
	char p[1100];
	struct stat st;
	cJSON *inv;
	int bad;

	/* already up: healthy is done; unhealthy is reported, never rebuilt
	 * under a run that may be using it */
	if ((inv = load_inventory(L))) {
		say("a lab is already up in %s; checking it", L->dir);
		bad = lab_check(L, inv, 1);
		cJSON_Delete(inv);
		if (bad)
			say("%d check(s) failed: `gauntlet lab down` then `gauntlet lab up` rebuilds it", bad);
		else
			say("nothing to do; inventory %s/inventory.json", L->dir);
		return bad ? 1 : 0;
	}
	/* a journal without an inventory: an earlier up died halfway */
	if (access(L->journal, F_OK) == 0) {
		say("%s holds an unfinished lab (an earlier `lab up` stopped halfway): taking it down first", L->dir);
		if (open_journal(L, 0) != 0)
			return 4;
		if (lab_down(L, 0) != 0)
			return 4;
		close(L->jfd);
		L->jfd = -1;
	}
	if (stat(L->dir, &st) == 0) {
		DIR *d = opendir(L->dir);
		struct dirent *e;
		int n = 0;
		snprintf(p, sizeof(p), "%s/.gauntlet-lab", L->dir);
		while (d && (e = readdir(d)))
			n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
		if (d)
			closedir(d);
		if (n && access(p, F_OK) != 0) {
			fprintf(stderr, "gauntlet lab: %s exists and is not a lab directory: choose another --dir\n",
				L->dir);
			return 2;
		}
	}
	if (gl_mkdir_p(L->dir, 0700, NULL) != 0) {
		fprintf(stderr, "gauntlet lab: cannot make %s: %s\n", L->dir, strerror(errno));
		return 4;
	}
	snprintf(p, sizeof(p), "%s/.gauntlet-lab", L->dir);
	if (write_text(p, "a gauntlet lab directory: `gauntlet lab down` removes it\n", 0600) != 0 ||
	    open_journal(L, 1) != 0) {
		fprintf(stderr, "gauntlet lab: cannot write in %s: %s\n", L->dir, strerror(errno));
		return 4;
	}
	{
		unsigned char r[8];
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, r, sizeof(r)) != (ssize_t)sizeof(r)) {
			fprintf(stderr, "gauntlet lab: cannot read /dev/urandom\n");
			return 4;
		}
		close(fd);
		snprintf(L->id, sizeof(L->id), "gl-lab-%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4],
			 r[5], r[6], r[7]);
	}
	journal_add(L, "id\t%s", L->id);
	for (const char *sub = "logs\0etcd\0slurm\0ssh\0bin\0"; *sub; sub += strlen(sub) + 1) {
		snprintf(p, sizeof(p), "%s/%s", L->dir, sub);
		gl_mkdir_p(p, 0700, NULL);
	}
	L->inv = cJSON_CreateObject();
	cJSON_AddStringToObject(L->inv, "lab_id", L->id);
	cJSON_AddStringToObject(L->inv, "dir", L->dir);
	cJSON_AddStringToObject(L->inv, "gauntlet", L->self);
	cJSON_AddBoolToObject(L->inv, "root", L->root);
	L->parts = cJSON_AddObjectToObject(L->inv, "parts");
	say("building in %s (id %s)%s", L->dir, L->id, L->root ? "" : "; not root: some parts cannot be built");
	up_net(L);
	up_slurm(L);
	up_workers(L);
	up_etcd(L);
	up_sshd(L);
	up_storage(L);
	up_mpi(L);
	if (write_inventory(L) != 0)
		return 4;
	say("inventory: %s/inventory.json (%d part(s) not built)", L->dir, L->failed);
	return L->failed ? 1 : 0;
}

int gl_lab_main(int argc, char **argv)
{
	struct lab L = { .jfd = -1, .workers = 2 };
	const char *cmd, *dir = getenv("GL_LAB_DIR");
	ssize_t n;
	int rc = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "agent"))
		return lab_agent(argc - 2, argv + 2);
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--workers") && i + 1 < argc) {
			char *end;
			long w = strtol(argv[++i], &end, 10);
			if (*end || w < 1 || w > LAB_MAX_WORKERS) {
				fprintf(stderr, "gauntlet lab: --workers: expected 1 to %d, got '%s'\n", LAB_MAX_WORKERS,
					argv[i]);
				return 2;
			}
			L.workers = (int)w;
		} else {
			fprintf(stderr, "gauntlet lab: unknown argument '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (!dir || !*dir)
		dir = LAB_DIR_DEFAULT;
	if (dir[0] != '/' || strlen(dir) >= sizeof(L.dir) - 64 || !strcmp(dir, "/")) {
		fprintf(stderr, "gauntlet lab: --dir: expected an absolute path other than /, got '%s'\n", dir);
		return 2;
	}
	{
		char why[128];
		if (!lab_dir_ok(dir, why, sizeof(why))) {
			/* before anything is made: the directory reaches generated
			 * shell scripts, slurm.conf and sshd_config */
			struct gl_buf q;
			gl_buf_init(&q, 256);
			gl_buf_append_argv(&q, (const char *const[]){ dir, NULL });
			fprintf(stderr, "gauntlet lab: --dir %s: %s; a lab directory is an absolute path of letters, "
					"digits and / . _ + - (no component starting with '-', no '.' or '..')\n",
				q.data ? q.data : "", why);
			gl_buf_free(&q);
			return 2;
		}
	}
	snprintf(L.dir, sizeof(L.dir), "%s", dir);
	while (strlen(L.dir) > 1 && L.dir[strlen(L.dir) - 1] == '/')
		L.dir[strlen(L.dir) - 1] = '\0';
	snprintf(L.journal, sizeof(L.journal), "%s/lab.journal", L.dir);
	L.root = geteuid() == 0;
	if ((n = readlink("/proc/self/exe", L.self, sizeof(L.self) - 1)) <= 0) {
		fprintf(stderr, "gauntlet lab: cannot find this binary (/proc/self/exe)\n");
		return 4;
	}
	L.self[n] = '\0';
	signal(SIGPIPE, SIG_IGN);

	if (!strcmp(cmd, "up")) {
		rc = lab_up(&L);
	} else if (!strcmp(cmd, "down")) {
		if (access(L.journal, F_OK) != 0) {
			char mark[1100];
			snprintf(mark, sizeof(mark), "%s/.gauntlet-lab", L.dir);
			if (access(mark, F_OK) == 0) {
				nftw(L.dir, rm_cb, 32, FTW_DEPTH | FTW_PHYS);
				say("down: removed %s (it held no running lab)", L.dir);
			} else {
				say("down: no lab in %s; nothing to do", L.dir);
			}
			return 0;
		}
		if (open_journal(&L, 0) != 0) {
			fprintf(stderr, "gauntlet lab: cannot open %s: %s\n", L.journal, strerror(errno));
			return 4;
		}
		rc = lab_down(&L, 0) ? 1 : 0;
	} else if (!strcmp(cmd, "status")) {
		cJSON *inv = load_inventory(&L);
		if (!inv) {
			say("no lab in %s (%s)", L.dir,
			    access(L.journal, F_OK) == 0 ? "a journal but no inventory: `lab up` stopped halfway; "
							  "`gauntlet lab down` cleans it"
							: "`gauntlet lab up` builds one");
			return 3;
		}
		say("lab %s in %s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(inv, "lab_id")), L.dir);
		rc = lab_check(&L, inv, 1) ? 1 : 0;
		cJSON_Delete(inv);
	} else {
		fprintf(stderr, "gauntlet lab: unknown subcommand '%s'\n", cmd);
		usage(stderr);
		return 2;
	}
	cJSON_Delete(L.inv);
	if (L.jfd >= 0)
		close(L.jfd);
	return rc;
}
