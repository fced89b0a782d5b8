# The inference load generator end to end against `gauntlet target` and
# misbehaving servers on loopback (timings, every error class, coordinated
# omission, trace replay, closed loop, phases, secrets).
gl_script_test(test_inference ${GL_TESTS_DIR}/scripts/test_inference.sh TIMEOUT 420)
# Its timing checks (medians against the target's model) want the CPU to
# themselves: nothing else runs beside them, even under ctest -j.
set_tests_properties(test_inference PROPERTIES RUN_SERIAL TRUE LABELS long)
