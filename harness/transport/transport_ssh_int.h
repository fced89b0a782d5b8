/*
 * transport_ssh_int.h - what the ssh transport's files share
 * (transport_ssh.h is its contract).
 *
 *   transport_ssh.c      sessions, host keys, auth, the channel
 *   transport_ssh_cmd.c  the command line sent, the exit signal read back
 */
#ifndef GL_TRANSPORT_SSH_INT_H
#define GL_TRANSPORT_SSH_INT_H

#include <stdint.h>

#include "util.h"

/* argv as one line for the remote POSIX shell, each word quoted, run under
 * `timeout -s KILL` (left_ms rounded up, plus 1 s) when the remote has it;
 * appended to b. 0, or negative when b is full. */
int gl_ssh_command_line(const char *const *argv, int64_t left_ms, struct gl_buf *b);
/* SIGTERM for "TERM" (the name without "SIG", as SSH sends it), or -1. */
int gl_ssh_signal_number(const char *name);

#endif
