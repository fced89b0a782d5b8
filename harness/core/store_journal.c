/*
 * store_journal.c - the rows the store commits at once, before the caller
 * acts on them: the fault journal, the children a workload started, the
 * gates, the preflight checks and the documents kept with the run.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

int gl_store_fault_put(struct gl_store *st, const struct gl_fault_row *f, struct gl_err *err)
{
	sqlite3_stmt *q;
	int rc;

	/* Commit the sample batch first, then the journal row in a transaction
	 * of its own under synchronous=FULL (changed only between transactions). */
	if ((rc = gl_store_flush(st, err)))
		return rc;
	sqlite3_exec(st->db, st->no_sync ? "PRAGMA synchronous=OFF" : "PRAGMA synchronous=FULL", NULL, NULL, NULL);
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO faults(id,kind,method,target,at_ns,dur_ns,plan,state,verified,"
			       "verified_revert,injected_elapsed_ns,reverted_elapsed_ns,injected_scn_ns,"
			       "reverted_scn_ns,error,updated_wall_ns,measured,deadman,reverted_by) "
			       "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
			       "ON CONFLICT(id) DO UPDATE SET plan=excluded.plan, state=excluded.state,"
			       " verified=excluded.verified, verified_revert=excluded.verified_revert,"
			       " injected_elapsed_ns=excluded.injected_elapsed_ns,"
			       " reverted_elapsed_ns=excluded.reverted_elapsed_ns,"
			       " injected_scn_ns=excluded.injected_scn_ns, reverted_scn_ns=excluded.reverted_scn_ns,"
			       " error=excluded.error, updated_wall_ns=excluded.updated_wall_ns,"
			       " measured=excluded.measured, deadman=excluded.deadman,"
			       " reverted_by=excluded.reverted_by",
			       -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	sqlite3_bind_text(q, 1, f->id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 2, f->kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 3, f->method, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 4, f->target, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 5, f->at_ns);
	sqlite3_bind_int64(q, 6, f->dur_ns);
	if (f->plan)
		sqlite3_bind_text(q, 7, f->plan, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 8, gl_fault_state_name(f->state), -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 9, f->verified);
	sqlite3_bind_int(q, 10, f->verified_revert);
	sqlite3_bind_int64(q, 11, f->injected_elapsed_ns);
	sqlite3_bind_int64(q, 12, f->reverted_elapsed_ns);
	sqlite3_bind_int64(q, 13, f->injected_scn_ns);
	sqlite3_bind_int64(q, 14, f->reverted_scn_ns);
	sqlite3_bind_text(q, 15, f->error, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 16, gl_wall_ns());
	if (f->measured[0])
		sqlite3_bind_text(q, 17, f->measured, -1, SQLITE_TRANSIENT);
	if (f->deadman[0])
		sqlite3_bind_text(q, 18, f->deadman, -1, SQLITE_TRANSIENT);
	if (f->reverted_by[0])
		sqlite3_bind_text(q, 19, f->reverted_by, -1, SQLITE_TRANSIENT);
	gl_store_txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		gl_store_flush(st, NULL);
		sqlite3_exec(st->db, st->no_sync ? "PRAGMA synchronous=OFF" : "PRAGMA synchronous=NORMAL", NULL, NULL,
			     NULL);
		return gl_errf(err, GL_EIO, "store: fault journal: %s", sqlite3_errmsg(st->db));
	}
	/* The journal must be durable before the caller acts on it. */
	rc = gl_store_flush(st, err);
	sqlite3_exec(st->db, st->no_sync ? "PRAGMA synchronous=OFF" : "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
	return rc;
}

