# The local lab end to end: lab up (twice), the lab soak at --time-scale 2.5
# with every fault kind, lab down leaving nothing, and cleanup after a
# SIGKILLed lab up. Its namespaces and interface names are machine-wide and
# its soak judges latency: it runs alone.
if(TARGET gauntlet-train)
  gl_script_test(test_lab ${GL_TESTS_DIR}/scripts/test_lab.sh TIMEOUT 420)
  set_tests_properties(test_lab PROPERTIES RUN_SERIAL TRUE)
endif()
