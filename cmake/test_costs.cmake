# The longest tests' measured seconds (a strict CI run on two cores with a
# CPU hog beside it), as ctest's COST: with -j, ctest starts tests in
# descending cost, so the long integration tests start first and the short
# ones fill in around them, instead of a long one starting last and the
# whole run waiting on it (a fresh clone has no CTestCostData.txt, and
# without costs ctest goes by test number, which put test_nodes_asan, 92 s,
# at the very end). The twins in the sanitizer build get the same cost.
# Included after every tests/*.cmake; a name not registered is skipped.
# Tests that run alone (RUN_SERIAL, gl_test_alone) are left out: they run
# by themselves wherever they fall.
set(GL_TEST_COSTS
  test_lab 215 test_netfaults 136 test_procfaults 134 test_torture 109
  test_incidents 106 test_compare_gate 97 test_orphans 93 test_nodes 92
  test_cplane 81 test_sec_agents_port 80 test_agents_fail 75
  test_controller 66 test_compare_runs 63 test_train 56 test_store 54
  test_drain 49 test_sec_traces 48 test_sec_endpoint 44 test_bisect 145)
if(NOT GL_FUZZ)
  list(LENGTH GL_TEST_COSTS gl_n)
  math(EXPR gl_last "${gl_n} - 1")
  foreach(i RANGE 0 ${gl_last} 2)
    math(EXPR j "${i} + 1")
    list(GET GL_TEST_COSTS ${i} gl_name)
    list(GET GL_TEST_COSTS ${j} gl_cost)
    if(TEST ${gl_name}${GL_TEST_SUFFIX})
      set_tests_properties(${gl_name}${GL_TEST_SUFFIX} PROPERTIES COST ${gl_cost})
    endif()
  endforeach()
endif()
