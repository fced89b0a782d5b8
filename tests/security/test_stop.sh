#!/usr/bin/env bash
# test_stop.sh - a stop is always clean. SIGTERM or SIGINT in each phase
# of a run ends it with exit 3, a report of what there was (report.json
# aborted, every target failed for want of data where none was taken) and
# `gauntlet status` saying aborted, not running or resume. Never the
# default action (exit 143, no report, status "running ... resume")
# during the inventory, preflight and gates, nor, during the wait for load
# agents, a deaf wait until connect_timeout runs out and then exit 4.
#
# Each run is signalled once it is provably in the phase: a stand-in
# command, server or launcher of the phase writes a marker when it is
# reached, and hangs (a wait on that condition, 60 s at most; no clock):
#  1. the inventory, local host: a `uname` first on PATH that sleeps;
#  2. the inventory over ssh: a TCP server that accepts and never speaks;
#  3. preflight (SIGINT): an inference endpoint that never answers;
#  4. a before gate: a command that sleeps;
#  5. the wait for agents: a launcher that never starts the agent, with
#     connect_timeout 120 s;
#  6. report rendering: a stand-in browser for report.pdf that sleeps;
# then exit 3 within 30 s (far below 120 s), the reports, the status, the
# phase named in the log, and the hanging command ended.
#  7. validate refuses agents.connect_timeout "168h", naming the key and
#     the bound (10 minutes); 10m itself is valid.
# (A signal in the loop: test_controller; during an after gate: test_gates.)
. "$(dirname "$0")/../scripts/lib.sh"
[ -x "$GAUNTLET" ] || skip "no gauntlet binary at $GAUNTLET"

TARGETS='"targets": { "steady": { "null.ticks": ">= 1" } }'
NULLRUN='"hosts": { "me": { "local": true } }, "workloads": { "null": { "rate": 100 } }'

# start NAME SCENARIO [VAR=VALUE...]: gauntlet run SCENARIO --out $T/NAME in
# the background, its log in $T/NAME.log and, once it ends, its exit code
# in $T/NAME.rc; sets GPID (gauntlet's own pid, to signal).
start() {
	local name=$1 sc=$2
	shift 2
	rm -f "$T/$name.gpid" "$T/$name.rc"
	( env "$@" "$GAUNTLET" run "$sc" --out "$T/$name" > "$T/$name.log" 2>&1 &
	  echo $! > "$T/$name.gpid.tmp"; mv "$T/$name.gpid.tmp" "$T/$name.gpid"; wait $!; echo $? > "$T/$name.rc" ) &
	PIDS+=("$!")
	wait_for "$T/$name.gpid" 10
	GPID=$(cat "$T/$name.gpid")
	PIDS+=("$GPID")
}

# stopped LABEL NAME SIG MARK WHERE [DATA]: once MARK exists (the run is in
# its phase), SIG to the run started as NAME; then the checks. WHERE: the
# words the log must have after "stopped by SIG" ("during the inventory").
# DATA "no-data": nothing was measured, so no target may pass.
stopped() {
	local label=$1 name=$2 sig=$3 mark=$4 where=$5 data=${6:-} rc d=$T/$2
	# the mark holds a line once the phase is reached (a pid, a
	# connection): an empty file is one being written, and a stop then
	# could end its writer before the pid is in it
	if ! until_ok 60 test -s "$mark"; then
		bad "$label: the run reached the phase ($mark within 60 s)"
		tail -20 "$d.log" | sed 's/^/  | /'
		kill -9 "$GPID" 2>/dev/null
		return
	fi
	kill -"$sig" "$GPID"
	if until_ok 30 test -s "$d.rc"; then
		rc=$(cat "$d.rc")
	else
		rc="none: still running 30 s after the $sig (killed)"
		kill -9 "$GPID" 2>/dev/null
		until_ok 10 test -s "$d.rc"
	fi
	[ "$rc" = 3 ] || { echo "  exit $rc; its log:"; tail -30 "$d.log" | sed 's/^/  | /'; }
	check "$label: SIG$sig ends the run within 30 s with exit 3 (got $rc)" [ "$rc" = 3 ]
	check "$label: the log says where: stopped by SIG$sig $where" grep -q "stopped by SIG$sig $where" "$d.log"
	check "$label: report.json written, the run aborted" json "$d/report.json" \
		"r['verdict'] == 'aborted' and r['run']['state'] == 'aborted'"
	if [ "$data" = no-data ]; then
		check "$label: no target passes without data" json "$d/report.json" \
			"len(r['targets']) > 0 and not any(t['pass'] for t in r['targets'])"
	fi
	"$GAUNTLET" status "$d" > "$d.status" 2>&1
	check "$label: gauntlet status says aborted, not running or resume" bash -c \
		"head -1 '$d.status' | grep -q ': aborted\$' && grep -q '^verdict: aborted\$' '$d.status' && ! grep -q 'gauntlet resume\|controller: running\|controller not running' '$d.status'"
}

