/*
 * store_record.c - the plug-ins' record types (store.h): each registered
 * type's table made at open where it is missing, its rows written in the
 * batch up to the type's bound per window, and the few reads a plug-in
 * needs. The SQL is built here from the type's names, which are checked
 * first; no plug-in passes SQL text.
 */
#include "store_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "plugin.h"

#define SQL_MAX 2048

static int name_ok(const char *s)
{
	if (!s || !*s || strlen(s) > 64 || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

static int type_ok(const struct gl_record_type *t, struct gl_err *err)
{
	if (!name_ok(t->table) || t->n_fields < 1 || t->n_fields > GL_STORE_RECORD_FIELDS_MAX || t->per_window <= 0)
		return gl_errf(err, GL_EINVAL, "store: record type '%s': a bad name, field count or bound",
			       t->table ? t->table : "");
	for (int i = 0; i < t->n_fields; i++)
		if (!name_ok(t->fields[i].name) || !strcmp(t->fields[i].name, "seq") ||
		    !strcmp(t->fields[i].name, "window"))
			return gl_errf(err, GL_EINVAL, "store: record type '%s': bad field name '%s'", t->table,
				       t->fields[i].name ? t->fields[i].name : "");
	return 0;
}

static const char *kind_sql(enum gl_record_kind k)
{
	return k == GL_RECORD_INT ? "INTEGER" : k == GL_RECORD_REAL ? "REAL" : "TEXT";
}

/* "CREATE TABLE ..." (create) or "INSERT INTO ..." of type t into buf. */
static int type_sql(const struct gl_record_type *t, int create, char *buf, size_t n)
{
	size_t len;

	if (create)
		len = (size_t)snprintf(buf, n,
				       "CREATE TABLE IF NOT EXISTS %s (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
				       "window INTEGER NOT NULL",
				       t->table);
	else
		len = (size_t)snprintf(buf, n, "INSERT INTO %s(window", t->table);
	for (int i = 0; i < t->n_fields && len < n; i++) {
		if (create)
			len += (size_t)snprintf(buf + len, n - len, ", %s %s", t->fields[i].name,
						kind_sql(t->fields[i].kind));
		else
			len += (size_t)snprintf(buf + len, n - len, ",%s", t->fields[i].name);
	}
	for (int i = 0; !create && i <= t->n_fields && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s", i ? ",?" : ") VALUES(?");
	if (len < n)
		len += (size_t)snprintf(buf + len, n - len, ")");
	return len < n ? 0 : -GL_EINVAL;
}

static int table_exists(sqlite3 *db, const char *table, struct gl_err *err)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &q, NULL) !=
	    SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(db));
	return rc == SQLITE_ROW;
}

/* Only a missing table takes the write lock: a reader beside a running
 * controller (status) finds them all and writes nothing. */
static int record_create(sqlite3 *db, const struct gl_record_type *t, struct gl_err *err)
{
	char sql[SQL_MAX];
	int rc;

	if (type_ok(t, err) != 0 || type_sql(t, 1, sql, sizeof(sql)) != 0)
		return gl_errf(err, GL_EINVAL, "store: record type '%s' refused", t->table ? t->table : "");
	if ((rc = table_exists(db, t->table, err)) != 0)
		return rc < 0 ? rc : 0;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(db));
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		gl_errf(err, GL_EIO, "store: table %s: %s", t->table, sqlite3_errmsg(db));
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return -GL_EIO;
	}
	return 0;
}

int gl_store_records_create(sqlite3 *db, struct gl_err *err)
{
	const struct gl_workload_ops *w;

	for (size_t i = 0; (w = gl_workload_at(i)); i++)
		for (const struct gl_record_type *const *t = w->records; t && *t; t++)
			if (record_create(db, *t, err) != 0)
				return -GL_EIO;
	return 0;
}

