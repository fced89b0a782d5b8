# The storage workload on real files, a tmpfs it fills, the blkio cgroup
# its threads join, fio as an engine, and the safety refusals. Rates are
# compared across windows: it runs alone.
gl_script_test(test_storage ${GL_TESTS_DIR}/scripts/test_storage.sh TIMEOUT 400)
gl_test_asan_long(test_storage)
gl_test_alone(test_storage)
