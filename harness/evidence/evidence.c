/*
 * evidence.c - seal (evidence.h): a run directory's reports, scenario and
 * store hash committed to a git repository through libgit2; and the
 * helpers verify shares (evidence_int.h).
 *
 * Seal builds the run's folder as a tree of blobs written straight into
 * the object database (streamed, no filters, no index, no work tree), puts
 * it into the tree of the branch's tip, commits with the tip as parent
 * (libgit2 refuses the ref update if the tip moved meanwhile), then tags
 * the commit.
 *
 * Signed seals (--sign-key) are git's own form for gpg.format=ssh, so
 * `git verify-commit` and `git verify-tag` check them as well as verify
 * does: the commit's signature in its gpgsig header over the commit
 * without it, the tag's appended to its message over everything before.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "analysis.h"
#include "evidence_int.h"
#include "sha256.h"
#include "sshsig.h"
#include "store.h"

/* Files of a run directory that are sealed when present. report.pdf, the
 * document offered for signing, is one: it is dated at the run's end
 * (reports/pdf_dates.c), so rendering it again with the same browser
 * leaves it byte for byte as sealed. */
static const char *const sealed_files[] = {
	"report.json", "report.md", "report.html", "junit.xml", "timeseries.csv", "manifest.json", "report.pdf",
};
/* and every regular file of DIR/gates (the gates' raw outputs, docs/gates.md)
 * as the subtree gates/ */
#define GATES_MAX_FILES 4096
#define REPORT_JSON_MAX (256u << 20)

int gl_ev_git_fail(struct gl_err *err, const char *what)
{
	const git_error *e = git_error_last();
	return gl_errf(err, GL_EIO, "%s: %s", what, e && e->message ? e->message : "libgit2 error");
}

int gl_ev_lock_run(const char *dir)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/run.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return -2;
	}
	return fd;
}

int gl_ev_file_sha256(const char *path, char hex[65], struct gl_err *err)
{
	struct gl_sha256 s;
	unsigned char *buf = malloc(1u << 20);
	FILE *f = fopen(path, "rb");
	size_t n;
	int rc = 0;

	if (!f || !buf) {
		rc = gl_errf(err, f ? GL_ENOMEM : GL_EIO, "%s: %s", path, f ? "out of memory" : strerror(errno));
		goto out;
	}
	gl_sha256_init(&s);
	while ((n = fread(buf, 1, 1u << 20, f)) > 0)
		gl_sha256_update(&s, buf, n);
	if (ferror(f)) {
		rc = gl_errf(err, GL_EIO, "%s: read error", path);
		goto out;
	}
	gl_sha256_final_hex(&s, hex);
out:
	if (f)
		fclose(f);
	free(buf);
	return rc;
}

/* Stream a file into the object database as a blob, exactly its bytes. */
static int blob_from_file(git_repository *repo, const char *path, git_oid *id, struct gl_err *err)
{
	git_odb *odb = NULL;
	git_odb_stream *s = NULL;
	unsigned char *buf = malloc(1u << 16);
	struct stat sb;
	FILE *f = fopen(path, "rb");
	size_t n, total = 0;
	int rc = 0;

	if (!f || !buf || fstat(fileno(f), &sb) != 0) {
		rc = gl_errf(err, GL_EIO, "%s: %s", path, !buf ? "out of memory" : strerror(errno));
		goto out;
	}
	if (git_repository_odb(&odb, repo) != 0 ||
	    git_odb_open_wstream(&s, odb, (git_object_size_t)sb.st_size, GIT_OBJECT_BLOB) != 0) {
		rc = gl_ev_git_fail(err, path);
		goto out;
	}
	while ((n = fread(buf, 1, 1u << 16, f)) > 0) {
		if (total + n > (size_t)sb.st_size) {
			rc = gl_errf(err, GL_EIO, "%s: the file grew while it was sealed", path);
			goto out;
		}
		if (git_odb_stream_write(s, (const char *)buf, n) != 0) {
			rc = gl_ev_git_fail(err, path);
			goto out;
		}
		total += n;
	}
	if (ferror(f) || total != (size_t)sb.st_size) {
		rc = gl_errf(err, GL_EIO, "%s: %s", path,
			     ferror(f) ? "read error" : "the file shrank while it was sealed");
		goto out;
	}
	if (git_odb_stream_finalize_write(id, s) != 0)
		rc = gl_ev_git_fail(err, path);
out:
	git_odb_stream_free(s);
	git_odb_free(odb);
	if (f)
		fclose(f);
	free(buf);
	return rc;
}

