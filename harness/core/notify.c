/*
 * notify.c - the scenario's webhooks: each with a bounded queue of its own
 * and a thread of its own that posts it (notify.h says what is promised).
 * What each event says is the controller's (notify_events.c).
 */
#define _GNU_SOURCE
#include "notify.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "secrets.h"

enum fail_kind { FK_CONNECT, FK_TIMEOUT, FK_HTTP_4XX, FK_HTTP_5XX, FK_OTHER, FK_N };
static const char *const fail_names[FK_N] = { "connect", "timeout", "http_4xx", "http_5xx", "other" };

struct msg {
	int end;
	char *body;
};

struct gl_notify;

/* One webhook: its queue and its sender thread. env, url, slack and on are
 * fixed once made; th and running are the loop thread's; the queue and the
 * counts are guarded by the notifier's one mutex (held briefly, never
 * during a try); cv wakes this webhook's sender. */
struct hook {
	struct gl_notify *n;
	char env[128];
	char url[4096]; /* the secret: nowhere else */
	int slack;
	unsigned on;
	pthread_t th;
	int running; /* th was started and not joined yet */
	pthread_cond_t cv;
	struct msg q[GL_NOTIFY_QUEUE];
	int head, len;
	int64_t sent, failed, dropped;
	int last_fail; /* -1 none */
	unsigned logged, to_log; /* failure kinds (bits) logged / still to log */
	char detail[FK_N][96]; /* what the first failure of each kind said */
};

struct gl_notify {
	int started;
	pthread_mutex_t mu;
	int quit;
	int64_t deadline; /* gl_now_ns() after which nothing is tried; 0: none (all webhooks) */
	struct hook *hooks;
	int n;
	char run_id[64], scenario[128];
};

/* ---- the queues ----------------------------------------------------------- */

/* Into the webhook's own queue: a full one drops its oldest message that
 * is not an end (or, holding only ends, this one), counted as the
 * webhook's; the other webhooks' queues are not touched. */
static void push(struct gl_notify *n, struct hook *h, int end, char *body)
{
	pthread_mutex_lock(&n->mu);
	if (h->len == GL_NOTIFY_QUEUE) {
		/* full: the oldest that is not an end makes room */
		int k;
		for (k = 0; k < h->len && h->q[(h->head + k) % GL_NOTIFY_QUEUE].end; k++)
			;
		h->dropped++;
		if (k == h->len) {
			pthread_mutex_unlock(&n->mu);
			free(body);
			return;
		}
		free(h->q[(h->head + k) % GL_NOTIFY_QUEUE].body);
		for (; k + 1 < h->len; k++)
			h->q[(h->head + k) % GL_NOTIFY_QUEUE] = h->q[(h->head + k + 1) % GL_NOTIFY_QUEUE];
		h->len--;
	}
	h->q[(h->head + h->len) % GL_NOTIFY_QUEUE] = (struct msg){ end, body };
	h->len++;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&n->mu);
}

/* ---- the sender threads, one per webhook --------------------------------- */

static int64_t deadline_of(struct gl_notify *n)
{
	int64_t d;
	pthread_mutex_lock(&n->mu);
	d = n->deadline;
	pthread_mutex_unlock(&n->mu);
	return d;
}

/* libcurl asks this during a try (arg: the hook): a deadline set
 * meanwhile cuts it. */
static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	int64_t d = deadline_of(((struct hook *)arg)->n);
	(void)dt, (void)dn, (void)ut, (void)un;
	return d && gl_now_ns() >= d;
}

static size_t discard(char *p, size_t s, size_t k, void *arg)
{
	(void)p, (void)arg;
	return s * k;
}

/* One try: 0 delivered, else the kind of failure (detail filled), and
 * *again whether another try may help. */
static int try_once(CURL *e, struct hook *h, const char *body, char *detail, size_t dn, int *again)
{
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
	int64_t d = deadline_of(h->n);
	long ms = GL_NOTIFY_TRY_MS, status = 0;
	CURLcode rc;

	hdr = curl_slist_append(hdr, "Expect:");
	if (d) {
		int64_t left = (d - gl_now_ns()) / 1000000;
		if (left < ms)
			ms = left < 1 ? 1 : (long)left;
	}
	curl_easy_reset(e);
	curl_easy_setopt(e, CURLOPT_URL, h->url);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "gauntlet-notify");
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, ms < 3000 ? ms : 3000L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(e, CURLOPT_XFERINFODATA, h);
	rc = curl_easy_perform(e);
	curl_slist_free_all(hdr);
	*again = 1;
	if (rc == CURLE_OK) {
		curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
		if (status >= 200 && status < 300)
			return -1;
		snprintf(detail, dn, "HTTP %ld", status);
		if (status >= 500)
			return FK_HTTP_5XX;
		*again = status == 408 || status == 429;
		return status >= 400 ? FK_HTTP_4XX : FK_OTHER;
	}
	/* libcurl's sentence for the code, never its error buffer (that
	 * names the host) */
	snprintf(detail, dn, "%s",
		 rc == CURLE_ABORTED_BY_CALLBACK ? "cut at the end-of-run deadline" : curl_easy_strerror(rc));
	if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_RESOLVE_PROXY)
		return FK_CONNECT;
	if (rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_ABORTED_BY_CALLBACK)
		return FK_TIMEOUT;
	return FK_OTHER;
}

