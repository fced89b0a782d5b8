# Helpers shared by the tests/*.cmake files.
#
# gl_unit_test(NAME SRC [TIMEOUT s] [LABELS l]): one executable per module,
#   linked with the core library; tests make their own temp dirs.
# gl_script_test(NAME SCRIPT [TIMEOUT s]): a shell test; exit 77 means skip
#   (GL_STRICT=1: lib.sh turns every skip into a failure instead).
# Every test gets GAUNTLET_PDF=off (a run renders no report.pdf: a browser
#   per run would cost the suite minutes; the tests of report.pdf turn it
#   back on) and GL_TEST_NAME (its ctest name): with GL_RESULTS_DIR set
#   (scripts/test.sh), lib.sh and check.h leave their pass/fail/skip counts
#   there under that name.
# Fuzz targets: tests/fuzz/fuzz_X.c define LLVMFuzzerTestOneInput; each also
#   builds with gcc against tests/fuzz/driver.c, which replays a corpus dir.
set(GL_TESTS_DIR ${CMAKE_SOURCE_DIR}/tests)
set(GL_FUZZ_CI_SECONDS 5 CACHE STRING "seconds each NAME_libfuzzer test fuzzes (GL_FUZZ=ON)")

# The sanitizer build's tests carry a suffix ("test_lab_asan"), so that
# scripts/test.sh can run both builds' tests in one ctest, where RUN_SERIAL
# and RESOURCE_LOCK hold across the two.
if(GL_SANITIZE)
  set(GL_TEST_SUFFIX _asan)
else()
  set(GL_TEST_SUFFIX "")
endif()

# gl_test_props(NAME PROP VALUE...): set_tests_properties on NAME as built here.
function(gl_test_props name)
  if(GL_FUZZ)
    return()
  endif()
  set_tests_properties(${name}${GL_TEST_SUFFIX} PROPERTIES ${ARGN})
endfunction()

# gl_test_lock(NAME RESOURCE...): machine-wide things the test uses (names,
# a Slurm cluster) that no other test holding the same RESOURCE may use at
# the same time; its twin in the other build included.
function(gl_test_lock name)
  if(GL_FUZZ)
    return()
  endif()
  set_tests_properties(${name}${GL_TEST_SUFFIX} PROPERTIES RESOURCE_LOCK "${ARGN}")
endfunction()

# gl_test_alone(NAME): a test whose checks judge timings closely (medians
# against a model, rates across windows, watchdog deadlines) runs alone in
# the plain build (RUN_SERIAL: nothing else at all runs beside it). Its twin
# in the sanitizer build runs beside other tests; the scripts see
# GL_SANITIZE=ON and report those timing checks without judging them
# (lib.sh `timing`), judging everything else.
function(gl_test_alone name)
  if(GL_FUZZ OR GL_SANITIZE)
    return()
  endif()
  set_tests_properties(${name} PROPERTIES RUN_SERIAL TRUE)
endfunction()

# gl_test_asan_long(NAME): a long integration test (a minute or more, a
# machine-wide lab, timings under load) whose sanitizer twin is labelled
# asan_long. scripts/test.sh leaves those twins out unless GL_ASAN_ALL=1,
# and names each one it left out in its closing lines: on two cores they
# take the suite past 20 minutes and fail on load, not on memory errors.
# The plain test always runs; the twin stays registered for GL_ASAN_ALL=1.
function(gl_test_asan_long name)
  if(GL_FUZZ OR NOT GL_SANITIZE)
    return()
  endif()
  set_property(TEST ${name}${GL_TEST_SUFFIX} APPEND PROPERTY LABELS asan_long)
endfunction()

function(gl_unit_test name src)
  cmake_parse_arguments(A "" "TIMEOUT" "LABELS" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 120)
  endif()
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE gauntlet_core)
  target_include_directories(${name} PRIVATE ${GL_TESTS_DIR}/unit)
  if(GL_FUZZ)
    return()   # the libFuzzer build (scripts/fuzz.sh) runs fuzz targets only
  endif()
  add_test(NAME ${name}${GL_TEST_SUFFIX} COMMAND ${name})
  set_tests_properties(${name}${GL_TEST_SUFFIX} PROPERTIES TIMEOUT ${A_TIMEOUT} SKIP_RETURN_CODE 77
    ENVIRONMENT "GL_SOURCE_DIR=${CMAKE_SOURCE_DIR};GL_BINARY_DIR=${CMAKE_BINARY_DIR};GAUNTLET=$<TARGET_FILE:gauntlet>;GL_SANITIZE=${GL_SANITIZE};GL_TEST_NAME=${name}${GL_TEST_SUFFIX};GAUNTLET_PDF=off")
  if(A_LABELS)
    set_tests_properties(${name}${GL_TEST_SUFFIX} PROPERTIES LABELS "${A_LABELS}")
  endif()
endfunction()

function(gl_script_test name script)
  if(GL_FUZZ)
    return()
  endif()
  cmake_parse_arguments(A "" "TIMEOUT" "LABELS" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  add_test(NAME ${name}${GL_TEST_SUFFIX} COMMAND bash ${script})
  set_tests_properties(${name}${GL_TEST_SUFFIX} PROPERTIES TIMEOUT ${A_TIMEOUT} SKIP_RETURN_CODE 77
    ENVIRONMENT "GL_SOURCE_DIR=${CMAKE_SOURCE_DIR};GL_BINARY_DIR=${CMAKE_BINARY_DIR};GAUNTLET=$<TARGET_FILE:gauntlet>;GL_SANITIZE=${GL_SANITIZE};GL_TEST_NAME=${name}${GL_TEST_SUFFIX};GAUNTLET_PDF=off")
  if(A_LABELS)
    set_tests_properties(${name}${GL_TEST_SUFFIX} PROPERTIES LABELS "${A_LABELS}")
  endif()
endfunction()

# A fuzz target: built as a corpus replayer (any compiler) and registered as a
# test over tests/fuzz/corpus/NAME. With GL_FUZZ=ON (clang, scripts/fuzz.sh)
# instead a libFuzzer binary, and a test NAME_libfuzzer that fuzzes it for
# GL_FUZZ_CI_SECONDS (default 5) from its seed corpus.
function(gl_fuzz_target name)
  if(GL_FUZZ)
    add_executable(${name} ${GL_TESTS_DIR}/fuzz/${name}.c)
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(${name} PRIVATE gauntlet_core)
    add_test(NAME ${name}_libfuzzer COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/fuzz.sh --no-build
             --seconds ${GL_FUZZ_CI_SECONDS} ${name}
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(${name}_libfuzzer PROPERTIES TIMEOUT 300 LABELS libfuzzer
      ENVIRONMENT "GL_FUZZ_BUILD=${CMAKE_BINARY_DIR}")
    return()
  endif()
  add_executable(${name}_replay ${GL_TESTS_DIR}/fuzz/${name}.c ${GL_TESTS_DIR}/fuzz/driver.c)
  target_link_libraries(${name}_replay PRIVATE gauntlet_core)
  add_test(NAME ${name}_corpus${GL_TEST_SUFFIX} COMMAND ${name}_replay ${GL_TESTS_DIR}/fuzz/corpus/${name})
  set_tests_properties(${name}_corpus${GL_TEST_SUFFIX} PROPERTIES TIMEOUT 120 LABELS fuzz)
endfunction()