static void slot_window_end(struct gl_store *st, int k)
{
	if (st->rec[k].dropped)
		gl_warn("store: %s: %" PRId64 " row(s) of window %" PRId64 " past its bound of %" PRId64
			" per window left out",
			st->rec[k].type->table, st->rec[k].dropped, st->rec[k].window, st->rec[k].type->per_window);
}

void gl_store_records_close(struct gl_store *st)
{
	for (int k = 0; k < GL_STORE_RECORD_TYPES_MAX && st->rec[k].type; k++) {
		slot_window_end(st, k);
		sqlite3_finalize(st->rec[k].ins);
	}
}

/* The rows window already holds (a store reopened within a window). */
static int64_t window_rows(struct gl_store *st, const struct gl_record_type *t, int64_t window)
{
	char sql[160];
	sqlite3_stmt *q;
	int64_t n = 0;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE window=?", t->table);
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(q, 1, window);
	if (sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return n;
}

/* t's slot, its insert prepared on first use; -1 with a logged error. */
static int slot_of(struct gl_store *st, const struct gl_record_type *t, int64_t window)
{
	char sql[SQL_MAX];
	int k;

	for (k = 0; k < GL_STORE_RECORD_TYPES_MAX && st->rec[k].type; k++)
		if (st->rec[k].type == t)
			return k;
	if (k == GL_STORE_RECORD_TYPES_MAX || type_ok(t, NULL) != 0 || type_sql(t, 0, sql, sizeof(sql)) != 0 ||
	    sqlite3_prepare_v2(st->db, sql, -1, &st->rec[k].ins, NULL) != SQLITE_OK) {
		gl_error("store: record type '%s': %s", t->table ? t->table : "",
			 k == GL_STORE_RECORD_TYPES_MAX ? "too many types" : sqlite3_errmsg(st->db));
		return -1;
	}
	st->rec[k].type = t;
	st->rec[k].window = window;
	st->rec[k].rows = window_rows(st, t, window);
	return k;
}

int gl_store_record_put(struct gl_store *st, const struct gl_record_type *t, int64_t window,
			const union gl_record_value *v)
{
	int k = slot_of(st, t, window);
	sqlite3_stmt *q;

	if (k < 0)
		return -GL_EINVAL;
	if (st->rec[k].window != window) {
		slot_window_end(st, k);
		st->rec[k].window = window;
		st->rec[k].rows = st->rec[k].dropped = 0;
	}
	if (st->rec[k].rows >= t->per_window) {
		st->rec[k].dropped++;
		return 0;
	}
	q = st->rec[k].ins;
	sqlite3_bind_int64(q, 1, window);
	for (int i = 0; i < t->n_fields; i++) {
		if (t->fields[i].kind == GL_RECORD_INT)
			sqlite3_bind_int64(q, i + 2, v[i].i);
		else if (t->fields[i].kind == GL_RECORD_REAL)
			sqlite3_bind_double(q, i + 2, v[i].r);
		else if (v[i].s)
			sqlite3_bind_text(q, i + 2, v[i].s, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(q, i + 2);
	}
	gl_store_txn(st);
	if (gl_store_step_done(st, q) != 0)
		return -GL_EIO;
	st->rec[k].rows++;
	return 0;
}

int gl_store_record_max(struct gl_store *st, const struct gl_record_type *t, const char *field, int64_t *out,
			struct gl_err *err)
{
	char sql[200];
	sqlite3_stmt *q;
	int i, rc;

	*out = 0;
	for (i = 0; i < t->n_fields; i++)
		if (!strcmp(t->fields[i].name, field) && t->fields[i].kind == GL_RECORD_INT)
			break;
	if (i == t->n_fields || !name_ok(t->table))
		return gl_errf(err, GL_EINVAL, "store: %s has no integer field '%s'", t->table ? t->table : "", field);
	snprintf(sql, sizeof(sql), "SELECT max(%s) FROM %s", t->fields[i].name, t->table);
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : gl_errf(err, GL_EIO, "store: %s", sqlite3_errmsg(st->db));
}
