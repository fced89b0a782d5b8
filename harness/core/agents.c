/*
 * agents.c - the controller's side of load agents (agents.h): launching
 * them through mpirun or srun, one launcher per agent; the listener and
 * the token check; plans, load changes and stop; merging what they send
 * into the windows; losing an agent (counted, named, relaunched with a
 * backoff) and never waiting on a dead one.
 */
#define _GNU_SOURCE
#include "controller_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "agent_wire.h"
#include "agents.h"
#include "cfg.h"
#include "child.h"
#include "metrics.h"
#include "netaddr.h"
#include "secrets.h"

#define MAX_AGENTS 256
/* Connections that have not said hello: at most MAX_PENDING, each holding
 * at most GL_AW_HELLO_MAX bytes of input for at most HELLO_DEADLINE_NS.
 * When every place is taken, a new connection takes the place of the
 * oldest one from the address that holds the most: strangers crowd out
 * each other, not the agents that dial from their own hosts. */
#define MAX_PENDING 256
#define HELLO_DEADLINE_NS (2LL * 1000000000)
/* What a connected agent may send: events per window (the rest counted),
 * a counter's or histogram's increase per DATA frame (an agent sends one
 * every 500 ms; 2^40 is far above any real load and far below a wrap). */
#define EVENTS_PER_WINDOW 20
#define FIGURE_MAX (INT64_C(1) << 40)
/* DATA may be for the open window, the next one (an agent's clock may
 * lead the loop by its latency) or one of the LATE_WINDOWS before it. */
#define LATE_WINDOWS 4
#define SILENCE_NS (5LL * 1000000000)
#define STOP_WAIT_NS (5LL * 1000000000)
#define MAX_ARGS 96

enum slot_state { S_DOWN, S_LAUNCHED, S_UP, S_DONE };

/* Why a connection was refused (counted as agents.refused and
 * agents.refused.<name>). */
enum refusal { R_LENGTH, R_NOT_HELLO, R_TOKEN, R_PROTO, R_TAKEN, R_NO_HELLO, R_CLOSED, R_CROWDED, R_N };
static const char *const refusal_name[R_N] = { "bad_length", "not_hello", "bad_token", "bad_proto", "taken",
					       "no_hello", "closed", "crowded_out" };
static const char *const refusal_text[R_N] = {
	"a frame length of 0 or over 4 KiB before the hello (an HTTP request looks like this)",
	"first frame is not a hello", "wrong token", "another protocol version",
	"agent index out of range or already connected", "no hello within 2 s", "closed before its hello",
	"every waiting place taken: dropped for a newer connection" };

struct slot {
	struct gl_agents *a;
	int index;
	enum slot_state state;
	char token[65];            /* this launch's own: a new one each launch */
	char host[128];            /* scenario host it runs on, "" = wherever the launcher puts it */
	pid_t launcher;
	int64_t child_id;
	pid_t dying;               /* a launcher sent SIGTERM, reaped by the tick */
	int64_t dying_id, kill_at_ns;
	int64_t launched_ns, last_frame_ns, relaunch_ns;
	struct bufferevent *bev;
	char peer_host[128];
	int peer_pid;
	int64_t delivered;         /* last window it sent final figures for */
	int64_t joined_ns;         /* run time it was relaunched at, -1 if never */
	int launches, fails_in_row, misses, bye;
	int given_up;
	int64_t ev_window;         /* the window its events are counted in */
	int ev_count;              /* events logged in it */
	int64_t ev_dropped;        /* events not logged since the last summary */
};

struct pending {
	struct gl_agents *a;
	struct bufferevent *bev;
	int64_t since_ns;
	struct sockaddr_storage peer;
	socklen_t peer_len;
};

struct gl_agents {
	struct gl_ctx *c;
	int wl;
	const char *name;
	const cJSON *cfg;             /* the "agents" object */
	int count, srun, max_restarts;
	int64_t connect_timeout_ns, settle_ns, backoff_ns;
	char launcher_path[256], binary[1024];
	char addr[128];               /* host:port the agents dial */
	char key_env[128];            /* the workload's api_key_env, passed on to the agents */
	int lfd;
	struct event *ev_accept, *ev_tick;
	struct slot *s;
	struct pending pend[MAX_PENDING];
	double load;
	int64_t origin_ns;
	int started, stopping;
	int64_t refused, by_cause[R_N], unreported[R_N];
	int late_warned;
};

static int64_t now_ns(struct gl_agents *a) { return gl_ctx_elapsed_ns(a->c); }

void gl_agents_count(const struct gl_agents *a, int *planned, int *connected)
{
	*planned += a->count;
	for (int i = 0; i < a->count; i++)
		*connected += a->s[i].state == S_UP;
}
static int64_t mono(void) { return gl_now_ns(); }

/* ---- launching ----------------------------------------------------------------------------- */

static int add(char **v, int *n, const char *s)
{
	if (*n >= MAX_ARGS - 1 || !(v[*n] = strdup(s)))
		return -1;
	v[++*n] = NULL;
	return 0;
}

static void free_argv(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
}

/* What a launcher command is made of: the same for validate and
 * --dry-run (gl_agents_print) as for the run (a struct gl_agents). */
struct launch {
	const struct gl_scenario *sc;
	const cJSON *cfg;             /* the "agents" object */
	int srun;
	const char *launcher_path, *binary, *key_env;
};

/* The launcher's command for agent index on scenario host host ("" =
 * wherever the launcher puts it), into v (strdup'd). */
static int launch_argv(const struct launch *l, const char *host, int index, char **v, int *n)
{
	const cJSON *extra = cJSON_GetObjectItemCaseSensitive(l->cfg, "launcher_args"), *e;
	const struct gl_host *h = host[0] ? gl_scenario_host(l->sc, host) : NULL;
	const char *hn = h ? (h->local ? "localhost" : h->ssh_host) : NULL;
	char b[512];
	int rc = 0;

	*n = 0;
	rc |= add(v, n, l->launcher_path);
	if (!l->srun) {
		static const char *pass[] = { "GAUNTLET_AGENT_TOKEN", "GAUNTLET_AGENT_CONTROLLER",
					      "GAUNTLET_AGENT_INDEX", GL_CHILD_MARK, "GAUNTLET_LOG" };
		rc |= add(v, n, "-np");
		rc |= add(v, n, "1");
		if (hn) {
			rc |= add(v, n, "-H");
			rc |= add(v, n, hn);
		}
		if (geteuid() == 0)
			rc |= add(v, n, "--allow-run-as-root");
		for (size_t i = 0; i < GL_ARRAY_LEN(pass); i++) {
			rc |= add(v, n, "-x");
			rc |= add(v, n, pass[i]);
		}
		if (l->key_env[0]) {
			rc |= add(v, n, "-x");
			rc |= add(v, n, l->key_env);
		}
	} else {
		rc |= add(v, n, "-n");
		rc |= add(v, n, "1");
		rc |= add(v, n, "-N");
		rc |= add(v, n, "1");
		if (hn) {
			snprintf(b, sizeof(b), "--nodelist=%s", hn);
			rc |= add(v, n, b);
		}
		snprintf(b, sizeof(b), "--job-name=gauntlet-agent-%d", index);
		rc |= add(v, n, b);
		rc |= add(v, n, "--export=ALL");
		rc |= add(v, n, "--kill-on-bad-exit=1");
	}
	cJSON_ArrayForEach(e, extra)
		if (cJSON_IsString(e))
			rc |= add(v, n, e->valuestring);
	rc |= add(v, n, l->binary);
	rc |= add(v, n, "agent");
	return rc;
}

