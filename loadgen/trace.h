/*
 * trace.h - streamed readers for the request traces that inference load is
 * replayed from, and the deterministic prompt synthesizer that turns a row's
 * token counts (and prefix block ids) into prompt text.
 *
 * Formats (columns found by header name, in any order, extra columns ignored):
 *  - GL_TRACE_AZURE: Azure LLM inference traces 2023 and 2024, CSV with
 *    TIMESTAMP,ContextTokens,GeneratedTokens; TIMESTAMP is
 *    "YYYY-MM-DD HH:MM:SS[.fraction][Z|+HH:MM|-HH:MM]" (also 'T' between date
 *    and time); the fraction may have any number of digits (nanoseconds kept).
 *  - GL_TRACE_BURSTGPT: CSV with Timestamp (seconds, float), "Request tokens",
 *    "Response tokens"; a row with 0 response tokens was a failed request in
 *    the original trace and comes back with failed_in_trace set.
 *  - GL_TRACE_MOONCAKE: JSONL with timestamp (milliseconds), input_length,
 *    output_length and hash_ids (prefix block ids, at most
 *    GL_TRACE_MAX_HASH_IDS per row).
 *  - GL_TRACE_PROMPTS: JSONL with prompt (string) or messages (chat array),
 *    optional timestamp (seconds) and max_tokens / output_tokens.
 * GL_TRACE_AUTO picks the format from the first non-blank line.
 *
 * Files are read line by line through a fixed buffer, never whole; a line is
 * at most GL_TRACE_MAX_LINE bytes. CSV fields may be quoted ("" escapes a
 * quote) but may not span lines; lines end in LF or CRLF.
 *
 * Bad rows are skipped and counted, never fatal: a bad or negative number, a
 * missing column, a bad timestamp, an oversized line, bad JSON or bad UTF-8
 * in a JSONL line, too many hash ids, or a timestamp more than the tolerance
 * (default 1 s) earlier than the previous good row. The first
 * GL_TRACE_LOG_MALFORMED of them are logged with gl_warn as
 * "trace PATH:ROW: what". A timestamp that goes back by no more than the
 * tolerance is kept, its offset clamped to the previous row's (flagged
 * time_clamped, counted), so offsets never decrease. Blank lines are skipped
 * silently.
 *
 * Threads: a struct gl_trace is used by one thread at a time. The prompt
 * synthesizer is pure and thread-safe.
 */
#ifndef GL_TRACE_H
#define GL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define GL_TRACE_MAX_LINE (1024u * 1024u) /* bytes, without the line end */
#define GL_TRACE_MAX_HASH_IDS 4096
#define GL_TRACE_MAX_TOKENS 1000000000LL /* larger token counts are malformed */
#define GL_TRACE_LOG_MALFORMED 10

enum gl_trace_format {
	GL_TRACE_AUTO = 0,
	GL_TRACE_AZURE,
	GL_TRACE_BURSTGPT,
	GL_TRACE_MOONCAKE,
	GL_TRACE_PROMPTS,
};

/* "auto", "azure", "burstgpt", "mooncake", "prompts". Static strings. */
const char *gl_trace_format_name(enum gl_trace_format f);
/* The inverse; returns -1 for an unknown name. */
int gl_trace_format_parse(const char *name);

/* One request of the trace. Pointers are borrowed from the reader and valid
 * until the next gl_trace_next / gl_trace_rewind / gl_trace_close. */
struct gl_trace_row {
	uint64_t row_number; /* 1-based line number in the file */
	bool has_time; /* false: a prompts row without timestamp */
	bool time_clamped; /* went back (within tolerance); offset clamped */
	double t_offset_s; /* seconds since the first good row (0 when !has_time);
				  * never less than the previous row's */
	int64_t input_tokens; /* -1 when unknown */
	bool input_estimated; /* prompts: input_tokens counts whitespace-separated words */
	int64_t output_tokens; /* -1 when unknown (prompts without max_tokens) */
	bool failed_in_trace; /* BurstGPT: 0 response tokens in the original */
	const char *prompt; /* prompts: the prompt, or the messages' text parts
				  * joined with '\n'; NULL in other formats */
	size_t prompt_len;
	const char *messages_json; /* prompts with messages: the array as compact
				      * JSON, ready to send; else NULL */
	const int64_t *hash_ids; /* mooncake: prefix block ids; else NULL */
	size_t n_hash_ids;
};

