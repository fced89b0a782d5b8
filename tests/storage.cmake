# The storage workload on real files, a tmpfs it fills, the blkio cgroup
# its threads join, fio as an engine, and the safety refusals. Rates are
# compared across windows: it runs alone.
gl_script_test(test_storage ${GL_TESTS_DIR}/scripts/test_storage.sh TIMEOUT 400)
gl_test_asan_long(test_storage)
gl_test_alone(test_storage)
# Per-host storage figures (docs/nodes.md): 4 load agents on loopback, one
# of them in a v1 blkio cgroup made here that holds its writes to 2 MB/s;
# it is the one suspect, at the throttle's rate; a clean run names none.
# Rates are compared with the caps: it runs alone.
gl_script_test(test_storage_nodes ${GL_TESTS_DIR}/scripts/test_storage_nodes.sh TIMEOUT 240)
gl_test_asan_long(test_storage_nodes)
gl_test_alone(test_storage_nodes)
