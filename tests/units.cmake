# Value grammar (harness/lib/units.c) and commented-JSON parser (harness/lib/jsonc.c):
# unit tests, and fuzz targets whose corpora replay as ordinary tests.
gl_unit_test(test_units ${GL_TESTS_DIR}/unit/test_units.c TIMEOUT 60)
gl_unit_test(test_jsonc ${GL_TESTS_DIR}/unit/test_jsonc.c TIMEOUT 60)
gl_fuzz_target(fuzz_units)
gl_fuzz_target(fuzz_jsonc)
# The small shared helpers of harness/lib: HTML and Markdown escaping
# (escape.h), environment variable names and sleeping (util.h).
gl_unit_test(test_helpers ${GL_TESTS_DIR}/unit/test_helpers.c TIMEOUT 60)
# SHA-256 (checkpoint shards, scenario hashes): vectors, SHA-NI vs portable.
gl_unit_test(test_sha256 ${GL_TESTS_DIR}/unit/test_sha256.c TIMEOUT 60)
# The check helpers themselves (lib.sh's check, json, skip, part_skip,
# timing, finish; check.h's CHECK, GL_SKIP, check_done) fail on a false
# condition, and strict mode turns skips into failures.
gl_script_test(test_selftest ${GL_TESTS_DIR}/scripts/test_selftest.sh TIMEOUT 60)
