/*
 * escape.c - HTML and Markdown escaping (escape.h has the policies).
 */
#include "escape.h"

#include <string.h>

/* Append, keeping the first refusal's code in *rc. */
static void add(struct gl_buf *b, const void *p, size_t n, int *rc)
{
	int r = gl_buf_append(b, p, n);
	if (r && !*rc)
		*rc = r;
}

int gl_html_text(struct gl_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	int rc = 0;

	while (*p) {
		const unsigned char *run = p;
		size_t len;
		/* copy the longest run needing no escape in one append */
		while (*p >= 0x20 && *p < 0x7f && *p != '&' && *p != '<' && *p != '>' && *p != '"' && *p != '\'')
			p++;
		if (p > run)
			add(b, run, (size_t)(p - run), &rc);
		if (!*p)
			break;
		switch (*p) {
		case '&':
			add(b, "&amp;", 5, &rc);
			p++;
			continue;
		case '<':
			add(b, "&lt;", 4, &rc);
			p++;
			continue;
		case '>':
			add(b, "&gt;", 4, &rc);
			p++;
			continue;
		case '"':
			add(b, "&quot;", 6, &rc);
			p++;
			continue;
		case '\'':
			add(b, "&#39;", 5, &rc);
			p++;
			continue;
		case '\t':
		case '\n':
			add(b, " ", 1, &rc);
			p++;
			continue;
		default: break;
		}
		if (*p < 0x80) { /* other control characters, DEL */
			add(b, "\xEF\xBF\xBD", 3, &rc);
			p++;
			continue;
		}
		len = *p >= 0xF0 && *p <= 0xF4 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC2 && *p < 0xE0 ? 2 : 0;
		if (len && len <= strlen((const char *)p) && gl_utf8_valid(p, len)) {
			add(b, p, len, &rc);
			p += len;
		} else {
			add(b, "\xEF\xBF\xBD", 3, &rc);
			p++;
		}
	}
	return rc;
}

int gl_md_text(struct gl_buf *b, const char *s)
{
	int rc = 0;

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '<': add(b, "&lt;", 4, &rc); break;
		case '>': add(b, "&gt;", 4, &rc); break;
		case '&': add(b, "&amp;", 5, &rc); break;
		case '\\':
		case '`':
		case '|':
		case '[':
		case ']':
			add(b, "\\", 1, &rc);
			add(b, s, 1, &rc);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				add(b, " ", 1, &rc);
			else
				add(b, s, 1, &rc);
		}
	}
	return rc;
}

int gl_md_code(struct gl_buf *b, const char *s)
{
	const char *p;
	int rc = 0;

	for (p = s ? s : ""; *p; p++)
		if (strchr("`<>&", *p) || (unsigned char)*p < 0x20 || *p == 0x7f)
			break;
	if (*p)
		return gl_md_text(b, s);
	add(b, "`", 1, &rc);
	for (p = s ? s : ""; *p; p++)
		if (*p == '|')
			add(b, "\\|", 2, &rc);
		else
			add(b, p, 1, &rc);
	add(b, "`", 1, &rc);
	return rc;
}
