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
 * add a new one. */
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
	"CREATE TABLE train_steps (seq INTEGER PRIMARY KEY AUTOINCREMENT, window INTEGER NOT NULL,"
	"  step INTEGER, launch INTEGER, step_time_s REAL, comm_time_s REAL, data_time_s REAL,"
	"  busbw_gbps REAL, correctness_errors INTEGER);"
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

static struct gl_store *store_open(const char *path, int create, int reader, struct gl_err *err)
{
	struct gl_store *st = calloc(1, sizeof(*st));
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW |
		    (create ? SQLITE_OPEN_CREATE : 0);

	if (!st) {
		gl_errf(err, GL_ENOMEM, "store: out of memory");
		return NULL;
	}
	if (!create && access(path, F_OK) != 0) {
		gl_errf(err, GL_EINVAL, "%s: no run store here", path);
		free(st);
		return NULL;
	}
	if (!create && store_trusted(path, err) != 0) {
		free(st);
		return NULL;
	}
	if (create) {
		/* private from the first byte: SQLite would create it 0644,
		 * and its -wal and -shm files take the database's mode. O_EXCL
		 * and O_NOFOLLOW: never an existing store, never through a link. */
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			if (errno == EEXIST)
				gl_errf(err, GL_ESTATE, "%s: a run store already exists here (use resume, or another --out)",
					path);
			else
				gl_errf(err, GL_EIO, "%s: cannot create: %s", path, strerror(errno));
			free(st);
			return NULL;
		}
		close(fd);
	}
	if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
		gl_errf(err, GL_EIO, "%s: cannot open store: %s", path,
			st->db ? sqlite3_errmsg(st->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(st->db, 5000);
	/* Switching a new store to WAL and laying its schema take the write
	 * lock; another opener at that moment (the operator's `status` while
	 * `run` makes the store) can be answered SQLITE_BUSY at once, without
	 * the busy handler, where waiting could deadlock. Both steps are safe
	 * to repeat: try again for up to 5 s. */
	for (int64_t until = gl_now_ns() + 5000000000LL;;) {
		struct gl_err e = { 0 };
		if (exec_sql(st->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
				 " PRAGMA wal_autocheckpoint=0; PRAGMA cache_size=" GL_STORE_CACHE_KIB_STR "; PRAGMA journal_size_limit=" GL_STORE_WAL_LIMIT_STR ";",
				 &e) == 0 &&
		    migrate(st->db, &e) == 0)
			break;
		if ((sqlite3_errcode(st->db) & 0xff) != SQLITE_BUSY || gl_now_ns() > until) {
			gl_errf(err, e.code ? e.code : GL_EIO, "%s", e.msg);
			goto fail;
		}
		gl_sleep_ns(20 * 1000 * 1000);
	}
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO window_metrics(idx,name,hist,counter) VALUES(?,?,?,?) "
			       "ON CONFLICT(idx,name) DO UPDATE SET hist=excluded.hist, counter=excluded.counter",
			       -1, &st->st_wm, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db,
			       "INSERT INTO windows(idx,start_ns,end_ns,scn_start_ns,scn_end_ns,phase,complete) "
			       "VALUES(?,?,?,?,?,?,?) ON CONFLICT(idx) DO UPDATE SET end_ns=excluded.end_ns, "
			       "scn_end_ns=excluded.scn_end_ns, complete=excluded.complete",
			       -1, &st->st_win, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db,
			       "INSERT INTO events(elapsed_ns,wall_ns,level,source,message) VALUES(?,?,?,?,?)",
			       -1, &st->st_ev, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db,
			       "INSERT INTO requests(window,endpoint,t_intended_ns,t_send_ns,t_headers_ns,"
			       "t_first_event_ns,t_first_token_ns,t_last_token_ns,t_end_ns,input_tokens,"
			       "output_tokens,tokens_estimated,http_status,error_class,max_stall_ns) "
			       "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st->st_req, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(st->db,
			       "INSERT INTO train_steps(window,step,launch,step_time_s,comm_time_s,data_time_s,"
			       "busbw_gbps,correctness_errors) VALUES(?,?,?,?,?,?,?,?)", -1, &st->st_train,
			       NULL) != SQLITE_OK) {
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
	if (reader)
		return st;   /* no checkpoint thread, no autocheckpoint */
	pthread_mutex_init(&st->ckpt_mu, NULL);
	pthread_cond_init(&st->ckpt_cv, NULL);
	if (st->path && pthread_create(&st->ckpt_th, NULL, ckpt_main, st) == 0) {
		st->ckpt_on = 1;
		st->wal_limit_frames = (int)(atoll(GL_STORE_WAL_LIMIT_STR) / (page_size(st->db) + 24));
		sqlite3_wal_hook(st->db, wal_hook, st);
	} else
		exec_sql(st->db, "PRAGMA wal_autocheckpoint=1000;", NULL);  /* no thread: SQLite's own */
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
	sqlite3_finalize(st->st_win);
	sqlite3_finalize(st->st_ev);
	sqlite3_finalize(st->st_req);
	sqlite3_finalize(st->st_train);
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
	ckpt_stop(st);
	st->reader = 1;            /* gl_store_close: no flush, no checkpoint */
	gl_store_close(st);
}

