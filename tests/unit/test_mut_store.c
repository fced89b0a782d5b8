/*
 * test_mut_store.c - checks for mutations (tests/mutations.txt) that no
 * other test notices, on stores written through the real store code:
 *
 * 1. The fault journal is durable before the caller acts on it: a counting
 *    SQLite VFS (wrapping the default one) sees the WAL synced by
 *    gl_store_fault_put, while an ordinary batch commit (synchronous=NORMAL)
 *    syncs nothing. A journal row not fsynced before the inject is a fault a
 *    power cut can make the store forget.
 * 2. A fault injected and reverted exactly on window boundaries (5.0 s and
 *    9.0 s, 1 s windows): window 4 stays steady, windows 5..11 are degraded;
 *    recovery_s 3.0 and restore_s 3.0 (same values as test_analysis: 1 in
 *    0-4, 50 in 5-7, 15 in 8-11, 1 in 12-19; steady <= 10, degraded <= 20).
 * 3. report.json carries each figure from its own field: on test_analysis's
 *    designed run (inject 5.2 s, revert 9.5 s) recovery_s 2.8 and
 *    restore_s 2.5, not one in place of the other.
 * 4. "hold" healthy windows must be in a row: with 50 in windows 5 and 7
 *    and 15 in 6 and 8..11 (degraded <= 20, hold 3), the run that counts
 *    starts at window 8, not 6: recovery_s 3.0 after an inject at 5.0 s.
 * 5. A fault left injected fails the run even when every target passes:
 *    an instantaneous fault (for 0) journaled "injected" (the controller
 *    died before it could journal "reverted"), 15 in window 5 only: every
 *    target passes (recovery 0, restore 1), faults_left_injected 1, verdict
 *    fail.
 * 6. Openers racing on a store being made: `run` creates run.db empty and
 *    lays down the schema while the operator's `status` opens it. Eight
 *    processes released at once on one empty 0600 file all open it, and
 *    the schema is laid once (an opener that read the schema version
 *    before taking the lock would fail with "table run already exists").
 * 7. Incidents stay bounded and in time order: 4000 windows, no fault,
 *    training.job_failures in every even window (2000 incidents, counted
 *    by default) and storage.errors in every window 4k+1 (1000, listed
 *    only): 3000 counted in all, 2000 against the limit, the first 1000
 *    by time kept (3 per 4 windows: all before window 1334), both kinds
 *    among them, in order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis.h"
#include "check.h"
#include "hist.h"
#include "report.h"
#include "store.h"

/* ---- a VFS that counts xSync per file kind ---------------------------------------------- */

static sqlite3_vfs *real_vfs;
static sqlite3_vfs counting_vfs;
static int syncs_wal, syncs_db, syncs_other;

struct cfile {
	sqlite3_file base; /* methods = &cmethods */
	int kind; /* 0 db, 1 wal, 2 other */
	sqlite3_file *real; /* follows this struct */
};
static sqlite3_io_methods cmethods;
static const sqlite3_io_methods *real_methods;

#define REAL(f) (((struct cfile *)(f))->real)

