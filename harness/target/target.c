/*
 * target.c - `gauntlet target`: an OpenAI-compatible token-streaming server
 * on libevent's evhttp. It is the inference back end of the lab and of the
 * tests: every token leaves at a time given by the deterministic model in
 * target.h, so a client's measured TTFT and ITL can be checked against it,
 * and --misbehave makes it fail in the ways the client must classify.
 *
 * Shape: one event loop. Each generation request becomes a struct stream
 * with one timer, re-armed per token (never a sleep). At most max_seqs
 * streams generate at once; the others wait in a FIFO queue. A client that
 * goes away is noticed by evhttp's connection close callback (when a write
 * fails) or by a per-stream read probe on the socket (EOF while the server
 * has nothing to write, e.g. while queued); either way the stream is freed
 * and counted as an abort.
 *
 * This file: the flags (with --misbehave's modes), the listener, start and
 * stop, gl_target_main. target_int.h says which file owns the rest.
 */
#include "target_int.h"
#include "netaddr.h"
#include "states.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/http.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

const char *const tgt_mb_names[] = {
	"none",    "http_429",     "http_500", "http_503",  "close_mid_stream",  "garbage_sse", "oversized_line",
	"no_done", "stream_error", "hang",     "slow_drip", "close_after_reply", "stall_ms=N",
};

/* ---- flags ------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: gauntlet target --listen HOST:PORT [flags]\n"
		   "  An OpenAI-compatible token-streaming server with a deterministic timing model.\n"
		   "  --listen ADDR              host:port or [ipv6]:port; port 0 picks a free port\n"
		   "  --model NAME               model name served (default gauntlet-target)\n"
		   "  --seed N                   seed of every random choice (default 1)\n"
		   "  --max-seqs N               concurrent sequences; more wait FIFO (default 64)\n"
		   "  --ttft-ms MS               time to first token after taking a slot (default 50)\n"
		   "  --prefill-us-per-token US  added to TTFT per prompt token (default 20)\n"
		   "  --itl-ms MS                inter-token gap (default 10)\n"
		   "  --itl-jitter J             gap = itl * (1 + J*u), u in [-1,1) (0..1, default 0)\n"
		   "  --output-tokens N          output length without max_tokens (default 64)\n"
		   "  --max-output-tokens N      cap on any output length (default 8192)\n"
		   "  --max-body-bytes N         larger request bodies get 413 (default 8388608)\n"
		   "  --misbehave MODE           http_429 http_500 http_503 close_mid_stream garbage_sse\n"
		   "                             oversized_line no_done stream_error hang slow_drip\n"
		   "                             close_after_reply stall_ms=N (with --stall-at-s)\n"
		   "  --misbehave-rate P         share of requests that misbehave, 0..1 (default 1)\n"
		   "  --stall-at-s S             when the stall_ms=N window opens, s after start\n"
		   "  --ttft-step-ms MS          the TTFT from --ttft-step-at-s on (a step in time)\n"
		   "  --ttft-step-at-s S         when --ttft-step-ms takes over, s after start\n"
		   "  --ttft-drift-ms-per-hour X the TTFT grows by X ms per hour since start (default 0)\n"
		   "  --ready-file PATH          write \"host:port\\n\" there once listening\n"
		   "  --api-key-env VAR          require \"Authorization: Bearer $VAR\" on /v1 (else 401)\n"
		   "  --idle-timeout-s S         close a connection that sends no byte of a request\n"
		   "                             for S s, or does not read what it is sent (default\n"
		   "                             30; 0 never)\n"
		   "  --lora NAME=PATH           a LoRA adapter loaded at start (repeatable, at most 16)\n"
		   "  --lora-load-ms MS          how long POST /v1/load_lora_adapter takes (default 500)\n"
		   "  --max-loras N              adapters loaded at once (default 8)\n"
		   "  --prefix-cache-blocks N    a prefix cache of N blocks, LRU; cached prompt tokens\n"
		   "                             skip prefill (default 0: none)\n"
		   "  --prefix-block-tokens B    tokens per prefix-cache block (default 16)\n"
		   "  --verbose                  log every request\n");
}

static int flag_double(const char *name, const char *v, double lo, double hi, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d < lo || d > hi) {
		fprintf(stderr, "gauntlet target: --%s: expected a number in [%g, %g], got '%s'\n", name, lo, hi, v);
		return -1;
	}
	*out = d;
	return 0;
}

static int flag_u64(const char *name, const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	unsigned long long u;

	errno = 0;
	u = strtoull(v, &end, 10);
	if (errno || end == v || *end || v[0] == '-' || u < lo || u > hi) {
		fprintf(stderr, "gauntlet target: --%s: expected an integer in [%" PRIu64 ", %" PRIu64 "], got '%s'\n",
			name, lo, hi, v);
		return -1;
	}
	*out = u;
	return 0;
}

static int parse_misbehave(const char *v, struct target_opts *o)
{
	uint64_t ms;

	for (int i = MB_HTTP_429; i < MB_STALL; i++) {
		if (strcmp(v, tgt_mb_names[i]) == 0) {
			o->mb = (enum misbehave)i;
			return 0;
		}
	}
	if (strncmp(v, "stall_ms=", 9) == 0) {
		if (flag_u64("misbehave stall_ms", v + 9, 1, 3600000, &ms))
			return -1;
		o->mb = MB_STALL;
		o->stall_ns = (int64_t)ms * 1000000;
		return 0;
	}
	fprintf(stderr,
		"gauntlet target: --misbehave: unknown mode '%s'; expected one of "
		"http_429, http_500, http_503, close_mid_stream, garbage_sse, "
		"oversized_line, no_done, stream_error, hang, slow_drip, close_after_reply, stall_ms=N\n",
		v);
	return -1;
}

/* Returns 0 to run, 1 when --help was printed, -1 on a bad flag. */
/* The numeric flags: name, type, range and where the value lands. */
enum num_type { NT_DOUBLE, NT_U32, NT_U64 };
struct num_flag {
	const char *name;
	enum num_type type;
	double lo, hi;
	size_t off;
};
#define NF(n, t, lo, hi, field)                                   \
	{                                                         \
		n, t, lo, hi, offsetof(struct target_opts, field) \
	}
