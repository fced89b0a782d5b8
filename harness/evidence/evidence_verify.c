/*
 * evidence_verify.c - verify (evidence.h): a run directory checked against
 * the commit its seal.json names.
 *
 * Verify never trusts DIR/seal.json's blob list alone: the commit's tree
 * is the reference, and files are hashed with git_odb_hashfile, which
 * reads them as the bytes they are. With --allowed-signers the commit's
 * and the tag's SSH signatures are checked over the exact bytes git signs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <git2.h>

#include "evidence_int.h"
#include "sshsig.h"
#include "store.h"

/* n_ok counts the sealed folder's entries that match (each report, each
 * gates/ file, scenario.json, store.sha256 for run.db), n_sig the good
 * signatures apart from them, so the file count is the same with and
 * without --allowed-signers. */
struct verdicts {
	FILE *out;
	int n_bad, n_ok, n_sig;
	struct gl_buf names;
};

static void mismatch(struct verdicts *v, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void mismatch(struct verdicts *v, const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(v->out, "MISMATCH %s: ", name);
	va_start(ap, fmt);
	vfprintf(v->out, fmt, ap);
	va_end(ap);
	fputc('\n', v->out);
	v->n_bad++;
	gl_buf_printf(&v->names, "%s%s", v->names.len ? ", " : "", name);
}

static const char *jstr(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* One signature checked against the allowed signers file: printed when
 * good, a mismatch saying why otherwise. rc != 0: ssh-keygen could not be
 * run (err says why). */
static int check_signature(struct verdicts *v, const char *what, const char *allowed, const char *data, size_t len,
			   const char *sig, size_t sig_len, struct gl_err *err)
{
	struct gl_sshsig_check c;
	int rc = gl_sshsig_verify(allowed, data, len, sig, sig_len, &c, err);

	if (rc)
		return rc;
	if (!c.good) {
		mismatch(v, what, "%s", c.why);
		return 0;
	}
	fprintf(v->out, "signature %s: good, signer %s, key %s\n", what, c.principal, c.key);
	v->n_sig++;
	return 0;
}

#define SSH_SIG_BEGIN "-----BEGIN SSH SIGNATURE-----\n"

/* The commit's gpgsig signature and the tag's appended one, each over the
 * exact bytes git signs. */
static int check_signatures(struct verdicts *v, git_repository *repo, const git_oid *cid, const char *tag,
			    const char *allowed, struct gl_err *err)
{
	git_buf sig = { 0 }, data = { 0 };
	git_reference *ref = NULL;
	git_odb *odb = NULL;
	git_odb_object *obj = NULL;
	char name[GIT_OID_HEXSZ + 16], path[300];
	int rc = 0;

	snprintf(name, sizeof(name), "commit %.12s", git_oid_tostr_s(cid));
	rc = git_commit_extract_signature(&sig, &data, repo, (git_oid *)cid, "gpgsig");
	if (rc == GIT_ENOTFOUND)
		mismatch(v, name, "no signature (sealed without --sign-key?)");
	else if (rc != 0)
		return gl_ev_git_fail(err, name);
	else if (strncmp(sig.ptr, SSH_SIG_BEGIN, strlen(SSH_SIG_BEGIN)))
		mismatch(v, name, "signed, but not with an SSH key (no SSH signature)");
	else if ((rc = check_signature(v, name, allowed, data.ptr, data.size, sig.ptr, sig.size, err)))
		goto out;
	rc = 0;

	/* the tag: an annotated tag object whose text ends in a signature */
	snprintf(path, sizeof(path), "refs/tags/%s", tag);
	snprintf(name, sizeof(name), "tag %.40s", tag);
	if (git_reference_lookup(&ref, repo, path) != 0 || !git_reference_target(ref)) {
		mismatch(v, name, "no signature (the tag is gone)");
		goto out;
	}
	if (git_repository_odb(&odb, repo) != 0 || git_odb_read(&obj, odb, git_reference_target(ref)) != 0) {
		rc = gl_ev_git_fail(err, tag);
		goto out;
	}
	if (git_odb_object_type(obj) != GIT_OBJECT_TAG) {
		mismatch(v, name, "no signature (a lightweight tag)");
	} else {
		const char *text = git_odb_object_data(obj), *at = NULL;
		size_t len = git_odb_object_size(obj), k = strlen(SSH_SIG_BEGIN);

		/* the last signature that starts a line, as git finds it */
		for (size_t i = 0; i + k <= len; i++)
			if ((i == 0 || text[i - 1] == '\n') && !memcmp(text + i, SSH_SIG_BEGIN, k))
				at = text + i;
		if (!at)
			mismatch(v, name, "no signature (sealed without --sign-key?)");
		else
			rc = check_signature(v, name, allowed, text, (size_t)(at - text), at, len - (size_t)(at - text),
					     err);
	}
out:
	git_odb_object_free(obj);
	git_odb_free(odb);
	git_reference_free(ref);
	git_buf_dispose(&sig);
	git_buf_dispose(&data);
	return rc;
}

/* The sealed gates/ subtree against DIR/gates: each file there, a regular
 * file, with the sealed bytes. */
static void verify_gates(git_repository *repo, const char *dir, const git_oid *tree_id, struct verdicts *v)
{
	git_tree *t = NULL;
	char path[PATH_MAX], name[300], hex[GIT_OID_HEXSZ + 1];

	if (git_tree_lookup(&t, repo, tree_id) != 0) {
		mismatch(v, GATES_DIR, "not a readable tree in the sealed commit");
		return;
	}
	for (size_t i = 0; i < git_tree_entrycount(t); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		struct stat st;
		git_oid fid;
		snprintf(name, sizeof(name), "%s/%s", GATES_DIR, git_tree_entry_name(e));
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (git_tree_entry_type(e) != GIT_OBJECT_BLOB || !gl_ev_gate_file_ok(git_tree_entry_name(e)))
			mismatch(v, name, "not a gate file in the sealed commit");
		else if (lstat(path, &st) != 0)
			mismatch(v, name, "sealed, but missing from %s", dir);
		else if (!S_ISREG(st.st_mode))
			mismatch(v, name, "is not a regular file any more");
		else if (git_odb_hashfile(&fid, path, GIT_OBJECT_BLOB) != 0)
			mismatch(v, name, "cannot be read: %s", strerror(errno));
		else if (git_oid_cmp(&fid, git_tree_entry_id(e)))
			mismatch(v, name, "differs from the sealed blob %s",
				 git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(e)));
		else
			v->n_ok++;
	}
	git_tree_free(t);
}

static int tree_has_path(const git_tree *t, const char *path)
{
	git_tree_entry *e = NULL;
	int ok = git_tree_entry_bypath(&e, t, path) == 0;
	git_tree_entry_free(e);
	return ok;
}

/* DIR/seal.json: the fields verify works from. */
struct seal_record {
	cJSON *json;
	const char *repo, *commit_hex, *tag, *branch, *run_id;
	git_oid cid;
};

/* Read DIR/seal.json into r; -1 with err when it cannot be read or lacks a
 * field. */
static int read_seal_record(const char *dir, struct seal_record *r, struct gl_err *err)
{
	char path[PATH_MAX], *text = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/seal.json", dir);
	if (gl_read_file(path, SEAL_JSON_MAX, &text, &len, err) != 0)
		return -1;
	r->json = cJSON_ParseWithLength(text, len);
	free(text);
	r->repo = jstr(r->json, "repo");
	r->commit_hex = jstr(r->json, "commit");
	r->tag = jstr(r->json, "tag");
	r->branch = jstr(r->json, "branch");
	r->run_id = jstr(r->json, "run_id");
	if (!r->repo || !r->commit_hex || !r->tag || !r->branch || !r->run_id ||
	    git_oid_fromstr(&r->cid, r->commit_hex) != 0) {
		gl_errf(err, GL_EINVAL, "%s: not a seal record (needs repo, commit, tag, branch and run_id)", path);
		return -1;
	}
	return 0;
}

/* The names that lead to the commit still do: the tag names it, the
 * branch contains it. */
static void verify_refs(struct verdicts *v, git_repository *repo, const struct seal_record *r)
{
	git_reference *ref = NULL;
	git_commit *tagged = NULL, *tip = NULL;
	char path[PATH_MAX], hex[GIT_OID_HEXSZ + 1];

	snprintf(path, sizeof(path), "refs/tags/%s", r->tag);
	if (git_reference_lookup(&ref, repo, path) != 0)
		mismatch(v, r->tag, "the tag is gone from %s", r->repo);
	else if (git_reference_peel((git_object **)&tagged, ref, GIT_OBJECT_COMMIT) != 0 ||
		 git_oid_cmp(git_commit_id(tagged), &r->cid))
		mismatch(v, r->tag, "the tag names %s, not the sealed commit %s",
			 tagged ? git_oid_tostr(hex, sizeof(hex), git_commit_id(tagged)) : "no commit", r->commit_hex);
	git_reference_free(ref);
	ref = NULL;
	snprintf(path, sizeof(path), "refs/heads/%s", r->branch);
	if (git_reference_lookup(&ref, repo, path) != 0 ||
	    git_reference_peel((git_object **)&tip, ref, GIT_OBJECT_COMMIT) != 0)
		mismatch(v, r->branch, "the branch is gone from %s", r->repo);
	else if (git_oid_cmp(git_commit_id(tip), &r->cid) &&
		 git_graph_descendant_of(repo, git_commit_id(tip), &r->cid) != 1)
		mismatch(v, r->branch, "the branch no longer contains the sealed commit %s", r->commit_hex);
	git_reference_free(ref);
	git_commit_free(tagged);
	git_commit_free(tip);
}

/* One entry of the sealed folder against what it stands for: gates/
 * against DIR/gates, store.sha256 against run.db's hash, scenario.json
 * against the store's scenario text, a report against DIR's file. */
static void verify_entry(struct verdicts *v, git_repository *repo, const git_tree_entry *e, const char *dir,
			 const char *store_hex, const char *scenario)
{
	const char *name = git_tree_entry_name(e), *data;
	git_blob *blob = NULL;
	char path[PATH_MAX], hex[GIT_OID_HEXSZ + 1];
	git_oid fid;

	if (git_tree_entry_type(e) == GIT_OBJECT_TREE && !strcmp(name, GATES_DIR)) {
		verify_gates(repo, dir, git_tree_entry_id(e), v);
		return;
	}
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB || git_blob_lookup(&blob, repo, git_tree_entry_id(e)) != 0) {
		mismatch(v, name, "not a readable blob in the sealed commit");
		return;
	}
	data = git_blob_rawcontent(blob);
	if (!strcmp(name, STORE_HASH_NAME)) {
		if (git_blob_rawsize(blob) < 64 || strncmp(data, store_hex, 64))
			mismatch(v, "run.db", "SHA-256 %s, sealed %.64s", store_hex,
				 git_blob_rawsize(blob) >= 64 ? data : "(unreadable)");
		else
			v->n_ok++;
	} else if (!strcmp(name, SCENARIO_NAME)) {
		if ((size_t)git_blob_rawsize(blob) != strlen(scenario) || memcmp(data, scenario, strlen(scenario)))
			mismatch(v, name, "the scenario text in run.db differs from the sealed one");
		else
			v->n_ok++;
	} else {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (access(path, F_OK) != 0)
			mismatch(v, name, "sealed, but missing from %s", dir);
		else if (git_odb_hashfile(&fid, path, GIT_OBJECT_BLOB) != 0)
			mismatch(v, name, "cannot be read: %s", strerror(errno));
		else if (git_oid_cmp(&fid, git_tree_entry_id(e)))
			mismatch(v, name, "differs from the sealed blob %s",
				 git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(e)));
		else
			v->n_ok++;
	}
	git_blob_free(blob);
}

