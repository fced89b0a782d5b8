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

int gl_plan_host(struct gl_ctx *c, const cJSON *plan, const char *kind, struct gl_host *out, struct gl_err *err)
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
			return 0; /* describe: the name is all it prints */
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

void gl_buf_describe_step(struct gl_buf *b, const struct gl_host *h, const char *label, const char *const *argv)
{
	gl_buf_printf(b, "  %s: ", label);
	if (h->netns[0])
		gl_buf_printf(b, "ip netns exec %s ", h->netns);
	gl_buf_append_argv(b, argv);
	gl_buf_printf(b, "\n");
}

int gl_buf_append_sh(struct gl_buf *b, const char *const *argv)
{
	for (int i = 0; argv[i]; i++)
		for (const char *q = argv[i]; *q; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				return -1;
	gl_buf_append_argv(b, argv); /* without control characters: plain or '...' */
	return 0;
}

int gl_plan_argv_sh(const cJSON *plan, const char *key, struct gl_buf *b)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(plan, key), *it;
	const char *argv[64];
	int n = 0;

	if (!cJSON_IsArray(a))
		return -1;
	cJSON_ArrayForEach(it, a)
	{
		if (n >= 63 || !cJSON_IsString(it))
			return -1;
		argv[n++] = it->valuestring;
	}
	argv[n] = NULL;
	if (!n || gl_buf_append_sh(b, argv) != 0)
		return -1;
	gl_buf_printf(b, "\n");
	return 0;
}

/* 1 when the text from b->data + from on holds a line that is exactly
 * GL_WATCHER_EOF. */
static int has_eof_line(const struct gl_buf *b, size_t from)
{
	size_t k = strlen(GL_WATCHER_EOF);
	const char *q = b->data ? b->data + from : "";

	for (;;) {
		size_t len = strcspn(q, "\n");
		if (len == k && !strncmp(q, GL_WATCHER_EOF, k))
			return 1;
		if (!q[len])
			return 0;
		q += len + 1;
	}
}

int gl_deadman_argv_sh(struct gl_buf *b, const char *const *argv, const char *sh_script)
{
	size_t start = b->len;
	int cut = b->cut, bad = !argv || !argv[0];

	for (int i = 0; !bad && argv[i]; i++) {
		const char *one[] = { argv[i], NULL };
		gl_buf_printf(b, "%s", i ? " " : "");
		if (!sh_script || strcmp(argv[i], sh_script)) {
			bad = gl_buf_append_sh(b, one) != 0;
			continue;
		}
		/* the kind's own script: '...' with each ' as '\'' */
		gl_buf_printf(b, "'");
		for (const char *q = argv[i]; *q; q++)
			gl_buf_printf(b, *q == '\'' ? "'\\''" : "%c", *q);
		gl_buf_printf(b, "'");
	}
	gl_buf_printf(b, "\n");
	if (bad || b->cut || has_eof_line(b, start)) {
		/* none of it: a half command must not reach the watcher */
		b->len = start;
		if (b->data)
			b->data[start] = '\0';
		b->cut = cut;
		return -1;
	}
	return 0;
}

int gl_deadman_from_argv(struct gl_ctx *c, const cJSON *plan, const char *kind, const char *key, const char *sh_script,
			 struct gl_host *h, struct gl_buf *script, struct gl_err *err)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(plan, key), *it;
	const char *argv[64];
	int n = 0, rc;

	if ((rc = gl_plan_host(c, plan, kind, h, err)) != 0)
		return rc;
	if (!cJSON_IsArray(a))
		return gl_errf(err, GL_EINVAL, "%s: the plan has no %s command", kind, key);
	cJSON_ArrayForEach(it, a)
	{
		if (n >= 63 || !cJSON_IsString(it))
			return gl_errf(err, GL_EINVAL, "%s: bad %s command in the plan", kind, key);
		argv[n++] = it->valuestring;
	}
	argv[n] = NULL;
	if (gl_deadman_argv_sh(script, argv, sh_script) != 0)
		return gl_errf(err, GL_EINVAL,
			       "%s: the plan's %s command cannot go into a watcher script "
			       "(empty, a control character in a word, or a line '%s')",
			       kind, key, GL_WATCHER_EOF);
	return 0;
}

int gl_fault_touches_target(const struct gl_scenario *s, const struct gl_fault_spec *f)
{
	const struct gl_host *h = f->target[0] ? gl_scenario_host(s, f->target) : NULL;

	return h ? (int)(h - s->hosts) : -1;
}
