# Security: a secret used by a run is found in none of its outputs, logs,
# children or scrapes; files a scenario names stay under allowed roots.
gl_script_test(test_secrets ${GL_TESTS_DIR}/scripts/test_secrets.sh TIMEOUT 120)
gl_script_test(test_confine ${GL_TESTS_DIR}/scripts/test_confine.sh TIMEOUT 60)
# Run directories and stores another local user prepared (tests/security/):
# as root, with `nobody` laying the traps.
gl_script_test(test_sec_rundir ${GL_TESTS_DIR}/security/test_rundir.sh TIMEOUT 120)
# The metrics endpoint under 1,000 dribbling connections with 200
# descriptors: the fault's steps still run, the log stays small.
gl_script_test(test_sec_endpoint ${GL_TESTS_DIR}/security/test_endpoint.sh TIMEOUT 180)
# Traces with no row to replay are refused; random traces through run end,
# and a SIGTERM ends each within 5 s.
gl_script_test(test_sec_traces ${GL_TESTS_DIR}/security/test_traces.sh TIMEOUT 300)
gl_test_asan_long(test_sec_traces)
# What a scenario may make root read (roots come from the operator; token
# files, ssh keys and known_hosts confined) and secrets that would forge a
# request header.
gl_script_test(test_sec_paths ${GL_TESTS_DIR}/security/test_paths.sh TIMEOUT 120)
# What gauntlet shows (names, dry run, logs) cannot hide or forge what it
# runs or what happened.
gl_script_test(test_sec_output ${GL_TESTS_DIR}/security/test_output.sh TIMEOUT 120)
# The smaller inputs of docs/security.md: the null fault's marker, --set
# through the strict parser, --time-scale overflow, lab --dir quoting, FIFOs
# named by a scenario, 70,000 faults, the target's idle timeout, netns and
# interface names that would be options or paths.
gl_script_test(test_sec_low ${GL_TESTS_DIR}/security/test_low.sh TIMEOUT 180)
# Hostile peers on the load agents' port: a flood of 16 MiB frame
# announcements, a crowd holding the waiting places, a forger with a real
# launch token, agents kept out (the run fails its delivered target).
gl_script_test(test_sec_agents_port ${GL_TESTS_DIR}/security/test_agents_port.sh TIMEOUT 300)
gl_test_asan_long(test_sec_agents_port)
# Webhooks are independent: beside two receivers that hang, a healthy one
# gets every message of a run with two faults; the run's exit code and the
# hanging webhooks' counted failures.
gl_script_test(test_sec_webhooks ${GL_TESTS_DIR}/security/test_webhooks.sh TIMEOUT 180)
# A stop is always clean: SIGTERM or SIGINT in the inventory (local and
# over ssh), preflight, a before gate, the wait for load agents and report
# rendering ends the run with exit 3, reported aborted; connect_timeout's
# bound.
gl_script_test(test_sec_stop ${GL_TESTS_DIR}/security/test_stop.sh TIMEOUT 240)
# What the reports copy from a scenario, a command or a page cannot act in
# a reader's tool: report.md escapes raw HTML and keeps its tables whole;
# report.html carries a strict Content-Security-Policy that a browser
# opening it as a file enforces; report.pdf's browser reads no local file
# (gl_render_pdf prints hostile pages through gl_report_pdf).
add_executable(gl_render_pdf ${GL_TESTS_DIR}/tools/render_pdf.c)
target_link_libraries(gl_render_pdf PRIVATE gauntlet_core)
gl_script_test(test_sec_reports ${GL_TESTS_DIR}/security/test_reports.sh TIMEOUT 180)
if(NOT GL_FUZZ)
  set_property(TEST test_sec_reports${GL_TEST_SUFFIX} APPEND PROPERTY ENVIRONMENT "GL_RENDER_PDF=$<TARGET_FILE:gl_render_pdf>")
endif()
