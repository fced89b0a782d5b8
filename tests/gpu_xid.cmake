# The gpu_xid fault kind end to end against stand-ins that keep state and
# check exact arguments (tests/gpuxid: dcgmi, scontrol, a DCGM exporter,
# "cluster automation" that cordons a tests/scripts/k8s_mock.py node):
# re-injection through the hold, the telemetry workload seeing the XID,
# detection time against the automation's delay and "not detected", the
# dead-man's switch after a SIGKILL, revert from the store, preflight and
# validation. The dcgmi dmon parser is fuzzed in fuzz_http_bodies.
gl_script_test(test_gpu_xid ${GL_TESTS_DIR}/scripts/test_gpu_xid.sh TIMEOUT 120)
