/*
 * test_states.c - states.h: every fault state by name and back, the names
 * the store has always kept, exactly which states are live and which
 * finished (each state is planned, live or finished, one of them), the
 * journal keeping each state as its name through the store and refusing
 * a name it does not know; the verdicts' names and their exit codes
 * against docs/architecture.md's table.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check.h"
#include "states.h"
#include "store.h"

static const struct {
	enum gl_fault_state s;
	const char *name;
	int live, finished;
} states[] = {
	{ GL_FAULT_PLANNED, "planned", 0, 0 },   { GL_FAULT_INJECTING, "injecting", 1, 0 },
	{ GL_FAULT_INJECTED, "injected", 1, 0 }, { GL_FAULT_REVERTING, "reverting", 1, 0 },
	{ GL_FAULT_REVERTED, "reverted", 0, 1 }, { GL_FAULT_REVERT_FAILED, "revert_failed", 1, 0 },
	{ GL_FAULT_FAILED, "failed", 0, 1 },
};

static void journal(const char *dir)
{
	char path[4200];
	struct gl_err err = { 0 };
	struct gl_store *st;
	struct gl_fault_row *rows = NULL;
	sqlite3 *db = NULL;
	sqlite3_stmt *q;
	int n = 0, k = 0;

	snprintf(path, sizeof(path), "%s/run.db", dir);
	st = gl_store_open(path, 1, &err);
	CHECKF(st != NULL, "%s", err.msg);
	if (!st)
		return;
	for (size_t i = 0; i < GL_ARRAY_LEN(states); i++) {
		struct gl_fault_row f = { 0 };
		snprintf(f.id, sizeof(f.id), "f%zu", i);
		snprintf(f.kind, sizeof(f.kind), "null");
		f.state = states[i].s;
		f.injected_elapsed_ns = f.reverted_elapsed_ns = f.injected_scn_ns = f.reverted_scn_ns = -1;
		CHECKF(gl_store_fault_put(st, &f, &err) == 0, "%s", err.msg);
	}
	/* the text in SQLite: the names, as before the enum (read on a
	 * connection of the test's own: the store lends none) */
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "SELECT id, state FROM faults ORDER BY seq", -1, &q, NULL) == SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW && k < (int)GL_ARRAY_LEN(states)) {
		const char *t = (const char *)sqlite3_column_text(q, 1);
		CHECKF(t && !strcmp(t, states[k].name), "row %d holds '%s', want '%s'", k, t ? t : "(null)",
		       states[k].name);
		k++;
	}
	sqlite3_finalize(q);
	CHECK(k == (int)GL_ARRAY_LEN(states));
	/* and back */
	CHECKF(gl_store_fault_list(st, &rows, &n, &err) == 0, "%s", err.msg);
	CHECK(n == (int)GL_ARRAY_LEN(states));
	for (int i = 0; i < n && i < (int)GL_ARRAY_LEN(states); i++)
		CHECKF(rows[i].state == states[i].s, "row %d read back as %d, want %d", i, (int)rows[i].state,
		       (int)states[i].s);
	gl_fault_rows_free(rows, n);
	/* a name no gauntlet writes: the journal is refused, naming it */
	CHECK(sqlite3_exec(db, "UPDATE faults SET state='inserted' WHERE id='f2'", NULL, NULL, NULL) == SQLITE_OK);
	gl_err_clear(&err);
	rows = NULL;
	CHECK(gl_store_fault_list(st, &rows, &n, &err) == -GL_EIO && rows == NULL && n == 0);
	CHECKF(strstr(err.msg, "'f2'") && strstr(err.msg, "'inserted'"), "message: %s", err.msg);
	gl_store_close(st);
	sqlite3_close(db);
	unlink(path);
}

int main(void)
{
	char dir[] = "/tmp/gl-test-states-XXXXXX";

	CHECK(GL_ARRAY_LEN(states) == GL_FAULT_STATE_N);
	for (size_t i = 0; i < GL_ARRAY_LEN(states); i++) {
		enum gl_fault_state s = states[i].s;
		CHECKF(!strcmp(gl_fault_state_name(s), states[i].name), "%d is '%s', want '%s'", (int)s,
		       gl_fault_state_name(s), states[i].name);
		CHECKF(gl_fault_state_parse(states[i].name) == (int)s, "'%s' parses as %d", states[i].name,
		       gl_fault_state_parse(states[i].name));
		CHECKF(gl_fault_state_live(s) == states[i].live, "'%s' live %d", states[i].name,
		       gl_fault_state_live(s));
		CHECKF(gl_fault_state_finished(s) == states[i].finished, "'%s' finished %d", states[i].name,
		       gl_fault_state_finished(s));
		CHECKF((s == GL_FAULT_PLANNED) + gl_fault_state_live(s) + gl_fault_state_finished(s) == 1,
		       "'%s' is not exactly one of planned, live, finished", states[i].name);
	}
	{
		static const char *const unknown[] = { "",       "Injected", "injected ", " planned", "revert-failed",
						       "inject", "finished", "running" };
		for (size_t i = 0; i < GL_ARRAY_LEN(unknown); i++)
			CHECKF(gl_fault_state_parse(unknown[i]) == -1, "'%s' parses", unknown[i]);
		CHECK(gl_fault_state_parse(NULL) == -1);
	}

	/* verdicts and exit codes (docs/architecture.md, "Exit codes") */
	CHECK(!strcmp(gl_verdict_name(GL_VERDICT_PASS), "pass"));
	CHECK(!strcmp(gl_verdict_name(GL_VERDICT_FAIL), "fail"));
	CHECK(!strcmp(gl_verdict_name(GL_VERDICT_ABORTED), "aborted"));
	CHECK(gl_verdict_exit(GL_VERDICT_PASS) == 0);
	CHECK(gl_verdict_exit(GL_VERDICT_FAIL) == 1);
	CHECK(gl_verdict_exit(GL_VERDICT_ABORTED) == 3);
	CHECK(GL_EXIT_OK == 0 && GL_EXIT_FAIL == 1 && GL_EXIT_BAD_INPUT == 2 && GL_EXIT_ABORTED == 3 &&
	      GL_EXIT_HARNESS_ERROR == 4);

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
	} else {
		journal(dir);
		rmdir(dir);
	}
	return check_done();
}