/* "evidence/NAME" with NAME reduced to [A-Za-z0-9._-] and no dot first. */
static void branch_name(const char *scenario, char *out, size_t n)
{
	char name[GL_NAME_MAX * 2];
	size_t k = 0;

	for (const char *p = scenario; *p && k + 1 < sizeof(name); p++) {
		char c = *p;
		int okc = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
			  c == '_' || (c == '.' && k > 0 && name[k - 1] != '.');
		name[k++] = okc ? c : '-';
	}
	while (k && (name[k - 1] == '.' || name[k - 1] == '-'))
		k--;
	name[k] = '\0';
	if (k >= 5 && !strcmp(name + k - 5, ".lock"))
		name[k - 5] = '\0';
	snprintf(out, n, "evidence/%s", name[0] ? name : "unnamed");
}

/* Open the repository at exactly path, or create it bare when path does
 * not exist or is an empty directory. Anything else is bad input. */
static int open_or_init(const char *path, git_repository **repo, int *created, struct gl_err *err)
{
	git_repository_init_options io;
	struct stat sb;
	int rc;

	git_repository_init_options_init(&io, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	*created = 0;
	rc = git_repository_open_ext(repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	if (rc == 0)
		return 0;
	if (rc != GIT_ENOTFOUND)
		return gl_ev_git_fail(err, path);
	if (stat(path, &sb) == 0) {
		DIR *d = S_ISDIR(sb.st_mode) ? opendir(path) : NULL;
		struct dirent *e;
		int empty = d != NULL;
		while (d && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				empty = 0;
		if (d)
			closedir(d);
		if (!empty)
			return gl_errf(err, GL_EINVAL,
				       "%s: not a git repository, and not an empty directory to make one in", path);
	}
	io.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
	if (git_repository_init_ext(repo, path, &io) != 0)
		return gl_ev_git_fail(err, path);
	*created = 1;
	return 0;
}

static int signature(git_repository *repo, git_signature **sig)
{
	char host[256] = "localhost", email[300];

	if (git_signature_default(sig, repo) == 0)
		return 0;
	gethostname(host, sizeof(host) - 1);
	snprintf(email, sizeof(email), "gauntlet@%s", host);
	return git_signature_now(sig, "gauntlet", email);
}

int gl_ev_gate_file_ok(const char *n)
{
	size_t len = strlen(n);
	if (len == 0 || len > 200 || n[0] == '.')
		return 0;
	for (; *n; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
		      strchr("._-", *n)))
			return 0;
	return 1;
}

/* The subtree of DIR/gates: its regular files (not links, not other
 * names), into *tree_id; *any 0 when there is none. */
static int build_gates_tree(git_repository *repo, const char *dir, git_oid *tree_id, int *any, cJSON *files,
			    struct gl_err *err)
{
	git_treebuilder *tb = NULL;
	char path[PATH_MAX], name[300], hex[GIT_OID_HEXSZ + 1];
	struct dirent *de;
	struct stat st;
	DIR *d;
	git_oid id;
	int rc = 0, n = 0;

	*any = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, GATES_DIR);
	if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (!(d = opendir(path)))
		return gl_errf(err, GL_EIO, "%s: %s", path, strerror(errno));
	if (git_treebuilder_new(&tb, repo, NULL) != 0) {
		closedir(d);
		return gl_ev_git_fail(err, "tree");
	}
	while ((de = readdir(d))) {
		if (!gl_ev_gate_file_ok(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", dir, GATES_DIR, de->d_name);
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (++n > GATES_MAX_FILES) {
			rc = gl_errf(err, GL_ELIMIT, "%s/%s: more than %d files", dir, GATES_DIR, GATES_MAX_FILES);
			break;
		}
		if ((rc = blob_from_file(repo, path, &id, err)))
			break;
		if (git_treebuilder_insert(NULL, tb, de->d_name, &id, GIT_FILEMODE_BLOB) != 0) {
			rc = gl_ev_git_fail(err, de->d_name);
			break;
		}
		snprintf(name, sizeof(name), "%s/%s", GATES_DIR, de->d_name);
		cJSON_AddStringToObject(files, name, git_oid_tostr(hex, sizeof(hex), &id));
	}
	closedir(d);
	if (rc == 0 && n > 0) {
		if (git_treebuilder_write(tree_id, tb) != 0)
			rc = gl_ev_git_fail(err, "tree");
		else
			*any = 1;
	}
	git_treebuilder_free(tb);
	return rc;
}

/* What seal learns from the store and report.json. */
struct run_facts {
	struct gl_run_row row;
	char verdict[16];
	char store_sha256[65];
};

/* Analyze the store for the verdict, check report.json agrees, then close
 * the store (folding its WAL into run.db) and hash run.db. */
static int read_run(const char *dir, struct run_facts *rf, struct gl_err *err)
{
	struct gl_store *st = NULL;
	struct gl_analysis *an = NULL;
	char path[PATH_MAX], *text = NULL;
	cJSON *rep = NULL;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/report.json", dir);
	if (access(path, F_OK) != 0) {
		rc = gl_errf(err, GL_EINVAL, "%s: no report.json to seal (render it with `gauntlet report %s`)", dir,
			     dir);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/run.db", dir);
	if (access(path, F_OK) != 0) {
		rc = gl_errf(err, GL_EINVAL, "%s: no run store (run.db) here", dir);
		goto out;
	}
	if (!(st = gl_store_open(path, 0, err))) {
		rc = -GL_EIO;
		goto out;
	}
	if ((rc = gl_analyze(st, &an, err)))
		goto out;
	rf->row = an->run;
	rf->row.scenario_text = an->run.scenario_text ? strdup(an->run.scenario_text) : NULL;
	rf->row.sets_json = NULL;
	snprintf(rf->verdict, sizeof(rf->verdict), "%s", gl_verdict_name(an->verdict));
	if (!rf->row.scenario_text) {
		rc = gl_errf(err, GL_ENOMEM, "out of memory");
		goto out;
	}
	gl_analysis_free(an);
	an = NULL;
	gl_store_close(st); /* checkpoints: run.db is whole from here */
	st = NULL;
	snprintf(path, sizeof(path), "%s/report.json", dir);
	if ((rc = gl_read_file(path, REPORT_JSON_MAX, &text, &len, err)))
		goto out;
	rep = cJSON_ParseWithLength(text, len);
	{
		const char *id = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "run"), "id"));
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rep, "verdict"));
		if (!id || !v || strcmp(id, rf->row.id) || strcmp(v, rf->verdict)) {
			rc = gl_errf(
				err, GL_EINVAL,
				"%s/report.json does not match the store (report: run %s, verdict %s; store: run %s, "
				"verdict %s): re-render it with `gauntlet report %s` and seal again",
				dir, id ? id : "?", v ? v : "?", rf->row.id, rf->verdict, dir);
			goto out;
		}
	}
	snprintf(path, sizeof(path), "%s/run.db", dir);
	rc = gl_ev_file_sha256(path, rf->store_sha256, err);