sqlite3 *gl_store_db(struct gl_store *st) { return st->db; }

static int txn(struct gl_store *st)
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
	if (st->keep && gl_keep_flush(st->keep, st->db) != 0)
		rc = gl_errf(err, GL_EIO, "store: retention counts: %s", sqlite3_errmsg(st->db));
	st->in_txn = 0;
	return exec_sql(st->db, "COMMIT", rc ? NULL : err) ? -GL_EIO : rc;
}

int gl_store_request_policy(struct gl_store *st, const char *mode, int64_t sample_per_window,
			    int64_t errors_per_window)
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
static int step_commit(struct gl_store *st, sqlite3_stmt *q, struct gl_err *err)
{
	int rc;

	txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	return gl_store_flush(st, err);
}


static int step_done(struct gl_store *st, sqlite3_stmt *q)
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
	return step_commit(st, q, err);
}

static void col_text(sqlite3_stmt *q, int i, char *out, size_t n)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	snprintf(out, n, "%s", t ? (const char *)t : "");
}

static char *col_dup(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return t ? strdup((const char *)t) : NULL;
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
	col_text(q, 0, r->id, sizeof(r->id));
	col_text(q, 1, r->name, sizeof(r->name));
	col_text(q, 2, r->scenario_path, sizeof(r->scenario_path));
	r->scenario_text = col_dup(q, 3);
	col_text(q, 4, r->scenario_sha256, sizeof(r->scenario_sha256));
	r->sets_json = col_dup(q, 5);
	r->time_scale = sqlite3_column_double(q, 6);
	r->window_ns = sqlite3_column_int64(q, 7);
	r->duration_ns = sqlite3_column_int64(q, 8);
	r->started_wall_ns = sqlite3_column_int64(q, 9);
	r->ended_wall_ns = sqlite3_column_int64(q, 10);
	col_text(q, 11, r->state, sizeof(r->state));
	col_text(q, 12, r->verdict, sizeof(r->verdict));
	r->exit_code = sqlite3_column_int(q, 13);
	r->elapsed_ns = sqlite3_column_int64(q, 14);
	r->resumes = sqlite3_column_int(q, 15);
	col_text(q, 16, r->version, sizeof(r->version));
	col_text(q, 17, r->git_rev, sizeof(r->git_rev));
	col_text(q, 18, r->hostname, sizeof(r->hostname));
	r->progress_wall_ns = sqlite3_column_int64(q, 19);   /* NULL (never committed): 0 */
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

/* sql must be a string literal: the statement is kept, by its address */
static int exec_bound(struct gl_store *st, const char *sql, int n_ints, const int64_t *ints,
		      const char *text1, const char *text2)
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
	txn(st);
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

int gl_store_run_progress(struct gl_store *st, int64_t elapsed_ns)
{
	int64_t v[2] = { elapsed_ns, gl_wall_ns() };
	return exec_bound(st, "UPDATE run SET elapsed_ns=?, progress_wall_ns=?", 2, v, NULL, NULL);
}

int gl_store_outage_put(struct gl_store *st, const struct gl_outage_row *o)
{
	int64_t v[4] = { o->resume, o->at_elapsed_ns, o->down_wall_ns, o->resumed_wall_ns };
	int rc = exec_bound(st, "INSERT OR REPLACE INTO outages(resume,at_elapsed_ns,down_wall_ns,resumed_wall_ns) "
			    "VALUES(?,?,?,?)", 4, v, NULL, NULL);
	return rc ? rc : gl_store_flush(st, NULL);
}

int gl_store_outage_list(struct gl_store *st, struct gl_outage_row **out, int *n, struct gl_err *err)
{
	sqlite3_stmt *q;
	int cap = 0;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(st->db, "SELECT resume,at_elapsed_ns,down_wall_ns,resumed_wall_ns FROM outages "
			       "ORDER BY resume", -1, &q, NULL) != SQLITE_OK)
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
	int rc = exec_bound(st, "UPDATE run SET exit_code=?, ended_wall_ns=?, state=?, verdict=?", 2, v,
			    state, verdict);
	return rc ? rc : gl_store_flush(st, NULL);
}

