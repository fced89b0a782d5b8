/*
 * stop.c - SIGINT and SIGTERM as a sticky request to stop (stop.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "stop.h"

static volatile sig_atomic_t requested;
static int wake[2] = { -1, -1 };
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static __thread int interruptible;

static void on_signal(int sig)
{
	int e = errno;

	if (!requested)
		requested = sig;
	if (wake[1] >= 0 && write(wake[1], "s", 1) < 0) {
		/* full: readable anyway */
	}
	errno = e;
}

int gl_stop_install(void)
{
	struct sigaction sa;
	int rc = 0;

	pthread_mutex_lock(&mu);
	if (wake[0] < 0) {
		if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
			wake[0] = wake[1] = -1;
			rc = -1;
		} else {
			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = on_signal;
			sigemptyset(&sa.sa_mask);
			sa.sa_flags = SA_RESTART;
			if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0)
				rc = -1;
		}
	}
	pthread_mutex_unlock(&mu);
	return rc;
}

int gl_stop_requested(void)
{
	return requested;
}

int gl_stop_fd(void)
{
	return wake[0];
}

void gl_stop_drain(void)
{
	char buf[64];

	while (wake[0] >= 0 && read(wake[0], buf, sizeof(buf)) > 0)
		;
}

const char *gl_stop_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

void gl_stop_interruptible(int on)
{
	interruptible = on;
}

int gl_stop_is_interruptible(void)
{
	return interruptible;
}

int gl_stop_interrupts(void)
{
	return interruptible ? requested : 0;
}
