/*
 * test_target_model.c - the deterministic timing and token model of
 * `gauntlet target` (harness/target/target.h): TTFT with prefill, inter-token gaps
 * with seeded jitter (range, mean, determinism, independence of requests),
 * token offsets, the stall window, output lengths, word counting, the
 * deterministic choice of misbehaving requests and where misbehaviours
 * strike. The values checked here are the ones the script test and the
 * client tests rely on to predict what the server does.
 */
#include "check.h"
#include "target.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static void test_defaults(void)
{
	struct gl_target_model m;

	gl_target_model_default(&m);
	CHECK(m.seed == 1);
	CHECK(m.ttft_ms == 50);
	CHECK(m.prefill_us_per_token == 20);
	CHECK(m.itl_ms == 10);
	CHECK(m.itl_jitter == 0);
	CHECK(m.output_tokens == 64);
	CHECK(m.max_output_tokens == 8192);
}

static void test_ttft(void)
{
	struct gl_target_model m;

	gl_target_model_default(&m);
	/* 50 ms + 0 prompt tokens */
	CHECK(gl_target_ttft_ns(&m, 0) == 50000000);
	/* 50 ms + 1000 tokens x 20 us = 70 ms */
	CHECK(gl_target_ttft_ns(&m, 1000) == 70000000);
	m.ttft_ms = 200;
	m.prefill_us_per_token = 0.5;
	CHECK(gl_target_ttft_ns(&m, 3) == 200001500);
	m.ttft_ms = 0;
	m.prefill_us_per_token = 0;
	CHECK(gl_target_ttft_ns(&m, 123456) == 0);
	/* Fractional milliseconds round to the nearest ns. */
	m.ttft_ms = 0.0000004;
	CHECK(gl_target_ttft_ns(&m, 0) == 0);
	m.ttft_ms = 0.0000006;
	CHECK(gl_target_ttft_ns(&m, 0) == 1);
}

static void test_itl_no_jitter(void)
{
	struct gl_target_model m;

	gl_target_model_default(&m);
	for (uint64_t seq = 0; seq < 5; seq++)
		for (uint64_t i = 1; i < 100; i++)
			CHECK(gl_target_itl_ns(&m, seq, i) == 10000000);
	m.itl_ms = 2.5;
	CHECK(gl_target_itl_ns(&m, 9, 9) == 2500000);
	/* ttft + 63 gaps: the last of 64 default tokens at 50 + 630 ms. */
	gl_target_model_default(&m);
	CHECK(gl_target_token_offset_ns(&m, 0, 0, 0) == 50000000);
	CHECK(gl_target_token_offset_ns(&m, 0, 0, 63) == 680000000);
	CHECK(gl_target_token_offset_ns(&m, 0, 500, 1) == 70000000);
}

static void test_jitter(void)
{
	struct gl_target_model m;
	double sum = 0, lo = 1, hi = -1;
	int n = 0, differ = 0;

	gl_target_model_default(&m);
	m.itl_jitter = 0.5;
	m.seed = 99;
	for (uint64_t seq = 0; seq < 50; seq++) {
		for (uint64_t i = 1; i <= 200; i++) {
			double u = gl_target_jitter_u(m.seed, seq, i);
			int64_t gap = gl_target_itl_ns(&m, seq, i);
			int64_t want = llround(10e6 * (1 + 0.5 * u));

			CHECKF(u >= -1.0 && u < 1.0, "u=%f", u);
			CHECKF(gap == want, "seq %llu token %llu: gap %lld want %lld", (unsigned long long)seq,
			       (unsigned long long)i, (long long)gap, (long long)want);
			CHECK(gap >= 5000000 && gap <= 15000000);
			/* Deterministic: the same inputs give the same gap. */
			CHECK(gl_target_itl_ns(&m, seq, i) == gap);
			sum += u;
			lo = u < lo ? u : lo;
			hi = u > hi ? u : hi;
			n++;
		}
	}
	/* Uniform on [-1, 1): mean near 0 and the range covered. */
	CHECKF(fabs(sum / n) < 0.05, "mean u %f over %d", sum / n, n);
	CHECK(lo < -0.99 && hi > 0.99);
	/* Requests and seeds get different sequences. */
	for (uint64_t i = 1; i <= 20; i++)
		differ += gl_target_itl_ns(&m, 1, i) != gl_target_itl_ns(&m, 2, i);
	CHECKF(differ >= 18, "only %d of 20 gaps differ between two requests", differ);
	differ = 0;
	for (uint64_t i = 1; i <= 20; i++)
		differ += gl_target_jitter_u(1, 5, i) != gl_target_jitter_u(2, 5, i);
	CHECKF(differ >= 18, "only %d of 20 draws differ between two seeds", differ);
	/* Full jitter never goes negative: u >= -1 gives a gap >= 0. */
	m.itl_jitter = 1;
	for (uint64_t i = 1; i <= 1000; i++)
		CHECK(gl_target_itl_ns(&m, 3, i) >= 0 && gl_target_itl_ns(&m, 3, i) < 20000000);
	/* The offset is the sum of the gaps. */
	{
		int64_t want = gl_target_ttft_ns(&m, 7);
		for (uint64_t i = 1; i <= 30; i++)
			want += gl_target_itl_ns(&m, 4, i);
		CHECK(gl_target_token_offset_ns(&m, 4, 7, 30) == want);
	}
}

