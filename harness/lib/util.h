/*
 * util.h - small pieces every part of gauntlet uses: the error buffer that
 * carries the first failure up to main, logging, the monotonic clock, and
 * bounded file reading.
 *
 * Error convention (see docs/architecture.md): functions return 0 or a
 * negative code and fill a caller-owned struct gl_err. The first error
 * written wins; later calls to gl_errf on the same buffer are ignored, so the
 * message a user sees names the root cause, not the last thing that unwound.
 */
#ifndef GL_UTIL_H
#define GL_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define GL_ERR_MSG_MAX 1024

/* Error codes, negated when returned. */
enum {
	GL_EINVAL = 1, /* bad input: scenario, flag, file content */
	GL_EIO = 2, /* system call or library failed */
	GL_ENOMEM = 3,
	GL_ESTATE = 4, /* the operation does not fit the current state */
	GL_ETIMEDOUT = 5,
	GL_ELIMIT = 6, /* a hard cap was reached */
	GL_ENOTFOUND = 7, /* a file named is not there */
	GL_ESTOPPED = 8, /* a stop request (SIGINT, SIGTERM) ended it (stop.h) */
};

struct gl_err {
	int code; /* 0 while no error was recorded */
	char msg[GL_ERR_MSG_MAX];
};

/* Record an error unless one is already recorded. Returns -code, so that
 * `return gl_errf(err, GL_EINVAL, "...")` reads naturally. err may be NULL. */
int gl_errf(struct gl_err *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void gl_err_clear(struct gl_err *err);

/* Logging to stderr with a level and a time in seconds: the run's elapsed
 * clock while a controller drives a run (gl_log_clock), else the time since
 * gl_log_init (the process's start). Thread-safe (one write(2) per line).
 * Secrets must never be passed here: callers log names of secrets (the env
 * variable), never values. */
enum gl_log_level { GL_LOG_DEBUG, GL_LOG_INFO, GL_LOG_WARN, GL_LOG_ERROR };
void gl_log_init(enum gl_log_level min_level);
void gl_log(enum gl_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, stamped t_ns (a time the caller also records elsewhere). */
void gl_log_at(enum gl_log_level lvl, int64_t t_ns, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* From now on log lines carry fn(arg), in ns (NULL: back to the time since
 * gl_log_init). fn is called from any thread that logs, until it is unset. */
void gl_log_clock(int64_t (*fn)(void *arg), void *arg);
/* The time the next log line would carry, in ns. */
int64_t gl_log_now_ns(void);
/* A progress line is on the terminal (stderr): log lines erase it first. */
void gl_log_progress_shown(int shown);
#define gl_info(...) gl_log(GL_LOG_INFO, __VA_ARGS__)
#define gl_warn(...) gl_log(GL_LOG_WARN, __VA_ARGS__)
#define gl_error(...) gl_log(GL_LOG_ERROR, __VA_ARGS__)
#define gl_debug(...) gl_log(GL_LOG_DEBUG, __VA_ARGS__)

/* CLOCK_MONOTONIC in nanoseconds; every interval in gauntlet uses it. */
int64_t gl_now_ns(void);
/* CLOCK_REALTIME in nanoseconds; only for timestamps shown to people. */
int64_t gl_wall_ns(void);
/* The clocks gl_now_ns and gl_wall_ns read: the system's (NULL, the
 * default), or another pair, e.g. the virtual time of `gauntlet simulate`
 * (docs/simulation.md), which moves only when its loop moves it. Set
 * while no other thread reads the time; clk must outlive its use. */
struct gl_clock {
	int64_t (*mono_ns)(void *arg);
	int64_t (*wall_ns)(void *arg);
	void *arg;
};
void gl_clock_use(const struct gl_clock *clk);
/* Sleep ns of real time (the system's clock, whatever gl_clock_use set):
 * one nanosleep, which a signal may end early, so that a loop that sleeps
 * between looks at its stop flag sooner; ns < 0 returns at once. */
void gl_sleep_ns(int64_t ns);
/* Format a wall time as RFC 3339 UTC ("2026-11-29T16:34:55.123Z"). */
void gl_format_wall(int64_t wall_ns, char *buf, size_t n);

/* Open path for reading only when it is a regular file: opened with
 * O_NONBLOCK (a FIFO with no writer would block open itself), then fstat;
 * a FIFO, socket, device or directory is refused naming what it is.
 * Returns the descriptor (blocking again, O_CLOEXEC) or a negative code
 * with err set. */
int gl_open_regular(const char *path, struct gl_err *err);
/* "a FIFO", "a directory", ... for st_mode. */
const char *gl_file_type_name(unsigned mode);

/* Read a whole file of at most max_bytes (a regular file, gl_open_regular).
 * *out is NUL-terminated and must be freed by the caller. Errors name the
 * path. */
int gl_read_file(const char *path, size_t max_bytes, char **out, size_t *out_len, struct gl_err *err);

/* Write a file atomically: a new temporary file beside PATH (created with
 * O_EXCL | O_NOFOLLOW through a descriptor of PATH's directory, so no link
 * planted there is ever followed), fsync, renameat over PATH. mode e.g.
 * 0644. */
int gl_write_file_atomic(const char *path, const void *data, size_t len, int mode, struct gl_err *err);

/* SHA-256 of a buffer as 64 lowercase hex characters plus NUL (sha256.c;
 * the incremental form is in sha256.h). */
void gl_sha256_hex(const void *data, size_t len, char out[65]);

/* 1 when data is strict UTF-8 (no overlong forms, surrogates, code points
 * past U+10FFFF or NUL bytes), else 0. */
int gl_utf8_valid(const void *data, size_t n);
/* 1 when s is 1..max characters, each alphanumeric or in extra, not
 * starting with '-' and holding no '/' or "..": the check for names that
 * reach commands (interfaces, netns, table names). */
int gl_word_ok(const char *s, const char *extra, size_t max);
/* 1 when s is the name of an environment variable as a scenario gives one
 * (a "*_env" key): 1..GL_ENV_NAME_MAX characters, each a letter, digit or
 * '_', the first not a digit; else 0 (NULL too). */
#define GL_ENV_NAME_MAX 128
int gl_env_name_ok(const char *s);

/* mkdir -p with the given mode. */
int gl_mkdir_p(const char *path, int mode, struct gl_err *err);

/* Trust checks for what another local user could have placed (gauntlet
 * runs as root on shared login nodes; docs/security.md).
 *
 * gl_path_trusted: PATH itself (never followed if a symbolic link) is a
 * directory (want_dir) or a regular file, owned by the effective user and
 * not writable by group or others. 0, or -GL_EINVAL with a message naming
 * the path, its owner and mode.
 *
 * gl_rundir_create: the directory a new run writes into. A missing PATH is
 * created 0700 (parents as mkdir -p); an existing one is taken only when it
 * is an empty directory that passes gl_path_trusted. */
int gl_path_trusted(const char *path, int want_dir, struct gl_err *err);
int gl_rundir_create(const char *path, struct gl_err *err);

/* Growable string with a hard cap (like curl's dynbuf): appends past cap
 * fail with -GL_ELIMIT and leave the buffer as it was. */
struct gl_buf {
	char *data;
	size_t len, cap, max;
	int cut; /* an append was refused: what the buffer shows is not whole */
};
void gl_buf_init(struct gl_buf *b, size_t max);
int gl_buf_append(struct gl_buf *b, const void *p, size_t n);
int gl_buf_printf(struct gl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gl_buf_free(struct gl_buf *b);

#define GL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
