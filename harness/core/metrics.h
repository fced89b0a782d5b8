/*
 * metrics.h - the per-window recorder that workloads write into: named
 * histograms (gl_hist) and counters, reset at each window boundary after the
 * controller has written them to the store. Memory is constant however long
 * the run: one histogram per metric for the current window, no samples kept.
 *
 * Registration (gl_metrics_hist, gl_metrics_counter) happens at workload
 * init; the hot calls (record, add) take an id and one short lock, so
 * threaded workloads (storage workers) may call them too.
 */
#ifndef GL_METRICS_H
#define GL_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"

#define GL_METRICS_MAX 256

struct gl_metrics;

struct gl_metrics *gl_metrics_new(void);
void gl_metrics_free(struct gl_metrics *m);

/* Get or create the id of a named series; -1 when GL_METRICS_MAX is reached
 * or the name is already used by the other kind. */
int gl_metrics_hist(struct gl_metrics *m, const char *name);
int gl_metrics_counter(struct gl_metrics *m, const char *name);

/* Thread-safe. Ids come from the two calls above. */
void gl_metrics_record(struct gl_metrics *m, int id, double v);
/* n values at once (one lock) */
void gl_metrics_record_many(struct gl_metrics *m, int id, const double *v, size_t n);
/* count records of the one value v */
void gl_metrics_record_n(struct gl_metrics *m, int id, double v, uint64_t count);
void gl_metrics_add(struct gl_metrics *m, int id, int64_t n);

/* Controller side (loop thread). visit() sees every series of the current
 * window, under the lock: h is NULL for counters. */
typedef void (*gl_metrics_visit_fn)(void *arg, const char *name, const struct gl_hist *h, int64_t counter);
void gl_metrics_visit(struct gl_metrics *m, gl_metrics_visit_fn fn, void *arg);
void gl_metrics_reset(struct gl_metrics *m);
/* visit, then reset, under one hold of the lock: a record or add from a
 * worker thread lands either in the window visited or in the next one,
 * never between the two (where it would be lost). */
void gl_metrics_visit_reset(struct gl_metrics *m, gl_metrics_visit_fn fn, void *arg);
/* Counter value in the current window (for abort_if). */
int64_t gl_metrics_counter_value(struct gl_metrics *m, const char *name);
/* Copy of a histogram of the current window, or NULL (caller frees). */
struct gl_hist *gl_metrics_hist_copy(struct gl_metrics *m, const char *name);

/* Merge a series received from elsewhere (a load agent's window) into the
 * current window, creating it when new: h != NULL merges a histogram,
 * else counter is added. Returns 0, or -1 when the table is full, the
 * name is taken by the other kind, or the sum would pass INT64_MAX (or
 * INT64_MIN): then it is held at that bound, never wrapped. */
int gl_metrics_merge(struct gl_metrics *m, const char *name, const struct gl_hist *h, int64_t counter);

/* Resume: put back a partial window read from the store. */
int gl_metrics_restore_hist(struct gl_metrics *m, const char *name, const unsigned char *blob, size_t len);
int gl_metrics_restore_counter(struct gl_metrics *m, const char *name, int64_t value);

/* Bytes held by all histograms (memory tests). */
size_t gl_metrics_memory(struct gl_metrics *m);

#endif
