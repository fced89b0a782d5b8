#!/bin/bash
# test_mutation_list.sh - tests/mutations.txt still matches the source:
# every mutation's old text occurs exactly once in its file (a list that
# rots makes scripts/mutate.sh refuse every run). A copy of the list with
# one old text changed fails, naming the mutation.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 missing"
M="$GL_SOURCE_DIR/scripts/mutate.sh"
bash "$M" --list >"$T/list.out" 2>"$T/list.err"; rc=$?
cat "$T/list.err"
check "the list matches the source: mutate.sh --list exits 0 (got $rc, $(grep -c '^ *[0-9]' "$T/list.out") mutations)" [ $rc -eq 0 ]
first=$(grep -m1 '^\[' "$GL_SOURCE_DIR/tests/mutations.txt" | tr -d '[]')
awk -v n="[$first]" '$0 == n { hit = 1 } hit && /^old: / { sub(/^old: /, "old: gl-no-such-text "); hit = 0 } { print }' \
	"$GL_SOURCE_DIR/tests/mutations.txt" >"$T/rotten.txt"
bash "$M" --list --mutations "$T/rotten.txt" >"$T/rotten.out" 2>&1; rc=$?
check "a rotten copy fails: exit 2 (got $rc)" [ $rc -eq 2 ]
check "...naming the mutation ($first)" grep -q "^ROTTEN 1 \[$first\]: old text found 0 times" "$T/rotten.out"
finish
