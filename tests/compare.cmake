# gauntlet compare (reports/compare*.c): the Mann-Whitney U test and
# Welch's t test against independently computed values and every verdict
# (floors, first-class tolerances, recovery per fault, the summary) on
# designed stores; then two real runs of scenarios/target-soak.json
# compared with each other and with a copy carrying an injected TTFT
# regression (gl_scale_hist rewrites its histograms through the real store
# and histogram code). Its verdicts hold beside other tests (measured: the
# sanitizer build's runs beside them). test_compare_gate: compare as a
# gate on real runs: two null runs pass in at most 30 lines, a training
# run whose checkpoints cost it ETTR fails naming ETTR first, sub-us
# data-time noise listed under --all and never gating.
gl_unit_test(test_compare ${GL_TESTS_DIR}/unit/test_compare.c TIMEOUT 60)
add_executable(gl_scale_hist ${GL_TESTS_DIR}/tools/scale_hist.c)
target_link_libraries(gl_scale_hist PRIVATE gauntlet_core)
gl_script_test(test_compare_runs ${GL_TESTS_DIR}/scripts/test_compare.sh TIMEOUT 300)
gl_test_asan_long(test_compare_runs)
gl_test_lock(test_compare_runs bisect_cpu) # never beside test_bisect's ranks (tests/training.cmake)
if(NOT GL_FUZZ)
  set_property(TEST test_compare_runs${GL_TEST_SUFFIX} APPEND PROPERTY ENVIRONMENT "GL_SCALE_HIST=$<TARGET_FILE:gl_scale_hist>")
endif()
gl_script_test(test_compare_gate ${GL_TESTS_DIR}/scripts/test_compare_gate.sh TIMEOUT 300)
gl_test_lock(test_compare_gate bisect_cpu) # never beside test_bisect's ranks (tests/training.cmake)
# Its sanitizer twin (100 s) is asan_long: compare's code runs under the
# sanitizers in test_compare (unit) on designed stores.
gl_test_asan_long(test_compare_gate)
