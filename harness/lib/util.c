/*
 * util.c - error buffer, logging, clocks, bounded file I/O, SHA-256 and a
 * capped growable buffer. Nothing here knows about scenarios or runs.
 */
#include "util.h"

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int gl_errf(struct gl_err *err, int code, const char *fmt, ...)
{
	if (code <= 0)
		code = GL_EINVAL;
	if (err && err->code == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return -code;
}

void gl_err_clear(struct gl_err *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

static enum gl_log_level log_min = GL_LOG_INFO;
static int64_t log_t0;
static volatile int log_over_progress;
/* The run's elapsed clock, while a controller drives a run (gl_log_clock). */
static int64_t (*log_clock_fn)(void *arg);
static void *log_clock_arg;

void gl_log_progress_shown(int shown)
{
	log_over_progress = shown;
}

void gl_log_init(enum gl_log_level min_level)
{
	log_min = min_level;
	log_t0 = gl_now_ns();
}

void gl_log_clock(int64_t (*fn)(void *arg), void *arg)
{
	if (fn)
		__atomic_store_n(&log_clock_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&log_clock_fn, fn, __ATOMIC_RELEASE);
}

int64_t gl_log_now_ns(void)
{
	int64_t (*fn)(void *) = __atomic_load_n(&log_clock_fn, __ATOMIC_ACQUIRE);

	if (fn)
		return fn(__atomic_load_n(&log_clock_arg, __ATOMIC_RELAXED));
	if (!log_t0)
		log_t0 = gl_now_ns();
	return gl_now_ns() - log_t0;
}

static void log_v(enum gl_log_level lvl, int64_t t_ns, const char *fmt, va_list ap)
{
	static const char *names[] = { "debug", "info", "warn", "error" };
	char line[2400], msg[2048];
	int n, m;

	/* over a progress line on a terminal: erase it first (it is drawn
	 * again within a second) */
	n = snprintf(line, sizeof(line), "%s[%9.3f] %-5s ", log_over_progress ? "\r\033[K" : "", (double)t_ns / 1e9,
		     names[lvl]);
	m = vsnprintf(msg, sizeof(msg), fmt, ap);
	/* One line per call, whatever the message holds: control characters
	 * (a newline, CR, an escape sequence from a name or a peer's reply)
	 * are shown as \xHH, never written raw; a cut is said. */
	for (const char *q = msg; *q && n < (int)sizeof(line) - 24; q++) {
		unsigned char u = (unsigned char)*q;
		if (u < 0x20 || u == 0x7f)
			n += snprintf(line + n, sizeof(line) - (size_t)n, "\\x%02x", u);
		else
			line[n++] = (char)u;
	}
	if (m >= (int)sizeof(msg) || n >= (int)sizeof(line) - 24)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " [cut]");
	line[n++] = '\n';
	/* One write per line so lines from threads never interleave. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* nowhere left to report it */
	}
}

void gl_log(enum gl_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (lvl < log_min)
		return;
	va_start(ap, fmt);
	log_v(lvl, gl_log_now_ns(), fmt, ap);
	va_end(ap);
}

