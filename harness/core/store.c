/*
 * store.c - SQLite run store: schema, migrations, batching, journal.
 *
 * Durability model: WAL. Sample batches commit with synchronous=NORMAL: a
 * committed batch survives SIGKILL of the controller (it is in the WAL
 * file) without an fsync stalling the event loop every half second; only a
 * power loss can take the last batches. The fault journal commits with
 * synchronous=FULL (fsync before inject), since a fault row lost to a power
 * cut would be a fault nobody knows to revert.
 */
#include "store_int.h"
#include "store_keep.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHECKPOINT_EVERY_S 5

static void *ckpt_main(void *arg)
{
	struct gl_store *st = arg;
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(st->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 1000);
	sqlite3_exec(db, "PRAGMA cache_size=" GL_STORE_CACHE_KIB_STR ";", NULL, NULL, NULL);
	pthread_mutex_lock(&st->ckpt_mu);
	while (!st->ckpt_quit) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += CHECKPOINT_EVERY_S;
		pthread_cond_timedwait(&st->ckpt_cv, &st->ckpt_mu, &ts);
		if (st->ckpt_quit)
			break;
		pthread_mutex_unlock(&st->ckpt_mu);
		/* PASSIVE: copies what it can without waiting for the writer.
		 * The WAL starts over (and is cut to journal_size_limit) only
		 * when the writer's next transaction finds every frame copied:
		 * under a steady stream of writes that moment rarely comes,
		 * hence gl_store_wal_trim. */
		sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		pthread_mutex_lock(&st->ckpt_mu);
	}
	pthread_mutex_unlock(&st->ckpt_mu);
	sqlite3_close(db);
	return NULL;
}

/* Each entry upgrades from version i to i+1. Never edit a shipped entry:
 * add a new one. A plug-in's own tables are not here: the store lays
 * those of its record types after these (gl_store_records_create), the
 * same DDL on every store, old or new. */
