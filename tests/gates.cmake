# Diagnostic gates (docs/gates.md): a stand-in dcgmi serving recorded DCGM
# 3 and 4 outputs (tests/gates/) before and after null soaks; command gates;
# malformed output. And the reader of `dcgmi diag -j` under the fuzzer,
# seeded with those recordings.
gl_script_test(test_gates ${GL_TESTS_DIR}/scripts/test_gates.sh TIMEOUT 120)
gl_fuzz_target(fuzz_dcgm_diag)
