# Telemetry probes: the Prometheus text parser (prom.c: valid exporter text,
# escapes, DCGM blanks, caps, classified garbage; fuzzed) and the telemetry
# workload end to end against a real HTTP server on loopback serving DCGM
# exporter text (pass while counters stay, fail when the XID rises).
gl_unit_test(test_prom ${GL_TESTS_DIR}/unit/test_prom.c TIMEOUT 60)
gl_fuzz_target(fuzz_prom)
gl_script_test(test_telemetry ${GL_TESTS_DIR}/scripts/test_telemetry.sh TIMEOUT 120)
# GPUs as nodes (docs/nodes.md): 2 hosts x 4 GPUs served on loopback; a hot
# GPU, a throttled one, an XID and double-bit ECC errors are the suspects,
# a clean run has none.
gl_script_test(test_telemetry_nodes ${GL_TESTS_DIR}/scripts/test_telemetry_nodes.sh TIMEOUT 120)
