/*
 * test_trace.c - the trace readers of loadgen/trace.c over the sample traces
 * in scenarios/traces/ and the broken ones in tests/traces/ (exact row
 * counts, offsets, token counts, flags, hash ids, which rows are skipped and
 * counted), oversized lines made at run time, rewinding, the memory variant,
 * and the prompt synthesizer's determinism and shared prefixes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "trace.h"
#include "util.h"

#define MAX_ROWS 128
#define SYNTH_GOLDEN "heat did market dark voice last"

/* A copy of what gl_trace_next returned, since its pointers are borrowed. */
struct got {
	uint64_t row_number;
	double t;
	bool has_time, clamped, failed;
	int64_t in, out;
	size_t n_hash;
	int64_t hash[32];
	char prompt[256];
	bool has_prompt, has_messages;
};

static char src_dir[2048];
static char tmp_dir[2048];

static const char *src_path(const char *rel)
{
	static char p[4096];
	snprintf(p, sizeof(p), "%s/%s", src_dir, rel);
	return p;
}

static void copy_row(const struct gl_trace_row *r, struct got *g)
{
	memset(g, 0, sizeof(*g));
	g->row_number = r->row_number;
	g->t = r->t_offset_s;
	g->has_time = r->has_time;
	g->clamped = r->time_clamped;
	g->failed = r->failed_in_trace;
	g->in = r->input_tokens;
	g->out = r->output_tokens;
	g->n_hash = r->n_hash_ids;
	for (size_t i = 0; i < r->n_hash_ids && i < GL_ARRAY_LEN(g->hash); i++)
		g->hash[i] = r->hash_ids[i];
	if (r->prompt) {
		g->has_prompt = true;
		snprintf(g->prompt, sizeof(g->prompt), "%s", r->prompt);
	}
	g->has_messages = r->messages_json != NULL;
}

