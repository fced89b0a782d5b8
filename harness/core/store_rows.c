/*
 * store_rows.c - the rows that come with the load, in the batch: events
 * and requests (kept by the retention rule of store_keep.h) and failed
 * storage operations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"
#include "store_keep.h"

int gl_store_event(struct gl_store *st, int64_t elapsed_ns, const char *level, const char *source, const char *message)
{
	int keep;

	gl_store_txn(st);
	if ((keep = gl_keep_event(st->keep, st->db, elapsed_ns, level, source)) <= 0)
		return keep;
	sqlite3_bind_int64(st->st_ev, 1, elapsed_ns);
	sqlite3_bind_int64(st->st_ev, 2, gl_wall_ns());
	sqlite3_bind_text(st->st_ev, 3, level, -1, SQLITE_STATIC);
	sqlite3_bind_text(st->st_ev, 4, source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st->st_ev, 5, message, -1, SQLITE_STATIC);
	gl_store_txn(st);
	return gl_store_step_done(st, st->st_ev);
}

#define REQ_COLS 15

char *gl_store_request_sql(int n)
{
	static const char head[] = "INSERT INTO requests(window,endpoint,t_intended_ns,t_send_ns,t_headers_ns,"
				   "t_first_event_ns,t_first_token_ns,t_last_token_ns,t_end_ns,input_tokens,"
				   "output_tokens,tokens_estimated,http_status,error_class,max_stall_ns) VALUES";
	static const char one[] = "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	size_t len = sizeof(head) + (size_t)n * sizeof(one);
	char *sql = malloc(len), *o;

	if (!sql || n < 1) {
		free(sql);
		return NULL;
	}
	o = sql + snprintf(sql, len, "%s", head);
	for (int i = 0; i < n; i++)
		o += snprintf(o, len - (size_t)(o - sql), "%s%s", i ? "," : "", one);
	return sql;
}

/* Row r as the REQ_COLS parameters of q from base + 1 on. */
static void request_bind(sqlite3_stmt *q, int base, const struct gl_request_row *r)
{
	const int64_t v[] = { r->window,        r->endpoint,         r->t_intended,   r->t_send, r->t_headers,
			      r->t_first_event, r->t_first_token,    r->t_last_token, r->t_end,  r->input_tokens,
			      r->output_tokens, r->tokens_estimated, r->http_status };

	for (int i = 0; i < (int)(sizeof(v) / sizeof(v[0])); i++) {
		/* -1 means "never happened": NULL in the store */
		if (i >= 2 && i <= 8 && v[i] < 0)
			sqlite3_bind_null(q, base + i + 1);
		else
			sqlite3_bind_int64(q, base + i + 1, v[i]);
	}
	if (r->error_class && r->error_class[0])
		sqlite3_bind_text(q, base + 14, r->error_class, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(q, base + 14);
	sqlite3_bind_int64(q, base + 15, r->max_stall_ns);
}

int gl_store_request_drain(struct gl_store *st)
{
	int n = st->n_req_held, rc = 0;

	st->n_req_held = 0;
	if (n == GL_STORE_REQ_BATCH && st->st_req_n) {
		for (int i = 0; i < n; i++)
			request_bind(st->st_req_n, i * REQ_COLS, &st->req_held[i].row);
		return gl_store_step_done(st, st->st_req_n);
	}
	for (int i = 0; i < n; i++) {
		request_bind(st->st_req, 0, &st->req_held[i].row);
		if (gl_store_step_done(st, st->st_req) != 0)
			rc = -GL_EIO;
	}
	return rc;
}

int gl_store_request_put(struct gl_store *st, const struct gl_request_row *r)
{
	const char *ec = r->error_class ? r->error_class : "";
	int rc;

	gl_store_txn(st);
	if ((rc = gl_keep_request(st->keep, st->db, r->window, r->error_class)) <= 0)
		return rc;
	if (!gl_keep_request_tracked(st->keep) && strlen(ec) < sizeof(st->req_held[0].error_class)) {
		/* held: inserted with the next ones, in this transaction */
		int i = st->n_req_held++;
		st->req_held[i].row = *r;
		snprintf(st->req_held[i].error_class, sizeof(st->req_held[i].error_class), "%s", ec);
		st->req_held[i].row.error_class = st->req_held[i].error_class;
		gl_keep_request_kept(st->keep, 0);
		return st->n_req_held == GL_STORE_REQ_BATCH ? gl_store_request_drain(st) : 0;
	}
	/* its seq is needed now: the held rows go first, in order */
	if ((rc = gl_store_request_drain(st)) != 0)
		return rc;
	request_bind(st->st_req, 0, r);
	if ((rc = gl_store_step_done(st, st->st_req)) == 0)
		gl_keep_request_kept(st->keep, sqlite3_last_insert_rowid(st->db));
	return rc;
}

int gl_store_storage_op_put(struct gl_store *st, const struct gl_storage_op_row *r)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO storage_ops(window,op,bytes,latency_ns,error_class) "
			       "VALUES(?,?,?,?,?)",
			       -1, &q, NULL) != SQLITE_OK)
		return -GL_EIO;
	sqlite3_bind_int64(q, 1, r->window);
	sqlite3_bind_text(q, 2, r->op, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 3, (sqlite3_int64)r->bytes);
	sqlite3_bind_int64(q, 4, r->latency_ns);
	if (r->error_class && r->error_class[0])
		sqlite3_bind_text(q, 5, r->error_class, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, 5);
	gl_store_txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -GL_EIO;
}
