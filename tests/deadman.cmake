# The dead-man's switch hooks of every fault kind (plugin.h deadman and
# deadman_none): each kind's and method's watcher script is its exact
# revert command (sh reads the words back, sh -n accepts it), API methods
# have none and say why; exec's and process_kill's scripts also run.
gl_unit_test(test_deadman_ops ${GL_TESTS_DIR}/unit/test_deadman_ops.c TIMEOUT 60)
