/*
 * evidence.c - seal and verify (evidence.h): a run directory's reports,
 * scenario and store hash committed to a git repository through libgit2,
 * and the directory checked against that commit later.
 *
 * Seal builds the run's folder as a tree of blobs written straight into
 * the object database (streamed, no filters, no index, no work tree), puts
 * it into the tree of the branch's tip, commits with the tip as parent
 * (libgit2 refuses the ref update if the tip moved meanwhile), then tags
 * the commit. Verify never trusts DIR/seal.json's blob list alone: the
 * commit's tree is the reference, and files are hashed with
 * git_odb_hashfile, which reads them as the bytes they are.
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "analysis.h"
#include "evidence.h"
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
#define GATES_DIR "gates"
#define GATES_MAX_FILES 4096
#define SCENARIO_NAME "scenario.json"
#define STORE_HASH_NAME "store.sha256"
#define SEAL_JSON_MAX (1u << 20)
#define REPORT_JSON_MAX (256u << 20)

static int git_fail(struct gl_err *err, const char *what)
{
	const git_error *e = git_error_last();
	return gl_errf(err, GL_EIO, "%s: %s", what, e && e->message ? e->message : "libgit2 error");
}

/* Hold DIR/run.lock as the controller does, so no live run writes while
 * we hash. A directory we cannot write (a read-only copy) has no live run
 * writing into it either: then no lock is taken. Returns the fd, -1 when
 * none could be taken without it being held, -2 when a run holds it. */
static int lock_run(const char *dir)
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

static int file_sha256(const char *path, char hex[65], struct gl_err *err)
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
		rc = git_fail(err, path);
		goto out;
	}
	while ((n = fread(buf, 1, 1u << 16, f)) > 0) {
		if (total + n > (size_t)sb.st_size) {
			rc = gl_errf(err, GL_EIO, "%s: the file grew while it was sealed", path);
			goto out;
		}
		if (git_odb_stream_write(s, (const char *)buf, n) != 0) {
			rc = git_fail(err, path);
			goto out;
		}
		total += n;
	}
	if (ferror(f) || total != (size_t)sb.st_size) {
		rc = gl_errf(err, GL_EIO, "%s: %s", path, ferror(f) ? "read error" : "the file shrank while it was sealed");
		goto out;
	}
	if (git_odb_stream_finalize_write(id, s) != 0)
		rc = git_fail(err, path);
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
		return git_fail(err, path);
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
			return gl_errf(err, GL_EINVAL, "%s: not a git repository, and not an empty directory to make one in",
				       path);
	}
	io.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH;
	if (git_repository_init_ext(repo, path, &io) != 0)
		return git_fail(err, path);
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

/* A gate file name as gates.c writes them: letters, digits, '.', '_', '-',
 * not starting with '.'. */