int gl_store_run_resumed(struct gl_store *st, int resumes)
{
	int64_t v = resumes;
	int rc = exec_bound(st, "UPDATE run SET resumes=?, state='running', verdict=NULL, exit_code=NULL, "
			    "ended_wall_ns=NULL", 1, &v, NULL, NULL);
	return rc ? rc : gl_store_flush(st, NULL);
}

int gl_store_run_set(struct gl_store *st, const char *column, int64_t value)
{
	/* one column so far; exec_bound keeps statements by the address of
	 * their SQL, which must be a literal */
	if (strcmp(column, "generator_saturated") != 0)
		return -GL_EINVAL;
	return exec_bound(st, "UPDATE run SET generator_saturated=?", 1, &value, NULL, NULL);
}

int gl_store_phase_put(struct gl_store *st, int idx, const char *name, int64_t start_ns,
		       int64_t end_ns, double load, const char *scope)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(st->db, "INSERT OR REPLACE INTO phases(idx,name,start_ns,end_ns,load,scope) "
			       "VALUES(?,?,?,?,?,?)", -1, &q, NULL) != SQLITE_OK)
		return -GL_EIO;
	sqlite3_bind_int(q, 1, idx);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 3, start_ns);
	sqlite3_bind_int64(q, 4, end_ns);
	sqlite3_bind_double(q, 5, load);
	sqlite3_bind_text(q, 6, scope, -1, SQLITE_TRANSIENT);
	txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -GL_EIO;
}

int gl_store_window_put(struct gl_store *st, int64_t idx, int64_t start_ns, int64_t end_ns,
			int64_t scn_start_ns, int64_t scn_end_ns, int phase, int complete)
{
	sqlite3_bind_int64(st->st_win, 1, idx);
	sqlite3_bind_int64(st->st_win, 2, start_ns);
	sqlite3_bind_int64(st->st_win, 3, end_ns);
	sqlite3_bind_int64(st->st_win, 4, scn_start_ns);
	sqlite3_bind_int64(st->st_win, 5, scn_end_ns);
	sqlite3_bind_int(st->st_win, 6, phase);
	sqlite3_bind_int(st->st_win, 7, complete);
	txn(st);
	return step_done(st, st->st_win);
}

int gl_store_window_drop(struct gl_store *st, int64_t idx)
{
	int rc = exec_bound(st, "DELETE FROM windows WHERE idx=?", 1, &idx, NULL, NULL);
	return rc ? rc : exec_bound(st, "DELETE FROM window_metrics WHERE idx=?", 1, &idx, NULL, NULL);
}

