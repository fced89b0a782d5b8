/*
 * transport_ssh.h - the ssh transport (libssh2): runs a command on a remote
 * host with key authentication, the host key always checked against the
 * host's known_hosts file, one cached session per host, and a deadline on
 * the whole call. The ops table is gl_transport_ssh (listed in registry.c);
 * this header adds the process-wide pieces around it.
 *
 * Threading: everything here runs on the controller's thread; the session
 * cache is process-wide and not locked.
 */
#ifndef GL_TRANSPORT_SSH_H
#define GL_TRANSPORT_SSH_H

#include "plugin.h"

/* Output kept per call (stdout and stderr merged, in arrival order); the
 * rest is read and dropped so the remote command can finish. */
#define GL_SSH_OUT_MAX (256 * 1024)

/*
 * gl_transport_ssh.exec(h, argv, deadline_ms, res, err):
 * - argv is quoted word by word for the remote POSIX shell (no expansion
 *   happens remotely) and run as "exec argv..." under `timeout` when the
 *   remote has it, so a command cut off by the deadline is also killed there.
 * - The session for (user, host, port, key, known_hosts) is reused across
 *   calls; a cached session found dead before the command started is
 *   replaced once.
 * - Authentication: h->key (OpenSSH or PEM private key, "~/" expanded, its
 *   passphrase read from the environment variable named by the host's
 *   "passphrase_env"), or ssh-agent when h->key is empty and SSH_AUTH_SOCK
 *   is set. Passphrases are never logged or stored.
 * - The host key must be in h->known_hosts for [host]:port or host (plain
 *   or hashed entries); unknown keys and mismatches are refused before any
 *   command runs. known_hosts is never written.
 * - deadline_ms covers connect, handshake, host key, auth, exec and the
 *   output. On expiry the session is closed, res->timed_out = 1 and
 *   -GL_ETIMEDOUT comes back with err naming the host and the phase.
 * Returns 0 when the command ran (res->exit_status: exit code, or 128+signal),
 * or a negative code with err naming host, address and phase. res->out is
 * freed by the caller with gl_buf_free, also on error.
 */
extern const struct gl_transport_ops gl_transport_ssh;

/* Sessions are cached per thread. gl_ssh_thread_done closes the calling
 * thread's (a worker thread calls it before it ends); gl_ssh_shutdown
 * closes the calling thread's and releases libssh2, once no other thread
 * uses ssh any more. Both are safe to call more than once, and with
 * nothing open; a later exec starts over. */
void gl_ssh_thread_done(void);
void gl_ssh_shutdown(void);

/* How many ssh sessions this process has opened (connect + auth succeeded)
 * since it started; for tests and diagnostics. */
int gl_ssh_sessions_opened(void);

#endif