/* Read every row; returns the count, or -1 when open failed. */
static int read_all(const char *path, enum gl_trace_format fmt, struct got *rows, enum gl_trace_format *fmt_out,
		    uint64_t *malformed)
{
	struct gl_err err = { 0 };
	struct gl_trace *t = gl_trace_open(path, fmt, &err);
	struct gl_trace_row r;
	int n = 0, rc;

	if (!t) {
		fprintf(stderr, "open %s: %s\n", path, err.msg);
		return -1;
	}
	while ((rc = gl_trace_next(t, &r)) == 1) {
		if (n < MAX_ROWS)
			copy_row(&r, &rows[n]);
		n++;
	}
	CHECKF(rc == 0, "%s: %s", path, gl_trace_error(t));
	if (fmt_out)
		*fmt_out = gl_trace_format(t);
	if (malformed)
		*malformed = gl_trace_malformed_count(t);
	gl_trace_close(t);
	return n;
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void test_azure(void)
{
	struct got rows[MAX_ROWS];
	enum gl_trace_format f;
	uint64_t bad;
	int n = read_all(src_path("scenarios/traces/azure-conv-2023-sample.csv"), GL_TRACE_AUTO, rows, &f, &bad);

	CHECKF(n == 40, "n=%d", n);
	CHECK(f == GL_TRACE_AZURE);
	CHECK(bad == 0);
	if (n != 40)
		return;
	CHECK(rows[0].row_number == 2 && rows[0].t == 0.0 && rows[0].has_time);
	CHECK(rows[0].in == 1484 && rows[0].out == 178 && !rows[0].failed);
	CHECK(rows[0].n_hash == 0 && !rows[0].has_prompt);
	/* 18:15:48.1812185 - 18:15:46.6805900: the 7th digit must count. */
	CHECKF(near(rows[1].t, 1.5006285), "t=%.9f", rows[1].t);
	CHECK(rows[1].row_number == 3 && rows[1].in == 1092 && rows[1].out == 115);
	CHECKF(near(rows[9].t, 5.2189718), "t=%.9f", rows[9].t);
	CHECK(rows[9].in == 757 && rows[9].out == 105);
	CHECKF(near(rows[39].t, 16.8653940), "t=%.9f", rows[39].t);
	CHECK(rows[39].row_number == 41 && rows[39].in == 2610 && rows[39].out == 309);
	for (int i = 1; i < n; i++)
		CHECK(rows[i].t >= rows[i - 1].t && !rows[i].clamped);

	n = read_all(src_path("scenarios/traces/azure-code-2024-sample.csv"), GL_TRACE_AUTO, rows, &f, &bad);
	CHECKF(n == 50, "n=%d", n);
	CHECK(f == GL_TRACE_AZURE && bad == 0);
	if (n != 50)
		return;
	CHECK(rows[0].t == 0.0 && rows[0].in == 1726 && rows[0].out == 49);
	CHECKF(near(rows[1].t, 0.036775), "t=%.9f", rows[1].t);
	CHECKF(near(rows[24].t, 1.753281), "t=%.9f", rows[24].t);
	CHECK(rows[24].row_number == 26 && rows[24].in == 2842 && rows[24].out == 7);
	CHECKF(near(rows[49].t, 4.059296), "t=%.9f", rows[49].t);
}

static void test_azure_bad(void)
{
	struct got rows[MAX_ROWS];
	uint64_t bad;
	int n = read_all(src_path("tests/traces/azure-bad.csv"), GL_TRACE_AUTO, rows, NULL, &bad);
	static const uint64_t want_rows[] = { 2, 8, 9, 11, 13, 15 };

	CHECKF(n == 6, "n=%d", n);
	CHECKF(bad == 7, "malformed=%llu", (unsigned long long)bad);
	if (n != 6)
		return;
	for (int i = 0; i < n; i++)
		CHECKF(rows[i].row_number == want_rows[i], "row %d is line %llu", i,
		       (unsigned long long)rows[i].row_number);
	CHECK(rows[0].in == 1200 && rows[0].out == 17 && rows[0].t == 0.0);
	/* quoted fields, columns in another order */
	CHECK(rows[1].in == 640 && rows[1].out == 12);
	CHECKF(near(rows[1].t, 2.4428667), "t=%.9f", rows[1].t);
	/* 0.22 s back: kept, clamped to the previous offset */
	CHECK(rows[2].clamped && near(rows[2].t, 2.4428667));
	/* no fraction, CRLF */
	CHECKF(near(rows[3].t, 3.31941), "t=%.9f", rows[3].t);
	CHECK(rows[3].in == 77 && !rows[3].clamped);
	/* 'T' and Z */
	CHECKF(near(rows[4].t, 4.81941), "t=%.9f", rows[4].t);
	/* +01:00 zone, last line without a newline */
	CHECKF(near(rows[5].t, 5.3194101), "t=%.9f", rows[5].t);
	CHECK(rows[5].in == 5 && rows[5].out == 1);

	/* With no tolerance the small step back is malformed too. */
	{
		struct gl_err err = { 0 };
		struct gl_trace *t = gl_trace_open(src_path("tests/traces/azure-bad.csv"), GL_TRACE_AZURE, &err);
		struct gl_trace_row r;
		struct gl_trace_stats st;
		int k = 0;
		CHECK(t != NULL);
		if (t) {
			gl_trace_set_backstep_tolerance(t, 0);
			while (gl_trace_next(t, &r) == 1)
				k++;
			gl_trace_get_stats(t, &st);
			CHECK(k == 5 && st.malformed == 8 && st.clamped == 0);
			gl_trace_close(t);
		}
	}
}

static void test_burstgpt(void)
{
	struct got rows[MAX_ROWS];
	enum gl_trace_format f;
	uint64_t bad;
	int n = read_all(src_path("scenarios/traces/burstgpt-sample.csv"), GL_TRACE_AUTO, rows, &f, &bad);
	int failed = 0;

	CHECKF(n == 45, "n=%d", n);
	CHECK(f == GL_TRACE_BURSTGPT && bad == 0);
	if (n != 45)
		return;
	for (int i = 0; i < n; i++) {
		if (rows[i].failed) {
			failed++;
			CHECK(rows[i].out == 0);
			CHECK(rows[i].row_number == 9 || rows[i].row_number == 21 || rows[i].row_number == 22 ||
			      rows[i].row_number == 35);
		}
	}
	CHECK(failed == 4);
	CHECK(rows[0].t == 0.0 && rows[0].in == 461 && rows[0].out == 73);
	CHECK(near(rows[1].t, 13.0) && rows[1].in == 181 && rows[1].out == 319);
	CHECK(rows[7].row_number == 9 && rows[7].failed && near(rows[7].t, 43.0));
	CHECK(rows[44].row_number == 46 && near(rows[44].t, 194.0) && rows[44].in == 4565);

	n = read_all(src_path("tests/traces/burstgpt-bad.csv"), GL_TRACE_AUTO, rows, NULL, &bad);
	CHECKF(n == 4, "n=%d", n);
	CHECKF(bad == 6, "malformed=%llu", (unsigned long long)bad);
	if (n != 4)
		return;
	CHECK(rows[0].row_number == 2 && rows[0].t == 0.0 && !rows[0].failed);
	CHECK(rows[1].row_number == 3 && near(rows[1].t, 0.75) && rows[1].failed);
	CHECK(rows[2].row_number == 9 && near(rows[2].t, 3.5) && rows[2].out == 8);
	CHECK(rows[3].row_number == 10 && near(rows[3].t, 14.5));
}

static void test_mooncake(void)
{
	struct got rows[MAX_ROWS];
	enum gl_trace_format f;
	uint64_t bad;
	int n = read_all(src_path("scenarios/traces/mooncake-sample.jsonl"), GL_TRACE_AUTO, rows, &f, &bad);
	static const int64_t h0[] = { 0, 1, 2, 9, 10 };
	static const int64_t h2[] = { 0, 1, 2, 9, 10, 15, 16 };

	CHECKF(n == 36, "n=%d", n);
	CHECK(f == GL_TRACE_MOONCAKE && bad == 0);
	if (n != 36)
		return;
	CHECK(rows[0].row_number == 1 && rows[0].t == 0.0);
	CHECK(rows[0].in == 2505 && rows[0].out == 295);
	CHECK(rows[0].n_hash == 5 && memcmp(rows[0].hash, h0, sizeof(h0)) == 0);
	CHECK(near(rows[1].t, 0.122) && rows[1].n_hash == 10 && rows[1].hash[0] == 3);
	CHECK(rows[2].n_hash == 7 && memcmp(rows[2].hash, h2, sizeof(h2)) == 0);
	CHECK(near(rows[2].t, 0.494));
	CHECK(rows[35].row_number == 36 && near(rows[35].t, 26.337) && rows[35].n_hash == 14);

	n = read_all(src_path("tests/traces/mooncake-bad.jsonl"), GL_TRACE_AUTO, rows, &f, &bad);
	CHECKF(n == 3, "n=%d", n);
	CHECKF(bad == 10, "malformed=%llu", (unsigned long long)bad);
	CHECK(f == GL_TRACE_MOONCAKE);
	if (n != 3)
		return;
	CHECK(rows[0].row_number == 1 && rows[0].n_hash == 2 && rows[0].hash[1] == 2);
	CHECK(rows[1].row_number == 9 && near(rows[1].t, 2.5005) && rows[1].n_hash == 4);
	CHECK(rows[1].in == 2048 && rows[1].out == 64);
	CHECK(rows[2].row_number == 11 && rows[2].n_hash == 0 && near(rows[2].t, 3.0));
}

static void test_prompts(void)
{
	struct got rows[MAX_ROWS];
	enum gl_trace_format f;
	uint64_t bad;
	int n = read_all(src_path("scenarios/traces/prompts-sample.jsonl"), GL_TRACE_AUTO, rows, &f, &bad);

	CHECKF(n == 22, "n=%d", n);
	CHECK(f == GL_TRACE_PROMPTS && bad == 0);
	if (n != 22)
		return;
	CHECK(rows[0].has_prompt && !rows[0].has_messages && rows[0].out == 128);
	CHECK(strncmp(rows[0].prompt, "Summarize the main causes", 25) == 0);
	CHECK(rows[0].in == 13);
	CHECK(rows[1].has_messages && near(rows[1].t, 0.41) && rows[1].out == 256);
	CHECK(strcmp(rows[1].prompt, "You are a concise assistant for a network operations team.\n"
				     "What does a flapping BGP session usually indicate?") == 0);
	CHECK(rows[5].out == 40); /* output_tokens */
	CHECK(rows[6].out == -1); /* neither max_tokens nor output_tokens */
	CHECK(strncmp(rows[7].prompt, "Describe this log line:\nkernel: NVRM", 36) == 0);
	CHECK(rows[21].row_number == 22 && near(rows[21].t, 12.5));

	n = read_all(src_path("tests/traces/prompts-bad.jsonl"), GL_TRACE_AUTO, rows, &f, &bad);
	CHECKF(n == 4, "n=%d", n);
	CHECKF(bad == 6, "malformed=%llu", (unsigned long long)bad);
	if (n != 4)
		return;
	CHECK(rows[0].row_number == 1 && !rows[0].has_time && rows[0].in == 3 && rows[0].out == 5);
	CHECK(strcmp(rows[0].prompt, "hello world  again") == 0);
	CHECK(rows[1].row_number == 2 && rows[1].has_time && rows[1].t == 0.0);
	CHECK(rows[1].out == -1 && rows[1].has_messages && strcmp(rows[1].prompt, "a b") == 0);
	CHECK(rows[2].row_number == 8 && near(rows[2].t, 1.25) && rows[2].out == 7);
	CHECK(rows[3].row_number == 10 && near(rows[3].t, 1.5));
	CHECK(strcmp(rows[3].prompt, "part one\npart two") == 0 && rows[3].in == 4);
}

static char *write_tmp(const char *name, const char *head, size_t fill, const char *fill_pre, const char *fill_post,
		       const char *tail)
{
	static char p[4096];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmp_dir, name);
	f = fopen(p, "wb");
	if (!f)
		return NULL;
	fputs(head, f);
	fputs(fill_pre, f);
	for (size_t i = 0; i < fill; i++)
		fputc('a' + (int)(i % 26), f);
	fputs(fill_post, f);
	fputs(tail, f);
	fclose(f);
	return p;
}

