# Helpers shared by the tests/*.cmake files.
#
# gl_unit_test(NAME SRC [TIMEOUT s] [LABELS l]): one executable per module,
#   linked with the core library; tests make their own temp dirs.
# gl_script_test(NAME SCRIPT [TIMEOUT s]): a shell test; exit 77 means skip.
# Fuzz targets: tests/fuzz/fuzz_X.c define LLVMFuzzerTestOneInput; each also
#   builds with gcc against tests/fuzz/driver.c, which replays a corpus dir.
set(GL_TESTS_DIR ${CMAKE_SOURCE_DIR}/tests)

function(gl_unit_test name src)
  cmake_parse_arguments(A "" "TIMEOUT" "LABELS" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 120)
  endif()
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE gauntlet_core)
  target_include_directories(${name} PRIVATE ${GL_TESTS_DIR}/unit)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${A_TIMEOUT} SKIP_RETURN_CODE 77
    ENVIRONMENT "GL_SOURCE_DIR=${CMAKE_SOURCE_DIR};GL_BINARY_DIR=${CMAKE_BINARY_DIR};GAUNTLET=$<TARGET_FILE:gauntlet>;GL_SANITIZE=${GL_SANITIZE}")
  if(A_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${A_LABELS}")
  endif()
endfunction()

function(gl_script_test name script)
  cmake_parse_arguments(A "" "TIMEOUT" "LABELS" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  add_test(NAME ${name} COMMAND bash ${script})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${A_TIMEOUT} SKIP_RETURN_CODE 77
    ENVIRONMENT "GL_SOURCE_DIR=${CMAKE_SOURCE_DIR};GL_BINARY_DIR=${CMAKE_BINARY_DIR};GAUNTLET=$<TARGET_FILE:gauntlet>;GL_SANITIZE=${GL_SANITIZE}")
  if(A_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${A_LABELS}")
  endif()
endfunction()

# A fuzz target: built as a corpus replayer (any compiler) and registered as a
# test over tests/fuzz/corpus/NAME; with GL_FUZZ=ON also as a libFuzzer binary.
function(gl_fuzz_target name)
  add_executable(${name}_replay ${GL_TESTS_DIR}/fuzz/${name}.c ${GL_TESTS_DIR}/fuzz/driver.c)
  target_link_libraries(${name}_replay PRIVATE gauntlet_core)
  add_test(NAME ${name}_corpus COMMAND ${name}_replay ${GL_TESTS_DIR}/fuzz/corpus/${name})
  set_tests_properties(${name}_corpus PROPERTIES TIMEOUT 120 LABELS fuzz)
  if(GL_FUZZ)
    add_executable(${name} ${GL_TESTS_DIR}/fuzz/${name}.c)
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(${name} PRIVATE gauntlet_core)
  endif()
endfunction()