# ended LABEL PIDFILE: the process whose pid PIDFILE holds is gone.
ended() {
	local pid
	pid=$(cat "$2" 2>/dev/null)
	check "$1 (pid ${pid:-?})" bash -c "[ -n '$pid' ] && ! kill -0 '$pid' 2>/dev/null"
}

# hang_server NAME: a TCP server on a loopback port that accepts and never
# says anything, appending a line to $T/NAME.acc per connection; sets HPORT.
hang_server() {
	rm -f "$T/$1.port" "$T/$1.acc"
	python3 - "$T/$1.port" "$T/$1.acc" > "$T/$1.srv.log" 2>&1 <<'PY' &
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    c, _ = s.accept()
    held.append(c)   # never answered, never closed
    with open(sys.argv[2], "a") as f:
        f.write("accepted\n")
PY
	PIDS+=("$!")
	wait_for "$T/$1.port" 10 || { cat "$T/$1.srv.log"; skip "python3 cannot listen on 127.0.0.1"; }
	HPORT=$(cat "$T/$1.port")
}

# --- 1. the inventory, on a local host ---------------------------------------------------
mkdir -p "$T/hang-bin"
printf '#!/bin/sh\necho $$ > %s/uname.pid\nexec sleep 60\n' "$T" > "$T/hang-bin/uname"
chmod 755 "$T/hang-bin/uname"
echo "{ \"name\": \"stop-inv\", \"duration\": \"30s\", \"window\": \"1s\", $NULLRUN, $TARGETS }" > "$T/inv.json"
start inv "$T/inv.json" PATH="$T/hang-bin:$PATH"
stopped "1 inventory" inv TERM "$T/uname.pid" "during the inventory" no-data
ended "1 inventory: its hanging uname was ended" "$T/uname.pid"
check "1 inventory: what was not collected says why" json "$T/inv/manifest.json" \
	"'SIGTERM came' in r['inventory']['hosts']['me']['kernel']['why']"

# --- 2. the inventory, over an ssh that never answers ------------------------------------------
hang_server ssh
printf 'not a key\n' > "$T/key"
chmod 600 "$T/key"
: > "$T/known_hosts"
cat > "$T/ssh.json" <<JSON
{ "name": "stop-ssh", "duration": "30s", "window": "1s",
  "hosts": { "far": { "ssh": "root@127.0.0.1:$HPORT", "key": "$T/key", "known_hosts": "$T/known_hosts" } },
  "workloads": { "null": { "rate": 100 } }, $TARGETS }
JSON
start ssh "$T/ssh.json"
stopped "2 inventory over ssh" ssh TERM "$T/ssh.acc" "during the inventory" no-data
check "2 inventory over ssh: the host's items say the wait was stopped" json "$T/ssh/manifest.json" \
	"'handshake: stopped: SIGTERM came' in r['inventory']['hosts']['far']['kernel']['why']"

# --- 3. preflight, SIGINT: an inference endpoint that never answers ------------------------------
hang_server http
cat > "$T/pre.json" <<JSON
{ "name": "stop-pre", "duration": "30s", "window": "1s",
  "workloads": { "inference": { "endpoints": ["http://127.0.0.1:$HPORT/v1"], "model": "m",
     "arrival": { "mode": "poisson", "rate": 5 } } },
  "targets": { "steady": { "inference.error_rate": "<= 1", "inference.ttft_ms.p99": "<= 1000" } } }
JSON
start pre "$T/pre.json"
stopped "3 preflight" pre INT "$T/http.acc" "during preflight" no-data
check "3 preflight: the check cut short is not recorded as failed" json "$T/pre/report.json" "r['preflight'] == []"
check "3 preflight: ...and is logged as not finished" grep -q "answers GET /models: not finished: SIGINT came" "$T/pre.log"

# --- 4. a before gate ------------------------------------------------------------------------------
cat > "$T/gate.json" <<JSON
{ "name": "stop-gate", "duration": "30s", "window": "1s", $NULLRUN, $TARGETS,
  "gates": [ { "id": "slow", "kind": "command", "argv": ["sh", "-c", "echo \$\$ > $T/gate.pid; exec sleep 60"],
               "hosts": ["me"], "when": ["before"] },
             { "id": "later", "kind": "command", "argv": ["touch", "$T/later.ran"], "hosts": ["me"], "when": ["before", "after"] } ] }