out:
	cJSON_Delete(rep);
	free(text);
	gl_analysis_free(an);
	gl_store_close(st);
	return rc;
}

/* The run's folder: present reports (report.pdf too), scenario.json,
 * store.sha256. Fills files (name -> blob id) for seal.json. */
static int build_run_tree(git_repository *repo, const char *dir, const struct run_facts *rf, git_oid *tree_id,
			  cJSON *files, struct gl_err *err)
{
	git_treebuilder *tb = NULL;
	git_oid id;
	char path[PATH_MAX], hex[GIT_OID_HEXSZ + 1], line[128];
	int rc = 0;

	if (git_treebuilder_new(&tb, repo, NULL) != 0) {
		rc = gl_ev_git_fail(err, "tree");
		goto out;
	}
	for (size_t i = 0; i < GL_ARRAY_LEN(sealed_files); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sealed_files[i]);
		if (access(path, F_OK) != 0)
			continue;
		if ((rc = blob_from_file(repo, path, &id, err)))
			goto out;
		if (git_treebuilder_insert(NULL, tb, sealed_files[i], &id, GIT_FILEMODE_BLOB) != 0) {
			rc = gl_ev_git_fail(err, sealed_files[i]);
			goto out;
		}
		cJSON_AddStringToObject(files, sealed_files[i], git_oid_tostr(hex, sizeof(hex), &id));
	}
	{
		int any = 0;
		if ((rc = build_gates_tree(repo, dir, &id, &any, files, err)))
			goto out;
		if (any && git_treebuilder_insert(NULL, tb, GATES_DIR, &id, GIT_FILEMODE_TREE) != 0) {
			rc = gl_ev_git_fail(err, GATES_DIR);
			goto out;
		}
	}
	if (git_blob_create_from_buffer(&id, repo, rf->row.scenario_text, strlen(rf->row.scenario_text)) != 0 ||
	    git_treebuilder_insert(NULL, tb, SCENARIO_NAME, &id, GIT_FILEMODE_BLOB) != 0) {
		rc = gl_ev_git_fail(err, SCENARIO_NAME);
		goto out;
	}
	cJSON_AddStringToObject(files, SCENARIO_NAME, git_oid_tostr(hex, sizeof(hex), &id));
	snprintf(line, sizeof(line), "%s  run.db\n", rf->store_sha256); /* sha256sum -c reads it */
	if (git_blob_create_from_buffer(&id, repo, line, strlen(line)) != 0 ||
	    git_treebuilder_insert(NULL, tb, STORE_HASH_NAME, &id, GIT_FILEMODE_BLOB) != 0) {
		rc = gl_ev_git_fail(err, STORE_HASH_NAME);
		goto out;
	}
	cJSON_AddStringToObject(files, STORE_HASH_NAME, git_oid_tostr(hex, sizeof(hex), &id));
	if (git_treebuilder_write(tree_id, tb) != 0)
		rc = gl_ev_git_fail(err, "tree");
