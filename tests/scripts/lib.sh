# lib.sh - shared helpers for the shell tests: a private temp dir, counted
# checks, JSON and store queries through python3, skips that strict mode
# turns into failures, and the closing line "N passed, N failed, N skipped"
# that ctest, scripts/test.sh and CI read.
#
# Every check can fail: `check` fails when its command exits non-zero,
# `json` exits non-zero when its expression is falsy, and `finish` fails a
# test that ran no check at all. tests/scripts/selftest.sh shows each
# helper failing on a false condition.
#
# Skips. `skip REASON` skips the whole test (exit 77, ctest counts it
# skipped); `part_skip PART REASON` skips one part and lets the others run.
# With GL_STRICT=1 in the environment (CI) both are failures that name what
# was missing: on a machine set up by scripts/setup.sh nothing may be.
set -u
GAUNTLET=${GAUNTLET:-/tmp/b/gauntlet}
GL_SOURCE_DIR=${GL_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
T=$(mktemp -d /tmp/gl-test.XXXXXX)
PASS=0
FAIL=0
SKIPS=0
PIDS=()
cleanup() {
	[ -n "${GL_KEEP_TMP:-}" ] && { echo "kept $T"; for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; return; }
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

gl_strict() { [ "${GL_STRICT:-0}" = 1 ]; }
# The counts this test ends with, for scripts/test.sh's closing total:
# GL_RESULTS_DIR/GL_TEST_NAME holds "passed failed skipped".
gl_record() {
	[ -n "${GL_RESULTS_DIR:-}" ] && [ -n "${GL_TEST_NAME:-}" ] && [ -d "$GL_RESULTS_DIR" ] &&
		echo "$PASS $FAIL $SKIPS" > "$GL_RESULTS_DIR/$GL_TEST_NAME"
	return 0
}

ok() { PASS=$((PASS + 1)); echo "ok: $*"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL: $*"; }
check() { # check "description" command...
	local what=$1; shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
# skip REASON: the whole test cannot run here.
skip() {
	if gl_strict; then
		FAIL=$((FAIL + 1))
		echo "FAIL (GL_STRICT=1: a skip is a failure): $*"
		echo "$PASS passed, $FAIL failed, $SKIPS skipped"
		gl_record
		exit 1
	fi
	SKIPS=$((SKIPS + 1))
	echo "SKIP: $*"
	echo "$PASS passed, $FAIL failed, $SKIPS skipped (whole test skipped)"
	gl_record
	exit 77
}
# part_skip "PART" "REASON": one part cannot run here; the others go on.
part_skip() {
	local part=$1; shift
	if gl_strict; then
		bad "$part skipped (GL_STRICT=1: a part-skip is a failure): $*"
		return 0
	fi
	SKIPS=$((SKIPS + 1))
	echo "SKIP part $part: $*"
}
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
	if [ $((PASS + FAIL)) -eq 0 ]; then
		FAIL=1
		echo "FAIL: no check ran (a test that checks nothing proves nothing)"
	fi
	echo "$PASS passed, $FAIL failed, $SKIPS skipped"
	gl_record
	[ "$FAIL" -eq 0 ]
	exit $?
}
# json FILE 'python expression over r': prints the value (nothing for True)
# and exits 0 when it is truthy, 1 when it is falsy (False, None, 0, empty)
# or the expression raises. So `check "x" json F 'expr'` fails on a false
# expression, and "$(json F 'expr')" gives the value to compare.
json() { python3 -c "
import json,sys
r=json.load(open(sys.argv[1]))
v=($2)
if v is not True: print(v)
sys.exit(0 if v else 1)" "$1"; }
# sql DB 'query' -> rows, |-separated
sql() { python3 -c "
import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
for row in c.execute(sys.argv[2]): print('|'.join('' if v is None else str(v) for v in row))" "$1" "$2"; }
# Run gauntlet in the background; sets BG_PID.
bg() { "$GAUNTLET" "$@" & BG_PID=$!; PIDS+=("$BG_PID"); }
# Wait until a file exists (max seconds).
wait_for() { local f=$1 n=$(( ${2:-10} * 10 )); while [ ! -e "$f" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done; [ -e "$f" ]; }
# start_target NAME ARGS...: a `gauntlet target` on a free loopback port
# (ARGS are its flags), killed at exit; sets ADDR (HOST:PORT). Skips when it
# cannot start (a failure under GL_STRICT=1).
start_target() {
	local name=$1; shift
	rm -f "$T/$name.ready"
	"$GAUNTLET" target --listen 127.0.0.1:0 --ready-file "$T/$name.ready" "$@" >"$T/$name.log" 2>&1 &
	PIDS+=("$!")
	wait_for "$T/$name.ready" 10 || { cat "$T/$name.log"; skip "gauntlet target $name cannot start"; }
	ADDR=$(cat "$T/$name.ready")
}
# serve_dir DIR: a plain HTTP server (python3) over DIR on a free loopback
# port it binds itself, killed at exit; sets SERVED_PORT. Skips when it
# cannot start (a failure under GL_STRICT=1).
serve_dir() {
	python3 - "$1" "$T/served.port" >"$T/http.log" 2>&1 <<'PY' &
import functools, http.server, os, sys
d, portfile = sys.argv[1], sys.argv[2]
class H(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(H, directory=d))
with open(portfile + ".tmp", "w") as f: f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
PY
	PIDS+=("$!")
	wait_for "$T/served.port" 10 || { cat "$T/http.log"; skip "python3 cannot serve HTTP on 127.0.0.1"; }
	SERVED_PORT=$(cat "$T/served.port")
}
# need_nobody: the security tests act as root with the unprivileged user
# nobody laying the traps; skip unless that can be done here.
need_nobody() {
	[ "$(id -u)" -eq 0 ] || skip "needs root: the traps are laid by another user (nobody) for root to walk into"
	id nobody >/dev/null 2>&1 || skip "no user 'nobody' to lay the traps"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed to act as nobody"
	as_nobody test -x "$GAUNTLET" || skip "nobody cannot execute $GAUNTLET (a directory above it is private)"
}
# as_nobody CMD...: run CMD as nobody. setpriv execs CMD itself (runuser
# would fork, and a kill of its pid would leave CMD running).
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- "$@"; }
command -v python3 >/dev/null || skip "python3 is needed to read reports"