static void test_hash_stable(void)
{
	/* Pinned values: a change here changes every seeded schedule, which
	 * recorded runs and other tests may depend on. */
	CHECK(gl_target_hash(1, 0, 1) == 0x6c5795e14b3b7e33ULL);
	CHECK(gl_target_hash(42, 7, UINT64_MAX) == 0xca7d515f2c594348ULL);
	CHECK(fabs(gl_target_jitter_u(1, 0, 1) - -0.15357710360834553) < 1e-15);
	CHECK(gl_target_hash(1, 2, 3) != gl_target_hash(1, 3, 2));
	CHECK(gl_target_hash(1, 2, 3) != gl_target_hash(2, 1, 3));
	CHECKF(gl_target_jitter_u(1, 0, 1) == (double)(gl_target_hash(1, 0, 1) >> 11) * 0x1p-53 * 2 - 1,
	       "jitter_u is not the documented function of the hash");
}

static void test_stall(void)
{
	CHECK(gl_target_stall_adjust(5, 10, 20) == 5);
	CHECK(gl_target_stall_adjust(10, 10, 20) == 20);
	CHECK(gl_target_stall_adjust(19, 10, 20) == 20);
	CHECK(gl_target_stall_adjust(20, 10, 20) == 20);
	CHECK(gl_target_stall_adjust(21, 10, 20) == 21);
	/* No window. */
	CHECK(gl_target_stall_adjust(15, 0, 0) == 15);
	CHECK(gl_target_stall_adjust(15, 20, 10) == 15);
}

static void test_output_tokens(void)
{
	struct gl_target_model m;

	gl_target_model_default(&m);
	CHECK(gl_target_output_tokens(&m, -1, -1) == 64);
	CHECK(gl_target_output_tokens(&m, 7, -1) == 7);
	CHECK(gl_target_output_tokens(&m, 7, 3) == 7);
	CHECK(gl_target_output_tokens(&m, -1, 100) == 100);
	CHECK(gl_target_output_tokens(&m, 100000, -1) == 8192);
	m.max_output_tokens = 16;
	CHECK(gl_target_output_tokens(&m, 17, -1) == 16);
	CHECK(gl_target_output_tokens(&m, -1, -1) == 16);
	CHECK(gl_target_output_tokens(&m, -1, 40) == 16);
	m.output_tokens = 5;
	CHECK(gl_target_output_tokens(&m, -1, -1) == 5);
	CHECK(gl_target_output_tokens(&m, 0, -1) == 5); /* 0 means not given */
}

static void test_words(void)
{
	CHECK(gl_target_count_words("", 0) == 0);
	CHECK(gl_target_count_words("   \t\n ", 6) == 0);
	CHECK(gl_target_count_words("one", 3) == 1);
	CHECK(gl_target_count_words("one two  three\tfour\nfive\r\nsix", 29) == 6);
	CHECK(gl_target_count_words("  lead and trail  ", 18) == 3);
	CHECK(gl_target_count_words("tok0 tok1 tok2 ", 15) == 3);
	/* Only the given length counts. */
	CHECK(gl_target_count_words("a b c d", 3) == 2);
	/* Non-ASCII bytes are word characters. */
	CHECK(gl_target_count_words("h\xc3\xa9llo w\xc3\xb6rld", 14) == 2);
}

static void test_misbehaves(void)
{
	int hits = 0, again = 0;

	for (uint64_t seq = 0; seq < 100; seq++) {
		CHECK(gl_target_misbehaves(7, seq, 1.0) == 1);
		CHECK(gl_target_misbehaves(7, seq, 0.0) == 0);
	}
	for (uint64_t seq = 0; seq < 10000; seq++) {
		int a = gl_target_misbehaves(42, seq, 0.25);
		hits += a;
		again += a == gl_target_misbehaves(42, seq, 0.25);
	}
	CHECKF(hits > 2300 && hits < 2700, "rate 0.25 chose %d of 10000", hits);
	CHECK(again == 10000);
	/* A higher rate keeps every request a lower rate chose (and the lower
	 * rate chooses some: the loop below is not empty). */
	hits = 0;
	for (uint64_t seq = 0; seq < 1000; seq++)
		if (gl_target_misbehaves(42, seq, 0.1)) {
			hits++;
			CHECK(gl_target_misbehaves(42, seq, 0.5));
		}
	CHECKF(hits > 60 && hits < 140, "rate 0.1 chose %d of 1000", hits);
}

static void test_strike_points(void)
{
	CHECK(gl_target_close_at(1) == 0);
	CHECK(gl_target_close_at(2) == 1);
	CHECK(gl_target_close_at(3) == 2);
	CHECK(gl_target_close_at(4) == 3);
	CHECK(gl_target_close_at(64) == 3);
	CHECK(gl_target_inject_after(1) == 0);
	CHECK(gl_target_inject_after(2) == 1);
	CHECK(gl_target_inject_after(3) == 2);
	CHECK(gl_target_inject_after(64) == 2);
}

int main(void)
{
	test_defaults();
	test_ttft();
	test_itl_no_jitter();
	test_jitter();
	test_hash_stable();
	test_stall();
	test_output_tokens();
	test_words();
	test_misbehaves();
	test_strike_points();
	return check_done();
}
