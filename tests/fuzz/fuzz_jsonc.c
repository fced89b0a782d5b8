/*
 * fuzz_jsonc.c - feeds one input (any bytes, not NUL-terminated: the copy is
 * exactly size bytes so ASan catches over-reads) to gl_jsonc_parse. On
 * success every node of the tree must have a position, and the tree printed
 * by cJSON must parse back (with plain cJSON and with gl_jsonc) to an equal
 * tree; on failure the message must name the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonc.h"

static int same_print(const char *printed, const cJSON *n)
{
	char *p = cJSON_PrintUnformatted(n);
	int same = p && strcmp(p, printed) == 0;

	free(p);
	return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond)
{
	if (!cond)
		abort();
}

static void check_positions(const struct gl_jsonc_doc *doc, const cJSON *n)
{
	int line = 0, col = 0;

	must(gl_jsonc_where(doc, n, &line, &col) == 0 && line >= 1 && col >= 1);
	for (const cJSON *ch = n->child; ch; ch = ch->next)
		check_positions(doc, ch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	struct gl_err err = { 0 };
	struct gl_jsonc_doc *doc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	doc = gl_jsonc_parse(text, size, "fuzz.json", &err);
	free(text); /* the document must not refer to the text */
	if (!doc) {
		must(err.code != 0 && strncmp(err.msg, "fuzz.json", 9) == 0);
		return 0;
	}
	must(err.code == 0);
	check_positions(doc, gl_jsonc_root(doc));
	{
		char *printed = cJSON_PrintUnformatted(gl_jsonc_root(doc));
		if (printed) {
			cJSON *again = cJSON_Parse(printed);
			struct gl_jsonc_doc *doc2 = gl_jsonc_parse(printed, strlen(printed), "printed", &err);
			/* equal trees print the same: cJSON_Compare would say so too,
			 * but it recurses twice per level of objects (2^depth calls:
			 * 26 nested objects ran for minutes) */
			must(again && same_print(printed, again));
			must(doc2 && same_print(printed, gl_jsonc_root(doc2)));
			gl_jsonc_free(doc2);
			cJSON_Delete(again);
			free(printed);
		}
	}
	gl_jsonc_free(doc);
	return 0;
}
