#!/bin/bash
# test_incidents.sh - failures nobody scheduled are found and judged.
# Training with real mpirun on loopback (2 ranks, MPI backend, checkpoints)
# for 50 s; a process_kill fault SIGKILLs a rank at 8 s (scheduled, so
# explained: its settle of 20 s holds the relaunch, which takes up to 14 s
# on a loaded machine, and ends before the test's own kill), and this test
# SIGKILLs a rank itself at about 30 s of the run's clock, with no fault in
# force: the ground truth is the test's own
# kill, the time it was done at, and the pid it hit.
#   1. without "incidents" in the scenario: exactly one incident, of kind
#      training.failure, in the windows of the test's kill (none for the
#      scheduled kill); it is counted against the default limit of 0, so
#      the verdict fails while every target passes; report.md, report.html
#      and junit.xml say so, and name the job's end; the live endpoint
#      counted it while the run went on;
#   2. the same with "incidents": {"max": 1}: the one incident is allowed
#      and the verdict passes (the gate can pass, and counts every kind);
#   3. with "incidents": {"max": 0} and no kill by the test: no incident,
#      the verdict passes (the scheduled kill never counts).
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$GAUNTLET")/gauntlet-train
[ -x "$BIN" ] || skip "gauntlet-train was not built (OpenMPI not found at build time)"
command -v mpirun >/dev/null || skip "mpirun not installed (Debian openmpi-bin)"

scenario() { # FILE CKPT_DIR INCIDENTS_JSON
	cat > "$1" <<JSON
{
  "name": "incidents",
  "duration": "50s",
  "window": "1s",
  "hold": 2,
  "hosts": { "me": { "local": true } },
  $3
  "workloads": {
    "training": { "launcher": "mpirun", "hosts": ["me:2"], "backend": "mpi",
                  "message": "1MiB", "compute": "25ms", "heartbeat": "200ms", "watchdog": "15s",
                  "restart_backoff": "300ms", "launcher_args": ["--oversubscribe"],
                  "checkpoint": { "dir": "$2", "every_steps": 25, "size": "8MiB" } }
  },
  "phases": [ { "name": "warmup", "for": "3s", "scope": "none" }, { "name": "steady", "for": "47s" } ],
  "faults": [ { "id": "kill-rank", "at": "8s", "settle": "20s", "kind": "process_kill", "target": "me",
                "params": { "pattern": "^$BIN .*--ckpt-dir $2", "signal": "KILL" } } ],
  "targets": {
    "steady": { "training.step_time_s.p95": "<= 2", "training.steps": ">= 5" },
    "degraded": { "training.correctness_errors": "== 0" },
    "recovery": { "recovery_s": "<= 30", "restore_s": "<= 30", "training.checkpoint.restore_s": "<= 30" }
  }
}
JSON
}

# Run DIR in the background; when its clock passes 30 s, SIGKILL the newest
# rank of its job (KILL=1) and write the elapsed time and pid to DIR.kill.
run_and_kill() { # NAME KILL
	local n=$1 ck=$T/ck-$1
	mkdir -p "$ck"
	bg run "$T/$n.json" --out "$T/$n" --metrics-listen 0 >"$T/$n.log" 2>&1
	local pid=$BG_PID
	if [ "$2" = 1 ]; then
		until_ok 90 sql_is "$T/$n/run.db" "select elapsed_ns >= 30000000000 from run" 1
		local victim
		victim=$(pgrep -n -f "^$BIN .*--ckpt-dir $ck")
		if [ -n "$victim" ]; then
			kill -KILL "$victim"
			echo "$(sql "$T/$n/run.db" "select elapsed_ns from run") $victim" >"$T/$n.kill"
		fi
		# the live endpoint once the incident's windows have closed
		until_ok 60 sql_is "$T/$n/run.db" "select elapsed_ns >= 44000000000 from run" 1
		curl -s --max-time 5 "$(grep -o 'http://[0-9.:]*/metrics' "$T/$n.log" | head -1)" >"$T/$n.prom"
	fi
	wait "$pid"
	echo $? >"$T/$n.rc"
}

scenario "$T/default.json" "$T/ck-default" ""
scenario "$T/max1.json" "$T/ck-max1" '"incidents": { "max": 1 },'
scenario "$T/clean.json" "$T/ck-clean" '"incidents": { "max": 0 },'
run_and_kill default 1 &
p1=$!
run_and_kill max1 1 &
p2=$!
wait $p1 $p2
run_and_kill clean 0

