#!/bin/bash
# test_layers.sh - dependencies point one way (scripts/layers.py): the tree
# as it is has no upward include; a copy with one planted (the store, in
# the core, including the reports' header) fails, naming the file and the
# line; a file the table does not place fails too; and so do an extern of
# a symbol a higher layer defines, and each breach of the registry's rules
# (an ops table not registered, registered with a rank another plug-in of
# its family has, or not static).
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
rm "$T/copy/harness/newthing.c"

NP=0
planted() { # NAME PATTERN: the copy fails (exit 1) with a line matching PATTERN; then the copy is restored
	local out="$T/planted.$((++NP)).out" rc
	python3 "$GL_SOURCE_DIR/scripts/layers.py" "$T/copy" >"$out" 2>&1
	rc=$?
	cat "$out"
	check "$1: exit 1 (got $rc)" [ $rc -eq 1 ]
	check "$1: named ($2)" grep -qE "$2" "$out"
	rm -rf "$T/copy" && mkdir -p "$T/copy"
	cp -r "$GL_SOURCE_DIR/harness" "$GL_SOURCE_DIR/loadgen" "$GL_SOURCE_DIR/faults" "$GL_SOURCE_DIR/reports" "$T/copy/"
}
rm -rf "$T/copy" && mkdir -p "$T/copy"
cp -r "$GL_SOURCE_DIR/harness" "$GL_SOURCE_DIR/loadgen" "$GL_SOURCE_DIR/faults" "$GL_SOURCE_DIR/reports" "$T/copy/"
printf 'int gl_planted_count = 0;\n' >>"$T/copy/reports/manifest.c"
printf 'extern int gl_planted_count;\n' >>"$T/copy/harness/core/ctx.c"
planted "an extern of a symbol the reports define, in the core" \
	'^harness/core/ctx.c: extern gl_planted_count, defined in reports/manifest.c \(reports\): upward$'
sed -i '/^GL_REGISTER_FAULT(gl_fault_null, /d' "$T/copy/faults/null.c"
planted "an ops table never registered" '^faults/null.c: ops table gl_fault_null is never registered'
sed -i 's/^GL_REGISTER_FAULT(gl_fault_gpu_xid, [0-9]*)/GL_REGISTER_FAULT(gl_fault_gpu_xid, 10)/' "$T/copy/faults/gpu_xid.c"
planted "two fault kinds of one rank" '^faults/gpu_xid.c: fault rank 10 is also faults/drain_worker.c|^faults/drain_worker.c: fault rank 10 is also faults/gpu_xid.c'
sed -i 's/^static const struct gl_workload_ops gl_workload_null/const struct gl_workload_ops gl_workload_null/' "$T/copy/loadgen/null.c"
planted "an ops table that is not static" '^loadgen/null.c: ops table gl_workload_null is not static'
finish