void gl_log_at(enum gl_log_level lvl, int64_t t_ns, const char *fmt, ...)
{
	va_list ap;

	if (lvl < log_min)
		return;
	va_start(ap, fmt);
	log_v(lvl, t_ns, fmt, ap);
	va_end(ap);
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The clocks in force: the system's, or a simulation's (gl_clock_use). */
static const struct gl_clock *clock_in_force;

void gl_clock_use(const struct gl_clock *clk)
{
	clock_in_force = clk;
}

int64_t gl_now_ns(void)
{
	const struct gl_clock *k = clock_in_force;
	return k ? k->mono_ns(k->arg) : clock_ns(CLOCK_MONOTONIC);
}

int64_t gl_wall_ns(void)
{
	const struct gl_clock *k = clock_in_force;
	return k ? k->wall_ns(k->arg) : clock_ns(CLOCK_REALTIME);
}

void gl_sleep_ns(int64_t ns)
{
	struct timespec ts;

	if (ns < 0)
		return;
	ts.tv_sec = (time_t)(ns / 1000000000LL);
	ts.tv_nsec = (long)(ns % 1000000000LL);
	nanosleep(&ts, NULL);
}

void gl_format_wall(int64_t wall_ns, char *buf, size_t n)
{
	time_t s = (time_t)(wall_ns / 1000000000LL);
	struct tm tm;
	char tmp[32];

	gmtime_r(&s, &tm);
	strftime(tmp, sizeof(tmp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03dZ", tmp, (int)((wall_ns / 1000000) % 1000));
}

const char *gl_file_type_name(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFLNK: return "a symbolic link";
	default: return "not a regular file";
	}
}

int gl_open_regular(const char *path, struct gl_err *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), fl;

	if (fd < 0)
		return gl_errf(err, GL_EIO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return gl_errf(err, GL_EIO, "%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return gl_errf(err, GL_EINVAL, "%s: is %s, expected a regular file", path,
			       gl_file_type_name(st.st_mode));
	}
	if ((fl = fcntl(fd, F_GETFL)) >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int gl_read_file(const char *path, size_t max_bytes, char **out, size_t *out_len, struct gl_err *err)
{
	int fd = -1, rc = 0;
	char *data = NULL;
	size_t len = 0, cap = 0;

	*out = NULL;
	if (out_len)
		*out_len = 0;
	fd = gl_open_regular(path, err);
	if (fd < 0) {
		rc = fd;
		goto out;
	}
	for (;;) {
		ssize_t r;
		if (len + 1 >= cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nd;
			if (ncap > max_bytes + 1)
				ncap = max_bytes + 1;
			if (ncap <= len + 1) {
				rc = gl_errf(err, GL_ELIMIT, "%s: larger than the %zu-byte limit", path, max_bytes);
				goto out;
			}
			nd = realloc(data, ncap);
			if (!nd) {
				rc = gl_errf(err, GL_ENOMEM, "%s: out of memory", path);
				goto out;
			}
			data = nd;
			cap = ncap;
		}
		r = read(fd, data + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = gl_errf(err, GL_EIO, "%s: read failed: %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	if (!data && !(data = malloc(1))) {
		rc = gl_errf(err, GL_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	data[len] = '\0';
	*out = data;
	data = NULL;
	if (out_len)
		*out_len = len;
out:
	free(data);
	if (fd >= 0)
		close(fd);
	return rc;
}

int gl_write_file_atomic(const char *path, const void *data, size_t len, int mode, struct gl_err *err)
{
	char dir[4096], tmp[300];
	const char *base = strrchr(path, '/'), *p = data;
	int dfd, fd = -1, rc = 0;

	if (strlen(path) >= sizeof(dir))
		return gl_errf(err, GL_EINVAL, "%s: path too long", path);
	if (base) {
		size_t n = (size_t)(base - path);
		memcpy(dir, path, n ? n : 1);
		dir[n ? n : 1] = '\0';
		base++;
	} else {
		snprintf(dir, sizeof(dir), ".");
		base = path;
	}
	if (!*base || strlen(base) > 200)
		return gl_errf(err, GL_EINVAL, "%s: bad file name", path);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return gl_errf(err, GL_EIO, "%s: cannot open its directory: %s", path, strerror(errno));
	/* A fresh name each try: a leftover or planted file is never reused. */
	for (int tries = 0; fd < 0 && tries < 16; tries++) {
		snprintf(tmp, sizeof(tmp), ".%s.%08lx.tmp", base,
			 (unsigned long)((uint64_t)gl_now_ns() * 2654435761u ^ (uint64_t)getpid() << 16 ^
					 (uint64_t)tries) &
				 0xffffffffUL);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST) {
			rc = gl_errf(err, GL_EIO, "%s/%s: cannot create: %s", dir, tmp, strerror(errno));
			close(dfd);
			return rc;
		}
	}
	if (fd < 0) {
		close(dfd);
		return gl_errf(err, GL_EIO, "%s: no free temporary name beside it", path);
	}
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = gl_errf(err, GL_EIO, "%s/%s: write failed: %s", dir, tmp, strerror(errno));
			break;
		}
		p += w;
		len -= (size_t)w;
	}
	if (rc == 0 && fsync(fd) != 0)
		rc = gl_errf(err, GL_EIO, "%s/%s: fsync failed: %s", dir, tmp, strerror(errno));
	close(fd);
	/* renameat replaces PATH's directory entry: a link there is replaced,
	 * not followed. */
	if (rc == 0 && renameat(dfd, tmp, dfd, base) != 0)
		rc = gl_errf(err, GL_EIO, "%s: rename failed: %s", path, strerror(errno));
	if (rc != 0)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	return rc;
}

static void owner_name(uid_t uid, char *buf, size_t n)
{
	struct passwd pw, *res = NULL;
	char sbuf[1024];

	if (getpwuid_r(uid, &pw, sbuf, sizeof(sbuf), &res) == 0 && res)
		snprintf(buf, n, "%s (uid %u)", res->pw_name, (unsigned)uid);
	else
		snprintf(buf, n, "uid %u", (unsigned)uid);
}

static int stat_trusted(const char *path, const struct stat *st, int want_dir, struct gl_err *err)
{
	char who[300], me[300];

	if (S_ISLNK(st->st_mode))
		return gl_errf(err, GL_EINVAL,
			       "%s: is a symbolic link: refusing to follow it (another user could have "
			       "placed it; give the real path)",
			       path);
	if (want_dir && !S_ISDIR(st->st_mode))
		return gl_errf(err, GL_EINVAL, "%s: not a directory", path);
	if (!want_dir && !S_ISREG(st->st_mode))
		return gl_errf(err, GL_EINVAL, "%s: not a regular file", path);
	if (st->st_uid != geteuid()) {
		owner_name(st->st_uid, who, sizeof(who));
		owner_name(geteuid(), me, sizeof(me));
		return gl_errf(err, GL_EINVAL,
			       "%s: owned by %s, mode %04o, not by %s who runs gauntlet: refusing %s "
			       "another user could have written",
			       path, who, (unsigned)(st->st_mode & 07777), me, want_dir ? "a directory" : "a file");
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		owner_name(st->st_uid, who, sizeof(who));
		return gl_errf(err, GL_EINVAL,
			       "%s: owned by %s, mode %04o: group or others can write it: refusing "
			       "(chmod go-w it if you trust what is in it)",
			       path, who, (unsigned)(st->st_mode & 07777));
	}
	return 0;
}

int gl_path_trusted(const char *path, int want_dir, struct gl_err *err)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return gl_errf(err, GL_EINVAL, "%s: %s", path, strerror(errno));
	return stat_trusted(path, &st, want_dir, err);
}

int gl_rundir_create(const char *path, struct gl_err *err)
{
	struct stat st;
	char parent[4096];
	const char *slash = strrchr(path, '/');
	DIR *d;
	struct dirent *e;
	int n = 0;

	if (!*path || strlen(path) >= sizeof(parent))
		return gl_errf(err, GL_EINVAL, "bad run directory '%s'", path);
	if (slash && slash != path) {
		memcpy(parent, path, (size_t)(slash - path));
		parent[slash - path] = '\0';
		if (gl_mkdir_p(parent, 0700, err) != 0)
			return -GL_EIO;
	}
	if (mkdir(path, 0700) == 0)
		return 0; /* made here: nobody else has had it */
	if (errno != EEXIST)
		return gl_errf(err, GL_EIO, "%s: mkdir failed: %s", path, strerror(errno));
	if (lstat(path, &st) != 0)
		return gl_errf(err, GL_EIO, "%s: %s", path, strerror(errno));
	if (stat_trusted(path, &st, 1, err))
		return -GL_EINVAL; /* a link, not ours, or writable by others */
	if (!(d = opendir(path)))
		return gl_errf(err, GL_EIO, "%s: %s", path, strerror(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	if (n)
		return gl_errf(err, GL_EINVAL,
			       "%s: exists and is not empty (%d entr%s): a run starts in a new or empty "
			       "directory (use resume to continue a run)",
			       path, n, n == 1 ? "y" : "ies");
	if (chmod(path, 0700) != 0)
		return gl_errf(err, GL_EIO, "%s: chmod 0700: %s", path, strerror(errno));
	return 0;
}

int gl_mkdir_p(const char *path, int mode, struct gl_err *err)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return gl_errf(err, GL_EINVAL, "bad directory path '%s'", path);
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST)
			return gl_errf(err, GL_EIO, "%s: mkdir failed: %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST)
		return gl_errf(err, GL_EIO, "%s: mkdir failed: %s", buf, strerror(errno));
	return 0;
}

void gl_buf_init(struct gl_buf *b, size_t max)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->max = max;
	b->cut = 0;
}

int gl_buf_append(struct gl_buf *b, const void *p, size_t n)
{
	if (n > b->max || b->len + n > b->max) {
		b->cut = 1;
		return -GL_ELIMIT;
	}
	if (b->len + n + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;
		char *nd;
		while (ncap < b->len + n + 1)
			ncap *= 2;
		if (ncap > b->max + 1)
			ncap = b->max + 1;
		nd = realloc(b->data, ncap);
		if (!nd) {
			b->cut = 1;
			return -GL_ENOMEM;
		}
		b->data = nd;
		b->cap = ncap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int gl_buf_printf(struct gl_buf *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -GL_EINVAL;
	if ((size_t)n < sizeof(small))
		return gl_buf_append(b, small, (size_t)n);
	{
		char *big = malloc((size_t)n + 1);
		if (!big)
			return -GL_ENOMEM;
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		rc = gl_buf_append(b, big, (size_t)n);
		free(big);
	}
	return rc;
}

void gl_buf_free(struct gl_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* Strict UTF-8: no overlongs, surrogates, code points past U+10FFFF, NUL. */
int gl_utf8_valid(const void *data, size_t n)
{
	const unsigned char *s = data;
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i];
		size_t k;
		unsigned cp, min;

		if (c == 0)
			return 0;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF) {
			k = 1;
			cp = c & 0x1F;
			min = 0x80;
		} else if (c >= 0xE0 && c <= 0xEF) {
			k = 2;
			cp = c & 0x0F;
			min = 0x800;
		} else if (c >= 0xF0 && c <= 0xF4) {
			k = 3;
			cp = c & 0x07;
			min = 0x10000;
		} else {
			return 0;
		}
		if (n - i <= k)
			return 0;
		for (size_t j = 1; j <= k; j++) {
			unsigned cc = s[i + j];
			if ((cc & 0xC0) != 0x80)
				return 0;
			cp = (cp << 6) | (cc & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return 0;
		i += k + 1;
	}
	return 1;
}

int gl_env_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > GL_ENV_NAME_MAX || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_'))
			return 0;
	return 1;
}

int gl_word_ok(const char *s, const char *extra, size_t max)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > max)
		return 0;
	/* never an option to the command it reaches, nor a path out of a
	 * directory (ip netns NAME is /run/netns/NAME) */
	if (s[0] == '-' || strchr(s, '/') || strstr(s, ".."))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr(extra, s[i]))
			return 0;
	return 1;
}
