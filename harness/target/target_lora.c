/*
 * target_lora.c - LoRA adapters in `gauntlet target`, shaped after vLLM's
 * runtime adapter API (what a model_swap fault with method lora drives):
 *
 *   POST /v1/load_lora_adapter   {"lora_name": N, "lora_path": P}
 *     200 "Success: LoRA adapter 'N' added successfully." after
 *     --lora-load-ms (the adapter is served from then on, not before);
 *     400 when a field is missing, N is already loaded or loading, N is
 *     the base model's name, or --max-loras adapters are loaded; 404 when
 *     P is an absolute path with no directory there (vLLM: "No adapter
 *     found"). A relative P stands for a hub name and is taken as it is.
 *   POST /v1/unload_lora_adapter {"lora_name": N}
 *     200 "Success: LoRA adapter 'N' removed successfully." at once;
 *     404 when no adapter N is loaded (or it is still loading).
 *
 * Generation requests may name a loaded adapter as their model; they are
 * timed like the base model's and their chunks carry the adapter's name.
 * Requests naming one that is not loaded get vLLM's 404 ("The model `N`
 * does not exist.", code model_not_found). Streams already running when
 * their adapter is unloaded run to their end. /v1/models lists the base
 * model, then each loaded adapter with its root (the path) and parent.
 * --lora N=P loads adapters at start, without the load time.
 */
#include "target_int.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define LORA_NAME_MAX 256
#define LORA_PATH_MAX 4096

static char *json_inner(const char *s)
{
	cJSON *str = cJSON_CreateString(s);
	char *q = str ? cJSON_PrintUnformatted(str) : NULL, *out = NULL;
	size_t n;

	cJSON_Delete(str);
	if (q && (n = strlen(q)) >= 2) {
		q[n - 1] = '\0';
		out = strdup(q + 1);
	}
	free(q);
	return out;
}

static struct lora *find_any(const struct target *t, const char *name)
{
	for (struct lora *l = t->loras; l; l = l->next)
		if (!strcmp(l->name, name))
			return l;
	return NULL;
}

const struct lora *tgt_lora_find(const struct target *t, const char *name)
{
	const struct lora *l = find_any(t, name);
	return l && !l->loading ? l : NULL;
}

static void lora_free(struct lora *l)
{
	if (l->req)
		evhttp_connection_set_closecb(evhttp_request_get_connection(l->req), NULL, NULL);
	if (l->timer)
		event_free(l->timer);
	free(l->name);
	free(l->name_json);
	free(l->path_json);
	free(l);
}

static void unlink_lora(struct target *t, struct lora *l)
{
	for (struct lora **pp = &t->loras; *pp; pp = &(*pp)->next)
		if (*pp == l) {
			*pp = l->next;
			t->n_loras--;
			return;
		}
}

static struct lora *lora_new(struct target *t, const char *name, const char *path)
{
	struct lora *l = calloc(1, sizeof(*l)), **tail;

	if (!l)
		return NULL;
	l->t = t;
	l->name = strdup(name);
	l->name_json = json_inner(name);
	l->path_json = json_inner(path);
	l->created_s = (long long)time(NULL);
	/* a load's blocks are its own: loaded again, it starts cold (vLLM
	 * keys blocks by the adapter's load id) */
	l->cache_salt = ++t->lora_salt_next;
	if (!l->name || !l->name_json || !l->path_json) {
		lora_free(l);
		return NULL;
	}
	/* listed in the order they were loaded */
	for (tail = &t->loras; *tail; tail = &(*tail)->next)
		;
	*tail = l;
	t->n_loras++;
	return l;
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > LORA_NAME_MAX)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

int tgt_lora_static(struct target *t, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char name[LORA_NAME_MAX + 1];
	size_t n = eq ? (size_t)(eq - spec) : 0;

	if (!eq || n == 0 || n > LORA_NAME_MAX || !eq[1] || strlen(eq + 1) > LORA_PATH_MAX) {
		gl_error("target: --lora %s: expected NAME=PATH", spec);
		return -1;
	}
	memcpy(name, spec, n);
	name[n] = '\0';
	if (!name_ok(name) || !strcmp(name, t->o.model) || find_any(t, name)) {
		gl_error("target: --lora %s: the name is empty, has control characters, is the base model's or is "
			 "given twice",
			 spec);
		return -1;
	}
	if (!lora_new(t, name, eq + 1)) {
		gl_error("target: out of memory");
		return -1;
	}
	gl_info("target: LoRA adapter '%s' loaded from %s", name, eq + 1);
	return 0;
}

void tgt_lora_models(const struct target *t, struct gl_buf *b)
{
	for (const struct lora *l = t->loras; l; l = l->next)
		if (!l->loading)
			gl_buf_printf(b,
				      ",{\"id\":\"%s\",\"object\":\"model\",\"created\":%lld,\"owned_by\":\"gauntlet\","
				      "\"root\":\"%s\",\"parent\":\"%s\",\"max_model_len\":null}",
				      l->name_json, l->created_s, l->path_json, t->model_json);
}

static void reply_text(struct target *t, struct evhttp_request *req, enum endpoint ep, const char *text)
{
	struct evbuffer *buf = evbuffer_new();

	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "text/plain; charset=utf-8");
	tgt_count_status(t, ep, 200);
	if (buf)
		evbuffer_add(buf, text, strlen(text));
	evhttp_send_reply(req, 200, "OK", buf);
	if (buf)
		evbuffer_free(buf);
}

/* The client of a pending load went away: the load goes on (as a server's
 * would), only its reply has nobody to go to. */
static void on_load_conn_close(struct evhttp_connection *evcon, void *arg)
{
	struct lora *l = arg;
	(void)evcon;
	l->req = NULL;
}