static const struct num_flag num_flags[] = {
	NF("seed", NT_U64, 0, (double)UINT64_MAX, m.seed),
	NF("max-seqs", NT_U32, 1, 1000000, max_seqs),
	NF("ttft-ms", NT_DOUBLE, 0, 3600e3, m.ttft_ms),
	NF("prefill-us-per-token", NT_DOUBLE, 0, 1e6, m.prefill_us_per_token),
	NF("itl-ms", NT_DOUBLE, 0, 3600e3, m.itl_ms),
	NF("itl-jitter", NT_DOUBLE, 0, 1, m.itl_jitter),
	NF("output-tokens", NT_U32, 1, 1000000, m.output_tokens),
	NF("max-output-tokens", NT_U32, 1, 1000000, m.max_output_tokens),
	NF("max-body-bytes", NT_U64, 1, (double)((uint64_t)1 << 32), max_body_bytes),
	NF("misbehave-rate", NT_DOUBLE, 0, 1, mb_rate),
	NF("idle-timeout-s", NT_U64, 0, 86400, idle_timeout_s),
	NF("lora-load-ms", NT_U64, 0, 3600000, lora_load_ms),
	NF("max-loras", NT_U32, 1, 4096, max_loras),
	NF("stall-at-s", NT_DOUBLE, 0, 1e9, stall_at_s),
	NF("ttft-step-ms", NT_DOUBLE, 0, 3600e3, step_ttft_ms),
	NF("ttft-step-at-s", NT_DOUBLE, 0, 1e9, step_at_s),
	NF("ttft-drift-ms-per-hour", NT_DOUBLE, 0, 3.6e9, drift_ms_per_h),
	NF("prefix-cache-blocks", NT_U32, 0, GL_PREFIX_CACHE_MAX_BLOCKS, prefix_cache_blocks),
	NF("prefix-block-tokens", NT_U32, 1, GL_PREFIX_BLOCK_MAX_TOKENS, prefix_block_tokens),
};
#undef NF

static const struct num_flag *num_flag(const char *name)
{
	for (size_t i = 0; i < sizeof(num_flags) / sizeof(num_flags[0]); i++)
		if (!strcmp(num_flags[i].name, name))
			return &num_flags[i];
	return NULL;
}

static int set_num_flag(const struct num_flag *f, const char *v, struct target_opts *o)
{
	char *at = (char *)o + f->off;
	uint64_t u;

	if (f->type == NT_DOUBLE)
		return flag_double(f->name, v, f->lo, f->hi, (double *)(void *)at);
	/* the integer bounds are exact in a double: at most 2^32, or UINT64_MAX */
	if (flag_u64(f->name, v, (uint64_t)f->lo, f->hi >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)f->hi, &u))
		return -1;
	if (f->type == NT_U32)
		*(uint32_t *)(void *)at = (uint32_t)u;
	else
		*(uint64_t *)(void *)at = u;
	return 0;
}