static void test_oversized(void)
{
	struct got rows[4];
	uint64_t bad;
	const char *p;
	int n;
	/* {"prompt": "<fill>"} is 14 bytes plus the fill. */
	size_t exact = GL_TRACE_MAX_LINE - 14;

	p = write_tmp("big.csv",
		      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
		      "2024-05-10 00:00:00.5+00:00,10,2\n",
		      GL_TRACE_MAX_LINE + 100, "2024-05-10 00:00:01,", "\n", "2024-05-10 00:00:02.25+00:00,30,4\n");
	n = read_all(p, GL_TRACE_AUTO, rows, NULL, &bad);
	CHECK(n == 2 && bad == 1);
	if (n == 2)
		CHECK(rows[1].row_number == 4 && near(rows[1].t, 1.75) && rows[1].in == 30);

	p = write_tmp("big.jsonl", "{\"prompt\": \"first\"}\n", exact, "{\"prompt\": \"", "\"}\n",
		      "{\"prompt\": \"x\"}\n");
	n = read_all(p, GL_TRACE_AUTO, rows, NULL, &bad);
	CHECKF(n == 3 && bad == 0, "exact max line: n=%d bad=%llu", n, (unsigned long long)bad);
	p = write_tmp("big.jsonl", "{\"prompt\": \"first\"}\n", exact, "{\"prompt\": \"", "\"}\r\n",
		      "{\"prompt\": \"x\"}\n");
	n = read_all(p, GL_TRACE_AUTO, rows, NULL, &bad);
	CHECKF(n == 3 && bad == 0, "exact max line + CRLF: n=%d", n);
	p = write_tmp("big.jsonl", "{\"prompt\": \"first\"}\n", exact + 1, "{\"prompt\": \"", "\"}\n",
		      "{\"prompt\": \"x\"}\n");
	n = read_all(p, GL_TRACE_AUTO, rows, NULL, &bad);
	CHECKF(n == 2 && bad == 1, "max line + 1: n=%d bad=%llu", n, (unsigned long long)bad);
	if (n == 2)
		CHECK(rows[1].row_number == 3 && strcmp(rows[1].prompt, "x") == 0);

	/* An endless line with no newline at all, at the end of the file. */
	p = write_tmp("big2.jsonl", "{\"timestamp\": 1, \"input_length\": 2, \"output_length\": 3}\n",
		      3 * GL_TRACE_MAX_LINE, "", "", "");
	n = read_all(p, GL_TRACE_AUTO, rows, NULL, &bad);
	CHECK(n == 1 && bad == 1);

	/* More hash ids than allowed. */
	{
		char path[4096];
		FILE *f;
		snprintf(path, sizeof(path), "%s/many.jsonl", tmp_dir);
		f = fopen(path, "w");
		if (f) {
			fputs("{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [", f);
			for (int i = 0; i <= GL_TRACE_MAX_HASH_IDS; i++)
				fprintf(f, "%s%d", i ? "," : "", i);
			fputs("]}\n{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [", f);
			for (int i = 0; i < GL_TRACE_MAX_HASH_IDS; i++)
				fprintf(f, "%s%d", i ? "," : "", i);
			fputs("]}\n", f);
			fclose(f);
		}
		n = read_all(path, GL_TRACE_MOONCAKE, rows, NULL, &bad);
		CHECK(n == 1 && bad == 1);
		if (n == 1)
			CHECK(rows[0].row_number == 2 && rows[0].n_hash == GL_TRACE_MAX_HASH_IDS);
	}
}