out:
	git_treebuilder_free(tb);
	return rc;
}

/* Names of entries that differ between two run folders, into b. */
static void tree_diff_names(git_repository *repo, const git_oid *a_id, const git_oid *b_id, struct gl_buf *b)
{
	git_tree *a = NULL, *c = NULL;

	if (git_tree_lookup(&a, repo, a_id) != 0 || git_tree_lookup(&c, repo, b_id) != 0)
		goto out;
	for (size_t i = 0; i < git_tree_entrycount(a); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(a, i);
		const git_tree_entry *f = git_tree_entry_byname(c, git_tree_entry_name(e));
		if (!f || git_oid_cmp(git_tree_entry_id(e), git_tree_entry_id(f)))
			gl_buf_printf(b, "%s%s", b->len ? ", " : "", git_tree_entry_name(e));
	}
	for (size_t i = 0; i < git_tree_entrycount(c); i++) {
		const git_tree_entry *f = git_tree_entry_byindex(c, i);
		if (!git_tree_entry_byname(a, git_tree_entry_name(f)))
			gl_buf_printf(b, "%s%s", b->len ? ", " : "", git_tree_entry_name(f));
	}
out:
	git_tree_free(a);
	git_tree_free(c);
}

int gl_ev_run_folder(const git_commit *c, const char *run_id, git_oid *out)
{
	git_tree *t = NULL;
	const git_tree_entry *e;
	int rc = -1;

	if (git_commit_tree(&t, c) != 0)
		return -1;
	e = git_tree_entry_byname(t, run_id);
	if (e && git_tree_entry_type(e) == GIT_OBJECT_TREE) {
		git_oid_cpy(out, git_tree_entry_id(e));
		rc = 0;
	}
	git_tree_free(t);
	return rc;
}

static int write_seal_json(const char *dir, cJSON *rec, struct gl_err *err)
{
	char path[PATH_MAX], *text = cJSON_Print(rec);
	int rc;

	if (!text)
		return gl_errf(err, GL_ENOMEM, "seal.json: out of memory");
	snprintf(path, sizeof(path), "%s/seal.json", dir);
	rc = gl_write_file_atomic(path, text, strlen(text), 0600, err);
	cJSON_free(text);
	return rc;
}

int gl_ev_code_of(int rc)
{
	return rc == -GL_EINVAL ? GL_EVIDENCE_BAD_INPUT : GL_EVIDENCE_ERROR;
}

/* The branch moves from tip (NULL: it does not exist yet) to id, refused
 * when it moved meanwhile, as git_commit_create's update_ref would be. */
