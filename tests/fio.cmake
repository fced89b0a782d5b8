# fio JSON report parser of loadgen/ (fio.c): one report, and the stream of
# reports --status-interval prints. Captured outputs (fio 3.33, trimmed) live
# in tests/fio/, the fuzz corpus in tests/fuzz/corpus/fuzz_fio/; the test also
# runs real fio from PATH in a temp dir and skips that part without it.
# The source dir is compiled in too, so the test also runs outside ctest.
gl_unit_test(test_fio ${GL_TESTS_DIR}/unit/test_fio.c TIMEOUT 120)
target_compile_definitions(test_fio PRIVATE GL_FIO_TEST_SRC="${CMAKE_SOURCE_DIR}")
gl_fuzz_target(fuzz_fio)
