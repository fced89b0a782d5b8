# The local lab end to end: lab up (twice), the lab soak at --time-scale 2.5
# with every fault kind, lab down leaving nothing, and cleanup after a
# SIGKILLed lab up. Its namespaces, interface names and Slurm cluster are
# machine-wide: one lab test at a time (the other build's twin, test_drain's
# Slurm). Its soak's targets are loose enough to hold beside other tests.
#
# The plain build only. Its soak judges recovery windows (a training restore
# within the run, under load from the tests beside it), which the sanitizer
# build's ranks, several times slower, miss on a loaded machine; and at
# 200 s it is the suite's longest test. Everything it drives runs under
# ASan + UBSan in its own test: each fault kind (test_drain, test_netfaults,
# test_procfaults, test_cplane, test_model_swap), the workloads
# (test_inference, test_training, test_train, test_storage), agents and
# the lab's parts (test_agents, test_gates, test_evidence); the twins of
# the long ones are labelled asan_long and run with GL_ASAN_ALL=1.
if(NOT GL_SANITIZE)
  gl_script_test(test_lab ${GL_TESTS_DIR}/scripts/test_lab.sh TIMEOUT 600)
  gl_test_lock(test_lab lab slurm)
endif()
