# The inference load generator end to end against `gauntlet target` on
# loopback: timings against the target's model, coordinated omission, trace
# replay, closed loop, phases, secrets (test_inference); every error class
# from misbehaving servers (test_inference_errors).
gl_script_test(test_inference ${GL_TESTS_DIR}/scripts/test_inference.sh TIMEOUT 420)
gl_test_asan_long(test_inference)
# Its timing checks (medians against the target's model) want the CPU to
# themselves: nothing else runs beside them, even under ctest -j.
gl_test_alone(test_inference)
# The error cases time nothing: they run beside other tests, and side by side.
gl_script_test(test_inference_errors ${GL_TESTS_DIR}/scripts/test_inference_errors.sh TIMEOUT 300)
gl_test_asan_long(test_inference_errors)
