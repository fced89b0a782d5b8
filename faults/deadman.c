/*
 * deadman.c - see deadman.h.
 */
#include "deadman.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int gl_ifname_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > 15 || s[0] == '-' || !strcmp(s, ".") || strstr(s, ".."))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.:-", s[i]))
			return 0;
	return 1;
}

void gl_file_safe_id(const char *id, char *out, size_t n)
{
	size_t i = 0;
	for (; id[i] && i + 1 < n; i++)
		out[i] = isalnum((unsigned char)id[i]) || strchr("_.-", id[i]) ? id[i] : '_';
	out[i] = '\0';
}

static void nonce_hex(char *out, size_t n)
{
	unsigned char r[4] = { 0 };
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	uint64_t t = (uint64_t)gl_now_ns() ^ ((uint64_t)getpid() << 32);

	if (fd < 0 || read(fd, r, sizeof(r)) != (ssize_t)sizeof(r))
		memcpy(r, &t, sizeof(r));
	if (fd >= 0)
		close(fd);
	snprintf(out, n, "%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
}

void gl_deadman_pid_file(char *out, size_t n, const char *kind, const char *id)
{
	char safe[128], nonce[16];

	gl_file_safe_id(id, safe, sizeof(safe));
	nonce_hex(nonce, sizeof(nonce));
	snprintf(out, n, "%s/%s.%s.%s.pid", GL_DEADMAN_DIR, kind, safe, nonce);
}

int gl_deadman_pid_file_ok(const char *path, const char *kind, size_t n)
{
	char prefix[96];
	size_t k;

	snprintf(prefix, sizeof(prefix), "%s/%s.", GL_DEADMAN_DIR, kind);
	k = strlen(prefix);
	return path && strlen(path) < n && !strncmp(path, prefix, k) && gl_word_ok(path + k, "_.-", n - 1);
}

void gl_deadman_sleep_arg(int64_t us, double scale, char *out, size_t n)
{
	double s = (double)us / 1e6 / (scale > 0 ? scale : 1);
	if (us > 0 && s < 0.001)
		s = 0.001;
	snprintf(out, n, "%.3f", s);
}

int gl_deadman_inject_script(char *out, size_t n, const struct gl_deadman *d)
{
	/* The loop (inner script) holds only double quotes, so it sits
	 * inside single quotes as setsid's argument. */
	return snprintf(out, n,
			"set -e; mkdir -p %s; %s; "
			"setsid sh -c 'trap \"%s; rm -f %s; exit 0\" TERM INT HUP; "
			"echo \"start $(date +%%s.%%N)\" >%s.rec; "
			"echo $$ >%s; i=1; while :; do sleep %s; %s; "
			"[ $i -ge %ld ] && break; sleep %s; %s; i=$((i+1)); done; "
			"echo \"end $(date +%%s.%%N)\" >>%s.rec; "
			"rm -f %s' </dev/null >/dev/null 2>&1 & "
			"i=0; while [ ! -s %s ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; "
			"[ -s %s ] || { echo \"the %s did not start (no pid in %s)\" >&2; exit 1; }",
			GL_DEADMAN_DIR, d->down_cmd, d->up_cmd, d->pid_file, d->pid_file, d->pid_file, d->down_s,
			d->up_cmd, d->count, d->up_s, d->down_cmd, d->pid_file, d->pid_file, d->pid_file, d->pid_file,
			d->what, d->pid_file);
}

/* The shell function that says whether pid $1 still runs the loop: its
 * command line names the pid file (a reused pid would not). A zombie has
 * an empty command line, so it counts as gone. Sets p to the live pid. */
static int alive_fn(char *out, size_t n, const struct gl_deadman *d)
{
	int k = snprintf(out, n,
			 "alive() { tr \"\\0\" \" \" <\"/proc/$1/cmdline\" 2>/dev/null | grep -qF \"%s\"; }; "
			 "p=$(cat \"%s\" 2>/dev/null); case \"$p\" in \"\"|*[!0-9]*) p=;; esac; "
			 "if [ -n \"$p\" ] && ! alive \"$p\"; then p=; fi; ",
			 d->pid_file, d->pid_file);
	return k < 0 || (size_t)k >= n ? (int)n - 1 : k;
}

int gl_deadman_alive_script(char *out, size_t n, const struct gl_deadman *d)
{
	int k = alive_fn(out, n, d);
	return k + snprintf(out + k, n - (size_t)k, "[ -n \"$p\" ] && echo \"%s pid $p\"", d->what);
}

int gl_deadman_ended_script(char *out, size_t n, const struct gl_deadman *d)
{
	int k = alive_fn(out, n, d);
	return k + snprintf(out + k, n - (size_t)k,
			    "if [ -z \"$p\" ] && grep -q \"^end \" \"%s.rec\" 2>/dev/null; then echo \"%s ended by "
			    "itself\"; "
			    "else exit 1; fi",
			    d->pid_file, d->what);
}

int gl_deadman_revert_script(char *out, size_t n, const struct gl_deadman *d)
{
	int k = alive_fn(out, n, d);
	return k + snprintf(out + k, n - (size_t)k,
			    "if [ -n \"$p\" ]; then kill -TERM -\"$p\" 2>/dev/null || kill -TERM \"$p\" 2>/dev/null; "
			    "i=0; while alive \"$p\" && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; "
			    "if alive \"$p\"; then kill -KILL -\"$p\" 2>/dev/null; fi; fi; "
			    "rm -f \"%s\"; "
			    "if [ -f \"%s.rec\" ]; then echo \"loop record: $(tr \"\\n\" \" \" <\"%s.rec\")\"; rm -f "
			    "\"%s.rec\"; fi; %s",
			    d->pid_file, d->pid_file, d->pid_file, d->pid_file, d->up_cmd);
}

int gl_deadman_record(const char *out, double *ended_s)
{
	const char *r = out ? strstr(out, "loop record: ") : NULL;
	double a = 0, b = 0;

	if (!r || sscanf(r + 13, "start %lf end %lf", &a, &b) != 2 || b < a)
		return 0;
	*ended_s = b - a;
	return 1;
}

int gl_link_is_up(const char *out)
{
	const char *lt = strchr(out, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	char flags[256];

	if (!lt || !gt || (size_t)(gt - lt) >= sizeof(flags))
		return -1;
	snprintf(flags, sizeof(flags), ",%.*s,", (int)(gt - lt - 1), lt + 1);
	return strstr(flags, ",UP,") != NULL;
}

int gl_no_such_device(const char *out)
{
	return strstr(out, "Cannot find device") || strstr(out, "does not exist");
}