static void test_rewind_and_mem(void)
{
	struct gl_err err = { 0 };
	struct gl_trace *t = gl_trace_open(src_path("tests/traces/azure-bad.csv"), GL_TRACE_AUTO, &err);
	struct gl_trace_row r;
	struct gl_trace_stats st;
	double first_pass[8];
	int n = 0, rc;
	char *data = NULL;
	size_t len = 0;

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(gl_trace_span_s(t) < 0);
	CHECK(gl_trace_measure(t) == 0);
	CHECKF(near(gl_trace_span_s(t), 5.3194101), "span %.9f", gl_trace_span_s(t));
	CHECK(gl_trace_malformed_count(t) == 7);
	for (int pass = 0; pass < 3; pass++) {
		int k = 0;
		while ((rc = gl_trace_next(t, &r)) == 1) {
			if (pass == 0 && k < 8)
				first_pass[k] = r.t_offset_s;
			else if (k < 8)
				CHECK(first_pass[k] == r.t_offset_s);
			k++;
		}
		CHECK(rc == 0 && k == 6);
		CHECK(gl_trace_next(t, &r) == 0); /* EOF again, counted once */
		CHECK(gl_trace_rewind(t) == 0);
		n += k;
	}
	gl_trace_get_stats(t, &st);
	CHECK(n == 18);
	CHECKF(st.malformed == 7 && st.clamped == 1, "malformed %llu clamped %llu", (unsigned long long)st.malformed,
	       (unsigned long long)st.clamped);
	CHECK(st.rows == 24 && st.passes == 4);
	gl_trace_close(t);

	/* The memory variant reads the same rows. */
	if (gl_read_file(src_path("scenarios/traces/mooncake-sample.jsonl"), 1 << 20, &data, &len, &err) == 0) {
		struct gl_trace *m = gl_trace_open_mem(data, len, "mem", GL_TRACE_AUTO, &err);
		int k = 0;
		double last = -1;
		CHECK(m != NULL);
		while (m && gl_trace_next(m, &r) == 1) {
			k++;
			last = r.t_offset_s;
		}
		CHECK(k == 36 && near(last, 26.337));
		CHECK(m && gl_trace_rewind(m) == 0 && gl_trace_next(m, &r) == 1 && r.row_number == 1 &&
		      r.n_hash_ids == 5);
		gl_trace_close(m);
		free(data);
	} else {
		CHECKF(0, "read: %s", err.msg);
	}
	gl_trace_close(NULL);
}

