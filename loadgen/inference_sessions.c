/*
 * inference_sessions.c - multi-turn conversations ("sessions" in the
 * inference section, docs/scenario.md): each arrival (open loop) or each
 * closed-loop user's next request starts a conversation of "turns"
 * requests. Turn k+1 is due "think_time" after turn k's answer ended, and
 * its prompt is the conversation so far: turn k's prompt, the answer
 * received (its text, at most SESSION_ANSWER_MAX bytes) and new user text
 * ("user_tokens" words, deterministic). The history grows as a shared
 * prefix, what a server's prefix cache is for.
 *
 * Chat sends the conversation as messages (user, assistant, user, ...),
 * completions as one prompt, its parts joined by newlines; either way the
 * words of turn k's prompt lead turn k+1's. A conversation keeps the model
 * its first turn drew (an adapter's share is drawn per conversation).
 *
 * Open loop: a turn due while max_in_flight requests are in flight waits
 * (before any held new arrival) and keeps its due time as its intended
 * send, so the wait is charged to its TTFT like any held request's. Closed
 * loop: the user's next request is its conversation's next turn; a user
 * starts a new conversation (after arrival.think_time) when the last one
 * ended. A turn that fails ends its conversation; so does one whose
 * history would pass SESSION_HISTORY_MAX bytes.
 *
 * Figures: inference.sessions (conversations started), and the TTFT of
 * first turns and of later turns apart (inference.ttft_first_turn_ms,
 * inference.ttft_later_turn_ms; inference.ttft_ms keeps them all).
 *
 * Memory: each live conversation holds its text (about 6 bytes a word,
 * at most SESSION_HISTORY_MAX) and one timer.
 */
#include "inference_int.h"

#define SESSION_ANSWER_MAX (64u << 10)
#define SESSION_HISTORY_MAX (4u << 20)

struct inf_session {
	struct inf *w;
	struct inf_session *next, *prev; /* w->sessions */
	struct inf_session *wait_next; /* w->sess_wait: due, held by max_in_flight */
	struct event *wake; /* the next turn's due time */
	uint64_t seq; /* its first request's: its model, its user texts */
	int turn; /* the turn in flight, or the next one (0-based) */
	int user; /* closed loop: the user it belongs to; -1 open loop */
	int64_t t_due; /* the next turn's intended send */
	int64_t prompt_tokens; /* words of the conversation so far */
	size_t history_bytes; /* bytes of its text so far */
	cJSON *msgs; /* chat: the messages so far */
	struct gl_buf text; /* completions: the prompt so far; chat: the last user text */
	struct gl_buf answer; /* the answer of the turn in flight */
};

static int64_t words_in(const char *s, size_t n)
{
	int64_t k = 0;
	int in = 0;

	for (size_t i = 0; i < n; i++) {
		int sp = s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\v' || s[i] == '\f' || s[i] == '\r';
		k += !sp && !in;
		in = !sp;
	}
	return k;
}

static void on_wake(evutil_socket_t fd, short what, void *arg);

static void session_free(struct inf_session *s)
{
	struct inf *w = s->w;

	if (s->prev)
		s->prev->next = s->next;
	else
		w->sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	if (s->wake)
		event_free(s->wake);
	cJSON_Delete(s->msgs);
	gl_buf_free(&s->text);
	gl_buf_free(&s->answer);
	free(s);
}

static int add_msg(cJSON *msgs, const char *role, const char *content)
{
	cJSON *m = cJSON_CreateObject();

	if (!m || !cJSON_AddStringToObject(m, "role", role) || !cJSON_AddStringToObject(m, "content", content)) {
		cJSON_Delete(m);
		return -1;
	}
	cJSON_AddItemToArray(msgs, m);
	return 0;
}

/* A new conversation whose first turn is request r, its prompt in
 * w->scratch (inf_build_body leaves it there). */
static struct inf_session *session_new(struct inf *w, struct req *r, uint64_t seq)
{
	struct inf_session *s = calloc(1, sizeof(*s));
	const char *p = w->scratch.data ? w->scratch.data : "";
	size_t n = strlen(p);
	int ok;

	if (!s)
		return NULL;
	s->w = w;
	s->seq = seq;
	s->user = r->user;
	s->next = w->sessions;
	if (w->sessions)
		w->sessions->prev = s;
	w->sessions = s;
	gl_buf_init(&s->text, SESSION_HISTORY_MAX);
	gl_buf_init(&s->answer, SESSION_ANSWER_MAX);
	s->wake = evtimer_new(gl_ctx_base(w->ctx), on_wake, s);
	s->prompt_tokens = words_in(p, n);
	s->history_bytes = n;
	if (w->chat)
		ok = (s->msgs = cJSON_CreateArray()) != NULL && add_msg(s->msgs, "user", p) == 0;
	else
		ok = gl_buf_append(&s->text, p, n) == 0;
	if (!s->wake || !ok) {
		session_free(s);
		return NULL;
	}
	gl_metrics_add(w->m, w->id_sessions, 1);
	return s;
}

struct inf_session *inf_session_attach(struct inf *w, struct req *r, uint64_t seq)
{
	struct inf_session *s = w->sess_next;

	if (!w->sess_turns)
		return NULL;
	if (!s)
		return session_new(w, r, seq);
	w->sess_next = NULL;
	s->answer.len = 0;
	return s;
}

/* The answer's text in a chunk or a whole body: choices[0].delta.content
 * or .message.content (chat), choices[0].text (completions). */
