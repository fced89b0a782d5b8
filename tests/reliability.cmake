# Crash torture (tests/reliability/): a time-scaled soak with faults whose
# controller is SIGKILLed 20 times and resumed each time; nothing may be
# lost beyond the last second, no fault may outlive the run, and the final
# report must agree with the store. About 100 s of real time, beside other
# tests; its one rate check (ticks per window) is judged by the plain build.
gl_script_test(test_torture ${GL_TESTS_DIR}/reliability/torture.sh TIMEOUT 400 LABELS reliability)
gl_test_asan_long(test_torture)
