#!/usr/bin/env bash
# test_selftest.sh - the check helpers of lib.sh fail when they should.
# Each helper is driven, in a child bash that sources lib.sh, with a false
# condition (and a true one, for contrast); the child's exit code and its
# closing line are what is checked. A helper that passed a false condition
# would make every test built on it unable to fail.
. "$(dirname "$0")/lib.sh"
LIB="$GL_SOURCE_DIR/tests/scripts/lib.sh"

# child 'BODY' [ENV...]: run BODY after sourcing lib.sh in a clean child;
# prints its output to $T/child.out and returns its exit code.
child() {
	local body=$1; shift
	env -u GL_RESULTS_DIR -u GL_TEST_NAME -u GL_STRICT "$@" bash -c ". '$LIB'; $body" > "$T/child.out" 2>&1
}
rc_is() { # rc_is WANT BODY [ENV...]
	local want=$1 body=$2; shift 2
	child "$body" "$@"; local rc=$?
	[ "$rc" -eq "$want" ] || { echo "   got exit $rc, want $want, for: $body"; sed 's/^/   | /' "$T/child.out"; return 1; }
}
out_has() { grep -q -- "$1" "$T/child.out" || { echo "   no '$1' in:"; sed 's/^/   | /' "$T/child.out"; return 1; }; }

# check
check "check: a false command is counted failed, finish exits 1" rc_is 1 'check "x" false; finish'
check "check: its closing line says 1 failed" out_has "0 passed, 1 failed, 0 skipped"
check "check: a true command passes, finish exits 0" rc_is 0 'check "x" true; finish'
check "check: [ ] with a false comparison fails" rc_is 1 'check "x" [ 1 = 2 ]; finish'

# json: False, None, 0, empty and an exception all fail; True and values pass
echo '{"a": 1, "b": false, "c": null, "d": [], "e": "x"}' > "$T/j.json"
check "json: a false expression exits 1" rc_is 1 "json '$T/j.json' \"r['a'] == 2\""
check "json: a false field exits 1" rc_is 1 "json '$T/j.json' \"r['b']\""
check "json: None exits 1" rc_is 1 "json '$T/j.json' \"r['c']\""
check "json: an empty list exits 1" rc_is 1 "json '$T/j.json' \"r['d']\""
check "json: a missing key (exception) exits 1" rc_is 1 "json '$T/j.json' \"r['zz']\""
check "json: a missing file exits 1" rc_is 1 "json '$T/none.json' 'True'"
check "json: through check, a false expression is counted failed" rc_is 1 "check x json '$T/j.json' \"r['a'] == 2\"; finish"
check "json: a true expression exits 0, prints nothing" rc_is 0 "json '$T/j.json' \"r['a'] == 1\""
check "json: a value is printed" bash -c "[ \"\$(. '$LIB'; json '$T/j.json' \"r['e']\")\" = x ]"

# finish with no check at all
check "finish: a test that ran no check fails" rc_is 1 'finish'
check "finish: and says so" out_has "no check ran"

# skip and part_skip, plain and strict
check "skip: exit 77 (ctest: skipped) when not strict" rc_is 77 'skip "no widget"'
check "skip: GL_STRICT=1 makes it exit 1" rc_is 1 'skip "no widget"' GL_STRICT=1
check "skip: strict failure names the missing prerequisite" out_has "no widget"
check "part_skip: counted skipped, test passes when not strict" rc_is 0 'check x true; part_skip 3 "no fio"; finish'
check "part_skip: the closing line counts it" out_has "1 passed, 0 failed, 1 skipped"
check "part_skip: GL_STRICT=1 makes it a failure" rc_is 1 'check x true; part_skip 3 "no fio"; finish' GL_STRICT=1
check "part_skip: strict failure names the part and the reason" out_has "3 skipped (GL_STRICT=1.*no fio"

# timing judges in the plain build, reports only under the sanitizers
check "timing: a false timing check fails in the plain build" rc_is 1 'timing "t" false; finish' GL_SANITIZE=OFF
check "timing: not judged under the sanitizers" rc_is 1 'timing "t" false; finish' GL_SANITIZE=ON
check "timing: ...and that leaves no check, so finish still fails" out_has "no check ran"

# the counts left for scripts/test.sh
mkdir -p "$T/res"
env -u GL_STRICT GL_RESULTS_DIR="$T/res" GL_TEST_NAME=t1 bash -c ". '$LIB'; check a true; check b false; part_skip p r; finish" >/dev/null 2>&1
check "counts written to GL_RESULTS_DIR/GL_TEST_NAME: 1 1 1" [ "$(cat "$T/res/t1" 2>/dev/null)" = "1 1 1" ]

