#!/bin/bash
# test_contract.sh - scripts/contract.py: the tree as it is holds no
# violation beyond tests/contract-debt.txt; in a copy, each planted
# violation fails and is named: a workload's metric named in the store, a
# SQL call in the reports, an extern of a workload's symbol in the core, a
# function of 101 lines, a file of 1,001 lines, a listed debt that grows;
# and a debt paid without lowering its entry fails too.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 missing"
python3 "$GL_SOURCE_DIR/scripts/contract.py" "$GL_SOURCE_DIR" >"$T/tree.out" 2>&1; rc=$?
cat "$T/tree.out"
check "the tree: every violation a listed debt (exit $rc)" [ $rc -eq 0 ]

fresh() { # a copy of the sources the checks read, and the debt list
	rm -rf "$T/copy" && mkdir -p "$T/copy/tests"
	cp -r "$GL_SOURCE_DIR/harness" "$GL_SOURCE_DIR/loadgen" "$GL_SOURCE_DIR/faults" "$GL_SOURCE_DIR/reports" "$T/copy/"
	cp "$GL_SOURCE_DIR/tests/contract-debt.txt" "$T/copy/tests/"
}
NP=0
planted() { # NAME PATTERN: the copy fails (exit 1) with a line matching PATTERN
	local out="$T/planted.$((++NP)).out" rc
	python3 "$GL_SOURCE_DIR/scripts/contract.py" "$T/copy" >"$out" 2>&1
	rc=$?
	check "$1: exit 1 (got $rc)" [ $rc -eq 1 ]
	check "$1: named ($2)" grep -qE "$2" "$out"
}

fresh
printf 'static const char *gl_planted_metric = "inference.ttft_ms.p99";\n' >>"$T/copy/harness/core/store_keep.c"
planted "a workload named in the store" '^harness/core/store_keep.c: name: 1 .*\(new\)$'

fresh
printf 'static void planted(sqlite3 *db) { sqlite3_exec(db, "DELETE FROM windows", 0, 0, 0); }\n' >>"$T/copy/reports/manifest.c"
planted "SQL in the reports" '^reports/manifest.c: sql: 1 .*\(new\)$'

fresh
printf 'int gl_planted_count = 0;\n' >>"$T/copy/loadgen/null.c"
printf 'extern int gl_planted_count;\n' >>"$T/copy/harness/core/ctx.c"
planted "an extern of a workload's symbol in the core" '^harness/core/ctx.c:gl_planted_count: extern: '

fresh
{ printf 'int gl_planted_long(void)\n{\n\tint x = 0;\n'; for i in $(seq 96); do printf '\tx++;\n'; done; printf '\treturn x;\n}\n'; } >>"$T/copy/harness/lib/units.c"
planted "a function of 101 lines" '^harness/lib/units.c:gl_planted_long: func: 101 lines'

fresh
n=$(wc -l <"$T/copy/harness/lib/units.c")
for i in $(seq $((1001 - n))); do echo; done >>"$T/copy/harness/lib/units.c"
planted "a file of 1,001 lines" '^harness/lib/units.c: file: 1001 lines'

fresh
# a debt of the list (planted with it: the tree may owe none) that grows
{ printf 'int gl_planted_long(void)\n{\n\tint x = 0;\n'; for i in $(seq 100); do printf '\tx++;\n'; done; printf '\treturn x;\n}\n'; } >>"$T/copy/harness/lib/units.c"
echo "func harness/lib/units.c:gl_planted_long 105" >>"$T/copy/tests/contract-debt.txt"
python3 "$GL_SOURCE_DIR/scripts/contract.py" "$T/copy" >"$T/owed.out" 2>&1
check "a listed debt as owed passes (exit $?)" grep -q '^contract: clean' "$T/owed.out"
sed -i 's/^\tint x = 0;$/\tint x = 0;\n\tx--;/' "$T/copy/harness/lib/units.c"
planted "a listed debt that grows (105 lines to 106)" '^harness/lib/units.c:gl_planted_long: func: 106 lines .*more than the 105'

fresh
# an entry above what the tree owes: as if its debt were paid
echo "file harness/lib/units.c 1200" >>"$T/copy/tests/contract-debt.txt"
planted "a debt paid but still listed" '^harness/lib/units.c: file: 1200 in tests/contract-debt.txt, 0 now: paid'

python3 "$GL_SOURCE_DIR/scripts/contract.py" --bogus >"$T/usage.out" 2>&1; rc=$?
check "bad usage: exit 2 (got $rc)" [ $rc -eq 2 ]
finish