/* The flags that need each other, once all are read (have_step: bit 0
 * --ttft-step-ms, bit 1 --ttft-step-at-s). */
static int flags_together(struct target_opts *o, int have_stall_at, int have_step)
{
	if (!o->listen) {
		fprintf(stderr, "gauntlet target: --listen HOST:PORT is required (see --help)\n");
		return -1;
	}
	if ((o->mb == MB_STALL) != have_stall_at) {
		fprintf(stderr, "gauntlet target: --misbehave stall_ms=N and --stall-at-s S go "
				"together\n");
		return -1;
	}
	if (have_step == 1 || have_step == 2) {
		fprintf(stderr, "gauntlet target: --ttft-step-ms MS and --ttft-step-at-s S go together\n");
		return -1;
	}
	o->step_at_s = have_step ? o->step_at_s : -1;
	return 0;
}

static int parse_flags(int argc, char **argv, struct target_opts *o)
{
	const struct num_flag *nf;
	int have_stall_at = 0, have_step = 0;

	memset(o, 0, sizeof(*o));
	gl_target_model_default(&o->m);
	o->model = "gauntlet-target";
	o->max_seqs = 64;
	o->max_body_bytes = 8u * 1024u * 1024u;
	o->mb_rate = 1.0;
	o->idle_timeout_s = 30;
	o->lora_load_ms = 500;
	o->max_loras = 8;
	o->prefix_block_tokens = 16;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq, *v;
		char name[64];
		size_t n;

		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			usage(stdout);
			return 1;
		}
		if (strcmp(arg, "--verbose") == 0) {
			o->verbose = 1;
			continue;
		}
		if (strncmp(arg, "--", 2) != 0) {
			fprintf(stderr, "gauntlet target: unexpected argument '%s' (see --help)\n", arg);
			return -1;
		}
		eq = strchr(arg, '=');
		n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		if (n >= sizeof(name)) {
			fprintf(stderr, "gauntlet target: unknown flag '%s' (see --help)\n", arg);
			return -1;
		}
		memcpy(name, arg + 2, n);
		name[n] = '\0';
		if (eq) {
			v = eq + 1;
		} else if (i + 1 < argc) {
			v = argv[++i];
		} else {
			fprintf(stderr, "gauntlet target: --%s needs a value\n", name);
			return -1;
		}
		if (strcmp(name, "listen") == 0) {
			o->listen = v;
		} else if (strcmp(name, "model") == 0) {
			if (!*v || strlen(v) > 256) {
				fprintf(stderr, "gauntlet target: --model: expected 1 to 256 characters\n");
				return -1;
			}
			o->model = v;
		} else if (strcmp(name, "ready-file") == 0) {
			o->ready_file = v;
		} else if (strcmp(name, "api-key-env") == 0) {
			/* from the environment, never the command line (where
			 * /proc/PID/cmdline would show it); out of the
			 * environment once read */
			const char *k = getenv(v);
			if (!k || !*k) {
				fprintf(stderr, "gauntlet target: --api-key-env: the variable %s is not set\n", v);
				return -1;
			}
			free(o->api_key);
			o->api_key = strdup(k);
			memset((char *)k, 0, strlen(k)); /* also from /proc/PID/environ */
			unsetenv(v);
		} else if (strcmp(name, "misbehave") == 0) {
			if (parse_misbehave(v, o))
				return -1;
		} else if (strcmp(name, "lora") == 0) {
			if (o->n_static_loras == MAX_STATIC_LORAS) {
				fprintf(stderr, "gauntlet target: --lora: at most %d\n", MAX_STATIC_LORAS);
				return -1;
			}
			o->static_loras[o->n_static_loras++] = v;
		} else if ((nf = num_flag(name)) != NULL) {
			if (set_num_flag(nf, v, o))
				return -1;
			have_stall_at |= nf->off == offsetof(struct target_opts, stall_at_s);
			have_step |= nf->off == offsetof(struct target_opts, step_ttft_ms) ? 1 : 0;
			have_step |= nf->off == offsetof(struct target_opts, step_at_s) ? 2 : 0;
		} else {
			fprintf(stderr, "gauntlet target: unknown flag '--%s' (see --help)\n", name);
			return -1;
		}
	}
	return flags_together(o, have_stall_at, have_step);
}

/* ---- listening --------------------------------------------------------- */