int gl_store_fault_list(struct gl_store *st, struct gl_fault_row **out, int *n, struct gl_err *err)
{
	sqlite3_stmt *q;
	struct gl_fault_row *rows = NULL;
	int cnt = 0, cap = 0;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT id,kind,method,target,at_ns,dur_ns,plan,state,verified,verified_revert,"
			       "injected_elapsed_ns,reverted_elapsed_ns,injected_scn_ns,reverted_scn_ns,error,measured,"
			       "deadman,reverted_by FROM faults ORDER BY seq",
			       -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct gl_fault_row *f;
		if (cnt == cap) {
			struct gl_fault_row *nr;
			cap = cap ? cap * 2 : 16;
			nr = realloc(rows, sizeof(*rows) * (size_t)cap);
			if (!nr) {
				sqlite3_finalize(q);
				gl_fault_rows_free(rows, cnt);
				return gl_errf(err, GL_ENOMEM, "store: out of memory");
			}
			rows = nr;
		}
		f = &rows[cnt++];
		memset(f, 0, sizeof(*f));
		gl_store_col_text(q, 0, f->id, sizeof(f->id));
		gl_store_col_text(q, 1, f->kind, sizeof(f->kind));
		gl_store_col_text(q, 2, f->method, sizeof(f->method));
		gl_store_col_text(q, 3, f->target, sizeof(f->target));
		f->at_ns = sqlite3_column_int64(q, 4);
		f->dur_ns = sqlite3_column_int64(q, 5);
		f->plan = gl_store_col_dup(q, 6);
		{
			const char *t = (const char *)sqlite3_column_text(q, 7);
			int k = gl_fault_state_parse(t);
			if (k < 0) {
				gl_errf(err, GL_EIO, "store: fault '%s': unknown state '%s' in the journal", f->id,
					t ? t : "");
				sqlite3_finalize(q);
				gl_fault_rows_free(rows, cnt);
				return -GL_EIO;
			}
			f->state = (enum gl_fault_state)k;
		}
		f->verified = sqlite3_column_int(q, 8);
		f->verified_revert = sqlite3_column_int(q, 9);
		f->injected_elapsed_ns = sqlite3_column_int64(q, 10);
		f->reverted_elapsed_ns = sqlite3_column_int64(q, 11);
		f->injected_scn_ns = sqlite3_column_int64(q, 12);
		f->reverted_scn_ns = sqlite3_column_int64(q, 13);
		gl_store_col_text(q, 14, f->error, sizeof(f->error));
		gl_store_col_text(q, 15, f->measured, sizeof(f->measured));
		gl_store_col_text(q, 16, f->deadman, sizeof(f->deadman));
		gl_store_col_text(q, 17, f->reverted_by, sizeof(f->reverted_by));
	}
	sqlite3_finalize(q);
	*out = rows;
	*n = cnt;
	return 0;
}

void gl_fault_rows_free(struct gl_fault_row *rows, int n)
{
	for (int i = 0; i < n; i++)
		free(rows[i].plan);
	free(rows);
}

int gl_store_preflight_put(struct gl_store *st, const char *subject, const char *check, int ok, const char *detail)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO preflight(wall_ns,subject,check_name,ok,detail) "
			       "VALUES(?,?,?,?,?)",
			       -1, &q, NULL) != SQLITE_OK)
		return -GL_EIO;
	sqlite3_bind_int64(q, 1, gl_wall_ns());
	sqlite3_bind_text(q, 2, subject, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 3, check, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(q, 4, ok);
	sqlite3_bind_text(q, 5, detail ? detail : "", -1, SQLITE_TRANSIENT);
	gl_store_txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -GL_EIO;
}