# --- 1. the default: training failures count against 0 -----------------------
R=$T/default
check "1: the test killed a rank at 30 s or later ($(cat "$T/default.kill" 2>/dev/null))" [ -s "$T/default.kill" ]
read -r KILL_NS VICTIM <"$T/default.kill" 2>/dev/null
check "1: the run finished with a failing verdict (exit $(cat "$T/default.rc"), want 1)" [ "$(cat "$T/default.rc")" = 1 ]
json "$R/report.json" "'\n'.join('   incident %s %.1f-%.1f s counted %s: %s; event: %s' % (x['kind'], x['start_elapsed_s'], x['end_elapsed_s'], x['counted'], x['what'], x['event']) for x in r['incidents']['list']) or '   no incident'"
check "1: exactly one incident, training.failure" json "$R/report.json" \
	"r['incidents']['count'] == 1 and r['incidents']['list'][0]['kind'] == 'training.failure' or sys.exit(1)"
# mpirun takes a moment to see a rank gone and end the job (seconds on a
# loaded machine): the incident's windows start within 10 s after the kill
check "1: in the windows after the test's kill (at $((KILL_NS / 1000000)) ms), not the scheduled one at 8 s" json "$R/report.json" \
	"(lambda x: $KILL_NS / 1e9 - 1 <= x['start_elapsed_s'] <= $KILL_NS / 1e9 + 10)(r['incidents']['list'][0]) or sys.exit(1)"
check "1: counted against the default limit 0, the gate fails" json "$R/report.json" \
	"(r['incidents']['counted'], r['incidents']['max'], r['incidents']['pass']) == (1, 0, False) or sys.exit(1)"
check "1: every target passes: the incident alone fails the verdict" json "$R/report.json" \
	"r['verdict'] == 'fail' and all(t['pass'] for t in r['targets']) and r['run']['state'] == 'finished' or sys.exit(1)"
check "1: the scheduled kill is a fault, reverted, with its recovery" json "$R/report.json" \
	"r['faults'][0]['state'] == 'reverted' and r['faults'][0]['restore_s'] is not None or sys.exit(1)"
check "1: the incident names the job's end and the rank killed by signal 9 (its first event)" json "$R/report.json" \
	"(lambda e: 'ended (' in e and 'signal 9' in e)(r['incidents']['list'][0]['event'] or '') or sys.exit(1)"
check "1: report.md states the count in its head and lists it" bash -c \
	"grep -q '1 incident(s), 1 counted against a limit of 0' '$R/report.md' && grep -q '^| training.failure |' '$R/report.md'"
check "1: report.html lists it" bash -c "grep -q 'id=\"incidents\"' '$R/report.html' && grep -q '<td>training.failure</td>' '$R/report.html'"
check "1: junit.xml fails the incidents case" python3 -c "
import sys, xml.etree.ElementTree as ET
c = [x for x in ET.parse('$R/junit.xml').getroot().iter('testcase') if x.get('classname') == 'gauntlet.incidents']
sys.exit(not (len(c) == 1 and c[0].find('failure') is not None))"
check "1: the store's own rows agree: job ends in the incident's windows = 1" python3 -c "
import json, sqlite3, sys
r = json.load(open('$R/report.json'))
x = r['incidents']['list'][0]
db = sqlite3.connect('$R/run.db')
n = db.execute(\"select sum(m.counter) from window_metrics m join windows w on w.idx = m.idx where m.name = 'training.job_failures' and w.start_ns >= ? and w.end_ns <= ?\", (round(x['start_elapsed_s'] * 1e9), round(x['end_elapsed_s'] * 1e9))).fetchone()[0]
print('   job ends in the incident windows:', n)
sys.exit(n != 1)"

check "1: the live endpoint counted it, by kind, before the run ended" bash -c \
	"grep -qx 'gauntlet_incidents_total{kind=\"training.failure\"} 1' '$T/default.prom' && [ \"\$(awk '/^gauntlet_incidents_total\\{/ {n += \$2} END {print n}' '$T/default.prom')\" = 1 ]"
grep '^gauntlet_incidents' "$T/default.prom" | sed 's/^/   /'

# --- 2. incidents.max 1: allowed ------------------------------------------------
R=$T/max1
check "2: the test killed a rank ($(cat "$T/max1.kill" 2>/dev/null))" [ -s "$T/max1.kill" ]
check "2: one incident, counted, within the limit of 1: the run passes (exit $(cat "$T/max1.rc"))" json "$R/report.json" \
	"(r['incidents']['count'], r['incidents']['counted'], r['incidents']['max'], r['incidents']['pass'], r['verdict']) == (1, 1, 1, True, 'pass') or sys.exit(1)"

# --- 3. incidents.max 0, no kill by the test: the scheduled kill never counts ------------
R=$T/clean
check "3: no incident, the run passes (exit $(cat "$T/clean.rc"))" json "$R/report.json" \
	"(r['incidents']['count'], r['verdict']) == (0, 'pass') or sys.exit(1)"
[ "$(cat "$T/clean.rc")" = 0 ] || json "$R/report.json" "'\n'.join('   %s %s %s' % (t['scope'], t['metric'], t['measured']) for t in r['targets'] if not t['pass'])"
finish
