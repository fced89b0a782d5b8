# The scenario's webhooks (notify): a run against a real HTTP receiver on
# loopback that answers 200, 500 or never; the URL kept secret.
gl_script_test(test_notify ${GL_TESTS_DIR}/scripts/test_notify.sh TIMEOUT 120)
# Its queue: bounded, the oldest non-end messages dropped, every message
# counted once (a receiver driven by hand).
gl_unit_test(test_notify_queue ${GL_TESTS_DIR}/unit/test_notify_queue.c TIMEOUT 60)
# Webhooks agree with the record: a target missed then passing again is
# withdrawn (target_recovered), the end's figures are the final report's,
# a fault message names what it acts on.
gl_script_test(test_notify_record ${GL_TESTS_DIR}/scripts/test_notify_record.sh TIMEOUT 120)