static int gate_file_ok(const char *n)
{
	size_t len = strlen(n);
	if (len == 0 || len > 200 || n[0] == '.')
		return 0;
	for (; *n; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') || strchr("._-", *n)))
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
		return git_fail(err, "tree");
	}
	while ((de = readdir(d))) {
		if (!gate_file_ok(de->d_name))
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
			rc = git_fail(err, de->d_name);
			break;
		}
		snprintf(name, sizeof(name), "%s/%s", GATES_DIR, de->d_name);
		cJSON_AddStringToObject(files, name, git_oid_tostr(hex, sizeof(hex), &id));
	}
	closedir(d);
	if (rc == 0 && n > 0) {
		if (git_treebuilder_write(tree_id, tb) != 0)
			rc = git_fail(err, "tree");
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
		rc = gl_errf(err, GL_EINVAL, "%s: no report.json to seal (render it with `gauntlet report %s`)", dir, dir);
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
	gl_store_close(st);   /* checkpoints: run.db is whole from here */
	st = NULL;
	snprintf(path, sizeof(path), "%s/report.json", dir);
	if ((rc = gl_read_file(path, REPORT_JSON_MAX, &text, &len, err)))
		goto out;
	rep = cJSON_ParseWithLength(text, len);
	{
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(rep, "run"), "id"));
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rep, "verdict"));
		if (!id || !v || strcmp(id, rf->row.id) || strcmp(v, rf->verdict)) {
			rc = gl_errf(err, GL_EINVAL,
				     "%s/report.json does not match the store (report: run %s, verdict %s; store: run %s, "
				     "verdict %s): re-render it with `gauntlet report %s` and seal again",
				     dir, id ? id : "?", v ? v : "?", rf->row.id, rf->verdict, dir);
			goto out;
		}
	}
	snprintf(path, sizeof(path), "%s/run.db", dir);
	rc = file_sha256(path, rf->store_sha256, err);
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
		rc = git_fail(err, "tree");
		goto out;
	}
	for (size_t i = 0; i < GL_ARRAY_LEN(sealed_files); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sealed_files[i]);
		if (access(path, F_OK) != 0)
			continue;
		if ((rc = blob_from_file(repo, path, &id, err)))
			goto out;
		if (git_treebuilder_insert(NULL, tb, sealed_files[i], &id, GIT_FILEMODE_BLOB) != 0) {
			rc = git_fail(err, sealed_files[i]);
			goto out;
		}
		cJSON_AddStringToObject(files, sealed_files[i], git_oid_tostr(hex, sizeof(hex), &id));
	}
	{
		int any = 0;
		if ((rc = build_gates_tree(repo, dir, &id, &any, files, err)))
			goto out;
		if (any && git_treebuilder_insert(NULL, tb, GATES_DIR, &id, GIT_FILEMODE_TREE) != 0) {
			rc = git_fail(err, GATES_DIR);
			goto out;
		}
	}
	if (git_blob_create_from_buffer(&id, repo, rf->row.scenario_text, strlen(rf->row.scenario_text)) != 0 ||
	    git_treebuilder_insert(NULL, tb, SCENARIO_NAME, &id, GIT_FILEMODE_BLOB) != 0) {
		rc = git_fail(err, SCENARIO_NAME);
		goto out;
	}
	cJSON_AddStringToObject(files, SCENARIO_NAME, git_oid_tostr(hex, sizeof(hex), &id));
	snprintf(line, sizeof(line), "%s  run.db\n", rf->store_sha256);   /* sha256sum -c reads it */
	if (git_blob_create_from_buffer(&id, repo, line, strlen(line)) != 0 ||
	    git_treebuilder_insert(NULL, tb, STORE_HASH_NAME, &id, GIT_FILEMODE_BLOB) != 0) {
		rc = git_fail(err, STORE_HASH_NAME);
		goto out;
	}
	cJSON_AddStringToObject(files, STORE_HASH_NAME, git_oid_tostr(hex, sizeof(hex), &id));
	if (git_treebuilder_write(tree_id, tb) != 0)
		rc = git_fail(err, "tree");
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

/* Run folder id of run_id in commit c; 0, or -1 when it has none. */
static int run_folder(const git_commit *c, const char *run_id, git_oid *out)
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

static int code_of(int rc)
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
	return rc ? git_fail(err, refname) : 0;
}

/* Commit top as the branch's new tip, signed with key: libgit2's commit
 * buffer, signed by ssh-keygen, the signature put in the gpgsig header
 * (without its last newline: libgit2 continues every line of a header
 * with a space, and git writes no empty continuation line). Nothing is
 * written when signing fails. */
static int commit_signed(git_repository *repo, const char *refname, const git_signature *sig, const char *msg,
			 const git_tree *top, const git_commit *tip, const char *key, git_oid *id,
			 struct gl_err *err)
{
	git_buf buf = { 0 };
	const git_commit *parents[1] = { tip };
	char *armored = NULL;
	size_t n;
	int rc;

