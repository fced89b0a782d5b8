# The installable package (cmake/package.cmake): cmake --install's layout,
# both it and cpack run under umask 000 writing nothing group- or
# world-writable, the .deb cpack makes (control fields, Depends against dpkg -S of the
# linked libraries, no -dev, no RPATH into the tree), its extracted binary
# validating the extracted scenarios and running a 3 s null soak, and the
# man page rendering cleanly and covering every command, option, exit code
# and environment variable of the program (tests/scripts/man_check.py).
#
# The plain build only: the package is built from it (the sanitizer build's
# binaries need the sanitizer runtimes, which no Depends would name).
if(NOT GL_SANITIZE)
  gl_script_test(test_package ${GL_TESTS_DIR}/scripts/test_package.sh TIMEOUT 300)
  if(NOT GL_FUZZ)
    set_property(TEST test_package APPEND PROPERTY ENVIRONMENT
                 "GL_CPACK=${CMAKE_CPACK_COMMAND};GL_CMAKE=${CMAKE_COMMAND}")
  endif()
endif()