static int move_branch(git_repository *repo, const char *refname, const git_commit *tip, const git_oid *id,
		       struct gl_err *err)
{
	git_reference *ref = NULL;
	int rc;

	if (tip)
		rc = git_reference_create_matching(&ref, repo, refname, id, 1, git_commit_id(tip), "gauntlet seal");
	else
		rc = git_reference_create(&ref, repo, refname, id, 0, "gauntlet seal");
	git_reference_free(ref);
	return rc ? gl_ev_git_fail(err, refname) : 0;
}

/* Commit top as the branch's new tip, signed with key: libgit2's commit
 * buffer, signed by ssh-keygen, the signature put in the gpgsig header
 * (without its last newline: libgit2 continues every line of a header
 * with a space, and git writes no empty continuation line). Nothing is
 * written when signing fails. */
static int commit_signed(git_repository *repo, const char *refname, const git_signature *sig, const char *msg,
			 const git_tree *top, const git_commit *tip, const char *key, git_oid *id, struct gl_err *err)
{
	git_buf buf = { 0 };
	const git_commit *parents[1] = { tip };
	char *armored = NULL;
	size_t n;
	int rc;

	if (git_commit_create_buffer(&buf, repo, sig, sig, NULL, msg, top, tip ? 1 : 0, parents) != 0)
		return gl_ev_git_fail(err, "commit");
	if ((rc = gl_sshsig_sign(key, buf.ptr, buf.size, &armored, err)))
		goto out;
	n = strlen(armored);
	while (n && armored[n - 1] == '\n')
		armored[--n] = '\0';
	if (git_commit_create_with_signature(id, repo, buf.ptr, armored, "gpgsig") != 0) {
		rc = gl_ev_git_fail(err, "signed commit");
		goto out;
	}
	rc = move_branch(repo, refname, tip, id, err);
out:
	free(armored);
	git_buf_dispose(&buf);
	return rc;
}

/* An annotated tag signed as git does: the tag object's text (object,
 * type, tag, tagger, blank line, message) signed, and the armored
 * signature appended to it. The ref is created, never moved (force 0). */
static int tag_signed(git_repository *repo, const char *tagname, const git_oid *commit_id, const git_signature *sig,
		      const char *msg, const char *key, git_oid *tag_id, struct gl_err *err)
{
	struct gl_buf b;
	char hex[GIT_OID_HEXSZ + 1], *armored = NULL;
	int off = sig->when.offset < 0 ? -sig->when.offset : sig->when.offset, rc;

	gl_buf_init(&b, 1u << 20);
	gl_buf_printf(&b, "object %s\ntype commit\ntag %s\ntagger %s <%s> %lld %c%02d%02d\n\n%s",
		      git_oid_tostr(hex, sizeof(hex), commit_id), tagname, sig->name, sig->email,
		      (long long)sig->when.time, sig->when.offset < 0 ? '-' : '+', off / 60, off % 60, msg);
	if ((rc = gl_sshsig_sign(key, b.data, b.len, &armored, err)))
		goto out;
	if (gl_buf_printf(&b, "%s", armored) != 0) {
		rc = gl_errf(err, GL_ENOMEM, "%s: out of memory", tagname);
		goto out;
	}
	if (git_tag_create_from_buffer(tag_id, repo, b.data, 0) != 0)
		rc = gl_ev_git_fail(err, tagname);
out:
	free(armored);
	gl_buf_free(&b);
	return rc;
}

/* One seal: the run's facts, the repository, the names, and the folder,
 * commit and tag it makes. */
struct seal {
	const char *dir, *repo_path, *sign_key;
	FILE *out;
	int lock, created;
	struct run_facts rf;
	git_repository *repo;
	git_signature *sig;
	cJSON *files; /* name -> blob id, for seal.json */
	git_oid run_tree, commit_id;
	char branch[GL_NAME_MAX * 2 + 16], refname[GL_NAME_MAX * 2 + 32], tagname[64], tagref[80];
};

/* What must hold before anything is written: a run store, a directory and
 * a key of ours, no live run. Then the run's facts and the repository.
 * Returns an exit code. */
