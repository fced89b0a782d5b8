/*
 * test_jschema.c - the JSON Schema validator (harness/lib/jschema.c) and the
 * report schema embedded in the binary (harness/core/report_schema.c):
 *   - a test schema using every keyword the validator checks, a valid
 *     document, and one document per keyword that breaks it, each with its
 *     first error's path and message and the number of errors;
 *   - schemas refused (-2) with the keyword and its place named: unknown
 *     keywords, a $ref to nothing, a draft other than 2020-12, a pattern
 *     that is not POSIX ERE, a $ref loop, a schema nested too deep;
 *   - bounds: a document nested deeper than GL_JSCHEMA_MAX_DEPTH fails
 *     without exhausting the stack, errors stop counting at
 *     GL_JSCHEMA_MAX_ERRORS, a short err buffer is cut, not overrun;
 *   - the embedded schema is docs/report.schema.json byte for byte, parses,
 *     and is accepted (never -2); docs/manifest.schema.json is accepted too.
 * (tests/scripts/test_schema.sh sets the validator beside python3-jsonschema
 * on real report.json and manifest.json files and edited copies.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "jschema.h"
#include "report_schema.h"

static const char *const SCHEMA =
	"{"
	" \"$schema\": \"https://json-schema.org/draft/2020-12/schema\","
	" \"$id\": \"https://gauntlet.invalid/test.schema.json\","
	" \"title\": \"t\", \"description\": \"d\", \"$comment\": \"c\","
	" \"type\": \"object\","
	" \"properties\": {"
	"  \"name\": { \"type\": \"string\", \"minLength\": 2, \"maxLength\": 5,"
	"            \"pattern\": \"^[a-z]+$\", \"examples\": [\"ab\"] },"
	"  \"count\": { \"type\": \"integer\", \"minimum\": 0, \"maximum\": 10, \"default\": 0 },"
	"  \"ratio\": { \"type\": [\"number\", \"null\"], \"exclusiveMinimum\": 0,"
	"             \"exclusiveMaximum\": 1 },"
	"  \"state\": { \"enum\": [\"on\", \"off\", null] },"
	"  \"version\": { \"const\": 1 },"
	"  \"list\": { \"type\": \"array\", \"items\": { \"$ref\": \"#/$defs/item\" } },"
	"  \"tags\": { \"type\": \"object\", \"propertyNames\": { \"pattern\": \"^[a-z_]+$\" },"
	"            \"additionalProperties\": { \"type\": \"integer\", \"minimum\": 0 } },"
	"  \"map\": { \"additionalProperties\": { \"type\": \"integer\" } },"
	"  \"good\": { \"type\": \"integer\" }, \"goodput\": { \"type\": \"number\" },"
	"  \"legacy\": { \"$ref\": \"#/definitions/old\" },"
	"  \"odd\": { \"$ref\": \"#/$defs/a~0b~1c\" },"
	"  \"kind\": { \"if\": { \"required\": [\"status\"] },"
	"            \"then\": { \"$ref\": \"#/$defs/unavailable\" },"
	"            \"else\": { \"type\": \"object\", \"required\": [\"value\"] } },"
	"  \"any\": { \"anyOf\": [ { \"type\": \"string\" }, { \"type\": \"integer\" } ] },"
	"  \"one\": { \"oneOf\": [ { \"type\": \"integer\" }, { \"minimum\": 5 } ] },"
	"  \"all\": { \"allOf\": [ { \"type\": \"number\" }, { \"maximum\": 3 } ] },"
	"  \"nope\": { \"not\": { \"type\": \"string\" } },"
	"  \"never\": false,"
	"  \"whatever\": true,"
	"  \"tree\": { \"$ref\": \"#/$defs/tree\" }"
	" },"
	" \"required\": [\"name\", \"count\"],"
	" \"additionalProperties\": false,"
	" \"dependentRequired\": { \"good\": [\"goodput\"] },"
	" \"$defs\": {"
	"  \"item\": { \"type\": \"object\", \"properties\": { \"id\": { \"type\": \"integer\" } },"
	"            \"required\": [\"id\"], \"additionalProperties\": false },"
	"  \"unavailable\": { \"type\": \"object\","
	"                   \"properties\": { \"status\": { \"const\": \"unavailable\" },"
	"                                   \"why\": { \"type\": \"string\" } },"
	"                   \"required\": [\"status\", \"why\"], \"additionalProperties\": false },"
	"  \"a~b/c\": { \"type\": \"string\" },"
	"  \"tree\": { \"type\": \"array\", \"items\": { \"$ref\": \"#/$defs/tree\" } }"
	" },"
	" \"definitions\": { \"old\": { \"type\": \"boolean\" } }"
	"}";

static cJSON *schema;

/* doc (JSON text, ' for ") against the test schema: rc, and when want is
 * not NULL the first error exactly and the count. */
