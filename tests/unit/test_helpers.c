/*
 * test_helpers.c - the small shared helpers of harness/lib: gl_html_text,
 * gl_md_text and gl_md_code (escape.h), gl_env_name_ok and gl_sleep_ns
 * (util.h). Each case names the byte or the name that decides it.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "escape.h"
#include "util.h"

/* fn(s) into a fresh buffer of at most max bytes; the text, or NULL */
static char *run(int (*fn)(struct gl_buf *, const char *), const char *s, size_t max, int *rc)
{
	static struct gl_buf b;
	gl_buf_free(&b);
	gl_buf_init(&b, max);
	*rc = fn(&b, s);
	return b.data ? b.data : (char *)"";
}

static int same(int (*fn)(struct gl_buf *, const char *), const char *in, const char *want)
{
	int rc;
	const char *got = run(fn, in, 1 << 16, &rc);
	if (rc == 0 && !strcmp(got, want))
		return 1;
	fprintf(stderr, "  %s -> \"%s\" (rc %d), want \"%s\"\n", in ? in : "(null)", got, rc, want);
	return 0;
}

static int64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void)
{
	int rc;

	/* HTML: the five characters, tab and newline, controls, UTF-8 */
	CHECK(same(gl_html_text, "plain text 123", "plain text 123"));
	CHECK(same(gl_html_text, "a&b<c>d\"e'f", "a&amp;b&lt;c&gt;d&quot;e&#39;f"));
	CHECK(same(gl_html_text, "<script>", "&lt;script&gt;"));
	CHECK(same(gl_html_text, "a\tb\nc", "a b c"));
	CHECK(same(gl_html_text,
		   "a\rb\x01"
		   "c\x7f",
		   "a\xEF\xBF\xBD"
		   "b\xEF\xBF\xBD"
		   "c\xEF\xBF\xBD"));
	CHECK(same(gl_html_text, "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80",
		   "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
	CHECK(same(gl_html_text, "x\xC3", "x\xEF\xBF\xBD")); /* cut sequence */
	CHECK(same(gl_html_text, "\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD")); /* overlong */
	CHECK(same(gl_html_text, "\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD")); /* surrogate */
	CHECK(same(gl_html_text, "\xFF", "\xEF\xBF\xBD"));
	CHECK(same(gl_html_text, "", ""));
	CHECK(same(gl_html_text, NULL, ""));

	/* Markdown text: entities, backslash escapes, controls as spaces,
	 * emphasis characters kept */
	CHECK(same(gl_md_text, "plain text 123", "plain text 123"));
	CHECK(same(gl_md_text, "<b>&", "&lt;b&gt;&amp;"));
	CHECK(same(gl_md_text, "a|b`c\\d[e]f", "a\\|b\\`c\\\\d\\[e\\]f"));
	CHECK(same(gl_md_text, "l1\nl2\rx\ty\x7f", "l1 l2 x y "));
	CHECK(same(gl_md_text, "*a* _b_ #c", "*a* _b_ #c"));
	CHECK(same(gl_md_text, "caf\xC3\xA9", "caf\xC3\xA9"));
	CHECK(same(gl_md_text, NULL, ""));

	/* Markdown code span: shown as it is, '|' escaped; else text */
	CHECK(same(gl_md_code, "gpu-a:8000", "`gpu-a:8000`"));
	CHECK(same(gl_md_code, "a|b", "`a\\|b`"));
	CHECK(same(gl_md_code, "a`b", "a\\`b"));
	CHECK(same(gl_md_code, "a<b", "a&lt;b"));
	CHECK(same(gl_md_code, "a\nb", "a b"));
	CHECK(same(gl_md_code, "", "``"));

	/* a refused append: the rest is still tried, the first code returned */
	{
		const char *got = run(gl_html_text, "ab&cd", 4, &rc);
		CHECKF(rc == -GL_ELIMIT && !strcmp(got, "abcd"), "rc %d, \"%s\"", rc, got);
		got = run(gl_md_text, "ab<cd", 4, &rc);
		CHECKF(rc == -GL_ELIMIT && !strcmp(got, "abcd"), "rc %d, \"%s\"", rc, got);
	}

	/* environment variable names */
	{
		char big[GL_ENV_NAME_MAX + 2];
		static const char *const good[] = { "A", "_", "TOKEN", "api_key_2", "_X9", "a" };
		static const char *const bad[] = { "",    "9TOKEN", "0", "A-B", "A.B",      "A B",
						   "A=B", "$A",     "é", "A\n", "https://x" };
		for (size_t i = 0; i < GL_ARRAY_LEN(good); i++)
			CHECKF(gl_env_name_ok(good[i]) == 1, "'%s'", good[i]);
		for (size_t i = 0; i < GL_ARRAY_LEN(bad); i++)
			CHECKF(gl_env_name_ok(bad[i]) == 0, "'%s'", bad[i]);
		CHECK(gl_env_name_ok(NULL) == 0);
		memset(big, 'A', sizeof(big));
		big[GL_ENV_NAME_MAX] = '\0';
		CHECK(gl_env_name_ok(big) == 1);
		big[GL_ENV_NAME_MAX] = 'A';
		big[GL_ENV_NAME_MAX + 1] = '\0';
		CHECK(gl_env_name_ok(big) == 0);
	}

	/* sleeping: at least the time asked (below and above a second), and
	 * nothing for a negative time */
	{
		int64_t t0 = mono();
		gl_sleep_ns(30 * 1000000LL);
		int64_t d = mono() - t0;
		CHECKF(d >= 30 * 1000000LL && d < 2000 * 1000000LL, "30 ms took %lld ns", (long long)d);
		t0 = mono();
		gl_sleep_ns(1000000000LL + 20 * 1000000LL);
		d = mono() - t0;
		CHECKF(d >= 1020 * 1000000LL && d < 3000 * 1000000LL, "1.02 s took %lld ns", (long long)d);
		t0 = mono();
		gl_sleep_ns(-5 * 1000000000LL);
		d = mono() - t0;
		CHECKF(d < 100 * 1000000LL, "a negative time took %lld ns", (long long)d);
	}
	return check_done();
}
