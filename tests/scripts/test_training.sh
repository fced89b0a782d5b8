#!/bin/bash
# test_training.sh - the training workload in the controller, end to end
# with real mpirun on loopback (MPI backend):
#   A. a rank SIGKILLed by a process_kill fault: the job is relaunched with
#      restore; report.json and report.md show restore_s and lost_steps,
#      and lost_steps agrees with the train_steps rows in the store; ETTR
#      is below 1 and equals the store's kept step time (each step's last
#      run) over the windows' real time;
#   B. a rank SIGSTOPped: the watchdog ends the job and names that rank
#      (its pid is the one the fault signalled), then a relaunch restores;
#   C. a "launcher" that starts separate single-rank jobs fails the
#      multi-node check: the run ends as an infra failure (exit 4).
#   D. nccl-tests as the workload (tests/nccltests.sh has its cases).
. "$(dirname "$0")/lib.sh"

BIN=$(dirname "$GAUNTLET")/gauntlet-train
[ -x "$BIN" ] || skip "gauntlet-train was not built (OpenMPI not found at build time)"
command -v mpirun >/dev/null || skip "mpirun not installed (Debian openmpi-bin)"

# Each scenario names its own checkpoint directory; the fault pattern
# includes it, so only this test's ranks can match.
scenario() { # scenario FILE CKPT_DIR SIGNAL [FOR] [extra training keys] [watchdog]
	local file=$1 ck=$2 sig=$3 dur=${4:-} extra=${5:-} wd=${6:-15s}
	local forkey=""
	[ -n "$dur" ] && forkey="\"for\": \"$dur\","
	cat > "$file" <<JSON
{
  "name": "training-$sig",
  "duration": "30s",
  "window": "1s",
  "hosts": { "me": { "local": true } },
  "workloads": {
    "training": { "launcher": "mpirun", "hosts": ["me:2"], "backend": "mpi",
                  "message": "1MiB", "compute": "25ms", "heartbeat": "200ms", "watchdog": "$wd",
                  "restart_backoff": "300ms", "launcher_args": ["--oversubscribe"], $extra
                  "checkpoint": { "dir": "$ck", "every_steps": 25, "size": "8MiB" } }
  },
  "phases": [ { "name": "steady", "for": "30s" } ],
  // settle: a relaunch takes mpirun's teardown, the backoff and a
  // checkpoint load, seconds on a loaded machine: more than 3 windows
  "faults": [ { "id": "hit-rank", "at": "8s", $forkey "settle": "12s", "kind": "process_kill", "target": "me",
                "params": { "pattern": "^$BIN .*--ckpt-dir $ck", "signal": "$sig" } } ],
  // steps >= 5 in a window: the windows the failure empties are unhealthy.
  // While the job is down there are no steps to time, so the degraded
  // scope judges the reduced values (a job whose values are wrong fails it).
  "targets": {
    "steady": { "training.step_time_s.p95": "<= 2", "training.steps": ">= 5" },
    "degraded": { "training.correctness_errors": "== 0" },
    "recovery": { "recovery_s": "<= 20", "restore_s": "<= 20", "training.checkpoint.restore_s": "<= 30" }
  }
}
JSON
}
# On a failed verdict: what failed, and the steps per window (diagnostics).
show_targets() {
	python3 - "$1/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for t in r["targets"]:
    print("   target %s %s measured %s pass %s %s" % (t["scope"], t["metric"], t["measured"], t["pass"], t.get("note", "")))
for f in r["faults"]:
    print("   fault %s recovery_s %s restore_s %s %s" % (f["id"], f["recovery_s"], f["restore_s"], f.get("recovery_note", "")))
PY
	echo "   steps per window: $(sql "$1/run.db" "select counter from window_metrics where name='training.steps' order by idx" | tr '\n' ' ')"
}
no_leftover() { ! pgrep -f "^$BIN .*--ckpt-dir $1" >/dev/null; }

# ---- A: SIGKILL a rank ----------------------------------------------------------
scenario "$T/kill.json" "$T/ck-kill" KILL
"$GAUNTLET" run "$T/kill.json" --out "$T/kill" > "$T/kill.log" 2>&1
rc=$?
R=$T/kill/report.json
check "A: run passes (exit $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || show_targets "$T/kill"
check "A: fault injected and reverted" [ "$(json "$R" "r['faults'][0]['state']")" = reverted ]
check "A: one restore recorded" [ "$(json "$R" "r['metrics']['training']['checkpoint']['restores']")" = 1 ]
check "A: one relaunch recorded" [ "$(json "$R" "r['metrics']['training']['relaunches']")" = 1 ]
rs=$(json "$R" "r['metrics']['training']['checkpoint']['restore_s_max']")
check "A: restore_s measured ($rs s) and positive" python3 -c "import sys; sys.exit(not 0 < float('$rs') < 30)"
lost=$(json "$R" "r['metrics']['training']['checkpoint']['lost_steps']")
# From the store: the highest step of launch 1 and the first step of
# launch 2 (restored step + 1) give the steps redone.
max1=$(sql "$T/kill/run.db" "select max(step) from train_steps where launch=1")
min2=$(sql "$T/kill/run.db" "select min(step) from train_steps where launch=2")
check "A: lost_steps $lost = last step before the kill $max1 - restored step $((${min2:-1} - 1))" \
	[ -n "$min2" -a "$lost" -eq $((max1 - (${min2:-1} - 1))) ]
