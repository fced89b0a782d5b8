/*
 * fuzz_jschema.c - the JSON Schema validator (harness/lib/jschema.c) on
 * outside documents. An input whose first byte is 's' is the rest taken as
 * a schema, and a few fixed documents (and the schema itself) are validated
 * against it: the result is 0, -1 or -2, with an error that starts with
 * "/" (a document path) or "#" (a schema place) accordingly. Any other
 * input is a document (a report.json, as `gauntlet simulate` checks its
 * own) validated against the report schema embedded in the binary, which
 * must never be refused: 0 with no error, or -1 with 1 to
 * GL_JSCHEMA_MAX_ERRORS errors, the first "/PATH: MESSAGE". Every
 * validation runs twice and must say the same both times.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jschema.h"
#include "report_schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond)
{
	if (!cond)
		abort();
}

/* Validate twice; check the result's shape; return rc. */
static int checked(const cJSON *schema, const cJSON *doc, int may_refuse)
{
	char err[512], again[512];
	int n = -1, n2 = -1;
	int rc = gl_jschema_validate(schema, doc, err, sizeof err, &n);

	must(gl_jschema_validate(schema, doc, again, sizeof again, &n2) == rc);
	must(n == n2 && !strcmp(err, again));
	must(strlen(err) < sizeof err);
	switch (rc) {
	case 0: must(n == 0 && err[0] == '\0'); break;
	case -1:
		must(n >= 1 && n <= GL_JSCHEMA_MAX_ERRORS);
		must(err[0] == '/' && strstr(err, ": "));
		break;
	case -2: must(may_refuse && n == 0 && err[0] == '#'); break;
	default: must(0);
	}
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static cJSON *report_schema;
	static const char *const docs[] = {
		"{}",
		"null",
		"3.5",
		"\"x\"",
		"[1, \"x\", null, {\"a\": {\"b\": [true]}}]",
		"{\"schema_version\": 1, \"verdict\": \"pass\", \"faults\": [{}]}",
	};
	cJSON *in;

	if (!report_schema) {
		report_schema = cJSON_Parse(gl_report_schema_json);
		must(report_schema != NULL);
	}
	if (size > 0 && data[0] == 's') {
		in = cJSON_ParseWithLength((const char *)data + 1, size - 1);
		if (!in)
			return 0;
		for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
			cJSON *doc = cJSON_Parse(docs[i]);

			must(doc != NULL);
			checked(in, doc, 1);
			cJSON_Delete(doc);
		}
		checked(in, in, 1);
		checked(report_schema, in, 0);
	} else {
		in = cJSON_ParseWithLength((const char *)data, size);
		if (!in)
			return 0;
		checked(report_schema, in, 0);
	}
	cJSON_Delete(in);
	return 0;
}
