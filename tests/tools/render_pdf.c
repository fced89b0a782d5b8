/*
 * render_pdf.c - test tool: print DIR/report.html to DIR/report.pdf through
 * gl_report_pdf, the code a run's report.pdf comes from (same browser
 * search and trust checks, same browser flags, same deadline), whatever
 * report.html holds. test_sec_reports renders hostile pages with it.
 *
 *   gl_render_pdf DIR
 *
 * Prints gl_report_pdf's message; exit 0 when report.pdf was written, 77
 * when it was skipped (GAUNTLET_PDF=off, no browser), 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>

#include "report.h"

int main(int argc, char **argv)
{
	char msg[1024];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: gl_render_pdf DIR\n");
		return 2;
	}
	/* dated like a run that ended at 2026-01-01T00:00:00Z */
	rc = gl_report_pdf(argv[1], INT64_C(1767225600) * 1000000000, msg, sizeof(msg));
	printf("%s\n", msg);
	return rc == GL_PDF_WRITTEN ? 0 : rc == GL_PDF_SKIPPED ? 77 : 1;
}
