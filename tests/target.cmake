# The OpenAI-compatible token-streaming target (harness/target/target.c): a unit test
# of its deterministic timing model, a standalone binary (handy before and
# besides the gauntlet binary), and a script test that drives a real server
# with curl, misbehaviour modes included.
add_executable(gl_target_standalone ${GL_TESTS_DIR}/target_main.c)
target_link_libraries(gl_target_standalone PRIVATE gauntlet_core)
gl_unit_test(test_target_model ${GL_TESTS_DIR}/unit/test_target_model.c TIMEOUT 60)
gl_script_test(test_target ${GL_TESTS_DIR}/scripts/test_target.sh TIMEOUT 120)
# Its prefix cache model (--prefix-cache-blocks): chained block keys, the
# leading-run lookup, LRU eviction, against a plain reference LRU.
gl_unit_test(test_target_cache ${GL_TESTS_DIR}/unit/test_target_cache.c TIMEOUT 60)