static void expect_at(int line, const char *doc_text, int want_rc, const char *want, int want_n)
{
	char text[4096], err[512] = "unset";
	cJSON *doc;
	int n = -1, rc;

	snprintf(text, sizeof text, "%s", doc_text);
	for (char *p = text; *p; p++)
		if (*p == '\'')
			*p = '"';
	doc = cJSON_Parse(text);
	if (!doc) {
		CHECKF(0, "line %d: test document does not parse: %s", line, text);
		return;
	}
	rc = gl_jschema_validate(schema, doc, err, sizeof err, &n);
	CHECKF(rc == want_rc, "line %d: %s: rc %d, want %d (%s)", line, text, rc, want_rc, err);
	if (want) {
		CHECKF(!strcmp(err, want), "line %d: %s:\n  got  %s\n  want %s", line, text, err, want);
		CHECKF(n == want_n, "line %d: %s: %d errors, want %d", line, text, n, want_n);
	} else if (want_rc == 0) {
		CHECKF(n == 0 && err[0] == '\0', "line %d: valid, yet %d errors, err '%s'", line, n, err);
	}
	cJSON_Delete(doc);
}
#define VALID(doc) expect_at(__LINE__, doc, 0, NULL, 0)
#define INVALID(doc, msg) expect_at(__LINE__, doc, -1, msg, 1)
#define INVALID_N(doc, msg, n) expect_at(__LINE__, doc, -1, msg, n)

