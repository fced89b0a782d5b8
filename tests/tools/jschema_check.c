/*
 * jschema_check.c - the C validator (harness/lib/jschema.h) on files, for
 * the script tests to set beside python3-jsonschema (test_schema.sh):
 *
 *   gl_jschema_check SCHEMA|- FILE...
 *
 * SCHEMA "-" is the report schema embedded in the binary
 * (harness/core/report_schema.h). One line per file: "FILE: valid", or
 * "FILE: invalid, N error(s): PATH: MESSAGE" (the first error). Exit 0:
 * every file valid; 1: some file invalid or unreadable; 2: bad usage or a
 * schema that cannot be read or that the validator refuses.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "jschema.h"
#include "report_schema.h"

static cJSON *read_json(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	cJSON *j;

	if (!f)
		return NULL;
	do {
		if (len + 65536 > cap) {
			char *nb = realloc(buf, cap = len + 65536 + cap);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	j = cJSON_ParseWithLength(buf, len);
	free(buf);
	return j;
}

int main(int argc, char **argv)
{
	cJSON *schema = NULL;
	char err[1024];
	int bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: gl_jschema_check SCHEMA|- FILE...\n");
		return 2;
	}
	if (argv[1][0] != '-' || argv[1][1]) {
		schema = read_json(argv[1]);
		if (!schema) {
			fprintf(stderr, "%s: cannot read it as JSON\n", argv[1]);
			return 2;
		}
	}
	for (int i = 2; i < argc; i++) {
		cJSON *doc = read_json(argv[i]);
		int n = 0, rc;

		if (!doc) {
			printf("%s: cannot read it as JSON\n", argv[i]);
			bad = 1;
			continue;
		}
		rc = schema ? gl_jschema_validate(schema, doc, err, sizeof err, &n)
			    : gl_report_schema_check(doc, err, sizeof err, &n);
		cJSON_Delete(doc);
		if (rc == -2) {
			fprintf(stderr, "schema refused: %s\n", err);
			cJSON_Delete(schema);
			return 2;
		}
		if (rc == 0) {
			printf("%s: valid\n", argv[i]);
		} else {
			printf("%s: invalid, %d error(s): %s\n", argv[i], n, err);
			bad = 1;
		}
	}
	cJSON_Delete(schema);
	return bad;
}