check "A: restored from a checkpoint boundary (every 25 steps)" [ $(((min2 - 1) % 25)) -eq 0 ]
check "A: the restore event names the step" grep -q "restored from step $((min2 - 1))" "$T/kill.log"
check "A: training kept stepping after the restore (launch 2 has steps)" \
	[ "$(sql "$T/kill/run.db" "select count(*) from train_steps where launch=2")" -gt 20 ]
# ETTR from the store alone: the step time of each step's last run (the
# runs a restore redid are lost), over the real seconds of the windows
python3 - "$T/kill/run.db" "$R" > "$T/ettr.txt" <<'PY'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
rows = c.execute("select step, launch, step_time_s from train_steps order by seq").fetchall()
last = {}
for step, launch, t in rows:
    last[step] = t                 # a redone step: its later run counts
all_s = sum(t for _, _, t in rows)
kept = sum(last.values())
wall = sum((e - s) / 1e9 for s, e in c.execute("select start_ns, end_ns from windows"))
r = json.load(open(sys.argv[2]))["metrics"]["training"]
print(kept / wall, r["ettr"], all_s - kept, r["productive_s"], kept)
PY
read -r E_STORE E_REP LOST_S PROD_REP PROD_STORE < "$T/ettr.txt"
check "A: ETTR below 1 ($E_REP), equal to the store's kept step time over window time ($E_STORE)" \
	python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (0 < a < 1 and abs(a - b) <= 0.002 * b))" "$E_REP" "$E_STORE"
# (a kill that lands right after a checkpoint, as it can beside the suite,
# loses no step: then none is redone and there is nothing to leave out)
check "A: the lost steps' first runs ($LOST_S s, $lost step(s)) are out of the productive time ($PROD_REP s; the store's kept steps $PROD_STORE s)" \
	python3 -c "import sys; l, p, k, n = map(float, sys.argv[1:5]); sys.exit(not ((l > 0) == (n > 0) and abs(p - k) <= 0.001 * k + 0.001))" "$LOST_S" "$PROD_REP" "$PROD_STORE" "$lost"
check "A: ETTR in report.md and report.html, and a training.ettr column in timeseries.csv" \
	sh -c "grep -q '| ETTR (productive / wall time) | 0\\.' '$T/kill/report.md' && grep -q 'ETTR' '$T/kill/report.html' && head -1 '$T/kill/timeseries.csv' | grep -q 'training.ettr'"
check "A: report.md shows restore_s and lost steps" \
	grep -q "| lost steps | $lost |" "$T/kill/report.md"
grep -q "restore_s max (relaunch to first step) | [0-9]" "$T/kill/report.md" && ok "A: report.md restore_s row" ||
	bad "A: report.md restore_s row"
check "A: no correctness errors" [ "$(json "$R" "r['metrics']['training']['correctness_errors']")" = 0 ]
check "A: checkpoints saved" [ "$(json "$R" "r['metrics']['training']['checkpoint']['saves']")" -gt 3 ]
check "A: recovery_s of the fault measured" python3 -c "
import json; f=json.load(open('$R'))['faults'][0]; exit(not (f['recovery_s'] is not None and f['restore_s'] is not None))"
check "A: no rank left running after the run" no_leftover "$T/ck-kill"
check "A: the checkpoint dir is per run" [ -d "$T/ck-kill/$(json "$R" "r['run']['id']")" ]

# ---- B: SIGSTOP a rank: the watchdog names it ------------------------------------
scenario "$T/stop.json" "$T/ck-stop" STOP 10s "" 4s
"$GAUNTLET" run "$T/stop.json" --out "$T/stop" > "$T/stop.log" 2>&1
rc=$?
R=$T/stop/report.json
[ "$rc" -eq 0 ] || show_targets "$T/stop"
pid=$(sql "$T/stop/run.db" "select json_extract(measured,'\$.pid') from faults")
hang=$(sql "$T/stop/run.db" "select message from events where message like 'hang:%'")
echo "stopped pid: $pid; $hang"
check "B: run passes (exit $rc)" [ "$rc" -eq 0 ]
check "B: the fault recorded the pid it stopped" [ -n "$pid" ]
check "B: one hang recorded" [ "$(json "$R" "r['metrics']['training']['hangs']")" = 1 ]
check "B: the watchdog names the stopped rank's pid" grep -q "pid $pid (last heartbeat" <<< "$hang"
check "B: and only that rank" [ "$(grep -o 'rank [0-9]* on' <<< "$hang" | wc -l)" -eq 1 ]
check "B: relaunched and restored after the hang" \
	[ "$(json "$R" "r['metrics']['training']['checkpoint']['restores']")" -ge 1 ]