static const char *const migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE run ("
	"  id TEXT PRIMARY KEY, name TEXT NOT NULL, scenario_path TEXT, scenario_text TEXT NOT NULL,"
	"  scenario_sha256 TEXT NOT NULL, sets TEXT, time_scale REAL NOT NULL,"
	"  window_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL,"
	"  started_wall_ns INTEGER NOT NULL, ended_wall_ns INTEGER,"
	"  state TEXT NOT NULL, verdict TEXT, exit_code INTEGER,"
	"  elapsed_ns INTEGER NOT NULL DEFAULT 0, resumes INTEGER NOT NULL DEFAULT 0,"
	"  generator_saturated INTEGER NOT NULL DEFAULT 0,"
	"  version TEXT, git_rev TEXT, hostname TEXT);"
	"CREATE TABLE phases (idx INTEGER PRIMARY KEY, name TEXT NOT NULL, start_ns INTEGER NOT NULL,"
	"  end_ns INTEGER NOT NULL, load REAL NOT NULL, scope TEXT NOT NULL);"
	"CREATE TABLE windows (idx INTEGER PRIMARY KEY, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,"
	"  scn_start_ns INTEGER NOT NULL, scn_end_ns INTEGER NOT NULL, phase INTEGER NOT NULL,"
	"  complete INTEGER NOT NULL);"
	"CREATE TABLE window_metrics (idx INTEGER NOT NULL, name TEXT NOT NULL, hist BLOB,"
	"  counter INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (idx, name)) WITHOUT ROWID;"
	"CREATE TABLE faults (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,"
	"  kind TEXT NOT NULL, method TEXT, target TEXT, at_ns INTEGER, dur_ns INTEGER, plan TEXT,"
	"  state TEXT NOT NULL, verified INTEGER, verified_revert INTEGER,"
	"  injected_elapsed_ns INTEGER, reverted_elapsed_ns INTEGER,"
	"  injected_scn_ns INTEGER, reverted_scn_ns INTEGER, error TEXT, updated_wall_ns INTEGER);"
	"CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, elapsed_ns INTEGER NOT NULL,"
	"  wall_ns INTEGER NOT NULL, level TEXT NOT NULL, source TEXT NOT NULL, message TEXT NOT NULL);"
	"CREATE TABLE requests (seq INTEGER PRIMARY KEY AUTOINCREMENT, window INTEGER NOT NULL,"
	"  endpoint INTEGER, t_intended_ns INTEGER, t_send_ns INTEGER, t_headers_ns INTEGER,"
	"  t_first_event_ns INTEGER, t_first_token_ns INTEGER, t_last_token_ns INTEGER,"
	"  t_end_ns INTEGER, input_tokens INTEGER, output_tokens INTEGER, tokens_estimated INTEGER,"
	"  http_status INTEGER, error_class TEXT, max_stall_ns INTEGER);"
	"CREATE INDEX requests_window ON requests(window);"
	"CREATE TABLE storage_ops (seq INTEGER PRIMARY KEY AUTOINCREMENT, window INTEGER NOT NULL,"
	"  op TEXT, bytes INTEGER, latency_ns INTEGER, error_class TEXT);",
	/* 1 -> 2: the preflight gate */
	"CREATE TABLE preflight (seq INTEGER PRIMARY KEY AUTOINCREMENT, wall_ns INTEGER NOT NULL,"
	"  subject TEXT NOT NULL, check_name TEXT NOT NULL, ok INTEGER NOT NULL, detail TEXT);",
	/* 2 -> 3: figures a fault's steps measured (JSON object) */
	"ALTER TABLE faults ADD COLUMN measured TEXT;",
	/* 3 -> 4: documents kept with the run (the inventory taken at start) */
	"CREATE TABLE docs (key TEXT PRIMARY KEY, wall_ns INTEGER NOT NULL, body TEXT NOT NULL);",
	/* 4 -> 5: processes a workload started (launchers, fio), identified
	 * by pid, start time and boot, for resume to stop (child.h) */
	"CREATE TABLE children (seq INTEGER PRIMARY KEY AUTOINCREMENT, source TEXT NOT NULL, what TEXT,"
	"  pid INTEGER NOT NULL, pgid INTEGER NOT NULL, start_ticks INTEGER NOT NULL, boot_id TEXT NOT NULL,"
	"  hostname TEXT, started_wall_ns INTEGER NOT NULL, ended_wall_ns INTEGER);",
	/* 5 -> 6: controller outages: the wall time of the last progress
	 * commit, and per resume the span the controller was down */
	"ALTER TABLE run ADD COLUMN progress_wall_ns INTEGER;"
	"CREATE TABLE outages (resume INTEGER PRIMARY KEY, at_elapsed_ns INTEGER NOT NULL,"
	"  down_wall_ns INTEGER, resumed_wall_ns INTEGER NOT NULL);",
	/* 6 -> 7: retention (store_keep.h): per window and class the requests
	 * kept and not kept, per minute and source the debug events */
	"CREATE TABLE retention (what TEXT NOT NULL, bucket INTEGER NOT NULL, class TEXT NOT NULL,"
	"  kept INTEGER NOT NULL, dropped INTEGER NOT NULL, stride INTEGER NOT NULL DEFAULT 1,"
	"  PRIMARY KEY (what, bucket, class)) WITHOUT ROWID;",
	/* 7 -> 8: diagnostic gates (docs/gates.md): one row per gate, host
	 * and when; results is DCGM's per-entity, per-test rows as JSON, raw
	 * what the host printed (at most GL_GATE_RAW_MAX bytes) */
	"CREATE TABLE gates (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, kind TEXT NOT NULL,"
	"  host TEXT NOT NULL, phase TEXT NOT NULL, status TEXT NOT NULL, reason TEXT,"
	"  exit_status INTEGER, started_wall_ns INTEGER NOT NULL, dur_s REAL NOT NULL,"
	"  file TEXT, results TEXT, raw BLOB, raw_bytes INTEGER NOT NULL DEFAULT 0);",
	/* 8 -> 9: the dead-man's switch (docs/faults.md): its state per fault
	 * (armed, lost, fired, none: why) and who reverted the fault */
	"ALTER TABLE faults ADD COLUMN deadman TEXT;"
	"ALTER TABLE faults ADD COLUMN reverted_by TEXT;",
	/* 9 -> 10: per-node figures (nodes.h): per window, workload, node
	 * and figure the samples' count, sum and largest value */
	"CREATE TABLE node_figures (idx INTEGER NOT NULL, workload TEXT NOT NULL, kind TEXT NOT NULL,"
	"  name TEXT NOT NULL, host TEXT NOT NULL, figure TEXT NOT NULL, n INTEGER NOT NULL,"
	"  sum REAL NOT NULL, max REAL NOT NULL,"
	"  PRIMARY KEY (idx, workload, kind, name, host, figure)) WITHOUT ROWID;",
};