/* Wait ns, or until the deadline; 1 when the deadline passed. */
static int backoff(struct hook *h, int64_t ns)
{
	struct gl_notify *n = h->n;
	int64_t until = gl_now_ns() + ns;
	int passed;

	pthread_mutex_lock(&n->mu);
	for (;;) {
		int64_t now = gl_now_ns(), end = n->deadline && n->deadline < until ? n->deadline : until;
		struct timespec ts;
		if (now >= end)
			break;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += (end - now) / 1000000000LL;
		ts.tv_nsec += (end - now) % 1000000000LL;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&h->cv, &n->mu, &ts);
	}
	passed = n->deadline && gl_now_ns() >= n->deadline;
	pthread_mutex_unlock(&n->mu);
	return passed;
}

static void deliver(struct hook *h, CURL *e, const struct msg *m)
{
	struct gl_notify *n = h->n;
	char detail[96] = "";
	int kind = FK_OTHER;

	for (int a = 0; a < GL_NOTIFY_ATTEMPTS; a++) {
		int again;
		kind = try_once(e, h, m->body, detail, sizeof(detail), &again);
		if (kind < 0) {
			pthread_mutex_lock(&n->mu);
			h->sent++;
			pthread_mutex_unlock(&n->mu);
			return;
		}
		if (!again || a + 1 == GL_NOTIFY_ATTEMPTS || backoff(h, 500000000LL << a))
			break;
	}
	pthread_mutex_lock(&n->mu);
	h->failed++;
	h->last_fail = kind;
	if (!(h->logged & (1u << kind))) {
		h->logged |= 1u << kind;
		h->to_log |= 1u << kind;
		snprintf(h->detail[kind], sizeof(h->detail[kind]), "%s", detail);
	}
	pthread_mutex_unlock(&n->mu);
}

/* One webhook's thread: its queue in order, until told to quit and the
 * queue is empty; past the deadline what is left is dropped untried. */
static void *sender(void *arg)
{
	struct hook *h = arg;
	struct gl_notify *n = h->n;
	CURL *e = curl_easy_init();

	pthread_mutex_lock(&n->mu);
	for (;;) {
		struct msg m;
		while (!h->len && !n->quit)
			pthread_cond_wait(&h->cv, &n->mu);
		if (!h->len)
			break;
		m = h->q[h->head];
		h->head = (h->head + 1) % GL_NOTIFY_QUEUE;
		h->len--;
		if (!e || (n->deadline && gl_now_ns() >= n->deadline)) {
			h->dropped++; /* past the deadline: not tried */
			free(m.body);
			continue;
		}
		pthread_mutex_unlock(&n->mu);
		deliver(h, e, &m);
		free(m.body);
		pthread_mutex_lock(&n->mu);
	}
	pthread_mutex_unlock(&n->mu);
	if (e)
		curl_easy_cleanup(e);
	return NULL;
}

/* ---- the loop thread's side ----------------------------------------------- */

static int url_ok(const char *u)
{
	return (!strncasecmp(u, "http://", 7) && u[7]) || (!strncasecmp(u, "https://", 8) && u[8]);
}

struct gl_notify *gl_notify_new(const struct gl_scenario *sc, struct gl_err *err)
{
	struct gl_notify *n;
	pthread_condattr_t ca;

	if (!sc->n_notify)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n || !(n->hooks = calloc((size_t)sc->n_notify, sizeof(*n->hooks)))) {
		free(n);
		gl_errf(err, GL_ENOMEM, "notify: out of memory");
		return NULL;
	}
	n->n = sc->n_notify;
	for (int i = 0; i < n->n; i++) {
		struct hook *h = &n->hooks[i];
		struct gl_err e = { 0 };
		snprintf(h->env, sizeof(h->env), "%s", sc->notify[i].url_env);
		h->slack = sc->notify[i].slack;
		h->on = sc->notify[i].on;
		h->last_fail = -1;
		if (gl_secret_read(h->env, NULL, h->url, sizeof(h->url), &e) != 0 || !url_ok(h->url)) {
			gl_errf(err, GL_EINVAL, "notify[%d] (%s): %s", i, h->env,
				e.code ? e.msg : "the variable does not hold an http:// or https:// URL");
			gl_notify_free(n);
			return NULL;
		}
	}
	pthread_mutex_init(&n->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	for (int i = 0; i < n->n; i++) {
		n->hooks[i].n = n;
		pthread_cond_init(&n->hooks[i].cv, &ca);
	}
	pthread_condattr_destroy(&ca);
	n->started = -1; /* mutex and conds made */
	/* before any thread of the run (curl_global_init is not thread-safe) */
	curl_global_init(CURL_GLOBAL_DEFAULT);
	return n;
}

