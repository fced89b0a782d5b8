/*
 * store_keep.c - the store's retention of per-request rows and debug
 * events, and the counts of what it left out (store_keep.h says the rule).
 */
#include "store_keep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define KEEP_SLOTS 32 /* classes per window, sources per minute */
#define MINUTE_NS 60000000000LL

struct slot {
	char cls[32]; /* error class ("ok" for a success) or event source */
	int64_t seen, kept, stride;
	int64_t *seqs; /* kept rows in order (requests with a limit) */
	int64_t n_seqs, cap_seqs;
	int loaded, dirty;
};

struct bucket {
	const char *what; /* "requests" | "events" */
	int64_t idx; /* window, or minute; -1 before the first */
	struct slot slots[KEEP_SLOTS];
	int n;
};

struct gl_keep {
	int64_t ok_limit, error_limit, debug_limit;
	struct bucket req, ev;
	struct slot *pending; /* the request slot a row is being inserted for */
	int pending_seq; /* and whether its rows are tracked (a limit) */
};

struct gl_keep *gl_keep_new(void)
{
	struct gl_keep *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->ok_limit = k->error_limit = k->debug_limit = -1; /* until a policy is set: keep all */
	k->req.what = "requests";
	k->req.idx = -1;
	k->ev.what = "events";
	k->ev.idx = -1;
	return k;
}

static void bucket_reset(struct bucket *b)
{
	for (int i = 0; i < b->n; i++)
		free(b->slots[i].seqs);
	memset(b->slots, 0, sizeof(b->slots));
	b->n = 0;
}

void gl_keep_free(struct gl_keep *k)
{
	if (!k)
		return;
	bucket_reset(&k->req);
	bucket_reset(&k->ev);
	free(k);
}

void gl_keep_request_limits(struct gl_keep *k, int64_t ok_limit, int64_t error_limit)
{
	k->ok_limit = ok_limit;
	k->error_limit = error_limit;
}

void gl_keep_event_limit(struct gl_keep *k, int64_t debug_limit)
{
	k->debug_limit = debug_limit;
}

static int flush_bucket(struct bucket *b, sqlite3 *db)
{
	sqlite3_stmt *q;
	int rc = 0, dirty = 0;

	for (int i = 0; i < b->n && !dirty; i++)
		dirty = b->slots[i].dirty;
	if (!dirty)
		return 0; /* nothing changed since the last flush */
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO retention(what,bucket,class,kept,dropped,stride) VALUES(?,?,?,?,?,?) "
			       "ON CONFLICT(what,bucket,class) DO UPDATE SET kept=excluded.kept, "
			       "dropped=excluded.dropped, stride=excluded.stride",
			       -1, &q, NULL) != SQLITE_OK)
		return -GL_EIO;
	for (int i = 0; i < b->n && rc == 0; i++) {
		struct slot *s = &b->slots[i];
		if (!s->dirty)
			continue;
		sqlite3_bind_text(q, 1, b->what, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 2, b->idx);
		sqlite3_bind_text(q, 3, s->cls, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 4, s->kept);
		sqlite3_bind_int64(q, 5, s->seen - s->kept);
		sqlite3_bind_int64(q, 6, s->stride);
		if (sqlite3_step(q) != SQLITE_DONE)
			rc = -GL_EIO;
		else
			s->dirty = 0;
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	return rc;
}

int gl_keep_flush(struct gl_keep *k, sqlite3 *db)
{
	int rc = flush_bucket(&k->req, db);
	int rc2 = flush_bucket(&k->ev, db);
	return rc ? rc : rc2;
}

/* The bucket idx, its counts flushed and cleared when it moves on. */
static int bucket_at(struct bucket *b, sqlite3 *db, int64_t idx)
{
	int rc = 0;

	if (b->idx == idx)
		return 0;
	if (b->idx >= 0)
		rc = flush_bucket(b, db);
	bucket_reset(b);
	b->idx = idx;
	return rc;
}

static int push_seq(struct slot *s, int64_t seq)
{
	if (s->n_seqs == s->cap_seqs) {
		int64_t cap = s->cap_seqs ? 2 * s->cap_seqs : 64;
		int64_t *bigger = realloc(s->seqs, (size_t)cap * sizeof(*bigger));
		if (!bigger)
			return -GL_ENOMEM;
		s->seqs = bigger;
		s->cap_seqs = cap;
	}
	s->seqs[s->n_seqs++] = seq;
	return 0;
}

/* What an earlier process stored for this bucket and class (a resume in
 * the middle of a window): its counts, stride and, for requests, the
 * rows kept, in order. */