static int exec_sql(sqlite3 *db, const char *sql, struct gl_err *err)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		gl_errf(err, GL_EIO, "store: %s", msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return -GL_EIO;
	}
	return 0;
}

static int user_version(sqlite3 *db, int *version, struct gl_err *err)
{
	sqlite3_stmt *q;

	*version = 0;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(db));
	if (sqlite3_step(q) == SQLITE_ROW)
		*version = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return 0;
}

/* Each step reads the version under the write lock it migrates under: a
 * `status` or `report` opening the store while `run` makes it (or two
 * openers of an old store) would otherwise both see version 0 and the
 * second fail with "table run already exists". */
static int migrate(sqlite3 *db, struct gl_err *err)
{
	int version = 0, rc = 0;
	const int target = (int)(sizeof(migrations) / sizeof(migrations[0]));

	if (user_version(db, &version, err))
		return -GL_EIO;
	while (rc == 0 && version < target) {
		char pragma[64];
		rc = exec_sql(db, "BEGIN IMMEDIATE", err);
		if (rc)
			break;
		rc = user_version(db, &version, err);
		if (rc == 0 && version < target) {
			rc = exec_sql(db, migrations[version], err);
			snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", version + 1);
			if (rc == 0)
				rc = exec_sql(db, pragma, err);
			if (rc == 0)
				rc = exec_sql(db, "COMMIT", err);
			if (rc == 0)
				version++;
			else
				exec_sql(db, "ROLLBACK", NULL);
		} else {
			exec_sql(db, rc ? "ROLLBACK" : "COMMIT", NULL);
		}
	}
	if (rc == 0 && version > target)
		return gl_errf(err, GL_ESTATE,
			       "store: schema version %d is newer than this gauntlet knows (%d): use a newer gauntlet",
			       version, target);
	return rc;
}

/* A store another user could have written is refused before SQLite reads a
 * byte of it: resume and revert execute the plans it holds, as root. Its
 * directory, the database and any -wal, -shm or -journal beside it must be
 * the effective user's and not writable by group or others (util.h). */
static int store_trusted(const char *path, struct gl_err *err)
{
	static const char *const side[] = { "-wal", "-shm", "-journal" };
	char buf[4200];
	const char *slash = strrchr(path, '/');
	struct stat sb;

	if (slash) {
		size_t n = (size_t)(slash - path);
		if (n >= sizeof(buf))
			return gl_errf(err, GL_EINVAL, "%s: path too long", path);
		memcpy(buf, path, n ? n : 1);
		buf[n ? n : 1] = '\0';
	} else {
		snprintf(buf, sizeof(buf), ".");
	}
	if (gl_path_trusted(buf, 1, err) || gl_path_trusted(path, 0, err))
		return -GL_EINVAL;
	for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", path, side[i]);
		if (lstat(buf, &sb) == 0 && gl_path_trusted(buf, 0, err))
			return -GL_EINVAL;
	}
	return 0;
}

/* SQLite's word after each commit: the WAL holds this many frames. */
static int wal_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	((struct gl_store *)arg)->wal_frames = frames;
	return SQLITE_OK;
}

static int page_size(sqlite3 *db)
{
	sqlite3_stmt *q;
	int n = 0;

	if (sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return n > 0 ? n : 4096;
}

/* A new store's file, private from the first byte: SQLite would create it
 * 0644, and its -wal and -shm files take the database's mode. O_EXCL and
 * O_NOFOLLOW: never an existing store, never through a link. */
static int store_create_file(const char *path, struct gl_err *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0) {
		if (errno == EEXIST)
			return gl_errf(err, GL_ESTATE,
				       "%s: a run store already exists here (use resume, or another --out)", path);
		return gl_errf(err, GL_EIO, "%s: cannot create: %s", path, strerror(errno));
	}
	close(fd);
	return 0;
}

/* WAL mode, the pragmas and the schema. Switching a new store to WAL and
 * laying its schema take the write lock; another opener at that moment
 * (the operator's `status` while `run` makes the store) can be answered
 * SQLITE_BUSY at once, without the busy handler, where waiting could
 * deadlock. Every step is safe to repeat: try again for up to 5 s. */