static int seal_open(struct seal *s, struct gl_err *err)
{
	char path[PATH_MAX];
	int rc;

	snprintf(path, sizeof(path), "%s/run.db", s->dir);
	if (access(path, F_OK) != 0) {
		gl_errf(err, GL_EINVAL, "%s: no run store (run.db) here", s->dir);
		return GL_EVIDENCE_BAD_INPUT;
	}
	/* Sealed evidence is signed off as ours: not a directory another user
	 * could have filled. */
	if (gl_path_trusted(s->dir, 1, err) != 0)
		return GL_EVIDENCE_BAD_INPUT;
	/* the key before anything is written: a bad one leaves no commit */
	if (s->sign_key && gl_path_trusted(s->sign_key, 0, err) != 0)
		return GL_EVIDENCE_BAD_INPUT;
	s->lock = gl_ev_lock_run(s->dir);
	if (s->lock == -2) {
		gl_errf(err, GL_EINVAL, "%s: a gauntlet is still running this run: seal it after it ends", s->dir);
		return GL_EVIDENCE_BAD_INPUT;
	}
	if ((rc = read_run(s->dir, &s->rf, err)))
		return gl_ev_code_of(rc);
	if (open_or_init(s->repo_path, &s->repo, &s->created, err) != 0)
		return err->code == GL_EINVAL ? GL_EVIDENCE_BAD_INPUT : GL_EVIDENCE_ERROR;
	return GL_EVIDENCE_OK;
}

/* The branch evidence/SCENARIO and the tag run/RUN_ID, refused when git
 * would not take them as ref names. Returns an exit code. */
static int seal_names(struct seal *s, struct gl_err *err)
{
	int valid = 0;

	branch_name(s->rf.row.name, s->branch, sizeof(s->branch));
	snprintf(s->refname, sizeof(s->refname), "refs/heads/%s", s->branch);
	snprintf(s->tagname, sizeof(s->tagname), "run/%s", s->rf.row.id);
	snprintf(s->tagref, sizeof(s->tagref), "refs/tags/%s", s->tagname);
	if (git_reference_name_is_valid(&valid, s->refname) != 0 || !valid ||
	    git_reference_name_is_valid(&valid, s->tagref) != 0 || !valid) {
		gl_errf(err, GL_EINVAL, "cannot name a branch or tag from scenario '%s' and run '%s'", s->rf.row.name,
			s->rf.row.id);
		return GL_EVIDENCE_BAD_INPUT;
	}
	return GL_EVIDENCE_OK;
}

/* Sealed before? The tag is the run's seal: the same folder is nothing to
 * do (*done, commit_id its commit); another folder is refused, naming the
 * entries that differ (evidence is never rewritten). Returns an exit code. */
static int seal_sealed_before(struct seal *s, int *done, struct gl_err *err)
{
	git_reference *tag_ref = NULL;
	git_commit *sealed = NULL;
	git_oid old_run;
	struct gl_buf names;
	char hex[GIT_OID_HEXSZ + 1];
	int code = GL_EVIDENCE_BAD_INPUT;

	*done = 0;
	if (git_reference_lookup(&tag_ref, s->repo, s->tagref) != 0)
		return GL_EVIDENCE_OK;
	gl_buf_init(&names, 4096);
	if (git_reference_peel((git_object **)&sealed, tag_ref, GIT_OBJECT_COMMIT) != 0 ||
	    gl_ev_run_folder(sealed, s->rf.row.id, &old_run) != 0) {
		gl_errf(err, GL_EINVAL, "%s: tag %s exists but does not name a commit with the run's folder",
			s->repo_path, s->tagname);
		goto out;
	}
	s->commit_id = *git_commit_id(sealed);
	if (git_oid_cmp(&old_run, &s->run_tree) != 0) {
		tree_diff_names(s->repo, &old_run, &s->run_tree, &names);
		fprintf(s->out, "MISMATCH: run %s was sealed before (commit %s, tag %s) with other content: %s\n",
			s->rf.row.id, git_oid_tostr(hex, sizeof(hex), &s->commit_id), s->tagname,
			names.data ? names.data : "?");
		code = GL_EVIDENCE_MISMATCH;
		goto out;
	}
	fprintf(s->out, "already sealed: run %s at commit %s (tag %s)%s\n", s->rf.row.id,
		git_oid_tostr(hex, sizeof(hex), &s->commit_id), s->tagname,
		s->sign_key ? "; sealed evidence is never rewritten, so not signed now" : "");
	*done = 1;
	code = GL_EVIDENCE_OK;
out:
	gl_buf_free(&names);
	git_commit_free(sealed);
	git_reference_free(tag_ref);
	return code;
}

