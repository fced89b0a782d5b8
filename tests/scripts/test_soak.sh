#!/usr/bin/env bash
# test_soak.sh - the main job's scenario (scenarios/target-soak.json) end to
# end, as scripts/soak.sh runs it but at twice the speed: inference against a
# real `gauntlet target`, whose process the exec fault freezes with SIGSTOP
# and thaws with SIGCONT. Checks the verdict, that the fault was injected,
# verified and reverted, that the server is running again afterwards, and
# that recovery figures were measured. Also the exec kind's error paths: a
# failing revert is journaled revert_failed and `gauntlet revert` retries it.
source "$(dirname "$0")/lib.sh"

rm -f "$T/ready"
"$GAUNTLET" target --listen 127.0.0.1:0 --ready-file "$T/ready" --ttft-ms 50 --itl-ms 5 --max-seqs 256 >"$T/target.log" 2>&1 &
TPID=$!
PIDS+=("$TPID")
wait_for "$T/ready" 10 || skip "gauntlet target cannot start"
ADDR=$(cat "$T/ready")
echo "$TPID" > "$T/target.pid"
sed -e "s|/tmp/gauntlet-soak-target.pid|$T/target.pid|g" "$GL_SOURCE_DIR/scenarios/target-soak.json" > "$T/soak.json"
"$GAUNTLET" run "$T/soak.json" --out "$T/run" --time-scale 240 \
	--set "workloads.inference.endpoints=[\"http://$ADDR/v1\"]" >"$T/run.log" 2>&1
rc=$?
check "soak exits 0 (pass)" [ $rc -eq 0 ]
check "fault injected, verified, reverted, verified reverted" json "$T/run/report.json" "(lambda f: (f['state'], f['verified'], f['verified_revert']) == ('reverted', True, True))(r['faults'][0]) or sys.exit(1)"
check "recovery figures measured" json "$T/run/report.json" "r['faults'][0]['recovery_s'] is not None and r['faults'][0]['restore_s'] is not None or sys.exit(1)"
check "the freeze shows: degraded p99 TTFT above 1 s" json "$T/run/report.json" "[t for t in r['targets'] if t['scope']=='degraded' and t['metric']=='inference.ttft_ms.p99'][0]['measured'] > 1000 or sys.exit(1)"
check "target process running again (alive, not stopped)" bash -c "kill -0 $TPID && grep -q '^State:' /proc/$TPID/status && ! grep -q '^State:.*stopped' /proc/$TPID/status"
check "requests were served after the thaw (answered without error)" json "$T/run/report.json" "(lambda i: i['requests'] - i['errors'] > 0)(r['phases'][3]['metrics']['inference'])"

# exec error paths: revert fails -> revert_failed; revert later succeeds
cat > "$T/exec.json" <<JSON
{ "name": "exec-errors", "duration": "4s", "window": "1s", "hold": 1,
  "hosts": { "me": { "local": true } },
  "workloads": { "null": { "rate": 50 } },
  "faults": [ { "id": "x", "at": "1s", "for": "1s", "kind": "exec", "target": "me",
                "params": { "inject": ["touch", "$T/x.marker"],
                            "verify": ["test", "-e", "$T/x.marker"],
                            "revert": ["sh", "-c", "test -e $T/allow-revert && rm $T/x.marker"],
                            "timeout": "5s" } } ],
  "targets": { "steady": { "null.ticks": ">= 20" }, "degraded": { "null.ticks": ">= 20" },
               "recovery": { "recovery_s": "<= 10", "restore_s": "<= 10" } } }
JSON
"$GAUNTLET" run "$T/exec.json" --out "$T/ex" >"$T/ex.log" 2>&1
rc=$?
check "failing revert: run fails (exit 1)" [ $rc -eq 1 ]
check "failing revert: journaled revert_failed with the command's exit" [ "$(sql "$T/ex/run.db" "select state from faults")" = revert_failed ]
json "$T/ex/report.json" "'exec-errors targets: ' + str([(t['scope'], t['metric'], t['measured'], t['pass']) for t in r['targets']])"
check "failing revert: the report says it is left injected" json "$T/ex/report.json" "r['faults_left_injected'] == 1 or sys.exit(1)"
check "failing revert: marker still there" [ -e "$T/x.marker" ]
touch "$T/allow-revert"
"$GAUNTLET" revert "$T/ex" >"$T/rev.log" 2>&1
rc=$?
check "gauntlet revert then succeeds (exit 0), marker gone" [ $rc -eq 0 -a ! -e "$T/x.marker" ]
check "journal now reverted" [ "$(sql "$T/ex/run.db" "select state from faults")" = reverted ]
# preflight: a program the fault needs is missing -> nothing starts, nothing injected
rm -f "$T/x.marker"
sed -e 's|"revert": \["sh"|"revert": ["gl-no-such-program-'$$'"|' "$T/exec.json" > "$T/pf.json"
"$GAUNTLET" run "$T/pf.json" --out "$T/pf" >"$T/pf.log" 2>&1
rc=$?
check "preflight: missing program stops the run (exit 4)" [ $rc -eq 4 ]
check "preflight: message names host and check" grep -q "preflight: exec fault on host me: revert program 'gl-no-such-program-$$' present: FAILED" "$T/pf.log"
check "preflight: nothing injected (marker absent, fault planned)" bash -c "[ ! -e '$T/x.marker' ] && [ \"\$(python3 -c \"import sqlite3; print(sqlite3.connect('$T/pf/run.db').execute('select state from faults').fetchone()[0])\")\" = planned ]"
check "preflight: report has the failed check and verdict fail" json "$T/pf/report.json" "r['verdict']=='fail' and not r['preflight_passed'] and any(not p['ok'] and 'gl-no-such-program' in p['check'] for p in r['preflight']) or sys.exit(1)"
"$GAUNTLET" run "$T/exec.json" --dry-run >"$T/dry.log" 2>&1
check "dry run prints the exec commands" grep -q "inject: touch $T/x.marker" "$T/dry.log"
finish
