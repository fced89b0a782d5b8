# lib.sh - shared helpers for the shell tests: a private temp dir, counted
# checks, JSON and store queries through python3, and the closing line
# "N passed, N failed" that ctest and CI read.
set -u
GAUNTLET=${GAUNTLET:-/tmp/b/gauntlet}
GL_SOURCE_DIR=${GL_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
T=$(mktemp -d /tmp/gl-test.XXXXXX)
PASS=0
FAIL=0
PIDS=()
cleanup() {
	[ -n "${GL_KEEP_TMP:-}" ] && { echo "kept $T"; for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; return; }
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

ok() { PASS=$((PASS + 1)); echo "ok: $*"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
check() { # check "description" command...
	local what=$1; shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
skip() { echo "SKIP: $*"; exit 77; }
# timing "description" command...: a check that judges a timing (a median
# against a model, a rate ratio). In the sanitizer build (GL_SANITIZE=ON),
# where the code runs several times slower and beside other tests, it is
# reported as not judged instead of counted; the plain build judges it.
timing() {
	if [ "${GL_SANITIZE:-OFF}" = ON ]; then
		echo "not judged (sanitizer build, timings are the plain build's): $1"
		return 0
	fi
	check "$@"
}
finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
	exit $?
}
# jq-like: json FILE 'python expression over r'
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); v=($2); v is True or print(v)" "$1"; }
# sql DB 'query' -> rows, |-separated
sql() { python3 -c "
import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
for row in c.execute(sys.argv[2]): print('|'.join('' if v is None else str(v) for v in row))" "$1" "$2"; }
# Run gauntlet in the background; sets BG_PID.
bg() { "$GAUNTLET" "$@" & BG_PID=$!; PIDS+=("$BG_PID"); }
# Wait until a file exists (max seconds).
wait_for() { local f=$1 n=$(( ${2:-10} * 10 )); while [ ! -e "$f" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done; [ -e "$f" ]; }
command -v python3 >/dev/null || skip "python3 is needed to read reports"
