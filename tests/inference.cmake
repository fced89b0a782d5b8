# The inference load generator end to end against `gauntlet target` and
# misbehaving servers on loopback (timings, every error class, coordinated
# omission, trace replay, closed loop, phases, secrets).
gl_script_test(test_inference ${GL_TESTS_DIR}/scripts/test_inference.sh TIMEOUT 420)
