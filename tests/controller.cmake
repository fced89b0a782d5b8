# The controller, store and analysis: recovery definitions on a designed
# store; the whole run with null plug-ins (resume after SIGKILL, SIGTERM,
# abort_if, revert, report from the store); memory flat over a long
# time-scaled timeline.
gl_unit_test(test_analysis ${GL_TESTS_DIR}/unit/test_analysis.c TIMEOUT 60)
# Fault states, verdicts and exit codes (harness/core/states.h): names,
# live and finished, the journal's text through the store.
gl_unit_test(test_states ${GL_TESTS_DIR}/unit/test_states.c TIMEOUT 60)
gl_script_test(test_controller ${GL_TESTS_DIR}/scripts/test_controller.sh TIMEOUT 300)
# Its sanitizer twin (65 s of two busy cores) is asan_long: the controller's
# code runs under the sanitizers in test_store, test_settle and test_evidence.
gl_test_asan_long(test_controller)
gl_script_test(test_memory ${GL_TESTS_DIR}/scripts/test_memory.sh TIMEOUT 180)
gl_script_test(test_soak ${GL_TESTS_DIR}/scripts/test_soak.sh TIMEOUT 180)
# A fault's degraded span ends at its revert plus its settle: exact window
# counts on two real null runs (restored at once, never restored), the
# live endpoint's final scrape against the report.
gl_script_test(test_settle ${GL_TESTS_DIR}/scripts/test_settle.sh TIMEOUT 120)
# The live view: --metrics-listen scraped during a run, against the store and report.
gl_script_test(test_live ${GL_TESTS_DIR}/scripts/test_live.sh TIMEOUT 120)
gl_test_asan_long(test_live)
# gauntlet status: a live or dead controller, failing targets named and
# counted as the live endpoint counts them, and every line of its one
# screen against the store, the endpoint and the scenario (a run with every
# workload: 15 to 30 s on a loaded machine, the sanitizer build included).
gl_script_test(test_status ${GL_TESTS_DIR}/scripts/test_status.sh TIMEOUT 120)
# gauntlet status of a run whose controller was SIGKILLed: one state on its
# first line (stopped, not running, how to resume) and durations for people.
gl_script_test(test_status_killed ${GL_TESTS_DIR}/scripts/test_status_killed.sh TIMEOUT 120)
# The command line: --help on every subcommand, report's list of files.
gl_script_test(test_cli ${GL_TESTS_DIR}/scripts/test_cli.sh TIMEOUT 60)