static int open_listener(struct target *t, struct gl_err *err)
{
	char what[300];
	int fd;

	snprintf(what, sizeof(what), "--listen %s", t->o.listen);
	fd = gl_listen_open(&t->listen_addr, t->listen_len, what, t->bound, sizeof(t->bound), err);
	if (fd < 0)
		return -GL_EIO;
	if (!evhttp_accept_socket_with_handle(t->http, fd)) {
		close(fd);
		return gl_errf(err, GL_EIO, "--listen %s: evhttp cannot accept on it", t->o.listen);
	}
	return 0;
}

/* ---- life cycle -------------------------------------------------------- */

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct target *t = arg;

	(void)what;
	gl_info("target: %s received, shutting down (%u requests in flight)", sig == SIGINT ? "SIGINT" : "SIGTERM",
		t->n_streams);
	event_base_loopbreak(t->base);
}

static void on_stall_log(evutil_socket_t fd, short what, void *arg)
{
	struct target *t = arg;
	struct timeval tv = { (time_t)(t->o.stall_ns / 1000000000), (suseconds_t)(t->o.stall_ns % 1000000000 / 1000) };

	(void)fd;
	(void)what;
	if (!t->stall_logged) {
		gl_info("target: stall window opens: tokens wait %.3f s", (double)t->o.stall_ns / 1e9);
		t->stall_logged = 1;
		evtimer_add(t->stall_log, &tv);
	} else {
		gl_info("target: stall window closes");
	}
}

static char *json_escape_dup(const char *s)
{
	cJSON *str = cJSON_CreateString(s);
	char *quoted = str ? cJSON_PrintUnformatted(str) : NULL;
	char *out = NULL;
	size_t n;

	cJSON_Delete(str);
	if (!quoted)
		return NULL;
	n = strlen(quoted);
	if (n >= 2) {
		quoted[n - 1] = '\0';
		out = strdup(quoted + 1);
	}
	free(quoted);
	return out;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			gl_warn("target: cannot raise the open-file limit: %s", strerror(errno));
	}
}

static int target_start(struct target *t, struct gl_err *err)
{
	struct event_config *cfg;
	char line[160];

	TAILQ_INIT(&t->all);
	TAILQ_INIT(&t->queue);
	t->model_json = json_escape_dup(t->o.model);
	if (!t->model_json)
		return gl_errf(err, GL_ENOMEM, "out of memory");
	if (t->o.n_static_loras > (int)t->o.max_loras)
		return gl_errf(err, GL_EINVAL, "--lora given %d times, more than --max-loras %u", t->o.n_static_loras,
			       t->o.max_loras);
	for (int i = 0; i < t->o.n_static_loras; i++)
		if (tgt_lora_static(t, t->o.static_loras[i]))
			return gl_errf(err, GL_EINVAL, "bad --lora");
	/* in memory only: a restart starts it cold */
	if (t->o.prefix_cache_blocks && !(t->cache = gl_prefix_cache_new(t->o.prefix_cache_blocks)))
		return gl_errf(err, GL_ENOMEM, "--prefix-cache-blocks %u: out of memory", t->o.prefix_cache_blocks);
	/* Precise timers: token gaps of a few ms must not snap to the coarse clock. */
	cfg = event_config_new();
	if (cfg)
		event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	t->base = cfg ? event_base_new_with_config(cfg) : NULL;
	if (cfg)
		event_config_free(cfg);
	if (!t->base)
		return gl_errf(err, GL_EIO, "cannot create the event loop");
	t->http = evhttp_new(t->base);
	if (!t->http)
		return gl_errf(err, GL_EIO, "cannot create the HTTP server");
	evhttp_set_max_body_size(t->http, (ev_ssize_t)t->o.max_body_bytes);
	evhttp_set_max_headers_size(t->http, 64 * 1024);
	evhttp_set_allowed_methods(t->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD);
	evhttp_set_gencb(t->http, tgt_on_request, t);
	/* A connection that sends nothing (no request, or nothing after the
	 * last one) is closed after the idle timeout instead of held forever.
	 * evhttp arms it as the socket's read and write timeouts: while a
	 * request is handled evhttp does not read (streams of any length are
	 * not cut), and a write times out only when the client stops reading. */
	if (t->o.idle_timeout_s)
		evhttp_set_timeout(t->http, (int)t->o.idle_timeout_s);
	raise_fd_limit();
	if (open_listener(t, err))
		return -GL_EIO;
	t->sig_int = evsignal_new(t->base, SIGINT, on_signal, t);
	t->sig_term = evsignal_new(t->base, SIGTERM, on_signal, t);
	if (!t->sig_int || !t->sig_term || event_add(t->sig_int, NULL) || event_add(t->sig_term, NULL))
		return gl_errf(err, GL_EIO, "cannot install signal handlers");
	t->t_start_ns = gl_now_ns();
	t->step_ns = t->o.step_at_s >= 0 ? t->t_start_ns + llround(t->o.step_at_s * 1e9) : INT64_MAX;
	t->started_s = (long long)time(NULL);
	if (t->o.mb == MB_STALL) {
		struct timeval tv;
		int64_t at_ns = llround(t->o.stall_at_s * 1e9);

		t->stall_start_ns = t->t_start_ns + at_ns;
		t->stall_end_ns = t->stall_start_ns + t->o.stall_ns;
		t->stall_log = evtimer_new(t->base, on_stall_log, t);
		if (t->stall_log) {
			tv.tv_sec = (time_t)(at_ns / 1000000000);
			tv.tv_usec = (suseconds_t)(at_ns % 1000000000 / 1000);
			evtimer_add(t->stall_log, &tv);
		}
	}
	snprintf(line, sizeof(line), "%s\n", t->bound);
	if (t->o.ready_file && gl_write_file_atomic(t->o.ready_file, line, strlen(line), 0644, err))
		return -GL_EIO;
	if (t->o.mb == MB_STALL)
		snprintf(line, sizeof(line), ", misbehave stall_ms=%lld at %.3f s",
			 (long long)(t->o.stall_ns / 1000000), t->o.stall_at_s);
	else if (t->o.mb != MB_NONE)
		snprintf(line, sizeof(line), ", misbehave %s at rate %g", tgt_mb_names[t->o.mb], t->o.mb_rate);
	else
		line[0] = '\0';
	if (t->cache)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), ", prefix cache %u blocks of %u tokens",
			 t->o.prefix_cache_blocks, t->o.prefix_block_tokens);
	gl_info("target: listening on %s, model '%s', max_seqs %u, ttft %.3f ms + %.3f us/prompt "
		"token, itl %.3f ms (jitter %.3f), seed %" PRIu64 "%s",
		t->bound, t->o.model, t->o.max_seqs, t->o.m.ttft_ms, t->o.m.prefill_us_per_token, t->o.m.itl_ms,
		t->o.m.itl_jitter, t->o.m.seed, line);
	printf("%s\n", t->bound);
	fflush(stdout);
	return 0;
}