static void test_keywords(void)
{
	VALID("{'name': 'ab', 'count': 0}");
	VALID("{'name': 'abcde', 'count': 10, 'ratio': 0.5, 'state': 'on', 'version': 1,"
	      " 'list': [{'id': 1}, {'id': 2}], 'tags': {'a_b': 3}, 'map': {'x/y': 1},"
	      " 'good': 1, 'goodput': 0.5, 'legacy': true, 'odd': 's',"
	      " 'kind': {'status': 'unavailable', 'why': 'w'}, 'any': 3, 'one': 2,"
	      " 'all': 2.5, 'nope': 1, 'whatever': {'x': [1]}, 'tree': [[], [[]]]}");
	VALID("{'name': 'ab', 'count': 1.0, 'version': 1.0, 'ratio': null, 'state': null,"
	      " 'kind': {'value': 1}, 'any': 'x', 'one': 'x', 'nope': null}");

	/* type */
	INVALID("{'name': 'ab', 'count': 1.5}", "/count: expected integer, found number 1.5");
	INVALID("{'name': 'ab', 'count': '1'}", "/count: expected integer, found string \"1\"");
	INVALID("{'name': 'ab', 'count': 1, 'ratio': 'x'}", "/ratio: expected number or null, found string \"x\"");
	INVALID("{'name': 'ab', 'count': 1, 'legacy': 0}", "/legacy: expected boolean, found integer 0");
	INVALID("[]", "/: expected object, found array an array");
	/* required */
	INVALID("{'name': 'ab'}", "/: missing required property \"count\"");
	INVALID_N("{}", "/: missing required property \"name\"", 2);
	/* additionalProperties false, and a schema */
	INVALID("{'name': 'ab', 'count': 1, 'surprise': 1}", "/: property \"surprise\" is not allowed");
	INVALID("{'name': 'ab', 'count': 1, 'map': {'a/b~c': 'x'}}",
		"/map/a~1b~0c: expected integer, found string \"x\"");
	/* enum, const */
	INVALID("{'name': 'ab', 'count': 1, 'state': 'maybe'}",
		"/state: \"maybe\" is not one of \"on\", \"off\", null");
	INVALID("{'name': 'ab', 'count': 1, 'state': 1}", "/state: 1 is not one of \"on\", \"off\", null");
	INVALID("{'name': 'ab', 'count': 1, 'version': 2}", "/version: expected 1, found 2");
	INVALID("{'name': 'ab', 'count': 1, 'version': '1'}", "/version: expected 1, found \"1\"");
	/* minimum, maximum, exclusive ones */
	INVALID("{'name': 'ab', 'count': -1}", "/count: -1 is below the minimum 0");
	INVALID("{'name': 'ab', 'count': 11}", "/count: 11 is above the maximum 10");
	INVALID("{'name': 'ab', 'count': 1, 'ratio': 0}", "/ratio: 0 is not above the exclusive minimum 0");
	INVALID("{'name': 'ab', 'count': 1, 'ratio': 1}", "/ratio: 1 is not below the exclusive maximum 1");
	VALID("{'name': 'ab', 'count': 1, 'ratio': 1e-300}");
	/* minLength, maxLength (code points), pattern */
	INVALID("{'name': 'a', 'count': 1}", "/name: \"a\" is shorter than 2 characters");
	INVALID("{'name': 'abcdef', 'count': 1}", "/name: \"abcdef\" is longer than 5 characters");
	INVALID_N("{'name': 'AB', 'count': 1}", "/name: \"AB\" does not match the pattern ^[a-z]+$", 1);
	/* $ at the very end only (ECMA-262; Python's re also matches before a
	 * final newline) */
	INVALID("{'name': 'ab\\n', 'count': 1}", "/name: \"ab?\" does not match the pattern ^[a-z]+$");
	INVALID_N("{'name': '\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9', 'count': 1}",
		  "/name: \"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\" is longer than 5 characters", 2);
	/* items, $ref */
	INVALID("{'name': 'ab', 'count': 1, 'list': [{'id': 1}, {'id': 'x'}]}",
		"/list/1/id: expected integer, found string \"x\"");
	INVALID("{'name': 'ab', 'count': 1, 'list': [{}]}", "/list/0: missing required property \"id\"");
	INVALID("{'name': 'ab', 'count': 1, 'list': [{'id': 1, 'no': 2}]}", "/list/0: property \"no\" is not allowed");
	INVALID("{'name': 'ab', 'count': 1, 'odd': 5}", "/odd: expected string, found integer 5");
	/* propertyNames */
	INVALID("{'name': 'ab', 'count': 1, 'tags': {'Bad': 1}}",
		"/tags: property name \"Bad\": \"Bad\" does not match the pattern ^[a-z_]+$");
	INVALID("{'name': 'ab', 'count': 1, 'tags': {'ok': -2}}", "/tags/ok: -2 is below the minimum 0");
	/* dependentRequired */
	INVALID("{'name': 'ab', 'count': 1, 'good': 1}", "/: property \"good\" requires property \"goodput\"");
	/* if/then/else */
	INVALID("{'name': 'ab', 'count': 1, 'kind': {'status': 'unavailable'}}",
		"/kind: missing required property \"why\"");
	INVALID("{'name': 'ab', 'count': 1, 'kind': {'status': 'gone', 'why': 'w'}}",
		"/kind/status: expected \"unavailable\", found \"gone\"");
	INVALID("{'name': 'ab', 'count': 1, 'kind': {}}", "/kind: missing required property \"value\"");
	/* anyOf, oneOf, allOf, not, false */
	INVALID("{'name': 'ab', 'count': 1, 'any': true}", "/any: valid against none of anyOf's 2 schemas");
	INVALID("{'name': 'ab', 'count': 1, 'one': 7}",
		"/one: valid against more than one of oneOf's 2 schemas, not exactly one");
	INVALID("{'name': 'ab', 'count': 1, 'one': 3.5}",
		"/one: valid against none of oneOf's 2 schemas, not exactly one");
	INVALID("{'name': 'ab', 'count': 1, 'all': 4}", "/all: 4 is above the maximum 3");
	INVALID("{'name': 'ab', 'count': 1, 'all': 'x'}", "/all: expected number, found string \"x\"");
	INVALID("{'name': 'ab', 'count': 1, 'nope': 's'}", "/nope: valid against the schema under not");
	INVALID("{'name': 'ab', 'count': 1, 'never': null}", "/never: no value is allowed here");
	/* several errors: counted, the first in document order */
	INVALID_N("{'name': 'AB', 'count': -1, 'x': 1, 'list': [{}, {'id': 1.5}]}",
		  "/name: \"AB\" does not match the pattern ^[a-z]+$", 5);
}

