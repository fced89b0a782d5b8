/*
 * store_read.c - the store's readers: the window rows, one metric over the
 * windows, and the cursor over every window's figures (store.h). The
 * analysis, the reports and resume read the windows through these; no
 * other file speaks SQL to the store.
 */
#include "store_int.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gl_store_window_scan(struct gl_store *st, gl_store_window_fn fn, void *arg, struct gl_err *err)
{
	sqlite3_stmt *q;

	if (sqlite3_prepare_v2(st->db, "SELECT idx,complete FROM windows ORDER BY idx", -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	while (sqlite3_step(q) == SQLITE_ROW)
		fn(arg, sqlite3_column_int64(q, 0), sqlite3_column_int(q, 1));
	sqlite3_finalize(q);
	return 0;
}

int gl_store_metric_scan(struct gl_store *st, const char *name, gl_store_metric_fn fn, void *arg, struct gl_err *err)
{
	sqlite3_stmt *q;

	if (sqlite3_prepare_v2(st->db, "SELECT idx,hist,counter FROM window_metrics WHERE name=? ORDER BY idx", -1, &q,
			       NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const unsigned char *blob = sqlite3_column_type(q, 1) == SQLITE_BLOB ? sqlite3_column_blob(q, 1) : NULL;
		fn(arg, sqlite3_column_int64(q, 0), blob, blob ? (size_t)sqlite3_column_bytes(q, 1) : 0,
		   sqlite3_column_int64(q, 2));
	}
	sqlite3_finalize(q);
	return 0;
}

struct gl_store_figs {
	struct gl_store *st;
	sqlite3_stmt *q;
};

struct gl_store_figs *gl_store_figs_open(struct gl_store *st, int64_t idx, struct gl_err *err)
{
	struct gl_store_figs *c = calloc(1, sizeof(*c));
	const char *sql = idx < 0 ? "SELECT idx,name,hist,counter FROM window_metrics ORDER BY idx"
				  : "SELECT idx,name,hist,counter FROM window_metrics WHERE idx=?";

	if (!c) {
		gl_errf(err, GL_ENOMEM, "store: out of memory");
		return NULL;
	}
	c->st = st;
	if (sqlite3_prepare_v2(st->db, sql, -1, &c->q, NULL) != SQLITE_OK) {
		gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
		free(c);
		return NULL;
	}
	if (idx >= 0)
		sqlite3_bind_int64(c->q, 1, idx);
	return c;
}

int gl_store_figs_next(struct gl_store_figs *c, struct gl_store_fig *f, struct gl_err *err)
{
	int step = sqlite3_step(c->q);

	if (step == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW) {
		gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(c->st->db));
		return -1;
	}
	f->idx = sqlite3_column_int64(c->q, 0);
	f->name = (const char *)sqlite3_column_text(c->q, 1);
	/* NULL: a counter's row. Anything else is a histogram, even an empty
	 * blob (sqlite3_column_blob gives NULL for it), which then fails to
	 * deserialize as the corrupt row it is. */
	f->hist = NULL;
	f->hist_len = 0;
	if (sqlite3_column_type(c->q, 2) != SQLITE_NULL) {
		f->hist = sqlite3_column_blob(c->q, 2);
		f->hist_len = (size_t)sqlite3_column_bytes(c->q, 2);
		if (!f->hist)
			f->hist = "";
	}
	f->counter = sqlite3_column_int64(c->q, 3);
	return 1;
}

void gl_store_figs_close(struct gl_store_figs *c)
{
	if (c) {
		sqlite3_finalize(c->q);
		free(c);
	}
}

static const char *text(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return t ? (const char *)t : "";
}

/* Run sql and hand each row to row(), with fn (the address of the caller's
 * callback) and arg: until the end of the rows, a stop by the callback
 * (row's non-zero return) or an error. */
static int scan(struct gl_store *st, const char *sql, int (*row)(sqlite3_stmt *q, const void *fn, void *arg),
		const void *fn, void *arg, struct gl_err *err)
{
	sqlite3_stmt *q;
	int step, rc = 0;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	while (rc == 0 && (step = sqlite3_step(q)) == SQLITE_ROW)
		rc = row(q, fn, arg);
	if (rc == 0 && step != SQLITE_DONE)
		rc = gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	sqlite3_finalize(q);
	return rc;
}

static int preflight_row(sqlite3_stmt *q, const void *fn, void *arg)
{
	return (*(const gl_store_preflight_fn *)fn)(arg, text(q, 0), text(q, 1), sqlite3_column_int(q, 2), text(q, 3));
}

int gl_store_preflight_scan(struct gl_store *st, gl_store_preflight_fn fn, void *arg, struct gl_err *err)
{
	return scan(st, "SELECT subject,check_name,ok,detail FROM preflight ORDER BY seq", preflight_row, &fn, arg,
		    err);
}

static int gate_row(sqlite3_stmt *q, const void *fn, void *arg)
{
	struct gl_gate_row g;

	memset(&g, 0, sizeof(g));
	snprintf(g.id, sizeof(g.id), "%s", text(q, 0));
	snprintf(g.kind, sizeof(g.kind), "%s", text(q, 1));
	snprintf(g.host, sizeof(g.host), "%s", text(q, 2));
	snprintf(g.when, sizeof(g.when), "%s", text(q, 3));
	snprintf(g.status, sizeof(g.status), "%s", text(q, 4));
	snprintf(g.reason, sizeof(g.reason), "%s", text(q, 5));
	g.exit_status = sqlite3_column_int(q, 6);
	g.dur_s = sqlite3_column_double(q, 7);
	snprintf(g.file, sizeof(g.file), "%s", text(q, 8));
	g.results = (const char *)sqlite3_column_text(q, 9);
	return (*(const gl_store_gate_fn *)fn)(arg, &g);
}

int gl_store_gate_scan(struct gl_store *st, gl_store_gate_fn fn, void *arg, struct gl_err *err)
{
	return scan(st,
		    "SELECT id,kind,host,phase,status,reason,exit_status,dur_s,file,results FROM gates ORDER BY seq",
		    gate_row, &fn, arg, err);
}

static int problem_row(sqlite3_stmt *q, const void *fn, void *arg)
{
	return (*(const gl_store_event_fn *)fn)(arg, sqlite3_column_int64(q, 0), text(q, 1), text(q, 2));
}

int gl_store_problem_scan(struct gl_store *st, gl_store_event_fn fn, void *arg, struct gl_err *err)
{
	return scan(st, "SELECT elapsed_ns,source,message FROM events WHERE level IN ('warn','error') ORDER BY seq",
		    problem_row, &fn, arg, err);
}

static int window_row(sqlite3_stmt *q, const void *fn, void *arg)
{
	struct gl_store_window_row w = {
		.idx = sqlite3_column_int64(q, 0),
		.start_ns = sqlite3_column_int64(q, 1),
		.end_ns = sqlite3_column_int64(q, 2),
		.scn_start_ns = sqlite3_column_int64(q, 3),
		.scn_end_ns = sqlite3_column_int64(q, 4),
		.phase = sqlite3_column_int(q, 5),
		.complete = sqlite3_column_int(q, 6),
	};
	return (*(const gl_store_window_row_fn *)fn)(arg, &w);
}

int gl_store_window_rows(struct gl_store *st, gl_store_window_row_fn fn, void *arg, struct gl_err *err)
{
	return scan(st, "SELECT idx,start_ns,end_ns,scn_start_ns,scn_end_ns,phase,complete FROM windows ORDER BY idx",
		    window_row, &fn, arg, err);
}

static int open_row(sqlite3_stmt *q, const void *fn, void *arg)
{
	int64_t *v = arg;

	v[0] = sqlite3_column_int64(q, 0);
	v[1] = sqlite3_column_int64(q, 1);
	return 0;
}

int gl_store_window_open(struct gl_store *st, int64_t *idx, int64_t *start_ns)
{
	int64_t v[2] = { -1, 0 };

	if (scan(st, "SELECT idx,start_ns FROM windows WHERE complete=0 AND idx=(SELECT max(idx) FROM windows)",
		 open_row, NULL, v, NULL) != 0 ||
	    v[0] < 0)
		return 0;
	*idx = v[0];
	*start_ns = v[1];
	return 1;
}

/* Fold any WAL into run.db, then read its run id and scenario text without
 * writing anything (immutable: no -shm, no -wal, no locks). */
int gl_store_read_sealed(const char *db_path, char **run_id, char **scenario, struct gl_err *err)
{
	char wal[PATH_MAX], uri[PATH_MAX * 3 + 32];
	struct stat sb;
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	size_t k;
	int rc = 0;

	*run_id = *scenario = NULL;
	if (access(db_path, F_OK) != 0)
		return gl_errf(err, GL_EINVAL, "%s: no run store", db_path);
	snprintf(wal, sizeof(wal), "%s-wal", db_path);
	if (stat(wal, &sb) == 0 && sb.st_size > 0) {
		if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
		    sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL) != SQLITE_OK) {
			rc = gl_errf(err, GL_EIO, "%s: cannot checkpoint the store: %s", db_path,
				     db ? sqlite3_errmsg(db) : "out of memory");
			goto out;
		}
		sqlite3_close(db);
		db = NULL;
	}
	k = (size_t)snprintf(uri, sizeof(uri), "file:");
	for (const char *p = db_path; *p && k + 4 < sizeof(uri); p++) {
		if (*p == '?' || *p == '#' || *p == '%')
			k += (size_t)snprintf(uri + k, sizeof(uri) - k, "%%%02X", (unsigned char)*p);
		else
			uri[k++] = *p;
	}
	snprintf(uri + k, sizeof(uri) - k, "?immutable=1");
	if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT id, scenario_text FROM run", -1, &q, NULL) != SQLITE_OK) {
		rc = gl_errf(err, GL_EIO, "%s: cannot read the store: %s", db_path,
			     db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	if (sqlite3_step(q) != SQLITE_ROW) {
		rc = gl_errf(err, GL_EINVAL, "%s: the store holds no run", db_path);
		goto out;
	}
	*run_id = strdup(sqlite3_column_text(q, 0) ? (const char *)sqlite3_column_text(q, 0) : "");
	*scenario = malloc((size_t)sqlite3_column_bytes(q, 1) + 1);
	if (!*run_id || !*scenario) {
		rc = gl_errf(err, GL_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(*scenario, sqlite3_column_blob(q, 1) ? sqlite3_column_blob(q, 1) : "",
	       (size_t)sqlite3_column_bytes(q, 1));
	(*scenario)[sqlite3_column_bytes(q, 1)] = '\0';
out:
	sqlite3_finalize(q);
	sqlite3_close(db);
	if (rc) {
		free(*run_id);
		free(*scenario);
		*run_id = *scenario = NULL;
	}
	return rc;
}
