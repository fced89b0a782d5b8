/*
 * test_opts.c - option tables (harness/scenario/opts.h): a section
 * validated through the schema.h getters with their messages, the key
 * check's list (the table's keys, then the extra ones), and the config
 * struct filled with the defaults and the given values (int and int64_t
 * fields, an enum's index and -1 for a word not in the list, durations
 * and sizes from their default text).
 */
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "diag.h"
#include "opts.h"

struct cfg {
	char name[8];
	int mode;
	int small;
	int64_t big;
	double x;
	int flag;
	int64_t wait_ns;
	uint64_t bytes;
};

static const char *const modes[] = { "fast", "slow", NULL };

#define AT(f) GL_OPT_AT(struct cfg, f)

static const struct gl_opt table[] = {
	{ "name", GL_OPT_STRING, 1, .len = 8, .help = "a name", AT(name) },
	{ "mode", GL_OPT_ENUM, .words = modes, .len = 32, .def_s = "slow", .help = "how", AT(mode) },
	{ "small", GL_OPT_INT, .lo = 1, .hi = 10, .def_n = 3, .help = "an int", AT(small) },
	{ "big", GL_OPT_INT, .lo = 0, .hi = 9007199254740991.0, .def_n = 7, .help = "an int64_t", AT(big) },
	{ "x", GL_OPT_NUMBER, .lo = 0.5, .hi = 2, .def_n = 1.5, .help = "a number", AT(x) },
	{ "flag", GL_OPT_BOOL, .def_n = 1, .help = "a bool", AT(flag) },
	{ "wait", GL_OPT_DURATION, .def_s = "2s", .help = "a duration", AT(wait_ns) },
	{ "bytes", GL_OPT_SIZE, .def_s = "4KiB", .help = "a size", AT(bytes) },
	{ "list", GL_OPT_CUSTOM, .help = "checked by hand" },
	{ "note", GL_OPT_STRING, .len = 16, .help = "validated, not stored" },
};
#define N (sizeof(table) / sizeof(table[0]))

/* validate text as section "w"; the diagnostics' text */
static char *check(const char *text, int *n_errors)
{
	static char out[4096];
	cJSON *j = cJSON_Parse(text);
	struct gl_diag d;

	gl_diag_init(&d, NULL);
	gl_opts_check_keys(&d, j, "w", table, N, (const char *const[]){ "extra", NULL });
	gl_opts_validate(&d, j, "w", table, N);
	*n_errors = d.n_errors;
	snprintf(out, sizeof(out), "%.*s", (int)d.text.len, d.text.data ? d.text.data : "");
	gl_diag_free(&d);
	cJSON_Delete(j);
	return out;
}

static void has(const char *text, const char *part)
{
	CHECKF(strstr(text, part) != NULL, "'%s' not in:\n%s", part, text);
}

int main(void)
{
	struct cfg c;
	cJSON *j;
	char *t;
	int n;

	/* a good section, the custom and extra keys allowed */
	t = check("{\"name\": \"a\", \"list\": [1], \"extra\": 1}", &n);
	CHECKF(n == 0, "good section: %d errors:\n%s", n, t);

	/* each type's message, the getters' own */
	t = check("{\"mode\": \"medium\", \"small\": 11, \"big\": 1.5, \"x\": \"1\", \"flag\": 1, \"wait\": 5,"
		  " \"bytes\": \"4 furlongs\", \"note\": \"0123456789abcdefXYZ\"}",
		  &n);
	CHECKF(n == 9, "bad section: %d errors:\n%s", n, t);
	has(t, "w: missing required key 'name' (a string)");
	has(t, "w.mode: 'medium' is not one of: fast, slow");
	has(t, "w.small: 11 is out of range, expected 1 to 10");
	has(t, "w.big: expected a whole number, got 1.5");
	has(t, "w.x: expected a number, got a string");
	has(t, "w.flag: expected true or false, got a number");
	has(t, "w.wait: expected a duration string");
	has(t, "w.bytes: ");
	has(t, "w.note: string too long (at most 15 bytes)");

	/* an unknown key: the did-you-mean, else the whole list in order */
	t = check("{\"name\": \"a\", \"mdoe\": \"fast\"}", &n);
	has(t, "w.mdoe: unknown key 'mdoe' (did you mean 'mode'?)");
	t = check("{\"name\": \"a\", \"zzzzzzzz\": 1}", &n);
	has(t, "expected one of: name, mode, small, big, x, flag, wait, bytes, list, note, extra");

	/* the defaults */
	memset(&c, 0x55, sizeof(c));
	j = cJSON_Parse("{}");
	gl_opts_fill(j, table, N, &c);
	CHECK(!strcmp(c.name, ""));
	CHECK(c.mode == 1);
	CHECK(c.small == 3);
	CHECK(c.big == 7);
	CHECK(c.x == 1.5);
	CHECK(c.flag == 1);
	CHECK(c.wait_ns == 2000000000LL);
	CHECK(c.bytes == 4096);
	cJSON_Delete(j);

	/* the values given; a word not in the list is -1 */
	j = cJSON_Parse("{\"name\": \"abc\", \"mode\": \"fast\", \"small\": 9, \"big\": 9007199254740991,"
			" \"x\": 0.75, \"flag\": false, \"wait\": \"1m30s\", \"bytes\": 512}");
	gl_opts_fill(j, table, N, &c);
	CHECK(!strcmp(c.name, "abc"));
	CHECK(c.mode == 0);
	CHECK(c.small == 9);
	CHECK(c.big == 9007199254740991LL);
	CHECK(c.x == 0.75);
	CHECK(c.flag == 0);
	CHECK(c.wait_ns == 90000000000LL);
	CHECK(c.bytes == 512);
	cJSON_Delete(j);
	j = cJSON_Parse("{\"mode\": \"medium\", \"bytes\": \"1MiB\"}");
	gl_opts_fill(j, table, N, &c);
	CHECK(c.mode == -1);
	CHECK(c.bytes == 1048576);
	cJSON_Delete(j);

	CHECK(gl_opts_find(table, N, "wait") == &table[6]);
	CHECK(gl_opts_find(table, N, "nope") == NULL);
	return check_done();
}
