# The inference load generator end to end against `gauntlet target` on
# loopback: timings against the target's model, coordinated omission, trace
# replay, closed loop, phases, secrets (test_inference); every error class
# from misbehaving servers (test_inference_errors).
gl_script_test(test_inference ${GL_TESTS_DIR}/scripts/test_inference.sh TIMEOUT 420)
gl_test_asan_long(test_inference)
# Its timing checks (medians against the target's model) want the CPU to
# themselves: nothing else runs beside them, even under ctest -j.
gl_test_alone(test_inference)
# The error cases time nothing: they run beside other tests, and side by side.
gl_script_test(test_inference_errors ${GL_TESTS_DIR}/scripts/test_inference_errors.sh TIMEOUT 300)
gl_test_asan_long(test_inference_errors)
# Drift targets (docs/metrics.md, "Drift"): the Theil-Sen fit against
# series known by hand (exact lines, outliers, flat noise, i^2 for Sen's
# interval, too few windows, the 256 buckets of a long run).
gl_unit_test(test_drift_fit ${GL_TESTS_DIR}/unit/test_drift_fit.c TIMEOUT 60)
# ... and end to end: `gauntlet target --ttft-drift-ms-per-hour` over
# loopback, the fitted slope against the true one, a drift the absolute
# target passes caught, a flat server passed.
gl_script_test(test_drift ${GL_TESTS_DIR}/scripts/test_drift.sh TIMEOUT 120)
gl_test_asan_long(test_drift)
# Client saturation: a client beyond one core's rate has its windows
# marked saturated and judged by no target; a calm client beside it none.
# Alone in the plain build: its saturated client takes a whole core.
gl_script_test(test_saturation ${GL_TESTS_DIR}/scripts/test_saturation.sh TIMEOUT 120)
gl_test_alone(test_saturation)
gl_test_asan_long(test_saturation)
# The prefix cache figures against a ground truth: a Mooncake trace whose
# cached tokens the test computes itself, served by `gauntlet target
# --prefix-cache-blocks` (one never evicting, one LRU, one without a cache,
# one restarted); its TTFT medians against the model want the CPU alone.
gl_script_test(test_prefix_cache ${GL_TESTS_DIR}/scripts/test_prefix_cache.sh TIMEOUT 120)
gl_test_alone(test_prefix_cache)
# Multi-turn conversations ("sessions") against the target's prefix cache:
# the history grows by a known count a turn, so the later turns' cached
# tokens and TTFT are known (open loop streaming chat, closed loop
# non-streaming completions); its TTFT medians want the CPU alone.
gl_script_test(test_sessions ${GL_TESTS_DIR}/scripts/test_sessions.sh TIMEOUT 120)
gl_test_alone(test_sessions)
# The SLA edge search (loadgen/inference_edge_search.h) against an exact
# oracle: geometric steps up, then bisection; the bracket always holds the
# true edge, its width halves with each bisection, every outcome, lost
# probes change nothing.
gl_unit_test(test_edge_search ${GL_TESTS_DIR}/unit/test_edge_search.c TIMEOUT 60)
# Edge phases against `gauntlet target --max-seqs 20` (capacity 50 req/s by
# its timing model): the SLA edge found within 10 % of it, the later phase
# at 0.8 x the edge, no edge (even "from" fails) failing the verdict, a
# resumed run reusing the stored edge, compare, simulate, validate's
# refusals (docs/scenario.md, "Edge phases").
gl_script_test(test_edge ${GL_TESTS_DIR}/scripts/test_edge.sh TIMEOUT 120)
gl_test_alone(test_edge)
gl_test_asan_long(test_edge)
# The own HTTP/1.1 client against the server's own counts and libcurl's:
# which endpoints it takes, exact token and answer counts, connections
# the server shuts after each answer or closes when idle, IPv6. Counts
# only, nothing timed: it runs beside other tests.
gl_script_test(test_http_client ${GL_TESTS_DIR}/scripts/test_http_client.sh TIMEOUT 120)
