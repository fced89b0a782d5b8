/*
 * transport_ssh_cmd.c - what the ssh transport sends and reads back around
 * a command: the quoted command line under timeout(1), and the number of
 * the signal the server names as the one that ended it.
 */
#include <signal.h>
#include <string.h>

#include "transport_ssh_int.h"

/* 'it'\''s': each word single-quoted for a POSIX shell. */
static int append_quoted(struct gl_buf *b, const char *s)
{
	int rc = gl_buf_append(b, "'", 1);

	for (const char *p = s; rc == 0 && *p; p++)
		rc = *p == '\'' ? gl_buf_append(b, "'\\''", 4) : gl_buf_append(b, p, 1);
	if (rc == 0)
		rc = gl_buf_append(b, "'", 1);
	return rc;
}

/* if the remote has timeout(1), it kills the command (its process group)
 * shortly after our deadline, since closing the session alone does not. */
int gl_ssh_command_line(const char *const *argv, int64_t left_ms, struct gl_buf *b)
{
	long long secs = (left_ms + 999) / 1000 + 1;
	int rc = gl_buf_printf(b, "if command -v timeout >/dev/null 2>&1; then exec timeout -s KILL %lld", secs);

	for (int i = 0; rc == 0 && argv[i]; i++)
		rc = gl_buf_append(b, " ", 1) == 0 ? append_quoted(b, argv[i]) : -GL_ELIMIT;
	if (rc == 0)
		rc = gl_buf_printf(b, "; else exec");
	for (int i = 0; rc == 0 && argv[i]; i++)
		rc = gl_buf_append(b, " ", 1) == 0 ? append_quoted(b, argv[i]) : -GL_ELIMIT;
	if (rc == 0)
		rc = gl_buf_printf(b, "; fi");
	return rc;
}

int gl_ssh_signal_number(const char *name)
{
	static const struct {
		const char *name;
		int sig;
	} tab[] = {
		{ "ABRT", SIGABRT }, { "ALRM", SIGALRM }, { "BUS", SIGBUS },   { "FPE", SIGFPE },   { "HUP", SIGHUP },
		{ "ILL", SIGILL },   { "INT", SIGINT },   { "KILL", SIGKILL }, { "PIPE", SIGPIPE }, { "QUIT", SIGQUIT },
		{ "SEGV", SIGSEGV }, { "TERM", SIGTERM }, { "TRAP", SIGTRAP }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 },
		{ "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ }, { "SYS", SIGSYS },
	};

	for (size_t i = 0; i < GL_ARRAY_LEN(tab); i++)
		if (!strcmp(tab[i].name, name))
			return tab[i].sig;
	return -1;
}
