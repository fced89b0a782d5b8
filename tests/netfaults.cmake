# The network fault kinds (faults/link_flap.c, faults/partition.c) for real,
# on network namespaces joined by a veth pair; needs root, skips otherwise.
gl_script_test(test_netfaults ${GL_TESTS_DIR}/scripts/test_netfaults.sh TIMEOUT 300)
gl_test_asan_long(test_netfaults)