static int c_close(sqlite3_file *f)
{
	int rc = REAL(f)->pMethods ? REAL(f)->pMethods->xClose(REAL(f)) : SQLITE_OK;
	return rc;
}
static int c_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o)
{
	return REAL(f)->pMethods->xRead(REAL(f), b, n, o);
}
static int c_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o)
{
	return REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int c_truncate(sqlite3_file *f, sqlite3_int64 s)
{
	return REAL(f)->pMethods->xTruncate(REAL(f), s);
}
static int c_sync(sqlite3_file *f, int flags)
{
	int k = ((struct cfile *)f)->kind;
	if (k == 1)
		__atomic_add_fetch(&syncs_wal, 1, __ATOMIC_SEQ_CST);
	else if (k == 0)
		__atomic_add_fetch(&syncs_db, 1, __ATOMIC_SEQ_CST);
	else
		__atomic_add_fetch(&syncs_other, 1, __ATOMIC_SEQ_CST);
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int c_size(sqlite3_file *f, sqlite3_int64 *s)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), s);
}
static int c_lock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xLock(REAL(f), l);
}
static int c_unlock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), l);
}
static int c_reserved(sqlite3_file *f, int *r)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r);
}
static int c_fctl(sqlite3_file *f, int op, void *a)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, a);
}
static int c_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}
static int c_devchar(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int c_shmmap(sqlite3_file *f, int pg, int sz, int ext, void volatile **pp)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, ext, pp);
}
static int c_shmlock(sqlite3_file *f, int off, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}
static void c_shmbarrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int c_shmunmap(sqlite3_file *f, int del)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}
static int c_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **pp)
{
	return REAL(f)->pMethods->xFetch(REAL(f), o, n, pp);
}
static int c_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p)
{
	return REAL(f)->pMethods->xUnfetch(REAL(f), o, p);
}

static int c_open(sqlite3_vfs *v, const char *name, sqlite3_file *f, int flags, int *out)
{
	struct cfile *cf = (struct cfile *)f;
	int rc;

	cf->real = (sqlite3_file *)(cf + 1);
	cf->kind = flags & SQLITE_OPEN_MAIN_DB ? 0 : flags & SQLITE_OPEN_WAL ? 1 : 2;
	rc = real_vfs->xOpen(real_vfs, name, cf->real, flags, out);
	if (rc == SQLITE_OK && cf->real->pMethods) {
		real_methods = cf->real->pMethods;
		cmethods = (sqlite3_io_methods){
			real_methods->iVersion,
			c_close,
			c_read,
			c_write,
			c_truncate,
			c_sync,
			c_size,
			c_lock,
			c_unlock,
			c_reserved,
			c_fctl,
			c_sector,
			c_devchar,
			c_shmmap,
			c_shmlock,
			c_shmbarrier,
			c_shmunmap,
			c_fetch,
			c_unfetch,
		};
		f->pMethods = &cmethods;
	} else {
		f->pMethods = NULL;
	}
	return rc;
}

static void install_vfs(void)
{
	real_vfs = sqlite3_vfs_find(NULL);
	counting_vfs = *real_vfs;
	counting_vfs.zName = "gl-counting";
	counting_vfs.szOsFile = (int)sizeof(struct cfile) + real_vfs->szOsFile;
	counting_vfs.xOpen = c_open;
	sqlite3_vfs_register(&counting_vfs, 1); /* the default from now on */
}

/* ---- the designed store (as test_analysis) ------------------------------------------------ */

static const char *scenario =
	"{ \"name\": \"mut\", \"duration\": \"20s\", \"window\": \"1s\",\n"
	"  \"hosts\": { \"me\": { \"local\": true } },\n"
	"  \"workloads\": { \"null\": {} },\n"
	"  \"faults\": [ { \"id\": \"f1\", \"at\": \"5s\", \"for\": \"4s\", \"kind\": \"null\", \"target\": \"me\" } "
	"],\n"
	"  \"targets\": { \"steady\": { \"null.tick_lag_ms.p99\": \"<= 10\" },\n"
	"               \"degraded\": { \"null.tick_lag_ms.p99\": \"<= 20\" },\n"
	"               \"recovery\": { \"recovery_s\": \"<= 3\", \"restore_s\": \"<= 2\" } } }\n";

static double value_of(int w)
{
	return w < 5 ? 1 : w < 8 ? 50 : w < 12 ? 15 : 1;
}

/* 4: one bad window (7) inside the recovery: 50 15 50 15 15 15 from 5 */
static double interrupted(int w)
{
	return w < 5 ? 1 : w == 5 || w == 7 ? 50 : w < 12 ? 15 : 1;
}

/* 5: 15 in window 5 only: degraded there, healthy everywhere else */
static double blip(int w)
{
	return w == 5 ? 15 : 1;
}

static double (*values)(int) = value_of;
static enum gl_fault_state final_state = GL_FAULT_REVERTED;

