# The scenario's webhooks (notify): a run against a real HTTP receiver on
# loopback that answers 200, 500 or never; the URL kept secret.
gl_script_test(test_notify ${GL_TESTS_DIR}/scripts/test_notify.sh TIMEOUT 120)
# Its queue: bounded, the oldest non-end messages dropped, every message
# counted once (a receiver driven by hand).
gl_unit_test(test_notify_queue ${GL_TESTS_DIR}/unit/test_notify_queue.c TIMEOUT 60)
