# Goodput against `gauntlet target`'s known timings: SLOs every request
# meets, none meets, errors as misses, the figure in report.json, report.md,
# timeseries.csv and as a target.
gl_script_test(test_goodput ${GL_TESTS_DIR}/scripts/test_goodput.sh TIMEOUT 120)
