/*
 * plan.h - what every fault kind's plan says about its host, in one place.
 * A plan records the target host ("host", "transport", "local", "netns")
 * when it is made; the steps look the host up again in the scenario (which
 * resume and revert reload from the store, ssh settings included), and fall
 * back to the recorded local host and netns when the scenario no longer has
 * it or there is no context (describe). Also the shell-quoting of argv
 * lists that --dry-run prints.
 */
#ifndef GL_FAULT_PLAN_H
#define GL_FAULT_PLAN_H

#include <cjson/cJSON.h>

#include "plugin.h"

void gl_plan_put_host(cJSON *plan, const struct gl_host *h);

/* kind names the fault kind in error messages. Returns 0 or a negative
 * code with err set. c may be NULL (describe): then a remote host comes
 * back with its name only. */
int gl_plan_host(struct gl_ctx *c, const cJSON *plan, const char *kind, struct gl_host *out,
		 struct gl_err *err);

/* Append argv to b as one copy-pasteable shell line (plain words as they
 * are, anything else single-quoted), for --dry-run descriptions. */
void gl_buf_append_argv(struct gl_buf *b, const char *const *argv);
/* One word, quoted the same way (for values inside a description). */
void gl_buf_append_word(struct gl_buf *b, const char *word);

#endif
