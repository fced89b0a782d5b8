# The Grafana dashboard (contrib/grafana/gauntlet.json) against real scrapes
# of a run with every workload it draws (inference against a real target,
# storage, training under real mpirun, a null fault): every series its
# panels select is served (tests/scripts/dashboard_check.py), and the
# checker fails on a copy that asks for one that is not.
#
# The plain build only: what it judges is the dashboard and the names the
# endpoint serves, the same in both builds; the endpoint's code runs under
# ASan + UBSan in test_live, test_promtool and test_status.
if(NOT GL_SANITIZE)
  gl_script_test(test_dashboard ${GL_TESTS_DIR}/scripts/test_dashboard.sh TIMEOUT 180)
endif()
