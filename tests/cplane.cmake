# The control_plane_loss fault kind end to end: a real 3-member etcd cluster
# on loopback (leader SIGKILL and restart, exec stop/start of a follower,
# quorum loss failing verify) and Redfish power off/on against a mock BMC
# that checks the exact requests; skips when etcd is not installed.
gl_script_test(test_cplane ${GL_TESTS_DIR}/scripts/test_cplane.sh TIMEOUT 300)
gl_test_asan_long(test_cplane)
