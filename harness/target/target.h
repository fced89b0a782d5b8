/*
 * target.h - `gauntlet target`: an OpenAI-compatible token-streaming server
 * on libevent's evhttp, the thing the lab's workers run and the tests drive.
 * Its timings are a deterministic model, so a test can compute exactly when
 * each token should leave the server and compare it with what the client
 * measured. The model's pure functions are declared here for that purpose.
 *
 * Endpoints: POST /v1/chat/completions, POST /v1/completions (SSE when
 * "stream": true, one JSON body otherwise), GET /v1/models, GET /health,
 * GET /metrics (Prometheus text).
 *
 * Token model: one whitespace-separated word is one token, for prompt
 * counting and for output. Output token i (0-based) is the word "tok<i> ".
 * A request's output length is gl_target_output_tokens() below.
 *
 * Timing model. Every valid generation request gets a sequence number
 * req_seq = 0, 1, 2, ... in the order the server received it (requests that
 * fail validation get none). At most max_seqs requests generate at once; the
 * rest wait FIFO for a slot. Let t_slot be the time a request takes a slot:
 *
 *   t_0 = t_slot + gl_target_ttft_ns(m, prompt_tokens - cached_tokens)
 *       = t_slot + round(ttft_ms * 1e6 + (prompt_tokens - cached_tokens)
 *                        * prefill_us_per_token * 1e3) ns
 *   t_i = t_{i-1} + gl_target_itl_ns(m, req_seq, i)              for i >= 1
 *       = t_{i-1} + round(itl_ms * 1e6 * (1 + itl_jitter * u)) ns,
 *         u = gl_target_jitter_u(seed, req_seq, i) in [-1, 1)
 *
 * cached_tokens is 0 without --prefix-cache-blocks; with it, the tokens of
 * the request's leading blocks found in the prefix cache when it took its
 * slot (target_cache.h says which).
 *
 * t_i is when token i is written (never more than 20 us before it; later
 * only when the event loop is late). Schedules are absolute, so a late timer
 * does not shift later tokens. A streaming chat response sends its role-only
 * chunk together with token 0 at t_0 (so the first SSE event is the first
 * token time); the usage chunk and [DONE] follow token n-1 at t_{n-1}. A
 * non-streaming response is sent whole at t_{n-1}. HTTP headers of a
 * streaming response go out when the request arrives, before any queueing.
 *
 * Misbehaviour (--misbehave MODE): request req_seq misbehaves when
 * gl_target_misbehaves(seed, req_seq, --misbehave-rate). http_429/500/503
 * answer at once, without a slot; hang never answers and holds no slot;
 * the other modes take a slot like any request. slow_drip sends the whole
 * response body one byte per second from the moment the request gets a
 * slot. The stall mode ignores the rate: it hits every request.
 *
 * Request fields: messages / prompt (counted), max_tokens or
 * max_completion_tokens, min_tokens, stream, stream_options.include_usage,
 * model (must match --model when given) and ignore_eos (checked to be a
 * boolean; the model has no EOS, so it changes nothing).
 *
 * Stall (--misbehave stall_ms=N --stall-at-s S): with the window
 * [T + S s, T + S s + N ms), T = the moment the server started listening,
 * any t_i that falls inside the window becomes the window's end and the
 * following tokens are scheduled from there (gl_target_stall_adjust).
 *
 * Threads: the server runs one libevent loop on the calling thread; the
 * model functions are pure and callable from anywhere.
 */
#ifndef GL_TARGET_H
#define GL_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* `gauntlet target --listen ADDR [flags]`; argv[0] is "target". Runs until
 * SIGINT or SIGTERM. Returns the process exit code: 0 after a clean
 * shutdown by signal, 1 when the server cannot start (bind, listen, ready
 * file), 2 on bad flags (with a message on stderr). `--help` prints the
 * flags and returns 0. */
int gl_target_main(int argc, char **argv);

/* The knobs of the timing and token model (the command line's defaults in
 * gl_target_model_default). */
struct gl_target_model {
	uint64_t seed; /* --seed, default 1 */
	double ttft_ms; /* --ttft-ms, default 50 */
	double prefill_us_per_token; /* --prefill-us-per-token, default 20 */
	double itl_ms; /* --itl-ms, default 10 */
	double itl_jitter; /* --itl-jitter in [0, 1], default 0 */
	uint32_t output_tokens; /* --output-tokens, default 64 */
	uint32_t max_output_tokens; /* --max-output-tokens, default 8192 */
};

void gl_target_model_default(struct gl_target_model *m);

/* The deterministic hash behind every random choice: splitmix64 applied to
 * seed, then req_seq, then idx. */
uint64_t gl_target_hash(uint64_t seed, uint64_t req_seq, uint64_t idx);

/* u in [-1, 1): (gl_target_hash(seed, req_seq, token_index) >> 11) * 2^-53 * 2 - 1. */
double gl_target_jitter_u(uint64_t seed, uint64_t req_seq, uint64_t token_index);

/* Time from taking a slot to token 0, in ns (formula above). */
int64_t gl_target_ttft_ns(const struct gl_target_model *m, uint64_t prompt_tokens);

/* Gap between token token_index-1 and token token_index (token_index >= 1),
 * in ns, never negative. */
int64_t gl_target_itl_ns(const struct gl_target_model *m, uint64_t req_seq, uint64_t token_index);

/* Offset of token token_index from t_slot without any stall:
 * ttft + sum of the gaps 1..token_index. O(token_index). */
int64_t gl_target_token_offset_ns(const struct gl_target_model *m, uint64_t req_seq, uint64_t prompt_tokens,
				  uint64_t token_index);

/* Move t into the end of the stall window [stall_start, stall_end) when it
 * falls inside; otherwise return t. stall_end <= stall_start means none. */
int64_t gl_target_stall_adjust(int64_t t_ns, int64_t stall_start_ns, int64_t stall_end_ns);

/* Output length: n = max_tokens when given (>= 1), else m->output_tokens;
 * then n = max(n, min_tokens); then n = min(n, m->max_output_tokens).
 * Pass -1 for "not given". */
uint32_t gl_target_output_tokens(const struct gl_target_model *m, int64_t max_tokens, int64_t min_tokens);

/* Whitespace-separated words in s[0..len) (space, \t, \n, \v, \f, \r). */
uint64_t gl_target_count_words(const char *s, size_t len);
/* Whether c separates words (the bytes above). */
static inline int gl_target_is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Whether request req_seq misbehaves at the given rate: u01 < rate with
 * u01 = (gl_target_hash(seed, req_seq, UINT64_MAX) >> 11) * 2^-53 in [0, 1).
 * rate >= 1 always, rate <= 0 never. */
int gl_target_misbehaves(uint64_t seed, uint64_t req_seq, double rate);

/* Where the misbehaviours strike, for n output tokens: close_mid_stream
 * drops the connection instead of writing token gl_target_close_at(n)
 * (tokens 0..close_at-1 are delivered); garbage_sse, oversized_line and
 * stream_error write their event right after token gl_target_inject_after(n). */
static inline uint32_t gl_target_close_at(uint32_t n)
{
	return n > 3 ? 3 : (n ? n - 1 : 0);
}
static inline uint32_t gl_target_inject_after(uint32_t n)
{
	return n > 2 ? 2 : (n ? n - 1 : 0);
}

#endif
