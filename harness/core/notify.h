/*
 * notify.h - the scenario's webhooks (docs/scenario.md, "notify"): a
 * message per event posted from threads of their own, so that a slow or
 * dead receiver never delays the controller's loop or its measurements.
 *
 * The webhooks are independent: each has a queue of its own and a sender
 * thread of its own, so a receiver that is slow or hangs delays and drops
 * only its own webhook's messages, never another's.
 *
 * Bounded: at most GL_NOTIFY_QUEUE messages wait per webhook; when a
 * webhook's queue is full, its oldest message that is not an `end` is
 * dropped and counted (as that webhook's). Each message is tried up to
 * GL_NOTIFY_ATTEMPTS times (a 2xx answer is delivered; a 4xx other than
 * 408 and 429 is not tried again), each try bounded by GL_NOTIFY_TRY_MS,
 * with backoff 0.5 s, 1 s, 2 s between. A failure is counted, and logged
 * once per kind (connect, timeout, http_4xx, http_5xx, other) per
 * webhook; it never fails or stops the run. gl_notify_finish gives what is
 * left (the `end` message) a bounded deadline: one instant shared by every
 * webhook, whose senders work in parallel, so the wait is bounded by one
 * deadline however many receivers hang.
 *
 * The URLs are secrets (docs/security.md): read from the variables the
 * scenario names when the notifier is made, kept here only, never logged,
 * stored or reported. A webhook is named "notify[I] (VAR)".
 *
 * gl_notify_new, _event, _poll, _finish, _report and _free are the loop
 * thread's; the sender threads only post and count.
 */
#ifndef GL_NOTIFY_H
#define GL_NOTIFY_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "scenario.h"
#include "util.h"

#define GL_NOTIFY_QUEUE 256
#define GL_NOTIFY_ATTEMPTS 4
#define GL_NOTIFY_TRY_MS 15000
#define GL_NOTIFY_END_DEADLINE_NS (3LL * 1000000000LL)

struct gl_notify;

/* The scenario's webhooks, their URLs read from the environment (kept
 * secrets, secrets.h) now: NULL with *err (code GL_EINVAL) naming
 * "notify[I] (VAR)" when a variable is unset or empty or does not hold an
 * http:// or https:// URL. NULL without an error when there is no webhook. */
struct gl_notify *gl_notify_new(const struct gl_scenario *sc, struct gl_err *err);
/* Starts the sender threads, one per webhook; the run's id and name go
 * into every message. 0, or -1 (none started: the run goes on without
 * notifications; logged by the caller). */
int gl_notify_start(struct gl_notify *n, const char *run_id, const char *scenario);
/* Queue the event for every webhook that takes it, each in its own queue:
 * text is the sentence a person reads (Slack's "text"), fields (taken; may
 * be NULL) what the JSON format adds to run_id, scenario, event, time and
 * text. */
void gl_notify_event(struct gl_notify *n, enum gl_notify_event ev, const char *text, cJSON *fields);
/* A failure kind not logged yet: calls log(arg, line) for each, once. */
void gl_notify_poll(struct gl_notify *n, void (*log)(void *arg, const char *line), void *arg);
/* Run totals over every webhook (a resumed run's include the earlier
 * processes'). */
void gl_notify_totals(struct gl_notify *n, int64_t *sent, int64_t *failed, int64_t *dropped);
/* Deliver what is queued within deadline_ns (real time) at most, then stop
 * the threads: what is still queued then is dropped, a try under way cut.
 * The webhooks share that one deadline and work in parallel: the call
 * returns within deadline_ns (and the second libcurl may take to notice
 * the cut), however many of them hang. */
void gl_notify_finish(struct gl_notify *n, int64_t deadline_ns);
/* {"webhooks": [{"name": "notify[0] (VAR)", "url_env", "format", "sent",
 * "failed", "dropped", "last_error"}]}: for the store (doc "notify") and
 * report.json; never a URL. restore adds counts a stored document holds
 * (resume). */
char *gl_notify_report(struct gl_notify *n);
void gl_notify_restore(struct gl_notify *n, const char *doc);
void gl_notify_free(struct gl_notify *n);

#endif