/* A schema text (' for ") refused with exactly this message. */
static void refused_at(int line, const char *schema_text, const char *want)
{
	char text[2048], err[512] = "unset";
	cJSON *s, *doc = cJSON_Parse("{\"a\": [1, \"x\"]}");
	int n = -1, rc;

	snprintf(text, sizeof text, "%s", schema_text);
	for (char *p = text; *p; p++)
		if (*p == '\'')
			*p = '"';
	s = cJSON_Parse(text);
	if (!s) {
		CHECKF(0, "line %d: test schema does not parse: %s", line, text);
		cJSON_Delete(doc);
		return;
	}
	rc = gl_jschema_validate(s, doc, err, sizeof err, &n);
	CHECKF(rc == -2, "line %d: %s: rc %d, want -2 (%s)", line, text, rc, err);
	CHECKF(!strcmp(err, want), "line %d: %s:\n  got  %s\n  want %s", line, text, err, want);
	CHECKF(n == 0, "line %d: %d errors counted for a refused schema", line, n);
	cJSON_Delete(s);
	cJSON_Delete(doc);
}
#define REFUSED(s, msg) refused_at(__LINE__, s, msg)

static void test_refused(void)
{
	REFUSED("{'properties': {'a': {'format': 'date-time'}}}",
		"#/properties/a/format: unsupported keyword \"format\"");
	REFUSED("{'patternProperties': {'^a': true}}",
		"#/patternProperties: unsupported keyword \"patternProperties\"");
	REFUSED("{'$defs': {'x': {'uniqueItems': true}}}",
		"#/$defs/x/uniqueItems: unsupported keyword \"uniqueItems\"");
	REFUSED("{'items': [{'type': 'integer'}]}",
		"#/items: an array of schemas is the tuple form of drafts before 2020-12 "
		"(prefixItems), not supported");
	REFUSED("{'properties': {'a': {'$ref': '#/$defs/missing'}}}",
		"#/properties/a/$ref: \"#/$defs/missing\" is not \"#\" or a schema under the top's "
		"$defs or definitions");
	REFUSED("{'properties': {'a': {'$ref': '#/properties/b'}}, 'b': 1}",
		"#/properties/a/$ref: \"#/properties/b\" is not \"#\" or a schema under the top's "
		"$defs or definitions");
	REFUSED("{'$ref': 'other.json#/$defs/x'}",
		"#/$ref: \"other.json#/$defs/x\" is not \"#\" or a schema under the top's "
		"$defs or definitions");
	REFUSED("{'$schema': 'http://json-schema.org/draft-07/schema#'}",
		"#/$schema: only draft 2020-12 (https://json-schema.org/draft/2020-12/schema) "
		"is supported");
	REFUSED("{'properties': {'a': {'$id': 'x'}}}",
		"#/properties/a/$id: $id below the top of the schema is not supported");
	REFUSED("{'type': 'int'}", "#/type: must be a type name or a non-empty array of them");
	REFUSED("{'required': 'a'}", "#/required: must be an array of strings");
	REFUSED("{'minimum': '0'}", "#/minimum: must be a number");
	REFUSED("{'maxLength': -1}", "#/maxLength: must be a non-negative integer");
	REFUSED("{'properties': {'a': 1}}", "#/properties/a: a schema must be an object or a boolean");
	REFUSED("{'anyOf': []}", "#/anyOf: must be a non-empty array of schemas");
	REFUSED("{'pattern': '^\\\\d+$'}",
		"#/pattern: \\d in \"^\\d+$\" is not POSIX extended regular expression syntax");
	{
		/* regerror's words are the C library's */
		cJSON *s = cJSON_Parse("{\"pattern\": \"(a\"}"), *doc = cJSON_CreateString("a");
		char err[256];
		const char *want = "#/pattern: \"(a\" is not a POSIX extended regular expression: ";

		CHECK(gl_jschema_validate(s, doc, err, sizeof err, NULL) == -2);
		CHECKF(!strncmp(err, want, strlen(want)) && strlen(err) > strlen(want), "%s", err);
		cJSON_Delete(s);
		cJSON_Delete(doc);
	}
	REFUSED("{'$defs': {'a': {'$ref': '#/$defs/b'}, 'b': {'$ref': '#/$defs/a'}}, "
		"'$ref': '#/$defs/a'}",
		"#: $ref \"#/$defs/a\" loops without descending into the document (at / in it)");
	{
		/* a schema nested past the bound: 70 "not"s, refused where the
		 * 65th begins */
		char deep[2048], want[512] = "#";
		size_t o = 0;

		for (int i = 0; i < 70; i++)
			o += (size_t)snprintf(deep + o, sizeof deep - o, "{'not': ");
		o += (size_t)snprintf(deep + o, sizeof deep - o, "true");
		for (int i = 0; i < 70; i++)
			deep[o++] = '}';
		deep[o] = '\0';
		for (int i = 0; i < 65; i++)
			strcat(want, "/not");
		strcat(want, ": schema nested deeper than 64 levels");
		refused_at(__LINE__, deep, want);
	}
	/* the schema is refused whatever the document: a valid one too */
	{
		cJSON *s = cJSON_Parse("{\"type\": \"object\", \"$defs\": {\"x\": {\"format\": \"uri\"}}}");
		cJSON *doc = cJSON_CreateObject();
		char err[256];

		CHECK(gl_jschema_validate(s, doc, err, sizeof err, NULL) == -2);
		cJSON_Delete(s);
		cJSON_Delete(doc);
	}
}

