/*
 * diag.c - collecting validation messages with their source positions.
 */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

static int files_warn_default;

void gl_diag_files_warn_default(int on)
{
	files_warn_default = on;
}

void gl_diag_init(struct gl_diag *d, const struct gl_jsonc_doc *doc)
{
	d->doc = doc;
	d->n_errors = d->n_warnings = d->n_dropped = 0;
	d->missing_files_warn = files_warn_default;
	gl_buf_init(&d->text, 1 << 20);
}

void gl_diag_free(struct gl_diag *d)
{
	gl_buf_free(&d->text);
}

static void diag_add(struct gl_diag *d, const char *kind, const cJSON *node, const char *path, const char *fmt,
		     va_list ap)
{
	char msg[1024];
	int line = 0, col = 0;
	const char *name = d->doc ? gl_jsonc_name(d->doc) : "scenario";

	if (d->n_errors + d->n_warnings > GL_DIAG_MAX) {
		d->n_dropped++;
		return;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (node && d->doc && gl_jsonc_where(d->doc, node, &line, &col) == 0)
		gl_buf_printf(&d->text, "%s:%d:%d: %s%s%s%s\n", name, line, col, kind, path && *path ? path : "",
			      path && *path ? ": " : "", msg);
	else
		gl_buf_printf(&d->text, "%s: %s%s%s%s\n", name, kind, path && *path ? path : "",
			      path && *path ? ": " : "", msg);
}

void gl_diag_error(struct gl_diag *d, const cJSON *node, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_add(d, "", node, path, fmt, ap);
	va_end(ap);
	d->n_errors++;
}

void gl_diag_warn(struct gl_diag *d, const cJSON *node, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_add(d, "warning: ", node, path, fmt, ap);
	va_end(ap);
	d->n_warnings++;
}

void gl_diag_file(struct gl_diag *d, const cJSON *node, const char *path, const struct gl_err *e)
{
	if (e->code == GL_ENOTFOUND && d->missing_files_warn)
		gl_diag_warn(d, node, path, "%s (not on this machine; run refuses it until it is)", e->msg);
	else
		gl_diag_error(d, node, path, "%s", e->msg);
}
