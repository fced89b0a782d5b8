/*
 * store_run.c - the run's own rows in the store: the run row and its
 * progress, the outages, the phases and the windows with their metrics.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

#include "nodes.h"

int gl_store_run_create(struct gl_store *st, const struct gl_run_row *r, struct gl_err *err)
{
	sqlite3_stmt *q;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO run(id,name,scenario_path,scenario_text,scenario_sha256,sets,"
			       "time_scale,window_ns,duration_ns,started_wall_ns,state,elapsed_ns,version,"
			       "git_rev,hostname) VALUES(?,?,?,?,?,?,?,?,?,?,'running',0,?,?,?)",
			       -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	sqlite3_bind_text(q, 1, r->id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 2, r->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 3, r->scenario_path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 4, r->scenario_text, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 5, r->scenario_sha256, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 6, r->sets_json ? r->sets_json : "[]", -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(q, 7, r->time_scale);
	sqlite3_bind_int64(q, 8, r->window_ns);
	sqlite3_bind_int64(q, 9, r->duration_ns);
	sqlite3_bind_int64(q, 10, r->started_wall_ns);
	sqlite3_bind_text(q, 11, r->version, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 12, r->git_rev, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 13, r->hostname, -1, SQLITE_TRANSIENT);
	return gl_store_step_commit(st, q, err);
}

int gl_store_run_load(struct gl_store *st, struct gl_run_row *r, struct gl_err *err)
{
	sqlite3_stmt *q;
	int rc;

	memset(r, 0, sizeof(*r));
	if (sqlite3_prepare_v2(st->db,
			       "SELECT id,name,scenario_path,scenario_text,scenario_sha256,sets,time_scale,"
			       "window_ns,duration_ns,started_wall_ns,ended_wall_ns,state,verdict,exit_code,"
			       "elapsed_ns,resumes,version,git_rev,hostname,progress_wall_ns FROM run LIMIT 1",
			       -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	rc = sqlite3_step(q);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(q);
		return gl_errf(err, GL_ESTATE, "store: no run recorded");
	}
	gl_store_col_text(q, 0, r->id, sizeof(r->id));
	gl_store_col_text(q, 1, r->name, sizeof(r->name));
	gl_store_col_text(q, 2, r->scenario_path, sizeof(r->scenario_path));
	r->scenario_text = gl_store_col_dup(q, 3);
	gl_store_col_text(q, 4, r->scenario_sha256, sizeof(r->scenario_sha256));
	r->sets_json = gl_store_col_dup(q, 5);
	r->time_scale = sqlite3_column_double(q, 6);
	r->window_ns = sqlite3_column_int64(q, 7);
	r->duration_ns = sqlite3_column_int64(q, 8);
	r->started_wall_ns = sqlite3_column_int64(q, 9);
	r->ended_wall_ns = sqlite3_column_int64(q, 10);
	gl_store_col_text(q, 11, r->state, sizeof(r->state));
	gl_store_col_text(q, 12, r->verdict, sizeof(r->verdict));
	r->exit_code = sqlite3_column_int(q, 13);
	r->elapsed_ns = sqlite3_column_int64(q, 14);
	r->resumes = sqlite3_column_int(q, 15);
	gl_store_col_text(q, 16, r->version, sizeof(r->version));
	gl_store_col_text(q, 17, r->git_rev, sizeof(r->git_rev));
	gl_store_col_text(q, 18, r->hostname, sizeof(r->hostname));
	r->progress_wall_ns = sqlite3_column_int64(q, 19); /* NULL (never committed): 0 */
	sqlite3_finalize(q);
	if (!r->scenario_text)
		return gl_errf(err, GL_ESTATE, "store: run has no scenario text");
	return 0;
}

void gl_run_row_free(struct gl_run_row *r)
{
	free(r->scenario_text);
	free(r->sets_json);
	r->scenario_text = r->sets_json = NULL;
}

