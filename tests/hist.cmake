# Histogram (harness/lib/hist.c): accuracy, merge, serialization and the parser.
gl_unit_test(test_hist ${GL_TESTS_DIR}/unit/test_hist.c TIMEOUT 120)
gl_fuzz_target(fuzz_hist)
