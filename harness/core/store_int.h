/*
 * store_int.h - the store's own: struct gl_store, shared by the store's
 * files (store.c writes and opens, store_read.c reads). Nothing outside
 * harness/core/store*.c includes it: the rest of gauntlet goes through
 * store.h.
 */
#ifndef GL_STORE_INT_H
#define GL_STORE_INT_H

#include <pthread.h>

#include <sqlite3.h>

#include "store.h"

struct gl_store {
	sqlite3 *db;
	int in_txn;
	sqlite3_stmt *st_wm;       /* window metric upsert */
	sqlite3_stmt *st_win;      /* window upsert */
	sqlite3_stmt *st_ev;       /* event insert */
	sqlite3_stmt *st_req;      /* request insert */
	sqlite3_stmt *st_train;    /* training step insert */
	/* WAL checkpoints (which fsync the database) run on this thread with a
	 * connection of its own, so they never stall the event loop. */
	pthread_t ckpt_th;
	pthread_mutex_t ckpt_mu;
	pthread_cond_t ckpt_cv;
	int ckpt_on, ckpt_quit;
	int reader;                /* gl_store_open_reader: never checkpoints */
	int no_sync;               /* gl_store_no_sync: a simulation's store */
	/* exec_bound's statements, prepared once (their SQL is a literal) */
	struct { const char *sql; sqlite3_stmt *q; } cached[8];
	int wal_frames, wal_limit_frames;   /* in the WAL after the last commit; the trim's mark */
	char *path;
	struct gl_keep *keep;      /* what is kept of requests and debug events */
};

#endif
