/*
 * store_int.h - the store's own: struct gl_store and the helpers its files
 * share (store.c opens and batches; store_run.c, store_journal.c,
 * store_rows.c and store_record.c write; store_read.c reads). Nothing outside
 * harness/core/store*.c includes it: the rest of gauntlet goes through
 * store.h.
 */
#ifndef GL_STORE_INT_H
#define GL_STORE_INT_H

#include <pthread.h>

#include <sqlite3.h>

#include "store.h"

/* request rows inserted by one statement (see n_req_held) */
#define GL_STORE_REQ_BATCH 16

struct gl_store {
	sqlite3 *db;
	int in_txn;
	sqlite3_stmt *st_wm; /* window metric upsert */
	sqlite3_stmt *st_win; /* window upsert */
	sqlite3_stmt *st_ev; /* event insert */
	sqlite3_stmt *st_req; /* request insert */
	/* Kept request rows whose seq nobody needs (no limit on their class),
	 * held to go in GL_STORE_REQ_BATCH at a time by st_req_n, in order;
	 * the rest go in before any other request row and at every commit
	 * (gl_store_request_drain), so the table reads the same. */
	sqlite3_stmt *st_req_n;
	struct {
		struct gl_request_row row;
		char error_class[32];
	} req_held[GL_STORE_REQ_BATCH];
	int n_req_held;
	sqlite3_stmt *st_node; /* node figure upsert */
	/* WAL checkpoints (which fsync the database) run on this thread with a
	 * connection of its own, so they never stall the event loop. */
	pthread_t ckpt_th;
	pthread_mutex_t ckpt_mu;
	pthread_cond_t ckpt_cv;
	int ckpt_on, ckpt_quit;
	int reader; /* gl_store_open_reader: never checkpoints */
	int no_sync; /* gl_store_no_sync: a simulation's store */
	/* exec_bound's statements, prepared once (their SQL is a literal) */
	struct {
		const char *sql;
		sqlite3_stmt *q;
	} cached[8];
	int wal_frames, wal_limit_frames; /* in the WAL after the last commit; the trim's mark */
	char *path;
	struct gl_keep *keep; /* what is kept of requests and debug events */
	/* the record types written so far: insert prepared once, and the
	 * rows of the current window (the bound) */
	struct {
		const struct gl_record_type *type;
		sqlite3_stmt *ins;
		int64_t window, rows, dropped;
	} rec[GL_STORE_RECORD_TYPES_MAX];
};

/* The held request rows into the table (store_rows.c). */
int gl_store_request_drain(struct gl_store *st);
/* The n-row request insert (store_rows.c): prepared by the caller. */
char *gl_store_request_sql(int n);

/* The open batch's transaction (BEGIN once; gl_store_flush commits it). */
int gl_store_txn(struct gl_store *st);
/* Step a kept statement in the batch, then reset it; -GL_EIO logged. */
int gl_store_step_done(struct gl_store *st, sqlite3_stmt *q);
/* Step q (finalized here) in the batch, then commit the batch. */
int gl_store_step_commit(struct gl_store *st, sqlite3_stmt *q, struct gl_err *err);
/* A write of n_ints integers then up to two texts, in the batch; sql must
 * be a string literal: the statement is kept, by its address. */
int gl_store_exec_bound(struct gl_store *st, const char *sql, int n_ints, const int64_t *ints, const char *text1,
			const char *text2);
/* Column i as text into out (a NULL column is ""), or a malloc'd copy
 * (NULL for a NULL column). */
void gl_store_col_text(sqlite3_stmt *q, int i, char *out, size_t n);
char *gl_store_col_dup(sqlite3_stmt *q, int i);

/* store_record.c: every registered record type's table, made where it is
 * missing (at open, after the migrations); the inserts finalized. */
int gl_store_records_create(sqlite3 *db, struct gl_err *err);
void gl_store_records_close(struct gl_store *st);

#endif
