# embed.cmake - turn a file into a C source defining it as a NUL-terminated
# char array, so that a binary carries it (the report schema that
# `gauntlet simulate` checks its report.json against).
#
#   cmake -DIN=FILE -DOUT=FILE.c -DNAME=symbol [-DHEADER=name.h] -P embed.cmake
#
# defines `const char NAME[]` (the bytes, then a NUL) and
# `const size_t NAME_len` (the bytes, without the NUL); with HEADER the
# source includes it, so that the compiler checks the declarations. OUT is
# always written (left alone when unchanged, it would stay older than IN
# and make would run this again on every build).
foreach(v IN ITEMS IN OUT NAME)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "embed.cmake: -D${v}= is required")
  endif()
endforeach()
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR n "${n} / 2")
# twelve bytes a line
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
string(REPEAT "0x..," 12 line)
string(REGEX REPLACE "(${line})" "\\1\n\t" hex "${hex}")
get_filename_component(base "${IN}" NAME)
set(text "/* Generated from ${base} by cmake/embed.cmake; do not edit. */\n")
string(APPEND text "#include <stddef.h>\n")
if(DEFINED HEADER)
  string(APPEND text "\n#include \"${HEADER}\"\n")
endif()
string(APPEND text "\nconst char ${NAME}[] = {\n\t${hex}0x00\n};\n")
string(APPEND text "const size_t ${NAME}_len = ${n};\n")
file(WRITE "${OUT}" "${text}")
