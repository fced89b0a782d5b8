/*
 * store_rows.c - the rows that come with the load, in the batch: events
 * and requests (kept by the retention rule of store_keep.h) and failed
 * storage operations.
 */
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

int gl_store_request_put(struct gl_store *st, const struct gl_request_row *r)
{
	const int64_t v[] = { r->window,        r->endpoint,         r->t_intended,   r->t_send, r->t_headers,
			      r->t_first_event, r->t_first_token,    r->t_last_token, r->t_end,  r->input_tokens,
			      r->output_tokens, r->tokens_estimated, r->http_status };
	sqlite3_stmt *q = st->st_req;
	int rc;

	gl_store_txn(st);
	if ((rc = gl_keep_request(st->keep, st->db, r->window, r->error_class)) <= 0)
		return rc;
	for (int i = 0; i < (int)(sizeof(v) / sizeof(v[0])); i++) {
		/* -1 means "never happened": NULL in the store */
		if (i >= 2 && i <= 8 && v[i] < 0)
			sqlite3_bind_null(q, i + 1);
		else
			sqlite3_bind_int64(q, i + 1, v[i]);
	}
	if (r->error_class && r->error_class[0])
		sqlite3_bind_text(q, 14, r->error_class, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(q, 14);
	sqlite3_bind_int64(q, 15, r->max_stall_ns);
	if ((rc = gl_store_step_done(st, q)) == 0)
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
