# The local lab end to end: lab up (twice), the lab soak at --time-scale 2.5
# with every fault kind, lab down leaving nothing, and cleanup after a
# SIGKILLed lab up. Its namespaces, interface names and Slurm cluster are
# machine-wide: one lab test at a time (the other build's twin, test_drain's
# Slurm). Its soak's targets are loose enough to hold beside other tests.
gl_script_test(test_lab ${GL_TESTS_DIR}/scripts/test_lab.sh TIMEOUT 420)
gl_test_lock(test_lab lab slurm)
