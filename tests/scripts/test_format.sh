#!/bin/bash
# test_format.sh - every C file follows .clang-format: clang-format
# --dry-run --Werror over harness/, loadgen/, faults/, reports/ and
# tests/ finds nothing to change; a copy of one file with a line put out
# of style is caught, naming the file.
. "$(dirname "$0")/lib.sh"
CF=$(command -v clang-format) || skip "clang-format missing (Debian clang-format)"
cd "$GL_SOURCE_DIR" || exit 1
find harness loadgen faults reports tests -name '*.[ch]' | sort >"$T/files"
n=$(wc -l <"$T/files")
xargs "$CF" --dry-run --Werror <"$T/files" >"$T/tree.out" 2>&1; rc=$?
head -20 "$T/tree.out"
check "the tree: $n C files as .clang-format writes them (exit $rc, $(grep -c 'error:' "$T/tree.out") places)" \
	[ $rc -eq 0 ] && [ ! -s "$T/tree.out" ]
mkdir -p "$T/copy"
cp .clang-format "$T/copy/"
cp harness/lib/units.c "$T/copy/units.c"
printf 'int gl_planted(int a,int b){return a+b;}\n' >>"$T/copy/units.c"
(cd "$T/copy" && "$CF" --dry-run --Werror units.c) >"$T/planted.out" 2>&1; rc=$?
check "a line out of style fails (exit $rc), naming the file" \
	bash -c '[ "$1" -ne 0 ] && grep -q "units.c:.*error: code should be clang-formatted" "$2"' _ $rc "$T/planted.out"
finish