int gl_store_run_progress(struct gl_store *st, int64_t elapsed_ns)
{
	int64_t v[2] = { elapsed_ns, gl_wall_ns() };
	return gl_store_exec_bound(st, "UPDATE run SET elapsed_ns=?, progress_wall_ns=?", 2, v, NULL, NULL);
}

int gl_store_outage_put(struct gl_store *st, const struct gl_outage_row *o)
{
	int64_t v[4] = { o->resume, o->at_elapsed_ns, o->down_wall_ns, o->resumed_wall_ns };
	int rc =
		gl_store_exec_bound(st,
				    "INSERT OR REPLACE INTO outages(resume,at_elapsed_ns,down_wall_ns,resumed_wall_ns) "
				    "VALUES(?,?,?,?)",
				    4, v, NULL, NULL);
	return rc ? rc : gl_store_flush(st, NULL);
}

int gl_store_outage_list(struct gl_store *st, struct gl_outage_row **out, int *n, struct gl_err *err)
{
	sqlite3_stmt *q;
	int cap = 0;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT resume,at_elapsed_ns,down_wall_ns,resumed_wall_ns FROM outages "
			       "ORDER BY resume",
			       -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	while (sqlite3_step(q) == SQLITE_ROW) {
		if (*n == cap) {
			struct gl_outage_row *no;
			cap = cap ? cap * 2 : 8;
			no = realloc(*out, sizeof(*no) * (size_t)cap);
			if (!no) {
				sqlite3_finalize(q);
				free(*out);
				*out = NULL;
				*n = 0;
				return gl_errf(err, GL_ENOMEM, "store: out of memory");
			}
			*out = no;
		}
		(*out)[*n].resume = sqlite3_column_int(q, 0);
		(*out)[*n].at_elapsed_ns = sqlite3_column_int64(q, 1);
		(*out)[*n].down_wall_ns = sqlite3_column_int64(q, 2);
		(*out)[*n].resumed_wall_ns = sqlite3_column_int64(q, 3);
		(*n)++;
	}
	sqlite3_finalize(q);
	return 0;
}

int gl_store_run_finish(struct gl_store *st, const char *state, const char *verdict, int exit_code,
			int64_t ended_wall_ns)
{
	int64_t v[2] = { exit_code, ended_wall_ns };
	int rc = gl_store_exec_bound(st, "UPDATE run SET exit_code=?, ended_wall_ns=?, state=?, verdict=?", 2, v, state,
				     verdict);
	return rc ? rc : gl_store_flush(st, NULL);
}

int gl_store_run_resumed(struct gl_store *st, int resumes)
{
	int64_t v = resumes;
	int rc = gl_store_exec_bound(st,
				     "UPDATE run SET resumes=?, state='running', verdict=NULL, exit_code=NULL, "
				     "ended_wall_ns=NULL",
				     1, &v, NULL, NULL);
	return rc ? rc : gl_store_flush(st, NULL);
}

int gl_store_run_set(struct gl_store *st, const char *column, int64_t value)
{
	/* one column so far; exec_bound keeps statements by the address of
	 * their SQL, which must be a literal */
	if (strcmp(column, "generator_saturated") != 0)
		return -GL_EINVAL;
	return gl_store_exec_bound(st, "UPDATE run SET generator_saturated=?", 1, &value, NULL, NULL);
}

int gl_store_phase_put(struct gl_store *st, int idx, const char *name, int64_t start_ns, int64_t end_ns, double load,
		       const char *scope)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT OR REPLACE INTO phases(idx,name,start_ns,end_ns,load,scope) "
			       "VALUES(?,?,?,?,?,?)",
			       -1, &q, NULL) != SQLITE_OK)
		return -GL_EIO;
	sqlite3_bind_int(q, 1, idx);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 3, start_ns);
	sqlite3_bind_int64(q, 4, end_ns);
	sqlite3_bind_double(q, 5, load);
	sqlite3_bind_text(q, 6, scope, -1, SQLITE_TRANSIENT);
	gl_store_txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -GL_EIO;
}