static void target_stop(struct target *t)
{
	struct stream *s;

	/* Streams first: their closecbs must be gone before evhttp_free closes
	 * the connections (which also frees the requests still attached). */
	while ((s = TAILQ_FIRST(&t->all)) != NULL) {
		if (s->state == SS_ACTIVE)
			s->state = SS_HANG; /* no slot hand-over while tearing down */
		tgt_stream_free(s);
	}
	tgt_lora_free_all(t);
	gl_prefix_cache_free(t->cache);
	if (t->http)
		evhttp_free(t->http);
	if (t->sig_int)
		event_free(t->sig_int);
	if (t->sig_term)
		event_free(t->sig_term);
	if (t->stall_log)
		event_free(t->stall_log);
	if (t->base)
		event_base_free(t->base);
	free(t->model_json);
}

int gl_target_main(int argc, char **argv)
{
	struct target *t = calloc(1, sizeof(*t));
	struct gl_err err = { 0 };
	int rc;

	if (!t) {
		fprintf(stderr, "gauntlet target: out of memory\n");
		return 1;
	}
	rc = parse_flags(argc, argv, &t->o);
	if (rc) {
		free(t->o.api_key);
		free(t);
		return rc > 0 ? GL_EXIT_OK : GL_EXIT_BAD_INPUT;
	}
	if (gl_listen_parse(t->o.listen, NULL, &t->listen_addr, &t->listen_len, &err)) {
		fprintf(stderr, "gauntlet target: --listen %s\n", err.msg);
		free(t->o.api_key);
		free(t);
		return GL_EXIT_BAD_INPUT;
	}
	if (t->o.verbose)
		gl_log_init(GL_LOG_DEBUG);
	/* A client that disconnects mid-write must cost an error, not the process. */
	signal(SIGPIPE, SIG_IGN);
	if (target_start(t, &err)) {
		gl_error("target: %s", err.msg[0] ? err.msg : "cannot start");
		rc = 1;
	} else {
		event_base_dispatch(t->base);
		gl_info("target: stopped; %" PRIu64 " requests, %" PRIu64 " tokens, %" PRIu64 " client aborts, %" PRIu64
			" injected closes",
			t->next_seq, t->tokens_total, t->aborts_client, t->aborts_injected);
		rc = 0;
	}
	target_stop(t);
	free(t->o.api_key);
	free(t);
	return rc;
}
