/*
 * escape.h - text from outside (a scenario, the store, a command's output)
 * put into HTML or Markdown so that it stays text there: one policy for
 * each format, written down here, used by every report.
 *
 * Each appends to a gl_buf. An append the buffer refuses (its cap, or
 * memory) is skipped and the rest still tried; the first refusal's code
 * (-GL_ELIMIT or -GL_ENOMEM) is returned, else 0, and b->cut is set. s may
 * be NULL (nothing is appended).
 */
#ifndef GL_ESCAPE_H
#define GL_ESCAPE_H

#include "util.h"

/* HTML (and XML) text and attribute values alike: '&', '<', '>', '"' and
 * '\'' become &amp; &lt; &gt; &quot; &#39;; tab and newline a space; other
 * control characters, DEL and bytes that are not valid UTF-8 U+FFFD, so a
 * stray byte from a command's output cannot garble the page; valid UTF-8
 * is copied as it is. */
int gl_html_text(struct gl_buf *b, const char *s);

/* Markdown text in a line or a table cell, read raw or through a renderer
 * that passes HTML through: '<', '>' and '&' become entities (no tag,
 * comment or autolink); backslash, '`', '|', '[' and ']' are
 * backslash-escaped (no code span, link or image opens, no table cell
 * ends); control characters and DEL become spaces (no row or line is cut,
 * no heading or list starts). Emphasis characters are left alone: at worst
 * they italicize. Other bytes are copied as they are. */
int gl_md_text(struct gl_buf *b, const char *s);

/* s as a Markdown code span in a table cell when that shows it as it is:
 * no backtick (it would end the span), no '<', '>' or '&' (inside a span
 * an entity shows as itself), no control character; '|' as \| (GFM splits
 * cells before spans). Anything else goes out as gl_md_text, unformatted. */
int gl_md_code(struct gl_buf *b, const char *s);

#endif