# finish validates every report.json and manifest.json under the test's $T
# (schema_all, docs/testing.md "Report schemas"): an invalid one is a
# counted failure naming the file and the JSON path, also in the counts left
# for scripts/test.sh; python3-jsonschema missing is a part skip
check "schema: an invalid report.json under \$T fails the test (exit 1)" rc_is 1 'echo "{\"verdict\": \"pass\"}" > "$T/report.json"; check x true; finish'
check "schema: the failure names the file and the JSON path" out_has "FAIL: schema: /tmp/gl-test\.[A-Za-z0-9]*/report.json: \$: 'schema_version' is a required property"
check "schema: the closing line counts it failed" out_has "1 passed, 1 failed, 0 skipped"
check "schema: an invalid manifest.json in a subdirectory fails too" rc_is 1 'mkdir "$T/d"; echo "[]" > "$T/d/manifest.json"; check x true; finish'
check "schema: ...naming it" out_has "FAIL: schema: /tmp/gl-test\.[A-Za-z0-9]*/d/manifest.json: \$: \[\] is not of type 'object'"
env -u GL_STRICT GL_RESULTS_DIR="$T/res" GL_TEST_NAME=t2 bash -c ". '$LIB'; echo '{}' > \"\$T/report.json\"; check a true; finish" >/dev/null 2>&1
check "schema: its failure is in the counts written to GL_RESULTS_DIR: 1 1 0" [ "$(cat "$T/res/t2" 2>/dev/null)" = "1 1 0" ]
check "schema: no report at all: nothing counted, the test passes" rc_is 0 'check x true; finish'
check "schema: ...and says none was written" out_has "schema: 0 report.json, 0 manifest.json valid (none written)"
mkdir -p "$T/nojs"
echo 'raise ImportError("simulated: no jsonschema")' > "$T/nojs/jsonschema.py"
check "schema: without python3-jsonschema a report is a part skip (exit 0)" rc_is 0 'echo "{}" > "$T/report.json"; check x true; finish' PYTHONPATH="$T/nojs"
check "schema: ...counted skipped, naming the package" out_has "SKIP part schema: .*python3-jsonschema"
check "schema: ...and under GL_STRICT=1 a failure" rc_is 1 'echo "{}" > "$T/report.json"; check x true; finish' PYTHONPATH="$T/nojs" GL_STRICT=1

# check.h, the unit tests' kit, the same way (compiled here)
if command -v cc >/dev/null; then
	cat > "$T/c.c" <<'C'
#include "check.h"
int main(int argc, char **argv)
{
	if (argv[1][0] == 'f') CHECK(1 == 2);
	if (argv[1][0] == 't') CHECK(1 == 1);
	if (argv[1][0] == 's') GL_SKIP("no widget");
	(void)argc;
	return check_done();
}
C
	if cc -I"$GL_SOURCE_DIR/tests/unit" -o "$T/c" "$T/c.c" 2>"$T/cc.err"; then
		crc() { local want=$1 arg=$2; shift 2; env -u GL_STRICT "$@" "$T/c" "$arg" > "$T/child.out" 2>&1; local rc=$?
			[ $rc -eq "$want" ] || { echo "   got $rc want $want"; cat "$T/child.out"; return 1; }; }
		check "check.h: CHECK(false) makes check_done fail" crc 1 f
		check "check.h: CHECK(true) passes" crc 0 t
		check "check.h: no check at all fails" crc 1 n
		check "check.h: GL_SKIP exits 77" crc 77 s
		check "check.h: GL_SKIP under GL_STRICT=1 exits 1" crc 1 s GL_STRICT=1
		check "check.h: strict failure names the reason" out_has "no widget"
	else
		bad "check.h self-test did not compile: $(cat "$T/cc.err")"
	fi
else
	part_skip check.h "no C compiler to build the check.h self-test"
fi
# the fuzz corpus replayer (tests/fuzz/driver.c): a replay that ran no
# input, or could not read one, proves nothing and fails
R=${GL_BINARY_DIR:-}/fuzz_hist_replay
if [ -x "$R" ]; then
	mkdir -p "$T/empty" "$T/withsub/sub"
	rrc() { local want=$1; shift; "$R" "$@" > "$T/child.out" 2>&1; local rc=$?
		if [ "$want" = 0 ]; then [ $rc -eq 0 ]; else [ $rc -ne 0 ]; fi || { echo "   got $rc"; cat "$T/child.out"; return 1; }; }
	check "replayer: the real corpus replays (exit 0)" rrc 0 "$GL_SOURCE_DIR/tests/fuzz/corpus/fuzz_hist"
	check "replayer: an empty corpus directory fails" rrc 1 "$T/empty"
	check "replayer: a missing corpus path fails" rrc 1 "$T/no-such-dir"
	check "replayer: a good corpus beside an empty one fails" rrc 1 "$GL_SOURCE_DIR/tests/fuzz/corpus/fuzz_hist" "$T/empty"
	check "replayer: no argument at all fails" rrc 1
else
	part_skip replayer "no fuzz_hist_replay in GL_BINARY_DIR (${GL_BINARY_DIR:-unset})"
fi
finish
