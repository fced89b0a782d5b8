# Inference-side parsers of loadgen/: SSE framing + OpenAI chunk
# interpretation (sse.c), the streamed trace readers + prompt synthesis
# (trace.c) and the HTTP/1.1 response parser of the client transport
# (http1.c). Sample traces live in scenarios/traces/, broken ones in
# tests/traces/; oversized lines are made at test time.
gl_unit_test(test_sse ${GL_TESTS_DIR}/unit/test_sse.c TIMEOUT 60)
gl_unit_test(test_trace ${GL_TESTS_DIR}/unit/test_trace.c TIMEOUT 60)
gl_unit_test(test_http1 ${GL_TESTS_DIR}/unit/test_http1.c TIMEOUT 60)
gl_fuzz_target(fuzz_sse)
gl_fuzz_target(fuzz_trace)
gl_fuzz_target(fuzz_http1)
