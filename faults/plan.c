/*
 * plan.c - the host part of fault plans, shared by every fault kind.
 */
#include "plan.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void gl_plan_put_host(cJSON *plan, const struct gl_host *h)
{
	cJSON_AddStringToObject(plan, "host", h->name);
	cJSON_AddStringToObject(plan, "transport", h->local ? "local" : "ssh");
	cJSON_AddBoolToObject(plan, "local", h->local);
	cJSON_AddStringToObject(plan, "netns", h->netns);
}

int gl_plan_host(struct gl_ctx *c, const cJSON *plan, const char *kind, struct gl_host *out,
		 struct gl_err *err)
{
	const cJSON *jn = cJSON_GetObjectItemCaseSensitive(plan, "host");
	const cJSON *jns = cJSON_GetObjectItemCaseSensitive(plan, "netns");
	const cJSON *jl = cJSON_GetObjectItemCaseSensitive(plan, "local");
	const cJSON *jt = cJSON_GetObjectItemCaseSensitive(plan, "transport");
	const char *name = cJSON_IsString(jn) ? jn->valuestring : NULL;
	const struct gl_scenario *s = c ? gl_ctx_scenario(c) : NULL;
	const struct gl_host *h = s && name ? gl_scenario_host(s, name) : NULL;
	int local = cJSON_IsTrue(jl) || (cJSON_IsString(jt) && !strcmp(jt->valuestring, "local"));

	memset(out, 0, sizeof(*out));
	if (!name)
		return gl_errf(err, GL_EINVAL, "%s: the plan names no host", kind);
	if (h) {
		*out = *h;
		return 0;
	}
	snprintf(out->name, sizeof(out->name), "%s", name);
	if (!local) {
		if (!c)
			return 0;   /* describe: the name is all it prints */
		return gl_errf(err, GL_EINVAL, "%s: the plan's host '%s' is not in the scenario", kind, name);
	}
	out->local = 1;
	if (cJSON_IsString(jns) && jns->valuestring[0]) {
		if (!gl_word_ok(jns->valuestring, "_.-", GL_NAME_MAX - 1))
			return gl_errf(err, GL_EINVAL, "%s: bad netns name in the plan", kind);
		snprintf(out->netns, sizeof(out->netns), "%s", jns->valuestring);
	}
	return 0;
}

void gl_buf_append_argv(struct gl_buf *b, const char *const *argv)
{
	for (int i = 0; argv[i]; i++) {
		const char *a = argv[i];
		int plain = a[0] != '\0', ctl = 0;
		for (const char *q = a; *q; q++) {
			if (!isalnum((unsigned char)*q) && !strchr("_.:/@%+=,-", *q))
				plain = 0;
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				ctl = 1;
		}
		gl_buf_printf(b, "%s", i ? " " : "");
		if (plain) {
			gl_buf_printf(b, "%s", a);
			continue;
		}
		if (ctl) {
			/* bash's $'...': a newline, CR or escape sequence is shown
			 * as \xHH, never sent raw to the terminal, and the shell
			 * takes the line back as the same bytes */
			gl_buf_printf(b, "$'");
			for (const char *q = a; *q; q++) {
				unsigned char u = (unsigned char)*q;
				if (u == '\'' || u == '\\')
					gl_buf_printf(b, "\\%c", u);
				else if (u < 0x20 || u == 0x7f)
					gl_buf_printf(b, "\\x%02x", u);
				else
					gl_buf_printf(b, "%c", u);
			}
			gl_buf_printf(b, "'");
			continue;
		}
		gl_buf_printf(b, "'");
		for (const char *q = a; *q; q++)
			gl_buf_printf(b, *q == '\'' ? "'\\''" : "%c", *q);
		gl_buf_printf(b, "'");
	}
}

void gl_buf_append_word(struct gl_buf *b, const char *word)
{
	const char *one[] = { word ? word : "", NULL };
	gl_buf_append_argv(b, one);
}