static struct gl_store *make_store(const char *path, int64_t t_inj, int64_t t_rev, int count_syncs)
{
	struct gl_err err = { 0 };
	struct gl_store *st;
	struct gl_run_row r = { 0 };
	struct gl_fault_row f = { 0 };
	int before;

	unlink(path);
	st = gl_store_open(path, 1, &err);
	if (!st) {
		fprintf(stderr, "store: %s\n", err.msg);
		exit(1);
	}
	strcpy(r.id, "mut-run");
	strcpy(r.name, "mut");
	strcpy(r.scenario_path, "inline.json");
	r.scenario_text = (char *)scenario;
	gl_sha256_hex(scenario, strlen(scenario), r.scenario_sha256);
	r.time_scale = 1;
	r.window_ns = 1000000000LL;
	r.duration_ns = 20000000000LL;
	r.started_wall_ns = gl_wall_ns();
	CHECK(gl_store_run_create(st, &r, &err) == 0);
	for (int w = 0; w < 20; w++) {
		struct gl_hist *h = gl_hist_new();
		unsigned char *blob;
		size_t len;
		for (int i = 0; i < 100; i++)
			gl_hist_record(h, values(w));
		gl_hist_serialize(h, &blob, &len);
		CHECK(gl_store_window_put(st, w, w * 1000000000LL, (w + 1) * 1000000000LL, w * 1000000000LL,
					  (w + 1) * 1000000000LL, 0, 1) == 0);
		CHECK(gl_store_window_metric_put(st, w, "null.tick_lag_ms", blob, len, 0) == 0);
		CHECK(gl_store_window_metric_put(st, w, "null.ticks", NULL, 0, 100) == 0);
		free(blob);
		gl_hist_free(h);
		if (count_syncs && w == 3) {
			/* an ordinary batch commit: synchronous=NORMAL, no sync of the WAL */
			before = syncs_wal;
			CHECK(gl_store_flush(st, &err) == 0);
			CHECKF(syncs_wal == before, "a sample batch commit synced the WAL %d time(s)",
			       syncs_wal - before);
		}
	}
	strcpy(f.id, "f1");
	strcpy(f.kind, "null");
	strcpy(f.target, "me");
	f.at_ns = t_inj;
	f.dur_ns = t_rev - t_inj;
	f.state = GL_FAULT_INJECTING;
	f.verified = f.verified_revert = -1;
	f.injected_elapsed_ns = f.injected_scn_ns = -1;
	f.reverted_elapsed_ns = f.reverted_scn_ns = -1;
	before = syncs_wal;
	CHECK(gl_store_fault_put(st, &f, &err) == 0);
	if (count_syncs)
		CHECKF(syncs_wal > before,
		       "the journal row 'injecting' was committed without a sync of the WAL "
		       "(%d syncs): not durable before the inject",
		       syncs_wal - before);
	f.state = final_state;
	f.verified = f.verified_revert = 1;
	f.injected_elapsed_ns = f.injected_scn_ns = t_inj;
	f.reverted_elapsed_ns = f.reverted_scn_ns = final_state != GL_FAULT_REVERTED ? -1 : t_rev;
	before = syncs_wal;
	CHECK(gl_store_fault_put(st, &f, &err) == 0);
	if (count_syncs)
		CHECKF(syncs_wal > before, "the journal row 'reverted' was committed without a sync of the WAL");
	CHECK(gl_store_run_finish(st, "finished", "", 0, gl_wall_ns()) == 0);
	return st;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int main(void)
{
	char dir[] = "/tmp/gl-mut-store.XXXXXX", path[600];
	struct gl_err err = { 0 };
	struct gl_analysis *an = NULL;
	struct gl_store *st;

	if (!mkdtemp(dir))
		return 1;
	install_vfs();

	/* 1 and 2: the journal's syncs, a fault on window boundaries */
	snprintf(path, sizeof(path), "%s/edge.db", dir);
	st = make_store(path, 5000000000LL, 9000000000LL, 1);
	CHECK(gl_analyze(st, &an, &err) == 0);
	if (an) {
		CHECK(an->n_windows == 20 && an->n_faults == 1);
		for (int w = 0; w < an->n_windows; w++)
			CHECKF(an->windows[w].scope == (w >= 5 && w <= 11 ? GL_SCOPE_DEGRADED : GL_SCOPE_STEADY),
			       "window %d scope %d (fault injected at 5.000 s exactly: window 4 ends there)", w,
			       an->windows[w].scope);
		CHECKF(fabs(an->faults[0].recovery_s - 3.0) < 1e-9, "recovery_s = %g, want 3",
		       an->faults[0].recovery_s);
		CHECKF(fabs(an->faults[0].restore_s - 3.0) < 1e-9, "restore_s = %g, want 3", an->faults[0].restore_s);
		gl_analysis_free(an);
		an = NULL;
	}
	gl_store_close(st);

	/* 3: report.json's fault fields, each from its own figure */
	snprintf(path, sizeof(path), "%s/designed.db", dir);
	st = make_store(path, 5200000000LL, 9500000000LL, 0);
	CHECK(gl_analyze(st, &an, &err) == 0);
	if (an) {
		cJSON *r = gl_report_json(an);
		const cJSON *faults = r ? cJSON_GetObjectItemCaseSensitive(r, "faults") : NULL;
		const cJSON *f0 = cJSON_GetArrayItem(faults, 0);
		CHECK(f0 != NULL);
		CHECKF(fabs(num(f0, "recovery_s") - 2.8) < 1e-6, "report.json recovery_s = %g, want 2.8",
		       num(f0, "recovery_s"));
		CHECKF(fabs(num(f0, "restore_s") - 2.5) < 1e-6, "report.json restore_s = %g, want 2.5",
		       num(f0, "restore_s"));
		CHECKF(fabs(num(f0, "injected_at_s") - 5.2) < 1e-6, "report.json injected_at_s = %g, want 5.2",
		       num(f0, "injected_at_s"));
		cJSON_Delete(r);
		gl_analysis_free(an);
	}
	gl_store_close(st);

	/* 4: a bad window breaks the healthy run */
	values = interrupted;
	snprintf(path, sizeof(path), "%s/interrupted.db", dir);
	st = make_store(path, 5000000000LL, 9000000000LL, 0);
	CHECK(gl_analyze(st, &an, &err) == 0);
	if (an) {
		CHECKF(fabs(an->faults[0].recovery_s - 3.0) < 1e-9,
		       "recovery_s = %g, want 3 (windows 8, 9, 10 are the first 3 healthy in a row)",
		       an->faults[0].recovery_s);
		CHECKF(fabs(an->faults[0].restore_s - 3.0) < 1e-9, "restore_s = %g, want 3", an->faults[0].restore_s);
		gl_analysis_free(an);
	}
	gl_store_close(st);

	/* 5: left injected, every target met */
	values = blip;
	final_state = GL_FAULT_INJECTED;
	snprintf(path, sizeof(path), "%s/left.db", dir);
	st = make_store(path, 5000000000LL, 5000000000LL, 0);
	CHECK(gl_analyze(st, &an, &err) == 0);
	if (an) {
		int all = 1;
		for (int i = 0; i < an->n_targets; i++)
			all &= an->targets[i].pass;
		CHECKF(all && an->n_targets == 4, "every target passes (%d targets)", an->n_targets);
		CHECK(an->faults_left_injected == 1);
		CHECKF(an->verdict == GL_VERDICT_FAIL, "verdict %s with a fault left injected",
		       gl_verdict_name(an->verdict));
		gl_analysis_free(an);
	}
	gl_store_close(st);

	/* 6: racing openers of a store being made */
	for (int round = 0; round < 5; round++) {
		enum { N = 8 };
		int gate[2], fd, failed = 0;
		pid_t kids[N];

		snprintf(path, sizeof(path), "%s/race%d.db", dir, round);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
		CHECK(fd >= 0 && pipe(gate) == 0);
		if (fd >= 0)
			close(fd);
		for (int i = 0; i < N; i++) {
			kids[i] = fork();
			if (kids[i] == 0) {
				char c;
				struct gl_err e = { 0 };
				struct gl_store *s6;
				close(gate[1]);
				(void)!read(gate[0], &c, 1); /* EOF when the parent lets go */
				s6 = gl_store_open(path, 0, &e);
				if (!s6)
					fprintf(stderr, "opener %d: %s\n", i, e.msg);
				gl_store_close(s6);
				_exit(s6 ? 0 : 1);
			}
		}
		close(gate[0]);
		close(gate[1]);
		for (int i = 0; i < N; i++) {
			int ws = 0;
			if (kids[i] > 0 && waitpid(kids[i], &ws, 0) == kids[i] && WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
				continue;
			failed++;
		}
		CHECKF(failed == 0, "round %d: %d of %d openers failed on a store being made\n", round, failed, N);
	}

	/* 7: many incidents */
	{
		struct gl_run_row r = { 0 };
		int ordered = 1, kinds = 0, max_w0 = 0, want = 0;
		snprintf(path, sizeof(path), "%s/incidents.db", dir);
		st = gl_store_open(path, 1, &err);
		CHECK(st != NULL);
		strcpy(r.id, "mut-inc");
		strcpy(r.name, "mut");
		strcpy(r.scenario_path, "inline.json");
		r.scenario_text = (char *)scenario;
		gl_sha256_hex(scenario, strlen(scenario), r.scenario_sha256);
		r.time_scale = 1;
		r.window_ns = 1000000000LL;
		r.duration_ns = 20000000000LL;
		r.started_wall_ns = gl_wall_ns();
		CHECK(st && gl_store_run_create(st, &r, &err) == 0);
		for (int w = 0; st && w < 4000; w++) {
			gl_store_window_put(st, w, w * 1000000000LL, (w + 1) * 1000000000LL, w * 1000000000LL,
					    (w + 1) * 1000000000LL, 0, 1);
			gl_store_window_metric_put(st, w, "null.ticks", NULL, 0, 100);
			if (w % 2 == 0)
				gl_store_window_metric_put(st, w, "training.job_failures", NULL, 0, 1);
			if (w % 4 == 1)
				gl_store_window_metric_put(st, w, "storage.errors", NULL, 0, 1);
		}
		if (st)
			gl_store_flush(st, &err);
		an = NULL;
		CHECK(st && gl_analyze(st, &an, &err) == 0);
		if (an) {
			CHECKF(an->incidents_total == 3000 && an->incidents_gated == 2000 && an->incidents_failed,
			       "incidents %d, counted %d, failed %d (want 3000, 2000, 1)\n", an->incidents_total,
			       an->incidents_gated, an->incidents_failed);
			CHECKF(an->n_incidents == GL_MAX_INCIDENTS, "%d kept, want %d\n", an->n_incidents,
			       GL_MAX_INCIDENTS);
			for (int i = 0; i < an->n_incidents; i++) {
				if (i && an->incidents[i].w0 < an->incidents[i - 1].w0)
					ordered = 0;
				kinds |= 1 << an->incidents[i].kind;
				if (an->incidents[i].w0 > max_w0)
					max_w0 = an->incidents[i].w0;
			}
			for (int k = 0; k < gl_incident_kinds(); k++)
				if (!strcmp(gl_incident_kind_name(k), "training.failure") ||
				    !strcmp(gl_incident_kind_name(k), "storage.errors"))
					want |= 1 << k;
			CHECKF(ordered && max_w0 < 1334 && kinds == want,
			       "kept in order %d, last start window %d (want < 1334), kinds 0x%x\n", ordered, max_w0,
			       kinds);
			gl_analysis_free(an);
		}
		gl_store_close(st);
	}

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_done();
}
