# The live endpoint judged by Prometheus's own tools: promtool check metrics
# on scrapes of a real run (before the first window, mid-run with a fault,
# after the end), OpenMetrics through prometheus_client's strict parser, and
# the alerting rules of contrib/prometheus checked and unit-tested.
gl_script_test(test_promtool ${GL_TESTS_DIR}/scripts/test_promtool.sh TIMEOUT 180)
# Content negotiation: which Accept headers get OpenMetrics.
gl_unit_test(test_live_accept ${GL_TESTS_DIR}/unit/test_live_accept.c TIMEOUT 60)
