# The network fault kinds (faults/link_flap.c, faults/partition.c) for real,
# on network namespaces joined by a veth pair; needs root, skips otherwise.
gl_script_test(test_netfaults ${GL_TESTS_DIR}/scripts/test_netfaults.sh TIMEOUT 300)
gl_test_asan_long(test_netfaults)
gl_test_lock(test_netfaults bisect_cpu) # never beside test_bisect's ranks (tests/training.cmake)
