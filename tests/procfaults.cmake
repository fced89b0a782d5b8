# The process_kill and storage_throttle fault kinds end to end: real
# processes signalled (KILL, STOP/CONT, also after a controller crash),
# selection limits, a throttled cgroup measured with dd, tc in a netns,
# and validation of their params.
gl_script_test(test_procfaults ${GL_TESTS_DIR}/scripts/test_procfaults.sh TIMEOUT 300)
gl_test_asan_long(test_procfaults)
