# `gauntlet simulate` (docs/simulation.md): the controller on a virtual
# clock against workload and fault models; figures known without it, kills
# and resumes, seeds reproduced, bad input (about 40 s on two cores).
gl_script_test(test_simulate ${GL_TESTS_DIR}/scripts/test_simulate.sh TIMEOUT 600)
