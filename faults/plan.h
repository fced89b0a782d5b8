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
int gl_plan_host(struct gl_ctx *c, const cJSON *plan, const char *kind, struct gl_host *out, struct gl_err *err);

/* plugin.h's touches for a kind that acts on its target host alone: the
 * target's index in s->hosts, -1 when it names none. */
int gl_fault_touches_target(const struct gl_scenario *s, const struct gl_fault_spec *f);

/* Append argv to b as one copy-pasteable shell line (plain words as they
 * are, anything else single-quoted), for --dry-run descriptions. */
void gl_buf_append_argv(struct gl_buf *b, const char *const *argv);
/* argv as one POSIX sh line (no bash $'...'): plain words as they are,
 * others single-quoted. Returns 0, or -1 when a word holds a control
 * character (watcher scripts take none). */
int gl_buf_append_sh(struct gl_buf *b, const char *const *argv);
/* The argv array plan[key] as one such line and a newline (deadman
 * scripts). Returns 0, or -1 when plan[key] is missing, is not a list of
 * 1-63 strings, or a word holds a control character. */
int gl_plan_argv_sh(const cJSON *plan, const char *key, struct gl_buf *b);
/* Dead-man's switch hooks (plugin.h's deadman): argv as one watcher-script
 * command and a newline, quoted as gl_buf_append_sh does, except a word
 * equal to sh_script (the kind's own `sh -c` script, built by gauntlet
 * from validated values; NULL: none), which goes in single quotes as it
 * is, newlines and tabs included: a single-quoted string may span lines
 * in POSIX sh, and the step's revert runs that exact text. Returns 0, or
 * -1 with nothing appended when another word holds a control character,
 * a line of the text would be exactly GL_WATCHER_EOF (it would end the
 * watcher's here-document) or b refused the text. */
int gl_deadman_argv_sh(struct gl_buf *b, const char *const *argv, const char *sh_script);
/* The deadman hook of a kind whose revert step runs the argv plan[key] on
 * the plan's host: *h from the plan (gl_plan_host), that argv into script
 * (gl_deadman_argv_sh). kind names the kind in errors. Returns 0, or a
 * negative code with err set (no host, plan[key] missing or not a list of
 * 1-63 strings, a word the watcher cannot take). */
int gl_deadman_from_argv(struct gl_ctx *c, const cJSON *plan, const char *kind, const char *key, const char *sh_script,
			 struct gl_host *h, struct gl_buf *script, struct gl_err *err);
/* One word, quoted the same way (for values inside a description). */
void gl_buf_append_word(struct gl_buf *b, const char *word);
/* A --dry-run step line: "  LABEL: [ip netns exec NS ]ARGV\n", NS the
 * host's netns when it has one. */
void gl_buf_describe_step(struct gl_buf *b, const struct gl_host *h, const char *label, const char *const *argv);

#endif
