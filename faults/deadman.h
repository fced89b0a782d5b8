/*
 * deadman.h - the dead-man's switch that link_flap (method ip) and
 * fabric_port share (docs/faults.md): inject takes a link or port down,
 * then starts a detached loop on the target (setsid: its own session, no
 * tie to the controller) that brings it up again when the fault's time is
 * up, even when the controller was SIGKILLed and nobody runs `gauntlet
 * revert`. The loop writes its pid into a pid file the plan names
 * (GL_DEADMAN_DIR/KIND.ID.NONCE.pid); TERM, INT or HUP sent to it bring
 * the link up as well. revert kills the loop's process group (only when
 * that pid still runs the loop: its command line names the pid file),
 * waits for it to end, removes the pid file and runs the up command.
 *
 * The loop keeps a record next to its pid file (PIDFILE.rec): "start T"
 * as it starts (right after the inject took the link down) and "end T"
 * when it ended by itself (T: `date +%s.%N` on the target); a loop stopped
 * by a signal writes no end. revert prints it ("loop record: start T0 end
 * T1") and removes it: what the loop did while no controller watched is
 * known from what it wrote, not from when the controller came back.
 *
 * The scripts are sh text: the down and up commands must hold no quotes
 * of either kind (they sit inside a double-quoted trap inside a
 * single-quoted setsid argument), only validated values.
 */
#ifndef GL_FAULT_DEADMAN_H
#define GL_FAULT_DEADMAN_H

#include <stddef.h>
#include <stdint.h>

#define GL_DEADMAN_DIR "/run/gauntlet"

/* Interface names as the kernel allows them, minus anything a shell or a
 * command line could read as more than a name: 1-15 characters of
 * [A-Za-z0-9_.:-], not starting with '-', not "." or holding "..". */
int gl_ifname_ok(const char *s);
/* id with every character outside [A-Za-z0-9_.-] made '_' (names, paths). */
void gl_file_safe_id(const char *id, char *out, size_t n);

/* A fresh pid file name: GL_DEADMAN_DIR/KIND.ID.NONCE.pid (ID file-safe,
 * NONCE 8 random hex digits, so two runs never share one). */
void gl_deadman_pid_file(char *out, size_t n, const char *kind, const char *id);
/* 1 when path is GL_DEADMAN_DIR/KIND.NAME, NAME of [A-Za-z0-9_.-] only
 * (it stays in its directory), fitting in n bytes. */
int gl_deadman_pid_file_ok(const char *path, const char *kind, size_t n);
/* Seconds for sleep(1), real time: scenario time us divided by scale. */
void gl_deadman_sleep_arg(int64_t us, double scale, char *out, size_t n);

struct gl_deadman {
	const char *pid_file;
	const char *down_cmd, *up_cmd; /* no quotes of either kind */
	const char *what; /* "flap loop": for messages */
	const char *down_s, *up_s; /* sleep(1) arguments */
	long count; /* down/up cycles (1: down once) */
};

/* inject: the down command now, then the loop: sleep down_s, up; after
 * count cycles stop, else sleep up_s, down, ... Waits (5 s at most) for
 * the loop's pid file. Returns the script's length (>= n: cut). */
int gl_deadman_inject_script(char *out, size_t n, const struct gl_deadman *d);
/* Exits 0 (printing "WHAT pid P") when the loop runs, 1 when not. */
int gl_deadman_alive_script(char *out, size_t n, const struct gl_deadman *d);
/* Exits 0 (printing "WHAT ended by itself") when the loop no longer runs
 * and its record holds its end, 1 when not. */
int gl_deadman_ended_script(char *out, size_t n, const struct gl_deadman *d);
/* Stop the loop (TERM to its group, KILL after 5 s), remove the pid file,
 * print and remove the loop's record, run the up command; exits with the
 * up command's status. */
int gl_deadman_revert_script(char *out, size_t n, const struct gl_deadman *d);
/* From a revert's output: 1 and *ended_s (seconds from the loop's start,
 * at the inject, to its own end, on the target's clock) when the loop
 * ended by itself; 0 when it did not (stopped by the revert, or no
 * record). */
int gl_deadman_record(const char *out, double *ended_s);

/* 1 when `ip -o link show` output shows the UP flag, 0 when not, -1 when
 * there are no flags to read. */
int gl_link_is_up(const char *out);
/* Output saying the interface does not exist (ip link, tc). */
int gl_no_such_device(const char *out);

#endif
