/*
 * test_jsonc.c - the commented-JSON parser: source positions of nodes
 * (after line and block comments, CRLF, tabs, escapes), every class of error
 * with its exact NAME:LINE:COL message, documents with comments giving the
 * same tree as plain cJSON on their comment-free twin, inputs that are not
 * NUL-terminated (copied to exact-size heap buffers so ASan sees any
 * over-read), and the size and depth bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "jsonc.h"

/* Parse len bytes from an exact-size heap copy, so reading past the end is
 * caught by the address sanitizer. */
static struct gl_jsonc_doc *parse_n(const char *text, size_t len, struct gl_err *err)
{
	char *copy = malloc(len ? len : 1);
	struct gl_jsonc_doc *doc;

	if (!copy)
		return NULL;
	memcpy(copy, text, len);
	doc = gl_jsonc_parse(copy, len, "s.json", err);
	free(copy); /* the document must not point into the text */
	return doc;
}

static struct gl_jsonc_doc *parse(const char *text, struct gl_err *err)
{
	return parse_n(text, strlen(text), err);
}

/* text must fail with exactly want as the message. */
static void bad_n(const char *text, size_t len, const char *want, int line)
{
	struct gl_err err = { 0 };
	struct gl_jsonc_doc *doc = parse_n(text, len, &err);

	CHECKF(doc == NULL && err.code == GL_EINVAL, "line %d: parse should fail (code %d)", line, err.code);
	CHECKF(strcmp(err.msg, want) == 0, "line %d:\n  got  %s\n  want %s", line, err.msg, want);
	gl_jsonc_free(doc);
}
#define BAD(text, want) bad_n(text, strlen(text), want, __LINE__)
#define BAD_N(text, want) bad_n(text, sizeof(text) - 1, want, __LINE__)

static void pos_is(const struct gl_jsonc_doc *doc, const cJSON *node, int line, int col, const char *what)
{
	int l = -1, c = -1;

	CHECKF(node != NULL, "%s: no node", what);
	if (!node)
		return;
	CHECKF(gl_jsonc_where(doc, node, &l, &c) == 0 && l == line && c == col, "%s at %d:%d, want %d:%d", what, l, c,
	       line, col);
}