static struct gl_trace *open_str(const char *s, const char *name, struct gl_err *err)
{
	return gl_trace_open_mem(s, strlen(s), name, GL_TRACE_AUTO, err);
}

static void test_open_errors(void)
{
	struct gl_err err = { 0 };
	struct gl_trace *t;

	t = gl_trace_open(src_path("tests/traces/no-such-file.csv"), GL_TRACE_AUTO, &err);
	CHECK(!t && err.code == GL_EIO && strstr(err.msg, "no-such-file.csv"));
	gl_err_clear(&err);
	t = gl_trace_open(src_path("scenarios/traces/azure-conv-2023-sample.csv"), GL_TRACE_BURSTGPT, &err);
	CHECK(!t && err.code == GL_EINVAL && strstr(err.msg, "\"Timestamp\""));
	gl_err_clear(&err);
	t = open_str("a,b,c\n1,2,3\n", "x.csv", &err);
	CHECK(!t && strstr(err.msg, "x.csv") && strstr(err.msg, "unknown format"));
	gl_err_clear(&err);
	t = open_str("{\"foo\": 1}\n", "x.jsonl", &err);
	CHECK(!t && strstr(err.msg, "unknown JSONL"));
	gl_err_clear(&err);
	t = open_str("\n\n", "empty", &err);
	CHECK(!t && strstr(err.msg, "empty"));
	gl_err_clear(&err);
	/* A BOM before the header, and a broken first JSONL row still detects. */
	t = open_str("\xEF\xBB\xBFTimestamp,Request tokens,Response tokens\n1,2,3\n", "bom", &err);
	CHECKF(t && gl_trace_format(t) == GL_TRACE_BURSTGPT, "%s", err.msg);
	gl_trace_close(t);
	t = open_str("{\"hash_ids\": [1\n{\"timestamp\":0,\"input_length\":1,\"output_length\":1}\n", "m", &err);
	CHECK(t && gl_trace_format(t) == GL_TRACE_MOONCAKE);
	if (t) {
		struct gl_trace_row r;
		CHECK(gl_trace_next(t, &r) == 1 && r.row_number == 2);
		CHECK(gl_trace_malformed_count(t) == 1);
	}
	gl_trace_close(t);
	CHECK(gl_trace_format_parse("mooncake") == GL_TRACE_MOONCAKE);
	CHECK(gl_trace_format_parse("nope") == -1);
}