int gl_store_window_metric_put(struct gl_store *st, int64_t idx, const char *name,
			       const unsigned char *hist, size_t hist_len, int64_t counter)
{
	sqlite3_bind_int64(st->st_wm, 1, idx);
	sqlite3_bind_text(st->st_wm, 2, name, -1, SQLITE_STATIC);
	if (hist)
		sqlite3_bind_blob(st->st_wm, 3, hist, (int)hist_len, SQLITE_STATIC);
	else
		sqlite3_bind_null(st->st_wm, 3);
	sqlite3_bind_int64(st->st_wm, 4, counter);
	txn(st);
	return step_done(st, st->st_wm);
}

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
	txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		gl_store_flush(st, NULL);
		sqlite3_exec(st->db, st->no_sync ? "PRAGMA synchronous=OFF" : "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
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
			       "deadman,reverted_by FROM faults ORDER BY seq", -1, &q, NULL) != SQLITE_OK)
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
		col_text(q, 0, f->id, sizeof(f->id));
		col_text(q, 1, f->kind, sizeof(f->kind));
		col_text(q, 2, f->method, sizeof(f->method));
		col_text(q, 3, f->target, sizeof(f->target));
		f->at_ns = sqlite3_column_int64(q, 4);
		f->dur_ns = sqlite3_column_int64(q, 5);
		f->plan = col_dup(q, 6);
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
		col_text(q, 14, f->error, sizeof(f->error));
		col_text(q, 15, f->measured, sizeof(f->measured));
		col_text(q, 16, f->deadman, sizeof(f->deadman));
		col_text(q, 17, f->reverted_by, sizeof(f->reverted_by));
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

int gl_store_event(struct gl_store *st, int64_t elapsed_ns, const char *level, const char *source,
		   const char *message)
{
	int keep;

	txn(st);
	if ((keep = gl_keep_event(st->keep, st->db, elapsed_ns, level, source)) <= 0)
		return keep;
	sqlite3_bind_int64(st->st_ev, 1, elapsed_ns);
	sqlite3_bind_int64(st->st_ev, 2, gl_wall_ns());
	sqlite3_bind_text(st->st_ev, 3, level, -1, SQLITE_STATIC);
	sqlite3_bind_text(st->st_ev, 4, source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st->st_ev, 5, message, -1, SQLITE_STATIC);
	txn(st);
	return step_done(st, st->st_ev);
}

int gl_store_request_put(struct gl_store *st, const struct gl_request_row *r)
{
	const int64_t v[] = { r->window, r->endpoint, r->t_intended, r->t_send, r->t_headers,
			      r->t_first_event, r->t_first_token, r->t_last_token, r->t_end,
			      r->input_tokens, r->output_tokens, r->tokens_estimated, r->http_status };
	sqlite3_stmt *q = st->st_req;
	int rc;

	txn(st);
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
	if ((rc = step_done(st, q)) == 0)
		gl_keep_request_kept(st->keep, sqlite3_last_insert_rowid(st->db));
	return rc;
}

int gl_store_train_step_put(struct gl_store *st, const struct gl_train_step_row *r)
{
	sqlite3_stmt *q = st->st_train;

	sqlite3_bind_int64(q, 1, r->window);
	sqlite3_bind_int64(q, 2, r->step);
	sqlite3_bind_int64(q, 3, r->launch);
	sqlite3_bind_double(q, 4, r->step_time_s);
	sqlite3_bind_double(q, 5, r->comm_time_s);
	sqlite3_bind_double(q, 6, r->data_time_s);
	sqlite3_bind_double(q, 7, r->busbw_gbps);
	sqlite3_bind_int64(q, 8, r->correctness_errors);
	txn(st);
	return step_done(st, q);
}

