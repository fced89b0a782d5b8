/*
 * states.c - fault states and verdicts by name, and a verdict's exit code
 * (states.h).
 */
#include "states.h"

#include <assert.h>
#include <string.h>

static const char *const fault_state_names[GL_FAULT_STATE_N] = {
	[GL_FAULT_PLANNED] = "planned",   [GL_FAULT_INJECTING] = "injecting",
	[GL_FAULT_INJECTED] = "injected", [GL_FAULT_REVERTING] = "reverting",
	[GL_FAULT_REVERTED] = "reverted", [GL_FAULT_REVERT_FAILED] = "revert_failed",
	[GL_FAULT_FAILED] = "failed",
};

const char *gl_fault_state_name(enum gl_fault_state s)
{
	assert((unsigned)s < GL_FAULT_STATE_N);
	return fault_state_names[s];
}

int gl_fault_state_parse(const char *s)
{
	for (int i = 0; s && i < GL_FAULT_STATE_N; i++)
		if (!strcmp(s, fault_state_names[i]))
			return i;
	return -1;
}

int gl_fault_state_live(enum gl_fault_state s)
{
	assert((unsigned)s < GL_FAULT_STATE_N);
	return s == GL_FAULT_INJECTING || s == GL_FAULT_INJECTED || s == GL_FAULT_REVERTING ||
	       s == GL_FAULT_REVERT_FAILED;
}

int gl_fault_state_finished(enum gl_fault_state s)
{
	assert((unsigned)s < GL_FAULT_STATE_N);
	return s == GL_FAULT_REVERTED || s == GL_FAULT_FAILED;
}

const char *gl_verdict_name(enum gl_verdict v)
{
	static const char *const names[GL_VERDICT_N] = {
		[GL_VERDICT_PASS] = "pass",
		[GL_VERDICT_FAIL] = "fail",
		[GL_VERDICT_ABORTED] = "aborted",
	};
	assert((unsigned)v < GL_VERDICT_N);
	return names[v];
}

enum gl_exit gl_verdict_exit(enum gl_verdict v)
{
	switch (v) {
	case GL_VERDICT_PASS: return GL_EXIT_OK;
	case GL_VERDICT_ABORTED: return GL_EXIT_ABORTED;
	case GL_VERDICT_FAIL: return GL_EXIT_FAIL;
	default: break;
	}
	assert(!"a verdict out of range");
	return GL_EXIT_FAIL;
}
