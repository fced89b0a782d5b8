# report.html and timeseries.csv of a real short run (inference against
# `gauntlet target` with a freeze fault, storage), checked statically, against
# run.db and in headless Chromium (skips when Chromium cannot be had).
gl_script_test(test_report_html ${GL_TESTS_DIR}/scripts/test_report_html.sh TIMEOUT 300)
# Per-phase figures in report.html and report.json against each other and
# against the store's windows, counters and per-request rows.
gl_script_test(test_phases ${GL_TESTS_DIR}/scripts/test_phases.sh TIMEOUT 120)
# Every timeline item in report.md and report.html of real short storage
# runs: spikes in the Timeline tables and as bands in every chart (against
# the scenario and the store's event log), and load agents' launch
# commands (against the store's children rows).
gl_script_test(test_timeline ${GL_TESTS_DIR}/scripts/test_timeline.sh TIMEOUT 120)