int gl_store_storage_op_put(struct gl_store *st, const struct gl_storage_op_row *r)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(st->db, "INSERT INTO storage_ops(window,op,bytes,latency_ns,error_class) "
			       "VALUES(?,?,?,?,?)", -1, &q, NULL) != SQLITE_OK)
		return -GL_EIO;
	sqlite3_bind_int64(q, 1, r->window);
	sqlite3_bind_text(q, 2, r->op, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 3, (sqlite3_int64)r->bytes);
	sqlite3_bind_int64(q, 4, r->latency_ns);
	if (r->error_class && r->error_class[0])
		sqlite3_bind_text(q, 5, r->error_class, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, 5);
	txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -GL_EIO;
}

int gl_store_preflight_put(struct gl_store *st, const char *subject, const char *check, int ok,
			   const char *detail)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(st->db, "INSERT INTO preflight(wall_ns,subject,check_name,ok,detail) "
			       "VALUES(?,?,?,?,?)", -1, &q, NULL) != SQLITE_OK)
		return -GL_EIO;
	sqlite3_bind_int64(q, 1, gl_wall_ns());
	sqlite3_bind_text(q, 2, subject, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 3, check, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(q, 4, ok);
	sqlite3_bind_text(q, 5, detail ? detail : "", -1, SQLITE_TRANSIENT);
	txn(st);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -GL_EIO;
}

int gl_store_gate_put(struct gl_store *st, const struct gl_gate_row *g, struct gl_err *err)
{
	sqlite3_stmt *q;
	size_t raw_n = g->raw_len > GL_GATE_RAW_MAX ? GL_GATE_RAW_MAX : g->raw_len;
	int rc;

	if (sqlite3_prepare_v2(st->db, "INSERT INTO gates(id,kind,host,phase,status,reason,exit_status,"
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
	txn(st);
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

	if (sqlite3_prepare_v2(st->db, "SELECT count(*) FROM gates WHERE id=? AND host=? AND phase=? AND "
			       "status IN ('pass','warn')", -1, &q, NULL) != SQLITE_OK)
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

	if (sqlite3_prepare_v2(st->db, "INSERT INTO docs(key,wall_ns,body) VALUES(?,?,?) ON CONFLICT(key) "
			       "DO UPDATE SET wall_ns=excluded.wall_ns, body=excluded.body", -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	sqlite3_bind_text(q, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 2, gl_wall_ns());
	sqlite3_bind_text(q, 3, json, -1, SQLITE_TRANSIENT);
	return step_commit(st, q, err);
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
		*out = col_dup(q, 0);
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

	if (sqlite3_prepare_v2(st->db, "INSERT INTO children(source,what,pid,pgid,start_ticks,boot_id,hostname,"
			       "started_wall_ns) VALUES(?,?,?,?,?,?,?,?)", -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	sqlite3_bind_text(q, 1, c->source, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 2, c->what, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 3, c->pid);
	sqlite3_bind_int64(q, 4, c->pgid);
	sqlite3_bind_int64(q, 5, (int64_t)c->start_ticks);
	sqlite3_bind_text(q, 6, c->boot_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 7, c->hostname, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 8, c->started_wall_ns);
	txn(st);
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
	return exec_bound(st, "UPDATE children SET ended_wall_ns=? WHERE seq=? AND ended_wall_ns IS NULL", 2, v,
			  NULL, NULL);
}

int gl_store_child_list(struct gl_store *st, struct gl_child_row **out, int *n, struct gl_err *err)
{
	sqlite3_stmt *q;
	struct gl_child_row *rows = NULL;
	int cap = 0, rc;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(st->db, "SELECT seq,source,what,pid,pgid,start_ticks,boot_id,hostname,started_wall_ns "
			       "FROM children WHERE ended_wall_ns IS NULL ORDER BY seq", -1, &q, NULL) != SQLITE_OK)
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
		col_text(q, 1, r->source, sizeof(r->source));
		col_text(q, 2, r->what, sizeof(r->what));
		r->pid = (int)sqlite3_column_int64(q, 3);
		r->pgid = (int)sqlite3_column_int64(q, 4);
		r->start_ticks = (uint64_t)sqlite3_column_int64(q, 5);
		col_text(q, 6, r->boot_id, sizeof(r->boot_id));
		col_text(q, 7, r->hostname, sizeof(r->hostname));
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