static void test_positions(void)
{
	static const char text[] = "// header comment\n"
				   "{\n"
				   "  \"name\": \"acceptance\", /* inline */ \"n\": 5,\n"
				   "  /* a block\n"
				   "     comment */ \"arr\": [1, \"two\\nlines\", {\"k\": null}],\n"
				   "  \"s\": \"tab\\there\", \"after\": true,\n"
				   "\t\"tabbed\": -1.5e3 // trailing\n"
				   "}\n"
				   "// done";
	struct gl_err err = { 0 };
	struct gl_jsonc_doc *doc = parse(text, &err);
	cJSON *root, *arr;

	CHECKF(doc != NULL, "%s", err.msg);
	if (!doc)
		return;
	root = gl_jsonc_root(doc);
	arr = cJSON_GetObjectItemCaseSensitive(root, "arr");
	CHECK(strcmp(gl_jsonc_name(doc), "s.json") == 0);
	pos_is(doc, root, 2, 1, "root");
	pos_is(doc, cJSON_GetObjectItemCaseSensitive(root, "name"), 3, 3, "name");
	pos_is(doc, cJSON_GetObjectItemCaseSensitive(root, "n"), 3, 38, "n");
	pos_is(doc, arr, 5, 17, "arr");
	pos_is(doc, cJSON_GetArrayItem(arr, 0), 5, 25, "arr[0]");
	pos_is(doc, cJSON_GetArrayItem(arr, 1), 5, 28, "arr[1]");
	pos_is(doc, cJSON_GetArrayItem(arr, 2), 5, 42, "arr[2]");
	pos_is(doc, cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(arr, 2), "k"), 5, 43, "arr[2].k");
	pos_is(doc, cJSON_GetObjectItemCaseSensitive(root, "s"), 6, 3, "s");
	pos_is(doc, cJSON_GetObjectItemCaseSensitive(root, "after"), 6, 21, "after");
	pos_is(doc, cJSON_GetObjectItemCaseSensitive(root, "tabbed"), 7, 2, "tabbed");

	CHECK(strcmp(cJSON_GetArrayItem(arr, 1)->valuestring, "two\nlines") == 0);
	CHECK(strcmp(cJSON_GetObjectItemCaseSensitive(root, "s")->valuestring, "tab\there") == 0);
	CHECK(cJSON_GetObjectItemCaseSensitive(root, "tabbed")->valuedouble == -1500.0);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "after")));
	CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(arr, 2), "k")));

	/* Nodes from elsewhere are not this document's. */
	{
		cJSON *other = cJSON_CreateNull();
		int l = 7, c = 7;
		CHECK(gl_jsonc_where(doc, other, &l, &c) == -1 && l == 7 && c == 7);
		CHECK(gl_jsonc_where(doc, NULL, &l, &c) == -1);
		CHECK(gl_jsonc_where(NULL, root, &l, &c) == -1);
		cJSON_Delete(other);
	}
	gl_jsonc_free(doc);

	/* CRLF line ends, and a value after a comment that spans lines. */
	doc = parse("{\r\n  \"a\": 1,\r\n/*\r\n\r\n*/ \"b\": [true]}", &err);
	CHECKF(doc != NULL, "%s", err.msg);
	if (doc) {
		root = gl_jsonc_root(doc);
		pos_is(doc, cJSON_GetObjectItemCaseSensitive(root, "a"), 2, 3, "crlf a");
		pos_is(doc, cJSON_GetObjectItemCaseSensitive(root, "b"), 5, 4, "crlf b");
		pos_is(doc, cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "b"), 0), 5, 10, "crlf b[0]");
		gl_jsonc_free(doc);
	}

	/* Multi-byte characters count as their bytes in columns. */
	doc = parse("[\"\xc3\xa9\xe2\x82\xac\", 2]", &err);
	CHECKF(doc != NULL, "%s", err.msg);
	if (doc) {
		root = gl_jsonc_root(doc);
		pos_is(doc, root, 1, 1, "utf8 root");
		pos_is(doc, cJSON_GetArrayItem(root, 1), 1, 11, "utf8 [1]");
		gl_jsonc_free(doc);
	}

	/* A scalar at top level, after leading comments. */
	doc = parse("/* x */ // y\n  42  ", &err);
	CHECKF(doc != NULL, "%s", err.msg);
	if (doc) {
		pos_is(doc, gl_jsonc_root(doc), 2, 3, "scalar root");
		CHECK(gl_jsonc_root(doc)->valuedouble == 42);
		gl_jsonc_free(doc);
	}
}

/* Every node reachable from the root has a position, and the count of
 * positions equals the count of nodes. */
static int count_nodes_with_pos(const struct gl_jsonc_doc *doc, const cJSON *n, int *missing)
{
	int count = 1, l, c;

	if (gl_jsonc_where(doc, n, &l, &c) != 0 || l < 1 || c < 1)
		(*missing)++;
	for (const cJSON *ch = n->child; ch; ch = ch->next)
		count += count_nodes_with_pos(doc, ch, missing);
	return count;
}

