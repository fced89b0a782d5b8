#!/bin/bash
# test_layers.sh - dependencies point one way (scripts/layers.py): the tree
# as it is has no upward include; a copy with one planted (the store, in
# the core, including the reports' header) fails, naming the file and the
# line; a file the table does not place fails too.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 missing"
python3 "$GL_SOURCE_DIR/scripts/layers.py" "$GL_SOURCE_DIR" >"$T/tree.out" 2>&1; rc=$?
cat "$T/tree.out"
check "the tree: no upward include (exit $rc)" [ $rc -eq 0 ]
mkdir -p "$T/copy"
cp -r "$GL_SOURCE_DIR/harness" "$GL_SOURCE_DIR/loadgen" "$GL_SOURCE_DIR/faults" "$GL_SOURCE_DIR/reports" "$T/copy/"
sed -i '0,/#include "store_int.h"/s//#include "store_int.h"\n#include "report.h"/' "$T/copy/harness/core/store.c"
line=$(grep -n '#include "report.h"' "$T/copy/harness/core/store.c" | cut -d: -f1)
python3 "$GL_SOURCE_DIR/scripts/layers.py" "$T/copy" >"$T/planted.out" 2>&1; rc=$?
cat "$T/planted.out"
check "a planted upward include fails (exit $rc, want 1)" [ $rc -eq 1 ]
check "...naming the file, the line ($line) and the layers" grep -q "^harness/core/store.c:$line: includes reports/report.h (reports) from core: upward" "$T/planted.out"
sed -i '/#include "report.h"/d' "$T/copy/harness/core/store.c"
printf '#include "util.h"\n' >"$T/copy/harness/newthing.c"
python3 "$GL_SOURCE_DIR/scripts/layers.py" "$T/copy" >"$T/new.out" 2>&1; rc=$?
check "a file the table does not place fails (exit $rc)" bash -c "[ $rc -eq 1 ] && grep -q '^harness/newthing.c: no layer' '$T/new.out'"
finish