int gl_store_window_put(struct gl_store *st, int64_t idx, int64_t start_ns, int64_t end_ns, int64_t scn_start_ns,
			int64_t scn_end_ns, int phase, int complete)
{
	sqlite3_bind_int64(st->st_win, 1, idx);
	sqlite3_bind_int64(st->st_win, 2, start_ns);
	sqlite3_bind_int64(st->st_win, 3, end_ns);
	sqlite3_bind_int64(st->st_win, 4, scn_start_ns);
	sqlite3_bind_int64(st->st_win, 5, scn_end_ns);
	sqlite3_bind_int(st->st_win, 6, phase);
	sqlite3_bind_int(st->st_win, 7, complete);
	gl_store_txn(st);
	return gl_store_step_done(st, st->st_win);
}

int gl_store_window_drop(struct gl_store *st, int64_t idx)
{
	int rc = gl_store_exec_bound(st, "DELETE FROM windows WHERE idx=?", 1, &idx, NULL, NULL);
	rc = rc ? rc : gl_store_exec_bound(st, "DELETE FROM node_figures WHERE idx=?", 1, &idx, NULL, NULL);
	return rc ? rc : gl_store_exec_bound(st, "DELETE FROM window_metrics WHERE idx=?", 1, &idx, NULL, NULL);
}

int gl_store_node_put(struct gl_store *st, const struct gl_node_fig *f)
{
	sqlite3_bind_int64(st->st_node, 1, f->idx);
	sqlite3_bind_text(st->st_node, 2, f->workload, -1, SQLITE_STATIC);
	sqlite3_bind_text(st->st_node, 3, f->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st->st_node, 4, f->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st->st_node, 5, f->host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st->st_node, 6, f->figure, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st->st_node, 7, f->n);
	sqlite3_bind_double(st->st_node, 8, f->sum);
	sqlite3_bind_double(st->st_node, 9, f->max);
	gl_store_txn(st);
	return gl_store_step_done(st, st->st_node);
}

int gl_store_nodes_scan(struct gl_store *st, int64_t idx, void (*fn)(void *arg, const struct gl_node_fig *f), void *arg,
			struct gl_err *err)
{
	sqlite3_stmt *q;
	struct gl_node_fig f;
	const char *sql = idx < 0 ? "SELECT idx,workload,kind,name,host,figure,n,sum,max FROM node_figures ORDER BY idx"
				  : "SELECT idx,workload,kind,name,host,figure,n,sum,max FROM node_figures WHERE idx=?";

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		/* a store read as it is, older than the table: no node figures */
		if (strstr(sqlite3_errmsg(st->db), "no such table"))
			return 0;
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	}
	if (idx >= 0)
		sqlite3_bind_int64(q, 1, idx);
	while (sqlite3_step(q) == SQLITE_ROW) {
		memset(&f, 0, sizeof(f));
		f.idx = sqlite3_column_int64(q, 0);
		gl_store_col_text(q, 1, f.workload, sizeof(f.workload));
		gl_store_col_text(q, 2, f.kind, sizeof(f.kind));
		gl_store_col_text(q, 3, f.name, sizeof(f.name));
		gl_store_col_text(q, 4, f.host, sizeof(f.host));
		gl_store_col_text(q, 5, f.figure, sizeof(f.figure));
		f.n = sqlite3_column_int64(q, 6);
		f.sum = sqlite3_column_double(q, 7);
		f.max = sqlite3_column_double(q, 8);
		fn(arg, &f);
	}
	sqlite3_finalize(q);
	return 0;
}

int gl_store_window_metric_put(struct gl_store *st, int64_t idx, const char *name, const unsigned char *hist,
			       size_t hist_len, int64_t counter)
{
	sqlite3_bind_int64(st->st_wm, 1, idx);
	sqlite3_bind_text(st->st_wm, 2, name, -1, SQLITE_STATIC);
	if (hist)
		sqlite3_bind_blob(st->st_wm, 3, hist, (int)hist_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st->st_wm, 3);
	sqlite3_bind_int64(st->st_wm, 4, counter);
	gl_store_txn(st);
	return gl_store_step_done(st, st->st_wm);
}