/* The commit of the run's folder: the branch tip's tree with the folder
 * added, the tip its parent, signed when a key is given. A tip that holds
 * this very folder (a seal that committed but died before tagging) is
 * taken as it is. Sets commit_id; returns an exit code. */
static int seal_commit(struct seal *s, struct gl_err *err)
{
	git_reference *tip_ref = NULL;
	git_commit *tip = NULL;
	git_tree *top = NULL;
	git_treebuilder *tb = NULL;
	git_oid top_id, old_run;
	char msg[2048];
	int rc, code = GL_EVIDENCE_ERROR;

	rc = git_reference_lookup(&tip_ref, s->repo, s->refname);
	if ((rc == 0 && git_reference_peel((git_object **)&tip, tip_ref, GIT_OBJECT_COMMIT) != 0) ||
	    (rc != 0 && rc != GIT_ENOTFOUND)) {
		gl_ev_git_fail(err, s->refname);
		goto out;
	}
	if (tip && gl_ev_run_folder(tip, s->rf.row.id, &old_run) == 0 && !git_oid_cmp(&old_run, &s->run_tree)) {
		s->commit_id = *git_commit_id(tip);
		code = GL_EVIDENCE_OK;
		goto out;
	}
	if ((tip && git_commit_tree(&top, tip) != 0) || git_treebuilder_new(&tb, s->repo, top) != 0 ||
	    git_treebuilder_insert(NULL, tb, s->rf.row.id, &s->run_tree, GIT_FILEMODE_TREE) != 0 ||
	    git_treebuilder_write(&top_id, tb) != 0) {
		gl_ev_git_fail(err, "tree");
		goto out;
	}
	git_tree_free(top);
	top = NULL;
	if (git_tree_lookup(&top, s->repo, &top_id) != 0 || signature(s->repo, &s->sig) != 0) {
		gl_ev_git_fail(err, "commit");
		goto out;
	}
	snprintf(msg, sizeof(msg),
		 "%s: run %s %s\n\nrun: %s\nscenario: %s\nscenario_sha256: %s\nverdict: %s\nstate: %s\n"
		 "store_sha256: %s (run.db)\ngauntlet: %s (%s)\n",
		 s->rf.row.name, s->rf.row.id, s->rf.verdict, s->rf.row.id, s->rf.row.name, s->rf.row.scenario_sha256,
		 s->rf.verdict, s->rf.row.state, s->rf.store_sha256, s->rf.row.version, s->rf.row.git_rev);
	if (s->sign_key) {
		if ((rc = commit_signed(s->repo, s->refname, s->sig, msg, top, tip, s->sign_key, &s->commit_id, err))) {
			code = gl_ev_code_of(rc);
			goto out;
		}
	} else {
		/* update_ref with the tip as first parent: refused if it moved */
		const git_commit *parents[1] = { tip };
		if (git_commit_create(&s->commit_id, s->repo, s->refname, s->sig, s->sig, NULL, msg, top, tip ? 1 : 0,
				      parents) != 0) {
			gl_ev_git_fail(err, "commit");
			goto out;
		}
	}
	code = GL_EVIDENCE_OK;
out:
	git_treebuilder_free(tb);
	git_tree_free(top);
	git_commit_free(tip);
	git_reference_free(tip_ref);
	return code;
}

/* The annotated tag run/RUN_ID on the commit, signed when a key is given;
 * a new bare repository gets HEAD on the branch, so `git log` shows it.
 * Returns an exit code. */
