# Tests written for scripts/mutate.sh (tests/mutations.txt): short checks
# against ground truth set up by the test itself, each killing mutations
# that no other test could notice or only a long, serial test did.
# The fault journal's fsync (counting SQLite VFS), a fault on exact window
# boundaries, report.json's recovery and restore fields.
gl_unit_test(test_mut_store ${GL_TESTS_DIR}/unit/test_mut_store.c TIMEOUT 60)
# Verify failures reported as such; process_kill's default signal is KILL.
gl_script_test(test_mut_faults ${GL_TESTS_DIR}/scripts/test_mut_faults.sh TIMEOUT 120)
# Coordinated omission, trace replay speed, phase load: intended send times.
gl_script_test(test_mut_inference ${GL_TESTS_DIR}/scripts/test_mut_inference.sh TIMEOUT 180)
# Storage verify catches a changed data byte.
gl_script_test(test_mut_storage ${GL_TESTS_DIR}/scripts/test_mut_storage.sh TIMEOUT 120)
# --metrics-listen PORT binds loopback, read from /proc/net/tcp.
gl_script_test(test_mut_live ${GL_TESTS_DIR}/scripts/test_mut_live.sh TIMEOUT 60)
# Confinement by whole path components: $T/data-evil is not under $T/data.
gl_script_test(test_mut_confine ${GL_TESTS_DIR}/scripts/test_mut_confine.sh TIMEOUT 60)
# A telemetry counter reset counts the increase since the reset.
gl_script_test(test_mut_telemetry ${GL_TESTS_DIR}/scripts/test_mut_telemetry.sh TIMEOUT 60)
# Resume keeps the ticks of the window a SIGKILL cut.
gl_script_test(test_mut_resume ${GL_TESTS_DIR}/scripts/test_mut_resume.sh TIMEOUT 60)
# The list itself: every mutation's old text occurs exactly once in its
# file, and a rotten copy is named.
gl_script_test(test_mutation_list ${GL_TESTS_DIR}/scripts/test_mutation_list.sh TIMEOUT 60)