static int build_argv(struct gl_agents *a, struct slot *s, char **v, int *n)
{
	struct launch l = { a->c->sc, a->cfg, a->srun, a->launcher_path, a->binary, a->key_env };

	return launch_argv(&l, s->host, s->index, v, n);
}

/* argv joined by spaces, as the store's children row records it */
static void join_argv(char **v, int n, char *text, size_t size)
{
	size_t off = 0;

	text[0] = '\0';
	for (int i = 0; i < n && off < size; i++)
		off += (size_t)snprintf(text + off, size - off, "%s%s", i ? " " : "", v[i]);
}

/* The scenario host agent index of count runs on ("" = wherever the
 * launcher puts it): agents fill the "hosts" slots in order ("gpu-a:2"
 * takes two), and with more agents than slots go round them again. */
static void agent_host(const cJSON *ac, int count, int index, char *out, size_t size)
{
	const cJSON *h;
	int k = 0, want = 0;

	out[0] = '\0';
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0 counts the slots the agents fill, pass 1 finds index's */
		if (pass == 1) {
			if (k == 0)
				return;
			want = index < k ? index : index % k;
			k = 0;
		}
		cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(ac, "hosts")) {
			char name[128], *colon;
			long slots = 1;
			if (!cJSON_IsString(h))
				continue;
			snprintf(name, sizeof(name), "%s", h->valuestring);
			if ((colon = strchr(name, ':'))) {
				*colon = '\0';
				slots = strtol(colon + 1, NULL, 10);
			}
			for (long j = 0; j < slots && k < count; j++, k++)
				if (pass == 1 && k == want) {
					snprintf(out, size, "%s", name);
					return;
				}
		}
	}
}

