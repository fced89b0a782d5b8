# nccl-tests output parser of loadgen/ (nccltests.c): text and JSON reports.
# Sample outputs live in tests/nccltests/, the fuzz corpus in
# tests/fuzz/corpus/fuzz_nccltests/; oversized inputs are made at test time.
# The source dir is compiled in too, so the test also runs outside ctest.
gl_unit_test(test_nccltests ${GL_TESTS_DIR}/unit/test_nccltests.c TIMEOUT 60)
target_compile_definitions(test_nccltests PRIVATE GL_NCCL_TEST_SRC="${CMAKE_SOURCE_DIR}")
gl_fuzz_target(fuzz_nccltests)