static void add_answer(struct inf_session *s, const char *json, size_t len, int whole)
{
	cJSON *root = cJSON_ParseWithLength(json, len), *ch, *m, *c;

	ch = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "choices"), 0);
	m = cJSON_GetObjectItemCaseSensitive(ch, whole ? "message" : "delta");
	c = cJSON_GetObjectItemCaseSensitive(m ? m : ch, m ? "content" : "text");
	if (cJSON_IsString(c)) {
		size_t n = strlen(c->valuestring), room = SESSION_ANSWER_MAX - s->answer.len;
		gl_buf_append(&s->answer, c->valuestring, n < room ? n : room);
	}
	cJSON_Delete(root);
}

void inf_session_event(struct req *r, const struct gl_sse_event *ev)
{
	if (ev->oai && ev->oai->content_bytes > 0 && r->session->answer.len < SESSION_ANSWER_MAX)
		add_answer(r->session, ev->data, ev->data_len, 0);
}

/* The conversation takes the answer and new user text: turn k+1's
 * prompt. 0, or -1 when its history would pass the cap (or out of
 * memory). */
static int grow(struct inf_session *s)
{
	struct inf *w = s->w;
	const char *a = s->answer.data ? s->answer.data : "";
	struct gl_buf user;
	int rc = -1;

	gl_buf_init(&user, SESSION_HISTORY_MAX);
	if (gl_prompt_synth(w->o.seed, s->seq + ((uint64_t)s->turn << 40), (unsigned)w->sess_user_tokens, NULL, 0, 0,
			    &user) != 0 ||
	    s->history_bytes + s->answer.len + user.len + 2 > SESSION_HISTORY_MAX)
		goto out;
	if (w->chat) {
		/* the body's "prompt" is the last user text; messages carry all */
		s->text.len = 0;
		if (add_msg(s->msgs, "assistant", a) || add_msg(s->msgs, "user", user.data) ||
		    gl_buf_append(&s->text, user.data, user.len))
			goto out;
	} else if (gl_buf_append(&s->text, "\n", 1) || gl_buf_append(&s->text, a, s->answer.len) ||
		   gl_buf_append(&s->text, "\n", 1) || gl_buf_append(&s->text, user.data, user.len)) {
		goto out;
	}
	s->history_bytes += s->answer.len + user.len + 2;
	s->prompt_tokens += words_in(a, s->answer.len) + words_in(user.data, user.len);
	rc = 0;
out:
	gl_buf_free(&user);
	return rc;
}

/* Send the next turn: the conversation as a trace row's prompt (and
 * messages) through inf_send_req, which hands the request to it. */
static void send_turn(struct inf_session *s)
{
	struct inf *w = s->w;
	struct gl_trace_row tr;
	char *msgs = NULL;

	memset(&tr, 0, sizeof(tr));
	tr.prompt = s->text.data ? s->text.data : "";
	tr.prompt_len = s->text.len;
	if (w->chat && !(tr.messages_json = msgs = cJSON_PrintUnformatted(s->msgs))) {
		session_free(s);
		return;
	}
	w->sess_next = s;
	inf_send_req(w, s->user >= 0 ? inf_now_ns(w) : s->t_due, s->seq, s->prompt_tokens, w->o.output_tokens, &tr,
		     s->user);
	cJSON_free(msgs);
	if (w->sess_next == s) { /* not sent (out of memory): the conversation ends */
		w->sess_next = NULL;
		session_free(s);
	}
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
	struct inf_session *s = arg;
	struct inf *w = s->w;

	(void)fd;
	(void)what;
	if (!w->running)
		return;
	if (s->user < 0 && (w->in_flight >= w->o.max_in_flight || w->sess_wait)) {
		/* held, behind the turns held before it */
		s->wait_next = NULL;
		if (w->sess_wait)
			w->sess_wait_tail->wait_next = s;
		else
			w->sess_wait = s;
		w->sess_wait_tail = s;
		return;
	}
	send_turn(s);
}

void inf_sessions_launch(struct inf *w)
{
	while (w->sess_wait && w->in_flight < w->o.max_in_flight && w->running) {
		struct inf_session *s = w->sess_wait;
		w->sess_wait = s->wait_next;
		send_turn(s);
	}
}

int inf_session_turn_done(struct inf *w, struct req *r, enum err_class ec)
{
	struct inf_session *s = r->session;

	r->session = NULL;
	if (ec == EC_OK) {
		int64_t from = w->mode == AR_CLOSED ? r->t_send : r->t_intended;
		gl_metrics_record(w->m, s->turn ? w->id_ttft_later : w->id_ttft_first,
				  (double)(r->t_first_token - from) / 1e6);
		if (!w->o.stream && r->resp.data)
			add_answer(s, r->resp.data, r->resp.len, 1);
	}
	s->turn++;
	if (ec != EC_OK || s->turn >= w->sess_turns || !w->running || (s->user >= 0 && s->user >= w->active_users) ||
	    grow(s) != 0) {
		session_free(s);
		return 0;
	}
	s->t_due = r->t_end + w->sess_think_ns;
	gl_ctx_arm_at(w->ctx, s->wake, s->t_due);
	return 1;
}

void inf_sessions_init(struct inf *w, const cJSON *cfg)
{
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(cfg, "sessions");

	if (!sc)
		return;
	w->sess_turns = (int)gl_cfg_int(sc, "turns", 2);
	w->sess_think_ns = gl_cfg_dur(sc, "think_time", 0);
	w->sess_user_tokens = gl_cfg_int(sc, "user_tokens", (long)w->o.input_tokens);
	w->id_sessions = gl_metrics_counter(w->m, "inference.sessions");
	w->id_ttft_first = gl_metrics_hist(w->m, "inference.ttft_first_turn_ms");
	w->id_ttft_later = gl_metrics_hist(w->m, "inference.ttft_later_turn_ms");
}

void inf_sessions_free(struct inf *w)
{
	w->sess_next = w->sess_wait = w->sess_wait_tail = NULL;
	while (w->sessions)
		session_free(w->sessions);
}