static int open_log(struct gl_agents *a, int index)
{
	char p[1200];

	snprintf(p, sizeof(p), "%s/agents", a->c->dir);
	if (mkdir(p, 0700) != 0 && errno != EEXIST)
		return -1;
	snprintf(p, sizeof(p), "%s/agents/%s-%d.log", a->c->dir, a->name, index);
	return open(p, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* A launch's token: 32 random bytes in hex. Each launch has its own, so a
 * token read from a launcher's environment is worth nothing once its
 * agent said hello, and a relaunch never takes an earlier one. */
static int new_token(char out[65])
{
	unsigned char rnd[32];

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -1;
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(out + 2 * i, 3, "%02x", rnd[i]);
	explicit_bzero(rnd, sizeof(rnd));
	return 0;
}

static int spawn(struct gl_agents *a, struct slot *s)
{
	char *argv[MAX_ARGS];
	char text[1024] = "", envs[5][1200], mark[128];
	const char *key = a->key_env[0] ? gl_secret_getenv(a->key_env) : NULL;
	char *keyenv = NULL;
	struct gl_child_gate gate;
	int n = 0, logfd;
	pid_t pid;

	if (new_token(s->token) != 0)
		return -1;
	if (build_argv(a, s, argv, &n) != 0) {
		free_argv(argv, n);
		return -1;
	}
	join_argv(argv, n, text, sizeof(text));
	snprintf(envs[0], sizeof(envs[0]), "GAUNTLET_AGENT_TOKEN=%s", s->token);
	snprintf(envs[1], sizeof(envs[1]), "GAUNTLET_AGENT_CONTROLLER=%s", a->addr);
	snprintf(envs[2], sizeof(envs[2]), "GAUNTLET_AGENT_INDEX=%d", s->index);
	snprintf(envs[3], sizeof(envs[3]), "GAUNTLET_LOG=%s", getenv("GAUNTLET_LOG") ? getenv("GAUNTLET_LOG") : "info");
	snprintf(mark, sizeof(mark), "%s", gl_ctx_child_mark(a->c));
	if (key && asprintf(&keyenv, "%s=%s", a->key_env, key) < 0)
		keyenv = NULL;
	logfd = open_log(a, s->index);
	if (logfd < 0 || gl_child_gate_open(&gate) != 0) {
		if (logfd >= 0)
			close(logfd);
		free_argv(argv, n);
		free(keyenv);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		gl_child_gate_close(&gate);
		close(logfd);
		free_argv(argv, n);
		free(keyenv);
		return -1;
	}
	if (pid == 0) {
		if (gl_child_enter(&gate, logfd) != 0)
			_exit(127);
		for (int i = 0; i < 4; i++)
			putenv(envs[i]);
		putenv(mark);
		if (keyenv)
			putenv(keyenv);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		dprintf(2, "gauntlet: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(logfd);
	if (keyenv) {
		explicit_bzero(keyenv, strlen(keyenv));
		free(keyenv);
	}
	explicit_bzero(envs[0], sizeof(envs[0]));
	s->child_id = gl_ctx_child_started(a->c, "agents", pid, text);
	gl_child_gate_release(&gate, s->child_id > 0);
	free_argv(argv, n);
	if (s->child_id <= 0) {
		waitpid(pid, NULL, 0);
		return -1;
	}
	s->launcher = pid;
	s->state = S_LAUNCHED;
	s->launched_ns = mono();
	s->launches++;
	gl_ctx_event(a->c, GL_LOG_INFO, "agents", "%s agent %d: launched (%s%s%s, pid %d)", a->name, s->index,
		     a->srun ? "srun" : "mpirun", s->host[0] ? " on " : "", s->host, (int)pid);
	return 0;
}

/* End a launcher's process group and wait for it: SIGTERM, then SIGKILL
 * after 2 s (at the end of the run only: the loop does not wait). */
static void end_launcher_pid(struct gl_agents *a, pid_t *pid, int64_t *id)
{
	int64_t t0 = mono();
	int st;

	if (*pid <= 0)
		return;
	kill(-*pid, SIGTERM);
	kill(-*pid, SIGCONT);
	while (waitpid(*pid, &st, WNOHANG) == 0) {
		if (mono() - t0 > 2000000000LL) {
			kill(-*pid, SIGKILL);
			waitpid(*pid, &st, 0);
			break;
		}
		usleep(20000);
	}
	gl_ctx_child_ended(a->c, *id);
	*pid = 0;
	*id = 0;
}

static void end_launcher(struct gl_agents *a, struct slot *s)
{
	end_launcher_pid(a, &s->launcher, &s->child_id);
	end_launcher_pid(a, &s->dying, &s->dying_id);
}

/* The loop must not wait on a launcher: SIGTERM its group now, the tick
 * reaps it and sends SIGKILL after 2 s. */
static void let_launcher_go(struct gl_agents *a, struct slot *s)
{
	if (s->launcher <= 0)
		return;
	if (s->dying > 0)
		end_launcher_pid(a, &s->dying, &s->dying_id);
	s->dying = s->launcher;
	s->dying_id = s->child_id;
	s->kill_at_ns = mono() + 2000000000LL;
	kill(-s->dying, SIGTERM);
	kill(-s->dying, SIGCONT);
	s->launcher = 0;
	s->child_id = 0;
}

static void reap_dying(struct gl_agents *a, struct slot *s)
{
	int st;

	if (s->dying <= 0)
		return;
	if (waitpid(s->dying, &st, WNOHANG) == s->dying) {
		gl_ctx_child_ended(a->c, s->dying_id);
		s->dying = 0;
		s->dying_id = 0;
	} else if (mono() >= s->kill_at_ns) {
		kill(-s->dying, SIGKILL);
	}
}

/* ---- losing an agent -------------------------------------------------------------------------- */

static void lose(struct slot *s, const char *why)
{
	struct gl_agents *a = s->a;
	int64_t delay = a->backoff_ns;
	int id;

	if (s->bev) {
		bufferevent_free(s->bev);
		s->bev = NULL;
	}
	let_launcher_go(a, s);
	if (a->stopping || s->state == S_DONE) {
		s->state = S_DONE;
		return;
	}
	if (s->state == S_UP) {
		id = gl_metrics_counter(a->c->m, "agents.lost");
		gl_metrics_add(a->c->m, id, 1);
		s->fails_in_row = 0;
	} else {
		s->fails_in_row++;
	}
	for (int i = 1; i < s->fails_in_row && delay < 30000000000LL; i++)
		delay *= 2;
	if (delay > 30000000000LL)
		delay = 30000000000LL;
	s->state = S_DOWN;
	if (s->fails_in_row > a->max_restarts) {
		s->given_up = 1;
		gl_ctx_event(a->c, GL_LOG_ERROR, "agents", "%s agent %d: %s; %d launches in a row never connected "
			     "(max_restarts %d): its share stays down for the rest of the run", a->name, s->index, why,
			     s->fails_in_row, a->max_restarts);
		return;
	}
	s->relaunch_ns = mono() + delay;
	gl_ctx_event(a->c, GL_LOG_WARN, "agents", "%s agent %d%s%s: %s; relaunching in %.1f s", a->name, s->index,
		     s->peer_host[0] ? " on " : "", s->peer_host, why, (double)delay / 1e9);
}

/* ---- frames from a connected agent ---------------------------------------------------------- */

/* A whole number from what an agent sent: def when absent, not a number or
 * out of [lo, hi] (a cast of NaN or of 1e300 would be undefined). */
static int64_t num(const cJSON *o, const char *k, int64_t lo, int64_t hi, int64_t def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= (double)lo) || !(v->valuedouble <= (double)hi))
		return def;
	return (int64_t)v->valuedouble;
}

/* What a DATA frame may hold, checked before anything is merged: the
 * workload's own series (agents.* and the rest are the controller's),
 * increases that are not negative and not absurd. */
struct check_arg {
	struct gl_agents *a;
	char why[160];
};

static int check_series(void *arg, const char *name, const struct gl_hist *h, int64_t counter)
{
	struct check_arg *ca = arg;
	size_t wl = strlen(ca->a->name);

	if (strncmp(name, ca->a->name, wl) != 0 || name[wl] != '.')
		snprintf(ca->why, sizeof(ca->why), "series %s is not one of the %s workload's", name, ca->a->name);
	else if (!h && (counter < 0 || counter > FIGURE_MAX))
		snprintf(ca->why, sizeof(ca->why), "counter %s: %" PRId64 " is out of 0..2^40", name, counter);
	else if (h && gl_hist_count(h) > (uint64_t)FIGURE_MAX)
		snprintf(ca->why, sizeof(ca->why), "histogram %s: more than 2^40 values", name);
	else
		return 0;
	return -1;
}

struct merge_arg {
	struct gl_metrics *m;
	int bad;
};

static int merge_series(void *arg, const char *name, const struct gl_hist *h, int64_t counter)
{
	struct merge_arg *ma = arg;
	if (gl_metrics_merge(ma->m, name, h, counter) != 0)
		ma->bad++;
	return 0;
}

/* Is win one an agent may send figures or rows for now? */
static int window_ok(struct gl_agents *a, int64_t win)
{
	return a->started && win >= a->c->win_idx - LATE_WINDOWS && win <= a->c->win_idx + 1;
}

/* The request rows of a ROWS frame, each checked before any is kept:
 * 0 with them stored, -1 with why (the agent's connection is closed). */
static int on_rows(struct slot *s, const unsigned char *p, size_t n, char *why, size_t wn)
{
	static const char *const classes[] = { "connect", "tls", "http_4xx", "http_429", "http_5xx", "timeout_ttft",
					       "timeout_idle", "timeout_total", "stream_error", "truncated",
					       "malformed", "model_not_found", NULL };
	const cJSON *eps = cJSON_GetObjectItemCaseSensitive(s->a->c->sc->workloads[s->a->wl].cfg, "endpoints");
	int n_ep = cJSON_IsArray(eps) && cJSON_GetArraySize(eps) > 0 ? cJSON_GetArraySize(eps) : 1, k = 0;
	cJSON *arr = cJSON_ParseWithLength((const char *)p, n), *r;
	struct gl_request_row *rows;

	if (!cJSON_IsArray(arr)) {
		cJSON_Delete(arr);
		snprintf(why, wn, "rows: not a JSON array");
		return -1;
	}
	rows = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*rows));
	if (!rows) {
		cJSON_Delete(arr);
		snprintf(why, wn, "rows: out of memory");
		return -1;
	}
	cJSON_ArrayForEach(r, arr) {
		struct gl_request_row *row = &rows[k];
		const char *ec = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "error_class"));