static int seal_tag(struct seal *s, struct gl_err *err)
{
	git_object *target = NULL;
	git_oid tag_id;
	char msg[2048];
	int rc, code = GL_EVIDENCE_OK;

	if (!s->sig && signature(s->repo, &s->sig) != 0) {
		gl_ev_git_fail(err, "signature");
		return GL_EVIDENCE_ERROR;
	}
	snprintf(msg, sizeof(msg), "run %s: %s\n\nscenario: %s\nscenario_sha256: %s\nstore_sha256: %s\n", s->rf.row.id,
		 s->rf.verdict, s->rf.row.name, s->rf.row.scenario_sha256, s->rf.store_sha256);
	if (s->sign_key) {
		if ((rc = tag_signed(s->repo, s->tagname, &s->commit_id, s->sig, msg, s->sign_key, &tag_id, err)))
			code = gl_ev_code_of(rc);
	} else if (git_object_lookup(&target, s->repo, &s->commit_id, GIT_OBJECT_COMMIT) != 0 ||
		   git_tag_create(&tag_id, s->repo, s->tagname, target, s->sig, msg, 0) != 0) {
		gl_ev_git_fail(err, s->tagname);
		code = GL_EVIDENCE_ERROR;
	}
	git_object_free(target);
	if (code == GL_EVIDENCE_OK && git_repository_is_bare(s->repo) && git_repository_head_unborn(s->repo) == 1)
		git_repository_set_head(s->repo, s->refname);
	return code;
}

/* DIR/seal.json: where the run is sealed and each sealed file's blob id
 * (files goes into it). */
static int seal_record(struct seal *s, struct gl_err *err)
{
	cJSON *rec = cJSON_CreateObject();
	char hex[GIT_OID_HEXSZ + 1], repo_abs[PATH_MAX], wall[40];
	int rc;

	if (!realpath(s->repo_path, repo_abs))
		snprintf(repo_abs, sizeof(repo_abs), "%s", s->repo_path);
	cJSON_AddNumberToObject(rec, "seal_version", 1);
	cJSON_AddStringToObject(rec, "repo", repo_abs);
	cJSON_AddStringToObject(rec, "branch", s->branch);
	cJSON_AddStringToObject(rec, "tag", s->tagname);
	cJSON_AddStringToObject(rec, "commit", git_oid_tostr(hex, sizeof(hex), &s->commit_id));
	cJSON_AddStringToObject(rec, "path", s->rf.row.id);
	cJSON_AddStringToObject(rec, "run_id", s->rf.row.id);
	cJSON_AddStringToObject(rec, "scenario", s->rf.row.name);
	cJSON_AddStringToObject(rec, "scenario_sha256", s->rf.row.scenario_sha256);
	cJSON_AddStringToObject(rec, "verdict", s->rf.verdict);
	cJSON_AddStringToObject(rec, "store_sha256", s->rf.store_sha256);
	gl_format_wall(gl_wall_ns(), wall, sizeof(wall));
	cJSON_AddStringToObject(rec, "sealed", wall);
	cJSON_AddItemToObject(rec, "files", s->files);
	s->files = NULL;
	rc = write_seal_json(s->dir, rec, err);
	cJSON_Delete(rec);
	return rc;
}

int gl_seal(const char *dir, const char *repo_path, const char *sign_key, FILE *out, struct gl_err *err)
{
	struct seal s;
	char hex[GIT_OID_HEXSZ + 1];
	int code, done = 0;

	memset(&s, 0, sizeof(s));
	s.dir = dir;
	s.repo_path = repo_path;
	s.sign_key = sign_key;
	s.out = out;
	s.lock = -1;
	s.files = cJSON_CreateObject();
	git_libgit2_init();
	if ((code = seal_open(&s, err)) || (code = seal_names(&s, err)))
		goto out;
	if (build_run_tree(s.repo, dir, &s.rf, &s.run_tree, s.files, err)) {
		code = GL_EVIDENCE_ERROR;
		goto out;
	}
	if ((code = seal_sealed_before(&s, &done, err)))
		goto out;
	if (!done) {
		if ((code = seal_commit(&s, err)) || (code = seal_tag(&s, err)))
			goto out;
		fprintf(out, "sealed run %s (%s) in %s: commit %s on %s, tag %s, %d file(s)%s%s\n", s.rf.row.id,
			s.rf.verdict, repo_path, git_oid_tostr(hex, sizeof(hex), &s.commit_id), s.branch, s.tagname,
			cJSON_GetArraySize(s.files), s.created ? " (new bare repository)" : "",
			sign_key ? ", commit and tag signed (ssh)" : "");
	}
	code = seal_record(&s, err) == 0 ? GL_EVIDENCE_OK : GL_EVIDENCE_ERROR;
out:
	cJSON_Delete(s.files);
	git_signature_free(s.sig);
	git_repository_free(s.repo);
	git_libgit2_shutdown();
	free(s.rf.row.scenario_text);
	if (s.lock >= 0)
		close(s.lock);
	return code;
}
