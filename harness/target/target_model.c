/*
 * target_model.c - the deterministic timing model of `gauntlet target`
 * (target.h): seeded hashes, TTFT and inter-token gaps, the stall window,
 * output lengths, prompt word counts, which requests misbehave. Pure
 * functions, shared by the server and the tests.
 */
#include "target.h"

#include <math.h>
#include <stdint.h>

/* ---- the model --------------------------------------------------------- */

void gl_target_model_default(struct gl_target_model *m)
{
	m->seed = 1;
	m->ttft_ms = 50;
	m->prefill_us_per_token = 20;
	m->itl_ms = 10;
	m->itl_jitter = 0;
	m->output_tokens = 64;
	m->max_output_tokens = 8192;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t gl_target_hash(uint64_t seed, uint64_t req_seq, uint64_t idx)
{
	return splitmix64(splitmix64(splitmix64(seed) ^ req_seq) ^ idx);
}

double gl_target_jitter_u(uint64_t seed, uint64_t req_seq, uint64_t token_index)
{
	uint64_t h = gl_target_hash(seed, req_seq, token_index);
	return (double)(h >> 11) * 0x1p-53 * 2.0 - 1.0;
}

int64_t gl_target_ttft_ns(const struct gl_target_model *m, uint64_t prompt_tokens)
{
	return llround(m->ttft_ms * 1e6 + (double)prompt_tokens * m->prefill_us_per_token * 1e3);
}

int64_t gl_target_itl_ns(const struct gl_target_model *m, uint64_t req_seq, uint64_t token_index)
{
	double f = 1.0;
	int64_t ns;

	if (m->itl_jitter != 0)
		f += m->itl_jitter * gl_target_jitter_u(m->seed, req_seq, token_index);
	ns = llround(m->itl_ms * 1e6 * f);
	return ns < 0 ? 0 : ns;
}

int64_t gl_target_token_offset_ns(const struct gl_target_model *m, uint64_t req_seq, uint64_t prompt_tokens,
				  uint64_t token_index)
{
	int64_t t = gl_target_ttft_ns(m, prompt_tokens);

	for (uint64_t i = 1; i <= token_index; i++)
		t += gl_target_itl_ns(m, req_seq, i);
	return t;
}

int64_t gl_target_stall_adjust(int64_t t_ns, int64_t stall_start_ns, int64_t stall_end_ns)
{
	if (stall_end_ns > stall_start_ns && t_ns >= stall_start_ns && t_ns < stall_end_ns)
		return stall_end_ns;
	return t_ns;
}

uint32_t gl_target_output_tokens(const struct gl_target_model *m, int64_t max_tokens, int64_t min_tokens)
{
	int64_t n = max_tokens >= 1 ? max_tokens : (int64_t)m->output_tokens;

	if (min_tokens > n)
		n = min_tokens;
	if (n > (int64_t)m->max_output_tokens)
		n = m->max_output_tokens;
	return (uint32_t)n;
}

uint64_t gl_target_count_words(const char *s, size_t len)
{
	uint64_t n = 0;
	int in_word = 0;

	for (size_t i = 0; i < len; i++) {
		if (gl_target_is_space((unsigned char)s[i])) {
			in_word = 0;
		} else if (!in_word) {
			in_word = 1;
			n++;
		}
	}
	return n;
}

int gl_target_misbehaves(uint64_t seed, uint64_t req_seq, double rate)
{
	double u01;

	if (rate >= 1.0)
		return 1;
	if (!(rate > 0.0))
		return 0;
	u01 = (double)(gl_target_hash(seed, req_seq, UINT64_MAX) >> 11) * 0x1p-53;
	return u01 < rate;
}