#define F(key) num(r, key, -1, INT64_C(1) << 62, -2)
		row->window = F("window");
		row->endpoint = (int)num(r, "endpoint", 0, n_ep - 1, -2);
		row->t_intended = F("t_intended");
		row->t_send = F("t_send");
		row->t_headers = F("t_headers");
		row->t_first_event = F("t_first_event");
		row->t_first_token = F("t_first_token");
		row->t_last_token = F("t_last_token");
		row->t_end = F("t_end");
		row->input_tokens = F("input_tokens");
		row->output_tokens = F("output_tokens");
		row->tokens_estimated = (int)num(r, "tokens_estimated", 0, 1, -2);
		row->http_status = (int)num(r, "http_status", -1, 599, -2);
		row->max_stall_ns = F("max_stall_ns");
#undef F
		/* only the classes the workload knows: the store keeps no
		 * string an agent made up */
		row->error_class = NULL;
		for (int i = 0; ec && classes[i]; i++)
			if (!strcmp(ec, classes[i]))
				row->error_class = classes[i];
		/* a row is for the window its request was sent in: any that
		 * has begun (a request may last longer than a window) */
		if (row->window < 0 || row->window > s->a->c->win_idx + 1 || row->endpoint < 0 || row->t_intended < -1 || row->t_send < -1 ||
		    row->t_headers < -1 || row->t_first_event < -1 || row->t_first_token < -1 ||
		    row->t_last_token < -1 || row->t_end < -1 || row->input_tokens < -1 || row->output_tokens < -1 ||
		    row->tokens_estimated < 0 || row->http_status < -1 || row->max_stall_ns < -1 ||
		    (ec && !row->error_class)) {
			const cJSON *ep = cJSON_GetObjectItemCaseSensitive(r, "endpoint");
			const cJSON *st = cJSON_GetObjectItemCaseSensitive(r, "http_status");
			snprintf(why, wn, "rows: row %d has a field out of range (window %" PRId64 " while %" PRId64
				 " is open, endpoint %.0f of 0..%d, http_status %.0f, error_class %.32s)", k, row->window,
				 s->a->c->win_idx, cJSON_IsNumber(ep) ? ep->valuedouble : -1, n_ep - 1,
				 cJSON_IsNumber(st) ? st->valuedouble : -1, ec ? ec : "none");
			free(rows);
			cJSON_Delete(arr);
			return -1;
		}
		k++;
	}
	for (int i = 0; i < k; i++)
		gl_ctx_request_row(s->a->c, &rows[i]);
	free(rows);
	cJSON_Delete(arr);
	return 0;
}

/* A bad frame from a connected agent: named, counted
 * (agents.bad_frames), and the connection closed; nothing of it was
 * merged. */
static int bad_frame(struct slot *s, const char *why)
{
	gl_ctx_event(s->a->c, GL_LOG_ERROR, "agents", "%s agent %d: %s: connection closed", s->a->name, s->index,
		     why);
	gl_metrics_add(s->a->c->m, gl_metrics_counter(s->a->c->m, "agents.bad_frames"), 1);
	return -1;
}

static int on_frame(struct slot *s, int type, const unsigned char *p, size_t n)
{
	struct gl_agents *a = s->a;
	struct gl_err err = { 0 };
	char why[256];

	s->last_frame_ns = mono();
	switch (type) {
	case GL_AW_DATA: {
		int64_t win = gl_aw_data_window(p, n);
		int final, late = 0;
		struct check_arg ca = { a, "" };
		struct merge_arg ma = { 0 };
		if (!window_ok(a, win)) {
			snprintf(why, sizeof(why), "figures for window %" PRId64 " while window %" PRId64 " is open", win,
				 a->c->win_idx);
			return bad_frame(s, why);
		}
		/* checked whole first: a frame is merged entirely or not at all */
		if (gl_aw_data_decode(p, n, &win, &final, check_series, &ca, &err) != 0)
			return bad_frame(s, ca.why[0] ? ca.why : err.msg);
		/* merged into the window it is for */
		ma.m = ctl_window_metrics(a->c, win, &late);
		if (gl_aw_data_decode(p, n, &win, &final, merge_series, &ma, &err) != 0)
			return bad_frame(s, err.msg);
		if (ma.bad)
			gl_ctx_event(a->c, GL_LOG_WARN, "agents", "%s agent %d: %d series not merged (table full, name "
				     "of the other kind, or a sum past 2^63)", a->name, s->index, ma.bad);
		if (late && !a->late_warned++)
			gl_ctx_event(a->c, GL_LOG_WARN, "agents", "%s agent %d: figures for window %" PRId64 " came after "
				     "it was written: counted in the open window (agents.late_reports)", a->name,
				     s->index, win);
		if (late)
			gl_metrics_add(a->c->m, gl_metrics_counter(a->c->m, "agents.late_reports"), 1);
		if (final && win > s->delivered) {
			s->delivered = win;
			ctl_window_settle_check(a->c);
		}
		return 0;
	}
	case GL_AW_ROWS:
		if (on_rows(s, p, n, why, sizeof(why)) != 0)
			return bad_frame(s, why);
		return 0;
	case GL_AW_EVENT: {
		cJSON *j;
		const char *lvl, *msg;
		enum gl_log_level l;
		char src[64];
		/* EVENTS_PER_WINDOW a window; the rest counted and summed up */
		if (s->ev_window != a->c->win_idx) {
			s->ev_window = a->c->win_idx;
			s->ev_count = 0;
		}
		if (s->ev_count >= EVENTS_PER_WINDOW) {
			s->ev_dropped++;
			gl_metrics_add(a->c->m, gl_metrics_counter(a->c->m, "agents.events_dropped"), 1);
			return 0;
		}
		s->ev_count++;
		j = cJSON_ParseWithLength((const char *)p, n);
		lvl = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "level"));
		msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "msg"));
		l = lvl && !strcmp(lvl, "error") ? GL_LOG_ERROR : lvl && !strcmp(lvl, "warn") ? GL_LOG_WARN : GL_LOG_INFO;
		snprintf(src, sizeof(src), "agent %s/%d", a->name, s->index);
		if (msg)
			gl_ctx_event(a->c, l, src, "%.900s", msg);
		cJSON_Delete(j);
		return 0;
	}
	case GL_AW_BYE:
		s->bye = 1;
		return 0;
	default:
		snprintf(why, sizeof(why), "unexpected frame type %d", type);
		return bad_frame(s, why);
	}
}