static void test_bounds(void)
{
	char err[512], small[12];
	int n = -1;
	cJSON *doc;

	/* nesting: 60 arrays pass, 200 fail at the bound, no crash */
	{
		char text[512];
		size_t o = 0;

		o += (size_t)snprintf(text + o, sizeof text - o, "{\"name\": \"ab\", \"count\": 1, \"tree\": ");
		for (int i = 0; i < 30; i++)
			text[o++] = '[';
		for (int i = 0; i < 30; i++)
			text[o++] = ']';
		snprintf(text + o, sizeof text - o, "}");
		doc = cJSON_Parse(text);
		CHECK(doc && gl_jschema_validate(schema, doc, err, sizeof err, &n) == 0);
		cJSON_Delete(doc);
	}
	{
		char *text = malloc(4096);
		cJSON *tree;
		size_t o = 0;

		o += (size_t)snprintf(text + o, 4096 - o, "{\"name\": \"ab\", \"count\": 1, \"tree\": ");
		for (int i = 0; i < 200; i++)
			text[o++] = '[';
		for (int i = 0; i < 200; i++)
			text[o++] = ']';
		snprintf(text + o, 4096 - o, "}");
		doc = cJSON_Parse(text);
		tree = cJSON_GetObjectItem(doc, "tree");
		CHECK(tree != NULL);
		CHECK(gl_jschema_validate(schema, doc, err, sizeof err, &n) == -1);
		CHECKF(strstr(err, ": nested deeper than 64 levels") && !strncmp(err, "/tree/0/0/0/", 12), "%s", err);
		CHECK(n == 1);
		cJSON_Delete(doc);
		free(text);
	}
	/* errors stop counting at GL_JSCHEMA_MAX_ERRORS */
	doc = cJSON_Parse("{\"name\": \"ab\", \"count\": 1}");
	for (int i = 0; i < 150; i++) {
		char key[16];

		snprintf(key, sizeof key, "x%d", i);
		cJSON_AddNumberToObject(doc, key, i);
	}
	CHECK(gl_jschema_validate(schema, doc, err, sizeof err, &n) == -1);
	CHECKF(n == GL_JSCHEMA_MAX_ERRORS, "%d errors", n);
	CHECKF(!strcmp(err, "/: property \"x0\" is not allowed"), "%s", err);
	/* a short buffer is cut and terminated; NULL err and n_errors are fine */
	memset(small, 'z', sizeof small);
	CHECK(gl_jschema_validate(schema, doc, small, 8, NULL) == -1);
	CHECK(!strcmp(small, "/: prop") && small[8] == 'z');
	CHECK(gl_jschema_validate(schema, doc, NULL, 0, NULL) == -1);
	cJSON_Delete(doc);
	/* a long key: the path is cut, the message still written */
	{
		char *key = malloc(2000);

		memset(key, 'k', 1999);
		key[1999] = '\0';
		doc = cJSON_Parse("{\"name\": \"ab\", \"count\": 1, \"map\": {}}");
		cJSON_AddStringToObject(cJSON_GetObjectItem(doc, "map"), key, "v");
		CHECK(gl_jschema_validate(schema, doc, err, sizeof err, &n) == -1);
		CHECKF(!strncmp(err, "/map/kkk", 8) && strstr(err, "...: expected integer, found string \"v\""), "%s",
		       err);
		cJSON_Delete(doc);
		free(key);
	}
	/* no schema or no document */
	CHECK(gl_jschema_validate(NULL, schema, err, sizeof err, &n) == -2);
	CHECK(gl_jschema_validate(schema, NULL, err, sizeof err, &n) == -2);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) || !(buf = malloc((size_t)n + 1))) {
		fclose(f);
		return NULL;
	}
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void test_embedded(void)
{
	const char *src = getenv("GL_SOURCE_DIR");
	cJSON *s = cJSON_Parse(gl_report_schema_json), *doc;
	char path[4096], err[512];
	size_t len = 0;
	char *text;
	int n = -1;

	CHECK(strlen(gl_report_schema_json) == gl_report_schema_json_len);
	CHECK(s != NULL);
	CHECK(cJSON_IsObject(s) && cJSON_GetObjectItem(s, "$defs"));
	/* accepted: a document of the wrong shape is invalid, never refused */
	doc = cJSON_CreateObject();
	CHECKF(gl_jschema_validate(s, doc, err, sizeof err, &n) == -1, "%s", err);
	CHECKF(!strcmp(err, "/: missing required property \"schema_version\""), "%s", err);
	CHECKF(n == cJSON_GetArraySize(cJSON_GetObjectItem(s, "required")), "%d errors", n);
	CHECK(gl_report_schema_check(doc, err, sizeof err, &n) == -1 && n > 1);
	cJSON_AddNumberToObject(doc, "schema_version", 2);
	CHECK(gl_report_schema_check(doc, err, sizeof err, &n) == -1);
	CHECKF(!strcmp(err, "/: missing required property \"verdict\""), "%s", err);
	CHECKF(n == 15, "%d errors: 14 required properties missing and schema_version 2", n);
	cJSON_Delete(doc);
	cJSON_Delete(s);

	if (!src)
		src = "..";
	snprintf(path, sizeof path, "%s/docs/report.schema.json", src);
	text = slurp(path, &len);
	CHECKF(text != NULL, "%s: cannot read it (GL_SOURCE_DIR)", path);
	if (text)
		CHECKF(len == gl_report_schema_json_len && !memcmp(text, gl_report_schema_json, len),
		       "the embedded schema is not %s as it is now (rebuild)", path);
	free(text);

	snprintf(path, sizeof path, "%s/docs/manifest.schema.json", src);
	text = slurp(path, &len);
	CHECKF(text != NULL, "%s: cannot read it", path);
	if (text) {
		s = cJSON_Parse(text);
		doc = cJSON_CreateObject();
		CHECK(s != NULL);
		CHECKF(gl_jschema_validate(s, doc, err, sizeof err, &n) == -1, "%s", err);
		CHECKF(!strcmp(err, "/: missing required property \"schema_version\""), "%s", err);
		cJSON_Delete(doc);
		cJSON_Delete(s);
	}
	free(text);
}

int main(void)
{
	schema = cJSON_Parse(SCHEMA);
	CHECK(schema != NULL);
	if (!schema)
		return check_done();
	test_keywords();
	test_refused();
	test_bounds();
	test_embedded();
	cJSON_Delete(schema);
	return check_done();
}