static int store_schema(sqlite3 *db, struct gl_err *err)
{
	for (int64_t until = gl_now_ns() + 5000000000LL;;) {
		struct gl_err e = { 0 };
		if (exec_sql(db,
			     "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
			     " PRAGMA wal_autocheckpoint=0; PRAGMA cache_size=" GL_STORE_CACHE_KIB_STR
			     "; PRAGMA journal_size_limit=" GL_STORE_WAL_LIMIT_STR ";",
			     &e) == 0 &&
		    migrate(db, &e) == 0 && gl_store_records_create(db, &e) == 0)
			return 0;
		if ((sqlite3_errcode(db) & 0xff) != SQLITE_BUSY || gl_now_ns() > until)
			return gl_errf(err, e.code ? e.code : GL_EIO, "%s", e.msg);
		gl_sleep_ns(20 * 1000 * 1000);
	}
}

/* The request inserts: one row, and GL_STORE_REQ_BATCH rows. */
static int prepare_requests(struct gl_store *st)
{
	char *one = gl_store_request_sql(1), *many = gl_store_request_sql(GL_STORE_REQ_BATCH);
	int rc = one && many && sqlite3_prepare_v2(st->db, one, -1, &st->st_req, NULL) == SQLITE_OK &&
				 sqlite3_prepare_v2(st->db, many, -1, &st->st_req_n, NULL) == SQLITE_OK
			 ? 0
			 : -GL_EIO;

	free(one);
	free(many);
	return rc;
}

/* The statements every batch uses, prepared once. */
static int store_prepare(struct gl_store *st)
{
	return sqlite3_prepare_v2(st->db,
				  "INSERT INTO window_metrics(idx,name,hist,counter) VALUES(?,?,?,?) "
				  "ON CONFLICT(idx,name) DO UPDATE SET hist=excluded.hist, counter=excluded.counter",
				  -1, &st->st_wm, NULL) != SQLITE_OK ||
			       sqlite3_prepare_v2(
				       st->db,
				       "INSERT INTO "
				       "windows(idx,start_ns,end_ns,scn_start_ns,scn_end_ns,phase,complete) "
				       "VALUES(?,?,?,?,?,?,?) ON CONFLICT(idx) DO UPDATE SET end_ns=excluded.end_ns, "
				       "scn_end_ns=excluded.scn_end_ns, complete=excluded.complete",
				       -1, &st->st_win, NULL) != SQLITE_OK ||
			       sqlite3_prepare_v2(
				       st->db,
				       "INSERT INTO events(elapsed_ns,wall_ns,level,source,message) VALUES(?,?,?,?,?)",
				       -1, &st->st_ev, NULL) != SQLITE_OK ||
			       prepare_requests(st) != 0 ||
			       sqlite3_prepare_v2(
				       st->db,
				       "INSERT INTO node_figures(idx,workload,kind,name,host,figure,n,sum,max) "
				       "VALUES(?,?,?,?,?,?,?,?,?) ON CONFLICT(idx,workload,kind,name,host,figure) "
				       "DO UPDATE SET n=excluded.n, sum=excluded.sum, max=excluded.max",
				       -1, &st->st_node, NULL) != SQLITE_OK
		       ? -GL_EIO
		       : 0;
}

/* A writer's checkpoint thread (none: SQLite's own checkpoints). */
static void ckpt_start(struct gl_store *st)
{
	pthread_mutex_init(&st->ckpt_mu, NULL);
	pthread_cond_init(&st->ckpt_cv, NULL);
	if (st->path && pthread_create(&st->ckpt_th, NULL, ckpt_main, st) == 0) {
		st->ckpt_on = 1;
		st->wal_limit_frames = (int)(atoll(GL_STORE_WAL_LIMIT_STR) / (page_size(st->db) + 24));
		sqlite3_wal_hook(st->db, wal_hook, st);
	} else
		exec_sql(st->db, "PRAGMA wal_autocheckpoint=1000;", NULL);
}

static struct gl_store *store_open(const char *path, int create, int reader, struct gl_err *err)
{
	struct gl_store *st = calloc(1, sizeof(*st));
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW |
		    (create ? SQLITE_OPEN_CREATE : 0);
	int rc;