int gl_store_gate_put(struct gl_store *st, const struct gl_gate_row *g, struct gl_err *err)
{
	sqlite3_stmt *q;
	size_t raw_n = g->raw_len > GL_GATE_RAW_MAX ? GL_GATE_RAW_MAX : g->raw_len;
	int rc;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO gates(id,kind,host,phase,status,reason,exit_status,"
			       "started_wall_ns,dur_s,file,results,raw,raw_bytes) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	sqlite3_bind_text(q, 1, g->id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 2, g->kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 3, g->host, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 4, g->when, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 5, g->status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 6, g->reason, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(q, 7, g->exit_status);
	sqlite3_bind_int64(q, 8, g->started_wall_ns);
	sqlite3_bind_double(q, 9, g->dur_s);
	sqlite3_bind_text(q, 10, g->file, -1, SQLITE_TRANSIENT);
	if (g->results)
		sqlite3_bind_text(q, 11, g->results, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, 11);
	sqlite3_bind_blob64(q, 12, g->raw ? g->raw : "", raw_n, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 13, (int64_t)g->raw_len);
	gl_store_txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return gl_errf(err, GL_EIO, "store: gate %s on %s: %s", g->id, g->host, sqlite3_errmsg(st->db));
	return gl_store_flush(st, err);
}

int gl_store_gate_passed(struct gl_store *st, const char *id, const char *host, const char *when)
{
	sqlite3_stmt *q;
	int n = 0;

	if (sqlite3_prepare_v2(st->db,
			       "SELECT count(*) FROM gates WHERE id=? AND host=? AND phase=? AND "
			       "status IN ('pass','warn')",
			       -1, &q, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(q, 1, id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 2, host, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 3, when, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return n > 0;
}

int gl_store_doc_put(struct gl_store *st, const char *key, const char *json, struct gl_err *err)
{
	sqlite3_stmt *q;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO docs(key,wall_ns,body) VALUES(?,?,?) ON CONFLICT(key) "
			       "DO UPDATE SET wall_ns=excluded.wall_ns, body=excluded.body",
			       -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	sqlite3_bind_text(q, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 2, gl_wall_ns());
	sqlite3_bind_text(q, 3, json, -1, SQLITE_TRANSIENT);
	return gl_store_step_commit(st, q, err);
}

int gl_store_doc_get(struct gl_store *st, const char *key, char **out, struct gl_err *err)
{
	sqlite3_stmt *q;
	int rc;

	*out = NULL;
	if (sqlite3_prepare_v2(st->db, "SELECT body FROM docs WHERE key=?", -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	sqlite3_bind_text(q, 1, key, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*out = gl_store_col_dup(q, 0);
		rc = *out ? 0 : gl_errf(err, GL_ENOMEM, "store: out of memory");
	} else {
		rc = rc == SQLITE_DONE ? 0 : gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	}
	sqlite3_finalize(q);
	return rc;
}

int64_t gl_store_child_put(struct gl_store *st, const struct gl_child_row *c, struct gl_err *err)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO children(source,what,pid,pgid,start_ticks,boot_id,hostname,"
			       "started_wall_ns) VALUES(?,?,?,?,?,?,?,?)",
			       -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	sqlite3_bind_text(q, 1, c->source, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 2, c->what, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 3, c->pid);
	sqlite3_bind_int64(q, 4, c->pgid);
	sqlite3_bind_int64(q, 5, (int64_t)c->start_ticks);
	sqlite3_bind_text(q, 6, c->boot_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 7, c->hostname, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 8, c->started_wall_ns);
	gl_store_txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return gl_errf(err, GL_EIO, "store: children: %s", sqlite3_errmsg(st->db));
	/* durable before the child may run (it waits on its gate) */
	if ((rc = gl_store_flush(st, err)))
		return rc;
	return sqlite3_last_insert_rowid(st->db);
}

int gl_store_child_ended(struct gl_store *st, int64_t seq)
{
	int64_t v[2] = { gl_wall_ns(), seq };
	return gl_store_exec_bound(st, "UPDATE children SET ended_wall_ns=? WHERE seq=? AND ended_wall_ns IS NULL", 2,
				   v, NULL, NULL);
}

int gl_store_child_list(struct gl_store *st, struct gl_child_row **out, int *n, struct gl_err *err)
{
	sqlite3_stmt *q;
	struct gl_child_row *rows = NULL;
	int cap = 0, rc;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT seq,source,what,pid,pgid,start_ticks,boot_id,hostname,started_wall_ns "
			       "FROM children WHERE ended_wall_ns IS NULL ORDER BY seq",
			       -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct gl_child_row *r;
		if (*n == cap) {
			struct gl_child_row *bigger = realloc(rows, (size_t)(cap = cap ? 2 * cap : 8) * sizeof(*rows));
			if (!bigger) {
				free(rows);
				sqlite3_finalize(q);
				return gl_errf(err, GL_ENOMEM, "store: out of memory");
			}
			rows = bigger;
		}
		r = &rows[(*n)++];
		memset(r, 0, sizeof(*r));
		r->seq = sqlite3_column_int64(q, 0);
		gl_store_col_text(q, 1, r->source, sizeof(r->source));
		gl_store_col_text(q, 2, r->what, sizeof(r->what));
		r->pid = (int)sqlite3_column_int64(q, 3);
		r->pgid = (int)sqlite3_column_int64(q, 4);
		r->start_ticks = (uint64_t)sqlite3_column_int64(q, 5);
		gl_store_col_text(q, 6, r->boot_id, sizeof(r->boot_id));
		gl_store_col_text(q, 7, r->hostname, sizeof(r->hostname));
		r->started_wall_ns = sqlite3_column_int64(q, 8);
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		free(rows);
		*n = 0;
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	}
	*out = rows;
	return 0;
}
