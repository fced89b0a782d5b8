# Acceptance test of `gauntlet validate`: shipped scenarios valid, the corpus
# in tests/scenarios/bad/ rejected naming the place (see tests/scenarios/bad/EXPECT).
gl_script_test(test_validate ${GL_TESTS_DIR}/scripts/test_validate.sh TIMEOUT 300)