	if (!st) {
		gl_errf(err, GL_ENOMEM, "store: out of memory");
		return NULL;
	}
	if (create)
		rc = store_create_file(path, err);
	else if (access(path, F_OK) != 0)
		rc = gl_errf(err, GL_EINVAL, "%s: no run store here", path);
	else
		rc = store_trusted(path, err);
	if (rc) {
		free(st);
		return NULL;
	}
	if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
		gl_errf(err, GL_EIO, "%s: cannot open store: %s", path,
			st->db ? sqlite3_errmsg(st->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(st->db, 5000);
	if (store_schema(st->db, err) != 0)
		goto fail;
	if (store_prepare(st) != 0) {
		gl_errf(err, GL_EIO, "%s: %s", path, sqlite3_errmsg(st->db));
		goto fail;
	}
	if (!(st->keep = gl_keep_new())) {
		gl_errf(err, GL_ENOMEM, "store: out of memory");
		goto fail;
	}
	gl_keep_request_limits(st->keep, GL_STORE_SAMPLE_PER_WINDOW, GL_STORE_ERRORS_PER_WINDOW);
	gl_keep_event_limit(st->keep, GL_STORE_DEBUG_PER_MINUTE);
	st->path = strdup(path);
	st->reader = reader;
	if (!reader)
		ckpt_start(st); /* a reader: no checkpoint thread, no autocheckpoint */
	return st;
fail:
	gl_store_close(st);
	return NULL;
}

struct gl_store *gl_store_open(const char *path, int create, struct gl_err *err)
{
	return store_open(path, create, 0, err);
}

struct gl_store *gl_store_open_reader(const char *path, struct gl_err *err)
{
	return store_open(path, 0, 1, err);
}

/* The checkpoint thread ended and joined (none: nothing). */
static void ckpt_stop(struct gl_store *st)
{
	if (!st->ckpt_on)
		return;
	pthread_mutex_lock(&st->ckpt_mu);
	st->ckpt_quit = 1;
	pthread_cond_signal(&st->ckpt_cv);
	pthread_mutex_unlock(&st->ckpt_mu);
	pthread_join(st->ckpt_th, NULL);
	pthread_mutex_destroy(&st->ckpt_mu);
	pthread_cond_destroy(&st->ckpt_cv);
	st->ckpt_on = 0;
}

void gl_store_close(struct gl_store *st)
{
	if (!st)
		return;
	ckpt_stop(st);
	if (st->db && !st->reader) {
		gl_store_flush(st, NULL);
		/* leave the database whole in one file */
		sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	}
	free(st->path);
	sqlite3_finalize(st->st_wm);
	sqlite3_finalize(st->st_node);
	sqlite3_finalize(st->st_win);
	sqlite3_finalize(st->st_ev);
	sqlite3_finalize(st->st_req);
	sqlite3_finalize(st->st_req_n);
	gl_store_records_close(st);
	for (size_t i = 0; i < GL_ARRAY_LEN(st->cached); i++)
		sqlite3_finalize(st->cached[i].q);
	if (st->db)
		sqlite3_close(st->db);
	gl_keep_free(st->keep);
	free(st);
}

void gl_store_no_sync(struct gl_store *st)
{
	st->no_sync = 1;
	sqlite3_exec(st->db, "PRAGMA synchronous=OFF", NULL, NULL, NULL);
	/* no thread working on real time beside a simulation's loop: SQLite
	 * checkpoints at its own commits, the same for every run of a seed */
	if (st->ckpt_on) {
		ckpt_stop(st);
		sqlite3_wal_hook(st->db, NULL, NULL);
		sqlite3_exec(st->db, "PRAGMA wal_autocheckpoint=1000;", NULL, NULL, NULL);
	}
}

void gl_store_abandon(struct gl_store *st)
{
	if (!st)
		return;
	if (st->db && st->in_txn)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	st->in_txn = 0;
	st->n_req_held = 0; /* their batch is given up with the rest */
	ckpt_stop(st);
	st->reader = 1; /* gl_store_close: no flush, no checkpoint */
	gl_store_close(st);
}

int gl_store_txn(struct gl_store *st)
{
	if (st->in_txn)
		return 0;
	if (sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return -GL_EIO;
	st->in_txn = 1;
	return 0;
}

int gl_store_flush(struct gl_store *st, struct gl_err *err)
{
	int rc = 0;

	if (!st->in_txn)
		return 0;
	if (gl_store_request_drain(st) != 0)
		rc = gl_errf(err, GL_EIO, "store: request rows: %s", sqlite3_errmsg(st->db));
	if (st->keep && gl_keep_flush(st->keep, st->db) != 0 && !rc)
		rc = gl_errf(err, GL_EIO, "store: retention counts: %s", sqlite3_errmsg(st->db));
	st->in_txn = 0;
	return exec_sql(st->db, "COMMIT", rc ? NULL : err) ? -GL_EIO : rc;
}

int gl_store_request_policy(struct gl_store *st, const char *mode, int64_t sample_per_window, int64_t errors_per_window)
{
	if (!strcmp(mode, "all"))
		gl_keep_request_limits(st->keep, -1, -1);
	else if (!strcmp(mode, "none"))
		gl_keep_request_limits(st->keep, 0, 0);
	else if (!strcmp(mode, "sample") && sample_per_window >= 0 && errors_per_window >= 0)
		gl_keep_request_limits(st->keep, sample_per_window, errors_per_window);
	else
		return -GL_EINVAL;
	return 0;
}

int gl_store_event_policy(struct gl_store *st, const char *events, int64_t debug_per_minute)
{
	if (!strcmp(events, "debug"))
		gl_keep_event_limit(st->keep, -1);
	else if (!strcmp(events, "info") && debug_per_minute >= 0)
		gl_keep_event_limit(st->keep, debug_per_minute);
	else
		return -GL_EINVAL;
	return 0;
}

int gl_store_wal_trim(struct gl_store *st)
{
	int rc;

	if (!st->ckpt_on || st->in_txn || st->wal_frames <= st->wal_limit_frames)
		return 0;
	sqlite3_busy_timeout(st->db, 0);
	rc = sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	sqlite3_busy_timeout(st->db, 5000);
	if (rc == SQLITE_OK)
		st->wal_frames = 0;
	return rc == SQLITE_OK ? 0 : rc == SQLITE_BUSY ? 1 : -GL_EIO;
}

/* One prepared write (finalized here) in the open batch, then the batch
 * committed: for rows that must be in the store before the caller goes on. */
int gl_store_step_commit(struct gl_store *st, sqlite3_stmt *q, struct gl_err *err)
{
	int rc;

	gl_store_txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	return gl_store_flush(st, err);
}

int gl_store_step_done(struct gl_store *st, sqlite3_stmt *q)
{
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	if (rc != SQLITE_DONE) {
		gl_error("store: %s", sqlite3_errmsg(st->db));
		return -GL_EIO;
	}
	return 0;
}

void gl_store_col_text(sqlite3_stmt *q, int i, char *out, size_t n)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	snprintf(out, n, "%s", t ? (const char *)t : "");
}

char *gl_store_col_dup(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return t ? strdup((const char *)t) : NULL;
}

/* sql must be a string literal: the statement is kept, by its address */
int gl_store_exec_bound(struct gl_store *st, const char *sql, int n_ints, const int64_t *ints, const char *text1,
			const char *text2)
{
	sqlite3_stmt *q = NULL;
	int rc, i, slot = -1;

	for (i = 0; i < (int)GL_ARRAY_LEN(st->cached) && slot < 0; i++)
		if (st->cached[i].sql == sql || !st->cached[i].sql)
			slot = i;
	if (slot >= 0 && st->cached[slot].sql == sql)
		q = st->cached[slot].q;
	else if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		gl_error("store: %s", sqlite3_errmsg(st->db));
		return -GL_EIO;
	} else if (slot >= 0) {
		st->cached[slot].sql = sql;
		st->cached[slot].q = q;
	}
	for (i = 0; i < n_ints; i++)
		sqlite3_bind_int64(q, i + 1, ints[i]);
	if (text1)
		sqlite3_bind_text(q, ++i, text1, -1, SQLITE_TRANSIENT);
	if (text2)
		sqlite3_bind_text(q, ++i, text2, -1, SQLITE_TRANSIENT);
	gl_store_txn(st);
	rc = sqlite3_step(q);
	if (slot >= 0 && st->cached[slot].q == q) {
		sqlite3_reset(q);
		sqlite3_clear_bindings(q);
	} else {
		sqlite3_finalize(q);
	}
	if (rc != SQLITE_DONE) {
		gl_error("store: %s", sqlite3_errmsg(st->db));
		return -GL_EIO;
	}
	return 0;
}
