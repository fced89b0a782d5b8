/*
 * child.h - processes a workload starts (the training launcher, fio) and
 * what keeps them from outliving the controller that started them.
 *
 * A SIGKILLed controller runs no clean-up, so two things stand in for it:
 *
 *   1. Fast path, at the moment of death: the child asks the kernel for
 *      SIGKILL when its parent dies (PR_SET_PDEATHSIG). The signal follows
 *      the *thread* that forked, so children are forked on the controller's
 *      event-loop thread, which lives as long as the process (plugin.h).
 *      It reaches the child only: the launcher passes it on by its own
 *      means (gauntlet-train asks for the same signal when its mpirun or
 *      orted dies), and a launcher that moves its job out of reach (a
 *      wrapper that starts it in a session of its own) defeats it.
 *
 *   2. Safety net, on `resume`: the child carries GAUNTLET_RUN_ID=<run id>
 *      in its environment, inherited by what it starts (mpirun passes its
 *      environment to the ranks it starts locally), and its pid, process
 *      group, start time (/proc/PID/stat field 22) and boot id are in the
 *      run store (table children) before it may exec: the child waits on
 *      a gate until the row is committed. Resume stops, before it
 *      relaunches anything, every recorded launcher still alive with the
 *      same start time and boot (its whole process group) and every
 *      process carrying the mark (SIGTERM and SIGCONT, up to 5 s, then
 *      SIGKILL, then checks they are gone); a pid reused by another
 *      process never matches. The end of every run sweeps the mark too.
 *
 * Both see this host only: ranks on other hosts go with their orted when
 * mpirun's connection to it drops.
 */
#ifndef GL_CHILD_H
#define GL_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define GL_CHILD_MARK "GAUNTLET_RUN_ID"

/* The gate a child waits on before exec (a pipe). */
struct gl_child_gate {
	int fd[2];
	pid_t parent;
};

/* Parent, before fork. Returns 0 or -1 (errno). */
int gl_child_gate_open(struct gl_child_gate *g);
/* Child, right after fork: die with the parent (SIGKILL), then wait until
 * the parent opens the gate. Returns 0, or -1 when the parent is gone or
 * closed the gate without opening it: the child must _exit at once. */
int gl_child_gate_wait(struct gl_child_gate *g);
/* Child, right after fork, the usual start: a process group of its own,
 * gl_child_gate_wait, stdin from /dev/null, stdout and stderr to out_fd,
 * every other descriptor closed.
 * Returns 0, or -1 when the child must _exit at once. */
int gl_child_enter(struct gl_child_gate *g, int out_fd);
/* Parent, after fork: let the child go on (open 1) or make it exit (0). */
void gl_child_gate_release(struct gl_child_gate *g, int open);
/* Parent, when fork failed. */
void gl_child_gate_close(struct gl_child_gate *g);

/* What /proc says about a process. */
struct gl_proc_info {
	char state; /* 'R', 'S', 'T', 'Z', ... */
	pid_t ppid, pgid;
	uint64_t start_ticks; /* field 22: clock ticks after boot */
};
/* 0, or -1 when there is no such process. */
int gl_proc_info(pid_t pid, struct gl_proc_info *out);
/* This boot's id (/proc/sys/kernel/random/boot_id), "" when unknown. */
void gl_proc_boot_id(char *out, size_t n);
/* Does pid's environment hold the entry "KEY=VALUE" exactly? */
int gl_proc_has_env(pid_t pid, const char *entry);
/* Its command line, arguments joined by spaces, cut to n. */
void gl_proc_cmdline(pid_t pid, char *out, size_t n);

/* One process found to stop. */
struct gl_leftover {
	pid_t pid;
	int group; /* a recorded launcher: its whole group */
	uint64_t start_ticks;
	char cmd[160];
};

/* The processes of run run_id still alive on this host: the recorded
 * launchers given (pid, start ticks; boot ids checked by the caller) that
 * still run with the same start time, and every process whose environment
 * carries GAUNTLET_RUN_ID=run_id, except this process and its ancestors.
 * *scanned is 0 when the mark could not be used (this process carries it
 * itself). Returns the count (at most max). */
int gl_leftovers_find(const char *run_id, const pid_t *pids, const uint64_t *ticks, int n_rec, struct gl_leftover *out,
		      int max, int *scanned);
/* Stop them: SIGTERM and SIGCONT (to the group of a recorded launcher),
 * up to grace_ms for all to be gone, SIGKILL to those left, up to 2 s more.
 * Sets killed[i] to 1 for each that needed SIGKILL. Returns how many are
 * still alive (0 on success). */
int gl_leftovers_stop(struct gl_leftover *l, int n, int grace_ms, int *killed);

#endif
