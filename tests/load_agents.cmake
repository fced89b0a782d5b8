# Load agents through real mpirun against `gauntlet target` replicas on
# loopback: one trace replayed by one process, 2 and 4 agents with exact
# counts, window by window, and TTFT within 5 % (test_agents); an agent
# SIGKILLed and relaunched, the token, a SIGKILLed controller and resume,
# storage through agents (test_agents_fail).
gl_script_test(test_agents ${GL_TESTS_DIR}/scripts/test_agents.sh TIMEOUT 300)
gl_test_asan_long(test_agents)
# Its TTFT comparisons want the CPU to themselves, like test_inference's.
gl_test_alone(test_agents)
# Nothing here is timed: it runs beside other tests.
gl_script_test(test_agents_fail ${GL_TESTS_DIR}/scripts/test_agents_fail.sh TIMEOUT 300)
gl_test_asan_long(test_agents_fail)
