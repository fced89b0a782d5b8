# Telemetry probes: the Prometheus text parser (prom.c: valid exporter text,
# escapes, DCGM blanks, caps, classified garbage; fuzzed) and the telemetry
# workload end to end against a real HTTP server on loopback serving DCGM
# exporter text (pass while counters stay, fail when the XID rises).
gl_unit_test(test_prom ${GL_TESTS_DIR}/unit/test_prom.c TIMEOUT 60)
gl_fuzz_target(fuzz_prom)
gl_script_test(test_telemetry ${GL_TESTS_DIR}/scripts/test_telemetry.sh TIMEOUT 120)