JSON
start gate "$T/gate.json"
stopped "4 before gate" gate TERM "$T/gate.pid" "during the before gates" no-data
ended "4 before gate: its command was ended" "$T/gate.pid"
check "4 before gate: report.json: the stopped gate and the rest skipped, saying why" json "$T/gate/report.json" \
	"[(g['id'], g['when'], g['status'], g['reason']) for g in r['gates']] == [('slow', 'before', 'skip', 'stopped by SIGTERM: not judged'), ('later', 'before', 'skip', 'not run: stopped by SIGTERM'), ('later', 'after', 'skip', 'not run: stopped by SIGTERM')]"

# --- 5. the wait for load agents (connect_timeout 120 s) ----------------------------------------------
printf '#!/bin/sh\necho $$ > %s/launcher.pid\nexec sleep 600\n' "$T" > "$T/launcher"
chmod 755 "$T/launcher"
cat > "$T/agents.json" <<JSON
{ "name": "stop-agents", "duration": "30s", "window": "1s",
  "workloads": { "inference": { "endpoints": ["http://127.0.0.1:9/v1"], "model": "m", "preflight": false,
     "arrival": { "mode": "poisson", "rate": 5 },
     "agents": { "launcher": "mpirun", "count": 1, "launcher_path": "$T/launcher", "connect_timeout": "120s" } } },
  "targets": { "steady": { "inference.error_rate": "<= 1", "inference.ttft_ms.p99": "<= 1000",
                           "agents.delivered_ratio": ">= 0.99" } } }
JSON
start agents "$T/agents.json"
stopped "5 agents' wait" agents TERM "$T/launcher.pid" "while waiting for the agents to connect" no-data
ended "5 agents' wait: the launcher was ended" "$T/launcher.pid"
check "5 agents' wait: no window: the run's clock never started" [ "$(sql "$T/agents/run.db" 'select count(*) from windows')" = 0 ]

# --- 6. report rendering: report.pdf's browser hangs ---------------------------------------------------
# The browser must lie where nobody else may write (report_pdf.c): not
# under /tmp, so in a private folder of the build directory, or, when the
# checkout itself lies under a folder others may write (a clone in /tmp),
# of /run (root's).
trusted() { # DIR: it and every folder above it writable by root or us only
	python3 - "$1" <<'PY'
import os, sys
p = os.path.realpath(sys.argv[1])
while True:
    st = os.stat(p)
    if st.st_uid not in (0, os.geteuid()) or st.st_mode & 0o022:
        sys.exit(1)
    if p == "/":
        break
    p = os.path.dirname(p)
PY
}
FAKE_DIR=
for base in "${GL_BINARY_DIR:-}" /run; do
	[ -n "$base" ] && [ -d "$base" ] && [ -w "$base" ] && trusted "$base" || continue
	FAKE_DIR=$(mktemp -d "$base/gl-stop-test.XXXXXX") && break
done
if [ -n "$FAKE_DIR" ]; then
	trap 'rm -rf "$FAKE_DIR"; cleanup' EXIT
	chmod 755 "$FAKE_DIR"
fi
if [ -z "$FAKE_DIR" ]; then
	part_skip "6 report rendering" "no folder that only root may write (the build directory, /run) to hold a stand-in browser: gauntlet would not run a browser elsewhere"
else
	printf '#!/bin/sh\necho $$ > %s/browser.pid\nexec sleep 60\n' "$T" > "$FAKE_DIR/browser"
	chmod 755 "$FAKE_DIR/browser"
	echo "{ \"name\": \"stop-render\", \"duration\": \"2s\", \"window\": \"1s\", $NULLRUN, $TARGETS }" > "$T/render.json"
	start render "$T/render.json" GAUNTLET_PDF=auto GAUNTLET_CHROMIUM="$FAKE_DIR/browser"
	stopped "6 report rendering" render TERM "$T/browser.pid" "while the reports were rendered"
	ended "6 report rendering: the browser was ended" "$T/browser.pid"
fi

# --- 7. connect_timeout has a bound --------------------------------------------------------------------
sed 's/"120s"/"168h"/' "$T/agents.json" > "$T/week.json"
"$GAUNTLET" validate "$T/week.json" > "$T/week.out" 2>&1; rc=$?
check "7 validate refuses connect_timeout 168h (exit $rc)" [ $rc -eq 2 ]
check "7 ...naming the key and the bound" grep -q "workloads.inference.agents.connect_timeout: 168h is out of 1s to 10m" "$T/week.out"
sed 's/"120s"/"10m"/' "$T/agents.json" > "$T/ten.json"
"$GAUNTLET" validate "$T/ten.json" > "$T/ten.out" 2>&1; rc=$?
check "7 validate takes the bound itself, 10m (exit $rc)" [ $rc -eq 0 ]
finish
