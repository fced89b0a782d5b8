/*
 * store_keep.h - what the run store keeps of the rows that come by the
 * thousand (one per inference request, debug events), and the counts of
 * what it did not keep: the retention policy behind store.h's
 * gl_store_request_policy and gl_store_event_policy. The store's alone.
 *
 * Requests, per analysis window and class (the error class, "ok" for a
 * success): the n-th request of its class in the window (from 0) is kept
 * when n is a multiple of the class's stride, which starts at 1; when a
 * row is due and the class already holds its limit, every other kept row
 * is deleted (those at odd multiples) and the stride doubles. So a window
 * keeps every k-th request of each class, k the smallest power of two
 * that fits the limit: spread evenly over the window, not its first N.
 * Limits: "sample" takes sample_per_window for successes and
 * errors_per_window for each error class; "all" no limit; "none" 0.
 *
 * Debug events, per source and minute of the run: the first
 * debug_per_minute are kept, the rest counted (events "info"); with
 * events "debug" every one is kept. Info and above are always kept.
 *
 * The counts go to the table `retention` (what, bucket, class, kept,
 * dropped, stride) with each commit: what "requests", bucket the window,
 * class the error class or "ok"; what "events", bucket the minute, class
 * the source. Every row offered is in kept + dropped. A resumed run reads
 * the counts (and the kept rows) of the window it resumes in back.
 */
#ifndef GL_STORE_KEEP_H
#define GL_STORE_KEEP_H

#include <stdint.h>

#include <sqlite3.h>

struct gl_keep;

struct gl_keep *gl_keep_new(void);
void gl_keep_free(struct gl_keep *k);

/* limit < 0: keep every row; 0: none. */
void gl_keep_request_limits(struct gl_keep *k, int64_t ok_limit, int64_t error_limit);
/* debug_limit < 0: keep every debug event. */
void gl_keep_event_limit(struct gl_keep *k, int64_t debug_limit);

/* Inside the store's open transaction. 1: insert the row, then tell
 * gl_keep_request_kept its seq; 0: not kept (counted); < 0: a store error. */
int gl_keep_request(struct gl_keep *k, sqlite3 *db, int64_t window, const char *error_class);
void gl_keep_request_kept(struct gl_keep *k, int64_t seq);
/* After a 1 from gl_keep_request: whether gl_keep_request_kept needs the
 * row's seq (its class has a limit: its rows may be thinned). */
int gl_keep_request_tracked(const struct gl_keep *k);
/* 1: store the event; 0: not kept (counted); < 0: a store error. */
int gl_keep_event(struct gl_keep *k, sqlite3 *db, int64_t elapsed_ns, const char *level, const char *source);
/* Write the counts that changed (inside the open transaction). */
int gl_keep_flush(struct gl_keep *k, sqlite3 *db);

#endif