/* The closing line: the mismatches by name, or what matched. Returns the
 * exit code. */
static int verify_summary(const struct verdicts *v, const struct seal_record *r, int signatures)
{
	if (v->n_bad) {
		fprintf(v->out, "verify: %d mismatch(es) against commit %s in %s: %s\n", v->n_bad, r->commit_hex,
			r->repo, v->names.data ? v->names.data : "");
		return GL_EVIDENCE_MISMATCH;
	}
	fprintf(v->out, "verify: ok: %d sealed file(s) and run.db match commit %s (tag %s) in %s", v->n_ok,
		r->commit_hex, r->tag, r->repo);
	if (signatures)
		fprintf(v->out, "; %d signature(s) good", v->n_sig);
	fputc('\n', v->out);
	return GL_EVIDENCE_OK;
}

int gl_verify(const char *dir, const char *allowed_signers, FILE *out, struct gl_err *err)
{
	struct verdicts v = { out, 0, 0, 0, { 0 } };
	struct seal_record r = { 0 };
	git_repository *repo = NULL;
	git_commit *commit = NULL;
	git_tree *folder = NULL;
	git_oid folder_id;
	const cJSON *f;
	char path[PATH_MAX], *run_id = NULL, *scenario = NULL, store_hex[65];
	int lock = -1, code = GL_EVIDENCE_BAD_INPUT, rc;

	gl_buf_init(&v.names, 4096);
	git_libgit2_init();
	if (read_seal_record(dir, &r, err) != 0)
		goto out;
	lock = gl_ev_lock_run(dir);
	if (lock == -2) {
		gl_errf(err, GL_EINVAL, "%s: a gauntlet is running this run: verify it after it ends", dir);
		goto out;
	}
	if (git_repository_open_ext(&repo, r.repo, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) != 0) {
		gl_ev_git_fail(err, r.repo);
		goto out;
	}
	if (git_commit_lookup(&commit, repo, &r.cid) != 0) {
		gl_errf(err, GL_EINVAL, "%s: the sealed commit %s is not in this repository", r.repo, r.commit_hex);
		goto out;
	}
	code = GL_EVIDENCE_ERROR;
	if (allowed_signers && (rc = check_signatures(&v, repo, &r.cid, r.tag, allowed_signers, err))) {
		code = gl_ev_code_of(rc);
		goto out;
	}
	verify_refs(&v, repo, &r);
	if (gl_ev_run_folder(commit, r.run_id, &folder_id) != 0 || git_tree_lookup(&folder, repo, &folder_id) != 0) {
		mismatch(&v, r.run_id, "the sealed commit %s has no folder for the run", r.commit_hex);
		goto done;
	}
	snprintf(path, sizeof(path), "%s/run.db", dir);
	if ((rc = gl_store_read_sealed(path, &run_id, &scenario, err)) ||
	    (rc = gl_ev_file_sha256(path, store_hex, err))) {
		code = gl_ev_code_of(rc);
		goto out;
	}
	if (strcmp(run_id, r.run_id))
		mismatch(&v, "run.db", "holds run %s, the seal is for run %s", run_id, r.run_id);
	for (size_t i = 0; i < git_tree_entrycount(folder); i++)
		verify_entry(&v, repo, git_tree_entry_byindex(folder, i), dir, store_hex, scenario);
	/* seal.json's own list must not claim more than the commit holds */
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(r.json, "files")) if (f->string &&
										     !tree_has_path(folder, f->string))
		mismatch(&v, f->string, "listed in seal.json but not in the sealed commit");
done:
	code = verify_summary(&v, &r, allowed_signers != NULL);
out:
	git_tree_free(folder);
	git_commit_free(commit);
	git_repository_free(repo);
	git_libgit2_shutdown();
	cJSON_Delete(r.json);
	free(run_id);
	free(scenario);
	gl_buf_free(&v.names);
	if (lock >= 0)
		close(lock);
	return code;
}