static int count_words(const char *s)
{
	int n = 0;
	bool in = false;

	for (; *s; s++) {
		if (*s != ' ' && !in)
			n++;
		in = *s != ' ';
	}
	return n;
}

static void test_synth(void)
{
	struct gl_buf a, b, c;
	int64_t h1[] = { 100, 101, 102 };
	int64_t h2[] = { 100, 101, 555 };
	const char *p, *q;
	size_t prefix;

	gl_buf_init(&a, 1 << 20);
	gl_buf_init(&b, 1 << 20);
	gl_buf_init(&c, 1 << 20);

	CHECK(gl_prompt_synth(7, 1, 50, NULL, 0, 0, &a) == 0);
	CHECK(gl_prompt_synth(7, 1, 50, NULL, 0, 0, &b) == 0);
	CHECK(a.len > 0 && strcmp(a.data, b.data) == 0);
	CHECK(count_words(a.data) == 50 && a.data[0] != ' ' && a.data[a.len - 1] != ' ');
	CHECK(strstr(a.data, "  ") == NULL);
	c.len = 0;
	CHECK(gl_prompt_synth(7, 2, 50, NULL, 0, 0, &c) == 0);
	CHECK(strcmp(a.data, c.data) != 0);
	c.len = 0;
	CHECK(gl_prompt_synth(8, 1, 50, NULL, 0, 0, &c) == 0);
	CHECK(strcmp(a.data, c.data) != 0);

	/* Shared hash ids: the same first two blocks, whatever the seed/index. */
	a.len = b.len = 0;
	CHECK(gl_prompt_synth(1, 10, 40, h1, 3, 8, &a) == 0);
	CHECK(gl_prompt_synth(2, 99, 40, h2, 3, 8, &b) == 0);
	CHECK(count_words(a.data) == 40 && count_words(b.data) == 40);
	for (p = a.data, q = b.data; *p && *p == *q; p++, q++)
		;
	prefix = (size_t)(p - a.data);
	{
		/* The common prefix covers 16 words and stops in block three. */
		char tmp[4096];
		snprintf(tmp, sizeof(tmp), "%.*s", (int)prefix, a.data);
		CHECKF(count_words(tmp) >= 16 && count_words(tmp) < 24, "common words %d", count_words(tmp));
	}
	/* A prompt shorter than its blocks is a prefix of the longer one. */
	c.len = 0;
	CHECK(gl_prompt_synth(3, 3, 12, h1, 3, 8, &c) == 0);
	CHECK(count_words(c.data) == 12 && strncmp(a.data, c.data, c.len) == 0 && a.data[c.len] == ' ');
	/* Appends, with no separator of its own. */
	b.len = 0;
	gl_buf_append(&b, "X:", 2);
	CHECK(gl_prompt_synth(3, 3, 12, h1, 3, 8, &b) == 0);
	CHECK(strncmp(b.data, "X:", 2) == 0 && strcmp(b.data + 2, c.data) == 0);
	/* Pinned output: runs must be reproducible across builds. */
	c.len = 0;
	CHECK(gl_prompt_synth(42, 0, 6, NULL, 0, 0, &c) == 0);
	printf("synth(42, 0, 6) = \"%s\"\n", c.data);
	CHECKF(strcmp(c.data, SYNTH_GOLDEN) == 0, "got \"%s\"", c.data);

	CHECK(gl_prompt_synth(1, 1, 10, h1, 3, 0, &c) == -GL_EINVAL);
	c.len = 0;
	CHECK(gl_prompt_synth(1, 1, 0, NULL, 0, 0, &c) == 0 && c.len == 0 && c.data && c.data[0] == '\0');
	{
		struct gl_buf small;
		gl_buf_init(&small, 20);
		gl_buf_append(&small, "keep", 4);
		CHECK(gl_prompt_synth(1, 1, 100, NULL, 0, 0, &small) == -GL_ELIMIT);
		CHECK(small.len == 4 && strcmp(small.data, "keep") == 0);
		gl_buf_free(&small);
	}
	gl_buf_free(&a);
	gl_buf_free(&b);
	gl_buf_free(&c);
}

int main(void)
{
	const char *s = getenv("GL_SOURCE_DIR");
	const char *tmp = getenv("TMPDIR");

	snprintf(src_dir, sizeof(src_dir), "%s", s && *s ? s : ".");
	snprintf(tmp_dir, sizeof(tmp_dir), "%s/gl_test_trace.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		return 1;
	}
	gl_log_init(GL_LOG_WARN);
	test_azure();
	test_azure_bad();
	test_burstgpt();
	test_mooncake();
	test_prompts();
	test_oversized();
	test_rewind_and_mem();
	test_open_errors();
	test_synth();
	{
		char cmd[4200];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmp_dir);
	}
	return check_done();
}
