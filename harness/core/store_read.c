/*
 * store_read.c - the store's readers: the window rows, one metric over the
 * windows, and the cursor over every window's figures (store.h). The
 * analysis, the reports and resume read the windows through these; no
 * other file speaks SQL to the store.
 */
#include "store_int.h"

#include <stdlib.h>

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
