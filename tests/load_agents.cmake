# Load agents through real mpirun against `gauntlet target` replicas on
# loopback: one trace replayed by one process, 2 and 4 agents with exact
# counts and TTFT within 5 %; an agent SIGKILLed and relaunched; the token;
# a SIGKILLed controller and resume (test_agents).
gl_script_test(test_agents ${GL_TESTS_DIR}/scripts/test_agents.sh TIMEOUT 420)
# Its TTFT comparisons want the CPU to themselves, like test_inference's.
gl_test_alone(test_agents)
