/*
 * test_opts_docs.c - docs/scenario.md's key tables name the keys the
 * workloads' option tables (loadgen/<name>_schema.c) take, no more and no
 * fewer: workloads.null, .inference (and its arrival), .training and
 * .storage. "agents" is left out: docs/scenario.md states it once for
 * inference and storage, above their tables (docs/agents.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "inference_schema.h"
#include "null_schema.h"
#include "opts.h"
#include "storage_schema.h"
#include "training_schema.h"
#include "util.h"

#define KEYS_MAX 64

struct keys {
	char k[KEYS_MAX][64];
	int n;
};

static char *doc;

/* The first cell's `key`s of the table under heading (and under the line
 * sub, when given), in out; 0, or -1 when there is no such table. */
static int doc_keys(const char *heading, const char *sub, struct keys *out)
{
	char *p = strstr(doc, heading), *line, *end;

	out->n = 0;
	if (!p)
		return -1;
	if (sub && !(p = strstr(p, sub)))
		return -1;
	if (!(p = strstr(p, "\n| key |")))
		return -1;
	p = strchr(p + 1, '\n'); /* the header */
	p = p ? strchr(p + 1, '\n') : NULL; /* the |---| line */
	for (line = p ? p + 1 : NULL; line && *line == '|'; line = end ? end + 1 : NULL) {
		char *cell_end = strchr(line + 1, '|'), *q = line + 1;
		end = strchr(line, '\n');
		while (cell_end && (q = memchr(q, '`', (size_t)(cell_end - q)))) {
			char *close = memchr(q + 1, '`', (size_t)(cell_end - q - 1));
			if (!close || out->n == KEYS_MAX)
				break;
			snprintf(out->k[out->n++], sizeof(out->k[0]), "%.*s", (int)(close - q - 1), q + 1);
			q = close + 1;
		}
	}
	return 0;
}

static int has_key(const struct keys *k, const char *key)
{
	for (int i = 0; i < k->n; i++)
		if (!strcmp(k->k[i], key))
			return 1;
	return 0;
}

/* the table's keys (and extra) against the docs' */
static void compare(const char *what, const char *heading, const char *sub, const struct gl_opt *t, size_t n,
		    const char *const *extra)
{
	struct keys d, want = { .n = 0 };

	CHECKF(doc_keys(heading, sub, &d) == 0 && d.n > 0, "%s: no key table under %s in docs/scenario.md", what,
	       heading);
	for (size_t i = 0; i < n && want.n < KEYS_MAX; i++)
		if (strcmp(t[i].key, "agents"))
			snprintf(want.k[want.n++], sizeof(want.k[0]), "%s", t[i].key);
	for (int i = 0; extra && extra[i] && want.n < KEYS_MAX; i++)
		snprintf(want.k[want.n++], sizeof(want.k[0]), "%s", extra[i]);
	for (int i = 0; i < want.n; i++)
		CHECKF(has_key(&d, want.k[i]), "%s: key '%s' of the option table is not in docs/scenario.md", what,
		       want.k[i]);
	for (int i = 0; i < d.n; i++)
		CHECKF(has_key(&want, d.k[i]), "%s: docs/scenario.md names '%s', which the option table does not", what,
		       d.k[i]);
}

int main(void)
{
	static const char *const image[] = { "image", "image_source", NULL };
	const char *src = getenv("GL_SOURCE_DIR");
	char path[4096];
	struct gl_err err = { 0 };
	const struct gl_opt *t;
	size_t len, n;

	snprintf(path, sizeof(path), "%s/docs/scenario.md", src ? src : ".");
	if (gl_read_file(path, 1 << 22, &doc, &len, &err) != 0) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		return 1;
	}
	t = gl_null_options(&n);
	compare("null", "#### `workloads.null`", NULL, t, n, NULL);
	t = gl_inference_options(&n);
	compare("inference", "#### `workloads.inference`", NULL, t, n, image);
	t = gl_inference_arrival_options(&n);
	compare("inference.arrival", "#### `workloads.inference`", "\n`arrival`:", t, n, NULL);
	t = gl_training_options(&n);
	compare("training", "#### `workloads.training`", NULL, t, n, image);
	t = gl_storage_options(&n);
	compare("storage", "#### `workloads.storage`", NULL, t, n, NULL);
	free(doc);
	return check_done();
}
