/*
 * states.h - the states a fault goes through, a run's verdict, and the
 * exit codes the commands report them with.
 *
 * The store keeps a fault's state and the verdict as text (the names
 * below; docs/architecture.md, "Fault states"); in memory they are these
 * enums. Converting is here only: gl_fault_state_name and
 * gl_fault_state_parse, gl_verdict_name.
 */
#ifndef GL_STATES_H
#define GL_STATES_H

/* A fault in the journal (executor.c moves it on; resume and revert take
 * it from where the store says). */
enum gl_fault_state {
	GL_FAULT_PLANNED, /* "planned": not started (or planned again by resume) */
	GL_FAULT_INJECTING, /* "injecting": its inject runs */
	GL_FAULT_INJECTED, /* "injected": in */
	GL_FAULT_REVERTING, /* "reverting": its revert runs */
	GL_FAULT_REVERTED, /* "reverted": out again */
	GL_FAULT_REVERT_FAILED, /* "revert_failed": a revert (or the clean-up of a failed inject) failed */
	GL_FAULT_FAILED, /* "failed": refused, or its inject failed and was cleaned up */
	GL_FAULT_STATE_N
};

/* "planned", "injecting", ...: the text the store keeps. */
const char *gl_fault_state_name(enum gl_fault_state s);
/* The state named s, or -1 when s names none (NULL too). */
int gl_fault_state_parse(const char *s);
/* Live: the fault is, or may be, in on the cluster, and a revert is owed
 * or running (injecting, injected, reverting, revert_failed). */
int gl_fault_state_live(enum gl_fault_state s);
/* Finished: nothing of it is in and nothing is owed; no step will run for
 * it again (reverted, failed). A fault is planned, live or finished. */
int gl_fault_state_finished(enum gl_fault_state s);

/* A run's verdict (analysis.c decides it; a run not finished is fail). */
enum gl_verdict { GL_VERDICT_PASS, GL_VERDICT_FAIL, GL_VERDICT_ABORTED, GL_VERDICT_N };

/* "pass", "fail", "aborted": the text report.json and the store carry. */
const char *gl_verdict_name(enum gl_verdict v);

/* Process exit codes (docs/architecture.md, "Exit codes"; README.md). */
enum gl_exit {
	GL_EXIT_OK = 0, /* pass; the command did what was asked */
	GL_EXIT_FAIL = 1, /* fail: the verdict, or what the command checks (a fault left in, ...) */
	GL_EXIT_BAD_INPUT = 2, /* bad arguments, an invalid scenario, no run.db, a run not to resume */
	GL_EXIT_ABORTED = 3, /* aborted: SIGINT, SIGTERM, abort_if */
	GL_EXIT_HARNESS_ERROR = 4, /* gauntlet itself failed: store, analysis, reports, a lock, a plug-in */
};

/* The exit code `run` and `resume` end with for a verdict reached: pass 0,
 * fail 1, aborted 3 (a harness error is 4 whatever the verdict). */
enum gl_exit gl_verdict_exit(enum gl_verdict v);

#endif