check "B: fault reverted" [ "$(json "$R" "r['faults'][0]['state']")" = reverted ]
check "B: no rank left running or stopped" no_leftover "$T/ck-stop"

# ---- C: separate single-rank jobs fail the multi-node check --------------------
# A launcher that ignores MPI: it starts each rank as its own process, as an
# mpirun of another MPI implementation does with this binary.
cat > "$T/fake-mpirun" <<'SH'
#!/bin/sh
np=1
while [ $# -gt 0 ]; do
	case $1 in
	-np) np=$2; shift 2 ;;
	-H|--mca) shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
i=0
while [ $i -lt "$np" ]; do "$@" & i=$((i + 1)); done
wait
SH
chmod +x "$T/fake-mpirun"
scenario "$T/fake.json" "$T/ck-fake" KILL "" "\"launcher_path\": \"$T/fake-mpirun\","
"$GAUNTLET" run "$T/fake.json" --out "$T/fake" > "$T/fake.log" 2>&1
rc=$?
check "C: run ends as an infra failure (exit $rc = 4)" [ "$rc" -eq 4 ]
check "C: the message names the multi-node check" grep -q "multi-node check failed" "$T/fake.log"
check "C: and says what the launcher did" grep -q "separate single-rank jobs" "$T/fake.log"
check "C: no training step was counted" [ "$(sql "$T/fake/run.db" "select count(*) from train_steps")" = 0 ]
check "C: the fault never ran (stopped before 6s) or was reverted" \
	[ "$(sql "$T/fake/run.db" "select count(*) from faults where state not in ('planned','reverted')")" = 0 ]
check "C: no rank left running" no_leftover "$T/ck-fake"

# ---- D: nccl-tests output through the workload ------------------------------------
# The "binary" prints a recorded nccl-tests output (tests/nccltests/); real
# mpirun starts it np times, so np 2 reproduces the non-MPI-binary pitfall
# for real: two processes, two complete tables.
FIX=$GL_SOURCE_DIR/tests/nccltests
nccl_scenario() { # FILE NP FIXTURE
	cat > "$1" <<JSON
{
  "name": "nccl-tests-$2",
  "duration": "5s",
  "window": "1s",
  "hosts": { "me": { "local": true } },
  "workloads": {
    "training": { "launcher": "mpirun", "hosts": ["me:$2"], "backend": "nccl-tests",
                  "launcher_args": ["--oversubscribe"], "restart_backoff": "100ms",
                  "command": ["cat", "$3"], "plateau": ["128MiB"] }
  },
  "phases": [ { "name": "steady", "for": "5s" } ],
  "targets": { "steady": { "training.busbw_gbps.p50": ">= 40", "training.correctness_errors": "== 0" } }
}
JSON
}
# the three runs side by side: they read recorded tables, nothing timed
nccl_scenario "$T/nt1.json" 1 "$FIX/allreduce_2node.txt"
nccl_scenario "$T/nt2.json" 1 "$FIX/allreduce_wrong.txt"
nccl_scenario "$T/nt3.json" 2 "$FIX/allreduce_2node.txt"
run_all nt1 nt2 nt3
rc=${rcs[0]}
R=$T/nt1/report.json
bw=$(json "$R" "r['metrics']['training']['busbw_gbps']['p50']")
avg=$(grep -o "Avg bus bandwidth *: *[0-9.]*" "$FIX/allreduce_2node.txt" | grep -o "[0-9.]*$")
check "D: a clean nccl-tests output passes (exit $rc)" [ "$rc" -eq 0 ]
check "D: several runs were read ($(json "$R" "r['metrics']['training']['steps']"))" \
	[ "$(json "$R" "r['metrics']['training']['steps']")" -ge 2 ]
check "D: busbw judged at the plateau size: $bw (the lower half at 128MiB, 44.91), not the average $avg" \
	python3 -c "import sys; sys.exit(not abs($bw - 44.91) < 0.05)"
rc=${rcs[1]}
check "D: #wrong > 0 fails the run (exit $rc = 1)" [ "$rc" -eq 1 ]
check "D: #wrong counted as correctness errors" \
	[ "$(json "$T/nt2/report.json" "r['metrics']['training']['correctness_errors']")" -gt 0 ]
rc=${rcs[2]}
check "D: two single-process runs under mpirun -np 2 stop the run (exit $rc = 4)" [ "$rc" -eq 4 ]
check "D: and are named as the non-MPI-binary pitfall" grep -q "nccl-tests: .*MPI" "$T/nt3.log"
grep "nccl-tests:" "$T/nt3.log" | head -2

finish
