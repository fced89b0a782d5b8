# lib.sh - shared helpers for the shell tests: a private temp dir, counted
# checks, JSON and store queries through python3, skips that strict mode
# turns into failures, and the closing line "N passed, N failed, N skipped"
# that ctest, scripts/test.sh and CI read. `finish` also validates every
# report.json and manifest.json left under $T against docs/*.schema.json.
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
# python3 is Debian's /usr/bin/python3 (the one scripts/setup.sh installs
# python3-jsonschema and the rest for) even when a version manager's shim
# comes first on PATH: pyenv's is a chain of bash scripts that costs 0.4 s
# a call on an idle machine here and over 3 s on a loaded one: it breaks
# the timing of whole tests. Stand-ins run by `#!/usr/bin/env python3` get
# it too.
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	mkdir "$T/.python" && ln -s /usr/bin/python3 "$T/.python/python3" && PATH="$T/.python:$PATH"
fi
PASS=0
FAIL=0
SKIPS=0
PIDS=()
# The dead-man's switches of this test's runs still waiting (a controller
# killed on purpose and left so), stopped the way a revert stops them
# (TERM to the group: they exit without reverting), so that none fires
# after the test, on what the test no longer owns.
stop_watchers() {
	local db p
	while IFS= read -r db; do
		for p in $(sql "$db" "select json_extract(plan, '$.deadman.pid') from faults where json_extract(plan, '$.deadman.pid') > 0" 2>/dev/null); do
			tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -q '/dm\.' && kill -TERM -"$p" 2>/dev/null
		done
	done < <(find "$T" -name run.db 2>/dev/null)
}
cleanup() {
	stop_watchers
	[ -n "${GL_KEEP_TMP:-}" ] && { echo "kept $T"; for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; return; }
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
echo $$ >"$T/.owner"

# A lab that a killed test left up (ctest stops a test past its timeout
# with SIGKILL: no trap runs) would make every later lab test skip. Taken
# down here: a lab under another test's private dir (/tmp/gl-test.*, root's,
# mode 700, as mktemp makes it) whose test process is gone. Never a lab of a
# live test, nor one anywhere else.
reap_stale_labs() {
	local d o
	for d in /tmp/gl-test.*; do
		[ "$d" != "$T" ] && [ -d "$d/lab" ] && [ ! -L "$d" ] && [ -f "$d/.owner" ] || continue
		[ "$(stat -c %u:%a "$d")" = "$(id -u):700" ] || continue
		o=$(cat "$d/.owner")
		case "$o" in '' | *[!0-9]*) continue ;; esac
		kill -0 "$o" 2>/dev/null && continue
		echo "lib: taking down the lab a killed test left in $d/lab"
		"$GAUNTLET" lab down --dir "$d/lab" >/dev/null 2>&1 && rm -rf "$d"
	done
}

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
# schema_all: every report.json and manifest.json this test left under $T
# must match docs/report.schema.json and docs/manifest.schema.json
# (tests/scripts/schema_check.py, one python3 for them all). Run by finish,
# after the test's own checks, so that it is counted like them: one ok line
# "schema: N report.json, M manifest.json valid", or a FAIL per invalid
# file naming it, the JSON path and the message. No file: nothing counted.
# python3-jsonschema missing is a part skip (a failure under GL_STRICT=1).
schema_all() {
	local out rc line
	[ -n "$(find "$T" \( -name report.json -o -name manifest.json \) -type f -print -quit 2>/dev/null)" ] ||
		{ echo "schema: 0 report.json, 0 manifest.json valid (none written)"; return 0; }
	out=$(python3 "$GL_SOURCE_DIR/tests/scripts/schema_check.py" "$T" 2>&1)
	rc=$?
	case $rc in
	0) ok "$(tail -n 1 <<< "$out")" ;;
	1) while IFS= read -r line; do
		case $line in
		"FAIL "*) bad "schema: ${line#FAIL }" ;;
		*) echo "   $line" ;;
		esac
	   done <<< "$out" ;;
	3) part_skip schema "$out (apt-get install python3-jsonschema)" ;;
	*) bad "schema: schema_check.py exited $rc: $out" ;;
	esac
}
finish() {
	if [ $((PASS + FAIL)) -eq 0 ]; then
		FAIL=1
		echo "FAIL: no check ran (a test that checks nothing proves nothing)"
	fi
	schema_all
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
# sql DB 'query' -> rows, |-separated. An error when DB is not there
# (mode=rw never creates it): a poll that ran before the controller made
# its store would otherwise create an empty run.db, which the run then
# refuses ("a run store already exists here"). Not mode=ro: the store of
# a SIGKILLed controller may need its WAL recovered, which a read-only
# connection cannot do.
sql() { python3 -c "
import sqlite3,sys,urllib.parse
c=sqlite3.connect('file:'+urllib.parse.quote(sys.argv[1])+'?mode=rw', uri=True)
for row in c.execute(sys.argv[2]): print('|'.join('' if v is None else str(v) for v in row))" "$1" "$2"; }
# sql_is DB 'query' WANT: the query prints exactly WANT now. For until_ok:
# `until_ok 10 [ "$(sql ...)" = x ]` would compare one reading ten seconds
# long; `until_ok 10 sql_is DB 'query' x` reads again each time.
sql_is() { [ "$(sql "$1" "$2" 2>/dev/null)" = "$3" ]; }
# until_ok SECONDS CMD...: CMD succeeds within SECONDS (tried every 0.1 s).
# The one sleep of the tests' waits: every helper below polls through it.
# SECONDS is a safety net, not a judgement of speed: make it generous.
until_ok() {
	local n=$(( $1 * 10 )); shift
	while ! "$@" 2>/dev/null; do
		n=$((n - 1)); [ $n -gt 0 ] || return 1
		sleep 0.1
	done
}
# in_log FILE PATTERN: FILE has a line matching the grep pattern now.
in_log() { grep -q -e "$2" "$1" 2>/dev/null; }
# wait_log FILE PATTERN [SECONDS]: until FILE has a line matching PATTERN
# (30 s at most).
wait_log() { until_ok "${3:-30}" in_log "$1" "$2"; }
# gone PID: no process PID now (or a zombie of ours not yet waited for).
gone() {
	local s
	kill -0 "$1" 2>/dev/null || return 0
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	s=${s##*) }
	[ "${s%% *}" = Z ]
}
# wait_gone PID [SECONDS]: until process PID ended (30 s at most).
wait_gone() { until_ok "${2:-30}" gone "$1"; }
# windows_ge DB N: the run store DB has N windows or more now.
windows_ge() { local n; n=$(sql "$1" "select count(*) from windows" 2>/dev/null); [ "${n:-0}" -ge "$2" ]; }
# wait_windows DB N [SECONDS]: until the run store DB has N windows or
# more (60 s at most).
wait_windows() { until_ok "${3:-60}" windows_ge "$1" "$2"; }
# tcp_open PORT: something accepts connections on 127.0.0.1:PORT now.
tcp_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# fault_is RUN-DIR INDEX EXPR: report.json's faults[INDEX], bound to f,
# makes the python expression EXPR true.
fault_is() { # RUN-DIR INDEX PYTHON-EXPR-OVER-f
	json "$1/report.json" "(lambda f: ($3))(r['faults'][$2]) or sys.exit(1)" >/dev/null
}
# log_unless RC WANT LOG: when a run's exit code RC is not WANT, print it
# and the run's log (its last 60 lines), so that a failure in CI says why.
# When LOG is DIR.log for a run's --out DIR, its report's failing targets
# and its faults' recovery figures too.
log_unless() {
	[ "$1" -eq "$2" ] && return 0
	echo "  exit $1; its log:"; tail -60 "$3" | sed 's/^/  | /'
	local rep=${3%.log}/report.json
	[ -f "$rep" ] && python3 - "$rep" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for t in r.get("targets", []):
    if not t.get("pass"):
        print("  | target failed: %s %s %s %s (measured %s)" % (t.get("scope"), t.get("metric"), t.get("op", ""), t.get("threshold", ""), t.get("measured")))
for f in r.get("faults", []):
    print("  | fault %s: %s, recovery_s %s, restore_s %s" % (f.get("id"), f.get("state"), f.get("recovery_s"), f.get("restore_s")))
PY
	return 0
}
# not CMD...: CMD fails (for check and until_ok, which take a command).
not() { ! "$@"; }
# The dead-man's switch, controller never resumed (docs/faults.md). Start
# the run with bg (its scenario with safety.deadman_renew and a short
# deadman_grace), wait until its faults are injected, then:
# dm_never_resumed LABEL DIR GRACE_S RENEW_S BACK...: SIGKILLs BG_PID;
# BACK (a command: the target is back as before) must fail right after and
# succeed once the watchers reverted, no sooner than GRACE - RENEW - 1 s and
# within GRACE + RENEW s plus the watcher's 1 s poll and 3 s of slack;
# prints how long that took. Then `gauntlet revert DIR` must exit 0 and
# find nothing left to do, and every fault the journal saw injected must
# read reverted, by the watcher, its switch fired.
dm_never_resumed() {
	local label=$1 dir=$2 grace=$3 renew=$4 t0 ms rows
	shift 4
	check "$label: the journal has every watcher armed" \
		[ -z "$(sql "$dir/run.db" "select id from faults where state='injected' and deadman!='armed'")" ]
	kill -KILL "$BG_PID"
	wait "$BG_PID" 2>/dev/null
	t0=$(date +%s%N)
	check "$label: still injected right after the SIGKILL" not "$@"
	if until_ok $((grace + renew + 4)) "$@"; then
		ms=$((($(date +%s%N) - t0) / 1000000))
		ok "$label: back as before with the controller never resumed"
		echo "   ($label: its watcher reverted it $((ms / 1000)).$(printf %03d $((ms % 1000))) s after the SIGKILL; grace ${grace} s, lease renewed every ${renew} s)"
		# the last renewal came up to RENEW s before the kill, and the watcher
		# counts whole seconds of `date +%s`, read once a second: a correct
		# one may fire GRACE - RENEW - 1 s after the kill, never sooner
		check "$label: not before the grace ran out (>= $((grace - renew - 1)) s)" [ "$ms" -ge $(((grace - renew - 1) * 1000)) ]
	else
		bad "$label: back as before with the controller never resumed (not within $((grace + renew + 4)) s)"
	fi
	"$GAUNTLET" revert "$dir" >"$dir/dm-revert.log" 2>&1
	check "$label: gauntlet revert afterwards exits 0" [ $? -eq 0 ]
	check "$label: gauntlet revert finds nothing left to do" grep -q "found reverted by their watcher (nothing left to do), 0 still injected" "$dir/dm-revert.log"
	sql "$dir/run.db" "select id, measured from faults where state!='planned'" | while IFS='|' read -r id m; do
		python3 -c "import json,sys; m=json.loads(sys.argv[2] or '{}'); a=m.get('watcher_reverted_at')
print('   (%s: its watcher reverted it %s s after the SIGKILL (1 s resolution), its revert took %s s)' % (sys.argv[1], '?' if a is None else int(a - int(sys.argv[3]) // 10**9), m.get('watcher_took_s', '?')))" "$id" "$m" "$t0"
	done
	rows=$(sql "$dir/run.db" "select id||':'||state||'/'||ifnull(reverted_by,'')||'/'||ifnull(deadman,'') from faults where state!='planned'")
	echo "   ($label: journal: $(echo $rows))"
	check "$label: journal: reverted by the watcher, its switch fired" \
		[ -n "$rows" -a -z "$(grep -v ':reverted/watcher/fired$' <<< "$rows")" ]
	"$GAUNTLET" report "$dir" >"$dir/dm-report.log" 2>&1
	check "$label: report.json says the watcher reverted it" json "$dir/report.json" \
		"[f for f in r['faults'] if f['state'] != 'planned'] and all((f['reverted_by'], f['deadman']) == ('watcher', 'fired') for f in r['faults'] if f['state'] != 'planned')"
}
# start_sshd [CONFIG-LINE...]: a private sshd on a free loopback port (as
# root), killed at exit, accepting the key $T/client_key for root; sets
# SSHD_PORT and writes $T/known_hosts for it. Returns 1 (SSHD_WHY says why)
# when it cannot run here.
start_sshd() {
	local l
	SSHD_WHY=
	[ "$(id -u)" -eq 0 ] || { SSHD_WHY="needs root to run a private sshd"; return 1; }
	[ -x /usr/sbin/sshd ] || { SSHD_WHY="/usr/sbin/sshd not installed (apt-get install openssh-server)"; return 1; }
	command -v ssh-keygen >/dev/null || { SSHD_WHY="ssh-keygen not installed"; return 1; }
	ssh-keygen -q -t ed25519 -N '' -f "$T/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$T/client_key" ||
		{ SSHD_WHY="ssh-keygen failed"; return 1; }
	cp "$T/client_key.pub" "$T/authorized_keys"
	chmod 600 "$T/authorized_keys"
	# sshd takes only its first SetEnv line: the callers' variables join ours
	local setenv="" l
	for l in "$@"; do case $l in "SetEnv "*) setenv="$setenv ${l#SetEnv }" ;; esac; done
	SSHD_PORT=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1]); s.close()")
	{
		printf '%s\n' "Port $SSHD_PORT" "ListenAddress 127.0.0.1" "HostKey $T/host_key" \
			"AuthorizedKeysFile $T/authorized_keys" "PasswordAuthentication no" \
			"KbdInteractiveAuthentication no" "PubkeyAuthentication yes" "PermitRootLogin yes" \
			"StrictModes no" "UsePAM no" "PidFile $T/sshd.pid" "SetEnv SHLVL=1$setenv"
		for l in "$@"; do case $l in "SetEnv "*) ;; *) printf '%s\n' "$l" ;; esac; done
	} > "$T/sshd_config"
	# (SetEnv SHLVL=1: bash reads ~/.bashrc for a command sshd runs only at
	# shell level 1, and root's here starts pyenv, 0.6 s an exec idle and
	# seconds under load: an inventory over ssh took 4.6 s, 0.3 s without)
	mkdir -p /run/sshd
	/usr/sbin/sshd -D -e -f "$T/sshd_config" 2>"$T/sshd.log" &
	PIDS+=("$!")
	until_ok 30 tcp_open "$SSHD_PORT" ||
		{ SSHD_WHY="private sshd did not start: $(tail -1 "$T/sshd.log")"; return 1; }
	echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$T/host_key.pub")" > "$T/known_hosts"
}
# webhook_receiver MODE NAME: a webhook receiver (python3 ThreadingHTTPServer
# on a loopback port it picks) that writes each POST as a JSON line
# {path, ctype, body} to $T/NAME.jsonl; MODE ok answers 200, fail 500, hang
# reads the request and never answers. Sets RPORT; skips when it cannot
# start (a failure under GL_STRICT=1).
webhook_receiver() {
	rm -f "$T/$2.port"
	python3 - "$1" "$T/$2.jsonl" "$T/$2.port" >"$T/$2.http.log" 2>&1 <<'PY' &
import http.server, json, os, sys, threading
mode, out, portfile = sys.argv[1], sys.argv[2], sys.argv[3]
lock = threading.Lock()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        with lock, open(out, "a") as f:
            f.write(json.dumps({"path": self.path, "ctype": self.headers.get("Content-Type"),
                                "body": json.loads(body)}) + "\n")
        if mode == "hang":
            # never answer: hold the connection until the client gives up
            # and closes it (read returns at its end of file)
            self.rfile.read()
            self.close_connection = True
            return
        code = 200 if mode == "ok" else 500
        self.send_response(code)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
class S(http.server.ThreadingHTTPServer):
    daemon_threads = True
srv = S(("127.0.0.1", 0), H)
with open(portfile + ".tmp", "w") as f: f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
PY
	PIDS+=("$!")
	wait_for "$T/$2.port" 10 || { cat "$T/$2.http.log"; skip "python3 cannot serve HTTP on 127.0.0.1"; }
	RPORT=$(cat "$T/$2.port")
}
# training_part: TRAINING, a scenario fragment (', "training": {...}') for
# a small real training workload (2 MPI ranks of gauntlet-train under
# mpirun on this machine), or empty after a part_skip naming what is missing.
training_part() {
	TRAINING=
	if [ ! -x "$(dirname "$GAUNTLET")/gauntlet-train" ]; then
		part_skip training "gauntlet-train was not built (OpenMPI not found at build time)"
	elif ! command -v mpirun >/dev/null; then
		part_skip training "mpirun not installed (Debian openmpi-bin)"
	else
		TRAINING=', "training": { "launcher": "mpirun", "hosts": ["me:2"], "backend": "mpi", "message": "1MiB",
		  "compute": "20ms", "heartbeat": "200ms", "watchdog": "15s", "launcher_args": ["--oversubscribe"] }'
	fi
}
# set_safety FILE 'JSON': the scenario FILE's "safety" section replaced by
# JSON (lines starting // are dropped: the scenario is rewritten as JSON).
set_safety() {
	python3 - "$1" "$2" <<'PY'
import json, sys
s = json.loads("\n".join(l for l in open(sys.argv[1]) if not l.lstrip().startswith("//")))
s["safety"] = json.loads(sys.argv[2])
json.dump(s, open(sys.argv[1], "w"))
PY
}
# Run gauntlet in the background; sets BG_PID.
bg() { "$GAUNTLET" "$@" & BG_PID=$!; PIDS+=("$BG_PID"); }
# wait_for FILE [SECONDS]: until FILE exists (10 s at most).
wait_for() { until_ok "${2:-10}" test -e "$1"; }
# run_all NAME...: `gauntlet run $T/NAME.json --out $T/NAME` for each NAME,
# side by side, each one's output in $T/NAME.log; waits for all of them and
# leaves their exit codes in rcs, in order.
run_all() {
	local n p pids=()
	for n in "$@"; do
		"$GAUNTLET" run "$T/$n.json" --out "$T/$n" >"$T/$n.log" 2>&1 &
		pids+=("$!")
	done
	PIDS+=("${pids[@]}")
	rcs=()
	for p in "${pids[@]}"; do wait "$p"; rcs+=("$?"); done
}
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