static void test_errors(void)
{
	/* The examples the messages are modelled on. */
	BAD("{\n  \"a\": \"abc", "s.json:2:8: unterminated string, expected '\"'");
	BAD("{\n  \"a\": \"abc\n\"}", "s.json:2:8: unterminated string, expected '\"'");
	BAD("{\"a\":\n}", "s.json:2:1: unexpected '}', expected a value");
	BAD("{\"name\": 1,\n \"name\": 2}", "s.json:2:2: duplicate key \"name\" (first at 1:2)");
	BAD("{\"a\": {\"x\": 1, \"y\": 2,\n\t\"x\": 3}}", "s.json:2:2: duplicate key \"x\" (first at 1:8)");
	BAD("{\"q\\\"\\u00e9\": 1, \"q\\\"\xc3\xa9\": 2}",
	    "s.json:1:18: duplicate key \"q\\\"\xc3\xa9\" (first at 1:2)");
	/* A duplicate is reported before a syntax error later in its value. */
	BAD("{\"a\": 1, \"a\": [}", "s.json:1:10: duplicate key \"a\" (first at 1:2)");

	/* Empty input and trailing garbage. */
	BAD("", "s.json:1:1: empty file, expected a JSON value");
	BAD("  \n\t", "s.json:2:2: empty file, expected a JSON value");
	BAD("// nothing\n/* here */\n", "s.json:3:1: empty file, expected a JSON value");
	BAD("{} x", "s.json:1:4: unexpected 'x', expected the end of the input after the top-level value");
	BAD("{}{}", "s.json:1:3: unexpected '{', expected the end of the input after the top-level value");
	BAD("1 2", "s.json:1:3: unexpected '2', expected the end of the input after the top-level value");
	BAD("[1] /", "s.json:1:5: unexpected '/', expected the end of the input after the top-level value");

	/* NUL bytes anywhere. */
	BAD_N("{\"a\":\0}", "s.json:1:6: unexpected NUL byte, expected a value");
	BAD_N("{\"a\": \"x\0y\"}", "s.json:1:9: NUL byte in string, expected text or '\"'");
	BAD_N("[1, // a\0b\n 2]", "s.json:1:9: NUL byte in comment, expected text");
	BAD_N("[1]\0", "s.json:1:4: unexpected NUL byte, expected the end of the input after the "
		       "top-level value");
	BAD_N("\0", "s.json:1:1: unexpected NUL byte, expected a value");

	/* Structure. */
	BAD("{\"a\": 1,}", "s.json:1:9: unexpected '}', expected a \"key\" (no trailing commas)");
	BAD("[1, 2,\n]", "s.json:2:1: unexpected ']', expected a value (no trailing commas)");
	BAD("{a: 1}", "s.json:1:2: unexpected 'a', expected a \"key\"");
	BAD("{'a': 1}", "s.json:1:2: unexpected ''', expected a \"key\"");
	BAD("{\"a\" 1}", "s.json:1:6: unexpected '1', expected ':'");
	BAD("{\"a\": 1 \"b\": 2}", "s.json:1:9: unexpected '\"', expected ',' or '}'");
	BAD("[1 2]", "s.json:1:4: unexpected '2', expected ',' or ']'");
	BAD("[1", "s.json:1:3: unexpected end of input, expected ',' or ']'");
	BAD("{", "s.json:1:2: unexpected end of input, expected a \"key\"");
	BAD("{\"a\"", "s.json:1:5: unexpected end of input, expected ':'");
	BAD("[", "s.json:1:2: unexpected end of input, expected a value");
	BAD("]", "s.json:1:1: unexpected ']', expected a value");
	BAD("{ / }", "s.json:1:3: unexpected '/', expected a \"key\"");
	BAD("[tru]", "s.json:1:2: unexpected 'tru', expected a value (true, false, null, a number, "
		     "a \"string\", [ or {)");
	BAD("True", "s.json:1:1: unexpected 'True', expected a value (true, false, null, a number, "
		    "a \"string\", [ or {)");
	BAD("[nulls]", "s.json:1:2: unexpected 'nulls', expected a value (true, false, null, a "
		       "number, a \"string\", [ or {)");
	BAD("[NaN]", "s.json:1:2: unexpected 'NaN', expected a value (true, false, null, a number, "
		     "a \"string\", [ or {)");
	BAD("[Infinity]", "s.json:1:2: unexpected 'Infinity', expected a value (true, false, null, "
			  "a number, a \"string\", [ or {)");
	BAD("[truex]", "s.json:1:2: unexpected 'truex', expected a value (true, false, null, a "
		       "number, a \"string\", [ or {)");
	BAD("{\n/*\n\n*/ \"a\" 1}", "s.json:4:8: unexpected '1', expected ':'");

	/* Comments. */
	BAD("{ /* abc", "s.json:1:3: unterminated comment, expected '*/'");
	BAD("[1,\n  /* a\n b */ 2, /*/ 3]", "s.json:3:10: unterminated comment, expected '*/'");
	BAD("[1 /* x */ /* y *", "s.json:1:12: unterminated comment, expected '*/'");

	/* Numbers. */
	BAD("1e400", "s.json:1:1: number '1e400' out of range, expected a finite number");
	BAD("[0, -1e999]", "s.json:1:5: number '-1e999' out of range, expected a finite number");
	{
		/* Long numbers: converted from a heap copy, shown shortened. */
		char num[400];
		struct gl_err err = { 0 };
		struct gl_jsonc_doc *doc;

		memcpy(num, "[2, 1", 5);
		memset(num + 5, '0', 300);
		memcpy(num + 305, "]", 2);
		doc = parse(num, &err); /* 1e300 is finite */
		CHECKF(doc && cJSON_GetArrayItem(gl_jsonc_root(doc), 1)->valuedouble == 1e300, "%s", err.msg);
		gl_jsonc_free(doc);
		memset(num + 5, '0', 340);
		memcpy(num + 345, "]", 2);
		BAD(num, "s.json:1:5: number '10000000000000000000000000000000...' out of range, "
			 "expected a finite number");
	}
	BAD("01", "s.json:1:2: unexpected '1', expected '.', 'e' or the end of the number (no "
		  "leading zeros)");
	BAD("[-]", "s.json:1:3: unexpected ']', expected a digit after '-'");
	BAD("-", "s.json:1:2: unexpected end of input, expected a digit after '-'");
	BAD("1.", "s.json:1:3: unexpected end of input, expected a digit after '.'");
	BAD("[1.e5]", "s.json:1:4: unexpected 'e', expected a digit after '.'");
	BAD("1e", "s.json:1:3: unexpected end of input, expected a digit in the exponent");
	BAD("[1e+]", "s.json:1:5: unexpected ']', expected a digit in the exponent");
	BAD(".5", "s.json:1:1: unexpected '.', expected a value");
	BAD("+1", "s.json:1:1: unexpected '+', expected a value");
	BAD("0x10", "s.json:1:2: unexpected 'x', expected the end of the input after the top-level value");
	BAD("[- 1]", "s.json:1:3: unexpected ' ', expected a digit after '-'");

	/* Strings: escapes and control characters. */
	BAD("[\"a\tb\"]", "s.json:1:4: control character 0x09 in string, expected an escape such "
			  "as \\t");
	BAD("[\"\\x41\"]", "s.json:1:3: invalid escape: '\\' followed by 'x', expected one of \\\" "
			   "\\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
	BAD("[\"\\", "s.json:1:3: invalid escape: '\\' followed by end of input, expected one of "
		     "\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
	BAD("[\"\\u12G4\"]", "s.json:1:3: invalid \\u escape, expected four hex digits");
	BAD("[\"\\u12", "s.json:1:3: invalid \\u escape, expected four hex digits");
	BAD("[\"\\u0000\"]", "s.json:1:3: \\u0000 in string, expected a character other than NUL");
	BAD("[\"ab\\uDE00\"]", "s.json:1:5: lone low surrogate \\uDE00, expected a high surrogate first");
	BAD("[\"\\uD83Dx\"]", "s.json:1:3: lone high surrogate \\uD83D, expected a \\uDC00-\\uDFFF "
			      "low surrogate after it");
	BAD("[\"\\uD83D\\u0041\"]", "s.json:1:3: lone high surrogate \\uD83D, expected a "
				    "\\uDC00-\\uDFFF low surrogate after it");
	BAD("[\"\\uD83D\\uD83D\"]", "s.json:1:3: lone high surrogate \\uD83D, expected a "
				    "\\uDC00-\\uDFFF low surrogate after it");

	/* UTF-8, in strings and comments. */
	BAD("[\"\xc0\xaf\"]", "s.json:1:3: overlong UTF-8 sequence (byte 0xc0) in string, "
			      "expected valid UTF-8");
	BAD("[\"\xe0\x80\xaf\"]", "s.json:1:3: overlong UTF-8 sequence (byte 0xe0) in string, "
				  "expected valid UTF-8");
	BAD("[\"\xf0\x80\x80\xaf\"]", "s.json:1:3: overlong UTF-8 sequence (byte 0xf0) in string, "
				      "expected valid UTF-8");
	BAD("[\"\xed\xa0\x80\"]", "s.json:1:3: UTF-8 encoded surrogate (byte 0xed) in string, "
				  "expected valid UTF-8");
	BAD("[\"\xf4\x90\x80\x80\"]", "s.json:1:3: UTF-8 sequence past U+10FFFF (byte 0xf4) in "
				      "string, expected valid UTF-8");
	BAD("[\"\xf5\x80\x80\x80\"]", "s.json:1:3: invalid UTF-8 byte (byte 0xf5) in string, "
				      "expected valid UTF-8");
	BAD("[\"ok\xff\"]", "s.json:1:5: invalid UTF-8 byte (byte 0xff) in string, expected "
			    "valid UTF-8");
	BAD("[\"\x80\"]", "s.json:1:3: stray UTF-8 continuation byte (byte 0x80) in string, "
			  "expected valid UTF-8");
	BAD("[\"\xe2\x82\"]", "s.json:1:3: truncated UTF-8 sequence (byte 0xe2) in string, "
			      "expected valid UTF-8");
	BAD("[\"\xe2\x82", "s.json:1:3: truncated UTF-8 sequence (byte 0xe2) in string, expected "
			   "valid UTF-8");
	BAD("[1, // caf\xc3\n 2]", "s.json:1:11: truncated UTF-8 sequence (byte 0xc3) in comment, "
				   "expected valid UTF-8");
	BAD("/* \xed\xbf\xbf */ 1", "s.json:1:4: UTF-8 encoded surrogate (byte 0xed) in comment, "
				    "expected valid UTF-8");
	BAD("[\xc3\xa9]", "s.json:1:2: unexpected '\xc3\xa9', expected a value");
	BAD("[\xff]", "s.json:1:2: unexpected invalid UTF-8 byte (byte 0xff), expected a value");
	BAD("\xef\xbb\xbf{}", "s.json:1:1: unexpected byte order mark, expected a value");

	/* Depth: 64 levels are fine, the 65th is refused where it opens. */
	{
		char deep[2 * 65 + 1];
		struct gl_err err = { 0 };
		struct gl_jsonc_doc *doc;

		memset(deep, '[', 64);
		memset(deep + 64, ']', 64);
		doc = parse_n(deep, 128, &err);
		CHECKF(doc != NULL, "64 levels: %s", err.msg);
		gl_jsonc_free(doc);

		memset(deep, '[', 65);
		memset(deep + 65, ']', 65);
		bad_n(deep, 130,
		      "s.json:1:65: '[' nested 65 deep, expected at most 64 levels of "
		      "nesting",
		      __LINE__);
	}
	{
		char deep[64 * 6 + 64 + 8];
		size_t k = 0;
		struct gl_err err = { 0 };
		struct gl_jsonc_doc *doc;

		for (int i = 0; i < 64; i++)
			k += (size_t)sprintf(deep + k, "{\"a\": ");
		k += (size_t)sprintf(deep + k, "1");
		for (int i = 0; i < 64; i++)
			deep[k++] = '}';
		doc = parse_n(deep, k, &err);
		CHECKF(doc != NULL, "64 objects: %s", err.msg);
		gl_jsonc_free(doc);
		deep[6 * 63 + 6] = '{'; /* the "1" becomes a 65th level */
		bad_n(deep, k,
		      "s.json:1:385: '{' nested 65 deep, expected at most 64 levels of "
		      "nesting",
		      __LINE__);
	}

	/* A NULL err still fails cleanly; the name defaults. */
	CHECK(gl_jsonc_parse("[", 1, "x", NULL) == NULL);
	{
		struct gl_err err = { 0 };
		CHECK(gl_jsonc_parse("]", 1, NULL, &err) == NULL);
		CHECKF(strcmp(err.msg, "<input>:1:1: unexpected ']', expected a value") == 0, "%s", err.msg);
	}
	/* First error wins. */
	{
		struct gl_err err = { 0 };
		CHECK(gl_jsonc_parse("]", 1, "first", &err) == NULL);
		CHECK(gl_jsonc_parse("[", 1, "second", &err) == NULL);
		CHECKF(strncmp(err.msg, "first:", 6) == 0, "%s", err.msg);
	}
}

/* jsonc must give the same tree as cJSON on the comment-free text. */
static void same_as_cjson(const char *jsonc, const char *plain, int line)
{
	struct gl_err err = { 0 };
	struct gl_jsonc_doc *doc = parse(jsonc, &err);
	cJSON *ref = cJSON_Parse(plain);
	int missing = 0, n;

	CHECKF(doc != NULL, "line %d: %s", line, err.msg);
	CHECKF(ref != NULL, "line %d: cJSON refused the plain text", line);
	if (doc && ref) {
		char *a = cJSON_PrintUnformatted(gl_jsonc_root(doc));
		char *b = cJSON_PrintUnformatted(ref);
		CHECKF(cJSON_Compare(gl_jsonc_root(doc), ref, 1), "line %d: trees differ\n  jsonc %s\n  cjson %s", line,
		       a, b);
		CHECKF(a && b && strcmp(a, b) == 0, "line %d: prints differ\n  %s\n  %s", line, a, b);
		free(a);
		free(b);
		n = count_nodes_with_pos(doc, gl_jsonc_root(doc), &missing);
		CHECKF(missing == 0, "line %d: %d of %d nodes have no position", line, missing, n);
	}
	cJSON_Delete(ref);
	gl_jsonc_free(doc);
}
#define SAME(jsonc, plain) same_as_cjson(jsonc, plain, __LINE__)

static void test_round_trip(void)
{
	SAME("{\"a\": 1} // c", "{\"a\": 1}");
	SAME("/* lead */ [1, /* mid */ 2, // line\n 3]", "[1, 2, 3]");
	SAME("{\"url\": \"http://x/*y*/ // z\", \"b\": \"/\"}", "{\"url\": \"http://x/*y*/ // z\", \"b\": \"/\"}");
	SAME("[\"\\u00e9\\u20AC\\uD83D\\uDE00\", \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]",
	     "[\"\\u00e9\\u20AC\\uD83D\\uDE00\", \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]");
	SAME("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u001f\\u007f\"]",
	     "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u001f\\u007f\"]");
	SAME("[0, -0, 1.5, -2.25e-3, 1E+2, 123456789012, 1e-400, 1.7976931348623157e308]",
	     "[0, -0, 1.5, -2.25e-3, 1E+2, 123456789012, 1e-400, 1.7976931348623157e308]");
	SAME("[true, false, null, {}, [], [[]], {\"\": {}}]", "[true, false, null, {}, [], [[]], {\"\": {}}]");
	SAME("\"top\"", "\"top\"");
	SAME("/**/null/**/", "null");
	SAME("/***/ [ /* ** / */ 1 ] //", "[1]");
	SAME("{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}, \"x\": {\"x\": {\"x\": 3}}}",
	     "{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}, \"x\": {\"x\": {\"x\": 3}}}");
	SAME("{\"A\": 1, \"a\": 2}", "{\"A\": 1, \"a\": 2}"); /* keys are case-sensitive */

	/* A whole scenario, abridged: hosts, phases and targets, with line and
	 * block comments beside the values. */
	SAME("{\n"
	     "  \"name\": \"acceptance-168h\",\n"
	     "  \"duration\": \"168h\",              // durations: 500ms 90s 10m 168h 1h30m\n"
	     "  \"window\": \"10s\",                 // analysis window\n"
	     "  \"hosts\": { \"gpu-a\": { \"ssh\": \"ops@gpu-a:22\", \"key\": \"~/.ssh/id_ed25519\" },\n"
	     "             \"lab-w1\": { \"local\": true, \"netns\": \"gl-w1\" } },   // local\n"
	     "  \"phases\": [ { \"name\": \"warmup\", \"for\": \"30m\" },\n"
	     "              { \"name\": \"shock\", \"for\": \"1h\", \"load\": 3.0 } ],  /* 3x */\n"
	     "  \"targets\": { \"steady\": { \"inference.ttft_ms.p99\": \"<= 800\" } }\n"
	     "}\n",
	     "{\"name\": \"acceptance-168h\", \"duration\": \"168h\", \"window\": \"10s\",\n"
	     " \"hosts\": { \"gpu-a\": { \"ssh\": \"ops@gpu-a:22\", \"key\": \"~/.ssh/id_ed25519\" },\n"
	     "            \"lab-w1\": { \"local\": true, \"netns\": \"gl-w1\" } },\n"
	     " \"phases\": [ { \"name\": \"warmup\", \"for\": \"30m\" },\n"
	     "             { \"name\": \"shock\", \"for\": \"1h\", \"load\": 3.0 } ],\n"
	     " \"targets\": { \"steady\": { \"inference.ttft_ms.p99\": \"<= 800\" } } }");
}

/* Inputs that are not NUL-terminated end where len says. */
static void test_lengths(void)
{
	struct gl_err err = { 0 };
	struct gl_jsonc_doc *doc;

	doc = parse_n("[1,2]garbage", 5, &err);
	CHECKF(doc && cJSON_GetArraySize(gl_jsonc_root(doc)) == 2, "%s", err.msg);
	gl_jsonc_free(doc);

	doc = parse_n("123", 2, &err);
	CHECKF(doc && gl_jsonc_root(doc)->valuedouble == 12, "%s", err.msg);
	gl_jsonc_free(doc);

	doc = parse_n("true", 3, &err);
	CHECK(doc == NULL);
	gl_jsonc_free(doc);
	bad_n("\"abc\"", 4, "s.json:1:1: unterminated string, expected '\"'", __LINE__);
	bad_n("/* x */", 6, "s.json:1:1: unterminated comment, expected '*/'", __LINE__);
	bad_n("\"\\u12345\"", 6, "s.json:1:2: invalid \\u escape, expected four hex digits", __LINE__);
}

/* Many keys: the duplicate check is a hash set, and still finds the last. */
static void test_many_keys(void)
{
	enum { N = 20000 };
	size_t cap = (size_t)N * 24 + 64, k = 0;
	char *text = malloc(cap);
	struct gl_err err = { 0 };
	struct gl_jsonc_doc *doc;

	CHECK(text != NULL);
	if (!text)
		return;
	k += (size_t)snprintf(text + k, cap - k, "{\n");
	for (int i = 0; i < N; i++)
		k += (size_t)snprintf(text + k, cap - k, "\"key%d\": [%d],\n", i, i);
	k += (size_t)snprintf(text + k, cap - k, "\"last\": 0}");
	doc = parse_n(text, k, &err);
	CHECKF(doc && cJSON_GetArraySize(gl_jsonc_root(doc)) == N + 1, "%s", err.msg);
	if (doc) {
		int missing = 0;
		int n = count_nodes_with_pos(doc, gl_jsonc_root(doc), &missing);
		CHECKF(n == 1 + 2 * N + 1 && missing == 0, "%d nodes, %d missing", n, missing);
		pos_is(doc, cJSON_GetObjectItemCaseSensitive(gl_jsonc_root(doc), "key12345"), 12345 + 2, 1, "key12345");
		pos_is(doc, cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(gl_jsonc_root(doc), "key7"), 0), 9, 10,
		       "key7[0]");
	}
	gl_jsonc_free(doc);

	/* Replace "last" with a repeat of key19999's name. */
	k -= strlen("\"last\": 0}");
	k += (size_t)snprintf(text + k, cap - k, "\"key4\": 0}");
	bad_n(text, k, "s.json:20002:1: duplicate key \"key4\" (first at 6:1)", __LINE__);

	/* A long key is shortened in the message. */
	{
		char buf[300];
		int n = snprintf(buf, sizeof(buf), "{\"%0100d\": 1, \"%0100d\": 2}", 0, 0);
		struct gl_err e2 = { 0 };
		CHECK(parse_n(buf, (size_t)n, &e2) == NULL);
		CHECKF(strstr(e2.msg, "duplicate key \"000") && strstr(e2.msg, "...\" (first at 1:2)"), "%s", e2.msg);
	}
	free(text);
}

int main(void)
{
	test_positions();
	test_errors();
	test_round_trip();
	test_lengths();
	test_many_keys();
	return check_done();
}