	if (git_commit_create_buffer(&buf, repo, sig, sig, NULL, msg, top, tip ? 1 : 0, parents) != 0)
		return git_fail(err, "commit");
	if ((rc = gl_sshsig_sign(key, buf.ptr, buf.size, &armored, err)))
		goto out;
	n = strlen(armored);
	while (n && armored[n - 1] == '\n')
		armored[--n] = '\0';
	if (git_commit_create_with_signature(id, repo, buf.ptr, armored, "gpgsig") != 0) {
		rc = git_fail(err, "signed commit");
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
		rc = git_fail(err, tagname);
out:
	free(armored);
	gl_buf_free(&b);
	return rc;
}

int gl_seal(const char *dir, const char *repo_path, const char *sign_key, FILE *out, struct gl_err *err)
{
	struct run_facts rf;
	git_repository *repo = NULL;
	git_reference *tip_ref = NULL, *tag_ref = NULL;
	git_commit *tip = NULL, *sealed = NULL;
	git_tree *top = NULL;
	git_treebuilder *tb = NULL;
	git_signature *sig = NULL;
	git_object *target = NULL;
	git_oid run_tree, top_id, commit_id, tag_id, old_run;
	cJSON *rec = cJSON_CreateObject(), *files = cJSON_CreateObject();
	char branch[GL_NAME_MAX * 2 + 16], refname[GL_NAME_MAX * 2 + 32], tagname[64], tagref[80];
	char hex[GIT_OID_HEXSZ + 1], repo_abs[PATH_MAX], msg[2048], wall[40];
	struct gl_buf names;
	int lock = -1, rc, code = GL_EVIDENCE_ERROR, created = 0, valid = 0, reuse_tip = 0;

	memset(&rf, 0, sizeof(rf));
	gl_buf_init(&names, 4096);
	git_libgit2_init();
	snprintf(msg, sizeof(msg), "%s/run.db", dir);
	if (access(msg, F_OK) != 0) {
		gl_errf(err, GL_EINVAL, "%s: no run store (run.db) here", dir);
		code = GL_EVIDENCE_BAD_INPUT;
		goto out;
	}
	/* Sealed evidence is signed off as ours: not a directory another user
	 * could have filled. */
	if (gl_path_trusted(dir, 1, err) != 0) {
		code = GL_EVIDENCE_BAD_INPUT;
		goto out;
	}
	/* the key before anything is written: a bad one leaves no commit */
	if (sign_key && gl_path_trusted(sign_key, 0, err) != 0) {
		code = GL_EVIDENCE_BAD_INPUT;
		goto out;
	}
	lock = lock_run(dir);
	if (lock == -2) {
		gl_errf(err, GL_EINVAL, "%s: a gauntlet is still running this run: seal it after it ends", dir);
		code = GL_EVIDENCE_BAD_INPUT;
		goto out;
	}
	if ((rc = read_run(dir, &rf, err))) {
		code = code_of(rc);
		goto out;
	}
	if (open_or_init(repo_path, &repo, &created, err) != 0) {
		code = err->code == GL_EINVAL ? GL_EVIDENCE_BAD_INPUT : GL_EVIDENCE_ERROR;
		goto out;
	}
	branch_name(rf.row.name, branch, sizeof(branch));
	snprintf(refname, sizeof(refname), "refs/heads/%s", branch);
	snprintf(tagname, sizeof(tagname), "run/%s", rf.row.id);
	snprintf(tagref, sizeof(tagref), "refs/tags/%s", tagname);
	if (git_reference_name_is_valid(&valid, refname) != 0 || !valid ||
	    git_reference_name_is_valid(&valid, tagref) != 0 || !valid) {
		gl_errf(err, GL_EINVAL, "cannot name a branch or tag from scenario '%s' and run '%s'", rf.row.name,
			rf.row.id);
		code = GL_EVIDENCE_BAD_INPUT;
		goto out;
	}
	if ((rc = build_run_tree(repo, dir, &rf, &run_tree, files, err)))
		goto out;

	/* Sealed before? The tag is the run's seal: same folder, nothing to
	 * do; another folder, refuse (evidence is never rewritten). */
	if (git_reference_lookup(&tag_ref, repo, tagref) == 0) {
		if (git_reference_peel((git_object **)&sealed, tag_ref, GIT_OBJECT_COMMIT) != 0 ||
		    run_folder(sealed, rf.row.id, &old_run) != 0) {
			gl_errf(err, GL_EINVAL, "%s: tag %s exists but does not name a commit with the run's folder",
				repo_path, tagname);
			code = GL_EVIDENCE_BAD_INPUT;
			goto out;
		}
		commit_id = *git_commit_id(sealed);
		if (git_oid_cmp(&old_run, &run_tree) != 0) {
			tree_diff_names(repo, &old_run, &run_tree, &names);
			fprintf(out, "MISMATCH: run %s was sealed before (commit %s, tag %s) with other content: %s\n",
				rf.row.id, git_oid_tostr(hex, sizeof(hex), &commit_id), tagname,
				names.data ? names.data : "?");
			code = GL_EVIDENCE_MISMATCH;
			goto out;
		}
		fprintf(out, "already sealed: run %s at commit %s (tag %s)%s\n", rf.row.id,
			git_oid_tostr(hex, sizeof(hex), &commit_id), tagname,
			sign_key ? "; sealed evidence is never rewritten, so not signed now" : "");
		goto record;
	}

	rc = git_reference_lookup(&tip_ref, repo, refname);
	if (rc == 0 && git_reference_peel((git_object **)&tip, tip_ref, GIT_OBJECT_COMMIT) != 0) {
		git_fail(err, refname);
		goto out;
	}
	if (rc != 0 && rc != GIT_ENOTFOUND) {
		git_fail(err, refname);
		goto out;
	}
	/* a seal that committed but died before tagging: tag that commit */
	reuse_tip = tip && run_folder(tip, rf.row.id, &old_run) == 0 && !git_oid_cmp(&old_run, &run_tree);
	if (reuse_tip) {
		commit_id = *git_commit_id(tip);
	} else {
		const git_commit *parents[1] = { tip };
		if ((tip && git_commit_tree(&top, tip) != 0) || git_treebuilder_new(&tb, repo, top) != 0 ||
		    git_treebuilder_insert(NULL, tb, rf.row.id, &run_tree, GIT_FILEMODE_TREE) != 0 ||
		    git_treebuilder_write(&top_id, tb) != 0) {
			git_fail(err, "tree");
			goto out;
		}
		git_tree_free(top);
		top = NULL;
		if (git_tree_lookup(&top, repo, &top_id) != 0 || signature(repo, &sig) != 0) {
			git_fail(err, "commit");
			goto out;
		}
		snprintf(msg, sizeof(msg),
			 "%s: run %s %s\n\nrun: %s\nscenario: %s\nscenario_sha256: %s\nverdict: %s\nstate: %s\n"
			 "store_sha256: %s (run.db)\ngauntlet: %s (%s)\n",
			 rf.row.name, rf.row.id, rf.verdict, rf.row.id, rf.row.name, rf.row.scenario_sha256, rf.verdict,
			 rf.row.state, rf.store_sha256, rf.row.version, rf.row.git_rev);
		if (sign_key) {
			if ((rc = commit_signed(repo, refname, sig, msg, top, tip, sign_key, &commit_id, err))) {
				code = code_of(rc);
				goto out;
			}
		/* update_ref with the tip as first parent: refused if it moved */
		} else if (git_commit_create(&commit_id, repo, refname, sig, sig, NULL, msg, top, tip ? 1 : 0,
					     parents) != 0) {
			git_fail(err, "commit");
			goto out;
		}
	}
	if (!sig && signature(repo, &sig) != 0) {
		git_fail(err, "signature");
		goto out;
	}
	snprintf(msg, sizeof(msg), "run %s: %s\n\nscenario: %s\nscenario_sha256: %s\nstore_sha256: %s\n", rf.row.id,
		 rf.verdict, rf.row.name, rf.row.scenario_sha256, rf.store_sha256);
	if (sign_key) {
		if ((rc = tag_signed(repo, tagname, &commit_id, sig, msg, sign_key, &tag_id, err))) {
			code = code_of(rc);
			goto out;
		}
	} else if (git_object_lookup(&target, repo, &commit_id, GIT_OBJECT_COMMIT) != 0 ||
		   git_tag_create(&tag_id, repo, tagname, target, sig, msg, 0) != 0) {
		git_fail(err, tagname);
		goto out;
	}
	/* a new bare repository: HEAD on the first branch, so `git log` shows it */
	if (git_repository_is_bare(repo) && git_repository_head_unborn(repo) == 1)
		git_repository_set_head(repo, refname);
	fprintf(out, "sealed run %s (%s) in %s: commit %s on %s, tag %s, %d file(s)%s%s\n", rf.row.id, rf.verdict,
		repo_path, git_oid_tostr(hex, sizeof(hex), &commit_id), branch, tagname, cJSON_GetArraySize(files),
		created ? " (new bare repository)" : "", sign_key ? ", commit and tag signed (ssh)" : "");
record:
	if (!realpath(repo_path, repo_abs))
		snprintf(repo_abs, sizeof(repo_abs), "%s", repo_path);
	cJSON_AddNumberToObject(rec, "seal_version", 1);
	cJSON_AddStringToObject(rec, "repo", repo_abs);
	cJSON_AddStringToObject(rec, "branch", branch);
	cJSON_AddStringToObject(rec, "tag", tagname);
	cJSON_AddStringToObject(rec, "commit", git_oid_tostr(hex, sizeof(hex), &commit_id));
	cJSON_AddStringToObject(rec, "path", rf.row.id);
	cJSON_AddStringToObject(rec, "run_id", rf.row.id);
	cJSON_AddStringToObject(rec, "scenario", rf.row.name);
	cJSON_AddStringToObject(rec, "scenario_sha256", rf.row.scenario_sha256);
	cJSON_AddStringToObject(rec, "verdict", rf.verdict);
	cJSON_AddStringToObject(rec, "store_sha256", rf.store_sha256);
	gl_format_wall(gl_wall_ns(), wall, sizeof(wall));
	cJSON_AddStringToObject(rec, "sealed", wall);
	cJSON_AddItemToObject(rec, "files", files);
	files = NULL;
	code = write_seal_json(dir, rec, err) == 0 ? GL_EVIDENCE_OK : GL_EVIDENCE_ERROR;
out:
	cJSON_Delete(rec);
	cJSON_Delete(files);
	gl_buf_free(&names);
	git_object_free(target);
	git_signature_free(sig);
	git_treebuilder_free(tb);
	git_tree_free(top);
	git_commit_free(sealed);
	git_commit_free(tip);
	git_reference_free(tag_ref);
	git_reference_free(tip_ref);
	git_repository_free(repo);
	git_libgit2_shutdown();
	free(rf.row.scenario_text);
	if (lock >= 0)
		close(lock);
	return code;
}

/* --- verify ------------------------------------------------------------ */

/* n_ok counts the sealed folder's entries that match (each report, each
 * gates/ file, scenario.json, store.sha256 for run.db), n_sig the good
 * signatures apart from them, so the file count is the same with and
 * without --allowed-signers. */
struct verdicts {
	FILE *out;
	int n_bad, n_ok, n_sig;
	struct gl_buf names;
};

static void mismatch(struct verdicts *v, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
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
		return git_fail(err, name);
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
		rc = git_fail(err, tag);
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
			rc = check_signature(v, name, allowed, text, (size_t)(at - text), at,
					     len - (size_t)(at - text), err);
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
		if (git_tree_entry_type(e) != GIT_OBJECT_BLOB || !gate_file_ok(git_tree_entry_name(e)))
			mismatch(v, name, "not a gate file in the sealed commit");
		else if (lstat(path, &st) != 0)
			mismatch(v, name, "sealed, but missing from %s", dir);
		else if (!S_ISREG(st.st_mode))
			mismatch(v, name, "is not a regular file any more");
		else if (git_odb_hashfile(&fid, path, GIT_OBJECT_BLOB) != 0)
			mismatch(v, name, "cannot be read: %s", strerror(errno));
		else if (git_oid_cmp(&fid, git_tree_entry_id(e)))
			mismatch(v, name, "differs from the sealed blob %s", git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(e)));
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

int gl_verify(const char *dir, const char *allowed_signers, FILE *out, struct gl_err *err)
{
	struct verdicts v = { out, 0, 0, 0, { 0 } };
	git_repository *repo = NULL;
	git_commit *commit = NULL, *tagged = NULL, *tip = NULL;
	git_reference *ref = NULL;
	git_tree *folder = NULL;
	git_blob *blob = NULL;
	git_oid cid, folder_id;
	cJSON *seal = NULL;
	char path[PATH_MAX], *text = NULL, *run_id = NULL, *scenario = NULL, store_hex[65], hex[GIT_OID_HEXSZ + 1];
	const char *repo_path, *commit_hex, *tag, *branch, *sealed_run;
	size_t len;
	int lock = -1, code = GL_EVIDENCE_BAD_INPUT, rc;

	gl_buf_init(&v.names, 4096);
	git_libgit2_init();
	snprintf(path, sizeof(path), "%s/seal.json", dir);
	if (gl_read_file(path, SEAL_JSON_MAX, &text, &len, err) != 0)
		goto out;
	seal = cJSON_ParseWithLength(text, len);
	repo_path = jstr(seal, "repo");
	commit_hex = jstr(seal, "commit");
	tag = jstr(seal, "tag");
	branch = jstr(seal, "branch");
	sealed_run = jstr(seal, "run_id");
	if (!repo_path || !commit_hex || !tag || !branch || !sealed_run || git_oid_fromstr(&cid, commit_hex) != 0) {
		gl_errf(err, GL_EINVAL, "%s: not a seal record (needs repo, commit, tag, branch and run_id)", path);
		goto out;
	}
	lock = lock_run(dir);
	if (lock == -2) {
		gl_errf(err, GL_EINVAL, "%s: a gauntlet is running this run: verify it after it ends", dir);
		goto out;
	}
	if (git_repository_open_ext(&repo, repo_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) != 0) {
		git_fail(err, repo_path);
		goto out;
	}
	if (git_commit_lookup(&commit, repo, &cid) != 0) {
		gl_errf(err, GL_EINVAL, "%s: the sealed commit %s is not in this repository", repo_path, commit_hex);
		goto out;
	}
	code = GL_EVIDENCE_ERROR;
	if (allowed_signers && (rc = check_signatures(&v, repo, &cid, tag, allowed_signers, err))) {
		code = code_of(rc);
		goto out;
	}

	/* the names that lead to the commit still do */
	snprintf(path, sizeof(path), "refs/tags/%s", tag);
	if (git_reference_lookup(&ref, repo, path) != 0)
		mismatch(&v, tag, "the tag is gone from %s", repo_path);
	else if (git_reference_peel((git_object **)&tagged, ref, GIT_OBJECT_COMMIT) != 0 ||
		 git_oid_cmp(git_commit_id(tagged), &cid))
		mismatch(&v, tag, "the tag names %s, not the sealed commit %s",
			 tagged ? git_oid_tostr(hex, sizeof(hex), git_commit_id(tagged)) : "no commit", commit_hex);
	git_reference_free(ref);
	ref = NULL;
	snprintf(path, sizeof(path), "refs/heads/%s", branch);
	if (git_reference_lookup(&ref, repo, path) != 0 ||
	    git_reference_peel((git_object **)&tip, ref, GIT_OBJECT_COMMIT) != 0)
		mismatch(&v, branch, "the branch is gone from %s", repo_path);
	else if (git_oid_cmp(git_commit_id(tip), &cid) && git_graph_descendant_of(repo, git_commit_id(tip), &cid) != 1)
		mismatch(&v, branch, "the branch no longer contains the sealed commit %s", commit_hex);

	if (run_folder(commit, sealed_run, &folder_id) != 0 || git_tree_lookup(&folder, repo, &folder_id) != 0) {
		mismatch(&v, sealed_run, "the sealed commit %s has no folder for the run", commit_hex);
		goto done;
	}
	snprintf(path, sizeof(path), "%s/run.db", dir);
	if ((rc = gl_store_read_sealed(path, &run_id, &scenario, err)) || (rc = file_sha256(path, store_hex, err))) {
		code = code_of(rc);
		goto out;
	}
	if (strcmp(run_id, sealed_run))
		mismatch(&v, "run.db", "holds run %s, the seal is for run %s", run_id, sealed_run);
	for (size_t i = 0; i < git_tree_entrycount(folder); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(folder, i);
		const char *name = git_tree_entry_name(e);
		const char *data;
		git_oid fid;

		git_blob_free(blob);
		blob = NULL;
		if (git_tree_entry_type(e) == GIT_OBJECT_TREE && !strcmp(name, GATES_DIR)) {
			verify_gates(repo, dir, git_tree_entry_id(e), &v);
			continue;
		}
		if (git_tree_entry_type(e) != GIT_OBJECT_BLOB || git_blob_lookup(&blob, repo, git_tree_entry_id(e)) != 0) {
			mismatch(&v, name, "not a readable blob in the sealed commit");
			continue;
		}
		data = git_blob_rawcontent(blob);
		if (!strcmp(name, STORE_HASH_NAME)) {
			if (git_blob_rawsize(blob) < 64 || strncmp(data, store_hex, 64))
				mismatch(&v, "run.db", "SHA-256 %s, sealed %.64s", store_hex,
					 git_blob_rawsize(blob) >= 64 ? data : "(unreadable)");
			else
				v.n_ok++;
		} else if (!strcmp(name, SCENARIO_NAME)) {
			if ((size_t)git_blob_rawsize(blob) != strlen(scenario) || memcmp(data, scenario, strlen(scenario)))
				mismatch(&v, name, "the scenario text in run.db differs from the sealed one");
			else
				v.n_ok++;
		} else {
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			if (access(path, F_OK) != 0)
				mismatch(&v, name, "sealed, but missing from %s", dir);
			else if (git_odb_hashfile(&fid, path, GIT_OBJECT_BLOB) != 0)
				mismatch(&v, name, "cannot be read: %s", strerror(errno));
			else if (git_oid_cmp(&fid, git_tree_entry_id(e)))
				mismatch(&v, name, "differs from the sealed blob %s",
					 git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(e)));
			else
				v.n_ok++;
		}
	}
	{
		/* seal.json's own list must not claim more than the commit holds */
		const cJSON *f;
		cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(seal, "files"))
			if (f->string && !tree_has_path(folder, f->string))
				mismatch(&v, f->string, "listed in seal.json but not in the sealed commit");
	}
done:
	if (v.n_bad) {
		fprintf(out, "verify: %d mismatch(es) against commit %s in %s: %s\n", v.n_bad, commit_hex, repo_path,
			v.names.data ? v.names.data : "");
		code = GL_EVIDENCE_MISMATCH;
	} else {
		fprintf(out, "verify: ok: %d sealed file(s) and run.db match commit %s (tag %s) in %s", v.n_ok,
			commit_hex, tag, repo_path);
		if (allowed_signers)
			fprintf(out, "; %d signature(s) good", v.n_sig);
		fputc('\n', out);
		code = GL_EVIDENCE_OK;
	}
out:
	git_blob_free(blob);
	git_tree_free(folder);
	git_commit_free(tip);
	git_commit_free(tagged);
	git_commit_free(commit);
	git_reference_free(ref);
	git_repository_free(repo);
	git_libgit2_shutdown();
	cJSON_Delete(seal);
	free(text);
	free(run_id);
	free(scenario);
	gl_buf_free(&v.names);
	if (lock >= 0)
		close(lock);
	return code;
}