static int slot_frame(void *arg, int type, const unsigned char *p, size_t n) { return on_frame(arg, type, p, n); }

static void slot_read(struct bufferevent *bev, void *arg)
{
	struct slot *s = arg;
	if (gl_aw_pump(bufferevent_get_input(bev), slot_frame, s, 1 << 20) != 0)
		lose(s, "sent a malformed frame: connection closed");
}

static void slot_event(struct bufferevent *bev, short what, void *arg)
{
	struct slot *s = arg;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		lose(s, s->bye ? "ended" : "connection lost");
}


static int send_plan(struct gl_agents *a, struct slot *s)
{
	struct gl_run_row row = { 0 };
	struct gl_err err = { 0 };
	char *inv = NULL;
	cJSON *j = cJSON_CreateObject();
	int rc;

	if (gl_store_run_load(a->c->st, &row, &err) != 0) {
		gl_ctx_event(a->c, GL_LOG_ERROR, "agents", "plan: %s", err.msg);
		cJSON_Delete(j);
		return -1;
	}
	gl_store_doc_get(a->c->st, "scenario_inventory", &inv, &err);
	cJSON_AddNumberToObject(j, "proto", GL_AW_PROTO);
	cJSON_AddStringToObject(j, "workload", a->name);
	cJSON_AddNumberToObject(j, "index", s->index);
	cJSON_AddNumberToObject(j, "count", a->count);
	cJSON_AddStringToObject(j, "run_id", a->c->run_id);
	cJSON_AddStringToObject(j, "scenario_path", row.scenario_path);
	cJSON_AddStringToObject(j, "scenario_text", row.scenario_text ? row.scenario_text : "");
	cJSON_AddItemToObject(j, "sets", cJSON_Parse(row.sets_json ? row.sets_json : "[]"));
	if (inv)
		cJSON_AddStringToObject(j, "inventory", inv);
	cJSON_AddNumberToObject(j, "time_scale", a->c->scale);
	cJSON_AddNumberToObject(j, "elapsed_ns", (double)now_ns(a));
	cJSON_AddNumberToObject(j, "origin_ns", (double)a->origin_ns);
	cJSON_AddNumberToObject(j, "load", a->load);
	rc = gl_aw_send_json(s->bev, GL_AW_PLAN, j);
	cJSON_Delete(j);
	free(inv);
	gl_run_row_free(&row);
	/* relaunched after the start: the window it joins lacks its share
	 * from the window's start until now */
	s->joined_ns = s->launches > 1 ? now_ns(a) : -1;
	return rc;
}

/* ---- accepting ------------------------------------------------------------------------------ */

static void pend_drop(struct pending *p)
{
	if (p->bev)
		bufferevent_free(p->bev);
	p->bev = NULL;
}

/* Count a refused connection by its cause. The first refusal of a run is
 * logged at once; the rest are summed up once a window (refusals_summary),
 * so a flood costs one event a window, not one a connection. */
static void refused(struct gl_agents *a, enum refusal why)
{
	char name[64];

	a->refused++;
	a->by_cause[why]++;
	a->unreported[why]++;
	gl_metrics_add(a->c->m, gl_metrics_counter(a->c->m, "agents.refused"), 1);
	snprintf(name, sizeof(name), "agents.refused.%s", refusal_name[why]);
	gl_metrics_add(a->c->m, gl_metrics_counter(a->c->m, name), 1);
	if (a->refused == 1) {
		gl_ctx_event(a->c, GL_LOG_WARN, "agents", "%s: connection refused (%s); further refusals are summed "
			     "up once a window", a->name, refusal_text[why]);
		a->unreported[why] = 0;
	}
}

static void refusals_summary(struct gl_agents *a, int64_t idx)
{
	char b[512];
	size_t off = 0;
	int64_t total = 0;

	for (int i = 0; i < R_N; i++) {
		if (!a->unreported[i])
			continue;
		total += a->unreported[i];
		if (off < sizeof(b))
			off += (size_t)snprintf(b + off, sizeof(b) - off, "%s%" PRId64 " %s", off ? ", " : "",
						a->unreported[i], refusal_name[i]);
		a->unreported[i] = 0;
	}
	if (total)
		gl_ctx_event(a->c, GL_LOG_WARN, "agents", "%s: %" PRId64 " connection(s) refused up to window %" PRId64
			     " (%s); %" PRId64 " in the run", a->name, total, idx, b, a->refused);
}

static int pend_frame(void *arg, int type, const unsigned char *p, size_t n)
{
	struct pending *pd = arg;
	struct gl_agents *a = pd->a;
	cJSON *j;
	const char *tok, *host;
	int idx, proto;
	struct slot *s;

	if (type != GL_AW_HELLO) {
		refused(a, R_NOT_HELLO);
		return -1;
	}
	j = cJSON_ParseWithLength((const char *)p, n);
	tok = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "token"));
	idx = (int)num(j, "index", 0, MAX_AGENTS, -1);
	proto = (int)num(j, "proto", 0, 1000, -1);
	host = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "host"));
	if (proto != GL_AW_PROTO) {
		refused(a, R_PROTO);
		cJSON_Delete(j);
		return -1;
	}
	/* the token is the launch's own: one that matches names the slot */
	if (!tok || idx < 0 || idx >= a->count || !gl_aw_token_eq(tok, a->s[idx].token)) {
		refused(a, R_TOKEN);
		cJSON_Delete(j);
		return -1;
	}
	if (a->s[idx].state != S_LAUNCHED) {
		refused(a, R_TAKEN);
		cJSON_Delete(j);
		return -1;
	}
	s = &a->s[idx];
	/* used up: a second hello with it is refused, whoever read it */
	explicit_bzero(s->token, sizeof(s->token));
	s->bev = pd->bev;
	pd->bev = NULL;
	s->state = S_UP;
	s->bye = 0;
	s->fails_in_row = 0;
	s->last_frame_ns = mono();
	snprintf(s->peer_host, sizeof(s->peer_host), "%s", host ? host : "?");
	s->peer_pid = (int)num(j, "pid", 0, INT32_MAX, 0);
	cJSON_Delete(j);
	/* a connected agent's frames may be up to GL_AW_FRAME_MAX */
	bufferevent_setwatermark(s->bev, EV_READ, 0, GL_AW_FRAME_MAX + 16);
	bufferevent_setcb(s->bev, slot_read, NULL, slot_event, s);
	gl_ctx_event(a->c, GL_LOG_INFO, "agents", "%s agent %d: connected from %s (pid %d)%s", a->name, idx,
		     s->peer_host, s->peer_pid, s->launches > 1 ? ", relaunched" : "");
	if (s->launches > 1 && a->started)
		gl_metrics_add(a->c->m, gl_metrics_counter(a->c->m, "agents.relaunched"), 1);
	if (a->started && send_plan(a, s) != 0) {
		lose(s, "plan not sent");
		return 1;
	}
	return 1;     /* stop pumping this pending entry: the slot owns the rest */
}

