/*
 * test_store_record.c - plug-in record types in the store (store.h): the
 * training steps' table made at open with the columns every store has had
 * (name, type, NOT NULL, key), rows written in the batch and read back by
 * the store (max of a field, across a reopen as resume does), a type no
 * plug-in registered refused, and a window keeping at most the type's
 * bound of rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "store.h"
#include "training_steps.h"

/* train_steps as schema 1 laid it: name, type, notnull, pk */
static const struct {
	const char *name, *type;
	int notnull, pk;
} cols[] = {
	{ "seq", "INTEGER", 0, 1 },      { "window", "INTEGER", 1, 0 },   { "step", "INTEGER", 0, 0 },
	{ "launch", "INTEGER", 0, 0 },   { "step_time_s", "REAL", 0, 0 }, { "comm_time_s", "REAL", 0, 0 },
	{ "data_time_s", "REAL", 0, 0 }, { "busbw_gbps", "REAL", 0, 0 },  { "correctness_errors", "INTEGER", 0, 0 },
};

static int64_t count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *q;
	int64_t n = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return n;
}

static void columns(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q;
	int k = 0;

	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "PRAGMA table_info(train_steps)", -1, &q, NULL) == SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW && k < (int)GL_ARRAY_LEN(cols)) {
		const char *name = (const char *)sqlite3_column_text(q, 1),
			   *type = (const char *)sqlite3_column_text(q, 2);
		CHECKF(name && !strcmp(name, cols[k].name) && type && !strcmp(type, cols[k].type) &&
			       sqlite3_column_int(q, 3) == cols[k].notnull && sqlite3_column_int(q, 5) == cols[k].pk,
		       "column %d: %s %s, want %s %s", k, name ? name : "?", type ? type : "?", cols[k].name,
		       cols[k].type);
		k++;
	}
	sqlite3_finalize(q);
	CHECKF(k == (int)GL_ARRAY_LEN(cols), "%d columns", k);
	sqlite3_close(db);
}

static void rows(const char *path)
{
	static const struct gl_record_field f[] = { { "x", GL_RECORD_INT } };
	static const struct gl_record_type unregistered = { "not_registered", f, 1, 10 };
	const union gl_record_value v = { .i = 1 };
	struct gl_err err = { 0 };
	struct gl_store *st = gl_store_open(path, 1, &err);
	struct gl_train_step r = { 0 };
	sqlite3 *db = NULL;
	int64_t max = -1;

	CHECKF(st != NULL, "%s", err.msg);
	if (!st)
		return;
	CHECK(gl_store_record_max(st, &gl_train_steps, "step", &max, &err) == 0 && max == 0);
	for (int i = 1; i <= 5; i++) {
		r.step = 10 * i;
		r.launch = 1;
		r.step_time_s = 0.5;
		CHECK(gl_train_step_put(st, i / 3, &r) == 0);
	}
	CHECK(gl_store_record_put(st, &unregistered, 0, &v) < 0);
	CHECK(gl_store_record_max(st, &gl_train_steps, "step_time_s", &max, &err) < 0);
	CHECK(gl_store_flush(st, &err) == 0);
	gl_store_close(st);
	/* reopened, as resume does: the rows are there, and more go on */
	st = gl_store_open(path, 0, &err);
	CHECKF(st != NULL, "%s", err.msg);
	if (!st)
		return;
	CHECK(gl_store_record_max(st, &gl_train_steps, "step", &max, &err) == 0 && max == 50);
	/* window 1 holds 3 rows: the bound counts them */
	for (int64_t i = 0; i < gl_train_steps.per_window + 5; i++) {
		r.step = 100 + i;
		gl_train_step_put(st, 1, &r);
	}
	r.step = 7;
	CHECK(gl_train_step_put(st, 2, &r) == 0);
	CHECK(gl_store_flush(st, &err) == 0);
	gl_store_close(st);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECKF(count(db, "SELECT count(*) FROM train_steps WHERE window=1") == gl_train_steps.per_window, "%lld",
	       (long long)count(db, "SELECT count(*) FROM train_steps WHERE window=1"));
	CHECK(count(db, "SELECT count(*) FROM train_steps WHERE window=2") == 1);
	CHECK(count(db, "SELECT count(*) FROM sqlite_master WHERE name='not_registered'") == 0);
	sqlite3_close(db);
}

int main(void)
{
	char dir[] = "/tmp/gl-test-store-record-XXXXXX", path[200];

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return check_done();
	}
	snprintf(path, sizeof(path), "%s/run.db", dir);
	rows(path);
	columns(path);
	unlink(path);
	rmdir(dir);
	return check_done();
}