/* Every sender gets the same deadline, now + deadline_ns, and is told to
 * quit; then each is joined. They work in parallel and none tries anything
 * past that one instant, so the wait is bounded by deadline_ns (and the
 * moment libcurl takes to call on_progress), however many webhooks hang. */
static void stop_all(struct gl_notify *n, int64_t deadline_ns)
{
	pthread_mutex_lock(&n->mu);
	n->deadline = gl_now_ns() + deadline_ns;
	n->quit = 1;
	for (int i = 0; i < n->n; i++)
		pthread_cond_broadcast(&n->hooks[i].cv);
	pthread_mutex_unlock(&n->mu);
	for (int i = 0; i < n->n; i++)
		if (n->hooks[i].running) {
			pthread_join(n->hooks[i].th, NULL);
			n->hooks[i].running = 0;
		}
}

int gl_notify_start(struct gl_notify *n, const char *run_id, const char *scenario)
{
	if (!n)
		return 0;
	snprintf(n->run_id, sizeof(n->run_id), "%s", run_id);
	snprintf(n->scenario, sizeof(n->scenario), "%s", scenario);
	for (int i = 0; i < n->n; i++) {
		if (pthread_create(&n->hooks[i].th, NULL, sender, &n->hooks[i]) == 0) {
			n->hooks[i].running = 1;
			continue;
		}
		/* all of them or none: the ones started stop (nothing is queued) */
		stop_all(n, 0);
		return -1;
	}
	n->started = 1;
	return 0;
}

/* Slack's text escapes: & < > */
static char *slack_text(const char *t)
{
	size_t k = 0, len = strlen(t);
	char *o = malloc(len * 5 + 1);

	if (!o)
		return NULL;
	for (; *t; t++)
		k += (size_t)sprintf(o + k, "%s",
				     *t == '&'   ? "&amp;"
				     : *t == '<' ? "&lt;"
				     : *t == '>' ? "&gt;"
						 : (char[]){ *t, 0 });
	o[k] = '\0';
	return o;
}

void gl_notify_event(struct gl_notify *n, enum gl_notify_event ev, const char *text, cJSON *fields)
{
	char when[64], line[1200];
	cJSON *j;

	if (!n || n->started != 1) {
		cJSON_Delete(fields);
		return;
	}
	gl_format_wall(gl_wall_ns(), when, sizeof(when));
	snprintf(line, sizeof(line), "gauntlet %s (run %s): %s", n->scenario, n->run_id, text);
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "source", "gauntlet");
	cJSON_AddStringToObject(j, "run_id", n->run_id);
	cJSON_AddStringToObject(j, "scenario", n->scenario);
	{
		/* fields may name the event more narrowly (target_recovered is
		 * sent where target_missed is taken) */
		const cJSON *nm = fields ? cJSON_GetObjectItemCaseSensitive(fields, "event") : NULL;
		cJSON_AddStringToObject(j, "event", cJSON_IsString(nm) ? nm->valuestring : gl_notify_event_name(ev));
	}
	cJSON_AddStringToObject(j, "time", when);
	cJSON_AddStringToObject(j, "text", text);
	if (fields) {
		cJSON *f;
		cJSON_DeleteItemFromObjectCaseSensitive(fields, "event");
		while ((f = fields->child)) {
			cJSON_DetachItemViaPointer(fields, f);
			cJSON_AddItemToObject(j, f->string, f);
		}
		cJSON_Delete(fields);
	}
	for (int i = 0; i < n->n; i++) {
		char *body = NULL;
		if (!(n->hooks[i].on & (1u << ev)))
			continue;
		if (n->hooks[i].slack) {
			char *t = slack_text(line);
			cJSON *s = cJSON_CreateObject();
			cJSON_AddStringToObject(s, "text", t ? t : "");
			body = cJSON_PrintUnformatted(s);
			cJSON_Delete(s);
			free(t);
		} else {
			body = cJSON_PrintUnformatted(j);
		}
		if (body)
			push(n, &n->hooks[i], ev == GL_NEV_END, body);
	}
	cJSON_Delete(j);
}

