/*
 * evidence_int.h - what seal and verify share, private to them (the
 * commands are in evidence.h). Who owns what:
 *   evidence.c         seal, and the helpers both use (declared here)
 *   evidence_verify.c  verify: the files, the store, the refs and the
 *                      signatures against the sealed commit
 */
#ifndef GL_EVIDENCE_INT_H
#define GL_EVIDENCE_INT_H

#include <git2.h>

#include "evidence.h"
#include "util.h"

/* The names of a run's folder in the commit besides the reports: the
 * gates' raw outputs (a subtree), the scenario text, run.db's hash. */
#define GATES_DIR "gates"
#define SCENARIO_NAME "scenario.json"
#define STORE_HASH_NAME "store.sha256"
#define SEAL_JSON_MAX (1u << 20)

/* err from libgit2's last error, prefixed with what; returns its code. */
int gl_ev_git_fail(struct gl_err *err, const char *what);

/* Hold DIR/run.lock as the controller does, so no live run writes while
 * we hash. A directory we cannot write (a read-only copy) has no live run
 * writing into it either: then no lock is taken. Returns the fd, -1 when
 * none could be taken without it being held, -2 when a run holds it. */
int gl_ev_lock_run(const char *dir);

/* The SHA-256 of a file as 64 hex digits. */
int gl_ev_file_sha256(const char *path, char hex[65], struct gl_err *err);

/* A gate file name as gates.c writes them: letters, digits, '.', '_', '-',
 * not starting with '.'. */
int gl_ev_gate_file_ok(const char *n);

/* Run folder id of run_id in commit c; 0, or -1 when it has none. */
int gl_ev_run_folder(const git_commit *c, const char *run_id, git_oid *out);

/* The exit code of a failed step: bad input for -GL_EINVAL, else error. */
int gl_ev_code_of(int rc);

#endif
