# report.pdf's dates rewritten to the run's in place (reports/pdf_dates.c):
# PDFs built with a correct cross-reference table, in Chromium's shape and
# in the shapes it must refuse.
gl_unit_test(test_pdf_dates ${GL_TESTS_DIR}/unit/test_pdf_dates.c TIMEOUT 60)
