# Bench tools (not tests): gl_gen_store writes the store of a 168-hour run
# through the real store code for tests/bench/report.sh, which times
# `gauntlet report` on it. Built with everything so it keeps compiling.
# (This file sorts before common.cmake: no GL_ helpers here.)
add_executable(gl_gen_store ${CMAKE_SOURCE_DIR}/tests/bench/gen_store.c)
target_link_libraries(gl_gen_store PRIVATE gauntlet_core)