static int slot_load(struct bucket *b, struct slot *s, sqlite3 *db, int want_seqs)
{
	sqlite3_stmt *q;
	int rc;

	s->loaded = 1;
	s->stride = 1;
	if (sqlite3_prepare_v2(db, "SELECT kept,dropped,stride FROM retention WHERE what=? AND bucket=? AND class=?",
			       -1, &q, NULL) != SQLITE_OK)
		return -GL_EIO;
	sqlite3_bind_text(q, 1, b->what, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, b->idx);
	sqlite3_bind_text(q, 3, s->cls, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		s->kept = sqlite3_column_int64(q, 0);
		s->seen = s->kept + sqlite3_column_int64(q, 1);
		s->stride = sqlite3_column_int64(q, 2) > 0 ? sqlite3_column_int64(q, 2) : 1;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : -GL_EIO;
	if (!want_seqs)
		return 0;
	if (sqlite3_prepare_v2(db,
			       strcmp(s->cls, "ok")
				       ? "SELECT seq FROM requests WHERE window=? AND error_class=? ORDER BY seq"
				       : "SELECT seq FROM requests WHERE window=? AND error_class IS NULL ORDER BY seq",
			       -1, &q, NULL) != SQLITE_OK)
		return -GL_EIO;
	sqlite3_bind_int64(q, 1, b->idx);
	if (strcmp(s->cls, "ok"))
		sqlite3_bind_text(q, 2, s->cls, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		if (push_seq(s, sqlite3_column_int64(q, 0)) != 0)
			break;
	sqlite3_finalize(q);
	/* the rows are the truth: kept rows at multiples of the stride */
	s->kept = s->n_seqs;
	return rc == SQLITE_DONE ? 0 : -GL_EIO;
}

static struct slot *slot_of(struct bucket *b, sqlite3 *db, const char *cls, int want_seqs)
{
	struct slot *s;

	for (int i = 0; i < b->n; i++)
		if (!strcmp(b->slots[i].cls, cls))
			return &b->slots[i];
	if (b->n == KEEP_SLOTS) {
		/* more classes or sources than slots: the last counts the rest */
		s = &b->slots[KEEP_SLOTS - 1];
		if (strcmp(s->cls, "other")) {
			free(s->seqs);
			memset(s, 0, sizeof(*s));
			snprintf(s->cls, sizeof(s->cls), "other");
		}
	} else {
		s = &b->slots[b->n++];
		snprintf(s->cls, sizeof(s->cls), "%s", cls);
	}
	if (!s->loaded && slot_load(b, s, db, want_seqs) != 0)
		gl_warn("store: retention counts of %s %s %lld not read back: %s", b->what, s->cls, (long long)b->idx,
			sqlite3_errmsg(db));
	return s;
}

/* Delete every other kept row (odd multiples of the stride), double it. */
static int thin(struct slot *s, sqlite3 *db)
{
	sqlite3_stmt *q;
	int64_t j = 0;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "DELETE FROM requests WHERE seq=?", -1, &q, NULL) != SQLITE_OK)
		return -GL_EIO;
	for (int64_t i = 0; i < s->n_seqs; i++) {
		if (i % 2 == 0) {
			s->seqs[j++] = s->seqs[i];
			continue;
		}
		sqlite3_bind_int64(q, 1, s->seqs[i]);
		if (sqlite3_step(q) != SQLITE_DONE)
			rc = -GL_EIO;
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	s->n_seqs = j;
	s->kept = j;
	s->stride *= 2;
	s->dirty = 1;
	return rc;
}

int gl_keep_request(struct gl_keep *k, sqlite3 *db, int64_t window, const char *error_class)
{
	const char *cls = error_class && error_class[0] ? error_class : "ok";
	int64_t limit = strcmp(cls, "ok") ? k->error_limit : k->ok_limit;
	struct slot *s;
	int64_t n;
	int rc = bucket_at(&k->req, db, window);

	k->pending = NULL;
	s = slot_of(&k->req, db, cls, limit > 0);
	n = s->seen++;
	s->dirty = 1;
	if (limit == 0 || n % s->stride)
		return rc ? rc : 0;
	if (limit > 0 && s->kept >= limit) {
		if ((rc = thin(s, db)) != 0)
			return rc;
		if (n % s->stride)
			return 0;
	}
	k->pending = s;
	k->pending_seq = limit > 0;
	return rc ? rc : 1;
}

void gl_keep_request_kept(struct gl_keep *k, int64_t seq)
{
	struct slot *s = k->pending;

	k->pending = NULL;
	if (s && (!k->pending_seq || push_seq(s, seq) == 0))
		s->kept++;
}

int gl_keep_request_tracked(const struct gl_keep *k)
{
	return k->pending_seq;
}

int gl_keep_event(struct gl_keep *k, sqlite3 *db, int64_t elapsed_ns, const char *level, const char *source)
{
	struct slot *s;
	int rc;

	if (k->debug_limit < 0 || strcmp(level, "debug"))
		return 1;
	rc = bucket_at(&k->ev, db, elapsed_ns > 0 ? elapsed_ns / MINUTE_NS : 0);
	s = slot_of(&k->ev, db, source ? source : "", 0);
	s->seen++;
	s->dirty = 1;
	if (s->kept >= k->debug_limit)
		return rc ? rc : 0;
	s->kept++;
	return rc ? rc : 1;
}
