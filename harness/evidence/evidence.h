/*
 * evidence.h - `gauntlet seal DIR --repo PATH` and `gauntlet verify DIR`:
 * a run's evidence committed to a git repository with libgit2, and the run
 * directory checked against it later.
 *
 * What is sealed, under the folder RUN_ID/ of the commit's tree: the
 * reports present in DIR (report.json, report.md, report.html, junit.xml,
 * timeseries.csv, manifest.json, report.pdf; report.json is required), scenario.json
 * (the scenario text from the store, byte for byte what ran) and
 * store.sha256 (the SHA-256 of run.db after its WAL was checkpointed into
 * it, in sha256sum's format). The store itself is not committed: it can be
 * gigabytes, and its hash binds it.
 *
 * Where: branch evidence/SCENARIO-NAME (one per cluster scenario; each
 * commit adds its run's folder to the tree of the branch's tip, so the tip
 * holds every sealed run of that scenario) and an annotated tag
 * run/RUN_ID on the commit. A repository that does not exist yet (or an
 * empty directory) is created bare; an existing one, bare or not, is used
 * as it is: seal writes objects and refs only, never an index or a work
 * tree. The seal record DIR/seal.json names the repository (absolute
 * path), commit, branch, tag and each sealed file's blob id.
 *
 * Signing (seal --sign-key KEY): the commit and the tag are signed with
 * an SSH key through ssh-keygen, in git's own form for gpg.format=ssh
 * (sshsig.h), so `git verify-commit` / `git verify-tag` with an allowed
 * signers file check them too. verify --allowed-signers FILE checks both
 * signatures and their signer.
 *
 * Both take DIR's run.lock, so a run that is still going is refused.
 * Threading: call from the main thread of a command; not concurrently.
 */
#ifndef GL_EVIDENCE_H
#define GL_EVIDENCE_H

#include <stdio.h>

#include "states.h"
#include "util.h"

/* Exit codes of both commands (docs/architecture.md, "Exit codes"). */
enum {
	GL_EVIDENCE_OK = GL_EXIT_OK,
	GL_EVIDENCE_MISMATCH = GL_EXIT_FAIL, /* verify: a file differs; seal: sealed before with other content */
	GL_EVIDENCE_BAD_INPUT = GL_EXIT_BAD_INPUT, /* no run, no seal record, not a repository, run still going */
	GL_EVIDENCE_ERROR = GL_EXIT_HARNESS_ERROR, /* store, file system or libgit2 failure */
};

/*
 * Seal DIR into the repository at repo. Sealing a run again with the same
 * files is a no-op that rewrites DIR/seal.json (0); with different files it
 * changes nothing and returns GL_EVIDENCE_MISMATCH, naming the files on
 * out. A report.json whose run id or verdict disagrees with the store is
 * refused (re-render with `gauntlet report DIR` first). Prints what was
 * sealed to out. Returns one of the exit codes above; err says why for 2
 * and 4. sign_key (may be NULL): the private key file (a regular file of
 * ours, no symbolic link) that signs the new commit and tag; a run sealed
 * before is not re-signed.
 */
int gl_seal(const char *dir, const char *repo, const char *sign_key, FILE *out, struct gl_err *err);

/*
 * Check DIR against the commit named in DIR/seal.json: every file of the
 * sealed folder equals its blob byte for byte (files in DIR that were not
 * sealed are not judged), the scenario text in run.db equals scenario.json,
 * run.db's SHA-256 equals store.sha256 (its WAL is checkpointed first, so
 * only content counts), the tag still names the commit and the branch still
 * contains it. Each mismatch is printed to out as "MISMATCH NAME: why".
 * Returns GL_EVIDENCE_OK, GL_EVIDENCE_MISMATCH, or 2/4 with err (no or bad
 * seal.json, repository or commit not found, unreadable store).
 * allowed_signers (may be NULL): also check the commit's and the tag's SSH
 * signatures against that allowed signers file; a missing signature, a bad
 * one or a signer not in the file is a mismatch, a good one is printed as
 * "signature commit|tag ...: good, signer PRINCIPAL, key TYPE SHA256:...".
 * The closing "verify: ok: N sealed file(s) ..." line counts the sealed
 * folder's files that matched (the same N with or without
 * allowed_signers); good signatures are counted apart after it.
 */
int gl_verify(const char *dir, const char *allowed_signers, FILE *out, struct gl_err *err);

#endif
