/*
 * inference_arrivals.c - when the inference workload sends: seeded random
 * gaps (constant, poisson, gamma), the absolute open-loop schedule with the
 * max_in_flight queue that keeps each request's intended time, trace replay
 * (looping, start and end offsets), and the sweep that fails requests past
 * their ttft or idle timeout (inference.c has the whole story).
 */
#include "inference_int.h"

/* ---- random arrivals (xorshift64*, seeded) ------------------------------ */

static double urand(struct inf *w)
{
	uint64_t x = w->rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	w->rng = x;
	return ((x * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
}

static double exp_gap(struct inf *w, double rate)
{
	double u = urand(w);
	return -log(1.0 - u) / rate;
}

/* Marsaglia-Tsang gamma(shape k, scale 1); k < 1 by the boost trick. */
static double gamma_sample(struct inf *w, double k)
{
	double d, c;
	if (k < 1) {
		double u = urand(w);
		return gamma_sample(w, k + 1) * pow(u > 0 ? u : 1e-300, 1.0 / k);
	}
	d = k - 1.0 / 3;
	c = 1 / sqrt(9 * d);
	for (;;) {
		double x, v, u;
		do {
			/* normal by Box-Muller */
			double u1 = urand(w), u2 = urand(w);
			x = sqrt(-2 * log(u1 > 0 ? u1 : 1e-300)) * cos(2 * M_PI * u2);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		u = urand(w);
		if (u < 1 - 0.0331 * x * x * x * x || log(u > 0 ? u : 1e-300) < 0.5 * x * x + d * (1 - v + log(v)))
			return d * v;
	}
}

static int64_t next_gap_ns(struct inf *w)
{
	double rate = w->rate * (w->load > 0 ? w->load : 1), gap;

	switch (w->mode) {
	case AR_CONSTANT: gap = 1 / rate; break;
	case AR_GAMMA: {
		double k = 1 / (w->o.cv * w->o.cv);
		gap = gamma_sample(w, k) / (rate * k);
		break;
	}
	default: gap = exp_gap(w, rate);
	}
	return (int64_t)(gap * 1e9);
}

/* ---- arrivals ----------------------------------------------------------------- */

static void arrive(struct inf *w, int64_t t_intended, int64_t in_tok, int64_t out_tok, const struct gl_trace_row *tr)
{
	uint64_t seq = w->seq++;

	/* another agent's share of the one schedule */
	if (w->shards > 1 && seq % (uint64_t)w->shards != (uint64_t)w->shard)
		return;

	if (w->in_flight < w->o.max_in_flight && w->q_len == 0) {
		inf_headroom_arrival(w, inf_now_ns(w) - t_intended, 0);
		inf_send_req(w, t_intended, seq, in_tok, out_tok, tr, -1);
		return;
	}
	inf_headroom_arrival(w, inf_now_ns(w) - t_intended, 1);
	/* Held by max_in_flight: keeps its intended time. A held request older
	 * than the total timeout has failed already (timeout_total), which also
	 * bounds the queue at rate x timeout. */
	while (w->q_len > 0 && inf_now_ns(w) - w->q[w->q_head].t_intended > w->timeout_ms * 1000000LL) {
		struct req dead;
		memset(&dead, 0, sizeof(dead));
		dead.w = w;
		dead.t_intended = w->q[w->q_head].t_intended;
		dead.t_send = dead.t_headers = dead.t_first_event = dead.t_first_token = dead.t_last_token = -1;
		dead.t_end = inf_now_ns(w);
		dead.input_tokens = w->q[w->q_head].input_tokens;
		dead.ep = -1;
		inf_record_done(w, &dead, EC_TOTAL);
		w->q_head = (w->q_head + 1) % w->q_cap;
		w->q_len--;
	}
	if (w->q_len == w->q_cap) {
		size_t ncap = w->q_cap ? w->q_cap * 2 : 1024;
		struct pending *nq = malloc(ncap * sizeof(*nq));
		if (!nq)
			return;
		for (size_t i = 0; i < w->q_len; i++)
			nq[i] = w->q[(w->q_head + i) % w->q_cap];
		free(w->q);
		w->q = nq;
		w->q_cap = ncap;
		w->q_head = 0;
	}
	w->q[(w->q_head + w->q_len) % w->q_cap] = (struct pending){ t_intended, in_tok, out_tok, seq };
	w->q_len++;
}

/* Next trace row with a time; loops the trace when configured. Returns 0 at
 * the end of the replay. */
int inf_trace_next(struct inf *w)
{
	int rewinds = 0;

	for (;;) {
		int rc = gl_trace_next(w->trace, &w->trow);
		if (rc < 0) {
			gl_ctx_event(w->ctx, GL_LOG_ERROR, "inference", "trace: %s", gl_trace_error(w->trace));
			return 0;
		}
		if (rc == 0 || (w->trace_end_s > 0 && w->trow.t_offset_s >= w->trace_end_s)) {
			if (!w->o.loop)
				return 0;
			/* a whole pass without a row to replay: looping again would
			 * spin on the loop's thread forever (validate refuses such a
			 * trace; this guards one that changed since) */
			if (++rewinds > 1) {
				gl_ctx_event(w->ctx, GL_LOG_ERROR, "inference",
					     "trace: a whole pass has no usable row in [start, end): the replay ends");
				return 0;
			}
			/* next pass starts one mean gap after this one ends */
			w->trace_base_ns += (int64_t)((w->trace_span_s - w->trace_start_s) / w->o.speed * 1e9) +
					    (int64_t)(1e9 / (w->rate > 0 ? w->rate : 1));
			if (gl_trace_rewind(w->trace) != 0)
				return 0;
			continue;
		}
		if (w->trow.failed_in_trace || w->trow.t_offset_s < w->trace_start_s)
			continue;
		return 1;
	}
}

static void skip_others(struct inf *w);

void inf_on_arrival(evutil_socket_t fd, short what, void *arg)
{
	struct inf *w = arg;
	int64_t now = inf_now_ns(w);
	int burst = 0;

	if (!w->running)
		return;
	if (w->mode == AR_TRACE) {
		while (w->have_trow && burst++ < 10000) {
			int64_t t = w->trace_base_ns +
				    (int64_t)((w->trow.t_offset_s - w->trace_start_s) / w->o.speed * 1e9);
			if (t > now) {
				w->next_arrival = t;
				break;
			}
			arrive(w, t, w->trow.input_tokens > 0 ? w->trow.input_tokens : w->o.input_tokens,
			       w->trow.output_tokens > 0 ? w->trow.output_tokens : w->o.output_tokens, &w->trow);
			w->have_trow = inf_trace_next(w);
		}
		if (!w->have_trow)
			return;
	} else {
		while (w->next_arrival <= now && burst++ < 10000) {
			arrive(w, w->next_arrival, w->o.input_tokens, w->o.output_tokens, NULL);
			w->next_arrival += next_gap_ns(w);
			skip_others(w);
		}
	}
	inf_arm_arrival(w);
}

/* Open loop with agents: walk the one seeded schedule past the arrivals
 * that are other agents' (their gaps drawn all the same, so that every
 * agent's times are the one-process run's), without waking for them. */
static void skip_others(struct inf *w)
{
	while (w->shards > 1 && w->seq % (uint64_t)w->shards != (uint64_t)w->shard) {
		w->seq++;
		w->next_arrival += next_gap_ns(w);
	}
}

/* Trace replay started late (an agent relaunched after it was lost): the
 * rows whose time has passed are counted as missed, not sent late; each
 * still takes its place in the sequence that shares rows out. */
void inf_trace_skip_past(struct inf *w)
{
	int64_t now = inf_now_ns(w);

	if (w->origin_ns < 0 || now - w->origin_ns <= 200000000LL)
		return;
	while (w->have_trow &&
	       w->trace_base_ns + (int64_t)((w->trow.t_offset_s - w->trace_start_s) / w->o.speed * 1e9) < now) {
		uint64_t seq = w->seq++;
		if (w->shards <= 1 || seq % (uint64_t)w->shards == (uint64_t)w->shard)
			w->skipped++;
		w->have_trow = inf_trace_next(w);
	}
}

/* The first open-loop arrival: at the schedule's origin; an agent started
 * again after it was lost takes the schedule up where it stands now, and
 * the arrivals it missed are counted, not sent late. */
void inf_first_arrival(struct inf *w)
{
	int64_t now = inf_now_ns(w);

	w->next_arrival = w->origin_ns >= 0 ? w->origin_ns : now;
	skip_others(w);
	if (w->origin_ns >= 0 && now - w->origin_ns > 200000000LL)
		while (w->next_arrival < now) {
			w->seq++;
			w->skipped++;
			w->next_arrival += next_gap_ns(w);
			skip_others(w);
		}
}

void inf_arm_arrival(struct inf *w)
{
	gl_ctx_arm_at(w->ctx, w->ev_arrival, w->next_arrival);
}

/* ttft and idle timeouts, checked every 20 ms; the whole-request one
 * too for the own HTTP/1.1 client (curl keeps its own). */
void inf_on_sweep(evutil_socket_t fd, short what, void *arg)
{
	struct inf *w = arg;
	int64_t now = inf_now_ns(w);
	struct req *r = w->live, *next;
	int running;

	for (; r; r = next) {
		CURLcode res = CURLE_OK;
		next = r->next;
		if (r->add_failed)
			;
		else if (w->o.ttft_timeout_ns > 0 && r->t_first_token < 0 && now - r->t_send > w->o.ttft_timeout_ns)
			r->forced = EC_TTFT;
		else if (w->o.idle_timeout_ns > 0 && r->t_first_token >= 0 &&
			 now - r->t_last_event > w->o.idle_timeout_ns)
			r->forced = EC_IDLE;
		else if ((res = inf_h1_expired(w, r, now)) == CURLE_OK)
			continue;
		inf_finish_req(w, r, res);
		/* finish_req may have started others; start again from the head */
		next = w->live;
		if (next == r)
			break;
	}
	curl_multi_socket_action(w->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	inf_check_done(w);
}