void gl_notify_poll(struct gl_notify *n, void (*log)(void *arg, const char *line), void *arg)
{
	char lines[GL_NOTIFY_MAX * FK_N][320];
	int k = 0;

	if (!n || n->started == 0)
		return;
	pthread_mutex_lock(&n->mu);
	for (int i = 0; i < n->n; i++) {
		struct hook *h = &n->hooks[i];
		for (int f = 0; f < FK_N && k < (int)(sizeof(lines) / sizeof(lines[0])); f++)
			if (h->to_log & (1u << f))
				snprintf(lines[k++], sizeof(lines[0]),
					 "notify[%d] (%s): a message was not delivered: %s (%s); further failures of "
					 "this "
					 "kind are counted, not logged (report.json \"notify\")",
					 i, h->env, fail_names[f], h->detail[f]);
		h->to_log = 0;
	}
	pthread_mutex_unlock(&n->mu);
	for (int i = 0; i < k; i++)
		log(arg, lines[i]);
}

void gl_notify_totals(struct gl_notify *n, int64_t *sent, int64_t *failed, int64_t *dropped)
{
	*sent = *failed = *dropped = 0;
	if (!n || n->started == 0)
		return;
	pthread_mutex_lock(&n->mu);
	for (int i = 0; i < n->n; i++) {
		*sent += n->hooks[i].sent;
		*failed += n->hooks[i].failed;
		*dropped += n->hooks[i].dropped;
	}
	pthread_mutex_unlock(&n->mu);
}

void gl_notify_finish(struct gl_notify *n, int64_t deadline_ns)
{
	if (!n || n->started != 1)
		return;
	stop_all(n, deadline_ns);
	n->started = 2;
}

char *gl_notify_report(struct gl_notify *n)
{
	cJSON *r = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(r, "webhooks");
	char *text;

	for (int i = 0; n && n->started != 0 && i < n->n; i++) {
		struct hook *h = &n->hooks[i];
		cJSON *w = cJSON_CreateObject();
		char name[160];
		snprintf(name, sizeof(name), "notify[%d] (%s)", i, h->env);
		pthread_mutex_lock(&n->mu);
		cJSON_AddStringToObject(w, "name", name);
		cJSON_AddStringToObject(w, "url_env", h->env);
		cJSON_AddStringToObject(w, "format", h->slack ? "slack" : "json");
		cJSON_AddNumberToObject(w, "sent", (double)h->sent);
		cJSON_AddNumberToObject(w, "failed", (double)h->failed);
		cJSON_AddNumberToObject(w, "dropped", (double)h->dropped);
		if (h->last_fail >= 0)
			cJSON_AddStringToObject(w, "last_error", fail_names[h->last_fail]);
		else
			cJSON_AddNullToObject(w, "last_error");
		pthread_mutex_unlock(&n->mu);
		cJSON_AddItemToArray(a, w);
	}
	text = cJSON_PrintUnformatted(r);
	cJSON_Delete(r);
	return text;
}

void gl_notify_restore(struct gl_notify *n, const char *doc)
{
	cJSON *r = doc ? cJSON_Parse(doc) : NULL, *w;
	int i = 0;

	if (!n || n->started == 0) {
		cJSON_Delete(r);
		return;
	}
	cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(r, "webhooks"))
	{
		const cJSON *env = cJSON_GetObjectItemCaseSensitive(w, "url_env");
		const char *le = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(w, "last_error"));
		struct hook *h = i < n->n ? &n->hooks[i] : NULL;
		i++;
		/* the same webhook of the same stored scenario */
		if (!h || !cJSON_IsString(env) || strcmp(env->valuestring, h->env))
			continue;
		pthread_mutex_lock(&n->mu);
		h->sent += (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, "sent"));
		h->failed += (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, "failed"));
		h->dropped += (int64_t)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(w, "dropped"));
		for (int f = 0; le && f < FK_N; f++)
			if (!strcmp(le, fail_names[f]) && h->last_fail < 0)
				h->last_fail = f;
		pthread_mutex_unlock(&n->mu);
	}
	cJSON_Delete(r);
}

void gl_notify_free(struct gl_notify *n)
{
	if (!n)
		return;
	if (n->started == 1)
		gl_notify_finish(n, 0);
	for (int i = 0; i < n->n; i++) {
		struct hook *h = &n->hooks[i];
		for (int k = 0; k < h->len; k++)
			free(h->q[(h->head + k) % GL_NOTIFY_QUEUE].body);
		if (n->started != 0)
			pthread_cond_destroy(&h->cv);
		explicit_bzero(h->url, sizeof(h->url));
	}
	if (n->started != 0)
		pthread_mutex_destroy(&n->mu);
	free(n->hooks);
	free(n);
}
