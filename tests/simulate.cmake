# `gauntlet simulate` (docs/simulation.md): the controller on a virtual
# clock against workload and fault models; figures known without it, kills
# and resumes, seeds reproduced, bad input (about 40 s on two cores; its
# sanitizer twin, about 150 s beside the suite, is asan_long).
gl_script_test(test_simulate ${GL_TESTS_DIR}/scripts/test_simulate.sh TIMEOUT 600)
gl_test_asan_long(test_simulate)