static void on_loaded(evutil_socket_t fd, short what, void *arg)
{
	struct lora *l = arg;
	struct target *t = l->t;
	char msg[LORA_NAME_MAX + 80];

	(void)fd;
	(void)what;
	l->loading = 0;
	l->created_s = (long long)time(NULL);
	t->lora_loads++;
	gl_info("target: LoRA adapter '%s' loaded", l->name);
	if (l->req) {
		evhttp_connection_set_closecb(evhttp_request_get_connection(l->req), NULL, NULL);
		snprintf(msg, sizeof(msg), "Success: LoRA adapter '%s' added successfully.", l->name);
		reply_text(t, l->req, EP_LORA_LOAD, msg);
		l->req = NULL;
	}
}

static void bad(struct target *t, struct evhttp_request *req, enum endpoint ep, int status, const char *msg)
{
	tgt_reply_error(t, req, ep, status, status == 404 ? "NotFoundError" : "BadRequestError", NULL, NULL, msg);
}

static void handle_load(struct target *t, struct evhttp_request *req, const cJSON *root)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "lora_name");
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(root, "lora_path");
	char msg[LORA_NAME_MAX + LORA_PATH_MAX + 80];
	struct timeval tv;
	struct stat st;
	struct lora *l;

	if (!cJSON_IsString(name) || !cJSON_IsString(path) || !name->valuestring[0] || !path->valuestring[0]) {
		bad(t, req, EP_LORA_LOAD, 400, "Both 'lora_name' and 'lora_path' must be provided.");
		return;
	}
	if (!name_ok(name->valuestring) || strlen(path->valuestring) > LORA_PATH_MAX) {
		bad(t, req, EP_LORA_LOAD, 400,
		    "'lora_name' must be 1 to 256 characters without control characters, "
		    "'lora_path' at most 4096.");
		return;
	}
	if (find_any(t, name->valuestring)) {
		snprintf(msg, sizeof(msg), "The lora adapter '%s' has already been loaded.", name->valuestring);
		bad(t, req, EP_LORA_LOAD, 400, msg);
		return;
	}
	if (!strcmp(name->valuestring, t->o.model)) {
		snprintf(msg, sizeof(msg), "'%s' is the base model's name.", name->valuestring);
		bad(t, req, EP_LORA_LOAD, 400, msg);
		return;
	}
	if (t->n_loras >= t->o.max_loras) {
		snprintf(msg, sizeof(msg), "%u adapters are loaded, the most this server holds (--max-loras).",
			 t->n_loras);
		bad(t, req, EP_LORA_LOAD, 400, msg);
		return;
	}
	if (path->valuestring[0] == '/' && (stat(path->valuestring, &st) != 0 || !S_ISDIR(st.st_mode))) {
		snprintf(msg, sizeof(msg), "No adapter found for %s", path->valuestring);
		bad(t, req, EP_LORA_LOAD, 404, msg);
		return;
	}
	l = lora_new(t, name->valuestring, path->valuestring);
	if (l)
		l->timer = evtimer_new(t->base, on_loaded, l);
	if (!l || !l->timer) {
		if (l) {
			unlink_lora(t, l);
			lora_free(l);
		}
		tgt_reply_error(t, req, EP_LORA_LOAD, 500, "server_error", NULL, NULL, "out of memory");
		return;
	}
	l->loading = 1;
	l->req = req;
	evhttp_connection_set_closecb(evhttp_request_get_connection(req), on_load_conn_close, l);
	gl_info("target: loading LoRA adapter '%s' from %s (%llu ms)", l->name, path->valuestring,
		(unsigned long long)t->o.lora_load_ms);
	tv.tv_sec = (time_t)(t->o.lora_load_ms / 1000);
	tv.tv_usec = (suseconds_t)(t->o.lora_load_ms % 1000 * 1000);
	evtimer_add(l->timer, &tv);
}

static void handle_unload(struct target *t, struct evhttp_request *req, const cJSON *root)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "lora_name");
	char msg[LORA_NAME_MAX + 80];
	struct lora *l;

	if (!cJSON_IsString(name) || !name->valuestring[0]) {
		bad(t, req, EP_LORA_UNLOAD, 400, "'lora_name' must be provided.");
		return;
	}
	l = find_any(t, name->valuestring);
	if (!l || l->loading) {
		snprintf(msg, sizeof(msg), "The lora adapter '%.256s' cannot be found.", name->valuestring);
		bad(t, req, EP_LORA_UNLOAD, 404, msg);
		return;
	}
	unlink_lora(t, l);
	t->lora_unloads++;
	gl_info("target: LoRA adapter '%s' unloaded", l->name);
	snprintf(msg, sizeof(msg), "Success: LoRA adapter '%s' removed successfully.", l->name);
	lora_free(l);
	reply_text(t, req, EP_LORA_UNLOAD, msg);
}

void tgt_lora_handle(struct target *t, struct evhttp_request *req, enum endpoint ep)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(in);
	const char *body = len ? (const char *)evbuffer_pullup(in, -1) : "";
	cJSON *root = len <= 65536 ? cJSON_ParseWithLength(body, len) : NULL;

	if (!cJSON_IsObject(root))
		bad(t, req, ep, 400, "The request body must be a JSON object (at most 64 KiB).");
	else if (ep == EP_LORA_LOAD)
		handle_load(t, req, root);
	else
		handle_unload(t, req, root);
	cJSON_Delete(root);
}

void tgt_lora_free_all(struct target *t)
{
	while (t->loras) {
		struct lora *l = t->loras;
		t->loras = l->next;
		lora_free(l);
	}
	t->n_loras = 0;
}
