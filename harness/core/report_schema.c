/*
 * report_schema.c - report.json against the embedded docs/report.schema.json
 * (report_schema.h). The schema is parsed at each call: a check runs once
 * per report, and nothing is kept between calls.
 */
#include "report_schema.h"

#include <stdio.h>

#include "jschema.h"

int gl_report_schema_check(const cJSON *report, char *err, size_t err_n, int *n_errors)
{
	cJSON *schema = cJSON_ParseWithLength(gl_report_schema_json, gl_report_schema_json_len);
	int rc;

	if (n_errors)
		*n_errors = 0;
	if (!schema) {
		if (err && err_n)
			snprintf(err, err_n, "the embedded report schema does not parse");
		return -2;
	}
	rc = gl_jschema_validate(schema, report, err, err_n, n_errors);
	cJSON_Delete(schema);
	return rc;
}
