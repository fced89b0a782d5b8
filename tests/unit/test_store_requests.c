/*
 * test_store_requests.c - the store's request rows (store.h): every row
 * put is in the requests table after the commit, field by field, in the
 * order put, under seqs 1, 2, 3, ... whether the store held it to insert
 * several at once (a class kept without a limit), inserted it at once (an
 * error class too long to hold), or the batch was committed part-way;
 * and the same under a sampling policy whose limits keep every row.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "store.h"

#define N_ROWS 45

static const char *const classes[] = { "", "http_5xx", "", "timeout_ttft", "" };
/* inserted at once: rows 21 and 43, each after more than a batch held */
static const char long_class[] = "a_class_name_longer_than_the_store_holds_for_a_row";

static struct gl_request_row row_of(int i)
{
	struct gl_request_row r;

	memset(&r, 0, sizeof(r));
	r.window = i / 10;
	r.endpoint = i % 3;
	r.t_intended = 1000 * i;
	r.t_send = 1000 * i + 1;
	r.t_headers = i % 4 ? 1000 * i + 2 : -1; /* -1: NULL in the store */
	r.t_first_event = 1000 * i + 3;
	r.t_first_token = i % 5 ? 1000 * i + 4 : -1;
	r.t_last_token = 1000 * i + 5;
	r.t_end = 1000 * i + 6;
	r.input_tokens = 16 + i;
	r.output_tokens = 2 * i;
	r.tokens_estimated = i % 2;
	r.http_status = i % 6 == 1 ? 500 : 200;
	r.error_class = i % 22 == 21 ? long_class : classes[i % (int)GL_ARRAY_LEN(classes)];
	r.max_stall_ns = 7 * i;
	return r;
}

static int64_t col_or(sqlite3_stmt *q, int c, int64_t null_as)
{
	return sqlite3_column_type(q, c) == SQLITE_NULL ? null_as : sqlite3_column_int64(q, c);
}

/* The table against row_of(0 .. N_ROWS-1), in seq order. */
static void check_table(const char *path, const char *what)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q;
	int k = 0, bad = 0;

	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db,
				 "SELECT seq,window,endpoint,t_intended_ns,t_send_ns,t_headers_ns,t_first_event_ns,"
				 "t_first_token_ns,t_last_token_ns,t_end_ns,input_tokens,output_tokens,"
				 "tokens_estimated,http_status,error_class,max_stall_ns FROM requests ORDER BY seq",
				 -1, &q, NULL) == SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct gl_request_row r = row_of(k);
		const char *ec = (const char *)sqlite3_column_text(q, 14);
		int64_t want[] = { k + 1,          r.window,        r.endpoint,         r.t_intended,   r.t_send,
				   r.t_headers,    r.t_first_event, r.t_first_token,    r.t_last_token, r.t_end,
				   r.input_tokens, r.output_tokens, r.tokens_estimated, r.http_status };
		for (int c = 0; c < (int)GL_ARRAY_LEN(want); c++)
			if (col_or(q, c, -1) != want[c] && bad++ < 5)
				CHECKF(0, "%s: row %d column %d: %" PRId64 ", want %" PRId64, what, k, c,
				       col_or(q, c, -1), want[c]);
		if (strcmp(ec ? ec : "", r.error_class) != 0 || col_or(q, 15, -1) != r.max_stall_ns) {
			if (bad++ < 5)
				CHECKF(0, "%s: row %d: class '%s' stall %" PRId64 ", want '%s' %" PRId64, what, k,
				       ec ? ec : "", col_or(q, 15, -1), r.error_class, r.max_stall_ns);
		}
		k++;
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	CHECKF(k == N_ROWS, "%s: %d rows in the table, want %d", what, k, N_ROWS);
	CHECKF(!bad, "%s: %d values differ", what, bad);
}

/* N_ROWS rows under the policy, committed after `cut` of them and at the end. */
static void put_rows(const char *path, const char *policy, int cut)
{
	struct gl_err err = { 0 };
	struct gl_store *st = gl_store_open(path, 1, &err);

	CHECKF(st != NULL, "open: %s", err.msg);
	if (!st)
		return;
	CHECK(gl_store_request_policy(st, policy, 1000, 1000) == 0);
	for (int i = 0; i < N_ROWS; i++) {
		struct gl_request_row r = row_of(i);
		CHECK(gl_store_request_put(st, &r) == 0);
		if (i + 1 == cut)
			CHECK(gl_store_flush(st, &err) == 0);
	}
	CHECK(gl_store_flush(st, &err) == 0);
	gl_store_close(st);
}

int main(void)
{
	char dir[] = "/tmp/gl-test-store-requests-XXXXXX", path[200];
	static const struct {
		const char *policy;
		int cut;
	} runs[] = { { "all", 0 }, { "all", 21 }, { "all", 32 }, { "sample", 0 }, { "sample", 17 } };

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return check_done();
	}
	for (size_t i = 0; i < GL_ARRAY_LEN(runs); i++) {
		char what[64];
		snprintf(path, sizeof(path), "%s/run%zu.db", dir, i);
		snprintf(what, sizeof(what), "%s, committed after %d", runs[i].policy, runs[i].cut);
		put_rows(path, runs[i].policy, runs[i].cut);
		check_table(path, what);
		unlink(path);
	}
	rmdir(dir);
	return check_done();
}