static void pend_read(struct bufferevent *bev, void *arg)
{
	struct pending *pd = arg;
	int rc = gl_aw_pump_cap(bufferevent_get_input(bev), pend_frame, pd, 1, GL_AW_HELLO_MAX);

	if (rc == -2)
		refused(pd->a, R_LENGTH);
	if (rc < 0) {
		pend_drop(pd);
	} else if (rc == 1) {
		/* the hello matched: the slot took the connection; frames after
		 * the hello already buffered are read by its callback */
		struct slot *s = NULL;
		for (int i = 0; i < pd->a->count; i++)
			if (pd->a->s[i].bev == bev)
				s = &pd->a->s[i];
		if (s && evbuffer_get_length(bufferevent_get_input(bev)))
			slot_read(bev, s);
	}
}

static void pend_event(struct bufferevent *bev, short what, void *arg)
{
	struct pending *pd = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		refused(pd->a, R_CLOSED);
		pend_drop(pd);
	}
}

static int same_host(const struct sockaddr_storage *x, const struct sockaddr_storage *y)
{
	if (x->ss_family != y->ss_family)
		return 0;
	if (x->ss_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr == ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	if (x->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr, &((const struct sockaddr_in6 *)y)->sin6_addr,
			       sizeof(struct in6_addr));
	return 1;
}

/* Every place is taken: the oldest connection of the address that holds
 * the most places gives its place up. */
static struct pending *crowd_out(struct gl_agents *a)
{
	struct pending *victim = NULL;
	int most = 0;

	for (int i = 0; i < MAX_PENDING; i++) {
		int n = 0;
		for (int k = 0; k < MAX_PENDING; k++)
			n += same_host(&a->pend[i].peer, &a->pend[k].peer);
		if (n > most || (n == most && a->pend[i].since_ns < victim->since_ns)) {
			most = n;
			victim = &a->pend[i];
		}
	}
	pend_drop(victim);
	refused(a, R_CROWDED);
	return victim;
}

static void on_accept(evutil_socket_t fd, short what, void *arg)
{
	struct gl_agents *a = arg;

	for (int k = 0; k < 64; k++) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		int cfd = accept4(fd, (struct sockaddr *)&peer, &pl, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;
		struct pending *pd = NULL;
		if (cfd < 0)
			return;
		for (int i = 0; i < MAX_PENDING && !pd; i++)
			if (!a->pend[i].bev)
				pd = &a->pend[i];
		if (!pd)
			pd = crowd_out(a);
		setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pd->a = a;
		pd->since_ns = mono();
		pd->peer = peer;
		pd->peer_len = pl;
		pd->bev = bufferevent_socket_new(a->c->base, cfd, BEV_OPT_CLOSE_ON_FREE);
		if (!pd->bev) {
			close(cfd);
			continue;
		}
		/* before the hello no more than a hello's worth is read */
		bufferevent_setwatermark(pd->bev, EV_READ, 0, GL_AW_HELLO_MAX + 4);
		bufferevent_setcb(pd->bev, pend_read, NULL, pend_event, pd);
		bufferevent_enable(pd->bev, EV_READ | EV_WRITE);
	}
}

/* ---- the tick: launchers, silence, relaunches ----------------------------------------------------- */

static void tick(struct gl_agents *a)
{
	int64_t t = mono();

	for (int i = 0; i < MAX_PENDING; i++)
		if (a->pend[i].bev && t - a->pend[i].since_ns > HELLO_DEADLINE_NS) {
			pend_drop(&a->pend[i]);
			refused(a, R_NO_HELLO);
		}
	for (int i = 0; i < a->count; i++) {
		struct slot *s = &a->s[i];
		int st;
		reap_dying(a, s);
		if (s->launcher > 0 && waitpid(s->launcher, &st, WNOHANG) == s->launcher) {
			char how[64];
			gl_ctx_child_ended(a->c, s->child_id);
			s->launcher = 0;
			s->child_id = 0;
			snprintf(how, sizeof(how), "its launcher ended (%s %d)", WIFEXITED(st) ? "exit" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			if (s->state == S_LAUNCHED || (s->state == S_UP && !s->bev))
				lose(s, how);
			/* up: the connection tells (an srun step may end first) */
		}
		/* agents send every 500 ms once they have their plan; before
		 * the start they wait in silence for the others to connect */
		if (s->state == S_UP && a->started && t - s->last_frame_ns > SILENCE_NS && !a->stopping)
			lose(s, "silent for 5 s");
		else if (s->state == S_LAUNCHED && t - s->launched_ns > a->connect_timeout_ns)
			lose(s, "did not connect within connect_timeout");
		else if (s->state == S_DOWN && !s->given_up && !a->stopping && s->relaunch_ns && t >= s->relaunch_ns) {
			s->relaunch_ns = 0;
			if (spawn(a, s) != 0) {
				s->fails_in_row++;
				s->relaunch_ns = mono() + a->backoff_ns;
				gl_ctx_event(a->c, GL_LOG_ERROR, "agents", "%s agent %d: launcher not started: %s",
					     a->name, i, strerror(errno));
			}
		}
	}
}

static void on_tick(evutil_socket_t fd, short what, void *arg) { tick(arg); }

/* ---- the API -------------------------------------------------------------------------------- */

static void self_binary(char *out, size_t n)
{
	ssize_t k = readlink("/proc/self/exe", out, n - 1);
	if (k <= 0)
		snprintf(out, n, "gauntlet");
	else
		out[k] = '\0';
}

void gl_agents_each_command(const struct gl_scenario *sc, int shown,
			    void (*fn)(void *arg, const char *workload, int index, int count, const char *host,
				       const char *cmd),
			    void *arg)
{
	char self[1024];

	self_binary(self, sizeof(self));
	for (int w = 0; w < sc->n_workloads; w++) {
		const cJSON *ac = cJSON_GetObjectItemCaseSensitive(sc->workloads[w].cfg, "agents");
		struct launch l;
		int count;
		if (!cJSON_IsObject(ac))
			continue;
		l.sc = sc;
		l.cfg = ac;
		l.srun = !strcmp(gl_cfg_str(ac, "launcher", "mpirun"), "srun");
		l.launcher_path = gl_cfg_str(ac, "launcher_path", l.srun ? "srun" : "mpirun");
		l.binary = gl_cfg_str(ac, "binary", self);
		l.key_env = gl_cfg_str(sc->workloads[w].cfg, "api_key_env", "");
		count = (int)gl_cfg_int(ac, "count", 1);
		for (int i = 0; i < count && (shown <= 0 || i < shown); i++) {
			char *argv[MAX_ARGS], host[128], text[1024];
			int n = 0;
			agent_host(ac, count, i, host, sizeof(host));
			if (launch_argv(&l, host, i, argv, &n) == 0)
				join_argv(argv, n, text, sizeof(text));
			else
				snprintf(text, sizeof(text), "(out of memory)");
			free_argv(argv, n);
			fn(arg, sc->workloads[w].name, i, count, host, text);
		}
	}
}

static void print_one(void *arg, const char *workload, int index, int count, const char *host, const char *cmd)
{
	FILE *f = arg;

	if (index == 0)
		fprintf(f, "agents of %s (%d; launched before the clock starts, each by its own command):\n", workload,
			count);
	fprintf(f, "  agent %d%s%s: %s\n", index, host[0] ? " on " : "", host, cmd);
	if (index == GL_AGENTS_SHOWN - 1 && count > GL_AGENTS_SHOWN)
		fprintf(f, "  ... and %d more (agents %d to %d), each the same with its own host%s\n",
			count - GL_AGENTS_SHOWN, GL_AGENTS_SHOWN, count - 1,
			strstr(cmd, "--job-name=") ? " and job name" : "");
}

void gl_agents_print(const struct gl_scenario *sc, FILE *f)
{
	gl_agents_each_command(sc, GL_AGENTS_SHOWN, print_one, f);
}

static int setup(struct gl_ctx *c, int wl, struct gl_agents **out, struct gl_err *err)
{
	const struct gl_workload_spec *w = &c->sc->workloads[wl];
	const cJSON *ac = cJSON_GetObjectItemCaseSensitive(w->cfg, "agents");
	struct gl_agents *a = calloc(1, sizeof(*a));
	struct sockaddr_storage ss;
	socklen_t sl;

	*out = a;
	if (!a)
		return gl_errf(err, GL_ENOMEM, "agents: out of memory");
	a->c = c;
	a->wl = wl;
	a->name = w->name;
	a->cfg = ac;
	a->lfd = -1;
	a->load = 1;
	a->origin_ns = -1;
	a->count = (int)gl_cfg_int(ac, "count", 1);
	if (a->count < 1 || a->count > MAX_AGENTS)
		return gl_errf(err, GL_EINVAL, "workloads.%s.agents.count: %d is out of 1..%d", w->name, a->count,
			       MAX_AGENTS);
	a->srun = !strcmp(gl_cfg_str(ac, "launcher", "mpirun"), "srun");
	snprintf(a->launcher_path, sizeof(a->launcher_path), "%s",
		 gl_cfg_str(ac, "launcher_path", a->srun ? "srun" : "mpirun"));
	if (gl_cfg_str(ac, "binary", NULL))
		snprintf(a->binary, sizeof(a->binary), "%s", gl_cfg_str(ac, "binary", ""));
	else
		self_binary(a->binary, sizeof(a->binary));
	a->connect_timeout_ns = gl_cfg_dur(ac, "connect_timeout", 60LL * 1000000000);
	if (a->connect_timeout_ns > GL_AGENTS_CONNECT_TIMEOUT_MAX_NS)   /* validate refuses more */
		a->connect_timeout_ns = GL_AGENTS_CONNECT_TIMEOUT_MAX_NS;
	a->settle_ns = gl_cfg_dur(ac, "settle", 1000000000LL);
	a->backoff_ns = gl_cfg_dur(ac, "backoff", 1000000000LL);
	a->max_restarts = (int)gl_cfg_int(ac, "max_restarts", 10);
	snprintf(a->key_env, sizeof(a->key_env), "%s", gl_cfg_str(w->cfg, "api_key_env", ""));
	a->s = calloc((size_t)a->count, sizeof(*a->s));
	if (!a->s)
		return gl_errf(err, GL_ENOMEM, "agents: out of memory");
	/* agents fill the hosts' slots in order: "gpu-a:2" takes two */
	for (int i = 0; i < a->count; i++) {
		a->s[i].a = a;
		a->s[i].index = i;
		a->s[i].delivered = -1;
		a->s[i].joined_ns = -1;
		agent_host(ac, a->count, i, a->s[i].host, sizeof(a->s[i].host));
	}
	if (gl_listen_parse(gl_cfg_str(ac, "listen", "127.0.0.1:0"), NULL, &ss, &sl, err) != 0)
		return -GL_EINVAL;
	a->lfd = gl_listen_open(&ss, sl, "agents.listen", a->addr, sizeof(a->addr), err);
	if (a->lfd < 0)
		return -GL_EIO;
	a->ev_accept = event_new(c->base, a->lfd, EV_READ | EV_PERSIST, on_accept, a);
	a->ev_tick = event_new(c->base, -1, EV_PERSIST, on_tick, a);
	if (!a->ev_accept || !a->ev_tick)
		return gl_errf(err, GL_ENOMEM, "agents: out of memory");
	event_add(a->ev_accept, NULL);
	event_add(a->ev_tick, &(struct timeval){ 0, 200000 });
	return 0;
}

int ctl_agents_launch(struct gl_ctx *c, struct gl_err *err)
{
	for (int i = 0; i < c->sc->n_workloads; i++) {
		struct gl_agents *a;
		int64_t t0;
		int up = 0;

		if (!c->agents || !cJSON_GetObjectItemCaseSensitive(c->sc->workloads[i].cfg, "agents"))
			continue;
		if (setup(c, i, &c->agents[i], err) != 0)
			return -1;
		a = c->agents[i];
		gl_ctx_event(c, GL_LOG_INFO, "agents", "%s: %d agent(s) through %s, dialing %s", a->name, a->count,
			     a->srun ? "srun" : "mpirun", a->addr);
		for (int k = 0; k < a->count; k++)
			if (spawn(a, &a->s[k]) != 0)
				return gl_errf(err, GL_EIO, "agents: %s agent %d: launcher not started: %s", a->name, k,
					       strerror(errno));
		/* wait for every hello: the run's clock has not started, so no
		 * share of the schedule is lost to a slow launcher. A stop
		 * request (SIGINT, SIGTERM) ends the wait: its pipe wakes the
		 * loop (controller.c), and the run stops as from the loop. */
		t0 = mono();
		while (mono() - t0 < a->connect_timeout_ns) {
			if (ctl_stopping(c))
				return gl_errf(err, GL_ESTOPPED, "agents: %s: the wait for the agents was stopped (%s)",
					       a->name, c->stop_msg);
			up = 0;
			for (int k = 0; k < a->count; k++)
				up += a->s[k].state == S_UP;
			if (up == a->count)
				break;
			for (int k = 0; k < a->count; k++)
				if (a->s[k].state == S_DOWN)
					return gl_errf(err, GL_EIO, "agents: %s agent %d did not come up (see %s/agents/%s-%d.log)",
						       a->name, k, c->dir, a->name, k);
			event_base_loop(c->base, EVLOOP_ONCE);
		}
		if (up != a->count) {
			for (int k = 0; k < a->count; k++)
				if (a->s[k].state != S_UP)
					return gl_errf(err, GL_ETIMEDOUT, "agents: %s agent %d did not connect within %.0f s "
						       "(see %s/agents/%s-%d.log)", a->name, k,
						       (double)a->connect_timeout_ns / 1e9, c->dir, a->name, k);
		}
	}
	return 0;
}

int gl_agents_start(struct gl_agents *a, struct gl_err *err)
{
	a->started = 1;
	a->origin_ns = now_ns(a);
	for (int i = 0; i < a->count; i++)
		if (a->s[i].state == S_UP && send_plan(a, &a->s[i]) != 0)
			return gl_errf(err, GL_EIO, "agents: %s agent %d: plan not sent", a->name, i);
	return 0;
}

void gl_agents_set_load(struct gl_agents *a, double m)
{
	cJSON *j;

	a->load = m;
	if (!a->started)
		return;
	j = cJSON_CreateObject();
	cJSON_AddNumberToObject(j, "load", m);
	for (int i = 0; i < a->count; i++)
		if (a->s[i].state == S_UP)
			gl_aw_send_json(a->s[i].bev, GL_AW_LOAD, j);
	cJSON_Delete(j);
}

int gl_agents_delivered(const struct gl_agents *a, int64_t idx)
{
	for (int i = 0; i < a->count; i++)
		if (a->s[i].state == S_UP && a->s[i].delivered < idx)
			return 0;
	return 1;
}

void gl_agents_window_done(struct gl_agents *a, int64_t idx, struct gl_metrics *m)
{
	int missing = 0;
	char names[512] = "";
	size_t off = 0;

	for (int i = 0; i < a->count; i++) {
		struct slot *s = &a->s[i];
		int64_t w0 = idx * a->c->sc->window_ns;
		int joined_late = s->joined_ns > w0 && s->joined_ns < w0 + a->c->sc->window_ns;
		if (s->delivered >= idx && !joined_late) {
			if (s->misses)
				gl_ctx_event(a->c, GL_LOG_INFO, "agents", "%s agent %d: figures again from window %" PRId64
					     " after %d partial window(s)", a->name, i, idx, s->misses);
			s->misses = 0;
			continue;
		}
		missing++;
		s->misses++;
		if (off < sizeof(names))
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%d%s%s%s", off ? ", " : "", i,
						s->host[0] ? " (" : "", s->host, s->host[0] ? ")" : "");
	}
	gl_metrics_merge(m, "agents.expected", NULL, a->count);
	gl_metrics_merge(m, "agents.missing", NULL, missing);
	gl_metrics_merge(m, "agents.delivered", NULL, a->count - missing);
	if (missing)
		gl_ctx_event(a->c, GL_LOG_WARN, "agents", "window %" PRId64 " is partial: %s agent(s) %s missing for "
			     "all or part of it", idx, a->name, names);
	refusals_summary(a, idx);
	for (int i = 0; i < a->count; i++)
		if (a->s[i].ev_dropped) {
			gl_ctx_event(a->c, GL_LOG_WARN, "agents", "%s agent %d: %" PRId64 " event(s) not logged up to "
				     "window %" PRId64 " (more than %d a window; agents.events_dropped)", a->name, i,
				     a->s[i].ev_dropped, idx, EVENTS_PER_WINDOW);
			a->s[i].ev_dropped = 0;
		}
}

int64_t ctl_agents_settle_ns(struct gl_ctx *c)
{
	int64_t m = 0;
	for (int i = 0; c->agents && i < c->sc->n_workloads; i++)
		if (c->agents[i] && c->agents[i]->settle_ns > m)
			m = c->agents[i]->settle_ns;
	return m;
}

void gl_agents_stop(struct gl_agents *a)
{
	int64_t t0 = mono();

	a->stopping = 1;
	for (int i = 0; i < a->count; i++)
		if (a->s[i].state == S_UP)
			gl_aw_send(a->s[i].bev, GL_AW_STOP, NULL, 0);
	for (;;) {
		int waiting = 0;
		for (int i = 0; i < a->count; i++)
			waiting += a->s[i].state == S_UP && a->s[i].bev && !a->s[i].bye;
		if (!waiting || mono() - t0 > STOP_WAIT_NS)
			break;
		event_base_loop(a->c->base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		usleep(2000);
	}
	for (int i = 0; i < a->count; i++) {
		struct slot *s = &a->s[i];
		if (s->state == S_UP && !s->bye)
			gl_ctx_event(a->c, GL_LOG_WARN, "agents", "%s agent %d: no goodbye within 5 s of stop", a->name, i);
		if (s->bev) {
			bufferevent_free(s->bev);
			s->bev = NULL;
		}
		end_launcher(a, s);
		s->state = S_DONE;
	}
	if (a->ev_tick)
		event_del(a->ev_tick);
	if (a->ev_accept)
		event_del(a->ev_accept);
}

void gl_agents_free(struct gl_agents *a)
{
	if (!a)
		return;
	for (int i = 0; a->s && i < a->count; i++) {
		if (a->s[i].bev)
			bufferevent_free(a->s[i].bev);
		end_launcher(a, &a->s[i]);
	}
	for (int i = 0; i < MAX_PENDING; i++)
		pend_drop(&a->pend[i]);
	if (a->ev_accept)
		event_free(a->ev_accept);
	if (a->ev_tick)
		event_free(a->ev_tick);
	if (a->lfd >= 0)
		close(a->lfd);
	for (int i = 0; a->s && i < a->count; i++)
		explicit_bzero(a->s[i].token, sizeof(a->s[i].token));
	free(a->s);
	free(a);
}