struct gl_trace_stats {
	uint64_t rows; /* good rows returned by gl_trace_next, all passes */
	uint64_t malformed; /* distinct bad rows skipped (counted once across rewinds) */
	uint64_t clamped; /* distinct rows whose offset was clamped */
	uint64_t failed_in_trace; /* good rows with failed_in_trace, all passes */
	uint64_t passes; /* completed passes (EOF reached) */
	double span_s; /* offset of the last good row of a full pass, -1 before */
};

struct gl_trace;

/* Open a trace file. fmt GL_TRACE_AUTO detects the format; with a forced
 * format a CSV file must still have its header line. Returns NULL and fills
 * err when the file cannot be opened, the format cannot be detected, or a
 * needed CSV column is missing from the header. Free with gl_trace_close. */
struct gl_trace *gl_trace_open(const char *path, enum gl_trace_format fmt, struct gl_err *err);

/* The same over a memory buffer, borrowed until gl_trace_close. name is used
 * in messages (copied). */
struct gl_trace *gl_trace_open_mem(const void *data, size_t len, const char *name, enum gl_trace_format fmt,
				   struct gl_err *err);

/* The next good row. Returns 1 with *row filled, 0 at end of file, or a
 * negative code (a read error, out of memory; gl_trace_error says which).
 * Bad rows are skipped inside (see above). */
int gl_trace_next(struct gl_trace *t, struct gl_trace_row *row);

/* Back to the first row for another pass. Offsets of the next pass are again
 * measured from the file's first good row (shifting each pass in time is the
 * caller's job: add stats.span_s plus a gap). Returns 0, or -GL_EIO when the
 * file cannot be read again (for example a pipe). */
int gl_trace_rewind(struct gl_trace *t);

/* Read a full pass from the current position to the end and rewind, so that
 * span_s is known before replay starts. Returns 0 or a negative code. */
int gl_trace_measure(struct gl_trace *t);

/* The first fatal error of gl_trace_next / rewind / measure, naming the
 * file; "" when none. Borrowed, valid until gl_trace_close. */
const char *gl_trace_error(const struct gl_trace *t);

/* The format in use (never GL_TRACE_AUTO after a successful open). */
enum gl_trace_format gl_trace_format(const struct gl_trace *t);
uint64_t gl_trace_malformed_count(const struct gl_trace *t);
/* span_s after a full pass, else -1. */
double gl_trace_span_s(const struct gl_trace *t);
void gl_trace_get_stats(const struct gl_trace *t, struct gl_trace_stats *out);

/* How far (seconds, >= 0) a timestamp may go back before the row is
 * malformed; default 1.0. */
void gl_trace_set_backstep_tolerance(struct gl_trace *t, double seconds);

/* gl_trace_close(NULL) is fine. */
void gl_trace_close(struct gl_trace *t);

/* Deterministic prompt text: append n_tokens words separated by single
 * spaces to out (set out->len = 0 first to reuse a buffer). The words come
 * from a small vocabulary of common lowercase English words; the lab's target
 * server counts one word as one token, while real tokenizers give roughly,
 * not exactly, one token per word, so the count is approximate there.
 *
 * Without hash ids, the words depend only on (seed, request_index). With
 * n_hash ids, word block b (words b*block_tokens up to (b+1)*block_tokens)
 * is derived from hash_ids[b] alone, so requests that share leading hash ids
 * share exactly the same prefix text; words beyond n_hash * block_tokens
 * depend on (seed, request_index) again, and a prompt shorter than the
 * blocks simply stops early. Returns 0, -GL_EINVAL (hash ids with
 * block_tokens 0), or -GL_ELIMIT / -GL_ENOMEM with out unchanged. */
int gl_prompt_synth(uint64_t seed, uint64_t request_index, unsigned n_tokens, const int64_t *hash_ids, size_t n_hash,
		    size_t block_tokens, struct gl_buf *out);

#endif
