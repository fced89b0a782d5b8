/*
 * secrets.h - secrets named by the scenario (every "*_env" key: api_key_env,
 * passphrase_env, token_env, user_env, pass_env) are taken out of the
 * process environment when a run starts or resumes, and kept here. Child
 * processes (fault commands, mpirun, fio, target replicas) therefore never
 * inherit them, so they cannot show in /proc/PID/environ or be echoed by a
 * child into a log; the harness reads them through gl_secret_getenv.
 */
#ifndef GL_SECRETS_H
#define GL_SECRETS_H

#include <stddef.h>

#include "util.h"

/* Take every variable named by a "*_env" string anywhere in the scenario
 * JSON (root, a cJSON *) out of the environment. Call while the process
 * has one thread. Returns how many were taken. */
int gl_secrets_take(const void *root);
/* The value of name: the kept one, else the environment's; NULL if none. */
const char *gl_secret_getenv(const char *name);
/* A secret from the variable env (kept, or still in the environment) or,
 * when env is NULL, from the file at path (at most 16 KiB; trailing CR, LF,
 * blanks and tabs cut; the read buffer wiped). Both NULL: out is "".
 * A value holding a control character (CR, LF, ESC, ...) is refused: it
 * would forge a request header. Errors name the variable or the file and
 * the byte's position, never a value. */
int gl_secret_read(const char *env, const char *path, char *out, size_t n, struct gl_err *err);
/* Forget (and wipe) every kept value. */
void gl_secrets_clear(void);

#endif
