# The drain_worker fault kind end to end: exec with marker files,
# kubernetes against a local API server that checks every request
# (tests/scripts/k8s_mock.py), and slurm against a private single-machine
# Slurm cluster (munged, slurmctld, slurmd) started by the test.
gl_script_test(test_drain ${GL_TESTS_DIR}/scripts/test_drain.sh TIMEOUT 300)
gl_test_asan_long(test_drain)
gl_test_lock(test_drain slurm)   # a private Slurm cluster: one at a time (so is the lab)
