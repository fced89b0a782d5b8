/*
 * stop.h - SIGINT and SIGTERM as a request to stop, for a process that
 * must end cleanly whatever it is doing when one comes (run, resume).
 *
 * gl_stop_install sets one handler for both signals (sigaction,
 * SA_RESTART) for the rest of the process's life. The handler records the
 * first signal (the request: sticky, never taken back; later signals do
 * not change it) and writes a byte to a pipe for each signal, so that
 * anything that waits can notice it: by reading gl_stop_requested() at
 * least once a second, or by polling gl_stop_fd() beside what it waits on
 * and then reading gl_stop_requested(). Only the event loop drains the
 * pipe (gl_stop_drain), so that a later signal wakes it again.
 *
 * What a request interrupts is chosen per thread: between
 * gl_stop_interruptible(1) and (0), the commands this thread runs through
 * a transport (gl_host_exec) end as soon as a stop is requested (a local
 * command's process group is killed, an ssh call stops waiting) and fail
 * with GL_ESTOPPED, and none starts any more. Everywhere else (a fault's
 * inject or revert, which must run to its end) a request changes nothing
 * until the code that owns the thread looks at it.
 */
#ifndef GL_STOP_H
#define GL_STOP_H

/* Install the handler (idempotent). 0, or -1 when the pipe cannot be made
 * (errno). */
int gl_stop_install(void);
/* 0 while no stop was requested, else the first signal (SIGINT, SIGTERM). */
int gl_stop_requested(void);
/* Readable once a signal came and until drained; -1 before
 * gl_stop_install. */
int gl_stop_fd(void);
/* Read what the pipe holds (the request stays). */
void gl_stop_drain(void);
/* "SIGINT", "SIGTERM" (another number: "a signal"). */
const char *gl_stop_name(int sig);
/* Whether commands this thread runs end on a stop request (see above). */
void gl_stop_interruptible(int on);
int gl_stop_is_interruptible(void);
/* The signal when this thread is interruptible and a stop was requested,
 * else 0: what a wait in an interruptible command checks. */
int gl_stop_interrupts(void);

#endif
